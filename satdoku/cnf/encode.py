"""Named CNF encodings of a Puzzle (direct encoding: one Boolean per cell and value).

Variable numbering: v(cell, d) = cell * D + d with d in 1..D and cells row-major from 0, so for a
Sudoku v(r, c, d) = (r * N + c) * N + d (1-based d). Clause families:

- cell-ALO: every cell has at least one value
- cell-AMO: every cell has at most one value
- group-AMO: no value twice in a group (all-different)
- group-ALO: every value at least once in a group of exactly D cells
- givens: one unit clause per given; Futoshiki ``a < b``: every pair (da >= db) forbidden

Encodings (records in :mod:`satdoku.cnf.encodings`): ``minimal`` = cell-ALO + group-AMO;
``efficient`` = minimal + cell-AMO; ``extended`` = all four families; ``simplified`` =
extended with the clauses satisfied by the givens removed and the literals they make false
deleted (see :func:`simplify`), its variables renumbered compactly. The puzzle-independent
part ("rules") is computed once per layout and encoding and shared; the instance part holds
givens and instance-specific relations (a ``simplified`` formula depends on the givens
throughout, so it has no shared rules: key ``-``).

``augmented`` (tdoku's triad encoding) keeps the cell families of ``efficient`` and replaces
the group families: for each value, every box row segment (a horizontal triad: the n cells a row
shares with a box) and every box column segment (vertical triad) gets a variable defined as
"the value is in the segment" (exactly one of the segment's cell variables and the triad's
negation: at most one cell holds the value, and the triad is true exactly when one does), and
each row, column and box holds the value in exactly one of its segments (a row over its
horizontal triads, a column over its vertical ones, a box over both kinds). Triad variables
follow the direct ones: horizontal h(r, s, d) = top + (r * n + s) * D + d for row r and segment
s (0-based, left to right), then vertical v(c, s, d) = top + N·n·D + (c * n + s) * D + d, top =
D·cells. It needs boxes: other layouts raise :class:`Unencodable`.

At-most-one constraints are ``pairwise`` (binary clauses, no new variables) by default; the
suffix ``_seq`` selects Sinz's sequential counter (3k-4 clauses and k-1 auxiliary variables for
k literals), e.g. ``extended_seq``. Auxiliary variables are numbered after the D·cells direct
variables (rules first, then the instance's own), so decoding reads only variables <= D·cells.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Protocol

from satdoku.cnf.encodings import (  # noqa: F401  (ENCODINGS: re-exported, every name)
    CELL_ALO,
    CELL_AMO,
    ENCODINGS,
    GROUP_ALO,
    GROUP_AMO,
    PAIRWISE,
    SEQ,
    SEQUENTIAL,
    TRIADS,
    Encoding,
    Unencodable,
    get,
    resolve,
)
from satdoku.cnf.formula import Cnf, Formula
from satdoku.puzzle import SUDOKU, Layout, Puzzle
from satdoku.size_limits import SizeLimits, TooLarge, default_size_limits

NO_RULES = "-"  # rules key of formulas that share no rules block


class Deadline(Protocol):
    """What a build needs of an instance's deadline (satdoku.solvers.base.Deadline)."""

    def expired(self) -> bool: ...


def var(cell: int, d: int, domain: int) -> int:
    """DIMACS variable meaning 'cell holds value d' (d in 1..domain)."""
    return cell * domain + d


class _Fresh:
    """Hands out auxiliary variables above ``top``."""

    def __init__(self, top: int) -> None:
        self.top = top

    def new(self, k: int) -> int:
        """First of ``k`` new consecutive variables."""
        first = self.top + 1
        self.top += k
        return first


def amo(lits: Sequence[int], style: str, fresh: _Fresh) -> Iterator[list[int]]:
    """Clauses saying at most one of ``lits`` is true (pairwise, or Sinz's sequential counter
    for three or more literals: s_i means 'one of the first i literals is true')."""
    k = len(lits)
    if style == PAIRWISE or k <= 2:
        yield from ([-a, -b] for a, b in combinations(lits, 2))
        return
    s0 = fresh.new(k - 1)  # s_i = s0 + i - 1 for i = 1..k-1
    yield [-lits[0], s0]
    for i in range(1, k - 1):
        s, prev = s0 + i, s0 + i - 1
        yield [-lits[i], s]
        yield [-prev, s]
        yield [-lits[i], -prev]
    yield [-lits[k - 1], -(s0 + k - 2)]


def _group_clauses(groups: Iterable[Sequence[int]], domain: int, families: tuple[str, ...],
                   style: str = PAIRWISE, fresh: _Fresh | None = None) -> list[list[int]]:
    fresh = fresh or _Fresh(0)
    out: list[list[int]] = []
    for cells in groups:
        if GROUP_AMO in families:
            for d in range(1, domain + 1):
                out.extend(amo([c * domain + d for c in cells], style, fresh))
        if GROUP_ALO in families and len(cells) == domain:
            out.extend([c * domain + d for c in cells] for d in range(1, domain + 1))
    return out


class RulesTimeout(TimeoutError):
    """The time limit ran out while the shared rules of a layout were being built (the part
    built so far is kept: the next instance's time continues the build)."""


class _RulesBuild:
    """The shared rules of a layout under an encoding, built in steps (a block of cells or one
    group at a time) that can stop at a deadline and resume later: a 64x64 Sudoku's rules take
    seconds, which must count against an instance's time limit and never overrun it."""

    def __init__(self, layout: Layout, enc: Encoding) -> None:
        self.layout, self.enc = layout, enc
        self.expected = rules_clause_count(layout, enc)
        self._start()

    def _start(self) -> None:
        self.clauses: list[list[int]] = []
        self.fresh = _Fresh(self.layout.ncells * self.layout.domain)
        self.done = False
        self._steps = _rule_steps(self.layout, self.enc, self.fresh)

    def advance(self, deadline: Deadline | None = None) -> bool:
        """Build on until done (True) or until ``deadline`` has expired (False). A build that
        an exception broke (MemoryError under a memory limit, an interrupt) starts again."""
        if self.done:
            return True
        try:
            for chunk in self._steps:
                self.clauses.extend(chunk)
                if deadline is not None and deadline.expired():
                    return False
        except BaseException:
            self._start()
            raise
        self.done = True
        return True


_BUILDS: OrderedDict[tuple[Layout, str], _RulesBuild] = OrderedDict()
_BUILDS_KEPT = 16
#: cells per step of a rules build
_CELL_BLOCK = 64


def _build(layout: Layout, enc: Encoding) -> _RulesBuild:
    key = (layout, enc.name)
    found = _BUILDS.get(key)
    if found is None:
        found = _BUILDS[key] = _RulesBuild(layout, enc)
        while len(_BUILDS) > _BUILDS_KEPT:
            _BUILDS.popitem(last=False)
    _BUILDS.move_to_end(key)
    return found


def _rules_parts(layout: Layout, enc: Encoding,
                 deadline: Deadline | None = None) -> tuple[list[list[int]], int]:
    """(shared clauses, highest variable they use) of a layout under an encoding; cached, and
    shared by every caller: never mutate them. RulesTimeout when ``deadline`` expires first."""
    build = _build(layout, enc)
    if not build.advance(deadline):
        raise RulesTimeout(f"time limit reached while building the shared rules of "
                           f"{layout.key}.{enc.name} ({len(build.clauses)} of "
                           f"{build.expected} clauses built)")
    return build.clauses, build.fresh.top


def _rule_steps(layout: Layout, enc: Encoding, fresh: _Fresh) -> Iterator[list[list[int]]]:
    """The shared clauses in order, a block of cells or one group at a time (pairwise
    encodings with numpy: a 36x36 Sudoku's 3.3 million clauses in about a second, in the same
    order as the loop)."""
    families, style = enc.families, enc.amo
    dom = layout.domain
    for first in range(0, layout.ncells, _CELL_BLOCK):
        cells = range(first, min(first + _CELL_BLOCK, layout.ncells))
        if style == PAIRWISE:
            yield _pairwise_cells(cells, dom, families)
            continue
        out: list[list[int]] = []
        for c in cells:
            vs = [c * dom + d for d in range(1, dom + 1)]
            if CELL_ALO in families:
                out.append(vs)
            if CELL_AMO in families:
                out.extend(amo(vs, style, fresh))
        yield out
    if TRIADS in families:
        yield from _triad_steps(layout, fresh)
        return
    for group in layout.groups:
        if style == PAIRWISE:
            yield _pairwise_group(group, dom, families)
        else:
            yield _group_clauses([group], dom, families, style, fresh)


def encoding_applies(layout: Layout, encoding: str | Encoding) -> bool:
    """Whether ``layout`` has what ``encoding`` needs: the triads of ``augmented`` are box
    segments, so it takes Sudoku layouts with boxes only."""
    return not resolve(encoding).needs_boxes or (layout.kind == SUDOKU and bool(layout.box))


def check_encoding_applies(layout: Layout, encoding: str | Encoding) -> None:
    """Raise :class:`Unencodable` (one line) when ``encoding`` needs what ``layout`` lacks."""
    enc = resolve(encoding)
    if not encoding_applies(layout, enc):
        raise Unencodable(f"encoding {enc.name} needs a Sudoku layout with boxes (its triads "
                          f"are box row and column segments); {layout.key} has none")


def _exactly_one(lits: Sequence[int]) -> list[list[int]]:
    """At least one of ``lits`` (one clause), then at most one (every pair)."""
    return [list(lits), *([-a, -b] for a, b in combinations(lits, 2))]


def _triad_steps(layout: Layout, fresh: _Fresh) -> Iterator[list[list[int]]]:
    """The triad part of ``augmented``: the definitions of the horizontal triads (one step per
    row), of the vertical ones (one per column), then the rows', columns' and boxes'
    exactly-one over their triads (one step each)."""
    n = layout.box
    assert n, "check_encoding_applies first"
    side, dom = n * n, layout.domain
    segments = side * n * dom  # triads of one kind
    first = fresh.new(2 * segments)

    def h(r: int, s: int, d: int) -> int:
        return first + (r * n + s) * dom + d - 1

    def v(c: int, s: int, d: int) -> int:
        return first + segments + (c * n + s) * dom + d - 1

    values = range(1, dom + 1)
    for r in range(side):
        yield [clause for s in range(n) for d in values
               for clause in _exactly_one([(r * side + s * n + j) * dom + d for j in range(n)]
                                          + [-h(r, s, d)])]
    for c in range(side):
        yield [clause for s in range(n) for d in values
               for clause in _exactly_one([((s * n + i) * side + c) * dom + d for i in range(n)]
                                          + [-v(c, s, d)])]
    for r in range(side):
        yield [cl for d in values for cl in _exactly_one([h(r, s, d) for s in range(n)])]
    for c in range(side):
        yield [cl for d in values for cl in _exactly_one([v(c, s, d) for s in range(n)])]
    for br in range(n):
        for bc in range(n):
            yield [cl for d in values
                   for kind in ([h(br * n + i, bc, d) for i in range(n)],
                                [v(bc * n + j, br, d) for j in range(n)])
                   for cl in _exactly_one(kind)]


def _pairwise_cells(cells: range, dom: int, families: tuple[str, ...]) -> list[list[int]]:
    """Per cell its at-least-one clause, then its at-most-one pairs."""
    import numpy as np

    values = np.arange(1, dom + 1, dtype=np.int64)
    cell_vars = np.arange(cells.start, cells.stop, dtype=np.int64)[:, None] * dom + values
    alo = cell_vars.tolist() if CELL_ALO in families else None
    amo_cells = None
    if CELL_AMO in families:
        i, j = np.triu_indices(dom, 1)
        pairs = np.stack([-cell_vars[:, i], -cell_vars[:, j]], axis=2)  # (cells, P, 2)
        amo_cells = pairs.reshape(len(cells), -1, 2).tolist()
    out: list[list[int]] = []
    for k in range(len(cells)):
        if alo is not None:
            out.append(alo[k])
        if amo_cells is not None:
            out.extend(amo_cells[k])
    return out


def _pairwise_group(cells: Sequence[int], dom: int, families: tuple[str, ...]
                    ) -> list[list[int]]:
    """A group's at-most-one pairs of every value, then the at-least-one clause of every
    value (groups of ``domain`` cells)."""
    import numpy as np

    values = np.arange(1, dom + 1, dtype=np.int64)
    g = np.asarray(cells, dtype=np.int64)[None, :] * dom + values[:, None]  # (D, k)
    out: list[list[int]] = []
    if GROUP_AMO in families:
        i, j = np.triu_indices(len(cells), 1)
        out.extend(np.stack([-g[:, i], -g[:, j]], axis=2).reshape(-1, 2).tolist())
    if GROUP_ALO in families and len(cells) == dom:
        out.extend(g.tolist())
    return out


def rules_clause_count(layout: Layout, encoding: str | Encoding) -> int:
    """How many clauses the shared rules of a layout have under an encoding (before any
    simplification), from the sizes alone: the memory guard checks it before anything is
    built (once per layout and encoding)."""
    return _rules_clause_count(layout, resolve(encoding))


@lru_cache(maxsize=64)
def _rules_clause_count(layout: Layout, enc: Encoding) -> int:
    check_encoding_applies(layout, enc)
    dom = layout.domain

    def amo_count(k: int) -> int:
        return k * (k - 1) // 2 if enc.amo == PAIRWISE or k <= 2 else 3 * k - 4

    total = 0
    if CELL_ALO in enc.families:
        total += layout.ncells
    if CELL_AMO in enc.families:
        total += layout.ncells * amo_count(dom)
    if TRIADS in enc.families:  # definitions over n + 1 literals, constraints over n
        n = layout.box or 0
        side = n * n
        return (total + 2 * side * n * dom * (1 + (n + 1) * n // 2)
                + 4 * side * dom * (1 + n * (n - 1) // 2))
    for cells in layout.groups:
        if GROUP_AMO in enc.families:
            total += dom * amo_count(len(cells))
        if GROUP_ALO in enc.families and len(cells) == dom:
            total += dom
    return total


def check_encoding_size(layout: Layout, encoding: str | Encoding,
                        limits: SizeLimits | None = None) -> None:
    """Raise TooLarge when a layout's rules under ``encoding`` would have more clauses than
    ``size_limits.max_clauses`` (the memory guard: a 49x49 Sudoku's extended rules are 11 million
    clauses, several GB in memory), before anything is built."""
    lim = limits or default_size_limits()
    enc = resolve(encoding)
    count = rules_clause_count(layout, enc)
    if count > lim.max_clauses:
        raise TooLarge(f"too large to encode: {layout.key} under {enc.name} needs {count} "
                       f"clauses, the limit is {lim.max_clauses} (size_limits.max_clauses; the "
                       "_seq encodings need far fewer)")


def _rules(layout: Layout, enc: Encoding) -> list[list[int]]:
    return _rules_parts(layout, enc)[0]


def rules_clauses(layout: Layout, encoding: str | Encoding) -> list[list[int]]:
    """The clauses every puzzle of this layout shares under ``encoding`` (cached and shared:
    never mutate them; empty for the ``simplified`` encodings, whose formulas are all their
    own)."""
    enc = resolve(encoding)
    return [] if enc.simplified else _rules(layout, enc)


def rules_cnf(layout: Layout, encoding: str | Encoding) -> Cnf:
    """The shared rules of a layout as one cached Cnf object (the same object on every call,
    so incremental solvers load it once; never mutate it). Empty for simplified encodings."""
    return _rules_cnf(layout, resolve(encoding))


@lru_cache(maxsize=8)
def _rules_cnf(layout: Layout, enc: Encoding) -> Cnf:
    return Cnf(rules_num_vars(layout, enc), rules_clauses(layout, enc))


def rules_num_vars(layout: Layout, encoding: str | Encoding) -> int:
    """Variables of the shared rules block (direct variables plus its auxiliaries)."""
    return _rules_parts(layout, resolve(encoding))[1]


def rules_key(puzzle: Puzzle, encoding: str | Encoding) -> str:
    """Name of the shared rules block a puzzle's formula builds on, e.g. ``sudoku-9.extended``
    (``-`` for the simplified encodings, which share nothing)."""
    enc = resolve(encoding)
    return NO_RULES if enc.simplified else f"{puzzle.layout.key}.{enc.name}"


def _own_clauses(puzzle: Puzzle, enc: Encoding) -> tuple[list[list[int]], int]:
    """(instance clauses, highest variable of the whole formula) before any simplification."""
    families, style = enc.families, enc.amo
    dom = puzzle.domain
    fresh = _Fresh(_rules_parts(puzzle.layout, enc)[1])
    out: list[list[int]] = []
    if puzzle.extra_groups:  # (augmented: its triads are the layout's; these stay direct)
        group_families = (GROUP_AMO, GROUP_ALO) if TRIADS in families else families
        out.extend(_group_clauses(puzzle.extra_groups, dom, group_families, style, fresh))
    for a, b in puzzle.less_than:  # value(a) < value(b): forbid every pair with da >= db
        out.extend(
            [-(a * dom + da), -(b * dom + db)]
            for da in range(1, dom + 1)
            for db in range(1, da + 1)
        )
    out += [[c * dom + v] for c, v in enumerate(puzzle.givens) if v]
    return out, fresh.top


def instance_clauses(puzzle: Puzzle, encoding: str | Encoding) -> list[list[int]]:
    """The clauses specific to one puzzle: givens, instance groups, inequalities (for the
    ``simplified`` encodings: the whole simplified formula)."""
    enc = resolve(encoding)
    if enc.simplified:
        return _simplify(puzzle, enc).clauses
    return _own_clauses(puzzle, enc)[0]


def num_vars(puzzle: Puzzle, encoding: str | Encoding = "extended") -> int:
    """Variables of a puzzle's whole formula under ``encoding``."""
    enc = resolve(encoding)
    if enc.simplified:
        return _simplify(puzzle, enc).num_vars
    if enc.amo == PAIRWISE and TRIADS not in enc.families:
        return puzzle.ncells * puzzle.domain
    return _own_clauses(puzzle, enc)[1]


def encode(puzzle: Puzzle, encoding: str | Encoding = "extended") -> Cnf:
    """The whole formula of one puzzle (rules + instance clauses)."""
    return formula(puzzle, encoding).whole()


def formula(puzzle: Puzzle, encoding: str | Encoding = "extended",
            deadline: Deadline | None = None) -> Formula:
    """A puzzle's formula as the layout's cached rules plus the instance's own clauses.
    With a ``deadline``, building the rules (the first time a layout is met) stops when it
    expires: RulesTimeout, and the next call goes on where this one stopped."""
    enc = resolve(encoding)
    if enc.simplified:
        cnf = _simplify(puzzle, enc)
        return Formula(cnf.num_vars, cnf.clauses, None, cnf.comments)
    _rules_parts(puzzle.layout, enc, deadline)
    own, top = _own_clauses(puzzle, enc)
    return Formula(top, own, _rules_cnf(puzzle.layout, enc))


# --- simplified -----------------------------------------------------------------------------
def fixed_by_givens(puzzle: Puzzle) -> dict[int, bool]:
    """Direct variables whose value the givens decide in one step: a given's own variable is
    true; the other values of that cell, the same value in every peer cell and the values an
    inequality with the given excludes are false. A variable forced both ways maps to None."""
    dom = puzzle.domain
    fixed: dict[int, bool | None] = {}

    def put(v: int, value: bool) -> None:
        old = fixed.get(v, value)
        fixed[v] = value if old == value else None

    peers = puzzle.peers
    for c, g in enumerate(puzzle.givens):
        if not g:
            continue
        base = c * dom
        for d in range(1, dom + 1):
            put(base + d, d == g)
        for p in peers[c]:
            put(p * dom + g, False)
    for a, b in puzzle.less_than:
        ga, gb = puzzle.givens[a], puzzle.givens[b]
        if ga:
            for d in range(1, min(ga, dom) + 1):  # b must exceed ga
                put(b * dom + d, False)
        if gb:
            for d in range(max(gb, 1), dom + 1):  # a must stay below gb
                put(a * dom + d, False)
    return fixed  # type: ignore[return-value]


def simplified_variables(puzzle: Puzzle) -> list[int]:
    """The direct variables a simplified formula keeps, in order: new variable i + 1 is
    ``kept[i]``. Deterministic from the puzzle, so decoders recompute it instead of storing it."""
    fixed = fixed_by_givens(puzzle)
    return [v for v in range(1, puzzle.ncells * puzzle.domain + 1) if v not in fixed]


def variable_comment(puzzle: Puzzle, encoding: str | Encoding) -> str:
    """What the variables of ``encoding``'s formula for ``puzzle`` stand for (a header comment
    of a standalone DIMACS file)."""
    dom = puzzle.domain
    direct = f"v(cell, d) = cell * {dom} + d (d in 1..{dom}, cells row-major from 0)"
    enc = resolve(encoding)
    aux = "the sequential counter's auxiliaries" if enc.amo == SEQUENTIAL else ""
    if TRIADS in enc.families:
        n = puzzle.layout.box or 0
        aux = (f"triads: h(row r, segment s, d) = {puzzle.ncells * dom} + (r * {n} + s) * {dom}"
               f" + d, then v(column c, segment s, d) = {puzzle.ncells * dom + n ** 3 * dom} + "
               f"(c * {n} + s) * {dom} + d (r, c, s from 0)")
    if enc.simplified:
        kept = len(simplified_variables(puzzle))
        return (f"variables renumbered: 1..{kept} are the direct variables {direct} the givens "
                f"leave open, in increasing order" + (f"; above {kept}: {aux}" if aux else ""))
    top = puzzle.ncells * dom
    return f"variables {direct}" + (f"; above {top}: {aux}" if aux else "")


def simplify(puzzle: Puzzle, encoding: str | Encoding = "simplified") -> Cnf:
    """The extended formula (pairwise or ``_seq``) minus the clauses the givens satisfy, with the
    literals the givens make false deleted and the variables renumbered compactly: the kept
    direct variables first (:func:`simplified_variables`), then the surviving auxiliaries.

    A clause emptied by the givens (or givens that contradict each other) makes the formula the
    contradiction ``x1, -x1``."""
    return _simplify(puzzle, resolve(encoding))


def _simplify(puzzle: Puzzle, enc: Encoding) -> Cnf:
    base_enc = get("extended" + (SEQ if enc.amo == SEQUENTIAL else ""))
    own, _ = _own_clauses(puzzle, base_enc)
    fixed = fixed_by_givens(puzzle)
    if any(v is None for v in fixed.values()):
        return _contradiction("givens contradict each other")
    ndirect = puzzle.ncells * puzzle.domain
    kept = [v for v in range(1, ndirect + 1) if v not in fixed]
    new_of: dict[int, int] = {v: i for i, v in enumerate(kept, 1)}
    next_aux = len(kept) + 1
    out: list[list[int]] = []
    for clause in _iter_clauses(_rules(puzzle.layout, base_enc), own):
        lits: list[int] = []
        satisfied = False
        for lit in clause:
            v = abs(lit)
            val = fixed.get(v)
            if val is not None:
                if val == (lit > 0):
                    satisfied = True
                    break
                continue  # a false literal: deleted
            nv = new_of.get(v)
            if nv is None:  # an auxiliary variable met for the first time
                nv = new_of[v] = next_aux
                next_aux += 1
            lits.append(nv if lit > 0 else -nv)
        if satisfied:
            continue
        if not lits:
            return _contradiction("a clause is falsified by the givens")
        out.append(lits)
    return Cnf(next_aux - 1, out, [f"simplified from {base_enc.name}: {len(kept)} of {ndirect} "
                                   "direct variables kept"])


def _iter_clauses(rules: Iterable[Sequence[int]], own: Iterable[Sequence[int]]
                  ) -> Iterator[Sequence[int]]:
    yield from rules
    yield from own


def _contradiction(why: str) -> Cnf:
    return Cnf(1, [[1], [-1]], [f"unsatisfiable: {why}"])


def expand_model(model: Iterable[int], puzzle: Puzzle, encoding: str | Encoding) -> list[int]:
    """A model of an encoding's formula as positive direct-encoding literals v(cell, d).

    For the simplified encodings the kept variables are mapped back and the givens added;
    other encodings' models are already direct (auxiliaries are dropped)."""
    ndirect = puzzle.ncells * puzzle.domain
    if not resolve(encoding).simplified:
        return [lit for lit in model if 0 < lit <= ndirect]
    kept = simplified_variables(puzzle)
    dom = puzzle.domain
    out = [c * dom + g for c, g in enumerate(puzzle.givens) if g]
    out.extend(kept[lit - 1] for lit in model if 0 < lit <= len(kept))
    return out
