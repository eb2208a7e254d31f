"""The runs store: each run's per-instance rows and its manifest in one Parquet file,
``results/runs/<run id>.parquet``, queried with DuckDB (``satdoku runs``, ``satdoku compare``).

A row is one (set, run, instance): ``run_id``, ``set``, ``id``, ``line``, ``instance_hash``,
``name``, ``family``, ``solver``, ``encoding``, ``status``, ``verified``, then every column of
the run's SatOutputTimes file (times and statistics as numbers: ``total_seconds``,
``solve_seconds``, ...; ``message`` as text), so columns other stages add arrive without a change
here. The manifest (``results/run.json``) is the file's key-value metadata under ``satdoku.run``.
The store is an archive: a run adds its file and never replaces another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.families import family_of_record
from satdoku.stagefiles.instances import iter_instance_dicts
from satdoku.stagefiles.tables import read_tsv

META_KEY = "satdoku.run"
#: text columns of a row (every other SatOutputTimes column is a number)
TEXT_COLUMNS = ("run_id", "set", "instance_hash", "name", "family", "solver", "encoding",
                "status", "verified", "message", "termination")
KEY_COLUMNS = ("run_id", "set", "id", "line", "instance_hash", "name", "family", "solver",
               "encoding", "status", "verified")


def results_files(results: str | Path) -> list[Path]:
    """Every gathered stage file of a results directory (Instances shards, SatSols and
    SatOutputTimes TSVs), as the cross-set report rules pass them."""
    r = Path(results)
    globs = (sp.INSTANCES.format(set="*", shard="*"),
             sp.SOLS.format(solver="*", encoding="*", set="*"),
             sp.TIMES.format(solver="*", encoding="*", set="*"))
    return sorted(p for g in globs for p in r.glob(g))


def _number(text: str | None) -> float | None:
    if text in (None, ""):
        return None
    try:
        return float(text)  # type: ignore[arg-type]
    except ValueError:
        return None


def instance_info(shards: Iterable[str | Path]) -> dict[str, dict[str, str]]:
    """id -> {line, instance_hash, name, family} of a set's Instances shards (no puzzle built)."""
    out = {}
    for s in shards:
        for d in iter_instance_dicts(s):
            out[str(d["id"])] = {"line": str(d.get("line", "")),
                                 "instance_hash": str(d.get("instance_hash", "")),
                                 "name": str(d.get("name", "")), "family": family_of_record(d)}
    return out


def run_rows(files: Sequence[str | Path], run_id: str = "") -> list[dict[str, Any]]:
    """The store rows of the gathered stage files ``files`` (every set x run given)."""
    from satdoku.report.collect import classify_files

    shards, sols, times = classify_files(files)
    rows: list[dict[str, Any]] = []
    info = {name: instance_info(paths) for name, paths in shards.items()}
    for (set_name, run), sols_path in sols.items():
        solver, _, encoding = run.partition("/")
        tpath = times.get((set_name, run))
        by_id = {t["id"]: t for t in read_tsv(tpath)} if tpath and tpath.exists() else {}
        known = info.get(set_name, {})
        for s in read_tsv(sols_path):
            i = s["id"]
            inst = known.get(i, {})
            t = by_id.get(i, {})
            row: dict[str, Any] = {
                "run_id": run_id, "set": set_name, "id": int(i),
                "line": int(s.get("line") or inst.get("line") or 0),
                "instance_hash": s.get("instance_hash") or inst.get("instance_hash", ""),
                "name": inst.get("name", ""), "family": inst.get("family", ""),
                "solver": solver, "encoding": encoding, "status": s["status"],
                "verified": s.get("verified", ""),
            }
            for k, v in t.items():
                if k is None or k in row or k in ("id", "line"):
                    continue
                row[k] = (v or "") if k in TEXT_COLUMNS else _number(v)
            rows.append(row)
    return rows


def to_table(rows: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any] | None = None):
    """A pyarrow table of store rows (columns: the key columns, then every other column in
    order of first appearance), with the manifest as its metadata."""
    import pyarrow as pa

    columns = list(KEY_COLUMNS)
    for r in rows:
        columns += [k for k in r if k not in columns]
    types = {c: (pa.string() if c in TEXT_COLUMNS else pa.int64() if c in ("id", "line")
                 else pa.float64()) for c in columns}
    data = {c: pa.array([r.get(c) for r in rows], type=types[c]) for c in columns}
    table = pa.table(data)
    if manifest is not None:
        table = table.replace_schema_metadata({META_KEY: json.dumps(manifest)})
    return table


def store_path(results: str | Path, run_id: str) -> Path:
    return sp.stage_path(sp.RUNS_STORE, results, run=run_id)


def write_run(results: str | Path, rows: Sequence[Mapping[str, Any]],
              manifest: Mapping[str, Any]) -> Path:
    """Add a run to the store: its rows and manifest as ``runs/<run id>.parquet`` (written to a
    temporary name first, so a store never holds half a file)."""
    import pyarrow.parquet as pq

    path = store_path(results, str(manifest["run_id"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    pq.write_table(to_table(rows, manifest), tmp)
    tmp.replace(path)
    return path


def read_rows(source: str | Path):
    """The rows of a stored run (a ``.parquet`` file) or of a results directory's current stage
    files, as a pyarrow table (its manifest in the metadata when known)."""
    import pyarrow.parquet as pq

    from satdoku.stagefiles.manifest import read_manifest

    p = Path(source)
    if p.is_file():
        return pq.read_table(p)
    if not p.is_dir():
        raise FileNotFoundError(f"{p}: neither a results directory nor a stored run (.parquet)")
    manifest = read_manifest(p / sp.RUN_MANIFEST)
    files = results_files(p)
    if not any(sp.match(sp.SOLS, f) for f in files):
        raise FileNotFoundError(f"{p}: no SatSols files (not a results directory?)")
    run_id = str(manifest.get("run_id", "")) if manifest else ""
    return to_table(run_rows(files, run_id), manifest)


def manifest_of(table) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    """The manifest a store table carries (None when it has none)."""
    meta = table.schema.metadata or {}
    raw = meta.get(META_KEY.encode())
    return json.loads(raw) if raw else None


def list_runs(results: str | Path) -> list[dict[str, Any]]:
    """Every stored run under ``results/runs/``, oldest first: its manifest, file and number of
    rows, read with one DuckDB query over the store's Parquet files."""
    import duckdb

    folder = sp.stage_path(sp.RUNS_STORE, results, run="x").parent
    files = sorted(folder.glob("*.parquet"))
    if not files:
        return []
    names = [str(f) for f in files]
    con = duckdb.connect()
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
