"""The explorer's one door to the stage files: :func:`read_set` reads everything about one set.

It yields one :class:`ShardData` per Instances shard: the shard's Instances objects (no puzzle
built) and, for the same instances, the columns of every run's rows in the run table
(:mod:`satdoku.stagefiles.runtable`: the stored run the run record wrote, so the stage files'
TSVs are not read again), the uniqueness rows and the CNF sizes of every encoding. Only one
shard's rows are ever Python objects, so a 1M-instance set stays within a few hundred MB.

Uniqueness comes from the per-shard files (``UNIQUE_SHARD``), falling back to the gathered per-set
file (results copied without the shard folders); CNF sizes (``CNF_SIZES``) and the propagation
analysis (``PROPAGATION_INSTANCES``, one row per instance and encoding) have no shard files and
are read once, then handed out shard by shard. Every file is read with
:mod:`satdoku.stagefiles` (readers and path templates).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.instances import iter_instance_texts
from satdoku.stagefiles.propagation_files import NOT_SAMPLED
from satdoku.stagefiles.runtable import classify_files, table_of_files, tsv_table
from satdoku.stagefiles.tsv import read_tsv

#: The run-table columns the explorer shows of an answer (times and statistics as numbers).
ANSWER_COLUMNS = ("line", "status", "verified", "detail", "solution", "message", "total_seconds",
                  "solve_seconds", "decisions", "conflicts", "propagations", "restarts",
                  "learnt", "load1", "measurement", "cores")


@dataclass
class ShardData:
    """One Instances shard of a set with every stage-file row about its instances.

    ``objects`` are the shard's Instances objects (``texts``: their JSON texts); ``answers``
    map a run (``solver/encoding``) to its columns (:data:`ANSWER_COLUMNS` and the time
    column) for these objects, in their order (None: no row, or no such cell); ``unique`` and
    ``sizes`` (encoding -> id -> row) hold only this shard's ids."""

    shard: str
    objects: list[dict[str, Any]]
    answers: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    unique: dict[str, dict[str, str]] = field(default_factory=dict)
    sizes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: id -> encoding -> the propagation analysis's row (sets not analysed: empty)
    propagation: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    #: each object's JSON text as the shard has it (passed on to the page without re-encoding)
    texts: list[str] = field(default_factory=list)


def _run(run: str) -> dict[str, str]:
    solver, _, encoding = run.partition("/")
    return {"solver": solver, "encoding": encoding}


def present_runs(results: str | Path, set_name: str, runs: Sequence[str]) -> list[str]:
    """The runs with a gathered SatSols file for the set (the summary skips the others too)."""
    return [r for r in runs if sp.stage_path(sp.SOLS, results, set=set_name, **_run(r)).exists()]


def instance_shards(results: str | Path, set_name: str) -> list[Path]:
    """The Instances shards of a set, in shard (= id) order."""
    return sorted(Path(results).glob(sp.INSTANCES.format(set=set_name, shard="*")))


def stage_files(results: str | Path, sets: Sequence[str], runs: Sequence[str]) -> list[Path]:
    """The gathered stage files of ``sets`` x ``runs`` under ``results`` (those present), as
    the report rules pass them: Instances shards, then SatSols and SatOutputTimes TSVs."""
    out = [p for name in sets for p in instance_shards(results, name)]
    for name in sets:
        for run in present_runs(results, name, runs):
            out.append(sp.stage_path(sp.SOLS, results, set=name, **_run(run)))
            times = sp.stage_path(sp.TIMES, results, set=name, **_run(run))
            if times.exists():
                out.append(times)
    return out


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


class _RunRows:
    """One run's rows of a set in the run table, handed out shard by shard by instance id."""

    def __init__(self, table, time_column: str) -> None:  # type: ignore[no-untyped-def]
        import numpy as np

        names = [c for c in dict.fromkeys([*ANSWER_COLUMNS, time_column])
                 if c in table.column_names]
        self.table = table.select(names)
        ids = table.column("id").to_numpy()
        self.order = np.argsort(ids, kind="stable")
        self.ids = ids[self.order]
        self.columns = names

    def shard(self, ids: Sequence[int]) -> dict[str, list[Any]]:
        """The columns of the rows of ``ids`` in their order (None where the run has none;
        the last row of a repeated id, as a lookup by id would find)."""
        import numpy as np
        import pyarrow as pa

        want = np.asarray(ids, dtype=np.int64)
        at = np.searchsorted(self.ids, want, side="right") - 1
        found = (at >= 0) & (self.ids[np.clip(at, 0, None)] == want) if len(self.ids) else \
            np.zeros(len(want), dtype=bool)
        take = pa.array(np.where(found, self.order[np.clip(at, 0, None)], 0),
                        mask=~found, type=pa.int64()) if len(self.ids) else \
            pa.nulls(len(want), pa.int64())
        part = self.table.take(take)
        return {c: part.column(c).to_pylist() for c in self.columns}


def read_set(results: str | Path, set_name: str, runs: Sequence[str],
             encodings: Sequence[str] = (), table=None,  # type: ignore[no-untyped-def]
             time_column: str = "total_seconds") -> Iterator[ShardData]:
    """Every Instances shard of ``set_name`` under ``results`` with the rows of ``runs`` (those
    present, see :func:`present_runs`) from the run ``table`` (default: the run table of the
    set's stage files), the uniqueness verdicts (when that check ran) and the CNF sizes of
    ``encodings`` (when written)."""
    import pyarrow.compute as pc

    def sharded(gathered: str, part: str | None, **wildcards: str) -> _Sharded:
        return _Sharded(sp.stage_path(gathered, results, set=set_name, **wildcards), part,
                        results, set=set_name, **wildcards)

    present = present_runs(results, set_name, runs)
    if table is None:
        table = table_of_files(stage_files(results, [set_name], present))
    mine = table.filter(pc.equal(table.column("set"), set_name))
    run_of = pc.binary_join_element_wise(mine.column("solver"), mine.column("encoding"), "/")
    rows = {r: _RunRows(mine.filter(pc.equal(run_of, r)), time_column) for r in present}
    unique = sharded(sp.UNIQUE, sp.UNIQUE_SHARD)
    sizes = {e: _sizes(sp.stage_path(sp.CNF_SIZES, results, set=set_name, encoding=e))
             for e in encodings}
    propagation = _analysed(sp.stage_path(sp.PROPAGATION_INSTANCES, results, set=set_name))
    for path in instance_shards(results, set_name):
        texts, objects = _texts_and_objects(path)
        ids = [str(d["id"]) for d in objects]
        numbers = [int(i) if i.isdigit() else -1 for i in ids]
        yield ShardData(
            shard=path.stem, objects=objects, texts=texts,
            answers={r: rows[r].shard(numbers) for r in present},
            unique={u["id"]: u for u in unique.shard(path.stem, ids)},
            sizes={e: {i: z for i in ids if (z := s.pop(i, None)) is not None}
                   for e, s in sizes.items()},
            propagation={i: propagation.pop(i) for i in ids if i in propagation},
        )


def _sizes(path: Path) -> dict[str, list[int | float | None]]:
    """id -> [vars, clauses, bytes] of a CNF sizes file (each a count, or a number when it is
    not digits alone; None when empty or not a number); {} when there is none. Read by
    pyarrow's CSV reader, every cell as text."""
    if not path.exists():
        return {}
    table = tsv_table(path)
    if "id" not in table.column_names:
        return {}
    empty = [None] * table.num_rows
    values = [_counts(table.column(k)) if k in table.column_names else empty
              for k in ("vars", "clauses", "bytes")]
    return dict(zip(table.column("id").fill_null("").to_pylist(),
                    map(list, zip(*values, strict=True)), strict=True))


def _counts(column) -> list[int | float | None]:  # type: ignore[no-untyped-def]
    """:func:`count_or_number` of every cell of a text column: converted in C when every cell
    is ASCII digits (what the sizes job writes), else cell by cell."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not column.null_count and pc.all(pc.match_substring_regex(column, "^[0-9]+$")).as_py():
        try:
            return pc.cast(column, pa.int64()).to_pylist()
        except pa.ArrowInvalid:  # beyond int64: Python's int takes it
            pass
    return list(map(count_or_number, column.fill_null("").to_pylist()))


def number(text: str | None) -> float | None:
    """A TSV number (None when empty, not a number, or not finite)."""
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def count_or_number(text: str | None) -> int | float | None:
    """A TSV count as an int (ASCII digits only), anything else as :func:`number`."""
    if text and text.isascii() and text.isdigit():  # "²" is a digit int() does not take
        return int(text)
    return number(text)


def _analysed(path: Path) -> dict[str, dict[str, dict[str, str]]]:
    """id -> encoding -> row of a set's propagation analysis, the instances its sample left
    out skipped (shown as not analysed); {} for a set not analysed."""
    if not path.exists():
        return {}
    table = tsv_table(path)
    if "detail" in table.column_names:  # filtered in C: a large set's sample is a fraction
        import pyarrow.compute as pc

        table = table.filter(pc.invert(pc.starts_with(table.column("detail").fill_null(""),
                                                      NOT_SAMPLED)))
    out: dict[str, dict[str, dict[str, str]]] = {}
    for row in table.to_pylist():
        out.setdefault(row["id"], {})[row["encoding"]] = row
    return out


def _texts_and_objects(path: Path) -> tuple[list[str], list[dict[str, Any]]]:
    texts: list[str] = []
    objects: list[dict[str, Any]] = []
    for text, d in iter_instance_texts(path):
        texts.append(text)
        objects.append(d)
    return texts, objects


def files_plan(files: Sequence[str | Path]) -> tuple[Path, list[str], list[str]]:
    """(results directory, sets, runs) of the gathered stage files a rule passes (Instances
    shards, SatSols and SatOutputTimes TSVs, as the other cross-set reports take them), in the
    order given. Every file must lie under the same results directory."""
    shards, sols, _ = classify_files(files)
    roots = {Path(p).parents[2] for ps in shards.values() for p in ps}  # Instances/SET/SHARD
    roots |= {Path(p).parents[3] for p in sols.values()}  # SatSols/SOLVER/ENCODING/SET.tsv
    if len(roots) != 1:
        raise ValueError(f"stage files from {len(roots)} results directories: "
                         f"{', '.join(map(str, sorted(roots))) or 'none'}")
    sets = list(dict.fromkeys([*shards, *(s for s, _ in sols)]))
    runs = list(dict.fromkeys(run for _, run in sols))
    return roots.pop(), sets, runs
