"""The solver interface: a Result type, fixed status words, and the two solver protocols.

SAT solvers take a :class:`~satdoku.cnf.formula.Cnf` and return a DIMACS model; puzzle-level
solvers (CP-SAT, CSP) take a :class:`~satdoku.puzzle.Puzzle` and return a board. Both report the
same Result so stage files and reports treat them alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from satdoku.cnf.formula import Cnf
    from satdoku.puzzle import Puzzle

SAT, UNSAT, TIMEOUT, INVALID, ERROR = "SAT", "UNSAT", "TIMEOUT", "INVALID", "ERROR"
STATUSES = (SAT, UNSAT, TIMEOUT, INVALID, ERROR)

#: Statistics every times file has a column for ('' where a backend does not report one).
STAT_KEYS = ("decisions", "conflicts", "propagations", "restarts", "learnt")


@dataclass
class Result:
    """What one solver run on one instance produced.

    ``solve_seconds`` is search only; ``total_seconds`` covers the whole instance (building the
    solver, loading clauses, search). ``model`` is a list of DIMACS literals (SAT solvers);
    ``board`` a row-major tuple of values (puzzle-level solvers, or after decoding).
    """

    status: str
    model: list[int] | None = None
    board: tuple[int, ...] | None = None
    stats: dict[str, int] = field(default_factory=dict)
    solve_seconds: float = 0.0
    total_seconds: float = 0.0
    message: str = ""
    proof: str | None = None  # path of a DRUP/DRAT proof written for an UNSAT answer


class CnfSolver(Protocol):
    """A SAT solver: decides a CNF within a time limit (seconds, None = no limit)."""

    name: str
    version: str  # changes whenever the solver's code or options change (rule params use it)

    def solve_cnf(self, cnf: Cnf, time_limit: float | None = None) -> Result: ...


class PuzzleSolver(Protocol):
    """A puzzle-level solver (CP-SAT, CSP): solves a Puzzle directly, no CNF involved."""

    name: str
    version: str

    def solve_puzzle(self, puzzle: Puzzle, time_limit: float | None = None) -> Result: ...
