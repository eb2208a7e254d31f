"""The CNF formula type shared by encoders, DIMACS I/O and every SAT solver."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Cnf:
    """A CNF formula over variables 1..num_vars; clauses are lists of non-zero DIMACS literals.

    ``comments`` are the ``c`` header lines (without the leading ``c ``) carried to DIMACS files.
    """

    num_vars: int
    clauses: list[list[int]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def num_clauses(self) -> int:
        return len(self.clauses)

    def extended(self, more: list[list[int]]) -> Cnf:
        """A new formula with ``more`` clauses appended (clause lists shared, not copied)."""
        return Cnf(self.num_vars, self.clauses + more, list(self.comments))

    def satisfied_by(self, model: list[int] | set[int]) -> list[int]:
        """Indices of clauses a model (set of true literals) leaves unsatisfied."""
        true = model if isinstance(model, set) else set(model)
        return [i for i, cl in enumerate(self.clauses) if not any(lit in true for lit in cl)]
