"""The explorer's one door to the stage files: :func:`read_set` reads everything about one set.

It yields one :class:`ShardData` per Instances shard: the shard's records and, for the same
instances, the SatSols and SatOutputTimes rows of every run, the uniqueness rows and the CNF sizes
of every encoding. Reading shard by shard keeps a 1M-instance set within a few hundred MB. Every
file is read with the project's readers (``read_instances``, ``read_tsv``); when the stage-file
module lands, only this function changes.

Per-run rows come from the per-shard files the gather rules concatenate
(``results/SatSols/RUN/SET/shards/SHARD.tsv``, the same for SatOutputTimes), falling back to the
gathered per-set file when a shard file is missing (results copied without the shard folders).
Uniqueness comes the same way (``results/Reports/unique/SET/shards/`` or
``results/Reports/SET_unique.tsv``); CNF sizes (``results/Reports/cnf_sizes/ENC/SET.tsv``) have
no shard files and are read once, then handed out shard by shard.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from satdoku.formats import Record
from satdoku.pipeline.instances import read_instances
from satdoku.pipeline.times import read_tsv
from satdoku.report.collect import results_paths


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


def present_runs(results: str | Path, set_name: str, runs: Sequence[str]) -> list[str]:
    """The runs with a gathered SatSols file for the set (the summary skips the others too)."""
    return [r for r in runs if results_paths(results, set_name, r)[0].exists()]


def instance_shards(results: str | Path, set_name: str) -> list[Path]:
    """The Instances shards of a set, in shard (= id) order."""
    return sorted(Path(results, "Instances", set_name).glob("*.jsonl"))


def unique_path(results: str | Path, set_name: str) -> Path:
    return Path(results, "Reports", f"{set_name}_unique.tsv")


def sizes_path(results: str | Path, set_name: str, encoding: str) -> Path:
    return Path(results, "Reports", "cnf_sizes", encoding, f"{set_name}.tsv")


class _Sharded:
    """A per-set TSV handed out shard by shard: the shard's own file when ``shards`` (a folder of
    SHARD.tsv files the gather rule concatenates) has it, else the slice of the gathered file
    (read once, only then)."""

    def __init__(self, gathered: Path, shards: Path | None) -> None:
        self.gathered, self.shards = gathered, shards
        self.rows: dict[str, dict[str, str]] | None = None

    def shard(self, name: str, ids: Sequence[str]) -> list[dict[str, str]]:
        part = self.shards / f"{name}.tsv" if self.shards else None
        if part is not None and part.exists():
            return read_tsv(part)
        if self.rows is None:
            self.rows = ({r["id"]: r for r in read_tsv(self.gathered)}
                         if self.gathered.exists() else {})
        return [self.rows.pop(i) for i in ids if i in self.rows]


def _run_rows(gathered: Path) -> _Sharded:
    """SatSols / SatOutputTimes of one run: SET.tsv with its shards in SET/shards/."""
    return _Sharded(gathered, gathered.parent / gathered.stem / "shards")


def read_set(results: str | Path, set_name: str, runs: Sequence[str],
             encodings: Sequence[str] = ()) -> Iterator[ShardData]:
    """Every Instances shard of ``set_name`` under ``results`` with the rows of ``runs`` (those
    present, see :func:`present_runs`), the uniqueness verdicts (when that check ran) and the CNF
    sizes of ``encodings`` (when written)."""
    sols = {r: _run_rows(results_paths(results, set_name, r)[0]) for r in runs}
    times = {r: _run_rows(results_paths(results, set_name, r)[1]) for r in runs}
    unique = _Sharded(unique_path(results, set_name),
                      Path(results, "Reports", "unique", set_name, "shards"))
    sizes = {e: _Sharded(sizes_path(results, set_name, e), None) for e in encodings}
    for path in instance_shards(results, set_name):
        records = list(read_instances(path))
        ids = [r.id for r in records]
        yield ShardData(
            shard=path.stem, records=records,
            sols={r: s.shard(path.stem, ids) for r, s in sols.items()},
            times={r: t.shard(path.stem, ids) for r, t in times.items()},
            unique={u["id"]: u for u in unique.shard(path.stem, ids)},
            sizes={e: {z["id"]: z for z in s.shard(path.stem, ids)} for e, s in sizes.items()},
        )
