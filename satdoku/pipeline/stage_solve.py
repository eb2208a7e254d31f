"""Solve stage: one solver over one shard, every answer checked through :func:`satdoku.solve.solve`.

A SAT solver reads the shard's SatInput bundle (the formulas) and its Instances shard (the
puzzles its models are decoded into and verified against) and writes SatOutput (the solver's
answer per instance, SAT-competition lines), SatOutputTimes and SatSols. A puzzle-level solver
reads only the Instances shard and writes SatOutputTimes and SatSols (it has no CNF output).
Decoding and verification happen here, in the same pass: the models never make a round trip
through text before they are checked.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from satdoku.cnf.formula import Formula
from satdoku.formats import Record
from satdoku.identity import record_hash
from satdoku.pipeline import batch
from satdoku.progress import track
from satdoku.solve import Answer, RunLimits, assign_cores, open_solver, solve
from satdoku.solvers.registry import PUZZLE
from satdoku.stagefiles.bundles import BundleEntry, read_bundle
from satdoku.stagefiles.instances import StageFileError, read_instances
from satdoku.stagefiles.outputs import write_block
from satdoku.stagefiles.tsv import SOLS_COLUMNS, TIMES_COLUMNS, TsvWriter, times_row


def load1() -> float:
    """The 1-minute load average (what ran beside a shard), NaN where unknown."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _paired(records: Iterator[Record], entries: Iterator[BundleEntry] | None, where: str
            ) -> Iterator[tuple[Record, Formula | None]]:
    """Each record with its bundle formula (bundles hold the shard's instances in order)."""
    for rec in records:
        if entries is None:
            yield rec, None
            continue
        entry = next(entries, None)
        if entry is None or entry.id != rec.id:
            raise StageFileError(f"{where}: instance {rec.id} has no matching SatInput block "
                                 f"(found {entry.id if entry else 'the end of the bundle'})")
        yield rec, None if entry.invalid is not None else entry.formula


def solve_shard(instances: str | Path, solver_name: str, encoding: str, times: str | Path,
                sols: str | Path, bundle: str | Path | None = None,
                output: str | Path | None = None,
                variants: Mapping[str, Mapping[str, Any] | None] | None = None,
                limits: RunLimits | None = None, repeats: int = 1, cores: int = 1,
                compiled: bool = True) -> dict[str, int]:
    """Solve every instance of a shard with one solver; returns status counts.

    ``repeats``: solve each instance that many times through the same solve path; the first
    run's answer is written (SatOutput, SatSols), the times row holds the median of the runs
    and their spread (:func:`satdoku.stagefiles.tsv.times_row`).

    ``limits`` (time limit and clock, proof-check budget, memory limit, measurement backend)
    go to the solve path for every run; the shard claims ``cores`` cores of its own and runs
    pinned to them (:func:`satdoku.solve.assign_cores`).

    SAT solvers need ``bundle`` (the SatInput shard) and write ``output`` (SatOutput);
    puzzle-level solvers take neither. ``compiled``: an incremental solver's puzzles go through
    the compiled loop where it applies (:mod:`satdoku.pipeline.batch`; the same files, written
    faster); False runs this module's plain loop, for every instance."""
    solver = open_solver(solver_name, variants)
    limits = assign_cores(limits or RunLimits(), cores)
    if solver.level != PUZZLE and bundle is None:
        raise ValueError(f"{solver_name} is a SAT solver: it needs the shard's SatInput bundle")
    planned = None
    if compiled and bundle is not None and output is not None and solver.level != PUZZLE:
        planned = batch.plan(solver, encoding, instances, bundle, repeats, limits)
    shard_load = load1()
    counts: dict[str, int] = {}
    with ExitStack() as stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="satdoku-proofs-"))
        out: IO[str] | None = None
        if output is not None and solver.level != PUZZLE:
            out = stack.enter_context(open(output, "w", encoding="utf-8"))
        time_rows = TsvWriter(stack.enter_context(_tsv(times)), TIMES_COLUMNS)
        sol_rows = TsvWriter(stack.enter_context(_tsv(sols)), SOLS_COLUMNS)

        def step(rec: Record, formula: Formula | None) -> None:
            """One instance through the solve path (every run of it), its entries written."""
            answers: list[Answer] = [
                solve(rec, solver, encoding, limits, formula=formula, workdir=workdir)
                for _ in range(max(1, repeats))]
            answer = answers[0]
            if out is not None:
                write_block(out, rec.id, answer.result)
            time_rows.write(times_row(rec.id, rec.line, answer.result, shard_load,
                                      record_hash(rec), [a.result for a in answers]))
            sol_rows.write(answer.sols_row(rec))
            counts[answer.status] = counts.get(answer.status, 0) + 1

        if planned is not None and out is not None:
            return batch.solve_planned(
                planned, solver, encoding, batch.Writers(out, time_rows.fh, sol_rows.fh, counts),
                step, limits, shard_load, f"solve {solver_name}")
        entries = iter(read_bundle(bundle)) if solver.level != PUZZLE and bundle else None
        pairs = _paired(read_instances(instances), entries, str(bundle))
        for rec, formula in track(pairs, desc=f"solve {solver_name}", unit="instances"):
            step(rec, formula)
    return counts


def _tsv(path: str | Path) -> IO[str]:
    return open(path, "w", encoding="utf-8", newline="")
