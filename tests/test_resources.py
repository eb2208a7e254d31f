"""Resource figures, memory limits and child processes of the one solve path (satdoku/solve.py,
satdoku/solvers/process.py): every run measured, MEMOUT for allocations past the limit, no
child outliving its run or its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import line_record, php

from satdoku.cnf.dimacs import format_dimacs
from satdoku.formats import Record
from satdoku.puzzle import sudoku
from satdoku.solve import ConfiguredSolver, open_solver, solve
from satdoku.solvers.base import CPU, Deadline, RunLimits
from satdoku.solvers.measurement import benchexec_problem
from satdoku.solvers.process import run_forked
from satdoku.solvers.registry import SOLVERS
from satdoku.solvers.result import MEMOUT, SAT, TIMEOUT, UNSAT, Result
from satdoku.stagefiles.tsv import TIMES_COLUMNS, times_row

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


UNSAT_PUZZLE = Record("u", 1, 1, "line", puzzle=sudoku([1, 1] + [0] * 14))



class _Hog:
    """A solver that allocates ``mb`` megabytes before answering SAT with a bogus model."""

    def __init__(self, mb: int) -> None:
        self.mb = mb

    def solve_cnf(self, cnf, deadline, proof_path=None):  # type: ignore[no-untyped-def]
        block = bytearray(self.mb * 1024 * 1024)
        return Result(SAT, model=[len(block)])


def test_every_run_is_measured_and_the_row_has_the_figures() -> None:
    answer = solve(line_record(EASY), open_solver("minisat22"), "extended", 10)
    r = answer.result
    assert answer.status == SAT and r.termination == "exit"
    assert r.wall_seconds > 0 and r.total_seconds == r.wall_seconds
    assert r.cpu_seconds > 0 and r.max_rss_mb > 10  # a Python process holds more than 10 MB
    row = times_row("1", 1, r, 0.0)
    assert {"wall_seconds", "cpu_seconds", "max_rss_mb", "termination"} <= set(TIMES_COLUMNS)
    assert row["termination"] == "exit" and float(str(row["cpu_seconds"])) > 0


def test_an_allocation_past_the_memory_limit_is_memout_and_the_next_run_goes_on() -> None:
    hog = ConfiguredSolver("hog", SOLVERS["minisat22"], {}, _Hog(400))
    answer = solve(line_record(EASY), hog, "extended", RunLimits(10, memory_mb=100))
    assert answer.status == MEMOUT and answer.result.termination == "memlimit"
    assert "memory limit of 100 MB" in answer.result.message
    assert answer.sols_row(line_record(EASY))["solution"].startswith("Instance Memory Out")
    fine = solve(line_record(EASY), open_solver("minisat22"), "extended",
                 RunLimits(10, memory_mb=100))
    assert fine.status == SAT  # the guard is lifted after each run
    bytearray(300 * 1024 * 1024)  # and outside the runs the process may allocate again


def test_a_forked_run_over_its_memory_between_samples_is_memout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The peak decides, not whether a sample caught it: with no sample inside the run, a
    child that grew 500 MB under a 200 MB limit and returned is still a memout."""
    from satdoku.solvers import process

    monkeypatch.setattr(process, "POLL", 3600.0)
    value, done = run_forked(lambda: len(bytearray(500 * 1024 * 1024)), Deadline(10),
                             RunLimits(memory_mb=200))
    assert value is None and done.usage.termination == "memlimit"


def test_a_forked_run_reports_the_childs_cpu_and_memout() -> None:
    def spin() -> int:
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return 7

    value, done = run_forked(spin, Deadline(10), RunLimits())
    assert value == 7 and done.usage.termination == "exit" and done.usage.cpu_seconds >= 0.25
    value, done = run_forked(lambda: len(bytearray(500 * 1024 * 1024)), Deadline(10),
                             RunLimits(memory_mb=200))
    assert value is None and done.usage.termination == "memlimit"
    # the limit is growth beyond what the child inherits (this process's whole address space,
    # here over 300 MB: an absolute 200 MB limit would refuse the child everything)
    held = bytearray(300 * 1024 * 1024)
    value, done = run_forked(lambda: len(bytearray(50 * 1024 * 1024)), Deadline(10),
                             RunLimits(memory_mb=200))
    del held
    assert value == 50 * 1024 * 1024 and done.usage.termination == "exit"
    value, done = run_forked(lambda: time.sleep(30), Deadline(0.3), RunLimits())
    assert value is None and done.stopped_at_limit and done.usage.termination == "timelimit"


def test_cadical_in_its_child_process_hits_the_cpu_clock_limit() -> None:
    solver = open_solver("cadical195")
    hard = php(11, 10)
    rec = Record("t", 1, 1, "line", puzzle=sudoku([1, 1] + [0] * 14))
    from satdoku.cnf.formula import Formula

    answer = solve(rec, solver, "extended", RunLimits(1, clock=CPU), formula=Formula.of(hard))
    assert answer.status == TIMEOUT and answer.result.termination == "timelimit"
    assert answer.result.cpu_seconds > 0.3  # the child's CPU counts (the parent only waits)


_PROBLEM = benchexec_problem()
MEASUREMENTS = ["basic", pytest.param("benchexec", marks=pytest.mark.skipif(
    _PROBLEM is not None, reason=f"BenchExec cannot work here: {_PROBLEM}"))]


def _children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found |= {int(c) for c in text}
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
@pytest.mark.parametrize("measure", MEASUREMENTS)
def test_a_signal_to_solve_leaves_no_cadical_child(tmp_path: Path, measure: str,
                                                   sig: signal.Signals) -> None:
    """Issue 18 §6: SIGTERM to `satdoku solve --solver cadical195` ended the parent and left
    its forked child running; under BenchExec's cgroup the child once outlived a parent that
    ended mid-run, solving on past its limit with nobody to stop it. The child dies with its
    parent, however the parent ends, on both measurement backends."""
    cnf = tmp_path / "php.cnf"
    cnf.write_text(format_dimacs(php(12, 11)))
    proc = subprocess.Popen([sys.executable, "-m", "satdoku", "solve", str(cnf), "--solver",
                             "cadical195", "--time-limit", "60", "--measurement", measure],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: set[int] = set()
    for _ in range(200):  # up to 20 s for the start-up on a loaded machine
        time.sleep(0.1)
        children = _children(proc.pid)
        if children:
            break
    assert children, "the solver child never started"
    proc.send_signal(sig)
    proc.wait(timeout=10)
    for child in children:  # (once the parent is gone, the kernel sends SIGKILL: at once)
        for _ in range(50):
            alive = os.path.exists(f"/proc/{child}") and "Z" not in (
                Path(f"/proc/{child}/stat").read_text().split()[2:3])
            if not alive:
                break
            time.sleep(0.1)
        if alive:
            os.kill(child, signal.SIGKILL)
        assert not alive, f"child {child} outlived its parent"
    assert proc.returncode != 0


def test_unsat_proof_checked_is_a_field() -> None:
    rec = Record("t", 1, 1, "line", puzzle=sudoku([1, 1] + [0] * 14))
    answer = solve(rec, open_solver("cdcl"), "extended", 10)
    assert answer.status == UNSAT and answer.result.proof_checked
    assert answer.verified == "proof" and "proof checked" not in answer.result.message


class _MapFails:
    """A solver whose lazy import fails to map a library (as numpy does under the guard)."""

    def solve_cnf(self, cnf, deadline, proof_path=None):  # type: ignore[no-untyped-def]
        raise ImportError("numpy failed\nOriginal error was: libx.so: failed to map segment")


def test_a_refused_mapping_under_the_guard_is_memout_else_error() -> None:
    fails = ConfiguredSolver("maps", SOLVERS["minisat22"], {}, _MapFails())
    guarded = solve(line_record(EASY), fails, "extended", RunLimits(10, memory_mb=100))
    assert guarded.status == MEMOUT and "failed to map segment" in guarded.result.message
    free = solve(line_record(EASY), fails, "extended", 10)
    assert free.status == "ERROR" and free.result.termination == "error"


def test_our_cdcl_on_the_cpu_clock_runs_its_whole_cpu_budget() -> None:
    """The C kernel reads the wall clock; on the CPU clock the driver resumes it until the CPU
    seconds are spent (on a busy machine the wall limit would stop it with CPU time left)."""
    from satdoku.cnf.formula import Formula

    answer = solve(UNSAT_PUZZLE, open_solver("cdcl"), "extended", RunLimits(0.5, clock=CPU),
                   formula=Formula.of(php(11, 10)))
    assert answer.status == TIMEOUT and answer.result.termination == "timelimit"
    assert answer.result.cpu_seconds >= 0.45
