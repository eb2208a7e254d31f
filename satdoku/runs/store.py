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
                "status", "verified", "message", "termination", "measurement", "cores")
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


def instance_info(shards: Iterable[str | Path]) -> dict[str, dict[str, str]]:
    """id -> {line, instance_hash, name, family} of a set's Instances shards (no puzzle built)."""
    out = {}
    for s in shards:
        for d in iter_instance_dicts(s):
            out[str(d["id"])] = {"line": str(d.get("line", "")),
                                 "instance_hash": str(d.get("instance_hash", "")),
                                 "name": str(d.get("name", "")), "family": family_of_record(d)}
    return out


def _strings(values: list[Any]):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    return pa.array(values, type=pa.string())


def _numbers(values: list[str | None]):  # type: ignore[no-untyped-def]
    """A float column of TSV cells: empty or unreadable cells are null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pc.utf8_trim_whitespace(pa.array(values, type=pa.string()))
    ok = pc.match_substring_regex(arr, _NUMBER, ignore_case=True)
    return pc.if_else(ok, arr, pa.scalar(None, pa.string())).cast(pa.float64())


#: a cell that reads as a number (float() would take it); anything else is null
_NUMBER = r"^[-+]?((\d+\.?\d*|\.\d+)(e[-+]?\d+)?|inf|infinity|nan)$"


def _run_table(set_name: str, run: str, run_id: str, sols: list[dict[str, str]],
               times: list[dict[str, str]], known: dict[str, dict[str, str]]):  # type: ignore[no-untyped-def]
    """The store columns of one run over one set (SatSols rows joined with their times)."""
    import pyarrow as pa

    solver, _, encoding = run.partition("/")
    n = len(sols)
    ids = [s["id"] for s in sols]
    info = [known.get(i, _NONE) for i in ids]
    by_id = {t["id"]: t for t in times}
    joined = [by_id.get(i, _NONE) for i in ids]
    cols: dict[str, Any] = {
        "run_id": _strings([run_id] * n), "set": _strings([set_name] * n),
        "id": pa.array([int(i) for i in ids], type=pa.int64()),
        "line": pa.array([int(s.get("line") or m.get("line") or 0)
                          for s, m in zip(sols, info, strict=True)], type=pa.int64()),
        "instance_hash": _strings([s.get("instance_hash") or m.get("instance_hash", "")
                                   for s, m in zip(sols, info, strict=True)]),
        "name": _strings([m.get("name", "") for m in info]),
        "family": _strings([m.get("family", "") for m in info]),
        "solver": _strings([solver] * n), "encoding": _strings([encoding] * n),
        "status": _strings([s["status"] for s in sols]),
        "verified": _strings([s.get("verified", "") for s in sols]),
    }
    for k in (times[0] if times else {}):
        if k is None or k in cols:
            continue
        values = [t.get(k) for t in joined]
        cols[k] = (_strings([v or "" for v in values]) if k in TEXT_COLUMNS
                   else _numbers(values))
    return pa.table(cols)


_NONE: dict[str, str] = {}


def run_table(files: Sequence[str | Path], run_id: str = "",
              manifest: Mapping[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """The store table (pyarrow) of the gathered stage files ``files`` (every set x run
    given), with ``manifest`` as its metadata: columns are the key columns, then every
    SatOutputTimes column (a run without one has nulls there)."""
    import pyarrow as pa

    from satdoku.report.collect import classify_files

    shards, sols, times = classify_files(files)
    info = {name: instance_info(paths) for name, paths in shards.items()}
    parts = []
    for (set_name, run), sols_path in sols.items():
        tpath = times.get((set_name, run))
        trows = read_tsv(tpath) if tpath and tpath.exists() else []
        parts.append(_run_table(set_name, run, run_id, read_tsv(sols_path), trows,
                                info.get(set_name, {})))
    if parts:
        table = pa.concat_tables(parts, promote_options="default")
    else:
        table = pa.table({c: pa.array([], type=pa.int64() if c in ("id", "line")
                                      else pa.string()) for c in KEY_COLUMNS})
    if manifest is not None:
        table = table.replace_schema_metadata({META_KEY: json.dumps(manifest)})
    return table


def store_path(results: str | Path, run_id: str) -> Path:
    return sp.stage_path(sp.RUNS_STORE, results, run=run_id)


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
    import pyarrow.parquet as pq

    from satdoku.stagefiles.manifest import read_manifest

    p = Path(source)
    if not p.exists() and store_path(results, str(source)).is_file():
        p = store_path(results, str(source))
    if p.is_file():
        return pq.read_table(p)
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
