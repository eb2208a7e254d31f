"""The explorer's one door to the stage files: :func:`read_set` reads everything about one set.

It yields one :class:`ShardData` per Instances shard: the shard's records and, for the same
instances, the SatSols and SatOutputTimes rows of every run, the uniqueness rows and the CNF sizes
of every encoding. Reading shard by shard keeps a 1M-instance set within a few hundred MB. Every
file is read with :mod:`satdoku.stagefiles` (readers and path templates).

Per-run rows come from the per-shard files the gather rules concatenate (``SOLS_SHARD``,
``TIMES_SHARD``), falling back to the gathered per-set file when a shard file is missing
(results copied without the shard folders). Uniqueness comes the same way (``UNIQUE_SHARD`` or
``UNIQUE``); CNF sizes (``CNF_SIZES``) and the propagation analysis (``PROPAGATION_INSTANCES``,
one row per instance and encoding) have no shard files and are read once, then handed out shard
by shard.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from satdoku.formats import Record
from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.instances import read_instances
from satdoku.stagefiles.tables import read_tsv


@dataclass
class ShardData:
    """One Instances shard of a set with every stage-file row about its instances.

    ``sols`` / ``times`` map a run (``solver/encoding``) to its rows of this shard (ids as
    strings); ``unique`` and ``sizes`` (encoding -> id -> row) hold only this shard's ids."""

    shard: str
    records: list[Record]
    sols: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    times: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    unique: dict[str, dict[str, str]] = field(default_factory=dict)
    sizes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: id -> encoding -> the propagation analysis's row (sets not analysed: empty)
    propagation: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)


def _run(run: str) -> dict[str, str]:
    solver, _, encoding = run.partition("/")
    return {"solver": solver, "encoding": encoding}


def present_runs(results: str | Path, set_name: str, runs: Sequence[str]) -> list[str]:
    """The runs with a gathered SatSols file for the set (the summary skips the others too)."""
    return [r for r in runs if sp.stage_path(sp.SOLS, results, set=set_name, **_run(r)).exists()]


def instance_shards(results: str | Path, set_name: str) -> list[Path]:
    """The Instances shards of a set, in shard (= id) order."""
    return sorted(Path(results).glob(sp.INSTANCES.format(set=set_name, shard="*")))


class _Sharded:
    """A per-set TSV handed out shard by shard: the shard's own file (``shard_template``) when
    it exists, else the slice of the gathered file (read once, only then)."""

    def __init__(self, gathered: Path, shard_template: str | None, results: str | Path,
                 **wildcards: str) -> None:
        self.gathered, self.template = gathered, shard_template
        self.results, self.wildcards = results, wildcards
        self.rows: dict[str, dict[str, str]] | None = None

    def shard(self, name: str, ids: Sequence[str]) -> list[dict[str, str]]:
        if self.template:
            part = sp.stage_path(self.template, self.results, shard=name, **self.wildcards)
            if part.exists():
                return read_tsv(part)
        if self.rows is None:
            self.rows = ({r["id"]: r for r in read_tsv(self.gathered)}
                         if self.gathered.exists() else {})
        return [self.rows.pop(i) for i in ids if i in self.rows]


def read_set(results: str | Path, set_name: str, runs: Sequence[str],
             encodings: Sequence[str] = ()) -> Iterator[ShardData]:
    """Every Instances shard of ``set_name`` under ``results`` with the rows of ``runs`` (those
    present, see :func:`present_runs`), the uniqueness verdicts (when that check ran) and the CNF
    sizes of ``encodings`` (when written)."""
    def sharded(gathered: str, part: str | None, **wildcards: str) -> _Sharded:
        return _Sharded(sp.stage_path(gathered, results, set=set_name, **wildcards), part,
                        results, set=set_name, **wildcards)

    sols = {r: sharded(sp.SOLS, sp.SOLS_SHARD, **_run(r)) for r in runs}
    times = {r: sharded(sp.TIMES, sp.TIMES_SHARD, **_run(r)) for r in runs}
    unique = sharded(sp.UNIQUE, sp.UNIQUE_SHARD)
    sizes = {e: sharded(sp.CNF_SIZES, None, encoding=e) for e in encodings}
    propagation: dict[str, dict[str, dict[str, str]]] = {}
    analysed = sp.stage_path(sp.PROPAGATION_INSTANCES, results, set=set_name)
    if analysed.exists():
        for row in read_tsv(analysed):
            propagation.setdefault(row["id"], {})[row["encoding"]] = row
    for path in instance_shards(results, set_name):
        records = list(read_instances(path))
        ids = [r.id for r in records]
        yield ShardData(
            shard=path.stem, records=records,
            sols={r: s.shard(path.stem, ids) for r, s in sols.items()},
            times={r: t.shard(path.stem, ids) for r, t in times.items()},
            unique={u["id"]: u for u in unique.shard(path.stem, ids)},
            sizes={e: {z["id"]: z for z in s.shard(path.stem, ids)} for e, s in sizes.items()},
            propagation={i: propagation.pop(i) for i in ids if i in propagation},
        )


def files_plan(files: Sequence[str | Path]) -> tuple[Path, list[str], list[str]]:
    """(results directory, sets, runs) of the gathered stage files a rule passes (Instances
    shards, SatSols and SatOutputTimes TSVs, as the other cross-set reports take them), in the
    order given. Every file must lie under the same results directory."""
    from satdoku.report.collect import classify_files

    shards, sols, _ = classify_files(files)
    roots = {Path(p).parents[2] for ps in shards.values() for p in ps}  # Instances/SET/SHARD
    roots |= {Path(p).parents[3] for p in sols.values()}  # SatSols/SOLVER/ENCODING/SET.tsv
    if len(roots) != 1:
        raise ValueError(f"stage files from {len(roots)} results directories: "
                         f"{', '.join(map(str, sorted(roots))) or 'none'}")
    sets = list(dict.fromkeys([*shards, *(s for s, _ in sols)]))
    runs = list(dict.fromkeys(run for _, run in sols))
    return roots.pop(), sets, runs
