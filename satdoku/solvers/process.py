"""Solvers in child processes: the one place a solver process is started, limited and stopped.

A child (a solver binary from an argument list, or a forked Python function) runs in its own
process group with ``RLIMIT_AS`` (the memory limit) and, when the limit is read on the CPU
clock, ``RLIMIT_CPU``; it dies with its parent (``PR_SET_PDEATHSIG``), and a SIGTERM to the
parent kills every live child group before the parent ends. A binary is started through
util-linux's ``setpriv`` and ``prlimit`` and GNU ``time`` (:func:`_launcher`), so its peak
memory is its own, not this Python process's. At the deadline the group gets
SIGTERM, then SIGKILL after :data:`GRACE` seconds. Its resource use comes from ``wait4``: user +
system CPU of the child and of the children it waited for, its peak resident memory, and why it
ended (:class:`~satdoku.solvers.base.ChildUsage`). Linux (and other POSIX systems without the
parent-death signal); no shell is ever involved.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import os
import pickle
import resource
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from satdoku.solvers.base import (
    CPU,
    EXIT,
    MEMLIMIT,
    MEMOUT,
    TIMELIMIT,
    TIMEOUT,
    ChildUsage,
    Deadline,
    Result,
)

#: Seconds between SIGTERM and SIGKILL at the limit.
GRACE = 1.0
#: With the limit on the CPU clock, a child that sleeps instead of computing is still stopped
#: once its wall time reaches this many times the limit (plus :data:`GRACE`).
CPU_WALL_BACKSTOP = 3.0
#: Words in a failed child's last output that mean an allocation failed (its memory limit).
_MEMORY_WORDS = ("out of memory", "memoryerror", "bad_alloc", "cannot allocate",
                 "memory exhausted", "std::bad_alloc", "mmap failed")

_LIVE: set[int] = set()  # process groups of running children (killed on SIGTERM)
_PR_SET_PDEATHSIG = 1


@dataclass
class Finished:
    """A child that ended: its usage, exit code (None when a signal ended it) and signal."""

    usage: ChildUsage
    returncode: int | None
    signal: int | None
    stopped_at_limit: bool


def limit_result(done: Finished, deadline: Deadline, memory_mb: float | None,
                 stderr: str | None = None) -> Result | None:
    """TIMEOUT or MEMOUT, with the child's usage, when a limit ended ``done`` (else None): the
    one wording for every solver that runs in a child; a MEMOUT ends with the last line of the
    ``stderr`` file, if any."""
    usage = done.usage
    if usage.termination == TIMELIMIT:
        return Result(TIMEOUT, message=f"stopped at the {deadline.limit:g} s {deadline.clock} "
                                       "limit", child=usage)
    if usage.termination == MEMLIMIT:
        tail = last_line(stderr) if stderr is not None else ""
        return Result(MEMOUT, message=f"memory limit of {memory_mb:g} MB reached"
                                      + (f": {tail}" if tail else ""), child=usage)
    return None


def _die_with_parent() -> None:
    """In a child: SIGKILL when the parent dies (Linux; a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def _limit_child(memory_mb: float | None, cpu_seconds: float | None, base: int = 0) -> None:
    """In a child, before it runs the solver: its own group, dies with its parent, rlimits.
    ``base`` is the address space the child starts with (a forked copy of this process: its
    limit is ``memory_mb`` beyond what it inherited; an exec'd binary starts afresh)."""
    _die_with_parent()
    if memory_mb is not None:
        size = base + int(memory_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if cpu_seconds is not None:
        soft = max(1, math.ceil(cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def _on_sigterm(signum: int, frame: Any) -> None:
    """Kill every running child group, then end as the previous handler would."""
    for pgid in list(_LIVE):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    signal.signal(signum, previous)
    if callable(previous):
        previous(signum, frame)
    else:
        os.kill(os.getpid(), signum)


_PREVIOUS: dict[int, Any] = {}


def _guard_sigterm() -> None:
    """Install the SIGTERM handler once (main thread only; elsewhere PDEATHSIG still holds)."""
    if signal.SIGTERM in _PREVIOUS or threading.current_thread() is not threading.main_thread():
        return
    _PREVIOUS[signal.SIGTERM] = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)


def _limits(deadline: Deadline) -> tuple[float | None, float | None]:
    """(wall seconds to wait, CPU rlimit) of a child under ``deadline``."""
    left = deadline.remaining()
    if left is None:
        return None, None
    if deadline.clock == CPU:
        return left * CPU_WALL_BACKSTOP + GRACE, left
    return left, None


def _wait(pid: int, pidfd: int, wait_for: float | None, extra: Sequence[int] = (),
          on_readable: Callable[[int], None] | None = None, binary_first: bool = False
          ) -> tuple[int, Any, bool]:
    """Wait for the child (its pidfd), feeding readable ``extra`` fds to ``on_readable``;
    at ``wait_for`` seconds: SIGTERM its group, SIGKILL after the grace. Returns (status,
    rusage, stopped at the limit)."""
    end = None if wait_for is None else time.monotonic() + wait_for
    fds = [pidfd, *extra]
    stopped = False
    while True:
        timeout = None if end is None else max(0.0, end - time.monotonic())
        ready, _, _ = select.select(fds, [], [], timeout)
        if pidfd in ready:
            break
        for fd in ready:
            if on_readable is not None:
                on_readable(fd)
                if fd not in _OPEN:
                    fds.remove(fd)
        if not ready and end is not None:
            stopped = True
            _stop(pid, pidfd, binary_first)
            break
    _, status, usage = os.wait4(pid, 0)
    return status, usage, stopped


_OPEN: set[int] = set()  # extra fds still open while waiting (a pipe closes at its EOF)


def _stop(pid: int, pidfd: int, binary_first: bool = False) -> None:
    """SIGTERM the child's group; SIGKILL it after :data:`GRACE` seconds. With
    ``binary_first`` (the child is GNU time running the binary) the binary alone gets the
    SIGTERM first, so that time still reports its peak memory, then the group."""
    kids = _children(pid) if binary_first else []
    with contextlib.suppress(OSError):
        for kid in kids:
            os.kill(kid, signal.SIGTERM)
        if not kids:
            os.killpg(pid, signal.SIGTERM)
    _ready, _, _ = select.select([pidfd], [], [], GRACE)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # the whole group, even when its leader has exited


def _children(pid: int) -> list[int]:
    """The direct children of a process (Linux /proc), [] where unknown."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found += [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        return []
    return found


def _finished(status: int, usage: Any, stopped: bool, memory_mb: float | None,
              cpu_limit: float | None, stderr_tail: str = "",
              report: tuple[float, int | None, int | None] | None = None) -> Finished:
    """How a child ended. ``report`` is (peak kB, exit code, signal) of the binary as GNU time
    saw it (its own process, not the launcher's), when there is one."""
    cpu = usage.ru_utime + usage.ru_stime
    rss = usage.ru_maxrss / 1024  # kB on Linux
    code: int | None = os.waitstatus_to_exitcode(status)
    sig = -code if code is not None and code < 0 else None
    if report is not None:
        rss, code, sig = report[0] / 1024, report[1], report[2]
    if stopped or sig == signal.SIGXCPU or (sig is not None and cpu_limit is not None
                                             and cpu >= cpu_limit):
        term = TIMELIMIT
    elif (memory_mb is not None and code not in (0, 10, 20)
          and any(w in stderr_tail.lower() for w in _MEMORY_WORDS)):
        term = MEMLIMIT
    elif sig is not None:
        term = f"signal {sig}"
    else:
        term = EXIT
    return Finished(ChildUsage(cpu, rss, term), None if sig is not None else code, sig,
                    stopped)


def run_command(argv: Sequence[str], deadline: Deadline, memory_mb: float | None,
                stdout_path: str, stderr_path: str) -> Finished:
    """Run a binary from an argument list (never a shell) with the limits; its output goes to
    the two files. The group is killed whatever happens (an exception, a signal)."""
    wait_for, cpu_limit = _limits(deadline)
    _guard_sigterm()
    report_path = stderr_path + ".rusage"
    with contextlib.suppress(FileNotFoundError):
        os.remove(report_path)
    wrapped = _launcher(memory_mb, cpu_limit, report_path)
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        if wrapped is not None:  # posix_spawn (vfork + exec)
            pid = os.posix_spawnp(wrapped[0], [*wrapped, *argv], os.environ, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
            ], setpgroup=0)
        else:
            pid = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=err, process_group=0, close_fds=True,
                                   preexec_fn=lambda: _limit_child(memory_mb, cpu_limit)).pid
    _LIVE.add(pid)
    pidfd = os.pidfd_open(pid)
    try:
        status, usage, stopped = _wait(pid, pidfd, wait_for,
                                       binary_first=wrapped is not None and "-o" in wrapped)
    finally:
        _kill_group(pid)
        os.close(pidfd)
    return _finished(status, usage, stopped, memory_mb, cpu_limit, last_line(stderr_path, 4),
                     _time_report(report_path))


#: GNU time's report format: a marker, the peak resident kB and the exit status.
_TIME_FORMAT = "satdoku-rusage %M %x"


def _time_report(path: str) -> tuple[float, int | None, int | None] | None:
    """(peak kB, exit code, signal) from GNU time's report file, None without one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    sig = None
    for line in lines:
        if line.startswith("Command terminated by signal "):
            sig = int(line.split()[-1])
    for line in lines:
        words = line.split()
        if len(words) == 3 and words[0] == "satdoku-rusage":
            return float(words[1]), None if sig is not None else int(words[2]), sig
    return None


@functools.lru_cache(maxsize=1)
def _tools() -> tuple[str | None, str | None, str | None]:
    time_bin = shutil.which("time", path="/usr/bin:/bin:/usr/local/bin")
    return shutil.which("setpriv"), shutil.which("prlimit"), time_bin


def _launcher(memory_mb: float | None, cpu_limit: float | None, report: str
              ) -> list[str] | None:
    """The programs started in front of a binary, all by posix_spawn (no copy of this
    process): util-linux's ``setpriv --pdeathsig KILL`` (dies with this process) and
    ``prlimit`` (the rlimits), then GNU ``time``, which runs the binary as its own small
    child and reports its peak memory (a process started from this one inherits this one's peak
    as its ``ru_maxrss``; the binary started from ``time`` does not), and ``setpriv`` again so
    the binary dies with ``time``. Without setpriv/prlimit (None) a ``preexec_fn`` does the
    same in a forked copy of this process; without GNU time the peak is ``wait4``'s, at least
    this process's own peak (the known error docs/solvers.md states)."""
    setpriv, prlimit, time_bin = _tools()
    limits = []
    if memory_mb is not None:
        size = int(memory_mb * 1024 * 1024)
        limits.append(f"--as={size}:{size}")
    if cpu_limit is not None:
        soft = max(1, math.ceil(cpu_limit))
        limits.append(f"--cpu={soft}:{soft + 1}")
    if setpriv is None or (limits and prlimit is None):
        return None
    out = [setpriv, "--pdeathsig", "KILL", "--"]
    if limits:
        out += [str(prlimit), *limits, "--"]
    if time_bin is not None:
        out += [time_bin, "-f", _TIME_FORMAT, "-o", report, "--",
                setpriv, "--pdeathsig", "KILL", "--"]
    return out


def run_forked(func: Callable[[], Any], deadline: Deadline, memory_mb: float | None
               ) -> tuple[Any, Finished]:
    """Run ``func()`` in a forked child under the limits; returns (its pickled return value,
    or None when it did not finish; how it ended). The child may grow ``memory_mb`` beyond
    the address space it inherits; a MemoryError in it is reported as the memory limit."""
    wait_for, cpu_limit = _limits(deadline)
    _guard_sigterm()
    base = address_space() if memory_mb is not None else 0
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            os.setpgid(0, 0)
            _limit_child(memory_mb, cpu_limit, base)
            try:
                payload = pickle.dumps(("ok", func()))
            except MemoryError:
                payload = pickle.dumps(("memout", None))
            with os.fdopen(write_fd, "wb") as fh:
                fh.write(payload)
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # both sides set it: no race with a signal to the group
    _LIVE.add(pid)
    pidfd = os.pidfd_open(pid)
    chunks: list[bytes] = []
    _OPEN.add(read_fd)

    def read(fd: int) -> None:
        data = os.read(fd, 1 << 20)
        if data:
            chunks.append(data)
        else:
            _OPEN.discard(fd)

    try:
        status, usage, stopped = _wait(pid, pidfd, wait_for, [read_fd], read)
        while read_fd in _OPEN and not stopped:  # what is left in the pipe after the exit
            read(read_fd)
    finally:
        _OPEN.discard(read_fd)
        _kill_group(pid)
        os.close(pidfd)
        os.close(read_fd)
    done = _finished(status, usage, stopped, memory_mb, cpu_limit)
    value = None
    if not stopped and chunks:
        kind, value = pickle.loads(b"".join(chunks))
        if kind == "memout":
            done.usage.termination = MEMLIMIT
    return value, done


def _kill_group(pgid: int) -> None:
    """No process of the group survives its run."""
    _LIVE.discard(pgid)
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def address_space() -> int:
    """This process's virtual memory size in bytes (what RLIMIT_AS bounds)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def last_line(path: str, lines: int = 1, limit: int = 4096) -> str:
    """The last non-empty ``lines`` lines of a file (its last ``limit`` bytes), as one line."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    kept = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
    return " | ".join(kept)
