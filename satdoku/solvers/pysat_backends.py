"""Reference SAT solvers from python-sat (MiniSat 2.2, Glucose 4, CaDiCaL 1.9.5).

Deadlines cover construction and clause loading too. MiniSat and Glucose load their clauses in
chunks, reading the clock between chunks (a 36x36 Sudoku has millions of clauses: loading alone
can take longer than the limit), then search through ``solve_limited(expect_interrupt=True)``
with a watchdog thread that calls ``interrupt()`` at the deadline. python-sat's CaDiCaL raises
NotImplementedError on ``interrupt()`` and would run past the limit, so it runs in a forked
child process (:func:`satdoku.solvers.measurement.run_forked`: a cgroup of its own under
BenchExec, its own group under the basic launcher; killed at the deadline, never outliving its
parent). Which backend is which is its registry record's ``limit`` (``interrupt`` or
``process``), handed to the factory. The adapters only translate: the solve path times the
instance, measures it and turns exceptions into ERROR.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from satdoku.cnf.formula import Cnf
from satdoku.solvers.base import Deadline, RunLimits
from satdoku.solvers.interrupts import searching
from satdoku.solvers.measurement import run_forked
from satdoku.solvers.process import limit_result
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT, Result

#: How a backend's limit is enforced (its registry record's ``limit``): it honours
#: ``interrupt()``, or its process is killed.
INTERRUPT, PROCESS = "interrupt", "process"
#: Clauses added between two looks at the clock while loading (~5-10 ms of python-sat work).
LOAD_CHUNK = 20_000


class Watchdog:
    """One background thread that interrupts a solver at a deadline; re-armed per instance.

    Arming must cost next to nothing: a 9x9 under assumptions takes ~0.3 ms. The thread is
    woken only when it must wake earlier than it planned (it sleeps without a deadline, or
    towards a later one); otherwise it wakes at the deadline it was sleeping towards, looks at
    the current one (re-armed meanwhile, or disarmed) and sleeps again, so a shard of quick
    solves with the same limit costs no thread switch per instance."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._deadline: float | None = None
        self._target: Any = None
        self._wakes_at = math.inf  # when the thread will look again (inf: only if notified)
        threading.Thread(target=self._run, daemon=True, name="satdoku-watchdog").start()

    def arm(self, target: Any, seconds: float) -> None:
        with self._cv:
            self._target, self._deadline = target, time.monotonic() + seconds
            if self._deadline < self._wakes_at:
                self._cv.notify()

    def disarm(self) -> None:
        with self._cv:
            self._deadline = None

    def _run(self) -> None:
        with self._cv:
            while True:
                if self._deadline is None:
                    self._wakes_at = math.inf
                    self._cv.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left <= 0:
                    self._target.interrupt()
                    self._deadline = None
                else:
                    self._wakes_at = self._deadline
                    self._cv.wait(left)


_WATCHDOG: Watchdog | None = None


def watchdog() -> Watchdog:
    """The process's one watchdog thread (started on first use)."""
    global _WATCHDOG
    if _WATCHDOG is None:
        _WATCHDOG = Watchdog()
    return _WATCHDOG


#: The statistics of python-sat's ``accum_stats`` a times row reports.
STATS = ("decisions", "conflicts", "propagations", "restarts")
#: Backends the compiled per-puzzle loop (satdoku/pipeline/_batch.c) drives through
#: python-sat's compiled functions: backend -> (function prefix in pysolvers, handle attribute)
BATCH_BACKENDS = {"minisat22": ("minisat22", "minisat")}


def _stats(solver: Any) -> dict[str, int]:
    try:
        st = solver.accum_stats() or {}
    except Exception:  # some backends do not report statistics
        return {}
    return {k: int(v) for k, v in st.items() if k in STATS}


def load_clauses(solver: Any, clauses: Sequence[Sequence[int]], deadline: Deadline) -> bool:
    """Add ``clauses`` in chunks, reading the clock between chunks; False if time ran out."""
    for i in range(0, len(clauses), LOAD_CHUNK):
        if deadline.expired():
            return False
        solver.append_formula(clauses[i : i + LOAD_CHUNK])
    return not deadline.expired()


def solve_limited(solver: Any, deadline: Deadline, assumptions: Sequence[int] = ()
                  ) -> bool | None:
    """``solve_limited`` under the process watchdog: True, False, or None at the deadline.
    The watchdog sleeps on the wall clock; a deadline on the CPU clock (which runs no faster
    than the wall clock for a single-threaded solver) is looked at again after each interrupt
    and the search resumed while CPU time is left."""
    while True:
        left = deadline.remaining()
        if left is None:
            return solver.solve(assumptions=list(assumptions))
        if left <= 0:
            return None
        dog = watchdog()
        dog.arm(solver, left)
        try:
            with searching(solver):  # Ctrl-C interrupts it too (satdoku.solvers.interrupts)
                answer = solver.solve_limited(assumptions=list(assumptions),
                                              expect_interrupt=True)
        finally:
            dog.disarm()
            solver.clear_interrupt()
        if answer is not None or deadline.expired():
            return answer


def _status(answer: bool | None) -> str:
    return SAT if answer is True else UNSAT if answer is False else TIMEOUT


def _solve_in_process(backend: str, cnf: Cnf, deadline: Deadline, interruptible: bool
                      ) -> Result:
    """Build a python-sat solver, load the clauses, solve, all before the deadline."""
    from pysat.solvers import Solver

    with Solver(name=backend) as s:
        if not load_clauses(s, cnf.clauses, deadline):
            return Result(TIMEOUT, message="time limit reached while loading clauses")
        t1 = time.perf_counter()
        answer = solve_limited(s, deadline) if interruptible else s.solve()
        t2 = time.perf_counter()
        model = s.get_model() if answer is True else None
        return Result(_status(answer), model=model, stats=_stats(s), solve_seconds=t2 - t1)


def _solve_with_deadline(backend: str, cnf: Cnf, deadline: Deadline, limits: RunLimits
                         ) -> Result:
    """Solve in a forked child (which loads the clauses too), killed at the deadline; its
    resource use goes to ``Result.child``."""
    result, done = run_forked(
        lambda: _solve_in_process(backend, cnf, Deadline.never(), False), deadline, limits)
    if result is None:
        result = limit_result(done, deadline, limits.memory_mb)
    if result is None:
        raise RuntimeError(f"solver process died ({done.usage.termination}, exit code "
                           f"{done.returncode})")
    result.child = done.usage
    return result


@dataclass
class PysatSolver:
    """One python-sat backend behind the CnfSolver interface.

    With option ``incremental: true`` (interruptible backends only) the solve path loads a
    shard's shared rules once and solves each puzzle under its givens as assumptions
    (:meth:`solve_incremental`); such timings exclude loading the rules and say so.
    """

    backend: str
    name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    limit: str = INTERRUPT  # its registry record's: INTERRUPT or PROCESS
    _inc: Any = field(default=None, repr=False)
    _inc_rules: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.name = self.name or self.backend
        unknown = set(self.options) - {"incremental"}
        if unknown:
            raise ValueError(f"solver {self.name}: unknown option(s) {', '.join(sorted(unknown))}")
        if self.incremental and not self.interruptible:
            raise ValueError(f"solver {self.name}: incremental mode needs a backend that "
                             "honours interrupt() (registry limit 'interrupt')")

    @property
    def incremental(self) -> bool:
        return bool(self.options.get("incremental"))

    @property
    def interruptible(self) -> bool:
        return self.limit == INTERRUPT

    def solve_cnf(self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None,
                  limits: RunLimits | None = None) -> Result:
        """Decide ``cnf``: in this process, or (a backend that ignores interrupts, whenever
        the deadline can pass) in a forked child under ``limits`` (without them: the
        deadline's own limit and clock), killed at the deadline."""
        try:
            if not self.interruptible and deadline.at is not None:
                limits = limits or RunLimits(time_limit=deadline.limit, clock=deadline.clock)
                return _solve_with_deadline(self.backend, cnf, deadline, limits)
            return _solve_in_process(self.backend, cnf, deadline, self.interruptible)
        except Exception as exc:
            if "keyboard interrupt" in str(exc).lower():  # python-sat's own SIGINT handler
                raise KeyboardInterrupt from None  # the user stopped the run: not an ERROR
            raise

    def solve_incremental(self, rules: Cnf, own: list[list[int]], deadline: Deadline,
                          proof_path: str | None = None) -> Result:
        """Solve rules + own clauses; rules stay loaded across calls, unit own clauses become
        assumptions (other own clauses: a fresh solver, as without incremental mode)."""
        if any(len(c) != 1 for c in own):
            return self.solve_cnf(Cnf(rules.num_vars, rules.clauses + own), deadline)
        from pysat.solvers import Solver

        if self._inc_rules is not rules:
            if self._inc is not None:
                self._inc.delete()
            self._inc, self._inc_rules = Solver(name=self.backend), None
            if not load_clauses(self._inc, rules.clauses, deadline):  # a partial load is dropped
                return Result(TIMEOUT, message="time limit reached while loading the rules")
            self._inc_rules = rules
        s = self._inc
        before = _stats(s)
        t1 = time.perf_counter()
        try:
            answer = solve_limited(s, deadline, [c[0] for c in own])
        except BaseException:  # a half-used solver is not kept for the next puzzle
            self._inc_rules = None
            raise
        t2 = time.perf_counter()
        after = _stats(s)
        return Result(
            _status(answer),
            model=s.get_model() if answer is True else None,
            stats={k: v - before.get(k, 0) for k, v in after.items()},
            solve_seconds=t2 - t1,
            message="incremental (rules loaded once per shard)",
        )

    def batch_driver(self, rules: Cnf) -> tuple[Any, ...] | None:
        """What the compiled per-puzzle loop needs to do :meth:`solve_incremental`'s search for
        many puzzles over ``rules``: python-sat's compiled functions (solve under assumptions
        with interrupts, model, statistics, clear the interrupt) on the handle of the solver
        that holds ``rules``, the watchdog that interrupts it at a deadline and the statistics
        a times row reports. None when no solver holds ``rules`` or the backend has none."""
        if self._inc is None or self._inc_rules is not rules or self.backend not in BATCH_BACKENDS:
            return None
        import pysolvers  # type: ignore[import-not-found]
        from pysat._utils import MainThread

        prefix, attribute = BATCH_BACKENDS[self.backend]
        dog = watchdog()
        return ("pysat", getattr(pysolvers, f"{prefix}_solve_lim"),
                getattr(self._inc.solver, attribute), bool(MainThread.check()),
                getattr(pysolvers, f"{prefix}_model"), getattr(pysolvers, f"{prefix}_acc_stats"),
                getattr(pysolvers, f"{prefix}_clearint"), dog.arm, dog.disarm, self._inc, STATS)

    def searching_target(self) -> Any:
        """The object whose ``interrupt()`` stops the incremental search (Ctrl-C)."""
        return self._inc


def make_pysat(backend: str, name: str = "", limit: str = INTERRUPT, **options: Any
               ) -> PysatSolver:
    """Factory used by the registry (``limit``: the record's, INTERRUPT or PROCESS)."""
    return PysatSolver(backend, name, options, limit)
