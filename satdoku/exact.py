"""Exact search over the generic puzzle model: count, enumerate or find solutions.

A small, dependency-free bitmask backtracking solver (most-constrained cell first). It is the
ground truth for the generator's labels and the last resort of ``satdoku classify``, so it must
be exact rather than fast: every answer is a complete search or a verified board. It works on any
:class:`~satdoku.puzzle.Puzzle` (all-different groups plus ``less_than`` relations), which makes it
usable for Latin squares and Futoshiki too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from satdoku.puzzle import Puzzle


@dataclass
class SearchStats:
    """Counters of one search (nodes = value assignments tried)."""

    nodes: int = 0
    complete: bool = True  # False when stopped by ``max_nodes``


class SearchLimit(Exception):
    """Raised internally when a search exceeds its node budget."""


def bit_values(mask: int) -> list[int]:
    """The values whose bits (1 << (v - 1)) are set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return out


class _Search:
    """Backtracking state for one puzzle; values are bits 1<<(v-1)."""

    def __init__(self, puzzle: Puzzle, board: Sequence[int] | None, rng: random.Random | None,
                 max_nodes: int | None) -> None:
        self.p = puzzle
        self.board = list(puzzle.givens if board is None else board)
        self.full = (1 << puzzle.domain) - 1
        groups = puzzle.groups
        self.groups_of: list[list[int]] = [[] for _ in range(puzzle.ncells)]
        for g, cells in enumerate(groups):
            for c in cells:
                self.groups_of[c].append(g)
        self.used = [0] * len(groups)
        self.less: list[list[int]] = [[] for _ in range(puzzle.ncells)]  # c < other
        self.more: list[list[int]] = [[] for _ in range(puzzle.ncells)]  # c > other
        for a, b in puzzle.less_than:
            self.less[a].append(b)
            self.more[b].append(a)
        self.rng = rng
        self.max_nodes = max_nodes
        self.stats = SearchStats()
        self.consistent = True
        for c, v in enumerate(self.board):
            if v:
                bit = 1 << (v - 1)
                if v > puzzle.domain or any(self.used[g] & bit for g in self.groups_of[c]):
                    self.consistent = False
                for g in self.groups_of[c]:
                    self.used[g] |= bit
        if puzzle.conflicts(self.board):
            self.consistent = False
        self.empty = [c for c, v in enumerate(self.board) if not v]

    def candidates(self, c: int) -> int:
        m = self.full
        for g in self.groups_of[c]:
            m &= ~self.used[g]
        if self.less[c] or self.more[c]:
            for o in self.less[c]:
                if self.board[o]:
                    m &= (1 << (self.board[o] - 1)) - 1  # values < board[o]
            for o in self.more[c]:
                if self.board[o]:
                    m &= ~((1 << self.board[o]) - 1)  # values > board[o]
        return m

    def solutions(self) -> Iterator[tuple[int, ...]]:
        if not self.consistent:
            return
        yield from self._dfs()

    def _dfs(self) -> Iterator[tuple[int, ...]]:
        if not self.empty:
            yield tuple(self.board)
            return
        best_i, best_m, best_n = -1, 0, 99
        for i, c in enumerate(self.empty):
            m = self.candidates(c)
            n = m.bit_count()
            if n < best_n:
                best_i, best_m, best_n = i, m, n
                if n <= 1:
                    break
        if best_n == 0:
            return
        c = self.empty[best_i]
        self.empty[best_i] = self.empty[-1]
        self.empty.pop()
        values = bit_values(best_m)
        if self.rng is not None:
            self.rng.shuffle(values)
        gs = self.groups_of[c]
        for v in values:
            self.stats.nodes += 1
            if self.max_nodes is not None and self.stats.nodes > self.max_nodes:
                self.stats.complete = False
                raise SearchLimit
            bit = 1 << (v - 1)
            self.board[c] = v
            for g in gs:
                self.used[g] |= bit
            yield from self._dfs()
            for g in gs:
                self.used[g] &= ~bit
            self.board[c] = 0
        self.empty.append(c)
        last = len(self.empty) - 1
        self.empty[best_i], self.empty[last] = self.empty[last], self.empty[best_i]


def iter_solutions(
    puzzle: Puzzle,
    board: Sequence[int] | None = None,
    rng: random.Random | None = None,
    max_nodes: int | None = None,
) -> Iterator[tuple[int, ...]]:
    """Every solution of ``puzzle`` (starting from ``board`` if given), lazily.

    ``rng`` shuffles the value order (random complete grids); ``max_nodes`` bounds the search
    and raises :class:`SearchLimit` when exceeded."""
    yield from _Search(puzzle, board, rng, max_nodes).solutions()


def count_solutions(
    puzzle: Puzzle, limit: int = 2, board: Sequence[int] | None = None,
    max_nodes: int | None = None,
) -> int:
    """Number of solutions, counting stops at ``limit`` (``limit=2`` answers "unique?").

    Raises :class:`SearchLimit` if ``max_nodes`` is given and exceeded."""
    n = 0
    for _ in iter_solutions(puzzle, board, max_nodes=max_nodes):
        n += 1
        if n >= limit:
            break
    return n


def solve(
    puzzle: Puzzle, board: Sequence[int] | None = None, max_nodes: int | None = None
) -> tuple[int, ...] | None:
    """One solution (checked against the puzzle) or None when there is none."""
    for sol in iter_solutions(puzzle, board, max_nodes=max_nodes):
        problems = puzzle.check_solution(sol)
        if problems:  # cannot happen unless the search is broken; never return a bad board
            raise AssertionError(f"exact search produced an invalid board: {problems[:3]}")
        return sol
    return None


def solve_with_stats(
    puzzle: Puzzle, board: Sequence[int] | None = None, max_nodes: int | None = None
) -> tuple[tuple[int, ...] | None, SearchStats]:
    """Like :func:`solve` but also returns the node count; on a node-budget stop the board is
    None and ``stats.complete`` is False."""
    s = _Search(puzzle, board, None, max_nodes)
    try:
        sol = next(iter(s.solutions()), None)
    except SearchLimit:
        return None, s.stats
    if sol is not None and puzzle.check_solution(sol):
        raise AssertionError("exact search produced an invalid board")
    return sol, s.stats
