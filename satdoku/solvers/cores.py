"""CPU cores for solve jobs: each job claims cores of its own and its solver runs pinned to them.

Snakemake's resources decide how many solve jobs run at once (``solver_slots``, sized to the
machine's cores); which cores they use is decided here. A job claims ``count`` cores among those
this process may run on (``os.sched_getaffinity``: on SLURM, the cores SLURM assigned to the
job) by taking an exclusive ``flock`` on one lock file per core in a directory every process of
this user on the machine shares. The lock lives as long as the process (it is released when the
process ends, however it ends), so two jobs never claim the same core. Where every core is
claimed already (more solving processes than cores), the job is not pinned to an exclusive core:
it gets every allowed core, and its rows say so (``cores`` lists them all).

In-process solvers and the basic launcher run pinned through ``sched_setaffinity`` (every
thread of this process; children inherit it); BenchExec gets the cores for its cpuset cgroup.
Linux only; elsewhere nothing is pinned.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

_HELD: dict[int, int] = {}  # core -> fd of its lock file (held until the process ends)


def allowed() -> tuple[int, ...]:
    """The cores this process may run on (its affinity), sorted."""
    try:
        return tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return tuple(range(os.cpu_count() or 1))


def lock_dir() -> str:
    """The directory of the per-core lock files (shared by this user's processes). tempfile is
    imported here, by the runs that claim cores: every solve path loads this module, and a
    one-shot ``satdoku dpll``, which claims none, would pay for it (with shutil and random)."""
    import tempfile

    path = os.environ.get("SATDOKU_CORE_LOCKS") or os.path.join(
        tempfile.gettempdir(), f"satdoku-cores-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def claim(count: int = 1) -> tuple[tuple[int, ...], bool]:
    """Claim ``count`` cores for this process: (the cores, True) when they are its own, or
    (every allowed core, False) when fewer than ``count`` are free. Claiming again returns the
    cores already held."""
    mine = allowed()
    held = tuple(c for c in mine if c in _HELD)
    if len(held) >= count:
        return held[:count], True
    directory = lock_dir()
    got = list(held)
    for core in mine:
        if len(got) == count:
            break
        if core in _HELD:
            continue
        fd = os.open(os.path.join(directory, f"core{core}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _HELD[core] = fd
        got.append(core)
    if len(got) < count:
        release(tuple(c for c in got if c not in held))
        return mine, False
    return tuple(sorted(got)), True


def release(cores: tuple[int, ...] | None = None) -> None:
    """Give claimed cores back (all of them without an argument)."""
    for core in list(_HELD) if cores is None else cores:
        fd = _HELD.pop(core, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def pin(cores: tuple[int, ...]) -> None:
    """Run every thread of this process (and the children it starts) on ``cores`` only."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        tasks = ["0"]
    for tid in tasks:
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setaffinity(int(tid), cores)


def describe(cores: tuple[int, ...] | None) -> str:
    """The ``cores`` cell of a times row: the core numbers, comma-separated."""
    return ",".join(map(str, cores if cores is not None else allowed()))
