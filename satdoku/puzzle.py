"""The one puzzle model: cells with domain 1..D, all-different groups, givens, extra relations.

Sudoku of any box order, Latin squares, Futoshiki and 3-D Sudoku are all constructors of this one
model, so encoders, solvers and verifiers never special-case a family. Cells are numbered
row-major from 0 (for 3-D: ``(layer * N + row) * N + col``). A board is a tuple of ints, one per
cell, 0 for empty. This module imports nothing of ours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from typing import Any

SUDOKU, LATIN, FUTOSHIKI, SUDOKU3D, CUSTOM = "sudoku", "latin", "futoshiki", "sudoku3d", "custom"


@dataclass(frozen=True)
class Layout:
    """The puzzle-independent structure shared by every instance of one family and size.

    ``groups`` are the all-different cell sets (a group of exactly ``domain`` cells must hold
    every value once). Layouts are cached per family and size, so a million 9x9 puzzles share one.
    """

    kind: str
    shape: tuple[int, ...]
    domain: int
    groups: tuple[tuple[int, ...], ...]
    box: int | None = None  # Sudoku box order n (N = n*n); None for other families

    @property
    def ncells(self) -> int:
        return math.prod(self.shape)

    @property
    def key(self) -> str:
        """A short name for this layout, e.g. ``sudoku-9``, ``latin-10`` or ``sudoku3d-4-d8``
        (the domain is named when it differs from the side, so distinct layouts never share one)."""
        dims = self.shape[:1] if self.is_square and self.kind != CUSTOM else self.shape
        base = f"{self.kind}-{'x'.join(map(str, dims))}"
        return base if self.domain == self.shape[0] else f"{base}-d{self.domain}"

    @property
    def is_square(self) -> bool:
        return len(set(self.shape)) == 1

    @cached_property
    def groups_of(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices of the groups it belongs to."""
        member: list[list[int]] = [[] for _ in range(self.ncells)]
        for g, cells in enumerate(self.groups):
            for c in cells:
                member[c].append(g)
        return tuple(tuple(m) for m in member)

    @cached_property
    def group_getters(self) -> tuple[tuple[Any, int], ...]:
        """(C-level item getter, size) of every group of two or more cells: checking a solved
        9x9 board is 27 getter calls, not 243 Python index operations."""
        from operator import itemgetter

        return tuple((itemgetter(*cells), len(cells)) for cells in self.groups if len(cells) > 1)

    def solved_boards(self, givens, boards):  # type: ignore[no-untyped-def]
        """For many puzzles of this layout with no rules of their own (no inequalities, no
        groups of their own), whether each full board solves its puzzle, as a numpy bool array:
        every given kept, every value in 1..domain, no value twice in a group. The verdict of
        :meth:`Puzzle.check_solution` (empty or not) on each, in a few array passes instead of
        a Python loop per board; ``givens`` and ``boards`` are (puzzles x cells) integers.
        Layouts of more than 63 values: ValueError (a group's values are one uint64 mask)."""
        import numpy as np

        if self.domain > 63:
            raise ValueError(f"{self.key}: more than 63 values")
        givens = np.asarray(givens, dtype=np.int64).reshape(-1, self.ncells)
        boards = np.asarray(boards, dtype=np.int64).reshape(-1, self.ncells)
        inside = (boards >= 1) & (boards <= self.domain)
        ok = inside.all(axis=1)
        ok &= ((givens == 0) | (givens == boards)).all(axis=1)
        if not self.groups:
            return ok
        width = max(len(cells) for cells in self.groups)
        members = np.full((len(self.groups), width), self.ncells, dtype=np.intp)
        for g, cells in enumerate(self.groups):
            members[g, :len(cells)] = cells
        sizes = np.array([len(cells) for cells in self.groups], dtype=np.uint64)
        # bit v-1 of value v (0: a padding cell, or a value out of range, already refused)
        bits = np.zeros((len(boards), self.ncells + 1), dtype=np.uint64)
        bits[:, :self.ncells] = np.where(inside, np.left_shift(
            np.uint64(1), (np.clip(boards, 1, self.domain) - 1).astype(np.uint64)), 0)
        seen = np.bitwise_or.reduce(bits[:, members], axis=2)  # puzzles x groups
        return ok & (np.bitwise_count(seen) == sizes).all(axis=1)

    @cached_property
    def peers(self) -> tuple[frozenset[int], ...]:
        """For each cell, every other cell sharing a group with it."""
        out = []
        for c in range(self.ncells):
            ps: set[int] = set()
            for g in self.groups_of[c]:
                ps.update(self.groups[g])
            ps.discard(c)
            out.append(frozenset(ps))
        return tuple(out)


@lru_cache(maxsize=64)
def sudoku_layout(box: int) -> Layout:
    """Rows, columns and boxes of a Sudoku of box order ``box`` (N = box², e.g. 3 → 9x9)."""
    if box < 1:
        raise ValueError(f"box order must be >= 1, got {box}")
    n = box * box
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    boxes = [
        tuple((br * box + r) * n + bc * box + c for r in range(box) for c in range(box))
        for br in range(box)
        for bc in range(box)
    ]
    return Layout(SUDOKU, (n, n), n, tuple(rows + cols + boxes), box)


@lru_cache(maxsize=64)
def latin_layout(n: int) -> Layout:
    """Rows and columns of an n x n Latin square (also the grid of an n x n Futoshiki)."""
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    return Layout(LATIN, (n, n), n, tuple(rows + cols))


@dataclass(frozen=True)
class Puzzle:
    """One instance: a layout, its givens and extra relations.

    ``less_than`` holds pairs ``(a, b)`` meaning value(cell a) < value(cell b) (Futoshiki).
    ``extra_groups`` are instance-specific all-different groups (3-D boxes, custom groups).
    """

    layout: Layout
    givens: tuple[int, ...]
    less_than: tuple[tuple[int, int], ...] = ()
    extra_groups: tuple[tuple[int, ...], ...] = ()
    kind: str = field(default="")

    def __post_init__(self) -> None:
        if not self.kind:
            object.__setattr__(self, "kind", self.layout.kind)
        if len(self.givens) != self.layout.ncells:
            raise ValueError(f"{len(self.givens)} givens for {self.layout.ncells} cells")

    # --- shape -------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Side length N of the grid (9 for a 9x9 Sudoku)."""
        return self.layout.shape[0]

    @property
    def domain(self) -> int:
        return self.layout.domain

    @property
    def ncells(self) -> int:
        return self.layout.ncells

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        if not self.extra_groups:
            return self.layout.groups
        return self.layout.groups + self.extra_groups

    @property
    def peers(self) -> tuple[frozenset[int], ...]:
        """For each cell, every other cell sharing a group with it, instance groups included:
        the layout's own tuple when there are no instance groups, else computed once and kept
        on the puzzle (a plain attribute, not ``cached_property``, whose lock costs more than
        the lookup on the millions of short-lived puzzles the generator makes)."""
        if not self.extra_groups:
            return self.layout.peers
        cached = self.__dict__.get("_peers")
        if cached is None:
            out: list[set[int]] = [set(ps) for ps in self.layout.peers]
            for cells in self.extra_groups:
                for c in cells:
                    out[c].update(cells)
            for c, ps in enumerate(out):
                ps.discard(c)
            cached = tuple(frozenset(ps) for ps in out)
            object.__setattr__(self, "_peers", cached)  # frozen dataclass: set once, here
        return cached

    @property
    def num_givens(self) -> int:
        return sum(1 for v in self.givens if v)

    @property
    def is_closed(self) -> bool:
        """True when every cell is filled."""
        return all(self.givens)

    def cell_name(self, cell: int) -> str:
        """Human name of a cell, 1-based: ``r3c7`` (or ``l1r3c7`` in 3-D)."""
        coords = []
        rest = cell
        for dim in reversed(self.layout.shape):
            coords.append(rest % dim)
            rest //= dim
        coords.reverse()
        labels = {1: "c", 2: "rc", 3: "lrc"}.get(len(coords), "x" * len(coords))
        return "".join(f"{lab}{x + 1}" for lab, x in zip(labels, coords, strict=True))

    # --- checks ------------------------------------------------------------------------------
    def conflicts(self, board: Sequence[int] | None = None) -> list[str]:
        """Rule violations visible in a (partial) board: out-of-domain values, duplicates in a
        group, violated inequalities. Empty cells (0) are ignored. Returns readable reasons."""
        b = self.givens if board is None else board
        reasons: list[str] = []
        if len(b) != self.ncells:
            return [f"board has {len(b)} cells, expected {self.ncells}"]
        for c, v in enumerate(b):
            if v < 0 or v > self.domain:
                reasons.append(f"{self.cell_name(c)}={v} outside 1..{self.domain}")
        for cells in self.groups:
            seen: dict[int, int] = {}
            for c in cells:
                v = b[c]
                if v:
                    if v in seen:
                        reasons.append(
                            f"value {v} twice in one group ({self.cell_name(seen[v])}, "
                            f"{self.cell_name(c)})"
                        )
                    else:
                        seen[v] = c
        for a, c in self.less_than:
            if b[a] and b[c] and not b[a] < b[c]:
                reasons.append(f"{self.cell_name(a)}={b[a]} not < {self.cell_name(c)}={b[c]}")
        return reasons

    def _plainly_solved(self, board: Sequence[int]) -> bool:
        """Fast acceptance (C-level getters and sets) of a correct board; any doubt goes to the
        detailed check, which explains what is wrong."""
        for g, b in zip(self.givens, board, strict=True):
            if g and g != b:
                return False
        if min(board) < 1 or max(board) > self.domain:
            return False
        for getter, size in self.layout.group_getters:
            if len(set(getter(board))) != size:
                return False
        for cells in self.extra_groups:
            if len({board[c] for c in cells}) != len(cells):
                return False
        return all(board[a] < board[c] for a, c in self.less_than)


    def check_solution(self, board: Sequence[int]) -> list[str]:
        """Why ``board`` is not a solution of this puzzle (empty list: it is one).

        A solution fills every cell, keeps every given, and breaks no rule."""
        if len(board) != self.ncells:
            return [f"board has {len(board)} cells, expected {self.ncells}"]
        if self._plainly_solved(board):
            return []
        reasons = [
            f"{self.cell_name(c)} changed given {g} to {board[c]}"
            for c, g in enumerate(self.givens)
            if g and board[c] != g
        ]
        empty = sum(1 for v in board if not v)
        if empty:
            reasons.append(f"{empty} cells left empty")
        reasons.extend(self.conflicts(board))
        return reasons

    def candidates(self, board: Sequence[int] | None = None) -> list[set[int]]:
        """Values each empty cell may take without breaking a group with a filled peer
        (filled cells get their own value). Inequalities with filled cells are respected."""
        b = self.givens if board is None else board
        full = set(range(1, self.domain + 1))
        peers = self.peers
        out: list[set[int]] = []
        for c, v in enumerate(b):
            if v:
                out.append({v})
                continue
            cand = full - {b[p] for p in peers[c]}
            out.append(cand)
        for a, c in self.less_than:
            if b[c]:
                out[a] = {v for v in out[a] if v < b[c]} if not b[a] else out[a]
            if b[a]:
                out[c] = {v for v in out[c] if v > b[a]} if not b[c] else out[c]
        return out


# --- constructors ---------------------------------------------------------------------------
def box_order_for(size: int) -> int | None:
    """The box order n with n*n == size, or None if size is not a perfect square."""
    n = math.isqrt(size)
    return n if n * n == size and n >= 1 else None


def sudoku(givens: Sequence[int], box: int | None = None) -> Puzzle:
    """A Sudoku from its row-major givens (0 = empty); the box order is inferred if omitted."""
    if box is None:
        side = box_order_for(len(givens))
        box = box_order_for(side) if side else None
        if box is None:
            raise ValueError(f"{len(givens)} cells is not the size of a Sudoku (n^4 cells)")
    return Puzzle(sudoku_layout(box), tuple(givens))


def latin(givens: Sequence[int], n: int | None = None) -> Puzzle:
    """A Latin square completion problem of order n (0 = hole)."""
    if n is None:
        n = box_order_for(len(givens)) or 0
        if n * n != len(givens) or n == 0:
            raise ValueError(f"{len(givens)} cells is not an n x n square")
    return Puzzle(latin_layout(n), tuple(givens))


def futoshiki(
    givens: Sequence[int], n: int, less_than: Sequence[tuple[int, int]] = ()
) -> Puzzle:
    """A Futoshiki of order n: a Latin square plus inequalities between cells."""
    return Puzzle(latin_layout(n), tuple(givens), tuple(less_than), kind=FUTOSHIKI)


# --- 3-D Sudoku and custom groups -----------------------------------------------------------
Coord = tuple[int, int, int]


@lru_cache(maxsize=32)
def sudoku3d_layout(order: int, domain: int | None = None) -> Layout:
    """Rows, columns and stacks of the n²×n²×n² cube of a 3-D Sudoku of order ``order``.

    Cells are ``(layer * N + row) * N + col`` with N = order². ``domain`` defaults to N (every
    line holds each value once); a larger domain (the original used n³) makes lines merely
    all-different."""
    if order < 1:
        raise ValueError(f"3-D order must be >= 1, got {order}")
    n = order * order
    dom = n if domain is None else domain
    if dom < n:
        raise ValueError(f"domain {dom} is smaller than the cube side {n}: lines cannot differ")

    def idx(la: int, r: int, c: int) -> int:
        return (la * n + r) * n + c

    rng = range(n)
    rows = [tuple(idx(la, r, c) for c in rng) for la in rng for r in rng]
    cols = [tuple(idx(la, r, c) for r in rng) for la in rng for c in rng]
    stacks = [tuple(idx(la, r, c) for la in rng) for r in rng for c in rng]
    return Layout(SUDOKU3D, (n, n, n), dom, tuple(rows + cols + stacks))


@lru_cache(maxsize=64)
def custom_layout(shape: tuple[int, ...], domain: int) -> Layout:
    """Cells of a custom instance with no shared groups (its groups are the instance's own)."""
    if domain < 1 or not shape or any(s < 1 for s in shape):
        raise ValueError(f"bad custom layout shape {shape} domain {domain}")
    return Layout(CUSTOM, tuple(shape), domain, ())


def cube_cells(n: int, corner: Coord, size: Coord) -> tuple[int, ...]:
    """Cells of the box with ``corner`` (layer, row, col, 0-based) and ``size`` in a side-n cube."""
    (l0, r0, c0), (sl, sr, sc) = corner, size
    if min(l0, r0, c0) < 0 or l0 + sl > n or r0 + sr > n or c0 + sc > n or min(sl, sr, sc) < 1:
        raise ValueError(f"cube box at {corner} of size {size} leaves the {n}^3 cube")
    return tuple((la * n + r) * n + c for la in range(l0, l0 + sl) for r in range(r0, r0 + sr)
                 for c in range(c0, c0 + sc))


def path_cells(n: int, start: Coord, end: Coord) -> tuple[int, ...]:
    """Cells of the lattice path from vertex ``start`` to ``end`` (both included), moving first
    along layers, then rows, then columns, one step at a time (a straight line when aligned)."""
    for v in (start, end):
        if len(v) != 3 or not all(0 <= x < n for x in v):
            raise ValueError(f"path vertex {v} is outside the {n}^3 cube")
    cur = list(start)
    out = [(cur[0] * n + cur[1]) * n + cur[2]]
    for axis in range(3):
        step = 1 if end[axis] >= cur[axis] else -1
        while cur[axis] != end[axis]:
            cur[axis] += step
            out.append((cur[0] * n + cur[1]) * n + cur[2])
    return tuple(out)


def _as_index(cell: int | Sequence[int], shape: tuple[int, ...]) -> int:
    """A cell given as a flat index or as 0-based coordinates, as a flat index (checked)."""
    total = math.prod(shape)
    if isinstance(cell, int):
        idx = cell
    else:
        coords = list(cell)
        if len(coords) != len(shape) or not all(0 <= x < s for x, s in zip(coords, shape,
                                                                           strict=True)):
            raise ValueError(f"cell {coords} is outside shape {list(shape)}")
        idx = 0
        for x, s in zip(coords, shape, strict=True):
            idx = idx * s + x
    if not 0 <= idx < total:
        raise ValueError(f"cell {cell} is outside 0..{total - 1}")
    return idx


def _check_group(cells: Sequence[int], domain: int, what: str) -> tuple[int, ...]:
    if len(set(cells)) != len(cells):
        raise ValueError(f"{what} lists a cell twice")
    if len(cells) > domain:
        raise ValueError(f"{what} has {len(cells)} cells but only {domain} values exist")
    return tuple(cells)


def sudoku3d(
    order: int,
    givens: Sequence[int] | None = None,
    *,
    domain: int | None = None,
    cube_boxes: Sequence[Coord | tuple[Coord, Coord]] = (),
    path_boxes: Sequence[tuple[Coord, Coord] | tuple[Coord, Coord, str | None]] = (),
    generic_boxes: Sequence[dict[int | Coord, int] | Sequence[tuple[int | Coord, int]]] = (),
) -> Puzzle:
    """A 3-D Sudoku of order n: an n²×n²×n² cube, all-different rows, columns and stacks.

    Optional instance groups (all-different; exactly-once when a group has ``domain`` cells):

    - ``cube_boxes``: a corner ``(l, r, c)`` (a box of n×n×n cells, which needs domain >= n³)
      or ``(corner, (sl, sr, sc))`` for another box size;
    - ``path_boxes``: ``(start, end)`` or ``(start, end, order)``: the lattice path between two
      vertices (:func:`path_cells`); ``order`` ``"asc"``/``"desc"`` also makes the values
      strictly increase/decrease along the path;
    - ``generic_boxes``: cell -> value maps (cells as index or ``(l, r, c)``); 0 means free, any
      other value is a fixed cell (a given).

    Coordinates are 0-based. ``domain`` defaults to n²; the original's n³ is accepted.
    """
    layout = sudoku3d_layout(order, domain)
    n, dom = layout.shape[0], layout.domain
    board = list(givens) if givens is not None else [0] * layout.ncells
    if len(board) != layout.ncells:
        raise ValueError(f"{len(board)} givens for {layout.ncells} cells")
    groups: list[tuple[int, ...]] = []
    less: list[tuple[int, int]] = []
    for i, spec in enumerate(cube_boxes, 1):
        if len(spec) == 2 and not isinstance(spec[0], int):
            corner, size = spec  # type: ignore[misc]
        else:
            corner, size = spec, (order, order, order)
        groups.append(_check_group(cube_cells(n, tuple(corner), tuple(size)), dom,  # type: ignore[arg-type]
                                   f"cube box {i}"))
    for i, spec in enumerate(path_boxes, 1):
        start, end = spec[0], spec[1]
        direction = spec[2] if len(spec) > 2 else None  # type: ignore[misc]
        cells = _check_group(path_cells(n, tuple(start), tuple(end)), dom, f"path box {i}")
        groups.append(cells)
        if direction in ("asc", "desc"):
            seq = cells if direction == "asc" else cells[::-1]
            less.extend(pairwise(seq))
        elif direction is not None:
            raise ValueError(f"path box {i}: order must be 'asc', 'desc' or none, "
                             f"got {direction!r}")
    for i, spec in enumerate(generic_boxes, 1):
        items = spec.items() if isinstance(spec, dict) else spec
        cells = []
        for cell, value in items:
            c = _as_index(cell, layout.shape)
            if not 0 <= value <= dom:
                raise ValueError(f"generic box {i}: value {value} outside 0..{dom}")
            if value:
                if board[c] and board[c] != value:
                    raise ValueError(f"generic box {i}: cell {cell} fixed to {value} "
                                     f"and {board[c]}")
                board[c] = value
            cells.append(c)
        groups.append(_check_group(cells, dom, f"generic box {i}"))
    return Puzzle(layout, tuple(board), tuple(less), tuple(groups))


def custom(
    shape: Sequence[int],
    domain: int,
    groups: Sequence[Sequence[int | Sequence[int]]],
    givens: Sequence[int] | None = None,
    less_than: Sequence[tuple[int | Sequence[int], int | Sequence[int]]] = (),
) -> Puzzle:
    """A puzzle of any shape: cells 1..``domain``, the given all-different ``groups`` (cells as
    flat indices or 0-based coordinates), optional givens and ``a < b`` relations."""
    layout = custom_layout(tuple(shape), domain)
    board = tuple(givens) if givens is not None else (0,) * layout.ncells
    gs = tuple(
        _check_group([_as_index(c, layout.shape) for c in g], domain, f"group {i}")
        for i, g in enumerate(groups, 1)
    )
    lt = tuple((_as_index(a, layout.shape), _as_index(b, layout.shape)) for a, b in less_than)
    return Puzzle(layout, board, lt, gs)
