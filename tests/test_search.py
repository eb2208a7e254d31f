"""The one search engine and the one SAT counter: every CSP variant, the engine's exact count,
the SAT count and CP-SAT agree on small random puzzles of every family; limits, peers, the
counter's activation literals and projection."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from satdoku import generate as gen
from satdoku.cnf.formula import Cnf
from satdoku.puzzle import Puzzle, custom, futoshiki, sudoku, sudoku3d
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import (
    INFERENCES,
    NODES,
    ORDERINGS,
    TIME,
    CspSolver,
    Search,
    SearchLimit,
    count_solutions,
    solve,
)
from satdoku.solvers.registry import SOLVERS, make_solver
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT
from satdoku.solvers.sat_count import SatCounter

CSP_NAMES = sorted(n for n in SOLVERS if n.startswith("csp-"))
_SOLVERS: dict[str, object] = {}


def _solver(name: str):
    if name not in _SOLVERS:
        _SOLVERS[name] = make_solver(name)
    return _SOLVERS[name]


@st.composite
def small_puzzles(draw) -> Puzzle:
    """A small puzzle of any family: a random solved grid, some givens kept, a few of them
    possibly changed (so that UNSAT instances appear too); Futoshiki relations partly true to
    the grid and partly random; 3-D cubes of order 2 and a custom shape with its own groups."""
    family = draw(st.sampled_from(["sudoku", "latin", "futoshiki", "sudoku3d", "custom"]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    if family == "custom":  # a 3x3 board, rows and one diagonal all-different, domain 3
        tmpl = custom((3, 3), 3, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 4, 8]])
    elif family == "sudoku3d":
        tmpl = sudoku3d(2)
    else:
        n = 2 if family == "sudoku" else draw(st.integers(3, 5))
        tmpl = gen.empty_puzzle("sudoku" if family == "sudoku" else "latin", n)
    grid = gen.complete_grid(tmpl, rng).givens
    keep = draw(st.floats(0.2, 0.9))
    board = [v if rng.random() < keep else 0 for v in grid]
    for _ in range(draw(st.integers(0, 2))):  # a changed given may make the puzzle UNSAT
        c = rng.randrange(len(board))
        board[c] = rng.randint(1, tmpl.domain)
    if family == "futoshiki":
        n = tmpl.size
        pairs = [(r * n + c, r * n + c + 1) for r in range(n) for c in range(n - 1)]
        pairs += [(r * n + c, (r + 1) * n + c) for r in range(n - 1) for c in range(n)]
        less = []
        for a, b in rng.sample(pairs, draw(st.integers(0, len(pairs) // 2))):
            true = grid[a] < grid[b]
            if rng.random() < 0.15:
                true = not true  # a wrong sign: possibly no solution
            less.append((a, b) if true else (b, a))
        return futoshiki(board, n, less)
    return gen.with_board(tmpl, board)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_puzzles())
def test_csp_variants_exact_count_sat_count_and_cpsat_agree(p: Puzzle) -> None:
    exact = count_solutions(p, limit=2, **gen.search_options(p))
    event(f"{p.kind} {'SAT' if exact else 'UNSAT'}")
    assert exact == gen.count_solutions(p, 2, "sat")
    cpsat = _solver("cpsat").solve_puzzle(p, Deadline(30))
    assert cpsat.status == (SAT if exact else UNSAT)
    if cpsat.board is not None:
        assert p.check_solution(cpsat.board) == []
    for name in CSP_NAMES:
        res = _solver(name).solve_puzzle(p, Deadline(30))
        assert res.status == (SAT if exact else UNSAT), name
        if exact:
            assert p.check_solution(res.board) == [], name


@settings(max_examples=15, deadline=None)
@given(small_puzzles(), st.sampled_from(INFERENCES), st.sampled_from(ORDERINGS), st.booleans())
def test_every_engine_option_enumerates_the_same_solutions(p: Puzzle, inference: str,
                                                          ordering: str, lcv: bool) -> None:
    reference = set(Search(p).solutions())
    assert all(p.check_solution(b) == [] for b in reference)
    rng = random.Random(0)
    found = list(Search(p, inference=inference, ordering=ordering, lcv=lcv, rng=rng,
                        degree=False).solutions())
    assert len(found) == len(set(found)) and set(found) == reference


def test_known_counts_under_every_option() -> None:
    cases = [(gen.empty_puzzle("sudoku", 2), 288), (gen.empty_puzzle("latin", 4), 576),
             (futoshiki([0] * 9, 3, [(0, 1), (1, 2)]), 2)]
    for p, n in cases:
        for inference in INFERENCES:
            for ordering in ORDERINGS:
                for lcv in (False, True):
                    assert count_solutions(p, 10_000, inference=inference, ordering=ordering,
                                           lcv=lcv) == n


def test_limits_raise_one_exception_with_the_reason() -> None:
    p = gen.empty_puzzle("latin", 12)
    for inference in INFERENCES:
        with pytest.raises(SearchLimit) as nodes:
            count_solutions(p, 10**9, inference=inference, max_nodes=30)
        assert nodes.value.reason == NODES
        expired = Deadline(1.0, start=time.perf_counter() - 5)
        with pytest.raises(SearchLimit) as clock:
            count_solutions(p, 10**9, inference=inference, deadline=expired)
        assert clock.value.reason == TIME
    with pytest.raises(ValueError):
        SearchLimit("patience")


def test_csp_solver_answers_timeout_at_an_expired_deadline() -> None:
    """The deadline is read on the clock during search and during MAC's root propagation
    (a 36x36 board)."""
    big = sudoku([0] * 1296, 6)
    expired = Deadline(0.5, start=time.perf_counter() - 10)
    for name in ("csp-mac-mrv", "csp-bt-first", "csp-fc-mrv-lcv"):
        res = _solver(name).solve_puzzle(big, expired)
        assert res.status == TIMEOUT and "time limit" in res.message, name
    budget = CspSolver("bt", "mrv", max_nodes=5).solve_puzzle(big, Deadline(None))
    assert budget.status == TIMEOUT and "node budget" in budget.message
    assert budget.stats["decisions"] == 6


def test_puzzle_peers_cover_instance_groups() -> None:
    plain = sudoku([0] * 81)
    assert plain.peers is plain.layout.peers and len(plain.peers[0]) == 20
    cube = sudoku3d(2, cube_boxes=[((0, 0, 0), (2, 2, 1))])
    box_cells = cube.extra_groups[0]
    assert cube.peers is cube.peers  # computed once
    for c in box_cells:
        assert set(box_cells) - {c} <= cube.peers[c]
        assert c not in cube.peers[c]
    assert cube.peers[63] == cube.layout.peers[63]  # a cell outside the box keeps its own


# --- the SAT counter --------------------------------------------------------------------------
def test_sat_counter_retires_each_formula_and_keeps_the_rules() -> None:
    """Counts of different instances on one loaded rules block do not leak into each other."""
    f1 = futoshiki([0] * 16, 4, [(0, 1), (1, 2), (2, 3)])
    f2 = futoshiki([0] * 16, 4, [(3, 2), (2, 1), (1, 0)])
    latin4 = gen.empty_puzzle("latin", 4)
    counter = gen.SolutionCounter("sat")
    try:
        for p in (f1, f2, latin4, f1, f2):
            assert counter.count(p, 1000) == count_solutions(p, 1000)
        assert counter.count(latin4, 1000) == 576
    finally:
        counter.close()


def test_sat_counter_tells_solutions_apart_on_the_projection() -> None:
    rules = Cnf(3, [[1, 2]])  # x3 free: 3 assignments of x1, x2, each twice over x3
    with SatCounter() as counter:
        assert counter.count(rules, [], 100) == 6
        assert counter.count(rules, [], 100, project=2) == 3
        assert counter.count(rules, [[-1]], 100, project=2) == 1  # a unit: an assumption
        assert counter.count(rules, [[-1, -2]], 100, project=2) == 2  # guarded clause
        assert counter.count(rules, [], 100, project=2) == 3  # both retired
        with pytest.raises(SearchLimit) as late:
            counter.count(rules, [], 100, Deadline(1.0, start=time.perf_counter() - 5))
        assert late.value.reason == TIME
    with SatCounter() as fresh:  # own variables above the rules' never meet the guard
        assert fresh.count(rules, [[4, 1], [-4, -2]], 100, project=2) == 2


def test_uniqueness_stage_counts_like_the_search(public_data, tmp_path) -> None:
    from satdoku.formats import read_records
    from satdoku.pipeline.stage_encode import encode_shard
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.pipeline.stage_unique import unique_shard

    src = public_data / "futoshiki_usp" / "casos.in"
    inst = tmp_path / "i.jsonl"
    normalize(src, inst, 0, 1000)
    bundle = tmp_path / "b.cnfs"
    encode_shard(inst, bundle, "casos", "extended")
    out = tmp_path / "u.tsv"
    counts = unique_shard(bundle, out, time_limit=30)
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0] == ["id", "line", "solutions", "verdict", "seconds"]
    recs = list(read_records(src))
    assert len(rows) == len(recs) + 1
    for row, rec in zip(rows[1:], recs, strict=True):
        n = count_solutions(rec.puzzle, 2, **gen.search_options(rec.puzzle))
        assert row[2] == str(n) and row[3] == {0: "none", 1: "unique", 2: "several"}[n]
    assert sum(counts.values()) == len(recs)


@pytest.mark.parametrize("method", ["csp", "sat"])
def test_count_command(public_data, tmp_path, capsys, method) -> None:
    from satdoku.cli import main

    src = public_data / "futoshiki_usp" / "casos.in"
    bad = tmp_path / "mixed.txt"
    bad.write_text("1234\n" + "0" * 16 + "\n")  # not a board; the empty 4x4 Sudoku (288)
    assert main(["count", str(src), "--max", "2", "--method", method]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["id", "line", "solutions", "verdict"] and len(rows) > 1
    assert {r[3] for r in rows[1:]} <= {"unique", ">=2", "none"}
    assert main(["count", str(bad), "--max", "300", "--method", method]) == 1  # invalid line
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    assert rows[1][3].startswith("INVALID") and rows[2][2:] == ["288", "multiple"]
    with pytest.raises(SystemExit) as refused:  # argparse refuses it: one line, exit 2
        main(["count", str(bad), "--max", "300", "--time-limit", "-1"])
    assert refused.value.code == 2
    assert "finite and > 0" in capsys.readouterr().err


def test_search_gives_the_recursion_limit_back() -> None:
    import sys

    before = sys.getrecursionlimit()
    big = sudoku([0] * 1296, 6)
    sol, _ = solve(big, max_nodes=2000, inference="mac")  # deep: one frame per cell
    assert sol is not None and big.check_solution(sol) == []
    assert sys.getrecursionlimit() == before
    it = Search(big, inference="mac").solutions()
    next(it)
    it.close()  # stopped between solutions: limit restored too
    assert sys.getrecursionlimit() == before
