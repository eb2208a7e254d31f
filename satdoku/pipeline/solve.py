"""Solve stage: one solver over one shard.

SAT solvers read the CNF bundle and write SatOutput (SAT-competition ``s``/``v`` lines per
instance, plus ``c status`` with our fixed status word) and a times TSV. Puzzle-level solvers read
the Instances shard and write a SatSols shard directly (they have no SatOutput) and a times TSV.
Every UNSAT answer of a solver that writes proofs is certified by the proof checker here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from satdoku.cnf.bundle import read_bundle
from satdoku.cnf.dimacs import format_solver_output
from satdoku.pipeline.instances import read_instances
from satdoku.pipeline.times import times_row, write_tsv
from satdoku.progress import track
from satdoku.solvers.base import ERROR, INVALID, SAT, TIMEOUT, UNSAT, Result
from satdoku.solvers.registry import make_solver


def _load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _certify(cnf: Any, result: Result) -> None:
    """Check the DRUP proof of an UNSAT answer; a failed check turns the answer into ERROR."""
    if result.status != UNSAT or not result.proof:
        return
    from satdoku.cnf.drat import check_proof

    ok, message = check_proof(cnf, result.proof)
    result.stats["proof_checked"] = int(ok)
    if not ok:
        result.status, result.message = ERROR, f"UNSAT proof rejected: {message}"
    else:
        result.message = (result.message + " " if result.message else "") + "proof checked"


#: Grace past the time limit for a clean stop (interrupt latency, process teardown).
LIMIT_GRACE = 0.05


def enforce_limit(result: Result, time_limit: float | None) -> Result:
    """An answer that arrived after the time limit is a TIMEOUT, whatever it said: every solver
    is held to the same limit (a solver that loads slowly before its own clock starts must not
    win extra time). The late answer is kept in the message."""
    if (time_limit is not None and result.status in (SAT, UNSAT)
            and result.total_seconds > time_limit + LIMIT_GRACE):
        result.message = (f"answered {result.status} after {result.total_seconds:.2f} s, "
                          f"past the {time_limit:g} s limit")
        result.status, result.model, result.board = TIMEOUT, None, None
    return result


def solve_cnf_shard(bundle: str | Path, out: str | Path, times: str | Path, solver_name: str,
                    variants: dict[str, dict[str, Any]] | None = None,
                    time_limit: float | None = None) -> dict[str, int]:
    """Run a SAT solver on every instance of a bundle; returns status counts."""
    solver = make_solver(solver_name, variants)
    proofs = bool(getattr(solver, "writes_proofs", False))
    incremental = bool(getattr(solver, "incremental", False))
    rows, counts = [], {}
    load1 = _load1()
    with open(out, "w", encoding="utf-8") as fh, tempfile.TemporaryDirectory() as tmp:
        for entry in track(read_bundle(bundle), desc=f"solve {solver_name}", unit="puzzles"):
            fh.write(f"c instance {entry.id}\n")
            line = int(entry.header.get("line", 0))
            if entry.invalid is not None:
                result = Result(INVALID, message=entry.invalid)
            elif incremental and entry.rules is not None:
                result = solver.solve_incremental(entry.rules, entry.own, time_limit)
            else:
                cnf = entry.cnf
                kwargs = {"proof_path": os.path.join(tmp, "proof.drup")} if proofs else {}
                result = solver.solve_cnf(cnf, time_limit, **kwargs)
                if proofs:
                    _certify(cnf, result)
            enforce_limit(result, time_limit)
            fh.write(f"c status {result.status}"
                     + (f" {result.message}" if result.message else "") + "\n")
            fh.write(f"c time {result.total_seconds:.6f} search {result.solve_seconds:.6f}\n")
            fh.writelines(x + "\n" for x in format_solver_output(result.status, result.model))
            rows.append(times_row(entry.id, line, result, load1))
            counts[result.status] = counts.get(result.status, 0) + 1
    write_tsv(rows, times)
    return counts


def solve_puzzle_shard(instances: str | Path, sols: str | Path, times: str | Path,
                       solver_name: str, variants: dict[str, dict[str, Any]] | None = None,
                       time_limit: float | None = None) -> dict[str, int]:
    """Run a puzzle-level solver on every instance of a shard; writes the SatSols shard."""
    from satdoku.pipeline.decode import sols_row, write_sols

    solver = make_solver(solver_name, variants)
    rows, sol_rows, counts = [], [], {}
    load1 = _load1()
    for rec in track(read_instances(instances), desc=f"solve {solver_name}", unit="puzzles"):
        if rec.puzzle is None:
            result = Result(INVALID, message=rec.error or "")
        else:
            result = enforce_limit(solver.solve_puzzle(rec.puzzle, time_limit), time_limit)
        rows.append(times_row(rec.id, rec.line, result, load1))
        sol_rows.append(sols_row(rec, result.status, result.board, result.message))
        counts[result.status] = counts.get(result.status, 0) + 1
    write_tsv(rows, times)
    write_sols(sol_rows, sols)
    return counts
