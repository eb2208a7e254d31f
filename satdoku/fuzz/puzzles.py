"""Small random puzzles of every family, and their solutions by brute force.

:func:`small_puzzle` makes a 4x4 Sudoku, a Latin square or Futoshiki of side 3-5, or a 3-D
Sudoku of order 2 from a random solved grid (:mod:`satdoku.generate`), keeps some givens,
and sometimes changes a given or flips a Futoshiki sign, so that puzzles without a solution
appear too.

:func:`brute_solutions` is the oracle: plain enumeration, cell after cell in index order and
value after value, checking only the rules as written (every group all-different, every
``<`` between filled cells). It shares no code with the CSP engine, the encoders or the SAT
counter it judges, and it stops at a limit, so the puzzles stay small.

A puzzle is also a fuzz case: :func:`shrink_puzzle` takes givens, then relations away while
it still fails; :func:`write_puzzle` writes it in the JSON format.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from satdoku import generate as gen
from satdoku.formats.format_registry import FORMATS
from satdoku.fuzz.shrink import Budget, ddmin
from satdoku.puzzle import FUTOSHIKI, LATIN, SUDOKU, SUDOKU3D, Puzzle, futoshiki, sudoku3d

#: the families the fuzzer draws from (3-D: order 2, a 4x4x4 cube)
FAMILIES = (SUDOKU, LATIN, FUTOSHIKI, SUDOKU3D)


def small_puzzle(rng: random.Random, family: str | None = None, side: int | None = None
                 ) -> Puzzle:
    """A small puzzle of ``family`` (default: any; Latin and Futoshiki of ``side``, default
    3-5), solvable or not (see the module docstring)."""
    family = family or rng.choice(FAMILIES)
    if family == SUDOKU3D:
        template = sudoku3d(2)
    elif family == SUDOKU:
        template = gen.empty_puzzle(SUDOKU, 2)
    else:
        template = gen.empty_puzzle(LATIN, side or rng.randint(3, 5))
    grid = gen.complete_grid(template, rng).givens
    keep = rng.uniform(0.1, 0.8)
    board = [v if rng.random() < keep else 0 for v in grid]
    for _ in range(rng.choice((0, 0, 0, 1, 2))):  # a changed given: maybe no solution
        board[rng.randrange(len(board))] = rng.randint(1, template.domain)
    if family != FUTOSHIKI:
        return gen.with_board(template, board)
    n = template.size
    pairs = [(r * n + c, r * n + c + 1) for r in range(n) for c in range(n - 1)]
    pairs += [(r * n + c, (r + 1) * n + c) for r in range(n - 1) for c in range(n)]
    less = []
    for a, b in rng.sample(pairs, rng.randint(0, len(pairs) // 2)):
        true = (grid[a] < grid[b]) != (rng.random() < 0.1)  # a few wrong signs
        less.append((a, b) if true else (b, a))
    return futoshiki(board, n, sorted(less))


def brute_solutions(puzzle: Puzzle, limit: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every solution of ``puzzle`` (at most ``limit``), by plain enumeration in cell order."""
    n, dom = puzzle.ncells, puzzle.domain
    peers: list[list[int]] = [[] for _ in range(n)]
    for cells in puzzle.groups:
        for a in cells:
            peers[a].extend(b for b in cells if b != a)
    below: list[list[int]] = [[] for _ in range(n)]  # cells that must hold a smaller value
    above: list[list[int]] = [[] for _ in range(n)]
    for a, b in puzzle.less_than:
        below[b].append(a)
        above[a].append(b)
    board = list(puzzle.givens)
    if puzzle.conflicts(board):
        return
    found = 0

    def fits(c: int, v: int) -> bool:
        return (all(board[p] != v for p in peers[c])
                and all(not board[p] or board[p] < v for p in below[c])
                and all(not board[p] or board[p] > v for p in above[c]))  # fmt: skip

    def fill(c: int) -> Iterator[tuple[int, ...]]:
        nonlocal found
        while c < n and puzzle.givens[c]:
            c += 1
        if c == n:
            found += 1
            yield tuple(board)
            return
        for v in range(1, dom + 1):
            if fits(c, v):
                board[c] = v
                yield from fill(c + 1)
                board[c] = 0
                if limit is not None and found >= limit:
                    return

    for solution in fill(0):
        yield solution
        if limit is not None and found >= limit:
            return


def brute_count(puzzle: Puzzle, limit: int) -> int:
    """Solutions of ``puzzle`` up to ``limit`` (``limit`` means "at least")."""
    return sum(1 for _ in brute_solutions(puzzle, limit))


# --- puzzles as fuzz cases ---------------------------------------------------------------------
def puzzle_make(rng: random.Random, kind: str = "puzzles") -> Puzzle:
    return small_puzzle(rng)


def shrink_puzzle(puzzle: Puzzle, fails: Callable[[Any], bool], budget: Budget) -> Puzzle:
    """Fewer givens (ddmin over the filled cells), then fewer ``<`` relations."""
    filled = [(c, v) for c, v in enumerate(puzzle.givens) if v]

    def with_givens(kept: list[tuple[int, int]]) -> Puzzle:
        board = [0] * puzzle.ncells
        for c, v in kept:
            board[c] = v
        return replace(puzzle, givens=tuple(board))

    puzzle = with_givens(ddmin(filled, lambda k: fails(with_givens(k)), budget))
    if puzzle.less_than:
        less = ddmin(puzzle.less_than, lambda ls: fails(replace(puzzle, less_than=tuple(ls))),
                     budget)  # fmt: skip
        puzzle = replace(puzzle, less_than=tuple(less))
    return puzzle


def write_puzzle(prefix: str, puzzle: Puzzle, comments: list[str]) -> list[str]:
    """The puzzle in the JSON format (any family), one object on one line."""
    path = prefix + ".json"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(FORMATS["json"].write([puzzle]))  # type: ignore[misc]
    return [path]
