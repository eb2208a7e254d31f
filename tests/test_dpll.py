"""The teaching DPLL: correct on every SATLIB file (models verified, UNSAT proofs checked), on
random formulas against MiniSat, with every heuristic, on Sudoku puzzles; budgets stop it
cleanly; the CLI speaks the SAT-competition format."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import minisat, php, satlib_files
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.drat import check_proof
from satdoku.cnf.formula import Cnf
from satdoku.cnf.lrat import check_lrat
from satdoku.solvers.base import Deadline
from satdoku.solvers.dpll import HEURISTICS, Dpll

cnfs = st.integers(1, 8).flatmap(
    lambda n: st.builds(
        lambda clauses: Cnf(n, clauses),
        st.lists(
            st.lists(st.integers(1, n) | st.integers(-n, -1), max_size=4),
            max_size=30,
        ),
    )
)


def decide(cnf: Cnf, heuristic: str = "vsids", **options: object) -> tuple[str, list[int] | None]:
    """Solve, then check the answer: the model satisfies every clause, the proof refutes."""
    buf = io.StringIO()
    status, model = Dpll(cnf.num_vars, cnf.clauses, heuristic, proof=buf, **options).solve()  # type: ignore[arg-type]
    if status == "SAT":
        assert model is not None and len(model) == cnf.num_vars
        assert [abs(lit) for lit in model] == list(range(1, cnf.num_vars + 1))
        assert cnf.satisfied_by(model) == []
    else:
        check = check_proof(cnf, buf.getvalue().splitlines())
        assert check.ok, check.message
    return status, model


def test_every_satlib_file_is_decided_correctly(public_data: Path) -> None:
    for path, expected in satlib_files(public_data):
        assert decide(read_dimacs(path))[0] == expected, path.name


@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_every_heuristic_on_satlib_samples(public_data: Path, heuristic: str) -> None:
    sat = public_data / "satlib"
    for path, expected in [
        (sat / "uf20-91" / "uf20-01.cnf", "SAT"),
        (sat / "uf50-218" / "uf50-02.cnf", "SAT"),
        (sat / "flat50-115" / "flat50-1.cnf", "SAT"),
        (sat / "uuf50-218" / "uuf50-03.cnf", "UNSAT"),
    ]:
        assert decide(read_dimacs(path), heuristic, seed=7)[0] == expected, path.name


@settings(max_examples=150, deadline=None)
@given(cnfs, st.sampled_from(HEURISTICS), st.booleans())
def test_agrees_with_minisat_on_random_formulas(cnf: Cnf, heuristic: str, pure: bool) -> None:
    status, _ = Dpll(cnf.num_vars, cnf.clauses, heuristic, pure_literals=pure).solve()
    assert status == ("SAT" if minisat(cnf) else "UNSAT")
    assert decide(cnf, heuristic)[0] == status  # with a proof (pure literals off)


def test_edge_cases() -> None:
    assert decide(Cnf(0, []))[0] == "SAT"
    assert decide(Cnf(3, [[]]))[0] == "UNSAT"
    assert decide(Cnf(2, [[1], [-1]]))[0] == "UNSAT"
    status, model = decide(Cnf(2, [[1, -1], [2, 2]]))  # a tautology, a repeated literal
    assert status == "SAT" and model is not None and model[1] == 2
    assert decide(Cnf(3, []))[1] is not None  # free variables still get a value


def test_budgets_stop_cleanly() -> None:
    hard = php(8, 7)
    solver = Dpll(hard.num_vars, hard.clauses, "first")
    assert solver.solve(max_decisions=20) == ("TIMEOUT", None)
    assert solver.stats.decisions == 21
    late = Deadline(1.0, start=time.perf_counter() - 2.0)  # already passed
    assert Dpll(hard.num_vars, hard.clauses).solve(late) == ("TIMEOUT", None)
    assert Dpll(hard.num_vars, hard.clauses, "first").solve(Deadline(0.05)) == ("TIMEOUT", None)
    loading = Dpll(hard.num_vars, hard.clauses, deadline=late)
    assert loading.timed_out and loading.solve() == ("TIMEOUT", None)
    assert decide(php(4, 3))[0] == "UNSAT"


def test_pure_literals_are_used_without_proof() -> None:
    cnf = Cnf(4, [[1, 2], [1, 3], [-2, 4], [3, 4]])
    solver = Dpll(cnf.num_vars, cnf.clauses, "first", pure_literals=True)
    status, model = solver.solve()
    assert status == "SAT" and cnf.satisfied_by(model) == []  # type: ignore[arg-type]
    assert {1, 3, 4} <= set(model)  # type: ignore[arg-type]  # all pure: set without branching
    assert solver.stats.decisions == 1  # only x2, which no open clause mentions any more
    assert not Dpll(1, [], pure_literals=True, proof=io.StringIO()).pure_literals


def test_unknown_heuristic() -> None:
    with pytest.raises(ValueError, match="unknown heuristic"):
        Dpll(1, [[1]], "best")


def test_sudoku_puzzles_solve_and_verify(public_data: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    records = list(read_records(public_data / "norvig" / "top95.txt"))[:5]
    records += list(read_records(public_data / "vu_kr_sudoku" / "4x4.txt"))[:3]
    for rec in records:
        assert rec.puzzle is not None
        cnf = encode(rec.puzzle, "extended")
        status, model = decide(cnf)
        assert status == "SAT"
        assert rec.puzzle.check_solution(decode_model(model, rec.puzzle)) == []  # type: ignore[arg-type]
    # a wrong extra given that breaks no rule directly: unsatisfiable, with a checked proof
    puzzle = records[0].puzzle
    assert puzzle is not None
    solution = decode_model(decide(encode(puzzle, "extended"))[1], puzzle)  # type: ignore[arg-type]
    cell = puzzle.givens.index(0)
    cands = [d for d in puzzle.candidates()[cell] if d != solution[cell]]
    assert cands
    wrong = encode(puzzle, "extended").extended([[cell * puzzle.domain + cands[0]]])
    assert decide(wrong)[0] == "UNSAT"


def test_cli_dpll_mode(public_data: Path, tmp_path: Path) -> None:
    from satdoku.cli import main

    sat = public_data / "satlib"
    proof = tmp_path / "p.drup"
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "satdoku.cli", "dpll", "--mode", "dpll", *map(str, a)],
        capture_output=True,
        text=True,
    )
    res = run(sat / "uf20-91" / "uf20-01.cnf", "--heuristic", "jw")
    assert res.returncode == 10
    lines = res.stdout.splitlines()
    assert "s SATISFIABLE" in lines and lines[-1] == "v 0"
    assert any(line.startswith("c decisions ") for line in lines)
    model = [int(t) for line in lines if line.startswith("v ") for t in line[2:].split()][:-1]
    assert read_dimacs(sat / "uf20-91" / "uf20-01.cnf").satisfied_by(model) == []
    uuf = read_dimacs(sat / "uuf50-218" / "uuf50-01.cnf")
    res = run(sat / "uuf50-218" / "uuf50-01.cnf", "--proof", proof)  # LRAT unless asked
    assert res.returncode == 20 and "s UNSATISFIABLE" in res.stdout
    assert "c verified proof" in res.stdout and check_lrat(uuf, proof).ok
    res = run(sat / "uuf50-218" / "uuf50-01.cnf", "--proof", proof, "--proof-format", "drat")
    assert res.returncode == 20 and "c verified proof" in res.stdout
    assert check_proof(uuf, proof).ok
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 2 1\n1 x 0\n")
    res = run(bad)
    assert res.returncode == 1 and "bad.cnf:2: not a literal" in res.stderr
    assert main(["dpll", "--mode", "dpll", "--heuristic", "nope", str(bad)]) == 1


def test_cli_help_imports_nothing_heavy() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from satdoku.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try: main(['dpll', '--help'])\n"
        "    except SystemExit: pass\n"
        "assert '--heuristic' in out.getvalue() and '--proof' in out.getvalue()\n"
        "heavy = {'numpy', 'numba', 'torch', 'ortools', 'matplotlib', 'pandas'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_cli_time_used_up_by_reading_is_a_timeout_before_the_solver_starts(
        public_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A limit that reading the file already used up: UNKNOWN, exit 0, and the solver never
    started (no statistics), as the solve path says for any instance."""
    from satdoku.cli import main

    uuf = public_data / "satlib" / "uuf50-218" / "uuf50-01.cnf"
    for mode in ("dpll", "cdcl"):
        assert main(["dpll", "--mode", mode, "--time-limit", "1e-9", str(uuf)]) == 0
        out = capsys.readouterr().out
        assert "c verified - (time limit reached while encoding)" in out
        assert "s UNKNOWN" in out and "c decisions" not in out
