"""The solver interface: the Deadline every solver honours, the :class:`RunLimits` every run
is held to. The solver protocols (every method the solve path calls, whether it is required
or optional, and in which order) are :mod:`satdoku.solvers.protocols`. What a run produced
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

from satdoku.records import record
from satdoku.solvers.result import AUTO, MEASUREMENTS

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
