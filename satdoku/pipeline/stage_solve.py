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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satdoku.cnf.formula import Formula
from satdoku.formats import Record
from satdoku.pipeline import batch
from satdoku.pipeline.shard_writers import ShardWriters
from satdoku.progress import track
from satdoku.solve import ConfiguredSolver, RunLimits, assign_cores, open_solver, solve
from satdoku.solvers.registry import PUZZLE
from satdoku.stagefiles.bundles import BundleEntry, read_bundle
from satdoku.stagefiles.instances import StageFileError, read_instances


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


@dataclass(frozen=True)
class ShardFiles:
    """One shard's stage files for one run: the Instances shard it reads, the SatOutputTimes
    and SatSols shards it writes; a SAT solver also reads the SatInput ``bundle`` (the
    formulas) and writes SatOutput (``output``)."""

    instances: str | Path
    times: str | Path
    sols: str | Path
    bundle: str | Path | None = None
    output: str | Path | None = None


@dataclass(frozen=True)
class SolveSettings:
    """How one solver runs over a shard.

    ``variants``: the configured solvers (a name that is a variant of a registered one).
    ``limits`` (time limit and clock, proof-check budget, memory limit, measurement backend) go
    to the solve path for every run; the shard claims ``cores`` cores of its own and runs
    pinned to them (:func:`satdoku.solve.assign_cores`). ``repeats``: each instance is solved
    that many times through the same solve path; the first run's answer is written (SatOutput,
    SatSols), the times row holds the median of the runs and their spread
    (:func:`satdoku.stagefiles.tsv.times_row`). ``compiled``: an incremental solver's puzzles go
    through the compiled loop where it applies (:mod:`satdoku.pipeline.batch`; the same files,
    written faster); False runs this module's plain loop, for every instance."""

    solver: str
    encoding: str
    variants: Mapping[str, Mapping[str, Any] | None] | None = None
    limits: RunLimits | None = None
    repeats: int = 1
    cores: int = 1
    compiled: bool = True


def solve_shard(files: ShardFiles, settings: SolveSettings) -> dict[str, int]:
    """Solve every instance of a shard with one solver; returns status counts."""
    solver = open_solver(settings.solver, settings.variants)
    limits = assign_cores(settings.limits or RunLimits(), settings.cores)
    sat_level = solver.level != PUZZLE
    if sat_level and files.bundle is None:
        raise ValueError(f"{settings.solver} is a SAT solver: it needs the shard's SatInput "
                         "bundle")
    planned = _compiled_plan(solver, files, settings, limits) if sat_level else None
    shard_load = load1()
    desc = f"solve {settings.solver}"
    with ExitStack() as stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="satdoku-proofs-"))
        writers = ShardWriters(stack, files.times, files.sols,
                               files.output if sat_level else None)

        def step(rec: Record, formula: Formula | None) -> None:
            """One instance through the solve path (every run of it), its entries written."""
            writers.write(rec, [solve(rec, solver, settings.encoding, limits, formula=formula,
                                      workdir=workdir)
                                for _ in range(max(1, settings.repeats))], shard_load)

        if planned is not None and writers.out is not None:
            return batch.solve_planned(planned, solver, settings.encoding, writers, step,
                                       limits, shard_load, desc)
        for rec, formula in track(_instances(files, sat_level), desc=desc, unit="instances"):
            step(rec, formula)
    return writers.counts


def _compiled_plan(solver: ConfiguredSolver, files: ShardFiles, settings: SolveSettings,
                   limits: RunLimits) -> batch.Plan | None:
    """The shard read for the compiled loop, or None where the plain loop runs (not asked
    for, no SatOutput to write, or :func:`satdoku.pipeline.batch.plan` says it does not
    apply)."""
    if not settings.compiled or files.bundle is None or files.output is None:
        return None
    return batch.plan(solver, settings.encoding, files.instances, files.bundle,
                      settings.repeats, limits)


def _instances(files: ShardFiles, sat_level: bool) -> Iterator[tuple[Record, Formula | None]]:
    """The shard's records, each with its formula from the bundle (a SAT solver's) or None."""
    entries = iter(read_bundle(files.bundle)) if sat_level and files.bundle else None
    return _paired(read_instances(files.instances), entries, str(files.bundle))

