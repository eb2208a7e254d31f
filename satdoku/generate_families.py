"""Seeded generation and solution counting for every family: Sudoku, Latin, Futoshiki, 3-D.

Complements :mod:`satdoku.generate` (Sudoku-first, exact bitmask search) with a faster counter
for families whose structure the bitmask search handles poorly (Futoshiki chains, Latin cubes):

- :func:`count_solutions` — up to ``limit`` solutions by CSP search (MAC + MRV) or by SAT with
  blocking clauses (python-sat MiniSat on the extended encoding);
- :func:`empty_puzzle`, :func:`complete_grid` — random complete grids (CSP search, shuffled
  values, so a seed reproduces a grid);
- :func:`futoshiki_from_grid` — a Futoshiki instance: a grid's values at some cells and the
  true ``<`` between some neighbouring cells;
- :func:`unique_puzzle` — givens (and, for Futoshiki, relations) removed while exactly one
  solution remains;
- :func:`impossible_board` — an open board with no immediate conflict and no empty-candidate
  cell, yet no solution (proved by a complete count);
- :func:`completion_instance` — the Latin / Futoshiki instances of the largest-n experiment.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from satdoku.generate import erase, with_board
from satdoku.generate import impossible_board as _impossible_board
from satdoku.puzzle import (
    FUTOSHIKI,
    LATIN,
    SUDOKU,
    SUDOKU3D,
    Puzzle,
    futoshiki,
    latin,
    sudoku,
    sudoku3d,
)

FAMILIES = (SUDOKU, LATIN, FUTOSHIKI, SUDOKU3D)


class CountLimit(Exception):
    """Counting could not finish within its time limit."""


# --- counting -------------------------------------------------------------------------------
def iter_solutions_csp(puzzle: Puzzle, time_limit: float | None = None,
                       rng: random.Random | None = None) -> Iterator[tuple[int, ...]]:
    """Solutions by CSP search (MAC + MRV); raises CountLimit at the time limit."""
    from satdoku.solvers.csp import CspSolver, SearchTimeout

    try:
        yield from CspSolver("mac", "mrv").iter_solutions(puzzle, time_limit, rng)
    except SearchTimeout as exc:
        raise CountLimit(str(exc)) from None


def iter_solutions_sat(puzzle: Puzzle, time_limit: float | None = None
                       ) -> Iterator[tuple[int, ...]]:
    """Solutions by SAT: solve, block the board found (a clause forbidding its free cells'
    values), solve again. Each board is decoded and checked."""
    import threading
    import time

    from pysat.solvers import Solver

    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode

    cnf = encode(puzzle, "extended")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    dom = puzzle.domain
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        while True:
            timer = None
            if deadline is not None:
                timer = threading.Timer(max(0.0, deadline - time.perf_counter()), s.interrupt)
                timer.start()
            answer = s.solve_limited(expect_interrupt=True)
            if timer is not None:
                timer.cancel()
            if answer is None:
                raise CountLimit("time limit")
            if not answer:
                return
            board = decode_model(s.get_model(), puzzle)
            if puzzle.check_solution(board):
                raise AssertionError("SAT counting decoded a board that is not a solution")
            yield board
            block = [-(c * dom + v) for c, v in enumerate(board) if not puzzle.givens[c]]
            if not block:
                return  # a closed board has only itself
            s.add_clause(block)


def count_solutions(puzzle: Puzzle, limit: int = 2, method: str = "csp",
                    time_limit: float | None = None) -> int:
    """Number of solutions, stopping at ``limit``; ``method`` ``csp`` or ``sat``.
    Raises CountLimit when the time limit ends the count early."""
    if method not in ("csp", "sat"):
        raise ValueError(f"method must be 'csp' or 'sat', got {method!r}")
    it = (iter_solutions_csp(puzzle, time_limit) if method == "csp"
          else iter_solutions_sat(puzzle, time_limit))
    n = 0
    for _ in it:
        n += 1
        if n >= limit:
            break
    return n


# --- grids ----------------------------------------------------------------------------------
def empty_puzzle(family: str, n: int, **options: Any) -> Puzzle:
    """The empty puzzle of a family: ``n`` is the side (Latin/Futoshiki), the box order
    (Sudoku: 3 -> 9x9) or the order (3-D: 2 -> 4x4x4); 3-D options go to
    :func:`~satdoku.puzzle.sudoku3d` (domain, boxes)."""
    if family == SUDOKU:
        return sudoku([0] * n**4, n)
    if family == LATIN:
        return latin([0] * n * n, n)
    if family == FUTOSHIKI:
        return futoshiki([0] * n * n, n)
    if family == SUDOKU3D:
        return sudoku3d(n, **options)
    raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")


def complete_grid(template: Puzzle, rng: random.Random, time_limit: float | None = 60) -> Puzzle:
    """A random solution of ``template`` (its layout, groups and relations kept).

    Plain Sudoku/Latin layouts use the exact bitmask search with shuffled values (every grid
    can appear); a plain empty 3-D cube is a random isotope of the cyclic cube (random
    permutations of layers, rows, columns and symbols: random search thrashes on Latin cubes);
    anything with relations or instance groups is filled by CSP search with shuffled values."""
    plain = not template.less_than and not template.extra_groups
    if plain and template.kind in (SUDOKU, LATIN, FUTOSHIKI):
        from satdoku.generate import complete_grid as exact_grid

        return exact_grid(template, rng)
    if plain and template.kind == SUDOKU3D and not any(template.givens):
        n = template.size
        perm_l, perm_r, perm_c = (rng.sample(range(n), n) for _ in range(3))
        symbols = rng.sample(range(1, template.domain + 1), n)
        board = [symbols[(perm_l[la] + perm_r[r] + perm_c[c]) % n]
                 for la in range(n) for r in range(n) for c in range(n)]
        return with_board(template, board)
    for sol in iter_solutions_csp(template, time_limit, rng):
        return with_board(template, sol)
    raise ValueError(f"{template.layout.key} has no solution to start from")


def _neighbour_pairs(p: Puzzle) -> list[tuple[int, int]]:
    rows, cols = p.layout.shape[0], p.layout.shape[1]
    out = []
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            if c + 1 < cols:
                out.append((cell, cell + 1))
            if r + 1 < rows:
                out.append((cell, cell + cols))
    return out


def futoshiki_from_grid(grid: Puzzle, rng: random.Random, givens: float = 0.0,
                        relations: float = 0.3) -> Puzzle:
    """A Futoshiki whose solution includes ``grid``: a fraction ``givens`` of its cells and the
    true inequality between a fraction ``relations`` of neighbouring cell pairs."""
    b = grid.givens
    pairs = _neighbour_pairs(grid)
    chosen = rng.sample(pairs, round(relations * len(pairs)))
    less = [(a, c) if b[a] < b[c] else (c, a) for a, c in sorted(chosen)]
    keep = set(rng.sample(range(grid.ncells), round(givens * grid.ncells)))
    board = [v if i in keep else 0 for i, v in enumerate(b)]
    return futoshiki(board, grid.size, less)


def unique_puzzle(grid: Puzzle, rng: random.Random, min_givens: int = 0,
                  drop_relations: bool = True, time_limit: float | None = 10) -> Puzzle:
    """Remove givens of ``grid`` (a solved board, possibly with relations — for Futoshiki use
    :func:`futoshiki_from_grid` with ``givens=1``) in random order while the solution stays
    unique, then (``drop_relations``) relations too. The result has exactly one
    solution: ``grid``'s board. A removal whose check runs out of time is kept undone."""
    if not grid.is_closed or grid.check_solution(grid.givens):
        raise ValueError("unique_puzzle starts from a solved board (every cell given)")
    solution = grid.givens
    board = list(grid.givens)
    less = list(grid.less_than)

    def unique(bd: list[int], lt: list[tuple[int, int]]) -> bool:
        p = Puzzle(grid.layout, tuple(bd), tuple(lt), grid.extra_groups, grid.kind)
        try:
            return count_solutions(p, 2, "csp", time_limit) == 1
        except CountLimit:
            return False

    order = [c for c in range(grid.ncells) if board[c]]
    rng.shuffle(order)
    filled = len(order)
    for c in order:
        if filled <= min_givens:
            break
        keep, board[c] = board[c], 0
        if unique(board, less):
            filled -= 1
        else:
            board[c] = keep
    if drop_relations and less:
        for rel in rng.sample(less, len(less)):
            less.remove(rel)
            if not unique(board, less):
                less.append(rel)
        less.sort()
    out = Puzzle(grid.layout, tuple(board), tuple(less), grid.extra_groups, grid.kind)
    if out.check_solution(solution):
        raise AssertionError("unique_puzzle lost the grid's solution")
    return out


def impossible_board(grid: Puzzle, holes: int, rng: random.Random, tries: int = 50,
                     time_limit: float | None = 10) -> Puzzle | None:
    """An open board with no immediate problem (no conflict, no empty-candidate cell; for
    Futoshiki the relations included) but no solution, or None after ``tries``: the recipe of
    :func:`satdoku.generate.impossible_board`, with a complete CSP count as the proof."""

    def csp_proof(trial: Puzzle) -> bool:
        try:
            return count_solutions(trial, 1, "csp", time_limit) == 0
        except CountLimit:
            return False

    return _impossible_board(grid, holes, rng, tries, proves_unsolvable=csp_proof)


def completion_instance(family: str, n: int, seed: int, holes: float = 0.5,
                        givens: float = 0.0, relations: float = 0.3) -> Puzzle:
    """A solvable instance of the largest-n experiment, reproducible from ``seed``.

    Latin: a random Latin square of order n with a fraction ``holes`` of its cells emptied
    (completion). Futoshiki: a random grid's true ``<`` between a fraction ``relations`` of
    neighbouring cells plus a fraction ``givens`` of its values."""
    rng = random.Random(f"{family}-{n}-{seed}")
    grid = complete_grid(empty_puzzle(LATIN, n), rng)
    if family == LATIN:
        return latin(erase(grid, round(holes * grid.ncells), rng).givens, n)
    if family == FUTOSHIKI:
        return futoshiki_from_grid(grid, rng, givens, relations)
    raise ValueError(f"the experiment covers latin and futoshiki, not {family!r}")
