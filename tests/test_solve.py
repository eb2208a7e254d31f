"""The one solve path (satdoku/solve.py): limits, decoding with the encoding, verification,
proofs, DIMACS instances, and the `satdoku solve` command built on it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import line_record, minisat, php

from satdoku.cnf.encode import ENCODINGS
from satdoku.formats import Record, read_records
from satdoku.formats.record import CnfFile
from satdoku.puzzle import sudoku
from satdoku.solve import ConfiguredSolver, formula_of, open_solver, solve, verify
from satdoku.solvers.registry import SOLVERS
from satdoku.solvers.result import (
    ERROR,
    FAILED,
    INVALID,
    PROOF,
    SAT,
    TIMEOUT,
    UNCHECKED,
    UNSAT,
    YES,
    Result,
)
from satdoku.sources import file_sha256

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"



class _Fixed:
    """A stand-in solver implementation that answers what it is told (to test the path)."""

    def __init__(self, result: Result, delay: float = 0.0) -> None:
        self.result, self.delay = result, delay

    def solve_cnf(self, cnf, deadline, proof_path=None):  # type: ignore[no-untyped-def]
        time.sleep(self.delay)  # an answer that arrives late (the solve path's clock sees it)
        if proof_path and self.result.status == UNSAT:
            Path(proof_path).write_text("1 0\n")  # a bogus proof: it cannot refute
        return self.result


def _fixed(result: Result, base: str = "minisat22", delay: float = 0.0) -> ConfiguredSolver:
    return ConfiguredSolver("fixed", SOLVERS[base], {}, _Fixed(result, delay))


def test_late_answers_are_timeouts_and_keep_the_answer_in_the_message() -> None:
    rec = line_record(HARD)
    ready = formula_of(rec, "extended")  # encoded outside the limit: the answer alone is late
    late = solve(rec, _fixed(Result(SAT, model=[1]), delay=0.6), "extended", 0.2, formula=ready)
    assert late.status == TIMEOUT and late.result.model is None
    assert late.result.termination == "timelimit"
    assert "answered SAT after" in late.result.message and "past the 0.2 s limit" in (
        late.result.message)
    on_time = solve(line_record(HARD), open_solver("minisat22"), "extended", 10.0)
    assert on_time.status == SAT and on_time.verified == YES


@pytest.mark.parametrize("base", ["minisat22", "external"])
def test_a_limit_spent_before_the_solver_starts_is_a_timeout(base: str) -> None:
    """The solve path looks at the deadline once, before any solver (in memory or a binary
    reading its file) starts: a spent limit never reaches the solver."""
    rec = line_record(HARD)
    ready = formula_of(rec, "extended")
    solver = _fixed(Result(SAT, model=[1]), base)
    solver.impl.solve_file = None  # type: ignore[attr-defined]  # never called
    spent = solve(rec, solver, "extended", 1e-9, formula=ready)
    assert spent.status == TIMEOUT and spent.result.message == (
        "time limit reached while encoding")


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("solver", ["minisat22", "cdcl", "dpll"])
def test_every_encoding_decodes_through_the_path(solver: str, encoding: str) -> None:
    """The drift that once lost every answer (decoding without the encoding) cannot recur."""
    rec = line_record(HARD)
    answer = solve(rec, open_solver(solver), encoding, 60)
    assert answer.status == SAT and answer.verified == YES, answer.detail
    assert rec.puzzle is not None and rec.puzzle.check_solution(answer.board) == []
    row = answer.sols_row(rec)
    assert row["solution"] == "".join(map(str, answer.board)) and row["verified"] == YES


def test_a_wrong_model_is_caught_with_the_reason() -> None:
    rec = line_record(HARD)
    model = [1] + [-v for v in range(2, 730)]  # r1c1 = 1 and nothing else
    answer = solve(rec, _fixed(Result(SAT, model=model)), "extended", 10)
    assert answer.status == SAT and answer.verified == FAILED
    assert "does not decode" in answer.detail and "no value" in answer.detail
    row = answer.sols_row(rec)
    assert str(row["solution"]).startswith("Instance Wrong Answer: model does not decode")


def test_unsat_needs_a_proof_that_checks() -> None:
    rec = Record("t", 1, 1, "line", puzzle=sudoku([1, 1] + [0] * 14))
    proved = solve(rec, open_solver("cdcl"), "extended", 10)
    assert proved.status == UNSAT and proved.verified == PROOF
    from satdoku.cnf.formula import Formula

    hole = php(5, 4)  # not refuted by unit propagation alone: the proof must do the work
    php_rec = Record("php.cnf", 1, 1, "dimacs", cnf=CnfFile("php.cnf", hole.num_vars,
                                                            hole.num_clauses, ""))
    formula = Formula(hole.num_vars, hole.clauses)
    bogus = solve(php_rec, _fixed(Result(UNSAT), base="cdcl"), "dimacs", 10, formula=formula)
    assert bogus.status == ERROR and "proof rejected" in bogus.result.message
    real = solve(php_rec, open_solver("cdcl"), "dimacs", 30, formula=formula)
    assert real.status == UNSAT and real.verified == PROOF
    unproved = solve(rec, open_solver("minisat22"), "extended", 10)  # a reference: agreement
    assert unproved.status == UNSAT and unproved.verified == UNCHECKED


def test_invalid_records_and_level_mismatch() -> None:
    bad = Record("t", 3, 2, "line", error="80 cells is not a Sudoku size")
    answer = solve(bad, open_solver("minisat22"), "extended", 10)
    assert answer.status == INVALID and answer.detail == "80 cells is not a Sudoku size"
    cnf_rec = Record("x.cnf", 1, 1, "dimacs", cnf=CnfFile("x.cnf", 1, 1, "0"))
    wrong_level = solve(cnf_rec, open_solver("cpsat"), "direct", 10)
    assert wrong_level.status == ERROR and "puzzle-level" in wrong_level.result.message


def test_dimacs_instances_are_verified_clause_by_clause(public_data: Path) -> None:
    for path, expected in ((public_data / "satlib/uf20-91/uf20-01.cnf", SAT),
                           (public_data / "satlib/uuf50-218/uuf50-01.cnf", UNSAT)):
        rec = Record(str(path), 1, 1, "dimacs",
                     cnf=CnfFile(str(path), 0, 0, file_sha256(path)))
        for name in ("minisat22", "cdcl", "dpll"):
            answer = solve(rec, open_solver(name), "dimacs", 60)
            assert answer.status == expected, (name, path)
            want = YES if expected == SAT else (PROOF if name in ("cdcl", "dpll") else UNCHECKED)
            assert answer.verified == want, (name, answer.detail)
    rec = Record(str(path), 1, 1, "dimacs", cnf=CnfFile(str(path), 0, 0, "0" * 64))
    changed = solve(rec, open_solver("minisat22"), "dimacs", 10)
    assert changed.status == ERROR and "changed since it was read" in changed.result.message


def test_a_model_that_breaks_a_clause_is_failed(public_data: Path) -> None:
    path = public_data / "satlib/uf20-91/uf20-01.cnf"
    rec = Record(str(path), 1, 1, "dimacs", cnf=CnfFile(str(path), 20, 91, file_sha256(path)))
    all_false = [-v for v in range(1, 21)]
    answer = verify(rec, "dimacs", Result(SAT, model=all_false))
    assert answer.verified == FAILED and "unsatisfied" in answer.detail


def test_the_path_holds_every_solver_to_the_limit() -> None:
    """A formula far beyond the limit: TIMEOUT for every SAT solver, construction included."""
    hard = php(11, 10)
    with_cnf = Record("php.cnf", 1, 1, "dimacs", cnf=CnfFile("php.cnf", hard.num_vars,
                                                             hard.num_clauses, ""))
    from satdoku.cnf.formula import Formula

    formula = Formula(hard.num_vars, hard.clauses)
    assert minisat(php(4, 3)) is False
    for name in ("minisat22", "glucose4", "cadical195", "dpll", "cdcl"):
        answer = solve(with_cnf, open_solver(name), "dimacs", 0.5, formula=formula)
        assert answer.status == TIMEOUT, name
        assert answer.result.total_seconds < 0.5 * 1.1 + 0.3 + 2.0, name  # generous: CI noise


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "satdoku", "solve", *args],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("solver", ["minisat22", "cdcl"])
@pytest.mark.parametrize("encoding", ["minimal", "efficient", "extended", "simplified",
                                      "extended_seq"])
def test_satdoku_solve_boards_pass_an_independent_check(tmp_path: Path, public_data: Path,
                                                        solver: str, encoding: str) -> None:
    """Each printed board checked here by plain Python, not by the library's verifier."""
    src = public_data / "norvig" / "hardest.txt"
    proc = _cli(str(src), "--solver", solver, "--encoding", encoding, "--time-limit", "30")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    puzzles = [r for r in read_records(src)]
    assert len(lines) == len(puzzles) == 11
    for rec, line in zip(puzzles, lines, strict=True):
        assert len(line) == 81 and set(line) <= set("123456789"), line
        grid = [[int(line[r * 9 + c]) for c in range(9)] for r in range(9)]
        units = [row for row in grid] + [list(col) for col in zip(*grid, strict=True)]
        units += [[grid[r][c] for r in range(br, br + 3) for c in range(bc, bc + 3)]
                  for br in (0, 3, 6) for bc in (0, 3, 6)]
        assert all(sorted(u) == list(range(1, 10)) for u in units)
        assert rec.puzzle is not None
        assert all(g in (0, int(x)) for g, x in zip(rec.puzzle.givens, line, strict=True))


def test_satdoku_solve_usage_errors_are_one_line(tmp_path: Path) -> None:
    src = tmp_path / "one.txt"
    src.write_text(HARD + "\n")
    for args, fragment in ((["--encoding", "bogus"], "unknown encoding 'bogus'"),
                           (["--solver", "nope"], "unknown solver 'nope'"),
                           (["--time-limit", "-1"], "finite and > 0"),
                           (["--time-limit", "nan"], "finite and > 0"),
                           (["--time-limit", "0"], "finite and > 0")):
        proc = _cli(str(src), *args)
        assert proc.returncode == 2 and fragment in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    for target in (tmp_path, tmp_path / "missing.txt", Path("/dev/zero")):
        proc = _cli(str(target))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (target, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1


def test_satdoku_solve_times_and_time_limit(tmp_path: Path) -> None:
    src = tmp_path / "two.txt"
    src.write_text(HARD + "\n" + "1" * 81 + "\n")
    proc = _cli(str(src), "--solver", "cdcl", "--times", "--time-limit", "20")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert first.split("\t")[1] == SAT and first.endswith(" ms")
    assert second.startswith("Instance Unsatisfiable") and "\tUNSAT\t" in second


def test_log_space_is_reserved_and_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """A job that fails for lack of disk space still says why in its log."""
    import os

    from satdoku.cli import LOG_RESERVE, reserve_log_space

    log = tmp_path / "job.log"
    with open(log, "w") as fh:
        fh.write("started\n")
        fh.flush()
        assert reserve_log_space(fh)
        st = os.fstat(fh.fileno())
        assert st.st_size == len("started\n") and st.st_blocks * 512 >= LOG_RESERVE
    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs",
                                            str(small)], capture_output=True).returncode != 0:
        pytest.skip("a real full disk needs root to mount a tiny tmpfs")
    try:
        (small / "filler").write_bytes(os.urandom(60_000))
        src = Path(__file__).parent.parent / "data/public/tdoku_benchmarks/" \
            "puzzles3_magictour_top1465.txt"
        with open(small / "job.log", "w") as logf:
            proc = subprocess.run([sys.executable, "-m", "satdoku", "pipeline", "normalize",
                                   str(src), str(small / "out.jsonl"), "--shard-size", "2000"],
                                  stdout=logf, stderr=subprocess.STDOUT, timeout=120)
        text = (small / "job.log").read_text()
        assert proc.returncode == 1 and "No space left on device" in text, text
        assert "out.jsonl" in text and "Traceback" not in text
    finally:
        subprocess.run(["umount", str(small)], check=False)


def test_an_input_changed_during_a_run_is_a_clear_failure(tmp_path: Path, monkeypatch,
                                                          capsys) -> None:
    """The workflow's shards and `satdoku solve` read the input once and notice a change."""
    import argparse

    from satdoku.commands import solve as solve_command
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.set_plans import SetError, plan

    src = tmp_path / "p.txt"
    src.write_text((HARD + "\n") * 5)
    planned = plan(src).sha256
    src.write_text("# a title line added meanwhile\n" + (HARD + "\n") * 5)
    with pytest.raises(SetError, match="changed since the workflow planned this run"):
        normalize(src, tmp_path / "i.jsonl", 0, 1000, expect_sha256=planned)
    cli = subprocess.run([sys.executable, "-m", "satdoku", "pipeline", "normalize", str(src),
                          str(tmp_path / "i.jsonl"), "--sha256", planned],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1 and "changed since the workflow planned" in cli.stderr
    assert "Traceback" not in cli.stderr
    gone = tmp_path / "deleted meanwhile.txt"  # the workflow planned it, then it was deleted
    cli = subprocess.run([sys.executable, "-m", "satdoku", "pipeline", "normalize", str(gone),
                          str(tmp_path / "g.jsonl"), "--sha256", planned],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1 and cli.stderr.count("\n") == 1, cli.stderr
    assert f"{gone}: deleted since the workflow planned this run" in cli.stderr

    real_solve = solve_command.solve
    calls = []

    def solve_then_truncate(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not calls:
            src.write_text(HARD + "\n")  # the file is cut while the first puzzle is solved
        calls.append(1)
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(solve_command, "solve", solve_then_truncate)  # the name it calls
    args = argparse.Namespace(file=str(src), solver="minisat22", encoding="extended",
                              time_limit=10.0, verify_time_limit=None, format="auto",
                              times=False, memory_limit=None, limit_clock="wall",
                              configfile=None, command=None)
    assert solve_command.run(args) == 1
    out, err = capsys.readouterr()
    assert len(calls) == 5 and len(out.splitlines()) == 5  # every instance read at the start
    assert "changed while it was being solved" in err
