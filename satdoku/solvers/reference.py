"""Reference SAT solvers from python-sat (MiniSat 2.2, Glucose 4, CaDiCaL 1.9.5).

Time limits: MiniSat and Glucose stop cleanly through ``solve_limited(expect_interrupt=True)`` plus
``interrupt()`` from a timer. python-sat's CaDiCaL raises NotImplementedError on ``interrupt()``
and would run past the limit, so it runs in a forked child process killed at the deadline.
"""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from satdoku.cnf.formula import Cnf
from satdoku.solvers.base import ERROR, SAT, TIMEOUT, UNSAT, Result

#: Backends that honour interrupt(); the others get a process-level deadline.
INTERRUPTIBLE = {"minisat22", "glucose4", "glucose3", "minisat-gh", "maplechrono", "lingeling"}


class Watchdog:
    """One background thread that interrupts a solver at a deadline; re-armed per instance.

    Starting a ``threading.Timer`` per puzzle costs ~0.5 ms, more than solving a 9x9 under
    assumptions, so the incremental path reuses this single thread."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._deadline: float | None = None
        self._target: Any = None
        threading.Thread(target=self._run, daemon=True, name="satdoku-watchdog").start()

    def arm(self, target: Any, seconds: float) -> None:
        with self._cv:
            self._target, self._deadline = target, time.monotonic() + seconds
            self._cv.notify()

    def disarm(self) -> None:
        with self._cv:
            self._deadline = None

    def _run(self) -> None:
        with self._cv:
            while True:
                if self._deadline is None:
                    self._cv.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self._target.interrupt()
                    self._deadline = None
                else:
                    self._cv.wait(left)


def _pysat_version() -> str:
    from importlib.metadata import version

    return version("python-sat")


def _stats(solver: Any) -> dict[str, int]:
    try:
        st = solver.accum_stats() or {}
    except Exception:  # some backends do not report statistics
        return {}
    return {
        k: int(v)
        for k, v in st.items()
        if k in ("decisions", "conflicts", "propagations", "restarts")
    }


def _solve_in_process(backend: str, cnf: Cnf, time_limit: float | None) -> Result:
    """Build a python-sat solver, load the clauses, solve (interruptible backends only)."""
    from pysat.solvers import Solver

    t0 = time.perf_counter()
    with Solver(name=backend, bootstrap_with=cnf.clauses) as s:
        t1 = time.perf_counter()
        timer = None
        if time_limit is not None and backend in INTERRUPTIBLE:
            timer = threading.Timer(max(0.0, time_limit - (t1 - t0)), s.interrupt)
            timer.start()
            answer = s.solve_limited(expect_interrupt=True)
            timer.cancel()
        else:
            answer = s.solve()
        t2 = time.perf_counter()
        stats = _stats(s)
        if answer is True:
            model = s.get_model()
            status = SAT
        elif answer is False:
            model, status = None, UNSAT
        else:
            model, status = None, TIMEOUT
    return Result(status, model=model, stats=stats, solve_seconds=t2 - t1, total_seconds=t2 - t0)


def _child(conn: Any, backend: str, cnf: Cnf) -> None:
    try:
        conn.send(_solve_in_process(backend, cnf, None))
    except Exception as exc:  # report, never hang the parent
        conn.send(Result(ERROR, message=f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _solve_with_deadline(backend: str, cnf: Cnf, time_limit: float) -> Result:
    """Solve in a forked child; kill it at the deadline and report TIMEOUT."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    proc = ctx.Process(target=_child, args=(child, backend, cnf), daemon=True)
    proc.start()
    child.close()
    try:
        if parent.poll(time_limit):
            result: Result = parent.recv()
        else:
            result = Result(TIMEOUT, message=f"killed at the {time_limit:g} s limit")
            result.total_seconds = result.solve_seconds = time.perf_counter() - t0
    except EOFError:
        result = Result(ERROR, message=f"solver process died (exit code {proc.exitcode})")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    return result


@dataclass
class PysatSolver:
    """One python-sat backend behind the CnfSolver interface.

    With option ``incremental: true`` (interruptible backends only) the pipeline loads a shard's
    shared rules once and solves each puzzle under its givens as assumptions
    (:meth:`solve_incremental`); such timings exclude clause loading and are labelled so.
    """

    backend: str
    name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    _inc: Any = field(default=None, repr=False)
    _inc_rules: Any = field(default=None, repr=False)
    _watchdog: Watchdog | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or self.backend
        unknown = set(self.options) - {"incremental", "note"}
        if unknown:
            raise ValueError(f"solver {self.name}: unknown option(s) {', '.join(sorted(unknown))}")
        if self.incremental and self.backend not in INTERRUPTIBLE:
            raise ValueError(
                f"solver {self.name}: incremental mode needs an interruptible "
                f"backend ({', '.join(sorted(INTERRUPTIBLE))})"
            )

    @property
    def incremental(self) -> bool:
        return bool(self.options.get("incremental"))

    def solve_incremental(
        self, rules: Cnf, own: list[list[int]], time_limit: float | None = None
    ) -> Result:
        """Solve rules + own clauses; rules stay loaded across calls, unit own clauses become
        assumptions (other own clauses: a fresh solver, as without incremental mode)."""
        if any(len(c) != 1 for c in own):
            return self.solve_cnf(Cnf(rules.num_vars, rules.clauses + own), time_limit)
        from pysat.solvers import Solver

        t0 = time.perf_counter()
        if self._inc_rules is not rules:
            if self._inc is not None:
                self._inc.delete()
            self._inc = Solver(name=self.backend, bootstrap_with=rules.clauses)
            self._inc_rules = rules
        s = self._inc
        before = _stats(s)
        assumptions = [c[0] for c in own]
        t1 = time.perf_counter()
        if time_limit is not None:
            self._watchdog = self._watchdog or Watchdog()
            self._watchdog.arm(s, time_limit)
        answer = s.solve_limited(assumptions=assumptions, expect_interrupt=True)
        if self._watchdog is not None:
            self._watchdog.disarm()
            s.clear_interrupt()
        t2 = time.perf_counter()
        after = _stats(s)
        stats = {k: v - before.get(k, 0) for k, v in after.items()}
        status = SAT if answer is True else UNSAT if answer is False else TIMEOUT
        return Result(
            status,
            model=s.get_model() if answer is True else None,
            stats=stats,
            solve_seconds=t2 - t1,
            total_seconds=t2 - t0,
            message="incremental (rules loaded once per shard)",
        )

    @property
    def version(self) -> str:
        return f"python-sat {_pysat_version()} {self.backend}"

    def solve_cnf(self, cnf: Cnf, time_limit: float | None = None, **_: Any) -> Result:
        try:
            if time_limit is not None and self.backend not in INTERRUPTIBLE:
                return _solve_with_deadline(self.backend, cnf, time_limit)
            return _solve_in_process(self.backend, cnf, time_limit)
        except Exception as exc:
            return Result(ERROR, message=f"{type(exc).__name__}: {exc}")


def make_pysat(backend: str, name: str = "", **options: Any) -> PysatSolver:
    return PysatSolver(backend, name, options)
