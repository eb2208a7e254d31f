"""Singles engine: soundness against the exact solver and the move memory."""

from __future__ import annotations

import json
import random

from satdoku import generate as gen
from satdoku.heuristics import (
    NAKED,
    MoveMemory,
    apply_singles,
    find_singles,
    hidden_singles,
    naked_singles,
)
from satdoku.puzzle import sudoku
from satdoku.solvers.csp import solve


def test_naked_single_is_found() -> None:
    # 4x4: r1 = 1 2 3 _ -> r1c4 must be 4
    p = sudoku([1, 2, 3, 0] + [0] * 12)
    moves = naked_singles(p)
    assert [(m.row, m.col, m.value, m.heuristic) for m in moves] == [(0, 3, 4, NAKED)]


def test_hidden_single_in_a_box() -> None:
    # 9x9: 1s in rows 2,3 (outside box 1) and columns 2,3 leave r1c1 as the only place in box 1.
    b = [0] * 81
    b[1 * 9 + 4] = 1
    b[2 * 9 + 7] = 1
    b[4 * 9 + 1] = 1
    b[7 * 9 + 2] = 1
    p = sudoku(b)
    hs = [m for m in hidden_singles(p) if m.heuristic == "hidden_single_box"]
    assert any(m.cell == 0 and m.value == 1 for m in hs)
    assert not any(m.cell == 0 for m in naked_singles(p))


def test_singles_agree_with_the_solution_on_unique_puzzles() -> None:
    rng = random.Random(4)
    for box in (2, 3):
        for _ in range(10):
            grid = gen.complete_grid(box, rng)
            p = gen.unique_puzzle(grid, rng)
            for m in find_singles(p):
                assert grid.givens[m.cell] == m.value
            res = apply_singles(p)
            assert res.contradiction is None
            assert all(v == grid.givens[c] for c, v in enumerate(res.board) if v)


def test_contradiction_is_reported_on_impossible_boards() -> None:
    rng = random.Random(8)
    seen = 0
    for _ in range(30):
        p = gen.impossible_board(gen.complete_grid(2, rng), 10, rng)
        if p is None:
            continue
        res = apply_singles(p)
        assert p.conflicts(res.board) == []  # never returns a broken board
        if res.contradiction:
            seen += 1
        else:  # singles got stuck: the board is still open and unsolved
            assert 0 in res.board and solve(p, res.board)[0] is None
    assert seen > 0


def test_memory_counts_and_saves(tmp_path) -> None:
    rng = random.Random(1)
    mem = MoveMemory()
    for i in range(3):
        grid = gen.complete_grid(2, rng)
        apply_singles(gen.erase(grid, 6, rng), memory=mem, board_id=i)
    s = mem.summary()
    assert s["boards"] == 3 and s["moves_applied"] == len(mem.history) == 18
    applied = sum(h["applied"] for h in s["heuristics"].values())
    assert applied == 18
    mem.save(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["summary"]["moves_applied"] == 18 and len(data["history"]) == 18


def test_latin_square_singles() -> None:
    from satdoku.puzzle import latin

    p = latin([1, 2, 0, 0, 0, 0, 0, 0, 0], 3)
    assert any(m.cell == 2 and m.value == 3 for m in find_singles(p))
    assert sudoku([0] * 16).givens == (0,) * 16


def test_move_at_names_row_and_column() -> None:
    from satdoku.heuristics import Move
    from satdoku.puzzle import sudoku3d

    m = Move.at(sudoku([0] * 81), 40, 5, NAKED, rnd=2)
    assert (m.row, m.col, m.value, m.round, m.key()) == (4, 4, 5, 2, (40, 5, NAKED))
    cube = Move.at(sudoku3d(2), 16 + 7, 1, NAKED)  # layer 1, row 1, column 3 of a 4x4x4
    assert (cube.row, cube.col) == (1, 3)


def test_singles_fixpoint_equals_apply_singles_on_every_family() -> None:
    """The bit-mask fixpoint (numpy, many puzzles at once) against the readable apply_singles,
    puzzle by puzzle: 4x4 Sudoku, 3-D Sudoku (groups of several sizes), Latin squares of sides
    3-5 and 9x9 Sudoku, solvable or not (a changed given); the same contradiction flag, and
    the same board where there is none."""
    from satdoku.fuzz.puzzles import small_puzzle
    from satdoku.heuristics import singles_fixpoint
    from satdoku.puzzle import LATIN, SUDOKU, SUDOKU3D

    rng = random.Random(29)
    puzzles = [small_puzzle(rng, family) for family in (SUDOKU, SUDOKU3D, LATIN)
               for _ in range(120)]
    for _ in range(60):  # 9x9 with about a third of the cells given, some broken
        grid = list(gen.complete_grid(sudoku([0] * 81, 3), rng).givens)
        board = [v if rng.random() < 0.35 else 0 for v in grid]
        if rng.random() < 0.3:
            board[rng.randrange(81)] = rng.randint(1, 9)
        puzzles.append(sudoku(board, 3))
    flags = set()
    for p, (board, bad) in zip(puzzles, singles_fixpoint(puzzles), strict=True):
        slow = apply_singles(p)
        assert bad == (slow.contradiction is not None), p.givens
        flags.add(bad)
        if not bad:
            assert board == slow.board, p.givens
    assert flags == {True, False}
