"""The runs store: each run's per-instance rows and its manifest in one Parquet file,
``results/runs/<run id>.parquet``, queried with DuckDB (``satdoku runs``, ``satdoku compare``).

A row is one (set, run, instance) of the run table (:mod:`satdoku.stagefiles.runtable`, where
its columns are listed): keys, status, verification, the SatSols text, then every column of the
run's SatOutputTimes file, so columns other stages add arrive without a change here; the
reports read their rows from it. The manifest (``results/run.json``) is the file's key-value
metadata under ``satdoku.run``. The store is an archive: a run adds its file and never replaces
another's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.manifest import read_manifest
from satdoku.stagefiles.runtable import META_KEY, build, classify_files, read_store, store_path

__all__ = ["META_KEY", "list_runs", "manifest_of", "read_rows", "results_files", "run_table",
           "store_path", "write_run"]


def results_files(results: str | Path) -> list[Path]:
    """Every gathered stage file of a results directory (Instances shards, SatSols and
    SatOutputTimes TSVs), as the cross-set report rules pass them."""
    r = Path(results)
    globs = (sp.INSTANCES.format(set="*", shard="*"),
             sp.SOLS.format(solver="*", encoding="*", set="*"),
             sp.TIMES.format(solver="*", encoding="*", set="*"))
    return sorted(p for g in globs for p in r.glob(g))


def run_table(files: Sequence[str | Path], run_id: str = "",
              manifest: Mapping[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """The store table (pyarrow) of the gathered stage files ``files`` (every set x run
    given), with ``manifest`` as its metadata: the run table
    (:func:`satdoku.stagefiles.runtable.build`)."""
    classify_files(files)  # refuses a path that is no stage file before anything is read
    return build(files, run_id, manifest)


def write_run(results: str | Path, table) -> Path:  # type: ignore[no-untyped-def]
    """Add a run to the store: its table (rows and manifest, :func:`run_table`) as
    ``runs/<run id>.parquet`` (written to a temporary name first, so a store never holds half
    a file)."""
    import pyarrow.parquet as pq

    manifest = manifest_of(table)
    if not manifest:
        raise ValueError("a stored run needs its manifest")
    path = store_path(results, str(manifest["run_id"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    pq.write_table(table, tmp)
    tmp.replace(path)
    return path


def read_rows(source: str | Path, results: str | Path = sp.RESULTS):
    """The rows of a stored run (a ``.parquet`` file, or the id of a run stored under
    ``results``) or of a results directory's current stage files, as a pyarrow table (its
    manifest in the metadata when known)."""
    p = Path(source)
    if not p.exists() and store_path(results, str(source)).is_file():
        p = store_path(results, str(source))
    if p.is_file():
        return read_store(p)
    if not p.is_dir():
        raise FileNotFoundError(f"{p}: neither a results directory nor a stored run (.parquet "
                                f"file or run id under {results}/runs)")
    manifest = read_manifest(p / sp.RUN_MANIFEST)
    files = results_files(p)
    if not any(sp.match(sp.SOLS, f) for f in files):
        raise FileNotFoundError(f"{p}: no SatSols files (not a results directory?)")
    run_id = str(manifest.get("run_id", "")) if manifest else ""
    return run_table(files, run_id, manifest)


def manifest_of(table) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """The manifest a store table carries (None when it has none)."""
    meta = table.schema.metadata or {}
    raw = meta.get(META_KEY.encode())
    return json.loads(raw) if raw else None


def list_runs(results: str | Path, skipped: list[str] | None = None
              ) -> list[dict[str, Any]]:
    """Every stored run under ``results/runs/``, oldest first: its manifest, file and number of
    rows, read with one DuckDB query over the store's Parquet files. A file that is not a
    readable Parquet file (corrupt, truncated) is left out and named in ``skipped`` (``FILE:
    why``), so one bad file never hides the good ones."""
    import duckdb

    folder = sp.stage_path(sp.RUNS_STORE, results, run="x").parent
    files = sorted(folder.glob("*.parquet"))
    con = duckdb.connect()
    names = []
    for f in files:
        try:
            con.execute("SELECT count(*) FROM parquet_metadata($f)", {"f": str(f)}).fetchall()
            names.append(str(f))
        except duckdb.Error as exc:
            if skipped is not None:
                skipped.append(f"{f}: {str(exc).splitlines()[0]}")
    if not names:
        return []
    meta = con.execute(
        "SELECT file_name, decode(value) FROM parquet_kv_metadata($files) "
        "WHERE decode(key) = $key", {"files": names, "key": META_KEY}).fetchall()
    counts = dict(con.execute(
        "SELECT filename, count(*) FROM read_parquet($files, filename = true, "
        "union_by_name = true) GROUP BY filename", {"files": names}).fetchall())
    out = []
    for file, text in meta:
        m = json.loads(text)
        out.append({"file": file, "rows": int(counts.get(file, 0)), "manifest": m})
    out.sort(key=lambda r: (str(r["manifest"].get("start", "")), r["file"]))
    return out
