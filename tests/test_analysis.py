"""`satdoku analyze` and what it stands on: the clause counts of every encoding against their
closed forms (docs/encodings.md), the kernel's propagation without search (C and its readable
twin agree), UP on `extended` is the human naked + hidden singles puzzle by puzzle, every board
an inference calls solved verifies, every cell it decides is the solution's, a refuted puzzle
has no solution, and the command's files."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from array import array
from math import comb
from pathlib import Path

import pytest
from pysat.solvers import Solver

from satdoku.analysis.propagation import (
    OPEN,
    REFUTED,
    SOLVED,
    Outcome,
    Propagator,
    new_kernel,
    propagate_formula,
    singles_outcomes,
)
from satdoku.analysis.set_analysis import analyze, applicable_encodings
from satdoku.cnf.encode import (
    encode,
    rules_clause_count,
    rules_clauses,
    rules_cnf,
    rules_num_vars,
)
from satdoku.cnf.encodings import Unencodable
from satdoku.cnf.formula import Cnf
from satdoku.formats import read_records
from satdoku.heuristics import apply_singles, naked_singles, singles_fixpoint
from satdoku.puzzle import Puzzle, latin_layout, sudoku, sudoku_layout
from satdoku.solvers.cdcl.driver import native
from satdoku.stagefiles.propagation_files import (
    INSTANCE_COLUMNS,
    SUMMARY_COLUMNS,
    sampled_out,
)

ROOT = Path(__file__).resolve().parent.parent
CLUE17 = ROOT / "data/public/tdoku_benchmarks/puzzles2_17_clue_2000.txt"
TOP95 = ROOT / "data/sudoku/norvig_top95.txt"
FOUR = ("minimal", "efficient", "extended", "augmented")


def puzzles(path: Path, n: int) -> list[Puzzle]:
    return [r.puzzle for r in read_records(path) if r.puzzle is not None][:n]


# --- clause counts: the closed forms of docs/encodings.md ---------------------------------------
def closed_form(encoding: str, n: int) -> tuple[int, int]:
    """(rule clauses, variables) of a Sudoku of box order n (N = n², N² cells, N values) under
    ``encoding``, from docs/encodings.md."""
    big = n * n
    cells, pairs = big * big, comb(big, 2)
    seq = 3 * big - 4  # Sinz's counter over N literals
    clauses = {
        "minimal": cells * (1 + 3 * pairs),
        "efficient": cells * (1 + 4 * pairs),
        "extended": cells * (4 + 4 * pairs),
        "minimal_seq": cells * (1 + 3 * seq),
        "efficient_seq": cells * (1 + 4 * seq),
        "extended_seq": cells * (4 + 4 * seq),
        "augmented": cells * (pairs + n ** 3 + 3 * n * n + 5),
    }[encoding]
    variables = {"augmented": cells * (big + 2 * n),
                 "minimal_seq": cells * big + 3 * big * big * (big - 1),
                 "efficient_seq": cells * big + 4 * big * big * (big - 1),
                 "extended_seq": cells * big + 4 * big * big * (big - 1)}.get(encoding,
                                                                              cells * big)
    return clauses, variables


def test_lynce_ouaknine_counts_at_9x9() -> None:
    layout = sudoku_layout(3)
    assert rules_clause_count(layout, "minimal") == 8829
    assert rules_clause_count(layout, "extended") == 11988
    assert rules_clause_count(layout, "augmented") == 7695
    assert rules_num_vars(layout, "augmented") == 1215  # tdoku's 15 x 81 variables


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("encoding", ["minimal", "efficient", "extended", "minimal_seq",
                                      "efficient_seq", "extended_seq", "augmented"])
def test_clause_counts_equal_the_closed_forms(encoding: str, n: int) -> None:
    """Orders 2..7 from the sizes alone; the built rules (orders 2..3) match too."""
    layout = sudoku_layout(n)
    clauses, variables = closed_form(encoding, n)
    assert rules_clause_count(layout, encoding) == clauses
    if n <= 3:
        assert len(rules_clauses(layout, encoding)) == clauses
        assert rules_num_vars(layout, encoding) == variables


# --- augmented ----------------------------------------------------------------------------------
def test_augmented_has_exactly_the_grids_as_models() -> None:
    """The 288 4x4 Sudoku grids and nothing else: the triads are defined by the cells."""
    cnf = rules_cnf(sudoku_layout(2), "augmented")
    grids = set()
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        while s.solve():
            model = s.get_model()
            direct = [lit for lit in model if 0 < lit <= 64]
            grid = tuple((lit - 1) % 4 + 1 for lit in sorted(direct))
            assert len(grid) == 16 and sudoku(grid).check_solution(grid) == []
            grids.add(grid)
            s.add_clause([-lit for lit in direct])
    assert len(grids) == 288


def test_augmented_is_refused_in_one_line_without_boxes() -> None:
    with pytest.raises(Unencodable, match=r"augmented needs a Sudoku layout with boxes.*latin-5"):
        rules_clause_count(latin_layout(5), "augmented")
    with pytest.raises(Unencodable):
        Propagator(latin_layout(5), "augmented")
    assert "augmented" not in applicable_encodings([latin_layout(5)])
    assert "augmented" in applicable_encodings([latin_layout(5), sudoku_layout(3)])


# --- the kernel: C and its readable twin agree ---------------------------------------------------
def groups_of(literal_lists: list[list[int]]) -> array:
    out = array("i")
    for lits in literal_lists:
        out.extend(lits)
        out.append(0)
    return out


@pytest.mark.skipif(native() is None, reason="the C kernel is not built")
@pytest.mark.parametrize("encoding", FOUR)
def test_c_and_python_kernels_propagate_alike(encoding: str) -> None:
    layout = sudoku_layout(2 if encoding != "augmented" else 3)
    rng = random.Random(7)
    cases = []
    for _ in range(25):
        cells = rng.sample(range(layout.ncells), rng.randint(0, 8))
        cases.append([c * layout.domain + rng.randint(1, layout.domain) for c in cells])
    cases.append([1, -1])  # a group against itself: refuted
    cases.append([])
    groups = groups_of(cases)
    rules = rules_cnf(layout, encoding)
    answers = []
    for backend in ("c", "python"):
        kernel = new_kernel(rules.num_vars, backend)
        kernel.load(rules.clauses)
        answers.append([kernel.propagate_units(groups, layout.ncells * layout.domain, probe)
                        for probe in (False, True)])
    assert answers[0] == answers[1]
    codes = array("i", answers[0][1][0]).tolist()
    assert codes[-2] == -1 and codes[-1] >= 0


@pytest.mark.parametrize("backend", ["c", "python"])
def test_propagate_units_edges(backend: str) -> None:
    if backend == "c" and native() is None:
        pytest.skip("the C kernel is not built")
    kernel = new_kernel(3, backend)
    kernel.load([[1, 2], [-1, 3], [-2, 3]])
    with pytest.raises(ValueError, match="end with 0"):
        kernel.propagate_units(array("i", [1]), 3)
    with pytest.raises(ValueError, match="out of range"):
        kernel.propagate_units(array("i", [4, 0]), 3)
    with pytest.raises(ValueError, match="report"):
        kernel.propagate_units(array("i", [0]), 4)
    codes, values = kernel.propagate_units(array("i", [0, -3, 0]), 3, True)
    assert array("i", codes).tolist() == [1, -1]  # FL proves 3 (-3 fails); the group -3: refuted
    assert array("b", values).tolist()[:3] == [0, 0, 1] and values[3:] == bytes(3)
    # a formula refuted on its own refutes every group
    kernel = new_kernel(1, backend)
    kernel.load([[1], [-1]])
    assert array("i", kernel.propagate_units(array("i", [0, 0]), 1)[0]).tolist() == [-1, -1]


def test_formula_outcomes() -> None:
    assert propagate_formula(Cnf(2, [[1], [-1, 2]])).status == SOLVED
    assert propagate_formula(Cnf(2, [[1, 2]])).open == 2
    assert propagate_formula(Cnf(2, [[1], [-1]])).status == REFUTED


# --- the self-checks -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def solutions(mixed: list[Puzzle]) -> list[tuple[int, ...] | None]:
    """Each puzzle's solution by MiniSat (None: it has none); every puzzle here has at most
    one (the 17-clue and top95 puzzles are unique, a wrong given leaves a subset of one)."""
    return [_solution(p) for p in mixed]


@pytest.fixture(scope="module")
def mixed() -> list[Puzzle]:
    """17-clue puzzles (about half solved by singles), hard ones (mostly open) and broken ones
    (a wrong given added to a 17-clue puzzle: some refuted, some not)."""
    easy = puzzles(CLUE17, 120)
    hard = puzzles(TOP95, 40)
    rng = random.Random(3)
    broken = []
    for p in easy[:40]:
        solution = _solution(p)
        cell = rng.choice([c for c, g in enumerate(p.givens) if not g])
        wrong = rng.choice([v for v in range(1, 10) if v != solution[cell]])
        givens = list(p.givens)
        givens[cell] = wrong
        broken.append(sudoku(givens))
    return easy + hard + broken


def _solution(p: Puzzle) -> tuple[int, ...] | None:
    with Solver(name="minisat22", bootstrap_with=encode(p, "extended").clauses) as s:
        if not s.solve():
            return None
        return tuple((lit - 1) % 9 + 1 for lit in sorted(x for x in s.get_model() if 0 < x <= 729))


def test_up_on_extended_is_naked_and_hidden_singles(mixed: list[Puzzle]) -> None:
    """Puzzle by puzzle: the same status and the same board (the readable apply_singles is the
    oracle; its vectorised form agrees too)."""
    up = Propagator(sudoku_layout(3), "extended").run(mixed)
    fast = singles_outcomes(mixed)
    statuses = set()
    for p, u, f in zip(mixed, up, fast, strict=True):
        slow = apply_singles(p)
        status = REFUTED if slow.contradiction else SOLVED if 0 not in slow.board else OPEN
        assert u.status == f.status == status
        if status != REFUTED:
            assert u.board == f.board == slow.board
        statuses.add(status)
    assert statuses == {SOLVED, OPEN, REFUTED}  # the sample exercises every outcome


def test_up_on_minimal_and_efficient_is_naked_singles(mixed: list[Puzzle]) -> None:
    minimal = Propagator(sudoku_layout(3), "minimal").run(mixed)
    efficient = Propagator(sudoku_layout(3), "efficient").run(mixed)
    for p, m, e in zip(mixed[:60], minimal, efficient, strict=False):
        board = list(p.givens)
        while moves := naked_singles(p, board):
            for move in moves:
                board[move.cell] = move.value
        assert m.board == e.board == tuple(board)
    assert [m.status for m in minimal] == [e.status for e in efficient]


@pytest.mark.parametrize("encoding", FOUR)
def test_decided_cells_are_the_solutions_and_refuted_means_no_solution(
        mixed: list[Puzzle], solutions: list[tuple[int, ...] | None], encoding: str) -> None:
    """UP and FL: a solved board verifies, every decided cell of an open one is the (unique)
    solution's, and a refuted puzzle has no solution (MiniSat on another encoding agrees)."""
    prop = Propagator(sudoku_layout(3), encoding)
    seen = set()
    for probe in (False, True):
        for p, o, solution in zip(mixed, prop.run(mixed, probe), solutions, strict=True):
            seen.add(o.status)
            if o.status == REFUTED:
                assert solution is None
                continue
            assert o.board is not None
            if o.status == SOLVED:
                assert p.check_solution(o.board) == []
            if solution is not None:
                assert all(v in (0, s) for v, s in zip(o.board, solution, strict=True))
    assert REFUTED in seen and SOLVED in seen


def test_fl_includes_up(mixed: list[Puzzle]) -> None:
    for encoding in FOUR:
        prop = Propagator(sudoku_layout(3), encoding)
        for u, f in zip(prop.run(mixed), prop.run(mixed, True), strict=True):
            assert u.status != SOLVED or f.status == SOLVED
            assert u.status != REFUTED or f.status == REFUTED
            if f.status == OPEN:
                assert u.status == OPEN and f.open <= u.open


def test_futoshiki_puzzles_use_their_own_clauses(public_data: Path) -> None:
    recs = [r for r in read_records(public_data / "futoshiki_usp/futoshiki.dat")][:6]
    by_layout: dict = {}
    for r in recs:
        by_layout.setdefault(r.puzzle.layout, []).append(r.puzzle)
    for layout, ps in by_layout.items():
        for o, p in zip(Propagator(layout, "extended").run(ps, True), ps, strict=True):
            if o.status == SOLVED:
                assert p.check_solution(o.board) == []
    assert singles_fixpoint([recs[0].puzzle])[0][0] == apply_singles(recs[0].puzzle).board


# --- the command ---------------------------------------------------------------------------------
def test_analyze_files(tmp_path: Path) -> None:
    src = tmp_path / "mixed.txt"
    lines = CLUE17.read_text().splitlines()
    body = [x for x in lines if x and not x.startswith("#")][:30]
    src.write_text("\n".join([*body, "12345"]) + "\n")  # the last line is INVALID
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "satdoku", "analyze", str(src), "--out",
                           str(out), "--encodings", "extended", "augmented"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "| sudoku-9 | augmented |" in proc.stdout
    with open(out / "propagation.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == SUMMARY_COLUMNS
    assert [r["encoding"] for r in rows] == ["extended", "augmented"]
    assert rows[0]["up_solved"] == rows[0]["singles_solved"]
    assert rows[0]["clauses"] == "11988" and rows[1]["variables"] == "1215"
    tsv = (out / "propagation_instances.tsv").read_text().splitlines()
    assert tuple(tsv[0].split("\t")) == INSTANCE_COLUMNS
    assert len(tsv) == 1 + 2 * 30 + 1
    assert tsv[-1].split("\t")[4] == "INVALID"
    assert (out / "propagation.png").stat().st_size > 0
    assert (out / "propagation.md").read_text().count("| sudoku-9 |") == 2


def test_analyze_refuses_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "satdoku", "analyze", str(TOP95), "--out",
                           str(tmp_path), "--encodings", "simplified"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "share no rules" in proc.stderr


def test_analyze_latin_and_cnf_sets(public_data: Path) -> None:
    latin = list(read_records(ROOT / "data/latin/qwh_sample.txt"))[:2]
    result = analyze(latin, "latin", ["extended", "augmented"], progress="off")
    assert [r["encoding"] for r in result.summary] == ["extended"]
    refused = [r for r in result.instances if r["encoding"] == "augmented"]
    assert len(refused) == 2 and all(r["up"] == "-" and "boxes" in str(r["detail"])
                                     for r in refused)
    cnf = list(read_records(public_data / "satlib/uuf50-218"))[:3]
    result = analyze(cnf, "uuf", progress="off")
    assert [r["encoding"] for r in result.summary] == ["dimacs"]
    assert all(r["up"] in (OPEN, REFUTED) for r in result.instances)


@pytest.mark.parametrize("solver", ["glucose4", "cadical195"])
def test_augmented_through_the_solve_path(solver: str) -> None:
    """Solved and verified by the reference solvers too (minisat22, cdcl and dpll: every
    encoding in tests/test_solve.py); a Latin square is refused in one line, an INVALID row."""
    from conftest import line_record

    from satdoku.solve import open_solver, solve
    from satdoku.solvers.result import INVALID, SAT, YES

    for text in (CLUE17.read_text().splitlines()[-1], TOP95.read_text().splitlines()[0]):
        rec = line_record(text)
        answer = solve(rec, open_solver(solver), "augmented", 60)
        assert answer.status == SAT and answer.verified == YES, answer.detail
    (latin,) = list(read_records(ROOT / "data/latin/qwh_sample.txt"))[:1]
    answer = solve(latin, open_solver(solver), "augmented", 60)
    assert answer.status == INVALID and "needs a Sudoku layout with boxes" in answer.detail
    assert "\n" not in answer.detail


def test_a_sampled_analysis_equals_the_full_one_on_its_sample(tmp_path: Path) -> None:
    """A set larger than ``sample``: the seeded sample's rows are the full analysis's rows, the
    others are ``-`` rows saying they are not in the sample, invalid records stay INVALID, the
    summary counts the sample and names the set's size (``sample_of``), and the same seed draws
    the same sample from an Instances shard reader as from a list of records."""
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.stagefiles.instances import InstanceShards

    lines = [x for x in CLUE17.read_text().splitlines() if x and not x.startswith("#")][:60]
    src = tmp_path / "set.txt"
    src.write_text("\n".join([*lines[:30], "12345", *lines[30:]]) + "\n")
    records = list(read_records(src))
    full = analyze(records, "s", ["extended"], progress="off")
    part = analyze(records, "s", ["extended"], progress="off", sample=25)
    assert len(part.instances) == len(full.instances) == 61
    analysed = [r for r in part.instances if r["up"] in (SOLVED, OPEN, REFUTED)]
    assert len(analysed) == 25
    by_id = {r["id"]: r for r in full.instances}
    assert all(r == by_id[r["id"]] for r in analysed)
    left = [r for r in part.instances if r["up"] == "-"]
    assert len(left) == 35 and all(sampled_out(r) for r in left)
    assert not any(sampled_out(r) for r in part.instances if r not in left)
    assert [r["line"] for r in part.instances if r["up"] == "INVALID"] == [31]
    row = part.summary[0]
    assert (row["instances"], row["sample_of"]) == (25, 60)
    assert row["up_solved"] == sum(r["up"] == SOLVED for r in analysed)
    assert "sample_of" not in full.summary[0]
    shard = tmp_path / "i.jsonl"
    normalize(src, shard, 0, 1000)
    again = analyze(InstanceShards([shard]), "s", ["extended"], progress="off", sample=25)
    assert again.instances == part.instances and again.summary[0]["sample_of"] == 60


def test_a_wrong_board_an_inference_calls_solved_stops_the_analysis(monkeypatch) -> None:
    """Every board called solved is verified (each instance's board once, whichever inference
    reached it): a wrong one is a VerificationError naming the instance, never a figure."""
    import satdoku.analysis.set_analysis as sa

    records = [r for r in read_records(TOP95)][:3]

    def wrong(puzzles):  # type: ignore[no-untyped-def]
        return [Outcome(SOLVED, 0, tuple([1] * 81)) for _ in puzzles]

    monkeypatch.setattr(sa, "singles_outcomes", wrong)
    with pytest.raises(sa.VerificationError, match="instance 1: the board singles solved"):
        analyze(records, "top", ["extended"], progress="off")
