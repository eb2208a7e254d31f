"""The CDCL mode: correct on every SATLIB file and Sudoku set sample (models verified, UNSAT
proofs checked), agrees with MiniSat and with DPLL on random formulas, the numba kernel and its
pure-Python run of the same source behave identically, budgets stop it cleanly, and the
pipeline adapter fills a proper Result."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import minisat, php
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.dimacs_fast import clauses_to_array
from satdoku.cnf.drat import check_proof
from satdoku.cnf.formula import Cnf
from satdoku.solvers.base import Deadline
from satdoku.solvers.cdcl import Cdcl, solve_file
from satdoku.solvers.dpll import Dpll
from satdoku.solvers.own import make_cdcl, make_dpll

cnfs = st.integers(1, 10).flatmap(
    lambda n: st.builds(
        lambda clauses: Cnf(n, clauses),
        st.lists(st.lists(st.integers(1, n) | st.integers(-n, -1), max_size=4), max_size=45),
    )
)


def decide(cnf: Cnf, **options: object) -> tuple[str, list[int] | None, Cdcl]:
    """Solve with proof logging, then check the answer (model or proof)."""
    solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses), proof=True, **options)  # type: ignore[arg-type]
    status, model = solver.solve()
    if status == "SAT":
        assert model is not None and len(model) == cnf.num_vars
        assert cnf.satisfied_by(model) == []
    else:
        assert status == "UNSAT"
        ok, message = check_proof(cnf, solver.proof_lines())
        assert ok, message
    return status, model, solver


def test_every_satlib_file_is_decided_correctly(public_data: Path) -> None:
    files = sorted((public_data / "satlib").glob("*/*.cnf"))
    assert len(files) == 63
    for path in files:
        expected = "UNSAT" if path.name.startswith("uuf") else "SAT"
        assert decide(read_dimacs(path))[0] == expected, path.name


@pytest.mark.parametrize("restarts", ["glucose", "luby", "none"])
@pytest.mark.parametrize("phase", ["negative", "positive"])
def test_options_stay_correct(public_data: Path, restarts: str, phase: str) -> None:
    for path in sorted((public_data / "satlib" / "uuf50-218").glob("*.cnf"))[:4]:
        assert decide(read_dimacs(path), restarts=restarts, phase=phase)[0] == "UNSAT"
    assert decide(php(7, 6), restarts=restarts, phase=phase)[0] == "UNSAT"


def test_reduction_and_garbage_collection_keep_proofs_valid() -> None:
    status, _, solver = decide(php(7, 6), reduce_first=50, reduce_inc=20)
    assert status == "UNSAT"
    stats = solver.stats
    assert stats["reductions"] >= 3 and stats["deleted"] > 100 and stats["collections"] >= 1
    assert any(line.startswith("d ") for line in solver.proof_lines())


def test_pure_python_kernel_runs_the_same_search(public_data: Path) -> None:
    """Same source, same arithmetic: identical statistics and models, step for step."""
    sat = public_data / "satlib"
    cases = [read_dimacs(sat / "uf50-218" / "uf50-01.cnf"),
             read_dimacs(sat / "uuf50-218" / "uuf50-02.cnf"), php(6, 5)]  # fmt: skip
    for cnf in cases:
        runs = []
        for pure in (False, True):
            solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses), proof=True, pure=pure,
                          reduce_first=30, reduce_inc=10)  # fmt: skip
            runs.append((solver.solve(), solver.stats, solver.proof_lines()))
        assert runs[0] == runs[1]


@settings(max_examples=200, deadline=None)
@given(cnfs)
def test_agrees_with_minisat_and_dpll_on_random_formulas(cnf: Cnf) -> None:
    expected = "SAT" if minisat(cnf) else "UNSAT"
    assert decide(cnf)[0] == expected
    assert Dpll(cnf.num_vars, cnf.clauses).solve()[0] == expected


@settings(max_examples=25, deadline=None)
@given(cnfs)
def test_pure_python_kernel_on_random_formulas(cnf: Cnf) -> None:
    assert decide(cnf, pure=True)[0] == ("SAT" if minisat(cnf) else "UNSAT")


def test_random_3sat_near_the_threshold_against_minisat() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = 60
        clauses = [
            [int(v) * int(s) for v, s in zip(rng.choice(np.arange(1, n + 1), 3, replace=False),
                                           rng.choice([-1, 1], 3), strict=True)]
            for _ in range(int(4.26 * n))
        ]  # fmt: skip
        cnf = Cnf(n, clauses)
        assert decide(cnf)[0] == ("SAT" if minisat(cnf) else "UNSAT")


def test_edge_cases() -> None:
    assert decide(Cnf(0, []))[0] == "SAT"
    assert decide(Cnf(3, [[]]))[0] == "UNSAT"
    assert decide(Cnf(2, [[1], [-1]]))[0] == "UNSAT"
    status, model, _ = decide(Cnf(3, [[1, -1], [2, 2], [-3]]))
    assert status == "SAT" and model is not None and model[1:] == [2, -3]


def test_budgets_stop_cleanly() -> None:
    hard = php(9, 8)
    solver = Cdcl(hard.num_vars, clauses_to_array(hard.clauses))
    assert solver.solve(max_conflicts=100) == ("TIMEOUT", None)
    assert 100 <= solver.stats["conflicts"] < 150  # checked before each decision
    assert solver.solve(time_limit=0.0) == ("TIMEOUT", None)
    assert solver.stats["conflicts"] > 100  # resumed where it stopped, not restarted
    with pytest.raises(ValueError, match="restart"):
        Cdcl(1, clauses_to_array([[1]]), restarts="sometimes")


def _sudoku_records(public_data: Path) -> list:  # type: ignore[type-arg]
    from satdoku.formats import read_records

    d = public_data
    records = list(read_records(d / "norvig" / "top95.txt"))[:10]
    records += list(read_records(d / "tdoku_benchmarks" / "puzzles6_forum_hardest_1106.txt"))[:10]
    records += list(read_records(d / "vu_kr_sudoku" / "16x16.txt"))[:3]
    return records


def test_sudoku_puzzles_solve_and_verify(public_data: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode

    solver = make_cdcl()
    for rec in _sudoku_records(public_data):
        assert rec.puzzle is not None, rec
        result = solver.solve_cnf(encode(rec.puzzle, "extended"), Deadline(None))
        assert result.status == "SAT"
        board = decode_model(result.model, rec.puzzle)  # type: ignore[arg-type]
        assert rec.puzzle.check_solution(board) == []


@pytest.mark.slow
def test_large_grid_25x25(public_data: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    rec = next(iter(read_records(public_data / "large_grids_bnguyen" / "25x25.txt")))
    assert rec.puzzle is not None and rec.puzzle.domain == 25
    result = make_cdcl().solve_cnf(encode(rec.puzzle, "extended"), Deadline(None))
    assert result.status == "SAT"
    assert rec.puzzle.check_solution(decode_model(result.model, rec.puzzle)) == []  # type: ignore[arg-type]


def test_adapter_result_proof_and_version(public_data: Path, tmp_path: Path) -> None:
    path = public_data / "satlib" / "uuf50-218" / "uuf50-05.cnf"
    cnf = read_dimacs(path)
    solver = make_cdcl()
    assert solver.writes_proofs and solver.name == "cdcl"
    proof = tmp_path / "p.drup"
    result = solver.solve_cnf(cnf, Deadline(10), proof_path=str(proof))
    assert result.status == "UNSAT" and result.proof == str(proof)
    assert check_proof(cnf, proof)[0]
    assert {"decisions", "conflicts", "propagations", "restarts", "learnt"} <= set(result.stats)
    assert 0 < result.solve_seconds <= result.total_seconds
    again = solver.solve_dimacs(str(path))
    assert again.status == "UNSAT" and again.stats == result.stats
    uf50 = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-03.cnf")
    sat = solver.solve_cnf(uf50, Deadline(None))
    assert sat.status == "SAT" and sat.proof is None
    timeout = make_cdcl(max_conflicts=5).solve_cnf(php(9, 8).extended([]), Deadline(None))
    assert timeout.status == "TIMEOUT" and timeout.model is None
    versions = {make_cdcl().version, make_cdcl(restarts="luby").version,
                make_dpll().version, make_dpll(heuristic="jw").version}  # fmt: skip
    assert len(versions) == 4 and make_cdcl().version == solver.version
    dres = make_dpll(heuristic="dlis").solve_cnf(cnf, Deadline(None), proof_path=str(proof))
    assert dres.status == "UNSAT" and check_proof(cnf, proof)[0]


def test_cli_cdcl_mode(public_data: Path, tmp_path: Path) -> None:
    sat = public_data / "satlib"
    proof = tmp_path / "p.drup"
    cmd = [sys.executable, "-m", "satdoku.cli", "dpll"]
    res = subprocess.run([*cmd, str(sat / "uuf50-218" / "uuf50-07.cnf"), "--proof", str(proof),
                          "--restarts", "luby"], capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 20, res.stderr
    assert "s UNSATISFIABLE" in res.stdout and "c conflicts " in res.stdout
    assert check_proof(read_dimacs(sat / "uuf50-218" / "uuf50-07.cnf"), proof)[0]
    res = subprocess.run([*cmd, str(sat / "flat50-115" / "flat50-3.cnf")], capture_output=True,
                         text=True)  # fmt: skip
    assert res.returncode == 10
    model = [
        int(t) for ln in res.stdout.splitlines() if ln.startswith("v ") for t in ln[2:].split()
    ]
    assert read_dimacs(sat / "flat50-115" / "flat50-3.cnf").satisfied_by(model[:-1]) == []
    res = subprocess.run([*cmd, str(sat / "uf20-91" / "uf20-01.cnf"), "--heuristic", "jw"],
                         capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 1 and "vsids only" in res.stderr


def test_solve_file_reports_phase_times(public_data: Path) -> None:
    res = solve_file(public_data / "satlib" / "uf20-91" / "uf20-02.cnf")
    assert res.status == "SAT" and set(res.times) >= {"parse", "build", "solve"}
