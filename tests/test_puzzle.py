from satdoku.puzzle import box_order_for, futoshiki, latin, sudoku, sudoku_layout


def test_sudoku_layout_sizes():
    for box in (2, 3, 4, 5, 6):
        lay = sudoku_layout(box)
        n = box * box
        assert lay.ncells == n * n
        assert len(lay.groups) == 3 * n
        assert all(len(g) == n for g in lay.groups)
        # every cell is in exactly one row, one column, one box and has 3n - 2 box - 1 peers
        assert all(len(gs) == 3 for gs in lay.groups_of)
        assert len(lay.peers[0]) == 2 * (n - 1) + (n - 1) - 2 * (box - 1)


def test_layout_is_shared_between_puzzles():
    a = sudoku([0] * 81)
    b = sudoku([1] + [0] * 80)
    assert a.layout is b.layout


def test_conflicts_and_solution_check():
    grid = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
    p = sudoku([1] + [0] * 15)
    assert p.check_solution(grid) == []
    bad = list(grid)
    bad[1] = 1  # duplicate in row 1 and box 1
    reasons = p.check_solution(bad)
    assert any("twice" in r for r in reasons)
    changed = list(grid)
    changed[0], changed[1] = 2, 1
    assert any("changed given" in r for r in p.check_solution(changed))
    assert p.check_solution(grid[:15]) == ["board has 15 cells, expected 16"]


def test_candidates_respect_peers():
    p = sudoku([1, 2, 0, 0] + [0] * 12)
    cand = p.candidates()
    assert cand[2] == {3, 4}
    assert cand[0] == {1}


def test_latin_and_futoshiki():
    p = latin([0] * 9)
    assert p.size == 3 and len(p.groups) == 6
    f = futoshiki([0] * 9, 3, [(0, 1)])
    assert f.kind == "futoshiki"
    assert any("not <" in r for r in f.conflicts([3, 1, 0, 0, 0, 0, 0, 0, 0]))
    assert f.conflicts([1, 3, 0, 0, 0, 0, 0, 0, 0]) == []


def test_box_order_for():
    assert box_order_for(81) == 9 and box_order_for(9) == 3 and box_order_for(80) is None
    assert sudoku([0] * 16).layout.box == 2
    assert sudoku([0] * 1296).size == 36


def test_solved_boards_agrees_with_check_solution() -> None:
    """Layout.solved_boards (many boards at once, numpy) gives check_solution's verdict on
    each: solutions, a cell changed to any value (0, negative, above the domain), two cells
    swapped, another puzzle's solution, on 4x4 and 9x9 and a Latin square."""
    import random

    from satdoku.generate import complete_grid, erase

    rng = random.Random(3)
    for box in (2, 3, None):
        puzzles, boards = [], []
        for _ in range(100):
            grid = complete_grid(box, rng) if box else latin(
                [(r + c) % 5 + 1 for r in range(5) for c in range(5)], 5)
            p = erase(grid, rng.randint(0, grid.ncells), rng) if box else latin(
                [v if rng.random() < 0.5 else 0 for v in grid.givens], 5)
            b = list(grid.givens)
            r = rng.random()
            if r < 0.25:
                b[rng.randrange(len(b))] = rng.randint(-1, p.domain + 2)
            elif r < 0.45:
                i, j = rng.randrange(len(b)), rng.randrange(len(b))
                b[i], b[j] = b[j], b[i]
            elif r < 0.55 and box:
                b = list(complete_grid(box, rng).givens)
            puzzles.append(p)
            boards.append(b)
        got = puzzles[0].layout.solved_boards([p.givens for p in puzzles], boards)
        want = [not p.check_solution(b) for p, b in zip(puzzles, boards, strict=True)]
        assert got.tolist() == want
        assert 0 < sum(want) < len(want)
