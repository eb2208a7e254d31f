"""CNF sets end to end: a directory of DIMACS files (one gzipped, SATLIB '%' trailers, SAT and
UNSAT) runs through the real workflow beside a puzzle set: one instance per file in sorted name
order, statuses right, SAT models verified clause by clause, our UNSAT answers proof-checked,
puzzle-level solvers skipped with a note, the set in the summary as its own family."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import TINY, run_snakemake

from satdoku.stagefiles.tsv import read_tsv

pytestmark = pytest.mark.slow

FILES = {  # name in the set -> (file under data/public/satlib, expected status)
    "a_uf20-01.cnf": ("uf20-91/uf20-01.cnf", "SAT"),
    "b_uuf50-01.cnf.gz": ("uuf50-218/uuf50-01.cnf", "UNSAT"),
    "c_flat50-1.cnf": ("flat50-115/flat50-1.cnf", "SAT"),
    "d_uuf50-02.cnf": ("uuf50-218/uuf50-02.cnf", "UNSAT"),
}
SOLVERS = ("minisat22", "cadical195", "dpll", "cdcl")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, public_data: Path) -> Path:
    d = tmp_path_factory.mktemp("cnfset")
    cnf = d / "data" / "cnf"
    cnf.mkdir(parents=True)
    for name, (src, _) in FILES.items():
        data = (public_data / "satlib" / src).read_bytes()
        assert b"%" in data or "flat" in src  # SATLIB trailers are part of the test
        (cnf / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    (cnf / "notes.txt").write_text("not a DIMACS file: not an instance\n")
    shutil.copy(TINY / "mixed9.txt", d / "data" / "mixed9.txt")
    big = (public_data / "vu_kr_sudoku" / "16x16.txt").read_text().splitlines()[:2]
    (d / "data" / "big16.txt").write_text("\n".join(big) + "\n")
    config = {"sets": {"satlib": "data/cnf", "tiny9": "data/mixed9.txt",
                       "big16": "data/big16.txt"},
              "solvers": {**{s: {} for s in SOLVERS}, "cpsat": {}},
              "time_limit": 20, "shard_size": 3, "size_limits": {"max_cells": 100}}
    (d / "config.yaml").write_text(yaml.safe_dump(config))
    run_snakemake(d)
    return d


def test_statuses_models_and_proofs(run_dir: Path) -> None:
    expected = [status for _, status in FILES.values()]
    for solver in SOLVERS:
        rows = read_tsv(run_dir / f"results/SatSols/{solver}/dimacs/satlib.tsv")
        assert [r["status"] for r in rows] == expected, solver
        for r in rows:
            if r["status"] == "SAT":
                assert r["verified"] == "yes" and r["solution"].endswith(" 0")
            elif solver in ("dpll", "cdcl"):
                assert r["verified"] == "proof", (solver, r)
        times = read_tsv(run_dir / f"results/SatOutputTimes/{solver}/dimacs/satlib.tsv")
        assert [t["id"] for t in times] == ["1", "2", "3", "4"]


def test_instances_are_the_files_in_name_order(run_dir: Path) -> None:
    import json

    lines = []
    for shard in sorted((run_dir / "results/Instances/satlib").glob("*.jsonl")):
        lines += [json.loads(x) for x in shard.read_text().splitlines()[1:]]  # header first
    assert [d["name"] for d in lines] == list(FILES)
    assert all(d["kind"] == "cnf" and len(d["sha256"]) == 64 for d in lines)
    assert lines[0]["vars"] == 20 and lines[0]["clauses"] == 91


def test_puzzle_solvers_skip_the_cnf_set_and_the_summary_has_it(run_dir: Path) -> None:
    assert not (run_dir / "results/SatSols/cpsat/direct/satlib.tsv").exists()
    assert (run_dir / "results/SatSols/cpsat/direct/tiny9.tsv").exists()
    report = (run_dir / "results/Reports/satlib.txt").read_text()
    assert "not run on this set: cpsat" in report
    assert "OK satlib" in (run_dir / "results/Reports/satlib.check").read_text()
    summary = (run_dir / "reports/summary.md").read_text()
    assert "| satlib | cdcl | dimacs | 4 | 4 | 2 | 2 |" in summary
    assert (run_dir / "reports/cactus/cnf.png").exists()


def test_the_size_guard_of_the_config_holds_in_the_workflow(run_dir: Path) -> None:
    rows = read_tsv(run_dir / "results/SatSols/minisat22/extended/big16.tsv")
    assert [r["status"] for r in rows] == ["INVALID", "INVALID"]
    assert all("too large: 256 cells, the limit is 100" in r["detail"] for r in rows)
