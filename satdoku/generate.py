"""Seeded generation of labelled boards: complete grids, puzzles, invalid and impossible boards.

One function per job, all over the generic :class:`~satdoku.puzzle.Puzzle` model and all driven
by an explicit ``random.Random`` so that a seed reproduces every board:

- :func:`complete_grid` — a random solved grid (randomised exact search, so every grid of the
  family can appear, e.g. all 288 4x4 Sudoku grids);
- :func:`erase` — an open board with ``holes`` random empty cells (solvable by construction);
- :func:`unique_puzzle` — an open board whose solution is unique (cells removed while unique);
- :func:`corrupt` — a closed invalid board with exactly ``k`` cells changed;
- :func:`row_swap` — a closed invalid board from swapping two cells of one row (a hard
  negative: every row is still a permutation);
- :func:`impossible_board` — an open board with no immediate conflict (no duplicate, no cell
  without candidates) whose unsolvability is proved by the exact search;
- :func:`immediate_problem` — the cheap check used for that ("no immediate conflict").

Sudoku of box order ``n`` is the default family (:func:`empty_sudoku`); every function that
takes a template ``Puzzle`` works for any family built on the model (Latin squares, Futoshiki,
3-D), provided its groups and relations are those of the template.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from satdoku.exact import SearchLimit, count_solutions, iter_solutions
from satdoku.puzzle import Puzzle, sudoku_layout


def empty_sudoku(box: int) -> Puzzle:
    """The empty Sudoku of box order ``box`` (N = box², e.g. 3 → 9x9)."""
    layout = sudoku_layout(box)
    return Puzzle(layout, (0,) * layout.ncells)


def with_board(template: Puzzle, board: Sequence[int]) -> Puzzle:
    """``template``'s layout and relations with ``board`` as its givens."""
    return Puzzle(template.layout, tuple(board), template.less_than, template.extra_groups,
                  template.kind)


def complete_grid(template: Puzzle | int, rng: random.Random) -> Puzzle:
    """A random solution of ``template`` (or of the empty Sudoku of that box order)."""
    base = empty_sudoku(template) if isinstance(template, int) else template
    for sol in iter_solutions(base, rng=rng):
        return with_board(base, sol)
    raise ValueError(f"{base.layout.key} has no solution to start from")


def erase(grid: Puzzle, holes: int, rng: random.Random) -> Puzzle:
    """``grid`` with ``holes`` distinct random cells emptied (solvable: ``grid`` solves it)."""
    if not 0 <= holes <= grid.ncells:
        raise ValueError(f"holes must be in 0..{grid.ncells}, got {holes}")
    board = list(grid.givens)
    for c in rng.sample(range(grid.ncells), holes):
        board[c] = 0
    return with_board(grid, board)


def unique_puzzle(grid: Puzzle, rng: random.Random, min_givens: int = 0) -> Puzzle:
    """Remove cells of ``grid`` in random order while the solution stays unique.

    Stops at ``min_givens`` givens or when no further cell can be removed; the result has
    exactly one solution, ``grid``."""
    board = list(grid.givens)
    order = [c for c in range(grid.ncells) if board[c]]
    rng.shuffle(order)
    filled = len(order)
    for c in order:
        if filled <= min_givens:
            break
        keep = board[c]
        board[c] = 0
        if count_solutions(grid, limit=2, board=board) != 1:
            board[c] = keep
        else:
            filled -= 1
    return with_board(grid, board)


def corrupt(grid: Puzzle, k: int, rng: random.Random) -> Puzzle:
    """``grid`` (closed, valid) with exactly ``k`` cells changed to another value.

    A valid Sudoku grid changed in fewer than 4 cells is never valid again (the smallest
    unavoidable set has 4 cells), and the caller's label check confirms it per board."""
    board = list(grid.givens)
    for c in rng.sample(range(grid.ncells), k):
        board[c] = rng.choice([v for v in range(1, grid.domain + 1) if v != board[c]])
    return with_board(grid, board)


def row_swap(grid: Puzzle, rng: random.Random) -> Puzzle:
    """``grid`` with two cells of one row swapped: rows stay permutations, columns break."""
    n = grid.size
    r = rng.randrange(n)
    a, b = rng.sample(range(n), 2)
    board = list(grid.givens)
    ca, cb = r * n + a, r * n + b
    board[ca], board[cb] = board[cb], board[ca]
    return with_board(grid, board)


def immediate_problem(puzzle: Puzzle) -> str | None:
    """Why ``puzzle`` is visibly broken (a rule violation among the givens, or an empty cell
    with no candidate left), or None when nothing is visible without search."""
    conflicts = puzzle.conflicts()
    if conflicts:
        return conflicts[0]
    for c, cand in enumerate(puzzle.candidates()):
        if not puzzle.givens[c] and not cand:
            return f"{puzzle.cell_name(c)} has no candidate"
    return None


def impossible_board(
    grid: Puzzle, holes: int, rng: random.Random, tries: int = 50, max_nodes: int = 200_000,
    proves_unsolvable: Callable[[Puzzle], bool] | None = None,
) -> Puzzle | None:
    """An open board with no immediate problem but no solution, or None after ``tries``.

    Recipe: erase ``holes`` cells of ``grid``, then fill one empty cell with a candidate that
    differs from ``grid``'s value there; keep the board only if :func:`immediate_problem` sees
    nothing and ``proves_unsolvable`` (default: the exact search, bounded by ``max_nodes``)
    proves it has no solution. A prover that gives up returns False."""

    def exact_proof(trial: Puzzle) -> bool:
        try:
            return count_solutions(trial, limit=1, max_nodes=max_nodes) == 0
        except SearchLimit:
            return False

    prove = proves_unsolvable or exact_proof
    for _ in range(tries):
        base = erase(grid, holes, rng)
        board = list(base.givens)
        cands = base.candidates()
        empties = [c for c in range(grid.ncells) if not board[c]]
        rng.shuffle(empties)
        for c in empties:
            wrong = sorted(v for v in cands[c] if v != grid.givens[c])
            if not wrong:
                continue
            board[c] = rng.choice(wrong)
            trial = with_board(grid, board)
            if immediate_problem(trial) is None and prove(trial):
                return trial
            break  # one attempt per erased board keeps the boards diverse
    return None


def board_string(board: Sequence[int]) -> str:
    """A board as one line, row-major, one character per cell: ``0`` empty, ``1``-``9`` then
    ``A``-``Z`` for 10..35 (the original LTN CSV notation for sizes up to 9)."""
    return "".join(_CHARS[v] for v in board)


def parse_board_string(text: str) -> tuple[int, ...]:
    """Inverse of :func:`board_string`; ``.`` is accepted for empty. Raises ValueError."""
    out = []
    for i, ch in enumerate(text.strip()):
        if ch == ".":
            out.append(0)
            continue
        v = _VALUES.get(ch.upper())
        if v is None:
            raise ValueError(f"character {ch!r} at position {i + 1} is not a cell value")
        out.append(v)
    return tuple(out)


_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_VALUES = {ch: i for i, ch in enumerate(_CHARS)}
