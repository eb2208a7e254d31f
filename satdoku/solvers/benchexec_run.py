"""BenchExec as the measurement backend: solver processes limited and measured by cgroups.

A binary runs through ``benchexec.runexecutor.RunExecutor`` (BenchExec's Python API, without
its container mode: ``use_namespaces=False``): in fresh cgroups of its own, so every process it
starts, in a new session or not, is in them. At the limit all of them are killed (the freezer
cgroup); its CPU time is the cgroup's (every descendant's), its peak memory the cgroup's
(resident memory plus page cache, as BenchExec defines it), and the memory limit is the
cgroup's limit, not an address-space limit. Its cores are the run's (a cpuset cgroup) and it
may have at most :data:`PIDS_LIMIT` tasks (a pids cgroup, where the host has one).

A forked solver (python-sat's CaDiCaL, ``cadical195``) cannot be exec'd by RunExecutor, so it
runs in a cgroup made the same way, by the same executor's ``Cgroups`` object
(``create_fresh_child_cgroup``, ``add_task``, ``read_cputime``, ``read_max_mem_usage``,
``kill_all_tasks``): the child joins its cgroup before it starts working.

BenchExec reads its time limit once a second at most; the wall-clock limit is enforced here on
time by a timer that calls the executor's ``stop()``. ``benchexec`` is imported only here, and
only when this backend is used.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import select
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from satdoku.solvers.base import Deadline, RunLimits
from satdoku.solvers.output import CHUNK
from satdoku.solvers.process import (
    _ON_TERM,
    GRACE,
    Finished,
    become_subreaper,
    children_now,
    die_with_parent,
    guard_sigterm,
    reap_new_children,
    wall_budget,
)
from satdoku.solvers.result import EXIT, MEMLIMIT, TIMELIMIT, ChildUsage

#: Tasks (processes and threads) one run may have at most: a fork bomb stops here.
PIDS_LIMIT = 4096
#: Seconds between two looks at a forked run's CPU time (on the CPU clock).
CPU_POLL = 0.05

_EXECUTOR: Any = None
_LOCK = threading.Lock()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """BenchExec logs to the root logger (warnings about kills, swap, throttling); the solve
    path reports what matters in its own words, so its records are silenced during a call."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def version() -> str:
    """``benchexec <version>``: what the ``measurement`` column says of a run measured here."""
    import benchexec

    return f"benchexec {benchexec.__version__}"


def executor() -> Any:
    """The process's one RunExecutor (made on first use; SystemExit from BenchExec, which is
    how it reports unusable cgroups, becomes a RuntimeError with its message)."""
    global _EXECUTOR
    if _EXECUTOR is None:
        from benchexec.runexecutor import RunExecutor

        class LimitedTasks(RunExecutor):  # type: ignore[misc]
            """RunExecutor whose run cgroups also get ``pids.max`` (its ``cgroupValues``
            are checked against the parent cgroup, which at a hierarchy's root has none)."""

            def _setup_cgroups(self, *args: Any, **kwargs: Any) -> Any:
                cgroups = super()._setup_cgroups(*args, **kwargs)
                _limit_tasks(cgroups)
                return cgroups

        with _quiet():
            try:
                try:
                    made = LimitedTasks(use_namespaces=False,
                                        additional_cgroup_subsystems=["pids"])
                except SystemExit:  # no pids controller: runs without a task limit
                    made = LimitedTasks(use_namespaces=False)
            except SystemExit as exc:
                raise RuntimeError(_exit_text(exc)) from None
        _EXECUTOR = made
    return _EXECUTOR


def _exit_text(exc: SystemExit) -> str:
    text = " ".join(str(exc.code or "").split())
    return text[:300] or "BenchExec cannot use the cgroups of this host"


def check() -> str | None:
    """Why BenchExec cannot measure runs on this host, or None when it can: its executor must
    have the cpuacct, memory and freezer cgroups, and a trial run (``true`` under a memory limit
    on one core, as BenchExec's own ``check_cgroups`` does) must succeed in them."""
    try:
        import benchexec.runexecutor  # noqa: F401
    except ImportError as exc:
        return f"benchexec is not installed ({exc})"
    try:
        ex = executor()
    except (RuntimeError, OSError) as exc:
        return str(exc)
    cg = ex.cgroups
    missing = [s for s in (cg.CPU, cg.MEMORY, cg.FREEZE) if s not in cg]
    if missing:
        return f"no usable {', '.join(missing)} cgroup"
    true = shutil.which("true")
    if true is None:
        return "no `true` binary for the trial run"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="satdoku-benchexec-") as tmp, _quiet():
        try:
            cores = [sorted(ex.cpus)[0]] if ex.cpus else None
            out = ex.execute_run([true], os.path.join(tmp, "out"), memlimit=64 << 20,
                                 cores=cores, write_header=False)
        except SystemExit as exc:
            return _exit_text(exc)
        except OSError as exc:
            return f"trial run failed: {exc}"
    if "terminationreason" in out:
        return f"trial run ended with {out['terminationreason']}"
    if out.get("exitcode") is None or out["exitcode"].raw != 0 or "cputime" not in out:
        return f"trial run failed: {out}"
    return None


def _cores(ex: Any, limits: RunLimits) -> list[int] | None:
    """The run's cores, where the executor can pin (a cpuset cgroup) and they are allowed."""
    if limits.cores is None or not ex.cpus:
        return None
    allowed = [c for c in limits.cores if c in ex.cpus]
    return allowed or None


def _limit_tasks(cgroups: Any) -> None:
    """``pids.max`` = :data:`PIDS_LIMIT` in a run's cgroups, where they have a pids one."""
    if "pids" in cgroups and cgroups.has_value("pids", "max"):
        cgroups.set_value("pids", "max", str(PIDS_LIMIT))


def run_command(argv: Sequence[str], deadline: Deadline, limits: RunLimits,
                on_stdout: Callable[[bytes], None], stderr_path: str) -> Finished:
    """Run a binary through RunExecutor under ``limits``; its stdout (written to a file beside
    ``stderr_path``) goes to ``on_stdout`` in pieces after the run, and the file is removed."""
    ex = executor()
    wall_wait, cpu_limit = wall_budget(deadline)
    stdout_path = stderr_path + ".stdout"
    kwargs: dict[str, Any] = {
        "cores": _cores(ex, limits), "write_header": False, "error_filename": stderr_path,
    }
    if limits.memory_mb is not None:
        kwargs["memlimit"] = int(limits.memory_mb * 1024 * 1024)
    if cpu_limit is not None:
        kwargs["hardtimelimit"] = max(cpu_limit, 0.001)
    if wall_wait is not None:  # BenchExec's own wall limit: a backstop behind the timer
        kwargs["walltimelimit"] = max(wall_wait, 0.001) + 2 * GRACE
    fired = threading.Event()

    def stop() -> None:
        fired.set()
        with _quiet():
            ex.stop()

    timer = None
    if wall_wait is not None:
        timer = threading.Timer(max(wall_wait, 0.0), stop)
        timer.daemon = True
    guard_sigterm()
    become_subreaper()  # the run's processes, killed, come back here to be reaped
    _ON_TERM.add(ex.stop)
    before = children_now()
    with _LOCK, _quiet():
        try:
            if timer is not None:
                timer.start()
            result = ex.execute_run(list(argv), stdout_path, **kwargs)
        except SystemExit as exc:
            raise OSError(_exit_text(exc)) from None
        finally:
            if timer is not None:
                timer.cancel()
            _ON_TERM.discard(ex.stop)
            ex.PROCESS_KILLED = False
            reap_new_children(before)  # orphans that came back to a subreaper
    try:
        with open(stdout_path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                on_stdout(chunk)
    except FileNotFoundError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.remove(stdout_path)
    return _finished(result, fired.is_set(), limits)


def _finished(result: dict[str, Any], stopped: bool, limits: RunLimits) -> Finished:
    """A RunExecutor result as ours: termination reasons mapped (cputime and walltime ->
    the time limit, memory -> the memory limit, a signal, an exit code)."""
    reason = result.get("terminationreason")
    if reason == "failed":
        raise OSError("BenchExec could not start the run")
    code = result.get("exitcode")
    sig = code.signal if code is not None else None
    value = code.value if code is not None else None
    if stopped or reason in ("cputime", "cputime-soft", "walltime"):
        term = TIMELIMIT
    elif reason == "memory":
        term = MEMLIMIT
    elif sig is not None:
        term = f"signal {sig}"
    else:
        term = EXIT
    usage = ChildUsage(float(result.get("cputime", 0.0)),
                       float(result.get("memory", 0)) / (1024 * 1024), term, version(),
                       float(result.get("walltime", 0.0)))
    limited = term in (TIMELIMIT, MEMLIMIT)
    return Finished(usage, None if sig is not None else value, sig, limited)


def run_forked(func: Callable[[], Any], deadline: Deadline, limits: RunLimits
               ) -> tuple[Any, Finished]:
    """Run ``func()`` in a forked child that joins a fresh cgroup of its own before it starts
    (the executor's ``Cgroups``): CPU time, peak memory and the memory limit are the cgroup's;
    at the limit, or when it ends, every task of the cgroup is killed. Returns (its pickled
    return value, or None when it did not finish; how it ended)."""
    ex = executor()
    cg_root = ex.cgroups
    wall_wait, cpu_limit = wall_budget(deadline)
    cores = _cores(ex, limits)
    wanted = [cg_root.CPU, cg_root.FREEZE, cg_root.MEMORY, *ex._cgroup_subsystems]
    if cores is not None:
        wanted.append(cg_root.CPUSET)
    with _quiet():
        cg = cg_root.create_fresh_child_cgroup([s for s in dict.fromkeys(wanted) if s in cg_root])
    try:
        if cores is not None:
            cg.set_value(cg_root.CPUSET, "cpus", ",".join(map(str, cores)))
        _limit_tasks(cg)
        memlimit = None
        if limits.memory_mb is not None:
            memlimit = int(limits.memory_mb * 1024 * 1024)
            cg.write_memory_limit(memlimit)
            with contextlib.suppress(OSError):
                cg.disable_swap()
        return _fork_in(cg, func, wall_wait, cpu_limit, memlimit)
    finally:
        with _quiet():
            cg.kill_all_tasks()
            cg.remove()


def _fork_in(cg: Any, func: Callable[[], Any], wall_wait: float | None,
             cpu_limit: float | None, memlimit: int | None) -> tuple[Any, Finished]:
    go_read, go_write = os.pipe()
    read_fd, write_fd = os.pipe()
    guard_sigterm()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: waits until it is in its cgroup, never returns
        code = 0
        try:
            die_with_parent(parent)  # a parent killed (SIGKILL, or SIGTERM mid-way) takes it along
            os.close(go_write)
            os.close(read_fd)
            os.setpgid(0, 0)
            os.read(go_read, 1)
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
    os.close(go_read)
    os.close(write_fd)
    _ON_TERM.add(cg.kill_all_tasks)
    chunks: list[bytes] = []
    stopped = None
    try:
        cg.add_task(pid)
        os.write(go_write, b"g")
        start = time.monotonic()
        pidfd = os.pidfd_open(pid)
        try:
            stopped = _watch(cg, pidfd, read_fd, chunks, start, wall_wait, cpu_limit)
            wall = time.monotonic() - start
        finally:
            os.close(pidfd)
        with _quiet():
            cg.kill_all_tasks()
        _, status, _usage = os.wait4(pid, 0)
    finally:
        _ON_TERM.discard(cg.kill_all_tasks)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        os.close(go_write)
        os.close(read_fd)
    cpu = float(cg.read_cputime() or 0.0)
    peak = float(cg.read_max_mem_usage() or 0)
    code: int | None = os.waitstatus_to_exitcode(status)
    sig = -code if code is not None and code < 0 else None
    oom = cg.read_oom_kill_count() if hasattr(cg, "read_oom_kill_count") else None
    if stopped is not None:
        term = stopped
    elif sig is not None and memlimit is not None and (oom or peak >= memlimit):
        term = MEMLIMIT  # the kernel's OOM killer inside the cgroup (as RunExecutor reads it)
    elif sig is not None:
        term = f"signal {sig}"
    else:
        term = EXIT
    value = None
    if stopped is None and chunks:
        kind, value = pickle.loads(b"".join(chunks))
        if kind == "memout":
            term = MEMLIMIT
    usage = ChildUsage(cpu, peak / (1024 * 1024), term, version(), wall)
    return value, Finished(usage, None if sig is not None else code, sig, stopped is not None)


def _watch(cg: Any, pidfd: int, read_fd: int, chunks: list[bytes], start: float,
           wall_wait: float | None, cpu_limit: float | None) -> str | None:
    """Wait for the child, reading its result pipe; TIMELIMIT when the wall wait or the
    cgroup's CPU time runs out first (its tasks are then killed), else None."""
    end = None if wall_wait is None else start + wall_wait
    fds = [pidfd, read_fd]
    while True:
        now = time.monotonic()
        timeout = None if end is None else max(0.0, end - now)
        if cpu_limit is not None:
            timeout = CPU_POLL if timeout is None else min(timeout, CPU_POLL)
        ready, _, _ = select.select(fds, [], [], timeout)
        if read_fd in ready:
            data = os.read(read_fd, 1 << 20)
            if data:
                chunks.append(data)
            else:
                fds.remove(read_fd)
        if pidfd in ready:
            with _quiet():
                cg.kill_all_tasks()  # nothing it started keeps the pipe open
            while read_fd in fds:  # the rest of the answer
                data = os.read(read_fd, 1 << 20)
                if not data:
                    break
                chunks.append(data)
            return None
        over_cpu = cpu_limit is not None and float(cg.read_cputime() or 0.0) >= cpu_limit
        if over_cpu or (end is not None and time.monotonic() >= end):
            with _quiet():
                cg.kill_all_tasks()
            return TIMELIMIT
