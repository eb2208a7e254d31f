"""Generator and exact search: every label the LTN data sets rely on is checked here."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from satdoku import generate as gen
from satdoku.exact import SearchLimit, count_solutions, solve
from satdoku.puzzle import latin, sudoku

DATA = Path(__file__).resolve().parents[1] / "data" / "public"


@pytest.mark.parametrize("box", [2, 3])
def test_complete_grids_are_valid_and_seeded(box: int) -> None:
    a = [gen.complete_grid(box, random.Random(7)).givens for _ in range(3)]
    assert a[0] == a[1] == a[2]  # same seed, same grid
    rng = random.Random(1)
    for _ in range(20):
        g = gen.complete_grid(box, rng)
        assert g.is_closed and g.check_solution(g.givens) == []


def test_all_288_4x4_grids_are_reachable() -> None:
    rng = random.Random(3)
    grids = {gen.complete_grid(2, rng).givens for _ in range(4000)}
    assert len(grids) == 288


def test_count_solutions_known_values() -> None:
    assert count_solutions(gen.empty_sudoku(2), limit=10_000) == 288
    assert count_solutions(latin([0] * 9, 3), limit=100) == 12
    # a real 17-clue puzzle (unique) from the tdoku benchmark set
    line = next(
        ln
        for ln in (DATA / "tdoku_benchmarks" / "puzzles2_17_clue_2000.txt").read_text().splitlines()
        if ln and not ln.startswith("#")
    )
    p = sudoku(gen.parse_board_string(line[:81]))
    assert p.num_givens == 17
    assert count_solutions(p, limit=2) == 1
    sol = solve(p)
    assert sol is not None and p.check_solution(sol) == []


def test_search_budget_is_reported() -> None:
    with pytest.raises(SearchLimit):
        count_solutions(gen.empty_sudoku(3), limit=10**9, max_nodes=50)


def test_unique_puzzle_has_one_solution() -> None:
    rng = random.Random(5)
    for box in (2, 3):
        grid = gen.complete_grid(box, rng)
        p = gen.unique_puzzle(grid, rng)
        assert not p.is_closed
        assert count_solutions(p, limit=2) == 1
        assert solve(p) == grid.givens


@pytest.mark.parametrize("k", [1, 2, 3])
def test_corrupt_changes_exactly_k_cells_and_breaks_the_grid(k: int) -> None:
    rng = random.Random(k)
    for _ in range(50):
        grid = gen.complete_grid(3, rng)
        bad = gen.corrupt(grid, k, rng)
        assert sum(a != b for a, b in zip(grid.givens, bad.givens, strict=True)) == k
        assert bad.is_closed and bad.conflicts()


def test_row_swap_keeps_rows_but_breaks_grid() -> None:
    rng = random.Random(9)
    for _ in range(50):
        bad = gen.row_swap(gen.complete_grid(2, rng), rng)
        n = bad.size
        assert all(sorted(bad.givens[r * n:(r + 1) * n]) == list(range(1, n + 1))
                   for r in range(n))
        assert bad.conflicts()


@pytest.mark.parametrize(("box", "holes"), [(2, 8), (3, 45)])
def test_impossible_boards_are_quiet_and_unsolvable(box: int, holes: int) -> None:
    rng = random.Random(11)
    made = 0
    for _ in range(30):
        p = gen.impossible_board(gen.complete_grid(box, rng), holes, rng)
        if p is None:
            continue
        made += 1
        assert gen.immediate_problem(p) is None
        assert count_solutions(p, limit=1) == 0
        assert solve(p) is None
    assert made >= 20


def test_erase_is_solvable() -> None:
    rng = random.Random(2)
    grid = gen.complete_grid(3, rng)
    p = gen.erase(grid, 50, rng)
    assert sum(1 for v in p.givens if not v) == 50
    assert count_solutions(p, limit=1) == 1
    with pytest.raises(ValueError):
        gen.erase(grid, 82, rng)


def test_board_string_round_trip() -> None:
    board = (0, 1, 9, 10, 16, 35)
    assert gen.parse_board_string(gen.board_string(board)) == board
    assert gen.parse_board_string("1.3.") == (1, 0, 3, 0)
    with pytest.raises(ValueError, match="position 2"):
        gen.parse_board_string("1#")
