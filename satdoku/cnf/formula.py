"""The CNF formula types shared by encoders, DIMACS I/O, stage files and every SAT solver."""

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


@dataclass
class Formula:
    """One instance's formula as shared rules plus its own clauses.

    ``rules`` is the same :class:`Cnf` object for every instance of a layout and encoding (a
    shard's rules block, or the encoder's cached rules), so incremental solvers load it once and
    callers must never mutate it; ``own`` holds the instance's clauses (givens as units);
    ``num_vars`` counts the variables of the whole formula. ``rules`` is None when every clause
    is the instance's own (simplified encodings, DIMACS instances)."""

    num_vars: int
    own: list[list[int]]
    rules: Cnf | None = None
    comments: list[str] = field(default_factory=list)

    @property
    def num_clauses(self) -> int:
        return len(self.own) + (len(self.rules.clauses) if self.rules is not None else 0)

    def whole(self) -> Cnf:
        """The whole formula as one Cnf (rules' clause lists shared, not copied)."""
        base = self.rules.clauses if self.rules is not None else []
        return Cnf(self.num_vars, base + self.own, list(self.comments))
