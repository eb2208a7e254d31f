"""Seeded generation of labelled boards for every family (Sudoku of any box order, Latin,
Futoshiki, 3-D), and the one solution counter behind every generator promise.

One function per job, all over the generic :class:`~satdoku.puzzle.Puzzle` model and all driven
by an explicit ``random.Random`` so that a seed reproduces every board:

- :class:`SolutionCounter` / :func:`count_solutions`: solutions up to K, by CSP search (the
  exact engine of :mod:`satdoku.solvers.csp`) or by SAT (:mod:`satdoku.solvers.sat_count`);
  node budgets and deadlines end a count with :class:`~satdoku.solvers.csp.SearchLimit`;
- :func:`empty_puzzle`, :func:`complete_grid`: random solved grids (randomised search, so e.g.
  all 288 4x4 Sudoku grids can appear; a random isotope of the cyclic cube for an empty 3-D
  cube; a random symmetry of the pattern grid for Sudoku of box order 5 and up);
- :func:`erase`: an open board with ``holes`` random empty cells (solvable by construction);
- :func:`futoshiki_from_grid`: a grid's values and the true ``<`` between neighbouring cells;
- :func:`unique_puzzle`: givens (then relations) removed while the solution stays unique;
- :func:`corrupt`, :func:`row_swap`: closed invalid boards (k changed cells; a same-row swap);
- :func:`impossible_board`: an open board with no immediate problem but no solution, proved
  by a complete count; :func:`immediate_problem` is that cheap check;
- :func:`completion_instance`: the Latin / Futoshiki instances of the largest-n experiment.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

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
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import SearchLimit, iter_solutions
from satdoku.solvers.sat_count import SatCounter, puzzle_solutions

FAMILIES = (SUDOKU, LATIN, FUTOSHIKI, SUDOKU3D)
METHODS = ("auto", "csp", "sat")
#: ``auto`` counts puzzles up to this many cells by CSP search, larger ones by SAT (on a 16x16
#: Sudoku proving uniqueness by search takes about a second per check, MiniSat milliseconds).
AUTO_CSP_CELLS = 100
#: Sudoku box order from which complete grids come from the pattern grid, not from search.
PATTERN_BOX = 5


# --- counting -------------------------------------------------------------------------------
def search_options(puzzle: Puzzle) -> dict[str, Any]:
    """The engine options the generator counts and fills ``puzzle`` with: plain backtracking
    with MRV, ties to the first cell, for plain layouts (cheapest per node), MAC for relations
    and instance groups (inequality chains and cube boxes need the propagation)."""
    plain = not puzzle.less_than and not puzzle.extra_groups
    return {"inference": "bt" if plain else "mac", "ordering": "mrv", "degree": False}


class SolutionCounter:
    """How the generator counts solutions: ``csp`` (exact search; ``max_nodes`` bounds each
    count), ``sat`` (MiniSat with blocking clauses, the layout's rules kept loaded across
    counts) or ``auto`` (``csp`` up to :data:`AUTO_CSP_CELLS` cells, ``sat`` above).
    ``seconds`` bounds each count by the clock. Counts are exact; a count stopped by a limit
    raises :class:`SearchLimit`."""

    def __init__(self, method: str = "csp", max_nodes: int | None = None,
                 seconds: float | None = None) -> None:
        if method not in METHODS:
            raise ValueError(f"counting method must be one of {METHODS}, got {method!r}")
        self.method, self.max_nodes, self.seconds = method, max_nodes, seconds
        self._sat: Any = None

    def count(self, puzzle: Puzzle, limit: int = 2, deadline: Deadline | None = None) -> int:
        """Solutions of ``puzzle`` up to ``limit``, before the sooner of ``deadline`` and this
        counter's own ``seconds``."""
        if self.seconds is not None:
            own = Deadline(self.seconds)
            if deadline is None or deadline.at is None or (own.at or 0) < deadline.at:
                deadline = own
        n = 0
        if limit < 1:
            return 0
        method = self.method
        if method == "auto":
            method = "csp" if puzzle.ncells <= AUTO_CSP_CELLS else "sat"
        if method == "csp":
            boards = iter_solutions(puzzle, max_nodes=self.max_nodes, deadline=deadline,
                                    **search_options(puzzle))
        else:
            self._sat = self._sat or SatCounter()
            boards = puzzle_solutions(self._sat, puzzle, deadline)
        for _ in boards:
            n += 1
            if n >= limit:
                break
        return n

    def decides(self, puzzle: Puzzle, limit: int, want: int,
                deadline: Deadline | None = None) -> bool:
        """True when the count up to ``limit`` is ``want``; False too when a limit stops it
        (a promise that could not be proved is not kept)."""
        try:
            return self.count(puzzle, limit, deadline) == want
        except SearchLimit:
            return False

    def close(self) -> None:
        if self._sat is not None:
            self._sat.close()
            self._sat = None


def as_counter(counter: SolutionCounter | str) -> SolutionCounter:
    """A :class:`SolutionCounter` from a counter or a method name."""
    return counter if isinstance(counter, SolutionCounter) else SolutionCounter(counter)


def count_solutions(puzzle: Puzzle, limit: int = 2, method: str = "csp",
                    deadline: Deadline | None = None, max_nodes: int | None = None) -> int:
    """Number of solutions of ``puzzle``, counting stops at ``limit`` (``limit=2`` answers
    "unique?"); ``method`` ``csp`` or ``sat``. Raises :class:`SearchLimit` at a limit."""
    counter = SolutionCounter(method, max_nodes)
    try:
        return counter.count(puzzle, limit, deadline)
    finally:
        counter.close()


# --- grids ----------------------------------------------------------------------------------
def empty_puzzle(family: str, n: int, **options: Any) -> Puzzle:
    """The empty puzzle of a family: ``n`` is the box order (Sudoku: 3 -> 9x9), the side
    (Latin, Futoshiki) or the order (3-D: 2 -> 4x4x4); 3-D options go to
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


def with_board(template: Puzzle, board: Sequence[int]) -> Puzzle:
    """``template``'s layout and relations with ``board`` as its givens."""
    return Puzzle(template.layout, tuple(board), template.less_than, template.extra_groups,
                  template.kind)


def _random_perm_within_blocks(box: int, rng: random.Random) -> list[int]:
    """A random order of the N = box² lines that keeps bands (stacks) together: blocks
    shuffled, lines shuffled within each block."""
    out = []
    for band in rng.sample(range(box), box):
        out.extend(band * box + r for r in rng.sample(range(box), box))
    return out


def pattern_grid(box: int, rng: random.Random) -> tuple[int, ...]:
    """A random Sudoku grid of box order ``box`` in time linear in its cells: the pattern grid
    value(r, c) = (box·(r mod box) + r div box + c) mod N, then seeded symmetries (bands and
    rows within them, stacks and columns within them, a transposition, a relabelling of the
    values). Every grid of this orbit can appear; grids outside it cannot."""
    n = box * box
    rows, cols = _random_perm_within_blocks(box, rng), _random_perm_within_blocks(box, rng)
    symbols = rng.sample(range(1, n + 1), n)
    base = [[(box * (r % box) + r // box + c) % n for c in range(n)] for r in range(n)]
    grid = [[symbols[base[rows[r]][cols[c]]] for c in range(n)] for r in range(n)]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return tuple(v for row in grid for v in row)


def complete_grid(template: Puzzle | int, rng: random.Random,
                  deadline: Deadline | None = None) -> Puzzle:
    """A random solution of ``template`` (its layout, groups and relations kept); an int is the
    box order of an empty Sudoku. Raises ValueError when the template has no solution and
    :class:`SearchLimit` when ``deadline`` passes first."""
    base = empty_puzzle(SUDOKU, template) if isinstance(template, int) else template
    plain = not base.less_than and not base.extra_groups and not any(base.givens)
    box = base.layout.box
    if plain and base.kind == SUDOKU and box is not None and box >= PATTERN_BOX:
        return with_board(base, pattern_grid(box, rng))
    if plain and base.kind == SUDOKU3D:
        n = base.size
        perm_l, perm_r, perm_c = (rng.sample(range(n), n) for _ in range(3))
        symbols = rng.sample(range(1, base.domain + 1), n)
        board = [symbols[(perm_l[la] + perm_r[r] + perm_c[c]) % n]
                 for la in range(n) for r in range(n) for c in range(n)]
        return with_board(base, board)
    for sol in iter_solutions(base, rng=rng, deadline=deadline, **search_options(base)):
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
                  counter: SolutionCounter | str = "csp", drop_relations: bool = True,
                  deadline: Deadline | None = None) -> Puzzle:
    """Remove givens of ``grid`` (a solved board, possibly with relations: for Futoshiki use
    :func:`futoshiki_from_grid` with ``givens=1``) in random order while the solution stays
    unique, then (``drop_relations``) relations too. Stops at ``min_givens`` givens, when
    nothing more can go, or at ``deadline``. A removal whose count hits a limit of
    ``counter`` is undone, so the result always has exactly one solution: ``grid``'s board."""
    if not grid.is_closed or grid.check_solution(grid.givens):
        raise ValueError("unique_puzzle starts from a solved board (every cell given)")
    count = as_counter(counter)
    solution = grid.givens
    board = list(grid.givens)
    less = list(grid.less_than)

    def unique() -> bool:
        p = Puzzle(grid.layout, tuple(board), tuple(less), grid.extra_groups, grid.kind)
        return count.decides(p, 2, 1, deadline)

    order = [c for c in range(grid.ncells) if board[c]]
    rng.shuffle(order)
    filled = len(order)
    for c in order:
        if filled <= min_givens or (deadline is not None and deadline.expired()):
            break
        keep, board[c] = board[c], 0
        if unique():
            filled -= 1
        else:
            board[c] = keep
    if drop_relations and less:
        for rel in rng.sample(less, len(less)):
            if deadline is not None and deadline.expired():
                break
            less.remove(rel)
            if not unique():
                less.append(rel)
        less.sort()
    out = Puzzle(grid.layout, tuple(board), tuple(less), grid.extra_groups, grid.kind)
    if out.check_solution(solution):
        raise AssertionError("unique_puzzle lost the grid's solution")
    return out


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
    with no candidate left, inequalities with filled cells included), or None when nothing is
    visible without search."""
    conflicts = puzzle.conflicts()
    if conflicts:
        return conflicts[0]
    for c, cand in enumerate(puzzle.candidates()):
        if not puzzle.givens[c] and not cand:
            return f"{puzzle.cell_name(c)} has no candidate"
    return None


#: The default proof of unsolvability of :func:`impossible_board`: an exact count with a node
#: budget (deterministic, so a seed reproduces the boards; a proof that gives up rejects).
IMPOSSIBLE_NODES = 200_000


def impossible_board(grid: Puzzle, holes: int, rng: random.Random, tries: int = 50,
                     counter: SolutionCounter | str | None = None,
                     deadline: Deadline | None = None) -> Puzzle | None:
    """An open board with no immediate problem but no solution, or None after ``tries`` (or
    once ``deadline`` has passed).

    Recipe: erase ``holes`` cells of ``grid``, then fill one empty cell with a candidate that
    differs from ``grid``'s value there; keep the board only if :func:`immediate_problem` sees
    nothing and ``counter`` (default: CSP search with a budget of :data:`IMPOSSIBLE_NODES`
    nodes) counts no solution. A count that hits a limit rejects the board."""
    count = as_counter(counter) if counter is not None else SolutionCounter("csp", IMPOSSIBLE_NODES)
    for _ in range(tries):
        if deadline is not None and deadline.expired():
            break
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
            if immediate_problem(trial) is None and count.decides(trial, 1, 0, deadline):
                return trial
            break  # one attempt per erased board keeps the boards diverse
    return None


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
