"""Unit propagation and failed-literal probing of puzzles under an encoding, with no search.

A :class:`Propagator` loads the shared rules of one layout under one encoding into a CDCL
kernel once (``satdoku/solvers/cdcl/kernel.c``, or its readable twin); each puzzle's givens are then
asserted on a temporary decision level, propagated, optionally probed (every open literal
tried; one whose propagation conflicts is negated, until a round finds none), read and undone
(``Kernel.propagate_units``). A 9x9 puzzle costs a few microseconds of unit propagation, so the
49,158 17-clue puzzles take seconds per encoding.

An :class:`Outcome` says whether every cell got a value (``solved``), how many did not
(``open``), or whether propagation met a conflict (``refuted``: no solution extends the givens).
Both closures are unique (propagation is monotone), so the outcome depends on the puzzle and
the encoding only, never on the order of work.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from satdoku.cnf.encode import check_encoding_applies, formula, rules_cnf, var
from satdoku.cnf.encodings import Encoding, resolve
from satdoku.cnf.formula import Cnf
from satdoku.heuristics import singles_fixpoint
from satdoku.puzzle import Layout, Puzzle
from satdoku.solvers.cdcl.driver import RESTARTS, choose_backend, kernel_type, policy

SOLVED, OPEN, REFUTED = "solved", "open", "refuted"
#: puzzles per kernel call (the values of a 9x9 batch: 1024 x 729 bytes)
BATCH = 1024


@dataclass(frozen=True)
class Outcome:
    """What one inference decided: ``status`` (solved, open, refuted), ``open`` cells without a
    value (for a DIMACS formula: unassigned variables; 0 when solved or refuted), ``board`` the
    decided values (0: open; None when refuted or for a formula) and ``failed`` the failed
    literals probing found."""

    status: str
    open: int
    board: tuple[int, ...] | None
    failed: int = 0


def new_kernel(num_vars: int, backend: str = "auto"):  # type: ignore[no-untyped-def]
    """An empty CDCL kernel (the C one when built; ``backend="python"``: the readable twin)."""
    return kernel_type(choose_backend(backend))(num_vars, RESTARTS["none"], True, 0.95, False,
                                                policy())


class Propagator:
    """The rules of ``layout`` under ``encoding`` loaded once; :meth:`run` propagates puzzles.

    Raises :class:`~satdoku.cnf.encodings.Unencodable` for an encoding the layout cannot take
    and ValueError for a ``simplified`` encoding (its formulas share no rules; UP on it is UP
    on ``extended`` after one step)."""

    def __init__(self, layout: Layout, encoding: str | Encoding, backend: str = "auto") -> None:
        enc = resolve(encoding)
        if enc.simplified:
            raise ValueError(f"encoding {enc.name}: its formulas share no rules (analyze "
                             f"{enc.base.replace('simplified', 'extended')}: the same "
                             "propagation)")
        check_encoding_applies(layout, enc)
        self.layout, self.encoding, self.backend = layout, enc, backend
        rules = rules_cnf(layout, enc)
        self.num_vars, self.num_clauses = rules.num_vars, rules.num_clauses
        self._kernel = new_kernel(rules.num_vars, backend)
        self._kernel.load(rules.clauses)

    def run(self, puzzles: Sequence[Puzzle], probe: bool = False) -> list[Outcome]:
        """The outcome of every puzzle (of this layout), in order: unit propagation, and with
        ``probe`` failed-literal probing to a fixpoint after it."""
        out: list[Outcome | None] = [None] * len(puzzles)
        plain: list[int] = []
        for i, p in enumerate(puzzles):
            if p.layout is not self.layout and p.layout != self.layout:
                raise ValueError(f"a {p.layout.key} puzzle given to the {self.layout.key} "
                                 "propagator")
            if p.less_than or p.extra_groups:  # clauses of its own: a kernel of its own
                out[i] = self._alone(p, probe)
            else:  # its own clauses are the givens' units
                plain.append(i)
        for start in range(0, len(plain), BATCH):
            chunk = plain[start:start + BATCH]
            groups = self._given_literals([puzzles[i] for i in chunk])
            for i, outcome in zip(chunk, self._outcomes(self._kernel, groups, probe),
                                  strict=True):
                out[i] = outcome
        return out  # type: ignore[return-value]

    def _given_literals(self, puzzles: Sequence[Puzzle]):  # type: ignore[no-untyped-def]
        """The givens' unit literals v(cell, value) of each puzzle, a 0 after each puzzle's
        (int32: the kernel's groups)."""
        import numpy as np

        ncells = self.layout.ncells
        givens = np.array([p.givens for p in puzzles], dtype=np.int32).reshape(-1, ncells)
        given = givens > 0
        lits = var(np.arange(ncells, dtype=np.int32), givens, self.layout.domain)[given]
        return np.insert(lits, np.cumsum(given.sum(axis=1)), 0).astype(np.int32)

    def _alone(self, puzzle: Puzzle, probe: bool) -> Outcome:
        f = formula(puzzle, self.encoding)
        kernel = new_kernel(f.num_vars, self.backend)
        kernel.load(rules_cnf(self.layout, self.encoding).clauses)
        kernel.load([c for c in f.own if len(c) > 1])
        groups = array("i", [c[0] for c in f.own if len(c) == 1] + [0])
        return next(self._outcomes(kernel, groups, probe))

    def _outcomes(self, kernel, groups, probe: bool  # type: ignore[no-untyped-def]
                  ) -> Iterator[Outcome]:
        import numpy as np

        ncells, dom = self.layout.ncells, self.layout.domain
        codes, values = kernel.propagate_units(groups, ncells * dom, probe)
        results = np.frombuffer(codes, dtype=np.int32)
        true = np.frombuffer(values, dtype=np.int8).reshape(len(results), ncells, dom) == 1
        decided = true.any(axis=2)
        boards = np.where(decided, true.argmax(axis=2) + 1, 0).tolist()
        open_cells = (ncells - decided.sum(axis=1)).tolist()
        for k, code in enumerate(results.tolist()):
            if code < 0:
                yield Outcome(REFUTED, 0, None)
            else:
                n_open = open_cells[k]
                yield Outcome(OPEN if n_open else SOLVED, n_open, tuple(boards[k]), code)


def propagate_formula(cnf: Cnf, probe: bool = False, backend: str = "auto") -> Outcome:
    """UP (and with ``probe`` FL) on a DIMACS formula as it is: ``solved`` when every variable
    is assigned, ``open`` counts the unassigned ones."""
    import numpy as np

    kernel = new_kernel(cnf.num_vars, backend)
    lits = cnf.lits
    if isinstance(lits, (bytes, bytearray)):  # int32 bytes, as the compiled reader gives
        lits = memoryview(lits).cast("i")
    kernel.load(lits if lits is not None else cnf.clauses)
    codes, values = kernel.propagate_units(array("i", [0]), cnf.num_vars, probe)
    code = int(np.frombuffer(codes, dtype=np.int32)[0])
    if code < 0:
        return Outcome(REFUTED, 0, None)
    n_open = int((np.frombuffer(values, dtype=np.int8) == 0).sum())
    return Outcome(OPEN if n_open else SOLVED, n_open, None, code)


def singles_outcomes(puzzles: Sequence[Puzzle]) -> list[Outcome]:
    """What the human singles (naked and hidden, round after round: the inference of
    :func:`satdoku.heuristics.apply_singles`, here its vectorised form
    :func:`~satdoku.heuristics.singles_fixpoint`) decide alone, per puzzle."""
    out = []
    for board, contradiction in singles_fixpoint(puzzles):
        n_open = board.count(0)
        out.append(Outcome(REFUTED, 0, None) if contradiction else
                   Outcome(OPEN if n_open else SOLVED, n_open, board))
    return out
