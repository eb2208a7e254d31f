"""Generator and exact search: every label the LTN data sets rely on is checked here."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from satdoku import generate as gen
from satdoku.ltn.dataset import board_text, parse_board
from satdoku.puzzle import SUDOKU, latin, sudoku
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import NODES, TIME, SearchLimit, count_solutions, solve

DATA = Path(__file__).resolve().parents[1] / "data" / "public"


def _empty(box: int):
    return gen.empty_puzzle(SUDOKU, box)


@pytest.mark.parametrize("box", [2, 3])
def test_complete_grids_are_valid_and_seeded(box: int) -> None:
    a = [gen.complete_grid(box, random.Random(7)).givens for _ in range(3)]
    assert a[0] == a[1] == a[2]  # same seed, same grid
    rng = random.Random(1)
    for _ in range(20):
        g = gen.complete_grid(_empty(box), rng)
        assert g.is_closed and g.check_solution(g.givens) == []


def test_all_288_4x4_grids_are_reachable() -> None:
    rng = random.Random(3)
    grids = {gen.complete_grid(2, rng).givens for _ in range(4000)}
    assert len(grids) == 288


@pytest.mark.parametrize("box", [5, 6])
def test_large_grids_come_from_the_pattern_and_are_seeded(box: int) -> None:
    a = gen.complete_grid(box, random.Random(4))
    assert a.check_solution(a.givens) == []
    assert a == gen.complete_grid(box, random.Random(4))
    assert a != gen.complete_grid(box, random.Random(5))


def test_count_solutions_known_values() -> None:
    assert count_solutions(_empty(2), limit=10_000) == 288
    assert gen.count_solutions(_empty(2), 10_000, "sat") == 288
    assert count_solutions(latin([0] * 9, 3), limit=100) == 12
    # a real 17-clue puzzle (unique) from the tdoku benchmark set
    text = (DATA / "tdoku_benchmarks" / "puzzles2_17_clue_2000.txt").read_text()
    line = next(ln for ln in text.splitlines() if ln and not ln.startswith("#"))
    p = sudoku(parse_board(line[:81]))
    assert p.num_givens == 17
    assert count_solutions(p, limit=2) == 1
    assert gen.count_solutions(p, 2, "sat") == 1
    sol, stats = solve(p)
    assert sol is not None and p.check_solution(sol) == [] and stats.complete


def test_one_limit_exception_says_why() -> None:
    with pytest.raises(SearchLimit) as nodes:
        count_solutions(_empty(3), limit=10**9, max_nodes=50)
    assert nodes.value.reason == NODES
    with pytest.raises(SearchLimit) as clock:
        count_solutions(_empty(3), limit=10**9, deadline=Deadline(0.05))
    assert clock.value.reason == TIME
    with pytest.raises(SearchLimit) as sat_clock:  # the SAT counter raises the same exception
        gen.count_solutions(_empty(3), 10**9, "sat", deadline=Deadline(0.2))
    assert sat_clock.value.reason == TIME
    sol, stats = solve(_empty(4), max_nodes=10)  # solve() reports instead of raising
    assert sol is None and not stats.complete and stats.nodes == 11


@pytest.mark.parametrize("method", ["csp", "sat"])
def test_unique_puzzle_has_one_solution(method: str) -> None:
    rng = random.Random(5)
    for box in (2, 3):
        grid = gen.complete_grid(box, rng)
        p = gen.unique_puzzle(grid, rng, counter=method)
        assert not p.is_closed
        assert count_solutions(p, limit=2) == 1 == gen.count_solutions(p, 2, "sat")
        assert solve(p)[0] == grid.givens
        # minimal: putting back no single given is needed, removing any one breaks uniqueness
        for c in range(p.ncells):
            if p.givens[c]:
                board = list(p.givens)
                board[c] = 0
                assert count_solutions(gen.with_board(p, board), limit=2) == 2


def test_unique_puzzle_stops_at_its_deadline_and_stays_unique() -> None:
    grid = gen.complete_grid(3, random.Random(2))
    p = gen.unique_puzzle(grid, random.Random(2), deadline=Deadline(0.001))
    assert count_solutions(p, limit=2) == 1  # whatever was removed, the board is unique
    with pytest.raises(ValueError, match="solved board"):
        gen.unique_puzzle(gen.erase(grid, 3, random.Random(1)), random.Random(1))


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
        assert count_solutions(p, limit=1) == 0 == gen.count_solutions(p, 1, "sat")
        assert solve(p)[0] is None
    assert made >= 20


def test_erase_is_solvable() -> None:
    rng = random.Random(2)
    grid = gen.complete_grid(3, rng)
    p = gen.erase(grid, 50, rng)
    assert sum(1 for v in p.givens if not v) == 50
    assert count_solutions(p, limit=1) == 1
    with pytest.raises(ValueError):
        gen.erase(grid, 82, rng)


def test_board_text_round_trip() -> None:
    board = (0, 1, 9, 10, 16, 35)
    assert board_text(board) == "019AGZ"
    assert parse_board(board_text(board)) == board
    assert parse_board("1.3.") == (1, 0, 3, 0)
    with pytest.raises(ValueError, match="position 2"):
        parse_board("1#")


def test_counter_refuses_unknown_methods() -> None:
    with pytest.raises(ValueError, match="counting method"):
        gen.SolutionCounter("dlx")
    with pytest.raises(ValueError, match="unknown family"):
        gen.empty_puzzle("kakuro", 3)


@pytest.mark.parametrize(("family", "size", "kind"), [
    ("sudoku", 9, "unique"), ("sudoku", 4, "impossible"), ("latin", 5, "unique"),
    ("futoshiki", 5, "unique"), ("sudoku3d", 2, "impossible"), ("latin", 6, "impossible"),
])
def test_generate_boards_command_keeps_every_promise(tmp_path, capsys, family, size, kind):
    """Boards written by the command read back in their family's format and keep their
    promise under both counting strategies."""
    from satdoku.cli import main
    from satdoku.formats import read_records

    assert main(["generate", "boards", "--family", family, "--size", str(size), "--count", "3",
                 "--kind", kind, "--seed", "4"]) == 0
    out = tmp_path / "boards.txt"
    out.write_text(capsys.readouterr().out)
    recs = list(read_records(out))
    assert len(recs) == 3 and all(r.error is None for r in recs)
    want = 1 if kind == "unique" else 0
    for rec in recs:
        p = rec.puzzle
        assert p.kind == family and not p.is_closed
        assert gen.count_solutions(p, 2, "csp") == want == gen.count_solutions(p, 2, "sat")
        if kind == "impossible":
            assert gen.immediate_problem(p) is None


def test_generate_36x36_is_bounded_and_unique(tmp_path, capsys) -> None:
    """A 36x36 board whose uniqueness checks are bounded by a node budget (deterministic: a
    check needs at least one node per hole, so removal stops near 60 holes); the board read back
    (integer grid format) has exactly one solution. No time is asserted: the clock bound
    (--time-limit) is measured in the benchmark."""
    from satdoku.cli import main
    from satdoku.formats import read_records

    args = ["generate", "boards", "--size", "36", "--count", "1", "--counter", "csp",
            "--check-nodes", "60", "--time-limit", "300"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert main(args) == 0 and capsys.readouterr().out == text  # the seed alone decides
    out = tmp_path / "b36.txt"
    out.write_text(text)
    (rec,) = read_records(out)
    p = rec.puzzle
    assert p.size == 36 and 1296 - 60 <= p.num_givens < 1296
    assert gen.count_solutions(p, 2, "sat") == 1


def test_generate_boards_refuses_bad_sizes_and_kinds(capsys) -> None:
    from satdoku.cli import main

    assert main(["generate", "boards", "--size", "49"]) == 1
    assert "not a Sudoku side from 4 to 36" in capsys.readouterr().err
    assert main(["generate", "boards", "--family", "latin", "--size", "5", "--kind", "swap"]) == 1
    assert "makes kinds" in capsys.readouterr().err
    assert main(["generate", "boards", "--family", "sudoku3d", "--size", "5"]) == 1
    assert "outside 1..4" in capsys.readouterr().err
