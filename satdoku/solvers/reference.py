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


def _pysat_version() -> str:
    from importlib.metadata import version

    return version("python-sat")


def _stats(solver: Any) -> dict[str, int]:
    try:
        st = solver.accum_stats() or {}
    except Exception:  # some backends do not report statistics
        return {}
    return {k: int(v) for k, v in st.items() if k in ("decisions", "conflicts", "propagations",
                                                         "restarts")}


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
    return Result(status, model=model, stats=stats, solve_seconds=t2 - t1,
                  total_seconds=t2 - t0)


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
    """One python-sat backend behind the CnfSolver interface."""

    backend: str
    name: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.name = self.name or self.backend

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
