"""Verification is timed and bounded apart from solving: ``check_seconds`` holds the check, the
solver's figures and its time limit never do, and a proof check that runs out of its own budget
(``verify_time_limit``) leaves the answer UNSAT, unchecked (``-``), with a message: never
TIMEOUT, never ERROR. Through the library, ``satdoku dpll``, ``satdoku solve`` and a workflow."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import run_snakemake

from satdoku.cli import main
from satdoku.config import set_time_limits
from satdoku.formats.record import CnfFile, Record
from satdoku.solve import open_solver, read_formula, solve
from satdoku.solvers.base import RunLimits
from satdoku.solvers.result import PROOF, UNCHECKED
from satdoku.sources import read_snapshot
from satdoku.stagefiles.tsv import TIMES_COLUMNS, read_tsv

BUDGET_MESSAGE = "proof check ran out of its"


def _uuf(public_data: Path, n: int = 1) -> Path:
    return public_data / "satlib" / "uuf50-218" / f"uuf50-0{n}.cnf"


def _solve(path: Path, solver: str, proof: str = "lrat", **kw: object):  # type: ignore[no-untyped-def]
    snapshot = read_snapshot(path)
    formula = read_formula(snapshot.data, str(path))
    record = Record(str(path), 1, 1, "dimacs", name=path.name,
                    cnf=CnfFile(str(path), formula.num_vars, formula.num_clauses,
                                snapshot.sha256))
    spec = {"solver": "dpll" if solver == "dpll" else "cdcl", "proof": proof}
    return solve(record, open_solver("x", {"x": spec}), "dimacs", RunLimits(**kw),
                 formula=formula)


@pytest.mark.parametrize("proof", ["lrat", "drat"])
@pytest.mark.parametrize("solver", ["cdcl", "dpll"])
def test_a_check_out_of_budget_leaves_unsat_unchecked(public_data: Path, solver: str,
                                                      proof: str) -> None:
    answer = _solve(_uuf(public_data), solver, proof, time_limit=30.0, verify_time_limit=1e-6)
    assert answer.status == "UNSAT" and answer.verified == UNCHECKED
    assert BUDGET_MESSAGE in answer.detail and "unchecked" in answer.detail
    checked = _solve(_uuf(public_data), solver, proof, time_limit=30.0)  # default: the limit
    assert checked.status == "UNSAT" and checked.verified == PROOF
    assert checked.result.check_seconds > 0


#: the check of each proof format: (module, function); the solve path's core
#: (satdoku/solver_run.py) imports it from there when an UNSAT answer is certified
CHECKERS = {"drat": ("satdoku.cnf.drat", "check_proof"), "lrat": ("satdoku.cnf.lrat", "check_lrat")}


@pytest.mark.parametrize("proof", ["lrat", "drat"])
def test_the_time_limit_never_holds_the_check(public_data: Path, monkeypatch, proof: str) -> None:  # type: ignore[no-untyped-def]
    """A check slower than the solver's limit: the answer stays UNSAT and proof-checked, its
    time is in check_seconds and not in total_seconds."""
    import importlib

    module, name = CHECKERS[proof]
    checker = importlib.import_module(module)
    real = getattr(checker, name)

    def slow_check(*args, **kwargs):  # type: ignore[no-untyped-def]
        import time

        time.sleep(1.1)
        return real(*args, **kwargs)

    monkeypatch.setattr(checker, name, slow_check)
    answer = _solve(_uuf(public_data), "cdcl", proof, time_limit=1.0, verify_time_limit=30.0)
    assert answer.status == "UNSAT" and answer.verified == PROOF
    assert answer.result.check_seconds >= 1.1 > answer.result.total_seconds


@pytest.mark.parametrize("proof", ["lrat", "drat"])
def test_a_rejected_proof_stays_an_error(public_data: Path, monkeypatch, proof: str) -> None:  # type: ignore[no-untyped-def]
    import importlib

    module, name = CHECKERS[proof]
    checker = importlib.import_module(module)
    real = getattr(checker, name)

    def truncating_check(cnf, path, **kwargs):  # type: ignore[no-untyped-def]
        data = Path(path).read_bytes()
        return real(cnf, data[: len(data) // 3], **kwargs)

    monkeypatch.setattr(checker, name, truncating_check)
    answer = _solve(_uuf(public_data), "cdcl", proof, time_limit=30.0)
    assert answer.status == "ERROR" and "UNSAT proof rejected" in answer.result.message


def _c_lines(out: str) -> dict[str, str]:
    return {ln.split()[1]: ln.split(maxsplit=2)[2] for ln in out.splitlines()
            if ln.startswith("c ") and len(ln.split()) > 2}


def test_cli_dpll_prints_check_seconds_apart(public_data: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["dpll", "--no-model", str(_uuf(public_data, 2))]) == 20
    c = _c_lines(capsys.readouterr().out)
    assert c["verified"].startswith("proof") and float(c["check_seconds"]) > 0
    parts = float(c["parse_seconds"]) + float(c["build_seconds"]) + float(c["solve_seconds"])
    assert abs(float(c["total_seconds"]) - parts) < 1e-5  # total: no check in it


@pytest.mark.parametrize("mode", ["cdcl", "dpll"])
def test_cli_dpll_budget_out_is_unsat_unchecked(public_data: Path, capsys, mode: str) -> None:  # type: ignore[no-untyped-def]
    code = main(["dpll", "--mode", mode, "--time-limit", "30", "--verify-time-limit", "1e-6",
                 str(_uuf(public_data, 3))])
    out = capsys.readouterr().out
    assert code == 20 and "s UNSATISFIABLE" in out
    assert _c_lines(out)["verified"].startswith("-") and BUDGET_MESSAGE in out
    assert main(["dpll", "--verify-time-limit", "0", str(_uuf(public_data, 3))]) == 1


def test_cli_solve_budget_out_is_unsat(public_data: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(_uuf(public_data, 4), tmp_path / "a.cnf")
    assert main(["solve", str(tmp_path), "--solver", "cdcl", "--time-limit", "30",
                 "--verify-time-limit", "1e-6", "--times"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("a.cnf\tInstance Unsatisfiable\tUNSAT")  # a directory: named lines


def test_config_budget_defaults_to_the_sets_limit() -> None:
    config = {"time_limit": 10, "sets": {"a": "x", "b": {"path": "y", "time_limit": 3},
                                         "c": {"path": "z", "verify_time_limit": 7}}}
    assert set_time_limits(config, "a") == (10.0, 10.0)
    assert set_time_limits(config, "b") == (3.0, 3.0)
    assert set_time_limits(config, "c") == (10.0, 7.0)
    assert set_time_limits(config | {"verify_time_limit": 2}, "b") == (3.0, 2.0)


def test_workflow_tiny_check_budget_gives_unsat_unchecked(public_data: Path,
                                                         tmp_path: Path) -> None:
    cnf = tmp_path / "data" / "cnf"
    cnf.mkdir(parents=True)
    for n in (5, 6):
        shutil.copy(_uuf(public_data, n), cnf / f"u{n}.cnf")
    config = {"sets": {"unsat": {"path": "data/cnf", "verify_time_limit": 0.000001}},
              "solvers": {"cdcl": {}}, "time_limit": 20, "check_unique": False}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    sols = "results/SatSols/cdcl/dimacs/unsat.tsv"
    times = "results/SatOutputTimes/cdcl/dimacs/unsat.tsv"
    run_snakemake(tmp_path, "--printshellcmds", sols, times)
    rows = read_tsv(tmp_path / sols)
    assert [r["status"] for r in rows] == ["UNSAT", "UNSAT"]
    assert all(r["verified"] == UNCHECKED and BUDGET_MESSAGE in r["detail"] for r in rows)
    header = (tmp_path / times).read_text().splitlines()[0].split("\t")
    assert header == list(TIMES_COLUMNS) and "check_seconds" in header
    assert all(float(r["check_seconds"]) > 0 for r in read_tsv(tmp_path / times))
