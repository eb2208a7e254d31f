"""The CNF formula types shared by encoders, DIMACS I/O, stage files and every SAT solver."""

from __future__ import annotations

import gc
from collections.abc import Sequence

from satdoku.cnf.native import dimacs_passes as _native
from satdoku.records import factory, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any


class Cnf:
    """A CNF formula over variables 1..num_vars.

    The clauses are lists of non-zero DIMACS literals, or, for a formula read from a DIMACS
    file, a flat buffer of int32 literals with a 0 after each clause (``lits``: bytes, an
    ``array('i')`` or a numpy array): a solver with a compiled kernel takes the buffer as it
    is, and the Python lists are only built when something asks for :attr:`clauses`.
    ``comments`` are the ``c`` header lines (without the leading ``c ``) carried to DIMACS files.
    """

    __slots__ = ("_clauses", "_lits", "_num_clauses", "comments", "num_vars")

    def __init__(self, num_vars: int, clauses: list[list[int]] | None = None,
                 comments: list[str] | None = None, *, lits: Any = None,
                 num_clauses: int | None = None) -> None:
        self.num_vars = num_vars
        self._clauses = clauses if clauses is not None or lits is not None else []
        self._lits = lits
        self._num_clauses = num_clauses
        self.comments = comments if comments is not None else []

    @property
    def clauses(self) -> list[list[int]]:
        if self._clauses is None:
            self._clauses = split_lits(self._lits)
        return self._clauses

    @property
    def lits(self) -> Any:
        """The flat 0-terminated literal buffer this formula was read as (None for a formula
        built from clause lists)."""
        return self._lits

    @property
    def num_clauses(self) -> int:
        if self._clauses is not None:
            return len(self._clauses)
        if self._num_clauses is None:
            flat = _as_ints(self._lits)
            self._num_clauses = int((flat == 0).sum()) if hasattr(flat, "sum") \
                else flat.tolist().count(0)
        return self._num_clauses

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cnf):
            return NotImplemented
        return (self.num_vars, self.clauses) == (other.num_vars, other.clauses)

    def __repr__(self) -> str:
        return f"Cnf(num_vars={self.num_vars}, num_clauses={self.num_clauses})"

    def extended(self, more: list[list[int]]) -> Cnf:
        """A new formula with ``more`` clauses appended (clause lists shared, not copied)."""
        return Cnf(self.num_vars, self.clauses + more, list(self.comments))

    def satisfied_by(self, model: Sequence[int] | set[int]) -> list[int]:
        """Indices of clauses a model (its true literals) leaves unsatisfied (a formula read
        as a flat buffer: the first one, as many times as there are such clauses)."""
        if self._clauses is None:
            value, _ = model_values(list(model) if isinstance(model, set) else model,
                                    self.num_vars)
            count, first = unsatisfied(self._lits, self.num_vars, value)
            return [first] * count
        true = model if isinstance(model, set) else set(model)
        return [i for i, cl in enumerate(self._clauses) if not any(lit in true for lit in cl)]

    def check_model(self, model: Sequence[int]) -> ModelCheck:
        """Check a model against every clause: how many it leaves unsatisfied, the first of
        them, and whether it sets a variable both ways."""
        value, conflict = model_values(model, self.num_vars)
        if self._lits is not None:  # the flat buffer, in C, whether or not split since
            count, first = unsatisfied(self._lits, self.num_vars, value)
        else:
            n = self.num_vars
            missed = [i for i, cl in enumerate(self._clauses)
                      if not any(0 < abs(lit) <= n and value[n + lit] for lit in cl)]
            count, first = len(missed), (missed[0] if missed else -1)
        return ModelCheck(count, first, conflict)


@record(frozen=True)
class ModelCheck:
    """A model checked against a formula: the clauses it leaves unsatisfied (how many, the
    index of the first, -1 for none) and the first variable it sets both ways (0: none)."""

    unsatisfied: int
    first: int = -1
    conflict: int = 0

    @property
    def ok(self) -> bool:
        return self.unsatisfied == 0 and not self.conflict

    def problem(self) -> str:
        """Why the model is wrong, in one line (empty when it is right)."""
        if self.conflict:
            return f"model sets variable {self.conflict} both true and false"
        if self.unsatisfied:
            return (f"model leaves {self.unsatisfied} clauses unsatisfied (first: clause "
                    f"{self.first + 1})")
        return ""


def _as_ints(lits: Any) -> Any:
    """A flat literal buffer as a sequence of Python-comparable ints (no copy for buffers)."""
    if isinstance(lits, (bytes, bytearray, memoryview)):
        return memoryview(lits).cast("B").cast("i")
    return lits


def split_lits(lits: Any) -> list[list[int]]:
    """The clause lists of a flat 0-terminated literal buffer (bytes, an ``array('i')``, a
    numpy array, any int32 buffer)."""
    flat = list(_as_ints(lits)) if not hasattr(lits, "tolist") else lits.tolist()
    clauses: list[list[int]] = []
    start = 0
    was_enabled = gc.isenabled()
    gc.disable()  # thousands of small lists, none cyclic: collections here are pure waste
    try:
        for end, lit in enumerate(flat):
            if lit == 0:
                clauses.append(flat[start:end])
                start = end + 1
    finally:
        if was_enabled:
            gc.enable()
    return clauses


def model_values(model: Sequence[int], num_vars: int) -> tuple[bytes, int]:
    """(the value table of a model: ``2 * num_vars + 1`` bytes, ``value[num_vars + lit]`` = 1
    for each literal ``lit`` of the model within +-num_vars; the first variable the model sets
    both ways, 0 if none). In C when it is built (a list of ints or an int32 buffer as it is),
    else :func:`model_values_python`."""
    native = _native()
    if native is None or not hasattr(native, "model_values"):
        return model_values_python(model, num_vars)
    if not isinstance(model, list) and not _is_int32_buffer(model):
        model = list(model)
    table, conflict = native.model_values(model, num_vars)
    return table, int(conflict)


def _is_int32_buffer(obj: object) -> bool:
    try:
        view = memoryview(obj)  # type: ignore[arg-type]
    except TypeError:
        return False
    return view.itemsize == 4 and view.format in ("i", "<i", "=i", "l")


def model_values_python(model: Sequence[int], num_vars: int) -> tuple[bytes, int]:
    """:func:`model_values` in plain Python (the readable form; the tests' oracle)."""
    value = bytearray(2 * num_vars + 1)
    conflict = 0
    for lit in model:
        if lit and -num_vars <= lit <= num_vars:
            value[num_vars + lit] = 1
            if not conflict and value[num_vars - lit]:
                conflict = abs(lit)
    return bytes(value), conflict


def unsatisfied(lits: Any, num_vars: int, value: bytes) -> tuple[int, int]:
    """(how many clauses of a flat 0-terminated literal buffer the value table leaves
    unsatisfied, the index of the first, -1 for none): one pass in C when it is built, else
    :func:`unsatisfied_python`."""
    native = _native()
    if native is None:
        missed = unsatisfied_python(lits, num_vars, value)
        return len(missed), (missed[0] if missed else -1)
    count, first = native.unsatisfied(lits, value, num_vars)
    return int(count), int(first)


def unsatisfied_python(lits: Any, num_vars: int, value: bytes) -> list[int]:
    """Indices of the clauses of a flat buffer that a value table (:func:`model_values`) leaves
    unsatisfied, in plain Python (the readable form of the compiled passes)."""
    out: list[int] = []
    satisfied, index = False, 0
    for lit in _as_ints(lits) if not hasattr(lits, "tolist") else lits.tolist():
        if lit == 0:
            if not satisfied:
                out.append(index)
            satisfied, index = False, index + 1
        elif not satisfied and value[num_vars + lit]:
            satisfied = True
    return out


@record
class Formula:
    """One instance's formula as shared rules plus its own clauses.

    ``rules`` is the same :class:`Cnf` object for every instance of a layout and encoding (a
    shard's rules block, or the encoder's cached rules), so incremental solvers load it once and
    callers must never mutate it; ``own`` holds the instance's clauses (givens as units);
    ``num_vars`` counts the variables of the whole formula. ``rules`` is None when every clause
    is the instance's own (simplified encodings, DIMACS instances). A DIMACS instance keeps its
    whole formula in ``cnf`` instead (possibly a flat literal buffer); ``own`` is then empty:
    read :meth:`whole`."""

    num_vars: int
    own: list[list[int]]
    rules: Cnf | None = None
    comments: list[str] = factory(list)
    cnf: Cnf | None = None

    @classmethod
    def of(cls, cnf: Cnf) -> Formula:
        """A formula that is all its own clauses, kept in ``cnf`` (a DIMACS instance)."""
        return cls(cnf.num_vars, [], None, list(cnf.comments), cnf)

    @property
    def num_clauses(self) -> int:
        if self.cnf is not None:
            return self.cnf.num_clauses
        return len(self.own) + (len(self.rules.clauses) if self.rules is not None else 0)

    def whole(self) -> Cnf:
        """The whole formula as one Cnf (rules' clause lists shared, not copied)."""
        if self.cnf is not None:
            return self.cnf
        base = self.rules.clauses if self.rules is not None else []
        return Cnf(self.num_vars, base + self.own, list(self.comments))

