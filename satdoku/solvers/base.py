"""The solver interface: a Result type, fixed status words, the Deadline every solver honours,
and the solver protocols (CNF level, incremental CNF, puzzle level).

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from satdoku.cnf.formula import Cnf
    from satdoku.puzzle import Puzzle

SAT, UNSAT, TIMEOUT, INVALID, ERROR = "SAT", "UNSAT", "TIMEOUT", "INVALID", "ERROR"
MEMOUT = "MEMOUT"  # the memory limit ended the run (distinct from ERROR and TIMEOUT)
STATUSES = (SAT, UNSAT, TIMEOUT, MEMOUT, INVALID, ERROR)
#: Statuses that count as unsolved with a limit's penalty (PAR-2): the run ended at a limit.
LIMIT_STATUSES = (TIMEOUT, MEMOUT)

#: Why a run ended (SatOutputTimes ``termination``): it exited by itself, a limit stopped it,
#: a signal (``signal N``) ended its process, or it failed (``error``).
EXIT, TIMELIMIT, MEMLIMIT, TERM_ERROR = "exit", "timelimit", "memlimit", "error"
#: The clocks a time limit can be read on (config ``limit_clock``).
WALL, CPU = "wall", "cpu"
CLOCKS = (WALL, CPU)  # the clocks a time limit is read on (config limit_clock, --limit-clock)

#: Statistics every times file has a column for ('' where a backend does not report one).
STAT_KEYS = ("decisions", "conflicts", "propagations", "restarts", "learnt")


class Deadline:
    """When an instance's time runs out, on the wall clock (``time.perf_counter``) or, with
    ``clock="cpu"``, on this process's CPU time.

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
        #: the clock: wall (``perf_counter``) or this process's CPU time (``process_time``)
        self.now = time.perf_counter if clock == WALL else time.process_time
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


@dataclass
class Result:
    """What one solver run on one instance produced.

    ``solve_seconds`` is search only (what the adapter measured around its search);
    ``total_seconds`` covers the whole instance (building the solver, loading clauses, search)
    and is what the time limit holds; it is set, like the resource figures (``wall_seconds``,
    ``cpu_seconds``, ``max_rss_mb``, ``termination``), by the solve path
    (:func:`satdoku.solve.solve`), never by an adapter. ``check_seconds`` is the check of the
    answer after the solver stopped (an UNSAT proof check, bounded by its own budget, or the
    model / board check of a SAT answer), never part of the others. ``model`` is a list of
    DIMACS literals (SAT solvers); ``board`` a row-major tuple of values (puzzle-level
    solvers, or after decoding). ``child`` is the resource use of a child process the adapter
    ran the solver in (a binary, a forked backend), which the solve path adds to the
    in-process figures. ``proof_checked`` is True once the solve path's checker accepted the
    UNSAT proof.
    """

    status: str
    model: list[int] | None = None
    board: tuple[int, ...] | None = None
    stats: dict[str, int] = field(default_factory=dict)
    solve_seconds: float = 0.0
    total_seconds: float = 0.0
    check_seconds: float = 0.0
    message: str = ""
    proof: str | None = None  # path of a DRUP/DRAT proof written for an UNSAT answer
    proof_checked: bool = False
    child: ChildUsage | None = None
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    max_rss_mb: float = 0.0
    termination: str = EXIT


@dataclass
class ChildUsage:
    """What a child process (and the children it waited for) used: user + system CPU seconds,
    peak resident memory in MB, and why it ended (``exit``, ``timelimit``, ``memlimit``,
    ``signal N``)."""

    cpu_seconds: float
    max_rss_mb: float
    termination: str = EXIT


class CnfSolver(Protocol):
    """A SAT solver: decides a CNF before a deadline (construction and loading included).

    Solvers whose registry record says ``proofs=True`` write a DRUP proof to ``proof_path``
    for an UNSAT answer (the solve path checks it); others ignore the argument. An adapter only
    translates: it measures its search (``solve_seconds``) and lets exceptions through; timing
    of the whole instance, resource figures and error capture are the solve path's. Its version
    and capabilities are its registry record's."""

    name: str

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result: ...


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
