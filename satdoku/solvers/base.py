"""The solver interface: the Deadline every solver honours, the :class:`RunLimits` every run
is held to, and the solver protocols: every method the solve path calls, whether it is required
or optional, and in which order (:class:`CnfSolver` and the others below). What a run produced
(:class:`~satdoku.solvers.result.Result`) and the status words: :mod:`satdoku.solvers.result`.

SAT solvers take a :class:`~satdoku.cnf.formula.Cnf` and return a DIMACS model; puzzle-level
solvers (CP-SAT, CSP) take a :class:`~satdoku.puzzle.Puzzle` and return a board. Both report the
same Result so stage files and reports treat them alike. What a solver can do (proofs,
incremental solving, how its limit is enforced, its options) is declared once, in its
registry record (:mod:`satdoku.solvers.registry`); the solve path (:mod:`satdoku.solve`) reads it
there instead of probing objects.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from satdoku.records import record
from satdoku.solvers.result import AUTO, MEASUREMENTS, Result

if TYPE_CHECKING:
    from satdoku.cnf.formula import Cnf
    from satdoku.puzzle import Puzzle

#: The clocks a time limit can be read on (config ``limit_clock``, ``--limit-clock``).
WALL, CPU = "wall", "cpu"
CLOCKS = (WALL, CPU)
#: Statistics every times file has a column for ('' where a backend does not report one).
STAT_KEYS = ("decisions", "conflicts", "propagations", "restarts", "learnt")


def require_choice(what: str, value: object, choices: Iterable[object]) -> None:
    """Raise ValueError (one line naming the choices) unless ``value`` is one of ``choices``:
    the one check of a solver's named options (heuristic, restart policy, phase, proof)."""
    options = list(choices)
    if value not in options:
        raise ValueError(f"unknown {what} {value!r}; choose from "
                         f"{', '.join(map(str, options))}")


@record(frozen=True)
class RunLimits:
    """Everything one solver run is held to, as one value from the configuration (or the
    command line) down to the solver: the time limit and the clock it is read on, the budget
    of an UNSAT proof check, the memory limit, the CPU cores the run is pinned to, and the
    measurement backend that enforces and measures them in a child process.

    ``verify_time_limit`` None means "the time limit"; ``memory_mb`` None means no limit;
    ``cores`` None means not pinned (whatever the process may use)."""

    time_limit: float | None = None
    clock: str = WALL
    verify_time_limit: float | None = None
    memory_mb: float | None = None
    cores: tuple[int, ...] | None = None
    measurement: str = AUTO

    def __post_init__(self) -> None:
        for name in ("time_limit", "verify_time_limit", "memory_mb"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        if self.clock not in CLOCKS:
            raise ValueError(f"limit clock must be {WALL!r} or {CPU!r}, got {self.clock!r}")
        if self.measurement not in MEASUREMENTS:
            raise ValueError(f"measurement must be one of {', '.join(MEASUREMENTS)}, got "
                             f"{self.measurement!r}")
        if self.cores is not None and not self.cores:
            raise ValueError("cores: a run needs at least one core (None: not pinned)")

    @classmethod
    def of(cls, limits: RunLimits | float | None) -> RunLimits:
        """``limits`` itself, or a bare time limit in seconds (None: no limit) as RunLimits."""
        return limits if isinstance(limits, RunLimits) else cls(time_limit=limits)

    @property
    def check_budget(self) -> float | None:
        """Seconds an UNSAT proof check may take (``verify_time_limit``, else the limit)."""
        return self.time_limit if self.verify_time_limit is None else self.verify_time_limit

    def deadline(self) -> Deadline:
        """A deadline of this time limit on this clock, starting now."""
        return Deadline(self.time_limit, clock=self.clock)


class Deadline:
    """When an instance's time runs out, on the wall clock (``time.perf_counter``) or, with
    ``clock="cpu"``, on the CPU clock of the thread that made it (``time.thread_time``: the
    solving thread, so a watchdog or signal-relay thread never counts).

    The solve path starts it when an instance's work starts (encoding, solver construction and
    clause loading all count) and hands it down; every solver checks it during loading and
    search and answers TIMEOUT once it has passed. ``Deadline(None)`` never expires.
    """

    __slots__ = ("at", "clock", "limit", "now", "start")

    def __init__(self, limit: float | None, start: float | None = None, clock: str = WALL
                 ) -> None:
        if limit is not None and not (math.isfinite(limit) and limit > 0):
            raise ValueError(f"time limit must be a finite number of seconds > 0, got {limit!r}")
        if clock not in (WALL, CPU):
            raise ValueError(f"limit clock must be {WALL!r} or {CPU!r}, got {clock!r}")
        self.clock = clock
        #: the clock: wall (``perf_counter``) or the solving thread's CPU time
        self.now = time.perf_counter if clock == WALL else time.thread_time
        self.start = self.now() if start is None else start
        self.limit = limit
        self.at = None if limit is None else self.start + limit

    def shifted(self, seconds: float) -> Deadline:
        """The same limit, started ``seconds`` later (work that is not the instance's)."""
        return Deadline(self.limit, self.start + seconds, self.clock)

    @classmethod
    def never(cls) -> Deadline:
        return cls(None)

    def remaining(self) -> float | None:
        """Seconds left (never below 0), or None without a limit."""
        return None if self.at is None else max(0.0, self.at - self.now())

    def expired(self) -> bool:
        return self.at is not None and self.now() >= self.at

    def elapsed(self) -> float:
        return self.now() - self.start

    def __repr__(self) -> str:
        return f"Deadline(limit={self.limit}, remaining={self.remaining()})"


# --- the solver contract --------------------------------------------------------------------
# What the solve path (satdoku/solve.py) calls, in this order:
#
# 1. the registry's factory, once per solver and process: ``factory(name=NAME, **options)``
#    (a factory with a ``limit`` parameter also gets its record's limit kind);
# 2. ``warm_up()`` once, if the solver has it (optional: load a kernel, import a backend;
#    outside every instance's time);
# 3. per instance, exactly one of, by the registry record:
#    - level ``puzzle``:                         ``solve_puzzle(puzzle, deadline)``
#    - ``incremental`` and its options say so:   ``solve_incremental(rules, own, deadline,
#                                                proof_path)`` (shared rules; else step 3's
#                                                next line)
#    - input ``file`` (a binary):                ``solve_file(cnf_path, deadline, proof_path,
#                                                limits, workdir)``
#    - limit ``process`` (a forked backend):     ``solve_cnf(cnf, deadline, proof_path,
#                                                limits)``
#    - otherwise:                                ``solve_cnf(cnf, deadline, proof_path)``
# 4. ``interrupt()`` (optional, from another thread): a Ctrl-C or a watchdog stops the
#    search in progress (satdoku/solvers/interrupts.py); the call returns TIMEOUT or raises
#    KeyboardInterrupt.
#
# Every call returns a Result: the answer, ``solve_seconds`` (search only, the adapter's
# measurement), ``stats``, and for a child process ``child`` (its usage as its backend
# measured it). Everything else (total time, resource figures, termination, the check of the
# answer, errors) is the solve path's.


class CnfSolver(Protocol):
    """A SAT solver: decides a CNF before a deadline (construction and loading included).

    Solvers whose registry record says ``proofs=True`` write a proof to ``proof_path`` for an
    UNSAT answer, in the format their ``proof_format`` attribute names (``drat`` or ``lrat``;
    the solve path checks it); others ignore the argument. An adapter only
    translates: it measures its search (``solve_seconds``) and lets exceptions through; timing
    of the whole instance, resource figures and error capture are the solve path's. Its version
    and capabilities are its registry record's."""

    name: str

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result: ...


class WarmUp(Protocol):
    """Optional: work done once per process before the first instance (outside its time)."""

    def warm_up(self) -> None: ...


class Interruptible(Protocol):
    """Optional: stop the search in progress (called from another thread)."""

    def interrupt(self) -> None: ...


class ChildCnfSolver(Protocol):
    """A SAT solver that runs each instance in a child process (registry record ``limit:
    process``): it gets the run's limits (memory, cores, measurement backend) and reports the
    child's usage in ``Result.child``."""

    name: str

    def solve_cnf(self, cnf: Cnf, deadline: Deadline, proof_path: str | None,
                  limits: RunLimits) -> Result: ...


class FileCnfSolver(Protocol):
    """A solver binary (registry record ``input: file``): the solve path writes the instance
    to ``cnf_path`` with the clock stopped and hands it the run's limits and a working
    directory it keeps for a whole shard."""

    name: str

    def solve_file(self, cnf_path: str, deadline: Deadline, proof_path: str | None,
                   limits: RunLimits, workdir: str) -> Result: ...


class IncrementalCnfSolver(CnfSolver, Protocol):
    """A SAT solver that keeps shared rules loaded across instances (registry record
    ``incremental=True``, used when its options say ``incremental: true``): each instance adds
    only its own clauses, unit clauses as assumptions. Times exclude loading the rules."""

    def solve_incremental(
        self, rules: Cnf, own: list[list[int]], deadline: Deadline,
        proof_path: str | None = None,
    ) -> Result: ...


class PuzzleSolver(Protocol):
    """A puzzle-level solver (CP-SAT, CSP): solves a Puzzle directly, no CNF involved."""

    name: str

    def solve_puzzle(self, puzzle: Puzzle, deadline: Deadline) -> Result: ...
