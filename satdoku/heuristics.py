"""Human solving moves (naked single, hidden single per row/column/box) and their memory.

The symbolic engine that ``satdoku classify`` uses for Q3 and that the LTN single formulas are
checked against. A *naked single* is an empty cell with exactly one candidate; a *hidden single*
is a value that fits in exactly one empty cell of a group (row, column or box). On a board that
has a solution every single is forced, so applying them never loses a solution; on a board
without one they can run into a contradiction, which :func:`apply_singles` reports instead of
returning a broken board.

:class:`MoveMemory` keeps what the original system called its memory: the history of moves, how
often each heuristic fired and filled a cell (its effectiveness) and the time spent, saved as
JSON.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from satdoku.puzzle import SUDOKU, Layout, Puzzle

NAKED = "naked_single"
HIDDEN = "hidden_single"  # + "_row" / "_column" / "_box" / "_group"
HEURISTICS = (NAKED, f"{HIDDEN}_row", f"{HIDDEN}_column", f"{HIDDEN}_box")


@dataclass(frozen=True)
class Move:
    """One placement: ``value`` into ``cell`` because of ``heuristic`` (0-based row/col)."""

    cell: int
    value: int
    heuristic: str
    row: int
    col: int
    truth: float | None = None  # the LTN formula's truth value, when computed
    round: int = 0

    def key(self) -> tuple[int, int, str]:
        return (self.cell, self.value, self.heuristic)

    @classmethod
    def at(cls, puzzle: Puzzle, cell: int, value: int, heuristic: str, rnd: int = 0) -> Move:
        """The move placing ``value`` into ``cell`` of ``puzzle`` (row and column computed
        from the puzzle's shape; for 3-D, within the cell's layer)."""
        n = puzzle.layout.shape[-1]
        return cls(cell, value, heuristic, (cell // n) % puzzle.layout.shape[-2], cell % n,
                   round=rnd)


def group_kind(puzzle: Puzzle, g: int) -> str:
    """``row``, ``column``, ``box`` or ``group`` for group index ``g`` of ``puzzle``."""
    n = puzzle.size
    layout_groups = len(puzzle.layout.groups)
    if g >= layout_groups or len(puzzle.layout.shape) != 2:
        return "group"
    if g < n:
        return "row"
    if g < 2 * n:
        return "column"
    return "box" if puzzle.layout.kind == SUDOKU else "group"


def naked_singles(puzzle: Puzzle, board: Sequence[int] | None = None, rnd: int = 0) -> list[Move]:
    """Every empty cell of ``board`` with exactly one candidate."""
    b = puzzle.givens if board is None else board
    out = []
    for c, cand in enumerate(puzzle.candidates(b)):
        if not b[c] and len(cand) == 1:
            out.append(Move.at(puzzle, c, next(iter(cand)), NAKED, rnd))
    return out


def hidden_singles(puzzle: Puzzle, board: Sequence[int] | None = None, rnd: int = 0) -> list[Move]:
    """Every (group, value) whose value fits in exactly one empty cell of a full-size group
    and is not yet placed in that group; one move per group kind that finds it."""
    b = puzzle.givens if board is None else board
    cands = puzzle.candidates(b)
    seen: set[tuple[int, int, str]] = set()
    out = []
    for g, cells in enumerate(puzzle.groups):
        if len(cells) != puzzle.domain:
            continue
        placed = {b[c] for c in cells if b[c]}
        name = f"{HIDDEN}_{group_kind(puzzle, g)}"
        for v in range(1, puzzle.domain + 1):
            if v in placed:
                continue
            where = [c for c in cells if not b[c] and v in cands[c]]
            if len(where) == 1 and (where[0], v, name) not in seen:
                seen.add((where[0], v, name))
                out.append(Move.at(puzzle, where[0], v, name, rnd))
    return out


def find_singles(puzzle: Puzzle, board: Sequence[int] | None = None, rnd: int = 0) -> list[Move]:
    """All naked and hidden singles applicable to ``board`` right now."""
    return naked_singles(puzzle, board, rnd) + hidden_singles(puzzle, board, rnd)


@dataclass
class HeuristicStats:
    found: int = 0  # moves proposed
    applied: int = 0  # cells this heuristic filled first
    seconds: float = 0.0

    @property
    def effectiveness(self) -> float:
        """Share of this heuristic's proposals that filled a cell."""
        return self.applied / self.found if self.found else 0.0


@dataclass
class MoveMemory:
    """History of moves plus per-heuristic counts, effectiveness and time."""

    history: list[dict] = field(default_factory=list)
    stats: dict[str, HeuristicStats] = field(default_factory=dict)
    boards: int = 0
    contradictions: int = 0

    def record(self, board_id: str | int, moves: Sequence[Move], applied: Sequence[Move],
               seconds: dict[str, float]) -> None:
        for m in moves:
            self.stats.setdefault(m.heuristic, HeuristicStats()).found += 1
        for m in applied:
            self.stats.setdefault(m.heuristic, HeuristicStats()).applied += 1
            self.history.append({"board": board_id, **asdict(m)})
        for name, s in seconds.items():
            self.stats.setdefault(name, HeuristicStats()).seconds += s

    def summary(self) -> dict:
        """Counts, effectiveness and time per heuristic, plus totals."""
        return {
            "boards": self.boards,
            "moves_applied": len(self.history),
            "contradictions": self.contradictions,
            "heuristics": {
                name: {"found": s.found, "applied": s.applied,
                       "effectiveness": round(s.effectiveness, 4), "seconds": round(s.seconds, 6)}
                for name, s in sorted(self.stats.items())
            },
        }

    def to_json(self) -> dict:
        return {"summary": self.summary(), "history": self.history}

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")


def _homeless_value(puzzle: Puzzle, b: Sequence[int], cands: list[set[int]]) -> str | None:
    """A full-size group in which some missing value fits in no empty cell, described."""
    for cells in puzzle.groups:
        if len(cells) != puzzle.domain:
            continue
        missing = set(range(1, puzzle.domain + 1)) - {b[c] for c in cells}
        for v in sorted(missing):
            if not any(not b[c] and v in cands[c] for c in cells):
                return f"value {v} fits nowhere in the group of {puzzle.cell_name(cells[0])}"
    return None


@dataclass
class SinglesResult:
    board: tuple[int, ...]
    applied: list[Move]  # in order, one per filled cell
    found: list[Move]  # every move proposed in every round
    contradiction: str | None  # why the board cannot be completed, if singles showed it
    rounds: int


def apply_singles(
    puzzle: Puzzle,
    board: Sequence[int] | None = None,
    memory: MoveMemory | None = None,
    board_id: str | int = 0,
    max_rounds: int = 1000,
    truth: Callable[[Sequence[int]], dict[tuple[int, int, str], float]] | None = None,
) -> SinglesResult:
    """Fill cells with singles, round by round, until none applies.

    Each round proposes every single on the current board and fills each proposed cell once
    (naked singles first). A cell proposed with two different values, a cell left without a
    candidate or a group that can no longer hold a value is reported as ``contradiction`` and the
    board returned is the last consistent one. ``truth`` (board → {move key: truth value}) lets
    a caller attach a truth value to every move, e.g. from the LTN single formulas."""
    b = list(puzzle.givens if board is None else board)
    applied: list[Move] = []
    found: list[Move] = []
    secs = {NAKED: 0.0, HIDDEN: 0.0}
    contradiction = puzzle.conflicts(b)[0] if puzzle.conflicts(b) else None
    rounds = 0
    while contradiction is None and rounds < max_rounds:
        t0 = time.perf_counter()
        naked = naked_singles(puzzle, b, rounds)
        t1 = time.perf_counter()
        hidden = hidden_singles(puzzle, b, rounds)
        t2 = time.perf_counter()
        secs[NAKED] += t1 - t0
        secs[HIDDEN] += t2 - t1
        cands = puzzle.candidates(b)
        dead = next((c for c in range(len(b)) if not b[c] and not cands[c]), None)
        if dead is not None:
            contradiction = f"{puzzle.cell_name(dead)} has no candidate"
            break
        contradiction = _homeless_value(puzzle, b, cands)
        if contradiction:
            break
        moves = naked + hidden
        if not moves:
            break
        if truth is not None:
            table = truth(b)
            moves = [replace(m, truth=table.get(m.key(), 0.0)) for m in moves]
        rounds += 1
        found.extend(moves)
        chosen: dict[int, Move] = {}
        for m in moves:
            if m.cell in chosen and chosen[m.cell].value != m.value:
                contradiction = (f"{puzzle.cell_name(m.cell)} forced to both "
                                 f"{chosen[m.cell].value} and {m.value}")
                break
            chosen.setdefault(m.cell, m)
        if contradiction:
            break
        trial = list(b)
        for c, m in chosen.items():
            trial[c] = m.value
        problems = puzzle.conflicts(trial)
        if problems:
            contradiction = problems[0]
            break
        b = trial
        applied.extend(chosen.values())
    if memory is not None:
        memory.boards += 1
        memory.contradictions += contradiction is not None
        memory.record(board_id, found, applied,
                      {f"{HIDDEN}_*" if k == HIDDEN else k: v for k, v in secs.items()})
    return SinglesResult(tuple(b), applied, found, contradiction, rounds)


#: puzzles per numpy pass of :func:`singles_fixpoint` (a 9x9 pass holds 4096 x 27 x 9 masks)
_FIXPOINT_BATCH = 4096


def singles_fixpoint(puzzles: Sequence[Puzzle]) -> list[tuple[tuple[int, ...], bool]]:
    """Naked and hidden singles applied until none is left, to many puzzles at once: per
    puzzle (the board reached, whether a contradiction showed). The inference of
    :func:`apply_singles` (its final board and whether it ends in a contradiction; tests check
    they agree puzzle by puzzle), vectorised with numpy over the puzzles of one layout
    (:func:`layout_singles_fixpoint`): the whole 17-clue collection takes seconds, where
    :func:`apply_singles` takes minutes. Puzzles with inequalities or groups of their own, and
    layouts of more than 63 values, go through :func:`apply_singles`."""
    import numpy as np

    out: list[tuple[tuple[int, ...], bool] | None] = [None] * len(puzzles)
    by_layout: dict[object, list[int]] = {}
    for i, p in enumerate(puzzles):
        if p.less_than or p.extra_groups or p.domain > _MAX_MASK_DOMAIN:
            found = apply_singles(p)
            out[i] = (found.board, found.contradiction is not None)
        else:
            by_layout.setdefault(p.layout, []).append(i)
    for layout, idx in by_layout.items():
        givens = np.array([puzzles[i].givens for i in idx], dtype=np.int64)
        boards, contradiction = layout_singles_fixpoint(layout, givens)  # type: ignore[arg-type]
        for i, row, bad in zip(idx, boards.tolist(), contradiction.tolist(), strict=True):
            out[i] = (tuple(row), bad)
    return out  # type: ignore[return-value]


#: the largest domain :func:`layout_singles_fixpoint` takes (a cell's candidates: one uint64)
_MAX_MASK_DOMAIN = 63


def layout_singles_fixpoint(layout: Layout, givens):  # type: ignore[no-untyped-def]
    """:func:`singles_fixpoint` of puzzles of one layout with no rules of their own, given as
    an int array (puzzles x cells, 0 = empty): (the boards reached, a contradiction flag per
    puzzle), both arrays. In rounds as :func:`apply_singles` goes: every single of the current
    boards found at once, then placed; a duplicate in a group, a cell without a candidate, a
    missing value without a cell in a full-size group, or a cell given two values is a
    contradiction. Candidates are bit masks (bit v-1: value v), so a round is a few passes over
    puzzles x groups x cells."""
    import numpy as np

    if layout.domain > _MAX_MASK_DOMAIN:
        raise ValueError(f"{layout.key}: more than {_MAX_MASK_DOMAIN} values")
    givens = np.asarray(givens, dtype=np.int64).reshape(-1, layout.ncells)
    boards = np.empty_like(givens)  # every row is written by its batch below
    contradiction = np.empty(len(boards), dtype=bool)
    for start in range(0, len(boards), _FIXPOINT_BATCH):
        part = slice(start, start + _FIXPOINT_BATCH)
        boards[part], contradiction[part] = _mask_fixpoint(layout, givens[part])
    return boards, contradiction


def _mask_fixpoint(layout: Layout, givens):  # type: ignore[no-untyped-def]
    import numpy as np

    ncells, dom, ngroups = layout.ncells, layout.domain, len(layout.groups)
    mask = next(t for t in (np.uint16, np.uint32, np.uint64) if np.iinfo(t).bits >= dom)
    width = max(len(cells) for cells in layout.groups)
    # groups padded with a dummy cell (index ncells: never a value, never a candidate)
    members = np.full((ngroups, width), ncells, dtype=np.intp)
    for g, cells in enumerate(layout.groups):
        members[g, :len(cells)] = cells
    full_group = np.array([len(cells) == dom for cells in layout.groups])
    of_cell = layout.groups_of
    # each cell's groups padded with a dummy group (index ngroups: nothing placed, no single)
    cell_groups = np.full((ncells, max(len(g) for g in of_cell)), ngroups, dtype=np.intp)
    for c, gs in enumerate(of_cell):
        cell_groups[c, :len(gs)] = gs
    bit_of = np.array([0] + [1 << v for v in range(dom)], dtype=mask)  # value -> its bit
    all_values = mask((1 << dom) - 1)
    boards = givens.copy()
    contradiction = np.zeros(len(boards), dtype=bool)
    active = np.arange(len(boards))
    while len(active):
        b = boards[active]
        n = len(b)
        bits = np.zeros((n, ncells + 1), dtype=mask)
        bits[:, :ncells] = bit_of[b]
        placed = np.zeros((n, ngroups + 1), dtype=mask)  # values placed in each group
        twice = np.zeros((n, ngroups), dtype=mask)
        in_groups = bits[:, members]  # p, group, member
        for k in range(width):
            twice |= placed[:, :ngroups] & in_groups[:, :, k]
            placed[:, :ngroups] |= in_groups[:, :, k]
        bad = (twice != 0).any(axis=1)
        blocked = np.bitwise_or.reduce(placed[:, cell_groups], axis=2)  # p, cell
        empty = b == 0
        cand = np.zeros((n, ncells + 1), dtype=mask)
        cand[:, :ncells] = (all_values & ~blocked) * empty
        bad |= (empty & (cand[:, :ncells] == 0)).any(axis=1)
        homes = np.zeros((n, ngroups), dtype=mask)  # values with a candidate cell
        homes_twice = np.zeros((n, ngroups), dtype=mask)
        cand_in_groups = cand[:, members]
        for k in range(width):
            homes_twice |= homes & cand_in_groups[:, :, k]
            homes |= cand_in_groups[:, :, k]
        missing = (all_values & ~placed[:, :ngroups]) * full_group
        bad |= ((missing & ~homes) != 0).any(axis=1)  # a value that fits nowhere
        hidden = np.zeros((n, ngroups + 1), dtype=mask)
        hidden[:, :ngroups] = missing & homes & ~homes_twice  # exactly one home
        c = cand[:, :ncells]
        moves = c * (np.bitwise_count(c) == 1)  # naked singles
        moves |= c & np.bitwise_or.reduce(hidden[:, cell_groups], axis=2)
        nmoves = np.bitwise_count(moves)
        bad |= (nmoves > 1).any(axis=1)
        progress = (nmoves > 0).any(axis=1) & ~bad
        if progress.any():
            single = nmoves == 1
            found = np.log2(moves[single].astype(np.float64)).astype(np.int64) + 1
            b[single] = found
            boards[active[progress]] = b[progress]
        contradiction[active[bad]] = True
        active = active[progress]
    return boards, contradiction
