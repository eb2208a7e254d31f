"""End-to-end: the real Snakefile on the tiny config in a temporary directory."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from conftest import copy_tiny, run_snakemake

pytestmark = pytest.mark.slow


def snakemake(workdir: Path, *args: str, config: Path | None = None) -> str:
    return run_snakemake(workdir, *args, config=config)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    d = copy_tiny(tmp_path_factory.mktemp("e2e"))
    snakemake(d)
    return d


def test_every_stage_file_is_written(run_dir):
    r = run_dir / "results"
    assert sorted(p.name for p in (r / "Instances" / "tiny9").iterdir()) == [
        "00000.jsonl", "00001.jsonl", "00002.jsonl"]  # 10 lines, shard size 4
    for solver in ("minisat22", "cadical195"):
        out = (r / "SatOutput" / solver / "extended" / "tiny9" / "00000.out").read_text()
        assert "s SATISFIABLE" in out and re.search(r"^v .* 0$", out, re.M)
        times = (r / "SatOutputTimes" / solver / "extended" / "tiny9.tsv").read_text().splitlines()
        assert times[0].startswith("id\tline\tinstance_hash\tstatus\tsolve_seconds\ttotal_seconds")
        assert len(times) == 11
    cnf = (r / "SatInput" / "extended" / "tiny4" / "00000.cnfs").read_text()
    assert "c rules sudoku-4.extended" in cnf and "p cnf 64 " in cnf
    assert (r / "Reports" / "tiny9_time.png").stat().st_size > 5000


def test_sat_sols_lines_in_input_order(run_dir):
    sols = (run_dir / "results/SatSols/minisat22/extended/tiny9.txt").read_text().splitlines()
    assert len(sols) == 10
    assert sols[6].startswith("Instance Invalid: 80 cells")
    assert sols[7].startswith("Instance Invalid: symbol 'X'")
    assert sols[9] == "Instance Unsatisfiable"
    assert all(len(s) == 81 and s.isdigit() for i, s in enumerate(sols) if i not in (6, 7, 9))
    four = (run_dir / "results/SatSols/cadical195/extended/tiny4.txt").read_text().splitlines()
    assert four[1].startswith("2 ") and len(four[1]) == 18  # written back in 'n digits' form
    assert four[-1] == "Instance Unsatisfiable"


def test_report_and_check(run_dir):
    report = (run_dir / "results/Reports/tiny9.txt").read_text()
    assert "All answers verified; no disagreement" in report
    assert "Instance 7 (line 7)" in report and "Instance Invalid" in report
    assert "minisat22/extended: SAT (verified: yes)" in report
    assert (run_dir / "results/Reports/tiny9.check").read_text().startswith("OK tiny9")


def test_uniqueness_is_checked_and_reported(run_dir):
    rows = (run_dir / "results/Reports/tiny4_unique.tsv").read_text().splitlines()
    verdicts = [r.split("\t")[3] for r in rows[1:]]
    # the empty 4x4 board has many solutions, the duplicate-given board none
    assert verdicts == ["several", "unique", "unique", "unique", "unique", "unique", "none"]
    report = (run_dir / "results/Reports/tiny4.txt").read_text()
    assert "5 unique, 1 several, 1 none" in report
    assert "puzzles with more than one solution (1):\n!!! 1\n" in report
    nine = (run_dir / "results/Reports/tiny9_unique.tsv").read_text()
    assert nine.count("\tunique\t") == 7 and nine.count("\tnone\t") == 1
    assert "7\t7\t\tinvalid" in nine  # invalid lines keep their line number


def _dry_run_commands(workdir: Path, config: Path | None = None) -> str:
    return snakemake(workdir, "-n", "-p", config=config)


def _jobs(out: str) -> list[tuple[str, str]]:
    """(rule, job description) of every job a dry run would execute, except the target rule."""
    jobs = re.findall(r"^(?:local)?rule (\w+):\n((?:[ \t]+.*\n?)+)", out, re.M)
    return [(rule, body) for rule, body in jobs if rule != "all"]


def test_changing_one_set_reruns_only_that_set(run_dir):
    assert "Nothing to be done" in _dry_run_commands(run_dir)
    f = run_dir / "data" / "sudokusolver_4x4.txt"
    before = f.read_text()
    # Snakemake compares checksums of small inputs, so a mere touch is (rightly) not a change
    now = time.time() + 5
    os.utime(f, (now, now))
    assert "Nothing to be done" in _dry_run_commands(run_dir)
    f.write_text(before.replace("2 0240100340020130", "2 0240100340020100", 1))
    os.utime(f, (now + 5, now + 5))
    try:
        jobs = _jobs(_dry_run_commands(run_dir))
        assert {"normalize", "encode", "solve_cnf", "report_set"} <= {r for r, _ in jobs}
        per_set = [body for _, body in jobs if "set=" in body]
        assert per_set and all("set=tiny4" in body for body in per_set)
        # cross-set summaries (no set wildcard) are rebuilt too, as they should be
    finally:
        f.write_text(before)


def test_changing_one_solver_reruns_only_its_jobs(run_dir, tmp_path):
    cfg = (run_dir / "config.yaml").read_text()
    changed = cfg.replace("cadical195: {}", "cadical195: {note: changed}")
    assert changed != cfg
    cfg2 = run_dir / "config_changed.yaml"
    cfg2.write_text(changed)
    jobs = _jobs(_dry_run_commands(run_dir, cfg2))
    solve_jobs = [body for rule, body in jobs if rule == "solve_cnf"]
    assert len(solve_jobs) == 5  # every shard of both sets, for cadical195 only
    assert all("cadical195" in body and "minisat22" not in body for body in solve_jobs)
    assert not {"normalize", "encode"} & {r for r, _ in jobs}
    assert not [body for _, body in jobs if "solver=minisat22" in body]


def test_extract_gives_a_standalone_dimacs_any_solver_accepts(run_dir, tmp_path):
    from pysat.formula import CNF
    from pysat.solvers import Minisat22

    from satdoku.cli import main

    cwd = os.getcwd()
    os.chdir(run_dir)
    try:
        assert main(["extract", "tiny9", "6", "-o", str(tmp_path / "x.cnf")]) == 0
        assert main(["extract", "tiny9", "10", "--solver", "minisat22",
                     "-o", str(tmp_path / "x.out")]) == 0
        assert main(["extract", "tiny9", "99"]) == 1
        # the same instance by its instance_hash, the one every stage file carries for it
        from satdoku.stagefiles.tsv import read_tsv

        times = read_tsv("results/SatOutputTimes/minisat22/extended/tiny9.tsv")
        sols = read_tsv("results/SatSols/cadical195/extended/tiny9.tsv")
        h = times[1]["instance_hash"]
        assert len(h) == 32 and sols[1]["instance_hash"] == h
        assert times[6]["instance_hash"] == ""  # INVALID
        # lines 6 and 9 repeat the puzzles of lines 1 and 3: the same instance, the same hash
        assert times[5]["instance_hash"] == times[0]["instance_hash"]
        assert len({t["instance_hash"] for t in times}) == 7  # 6 distinct puzzles + ""
        assert main(["extract", "tiny9", h, "-o", str(tmp_path / "h.cnf")]) == 0
        assert main(["extract", "tiny9", "2", "-o", str(tmp_path / "2.cnf")]) == 0
        assert main(["extract", "tiny9", "0" * 32]) == 1
    finally:
        os.chdir(cwd)
    assert (tmp_path / "h.cnf").read_text() == (tmp_path / "2.cnf").read_text()
    f = CNF(from_file=str(tmp_path / "x.cnf"))
    assert len(f.clauses) > 11000
    with Minisat22(bootstrap_with=f.clauses) as s:
        assert s.solve()
    assert "s UNSATISFIABLE" in (tmp_path / "x.out").read_text()


def test_run_record_and_compare_a_planted_regression(run_dir, tmp_path):
    """Two real runs: the tiny run (A) and a copy whose gathered results get a planted flip
    (minisat22 says SAT on tiny9 #10, which is UNSAT) and slowdown (cadical195 5x slower on
    tiny9), recorded again by the workflow's run_record rule (B). `satdoku compare` joins them
    by instance_hash, exits 1 and names the flip; the unchanged runs keep ratio 1."""
    import csv
    import json
    import shutil

    from satdoku.cli import main
    from satdoku.stagefiles.tsv import read_tsv, write_tsv

    a = run_dir / "results"
    manifest_a = json.loads((a / "run.json").read_text())
    assert {s["name"] for s in manifest_a["solvers"]} == {"minisat22", "cadical195"}
    assert manifest_a["machine"]["cores"] >= 1 and manifest_a["start"] <= manifest_a["end"]
    assert (a / "runs" / f"{manifest_a['run_id']}.parquet").is_file()
    with open(run_dir / "reports" / "instances_wide.csv", newline="") as fh:
        wide = list(csv.DictReader(fh))
    assert len(wide) == 17 and wide[-1]["minisat22/extended status"] == "UNSAT"
    assert "## Run" in (run_dir / "reports" / "summary.md").read_text()

    b_dir = tmp_path / "b"
    shutil.copytree(run_dir, b_dir, symlinks=True)
    b = b_dir / "results"
    for sub in ("SatSols", "SatOutputTimes"):
        p = b / sub / "minisat22" / "extended" / "tiny9.tsv"
        rows = read_tsv(p)
        assert rows[9]["status"] == "UNSAT"
        rows[9]["status"] = "SAT"
        write_tsv(rows, p, list(rows[0]))
    p = b / "SatOutputTimes" / "cadical195" / "extended" / "tiny9.tsv"
    rows = read_tsv(p)
    for r in rows:
        r["total_seconds"] = f"{float(r['total_seconds']) * 5:.6f}"
    write_tsv(rows, p, list(rows[0]))
    snakemake(b_dir, "--forcerun", "run_record", "--until", "run_record")
    manifest_b = json.loads((b / "run.json").read_text())
    assert manifest_b["run_id"] != manifest_a["run_id"]
    stored_b = b / "runs" / f"{manifest_b['run_id']}.parquet"

    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(stored_b), "--out", str(out)]) == 1
    with open(out / "compare.csv", newline="") as fh:
        rows = {(r["set"], r["solver"]): r for r in csv.DictReader(fh)}
    assert float(rows[("tiny9", "cadical195")]["median_ratio"]) == pytest.approx(5, rel=1e-3)
    assert float(rows[("tiny9", "minisat22")]["median_ratio"]) == 1
    assert rows[("tiny9", "minisat22")]["status_changes"] == "1"
    assert rows[("tiny4", "cadical195")]["status_changes"] == "0"
    # by instance_hash: tiny9's repeated puzzles (lines 6 and 9) count once, invalid ones not
    assert rows[("tiny9", "minisat22")]["n"] == "6"
    page = (out / "compare.html").read_text()
    flip_hash = read_tsv(a / "SatSols" / "minisat22" / "extended" / "tiny9.tsv")[9]["instance_hash"]
    assert "1 answer(s) flipped between SAT and UNSAT" in page and flip_hash in page

    cwd = os.getcwd()
    os.chdir(b_dir)
    try:
        from contextlib import redirect_stdout
        from io import StringIO

        buf = StringIO()
        with redirect_stdout(buf):
            assert main(["runs"]) == 0
    finally:
        os.chdir(cwd)
    listed = buf.getvalue()
    assert listed.index(manifest_a["run_id"]) < listed.index(manifest_b["run_id"])
    assert manifest_b["machine"]["cpu"] in listed
