"""Solver binaries as solvers (satdoku/solvers/external.py): the command contract, output
parsing, limits and no process left behind, in the solve path, the CLI and the workflow.
Debian's cadical, picosat and minisat are installed by .ci/run; tests that need one skip
only when it is missing on a developer machine."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import copy_tiny, line_record, run_snakemake, still_alive

from satdoku.formats import Record
from satdoku.puzzle import sudoku
from satdoku.solve import open_solver, solve
from satdoku.solvers.external import (
    ExternalError,
    fill,
    parse_output,
    parse_result_file,
    split_command,
)
from satdoku.solvers.registry import colour, origin, solver_version
from satdoku.stagefiles.tsv import read_tsv

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
BINARIES = ("cadical", "picosat", "minisat")
needs = {b: pytest.mark.skipif(shutil.which(b) is None, reason=f"{b} not installed")
         for b in BINARIES}
HOG = "import sys\nx = []\nwhile True:\n    x.append(bytearray(50 * 2**20))\n"



UNSAT_REC = Record("u.txt", 1, 1, "line", puzzle=sudoku([1, 1] + [0] * 79))


def _ext(command: str, **more: object) -> dict[str, dict[str, object]]:
    return {"bin": {"solver": "external", "command": command, **more}}


def test_commands_are_word_lists_with_checked_placeholders() -> None:
    assert split_command("cadical -q {cnf} {proof}", "drat") == ["cadical", "-q", "{cnf}",
                                                                 "{proof}"]
    assert split_command("'my solver' --in={cnf}") == ["my solver", "--in={cnf}"]
    for bad, proof in (("cadical -q", None), ("cadical {cnf} {proof}", None),
                       ("cadical {cnf}", "drat"), ("s {cnf} {model}", None), ("", None),
                       ("s 'unclosed {cnf}", None)):
        with pytest.raises(ExternalError):
            split_command(bad, proof)
    hostile = "/tmp/a b'c\"$(touch PWNED)`id`;rm -rf x/i.cnf"
    assert fill(["solver", "--file={cnf}", "{cnf}"], {"cnf": hostile}) == [
        "solver", f"--file={hostile}", hostile]  # one word each, never re-split


def test_output_contract_parsing() -> None:
    assert parse_output("c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n") == ("SAT", [1, -2, 3])
    assert parse_output("s UNSATISFIABLE\n") == ("UNSAT", None)
    assert parse_output("s UNKNOWN\n") == ("UNKNOWN", None)
    assert parse_output("hello\n") == (None, None)
    assert parse_output("s MAYBE\n")[0].startswith("bad s line")
    with pytest.raises(ValueError):
        parse_output("s SATISFIABLE\nv 1 x 0\n")
    status, model = parse_result_file("SAT\n1 -2 3 0\n")
    assert status == "SAT" and model is not None and model.tolist() == [1, -2, 3]
    assert parse_result_file(b"SAT\n")[1].tolist() == []  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="not a literal: '3x'"):
        parse_result_file("SAT\n1 3x 0\n")
    assert parse_result_file("UNSAT\n") == ("UNSAT", None)
    assert parse_result_file("INDET\n") == ("UNKNOWN", None)


def test_the_registry_and_config_know_an_external_solver(tmp_path: Path) -> None:
    from satdoku.config import ConfigError, solvers_of_file

    variants = _ext("true {cnf}", origin="ours", colour="#123456",
                    version_command="true --version")
    assert origin("bin", variants) == "ours" and colour("bin", variants) == "#123456"
    assert "sha256" in solver_version("bin", variants)
    assert origin("bin", _ext("true {cnf}")) == "reference"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"solvers": _ext("mysolver")}))
    with pytest.raises(ConfigError, match=r"solvers\.bin: command 'mysolver' has no \{cnf\}"):
        solvers_of_file(cfg)
    cfg.write_text(yaml.safe_dump({"solvers": {"bin": {"solver": "external"}}}))
    with pytest.raises(ConfigError, match="command"):
        solvers_of_file(cfg)


def test_a_new_binary_changes_the_version(tmp_path: Path) -> None:
    binary = tmp_path / "mysolver"
    binary.write_text("#!/bin/sh\necho s UNKNOWN\n")
    binary.chmod(0o755)
    before = solver_version("bin", _ext(f"{binary} {{cnf}}"))
    from satdoku.solvers.external import identity

    identity.cache_clear()
    binary.write_text("#!/bin/sh\necho s UNKNOWN # v2\n")
    assert solver_version("bin", _ext(f"{binary} {{cnf}}")) != before


@needs["cadical"]
def test_cadical_answers_are_verified_and_its_proofs_checked() -> None:
    solver = open_solver("bin", _ext("cadical -q {cnf} {proof}", proof="drat"))
    sat = solve(line_record(EASY), solver, "extended", 20)
    assert sat.status == "SAT" and sat.verified == "yes"
    unsat = solve(UNSAT_REC, solver, "extended", 20)
    assert unsat.status == "UNSAT" and unsat.verified == "proof"
    assert unsat.result.proof_checked and unsat.result.termination == "exit"
    assert unsat.result.cpu_seconds > 0 and 0 < unsat.result.max_rss_mb < 200


@needs["cadical"]
def test_a_rejected_proof_is_an_error() -> None:
    # the binary answers UNSAT with a proof that refutes nothing (an empty file)
    solver = open_solver("bin", _ext(
        "sh -c 'echo s UNSATISFIABLE; : > \"$1\"; exit 20' sh {cnf} {proof}", proof="drat"))
    answer = solve(UNSAT_REC, solver, "extended", 20)
    assert answer.status == "ERROR" and "proof" in answer.result.message


@needs["minisat"]
@needs["picosat"]
def test_minisat_result_file_and_picosat_stdout() -> None:
    for command in ("minisat -verb=0 {cnf} {result}", "picosat {cnf}"):
        solver = open_solver("bin", _ext(command))
        assert solve(line_record(EASY), solver, "extended", 20).verified == "yes", command
        unsat = solve(UNSAT_REC, solver, "extended", 20)
        assert unsat.status == "UNSAT" and unsat.verified == "-"  # no proof: agreement decides


@pytest.mark.parametrize(("command", "why"), [
    ("false {cnf}", "no answer (exit code 1)"),
    ("sh -c 'echo s SATISFIABLE; echo v 1 0; echo boom >&2; exit 3' sh {cnf}",
     "answered SAT with exit code 3: boom"),
    ("sh -c 'echo s SATISFIABLE; echo v 1 two 0' sh {cnf}", "garbage"),
    ("sh -c 'echo s UNKNOWN; exit 0' sh {cnf}", "UNKNOWN before the limit"),
    ("sh -c 'kill -SEGV $$' sh {cnf}", "killed by a signal"),
    ("no-such-binary-here {cnf}", "cannot run no-such-binary-here: no such program"),
])
def test_failures_are_errors_with_the_reason(command: str, why: str) -> None:
    answer = solve(line_record(EASY), open_solver("bin", _ext(command)), "extended", 10)
    assert answer.status == "ERROR" and why in answer.result.message, answer.result.message
    assert answer.sols_row(line_record(EASY))["solution"].startswith("Instance Error")


def test_a_wrong_model_fails_verification() -> None:
    command = "sh -c 'echo s SATISFIABLE; echo v 1 2 3 0; exit 10' sh {cnf}"
    answer = solve(line_record(EASY), open_solver("bin", _ext(command)), "extended", 10)
    assert answer.verified == "FAILED" and "does not decode" in answer.detail


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _alive(pattern: str) -> list[str]:
    found = subprocess.run(["ps", "-eo", "stat=,args="], capture_output=True, text=True)
    return [ln for ln in found.stdout.splitlines()
            if pattern in ln and not ln.lstrip().startswith("Z")]


def test_a_sleeping_binary_times_out_and_leaves_no_process() -> None:
    marker = f"sleep 61.{time.monotonic_ns() % 1000:03d}"
    solver = open_solver("bin", _ext(f"sh -c '{marker} & {marker}' sh {{cnf}}"))
    answer = solve(line_record(EASY), solver, "extended", 0.5)
    assert answer.status == "TIMEOUT" and answer.result.termination == "timelimit"
    assert still_alive(lambda: _alive(marker)) == []  # the group, grandchild included, is gone
    if shutil.which("time", path="/usr/bin:/bin") is not None:  # GNU time reports the binary
        assert answer.result.max_rss_mb < 10  # the shell's own peak, not this process's


def test_a_memory_hog_is_memout(tmp_path: Path) -> None:
    hog = tmp_path / "hog.py"
    hog.write_text(HOG)
    solver = open_solver("bin", _ext(f"{sys.executable} {hog} {{cnf}}", memory_limit=200))
    answer = solve(line_record(EASY), solver, "extended", 20)
    assert answer.status == "MEMOUT" and answer.result.termination == "memlimit"
    assert "memory limit of 200 MB reached" in answer.result.message


@needs["cadical"]
def test_hostile_paths_do_not_inject(tmp_path: Path) -> None:
    work = tmp_path / "a b'c\"$(touch PWNED)`touch PWNED2`;x"
    work.mkdir()
    solver = open_solver("bin", _ext("cadical -q {cnf} {proof}", proof="drat"))
    answer = solve(UNSAT_REC, solver, "extended", 20, workdir=str(work))
    assert answer.verified == "proof"
    assert not list(tmp_path.rglob("PWNED*")) and not Path("PWNED").exists()


@needs["cadical"]
def test_cli_command_and_configfile(tmp_path: Path) -> None:
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(EASY + "\n" + "11" + "." * 79 + "\n")
    cfg = tmp_path / "my.yaml"
    cfg.write_text(yaml.safe_dump({"solvers": _ext("cadical -q {cnf} {proof}", proof="drat")}))
    for args in (["--command", "cadical -q {cnf}"], ["--solver", "bin", "--configfile", str(cfg)]):
        done = subprocess.run([sys.executable, "-m", "satdoku", "solve", str(puzzles), *args],
                              capture_output=True, text=True, timeout=120)
        lines = done.stdout.splitlines()
        assert done.returncode == 0 and len(lines) == 2, done.stderr
        assert lines[0].isdigit() and lines[1] == "Instance Unsatisfiable"


@pytest.mark.slow
@needs["cadical"]
@needs["picosat"]
@needs["minisat"]
def test_binaries_through_the_workflow(tmp_path: Path) -> None:
    """The tiny sets through cadical (proofs), picosat, minisat, a `false` binary (ERROR rows,
    problems), a sleeping one (TIMEOUT, no process left) and a memory hog (MEMOUT)."""
    d = copy_tiny(tmp_path / "run dir 'x'")
    hog = d / "hog.py"
    hog.write_text(HOG)
    marker = f"sleep 62.{time.monotonic_ns() % 1000:03d}"
    cfg = yaml.safe_load((d / "config.yaml").read_text())
    cfg["sets"] = {"tiny9": {"path": cfg["sets"]["tiny9"], "time_limit": 2}}
    cfg["check_unique"] = False
    cfg["shard_size"] = 10  # one shard: one job per solver
    cfg["solvers"] = {
        "cadical-bin": {"solver": "external", "command": "cadical -q {cnf} {proof}",
                        "proof": "drat", "version_command": "cadical --version"},
        "picosat-bin": {"solver": "external", "command": "picosat {cnf}"},
        "minisat-bin": {"solver": "external", "command": "minisat -verb=0 {cnf} {result}",
                        "origin": "ours"},
        "false-bin": {"solver": "external", "command": "false {cnf}"},
        "sleep-bin": {"solver": "external", "command": f"sh -c '{marker} & {marker}' sh {{cnf}}"},
        "hog-bin": {"solver": "external", "command": f"python3 {shlex.quote(str(hog))} {{cnf}}",
                    "memory_limit": 80},
    }
    (d / "config.yaml").write_text(yaml.safe_dump(cfg))
    run_snakemake(d, "--rerun-incomplete",  # a flag: the targets are not read as config files
                  *[f"results/SatSols/{s}/extended/tiny9.tsv" for s in cfg["solvers"]],
                  "results/SatOutputTimes/hog-bin/extended/tiny9.tsv", "results/Reports/tiny9.txt",
                  "reports/summary.csv", "reports/explorer/index.html")
    sols = {s: read_tsv(d / f"results/SatSols/{s}/extended/tiny9.tsv") for s in cfg["solvers"]}
    statuses = {s: [r["status"] for r in rows] for s, rows in sols.items()}
    assert statuses["cadical-bin"] == statuses["picosat-bin"] == statuses["minisat-bin"]
    assert statuses["cadical-bin"].count("SAT") == 7 and statuses["cadical-bin"][-1] == "UNSAT"
    assert sols["cadical-bin"][-1]["verified"] == "proof"
    assert sols["picosat-bin"][-1]["verified"] == "-"
    assert {r["verified"] for r in sols["minisat-bin"] if r["status"] == "SAT"} == {"yes"}
    valid = [i for i, s in enumerate(statuses["cadical-bin"]) if s != "INVALID"]
    assert {statuses["false-bin"][i] for i in valid} == {"ERROR"}
    assert {statuses["sleep-bin"][i] for i in valid} == {"TIMEOUT"}
    assert {statuses["hog-bin"][i] for i in valid} == {"MEMOUT"}
    assert _alive(marker) == []
    times = read_tsv(d / "results/SatOutputTimes/hog-bin/extended/tiny9.tsv")
    assert {times[i]["termination"] for i in valid} == {"memlimit"}
    report = (d / "results/Reports/tiny9.txt").read_text()
    assert "false-bin" in report and "ERROR" in report
    summary = {(r["solver"]): r for r in read_csv_rows(d / "reports/summary.csv")}
    assert summary["hog-bin"]["MEMOUT"] == "8" and summary["sleep-bin"]["TIMEOUT"] == "8"
    assert summary["cadical-bin"]["solved"] == "8"
    explorer = d / "reports/explorer"
    assert "minisat-bin" in "".join(p.read_text() for p in explorer.rglob("*.js"))


@pytest.mark.parametrize("mode", ["dpll", "cdcl"])
def test_a_binary_writing_lrat(public_data: Path, mode: str) -> None:
    """`proof: lrat`: our own `satdoku dpll` as a binary that writes LRAT (Debian's cadical
    writes only DRAT); its proofs check as LRAT, and a proof declared in the other format is
    rejected."""
    from satdoku.formats.record import CnfFile
    from satdoku.solve import read_formula
    from satdoku.sources import read_snapshot

    path = public_data / "satlib" / "uuf50-218" / "uuf50-04.cnf"
    snapshot = read_snapshot(path)
    formula = read_formula(snapshot.data, str(path))
    record = Record(str(path), 1, 1, "dimacs", name=path.name,
                    cnf=CnfFile(str(path), formula.num_vars, formula.num_clauses,
                                snapshot.sha256))
    command = (f"{shlex.quote(sys.executable)} -m satdoku dpll --mode {mode} --no-model "
               "--proof {proof} --proof-format %s {cnf}")
    for written, declared, verdict in (("lrat", "lrat", "proof"), ("drat", "drat", "proof"),
                                       ("lrat", "drat", "FAILED"), ("drat", "lrat", "FAILED")):
        solver = open_solver("bin", _ext(command % written, proof=declared))
        assert solver.proof_format == declared
        for rec in (record, UNSAT_REC):
            answer = solve(rec, solver, "extended", 60)
            if verdict == "proof":
                assert answer.status == "UNSAT" and answer.verified == "proof", answer
            else:
                assert answer.status == "ERROR" and "proof rejected" in answer.result.message
