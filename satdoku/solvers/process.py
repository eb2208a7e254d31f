"""Solvers in child processes: the one place a solver process is started, limited and stopped.

A child (a solver binary from an argument list, or a forked Python function) runs in its own
process group with ``RLIMIT_AS`` (the memory limit) and, when the limit is read on the CPU
clock, ``RLIMIT_CPU``; it dies with its parent (``PR_SET_PDEATHSIG``), and a SIGTERM to the
parent kills every live child group before the parent ends. At the deadline the group gets
SIGTERM, then SIGKILL after :data:`GRACE` seconds. Its resource use comes from ``wait4``: user +
system CPU of the child and of the children it waited for, its peak resident memory, and why it
ended (:class:`~satdoku.solvers.base.ChildUsage`). Linux (and other POSIX systems without the
parent-death signal); no shell is ever involved.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import pickle
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from satdoku.solvers.base import CPU, EXIT, MEMLIMIT, TIMELIMIT, ChildUsage, Deadline

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


def _die_with_parent() -> None:
    """In a child: SIGKILL when the parent dies (Linux; a no-op elsewhere)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def _limit_child(memory_mb: float | None, cpu_seconds: float | None) -> None:
    """In a child, before it runs the solver: its own group, dies with its parent, rlimits."""
    _die_with_parent()
    if memory_mb is not None:
        size = int(memory_mb * 1024 * 1024)
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
          on_readable: Callable[[int], None] | None = None) -> tuple[int, Any, bool]:
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
            _stop(pid, pidfd)
            break
    _, status, usage = os.wait4(pid, 0)
    return status, usage, stopped


_OPEN: set[int] = set()  # extra fds still open while waiting (a pipe closes at its EOF)


def _stop(pid: int, pidfd: int) -> None:
    """SIGTERM the child's group; SIGKILL it after :data:`GRACE` seconds."""
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGTERM)
    _ready, _, _ = select.select([pidfd], [], [], GRACE)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # the whole group, even when its leader has exited


def _finished(status: int, usage: Any, stopped: bool, memory_mb: float | None,
              cpu_limit: float | None, stderr_tail: str = "") -> Finished:
    cpu = usage.ru_utime + usage.ru_stime
    rss = usage.ru_maxrss / 1024  # kB on Linux
    code = os.waitstatus_to_exitcode(status)
    sig = -code if code < 0 else None
    if stopped or sig == signal.SIGXCPU or (sig is not None and cpu_limit is not None
                                             and cpu >= cpu_limit):
        term = TIMELIMIT
    elif (memory_mb is not None and code != 0 and code not in (10, 20)
          and any(w in stderr_tail.lower() for w in _MEMORY_WORDS)):
        term = MEMLIMIT
    elif sig is not None:
        term = f"signal {sig}"
    else:
        term = EXIT
    return Finished(ChildUsage(cpu, rss, term), None if sig is not None else code, sig,
                    stopped)


def run_command(argv: Sequence[str], deadline: Deadline, memory_mb: float | None,
                stdout_path: str, stderr_path: str, cwd: str | None = None) -> Finished:
    """Run a binary from an argument list (never a shell) with the limits; its output goes to
    the two files. The group is killed whatever happens (an exception, a signal)."""
    wait_for, cpu_limit = _limits(deadline)
    _guard_sigterm()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
            process_group=0, preexec_fn=lambda: _limit_child(memory_mb, cpu_limit),
            close_fds=True)
    _LIVE.add(proc.pid)
    pidfd = os.pidfd_open(proc.pid)
    try:
        status, usage, stopped = _wait(proc.pid, pidfd, wait_for)
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        _kill_group(proc.pid)
        os.close(pidfd)
    return _finished(status, usage, stopped, memory_mb, cpu_limit, last_line(stderr_path, 4))


def run_forked(func: Callable[[], Any], deadline: Deadline, memory_mb: float | None
               ) -> tuple[Any, Finished]:
    """Run ``func()`` in a forked child under the limits; returns (its pickled return value,
    or None when it did not finish; how it ended). A MemoryError in the child is reported as
    the memory limit."""
    wait_for, cpu_limit = _limits(deadline)
    _guard_sigterm()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            os.setpgid(0, 0)
            _limit_child(memory_mb, cpu_limit)
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
