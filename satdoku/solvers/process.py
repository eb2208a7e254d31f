"""The basic launcher: solver child processes without cgroups, limited and stopped by satdoku.

The fallback measurement backend (``measurement: basic``; BenchExec's cgroups are the other,
:mod:`satdoku.solvers.benchexec_run`). A child (a solver binary from an argument list, or a
forked Python function) runs in its own process group; it dies with its parent
(``PR_SET_PDEATHSIG``), and a SIGTERM to the parent kills every live child first. This
process is a child subreaper (``PR_SET_CHILD_SUBREAPER``): a process the solver starts in a new
session (``setsid``, ``nohup``, a daemonising wrapper) and leaves behind comes back to it as
an orphan instead of escaping to init, so at the limit, and when the solver exits, the whole
tree is killed and reaped, and the CPU time of every process reaped is counted.

Memory is memory used, not address space reserved: the resident memory of the whole tree is
sampled every :data:`POLL` seconds (as runsolver does since 3.3.7), its peak recorded, and the
tree killed once it passes the limit (MEMOUT). A binary is started through util-linux's
``setpriv`` and ``prlimit`` and GNU ``time`` (:func:`_launcher`), so its peak memory is its
own, not this Python process's; with the limit on the CPU clock it gets ``RLIMIT_CPU``. At the
deadline the group gets SIGTERM, then SIGKILL after :data:`GRACE` seconds. Its stdout is read
from a pipe as it comes and handed to a consumer (:class:`~satdoku.solvers.output.AnswerStream`
keeps only what the answer needs). Linux; no shell is ever involved.
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

from satdoku.solvers.base import CPU, Deadline, RunLimits
from satdoku.solvers.result import (
    BASIC,
    EXIT,
    MEMLIMIT,
    MEMOUT,
    TIMELIMIT,
    TIMEOUT,
    ChildUsage,
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

#: Seconds between two samples of the tree's resident memory.
POLL = 0.05

_LIVE: set[int] = set()  # process groups of running children (killed on SIGTERM)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


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
        limit = f"memory limit of {memory_mb:g} MB" if memory_mb is not None else "memory limit"
        return Result(MEMOUT, message=f"{limit} reached" + (f": {tail}" if tail else ""),
                      child=usage)
    return None


def die_with_parent(parent: int) -> None:
    """In a child forked from process ``parent``: SIGKILL when the parent dies (Linux; a no-op
    elsewhere). A parent that died between the fork and this request gets no signal sent for
    it, so the child then ends at once instead of running on unwatched."""
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:
        os._exit(1)


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` through libc; False where it fails or does not exist."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@functools.lru_cache(maxsize=1)
def become_subreaper() -> bool:
    """Make this process a child subreaper (once): orphans of its descendants are reparented
    to it, so nothing a solver starts escapes to init. False where the kernel refuses."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _limit_child(cpu_seconds: float | None, parent: int) -> None:
    """In a child of ``parent``, before it runs the solver: dies with its parent, CPU rlimit
    on the CPU clock. (Memory is limited by sampling the tree's resident memory, not by an
    rlimit.)"""
    die_with_parent(parent)
    if cpu_seconds is not None:
        soft = max(1, math.ceil(cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def _on_sigterm(signum: int, frame: Any) -> None:
    """Kill every running child group and what it left behind, then end as the previous
    handler would."""
    for pgid in list(_LIVE):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
        _kill_tree([pgid])
    for hook in list(_ON_TERM):
        with contextlib.suppress(Exception):
            hook()
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    signal.signal(signum, previous)
    if callable(previous):
        previous(signum, frame)
    else:
        os.kill(os.getpid(), signum)


_PREVIOUS: dict[int, Any] = {}
#: Functions a SIGTERM calls before the process ends (another backend's running runs).
_ON_TERM: set[Callable[[], None]] = set()


def guard_sigterm() -> None:
    """Install the SIGTERM handler once (main thread only; elsewhere PDEATHSIG still holds)."""
    if signal.SIGTERM in _PREVIOUS or threading.current_thread() is not threading.main_thread():
        return
    _PREVIOUS[signal.SIGTERM] = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_sigterm)


def wall_budget(deadline: Deadline) -> tuple[float | None, float | None]:
    """(wall seconds to wait, CPU seconds allowed) of a child under ``deadline``: on the CPU
    clock the wall wait is a backstop of :data:`CPU_WALL_BACKSTOP` x the limit + grace."""
    left = deadline.remaining()
    if left is None:
        return None, None
    if deadline.clock == CPU:
        return left * CPU_WALL_BACKSTOP + GRACE, left
    return left, None


# --- the process tree of a run --------------------------------------------------------------
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


def _tree(roots: Sequence[int]) -> list[int]:
    """``roots`` and all their descendants that are alive now."""
    seen: list[int] = []
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo += _children(pid)
    return seen


class _Run:
    """The processes of one run: the child, its descendants, and the orphans they leave
    behind (reparented to this process, a subreaper: they are its children that were not
    there before the run)."""

    def __init__(self, pid: int, before: set[int], skip_rss: int | None = None) -> None:
        self.pid, self.before, self.skip_rss = pid, before, skip_rss
        self.peak_kb = 0.0
        self.orphan_cpu = 0.0  # CPU seconds of reaped orphans

    def orphans(self) -> list[int]:
        return [c for c in _children(os.getpid()) if c not in self.before and c != self.pid]

    def pids(self) -> list[int]:
        return _tree([self.pid, *self.orphans()])

    def sample(self) -> float:
        """Resident kB of the whole tree now (the launcher GNU time left out); the peak is
        kept."""
        total = 0
        for pid in self.pids():
            if pid == self.skip_rss:
                continue
            total += _rss_kb(pid)
        self.peak_kb = max(self.peak_kb, total)
        return total

    def reap_orphans(self) -> None:
        """Kill and reap what the run left behind; their CPU time counts."""
        for _ in range(100):  # a fork bomb refills the tree: sweep until it is empty
            left = self.orphans()
            if not left:
                return
            _kill_tree(left)
            for pid in left:
                with contextlib.suppress(ChildProcessError, OSError):
                    _, _, usage = os.wait4(pid, 0)
                    self.orphan_cpu += usage.ru_utime + usage.ru_stime


def children_now() -> set[int]:
    """This process's children now (to tell a run's orphans from what was there before)."""
    return set(_children(os.getpid()))


def reap_new_children(before: set[int]) -> None:
    """Kill and reap children of this process that were not there ``before`` (orphans of a
    run that came back to this subreaper, e.g. from a cgroup BenchExec killed)."""
    _Run(-1, before).reap_orphans()


def _kill_tree(roots: Sequence[int]) -> None:
    """SIGKILL ``roots`` and their descendants, stopping each first so none forks on."""
    for _ in range(100):
        pids = _tree(roots)
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        roots = [p for p in pids if _alive(p)] or []
        if not roots:
            return


def _alive(pid: int) -> bool:
    """Running or stopped (not a zombie, not gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE_KB
    except (OSError, ValueError, IndexError):
        return 0


_PAGE_KB = resource.getpagesize() // 1024


# --- waiting ---------------------------------------------------------------------------------
def _wait(run: _Run, pidfd: int, wait_for: float | None, memory_kb: float | None,
          extra: Sequence[int] = (), on_readable: Callable[[int], None] | None = None,
          binary_first: bool = False) -> tuple[int, Any, str | None]:
    """Wait for the child (its pidfd), feeding readable ``extra`` fds to ``on_readable`` and
    sampling the tree's memory every :data:`POLL` seconds; at ``wait_for`` seconds or past
    ``memory_kb``: SIGTERM its group, SIGKILL after the grace. Returns (status, rusage, the
    limit that stopped it: TIMELIMIT, MEMLIMIT or None)."""
    start = time.monotonic()
    end = None if wait_for is None else start + wait_for
    fds = [pidfd, *extra]
    stopped: str | None = None
    next_poll = start
    while True:
        now = time.monotonic()
        if now >= next_poll:
            used = run.sample()
            next_poll = now + POLL
            if memory_kb is not None and used > memory_kb:
                stopped = MEMLIMIT
                _stop(run, pidfd, binary_first)
                break
        timeout = max(0.0, next_poll - now)
        if end is not None:
            timeout = min(timeout, max(0.0, end - now))
        ready, _, _ = select.select(fds, [], [], timeout)
        if pidfd in ready:
            break
        for fd in ready:
            if on_readable is not None:
                on_readable(fd)
                if fd not in _OPEN:
                    fds.remove(fd)
        if end is not None and time.monotonic() >= end:
            stopped = TIMELIMIT
            _stop(run, pidfd, binary_first)
            break
    _, status, usage = os.wait4(run.pid, 0)
    return status, usage, stopped


_OPEN: set[int] = set()  # extra fds still open while waiting (a pipe closes at its EOF)


def _stop(run: _Run, pidfd: int, binary_first: bool = False) -> None:
    """SIGTERM the child's group; SIGKILL it and every process of the run after
    :data:`GRACE` seconds. With ``binary_first`` (the child is GNU time running the binary)
    the binary alone gets the SIGTERM first, so that time still reports its peak memory."""
    kids = _children(run.pid) if binary_first else []
    with contextlib.suppress(OSError):
        for kid in kids:
            os.kill(kid, signal.SIGTERM)
        if not kids:
            os.killpg(run.pid, signal.SIGTERM)
    _ready, _, _ = select.select([pidfd], [], [], GRACE)
    with contextlib.suppress(OSError):
        os.killpg(run.pid, signal.SIGKILL)  # the whole group, even when its leader has exited
    _kill_tree([run.pid, *run.orphans()])


def _finished(status: int, usage: Any, stopped: str | None, memory_kb: float | None,
              cpu_limit: float | None, run: _Run, stderr_tail: str = "",
              report: tuple[float, int | None, int | None] | None = None,
              wall: float = 0.0, forked: bool = False) -> Finished:
    """How a child ended. ``report`` is (peak kB, exit code, signal) of the binary as GNU time
    saw it (its own process, not the launcher's), when there is one; the peak is the larger
    of it and the tree's sampled peak. ``memory_kb`` is the limit the sampling held the tree
    to: a run whose own peak passed it between two samples (a spike, or a short run on a
    loaded machine) ended over its limit all the same, and is MEMLIMIT whatever it answered.
    Its own peak is GNU time's, or a ``forked`` child's ``ru_maxrss`` (its limit counts what it
    inherited); an exec'd child's ``ru_maxrss`` without a report is not: it keeps the
    high-water mark of the fork it was before its exec, this process's memory."""
    cpu = usage.ru_utime + usage.ru_stime + run.orphan_cpu
    rss_kb = max(run.peak_kb, 0.0 if report is not None else usage.ru_maxrss)  # kB on Linux
    code: int | None = os.waitstatus_to_exitcode(status)
    sig = -code if code is not None and code < 0 else None
    if report is not None:
        rss_kb, code, sig = max(report[0], run.peak_kb), report[1], report[2]
    own_peak_kb = report[0] if report is not None else usage.ru_maxrss if forked else 0.0
    if stopped is not None:
        term = stopped
    elif sig == signal.SIGXCPU or (sig is not None and cpu_limit is not None
                                   and cpu >= cpu_limit):
        term = TIMELIMIT
    elif memory_kb is not None and (own_peak_kb > memory_kb or (
            code not in (0, 10, 20) and any(w in stderr_tail.lower() for w in _MEMORY_WORDS))):
        term = MEMLIMIT  # its peak passed the limit, or it died saying memory ran out
    elif sig is not None:
        term = f"signal {sig}"
    else:
        term = EXIT
    return Finished(ChildUsage(cpu, rss_kb / 1024, term, BASIC, wall),
                    None if sig is not None else code, sig, stopped is not None)


def run_command(argv: Sequence[str], deadline: Deadline, limits: RunLimits,
                on_stdout: Callable[[bytes], None], stderr_path: str) -> Finished:
    """Run a binary from an argument list (never a shell) under ``limits``: its stdout goes to
    ``on_stdout`` in pieces as it comes, its stderr to a file. The run's whole tree is killed
    whatever happens (an exception, a signal), and at its end."""
    wait_for, cpu_limit = wall_budget(deadline)
    guard_sigterm()
    become_subreaper()
    report_path = stderr_path + ".rusage"
    with contextlib.suppress(FileNotFoundError):
        os.remove(report_path)
    wrapped = _launcher(cpu_limit, report_path)
    before = set(_children(os.getpid()))
    read_fd, write_fd = os.pipe()
    try:
        with open(stderr_path, "wb") as err:
            if wrapped is not None:  # posix_spawn (vfork + exec)
                pid = os.posix_spawnp(wrapped[0], [*wrapped, *argv], os.environ, file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, write_fd, 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
                    (os.POSIX_SPAWN_CLOSE, read_fd),
                ], setpgroup=0)
            else:
                pid = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=write_fd,
                                       stderr=err, process_group=0, close_fds=True,
                                       preexec_fn=functools.partial(
                                           _limit_child, cpu_limit, os.getpid())).pid
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    _LIVE.add(pid)
    pidfd = os.pidfd_open(pid)
    timed = wrapped is not None and "-o" in wrapped
    run = _Run(pid, before, skip_rss=pid if timed else None)
    memory_kb = None if limits.memory_mb is None else limits.memory_mb * 1024
    _OPEN.add(read_fd)

    def read(fd: int) -> None:
        data = os.read(fd, 1 << 20)
        if data:
            on_stdout(data)
        else:
            _OPEN.discard(fd)

    start = time.monotonic()
    try:
        status, usage, stopped = _wait(run, pidfd, wait_for, memory_kb, [read_fd], read,
                                       binary_first=timed)
        wall = time.monotonic() - start
        run.reap_orphans()  # what the run left behind (an escaped process) ends with it
        while read_fd in _OPEN:  # what is left in the pipe (the writers are gone)
            read(read_fd)
    finally:
        _OPEN.discard(read_fd)
        _kill_group(pid)
        run.reap_orphans()
        os.close(pidfd)
        os.close(read_fd)
    return _finished(status, usage, stopped, memory_kb, cpu_limit, run,
                     last_line(stderr_path, 4), _time_report(report_path), wall)


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


def _launcher(cpu_limit: float | None, report: str) -> list[str] | None:
    """The programs started in front of a binary, all by posix_spawn (no copy of this
    process): util-linux's ``setpriv --pdeathsig KILL`` (dies with this process) and, on the
    CPU clock, ``prlimit --cpu``, then GNU ``time``, which runs the binary as its own small
    child and reports its peak memory (a process started from this one inherits this one's peak
    as its ``ru_maxrss``; the binary started from ``time`` does not), and ``setpriv`` again so
    the binary dies with ``time``. Without setpriv/prlimit (None) a ``preexec_fn`` does the
    same in a forked copy of this process; without GNU time the peak is the tree's sampled
    peak, or ``wait4``'s (at least this process's own peak)."""
    setpriv, prlimit, time_bin = _tools()
    limits = []
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


def run_forked(func: Callable[[], Any], deadline: Deadline, limits: RunLimits
               ) -> tuple[Any, Finished]:
    """Run ``func()`` in a forked child under ``limits``; returns (its pickled return value,
    or None when it did not finish; how it ended). The child may grow ``limits.memory_mb``
    beyond the resident memory it starts with (this process's, shared); a MemoryError in it is
    reported as the memory limit."""
    wait_for, cpu_limit = wall_budget(deadline)
    guard_sigterm()
    become_subreaper()
    parent = os.getpid()
    base_kb = _rss_kb(parent)
    before = set(_children(parent))
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            os.setpgid(0, 0)
            _limit_child(cpu_limit, parent)
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
    run = _Run(pid, before)
    memory_kb = None if limits.memory_mb is None else base_kb + limits.memory_mb * 1024
    chunks: list[bytes] = []
    _OPEN.add(read_fd)

    def read(fd: int) -> None:
        data = os.read(fd, 1 << 20)
        if data:
            chunks.append(data)
        else:
            _OPEN.discard(fd)

    start = time.monotonic()
    try:
        status, usage, stopped = _wait(run, pidfd, wait_for, memory_kb, [read_fd], read)
        wall = time.monotonic() - start
        while read_fd in _OPEN and stopped is None:  # what is left in the pipe after the exit
            read(read_fd)
    finally:
        _OPEN.discard(read_fd)
        _kill_group(pid)
        run.reap_orphans()
        os.close(pidfd)
        os.close(read_fd)
    done = _finished(status, usage, stopped, memory_kb, cpu_limit, run, wall=wall, forked=True)
    value = None
    if stopped is None and chunks and done.usage.termination != MEMLIMIT:
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
