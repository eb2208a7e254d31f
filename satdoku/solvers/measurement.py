"""Which backend limits and measures solver child processes, and the two ways to start one.

``measurement`` (configuration key, ``--measurement``): ``benchexec`` (BenchExec's cgroups,
:mod:`satdoku.solvers.benchexec_run`), ``basic`` (satdoku's own launcher,
:mod:`satdoku.solvers.process`), or ``auto`` (the default): BenchExec where its own check
passes on this host (cgroups usable: cpuacct, memory, freezer, a trial run), else basic, with
the reason recorded. ``benchexec`` where it cannot work is one clear error
(:class:`MeasurementError`). The choice is made once per process.

:func:`run_command` (a binary) and :func:`run_forked` (a Python function in a forked child) are
the only entry points solver adapters use; every run reports which backend measured it
(``ChildUsage.measurement``: ``benchexec <version>`` or ``basic``).
"""

from __future__ import annotations

import functools
import shutil
import time
from collections.abc import Callable, Sequence
from typing import Any

from satdoku.solvers import benchexec_run, process
from satdoku.solvers.base import Deadline, RunLimits
from satdoku.solvers.benchexec_run import version
from satdoku.solvers.process import Finished
from satdoku.solvers.result import AUTO, BASIC, BENCHEXEC


class MeasurementError(RuntimeError):
    """``measurement: benchexec`` on a host where BenchExec cannot work (one line: why)."""


@functools.lru_cache(maxsize=1)
def benchexec_problem() -> str | None:
    """Why BenchExec cannot measure runs here (None: it can). Checked once per process."""
    return benchexec_run.check()


def backend(mode: str) -> str:
    """The backend a ``measurement`` setting means on this host: ``benchexec`` or ``basic``
    (MeasurementError for ``benchexec`` where it cannot work)."""
    if mode == BASIC:
        return BASIC
    problem = benchexec_problem()
    if mode == BENCHEXEC and problem is not None:
        raise MeasurementError(f"measurement: benchexec cannot work on this host: {problem} "
                               "(measurement: basic or auto runs without it)")
    if mode not in (AUTO, BENCHEXEC):
        raise MeasurementError(f"measurement must be auto, benchexec or basic, got {mode!r}")
    return BASIC if problem is not None else BENCHEXEC


def describe(mode: str) -> str:
    """What ``mode`` measures with here, as a row would say it, with the reason when auto
    falls back: ``benchexec 3.35``, ``basic``, ``basic (auto: no usable memory cgroup)``."""
    chosen = backend(mode)
    if chosen == BENCHEXEC:
        return version()
    problem = benchexec_problem() if mode == AUTO else None
    return f"basic (auto: {problem})" if problem else BASIC


def run_command(argv: Sequence[str], deadline: Deadline, limits: RunLimits,
                on_stdout: Callable[[bytes], None], stderr_path: str) -> Finished:
    """Run a binary under ``limits`` with the chosen backend; its stdout goes to
    ``on_stdout`` in pieces, its stderr to ``stderr_path``. FileNotFoundError for a program
    that is not there, whichever backend would have run it."""
    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(f"no such program: {argv[0]!r}")
    start = time.perf_counter()
    if backend(limits.measurement) == BENCHEXEC:
        done = benchexec_run.run_command(argv, deadline, limits, on_stdout, stderr_path)
    else:
        done = process.run_command(argv, deadline, limits, on_stdout, stderr_path)
    return _harness(done, time.perf_counter() - start)


def _harness(done: Finished, seconds: float) -> Finished:
    """Record the part of the call's ``seconds`` that was not the child's own wall time."""
    if done.usage.wall_seconds > 0:
        done.usage.harness_seconds = max(0.0, seconds - done.usage.wall_seconds)
    return done


def run_forked(func: Callable[[], Any], deadline: Deadline, limits: RunLimits
               ) -> tuple[Any, Finished]:
    """Run ``func()`` in a forked child under ``limits`` with the chosen backend."""
    start = time.perf_counter()
    if backend(limits.measurement) == BENCHEXEC:
        value, done = benchexec_run.run_forked(func, deadline, limits)
    else:
        value, done = process.run_forked(func, deadline, limits)
    return value, _harness(done, time.perf_counter() - start)
