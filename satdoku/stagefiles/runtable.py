"""The run table: every (set, run, instance) row of a run's gathered stage files, in columns.

One reader of SatSols and SatOutputTimes for everything that looks across instances: the run
store (``results/runs/<run id>.parquet``, :mod:`satdoku.runs.store`) is this table with the
run's manifest, and the summary, the explorer and the per-set reports read their rows from it
(:func:`table_of_files`: the stored run when it is there and newer than the stage files, else
the table built from the files in one pass), never a TSV row by row.

Columns: ``run_id``, ``set``, ``id`` (int64), ``line`` (int64), ``instance_hash``, ``name``,
``family``, ``solver``, ``encoding``, ``status``, ``verified``, ``detail``, ``solution`` (the
SatSols text: a board, or the status text; a CNF instance's model is left out, SatSols keeps
it), then every SatOutputTimes column: times and statistics as float64 (an empty or unreadable
cell is null), ``message``, ``termination``, ``measurement`` and ``cores`` as text. A run's
rows are its SatSols rows in order, each joined with its times row by id; a run without a
times file has nulls there.

The TSVs are read by pyarrow's CSV reader (every cell as text, as :func:`tables.read_tsv`
reads them); a file it cannot take (a row with missing cells, say) is read by ``read_tsv``.
pyarrow is imported inside the functions (heavy).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.arrow_values import (
    bool_array,
    int_array,
    null,
    repeat_text,
    text,
    text_array,
)
from satdoku.stagefiles.families import CNF_FAMILY, family_of_record
from satdoku.stagefiles.instances import (
    CNF_KIND,
    HEADER_TAG,
    StageFileError,
    iter_instance_dicts,
    object_flags,
)
from satdoku.stagefiles.manifest import read_manifest
from satdoku.stagefiles.tsv import read_tsv

META_KEY = "satdoku.run"
#: text columns of a row (every other SatOutputTimes column is a number)
TEXT_COLUMNS = ("run_id", "set", "instance_hash", "name", "family", "solver", "encoding",
                "status", "verified", "detail", "solution", "message", "termination",
                "measurement", "cores")
KEY_COLUMNS = ("run_id", "set", "id", "line", "instance_hash", "name", "family", "solver",
               "encoding", "status", "verified", "detail", "solution")


def classify_files(paths: Sequence[str | Path]) -> tuple[dict[str, list[Path]],
                                                       dict[tuple[str, str], Path],
                                                       dict[tuple[str, str], Path]]:
    """Sort stage files by the stage-file layout: ({set: Instances shards},
    {(set, run): SatSols TSV}, {(set, run): SatOutputTimes TSV}). Other paths are refused."""
    shards: dict[str, list[Path]] = {}
    sols: dict[tuple[str, str], Path] = {}
    times: dict[tuple[str, str], Path] = {}
    for p in map(Path, paths):
        if (m := sp.match(sp.INSTANCES, p)) is not None:
            shards.setdefault(m["set"], []).append(p)
        elif (m := sp.match(sp.SOLS, p)) is not None:
            sols[(m["set"], f"{m['solver']}/{m['encoding']}")] = p
        elif (m := sp.match(sp.TIMES, p)) is not None:
            times[(m["set"], f"{m['solver']}/{m['encoding']}")] = p
        elif p.suffix not in (".txt",):  # SatSols text files may come along: not needed here
            raise ValueError(f"{p}: not an Instances shard, SatSols or SatOutputTimes file")
    return {k: sorted(v) for k, v in shards.items()}, sols, times


def set_order(paths: Sequence[str | Path]) -> list[str]:
    """The sets of stage files in the order given (Instances shards first, then SatSols):
    every set given, also one without instances."""
    shards, sols, _ = classify_files(paths)
    return list(dict.fromkeys([*shards, *(s for s, _ in sols)]))


def instance_columns(shards: Sequence[str | Path] | None = None,
                     objects: Iterable[Mapping[str, Any]] | None = None):  # type: ignore[no-untyped-def]
    """``id``, ``line``, ``instance_hash``, ``name``, ``family`` of a set's Instances shards,
    or of its ``objects`` already parsed, in order, as a pyarrow table of text, and the flags
    ``valid`` (the object has no ``error``) and ``puzzle`` (valid and not a CNF instance), as
    booleans. Each shard is read by pyarrow's JSON reader when it is as normalize writes it,
    else object by object (one JSON parse per object, no puzzle built); both give the same
    columns."""
    if objects is not None:
        return _columns_of_objects(objects, "instance objects")
    parts = []
    for s in shards or ():
        part = _columns_read_by_arrow(s)
        parts.append(_columns_of_objects(iter_instance_dicts(s), s) if part is None else part)
    return _concat_columns(parts)


def _columns_of_objects(objects: Iterable[Mapping[str, Any]],  # type: ignore[no-untyped-def]
                        source: str | Path):
    """:func:`instance_columns` of parsed Instances objects (from ``source``: a field of the
    wrong kind, e.g. a numeric kind or a lone surrogate in a name, is a StageFileError naming
    it, not a traceback)."""
    import pyarrow as pa

    keys = ("id", "line", "instance_hash", "name", "family")
    out: dict[str, list[str]] = {k: [] for k in keys}
    valid: list[bool] = []
    puzzle: list[bool] = []
    for d in objects:
        try:
            out["id"].append(str(d["id"]))
            for key in ("line", "instance_hash", "name"):  # an explicit null: "", as arrow's
                value = d.get(key)
                out[key].append("" if value is None else str(value))
            out["family"].append(family_of_record(d))
        except (AttributeError, TypeError, ValueError) as exc:
            raise StageFileError(f"{source}: instance {d.get('id')}: bad instance record: "
                                 f"{exc}") from exc
        is_valid, has_puzzle = object_flags(d)
        valid.append(is_valid)
        puzzle.append(has_puzzle)
    try:
        texts = {k: text_array(v) for k, v in out.items()}
    except UnicodeEncodeError as exc:  # a JSON escape of half a surrogate pair
        raise StageFileError(f"{source}: bad instance record: a text that is not Unicode "
                             f"({exc})") from exc
    return pa.table({**texts, "valid": bool_array(valid), "puzzle": bool_array(puzzle)})


#: a field the arrow read types, given as an explicit JSON null: pyarrow cannot tell it from a
#: missing one, the object-by-object read can (an ``"error": null`` makes the instance
#: INVALID), so such a shard is read object by object
_EXPLICIT_NULL = re.compile(rb'"(?:error|kind|box|size|id|satdoku)"\s*:\s*null')


#: the Instances fields :func:`instance_columns` reads, as pyarrow's JSON reader types them
_ARROW_FIELDS = (("satdoku", "string"), ("id", "string"), ("line", "int64"),
                 ("instance_hash", "string"), ("name", "string"), ("kind", "string"),
                 ("box", "int64"), ("size", "int64"), ("error", "string"))


def _columns_read_by_arrow(shard: str | Path):  # type: ignore[no-untyped-def]
    """:func:`instance_columns` of one shard read by pyarrow's JSON reader (one pass in C, only
    the fields it needs), or None when the shard is not as normalize writes it (a field of
    another type, an object without an id, a malformed line): the caller then parses it
    object by object, which names any problem."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in _ARROW_FIELDS])
    try:
        data = Path(shard).read_bytes()
        if b"null" in data and _EXPLICIT_NULL.search(data):  # the first test: a C scan
            return None
        t = pj.read_json(pa.BufferReader(data), parse_options=pj.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="ignore", newlines_in_values=False))
    except (pa.ArrowException, OSError):
        return None
    if t.num_rows and t.column("satdoku")[0].as_py() == HEADER_TAG and \
            t.column("id")[0].as_py() is None:
        t = t.slice(1)
    if t.column("id").null_count or t.column("satdoku").null_count != t.num_rows:
        return None
    family = _families(t)
    valid = t.column("error").is_null()  # the flags as instances.object_flags makes them
    return pa.table({"id": t.column("id"),
                     "line": pc.cast(t.column("line"), pa.string()).fill_null(text("")),
                     "instance_hash": t.column("instance_hash").fill_null(text("")),
                     "name": t.column("name").fill_null(text("")),
                     "family": family, "valid": valid,
                     "puzzle": pc.and_not(valid, pc.equal(t.column("kind"), text(CNF_KIND))
                                          .fill_null(bool_array([False])[0]))})


def _families(t):  # type: ignore[no-untyped-def]
    """The family of every row of an arrow-read shard: rows grouped by what the family depends
    on (kind, box, size, whether an error is there) in C, :func:`family_of_record` once per
    group, on the group's first row."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not t.num_rows:
        return text_array([])
    error = t.column("error").is_valid()
    parts = [pc.cast(x, pa.string()).fill_null(text("")) for k in ("box", "size", "kind")
             for x in (t.column(k).is_valid(), t.column(k))]  # kind last: the rest has no ":"
    key = pc.binary_join_element_wise(pc.cast(error, pa.string()), *parts, text(":"))
    codes = pc.dictionary_encode(key).combine_chunks()
    _, first = np.unique(_codes(codes), return_index=True)  # numbered in first-seen order
    kind, box, size, err = (c.take(int_array(first.tolist())).to_pylist()
                            for c in (t.column("kind"), t.column("box"), t.column("size"), error))
    names = [family_of_record({k: v for k, v in (("kind", a), ("box", b), ("size", c),
                                                  ("error", "" if e else None)) if v is not None})
             for a, b, c, e in zip(kind, box, size, err, strict=True)]
    return text_array(names).take(codes.indices)


def _concat_columns(parts: list[Any]):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    if parts:
        return pa.concat_tables(parts)
    return pa.table({**{k: pa.nulls(0, pa.string())
                        for k in ("id", "line", "instance_hash", "name", "family")},
                     "valid": pa.nulls(0, pa.bool_()), "puzzle": pa.nulls(0, pa.bool_())})


def tsv_table(path: str | Path):  # type: ignore[no-untyped-def]
    """A TSV stage file as a pyarrow table of text (a cell a row does not have is null), read
    by pyarrow's CSV reader (the csv module's quoting), or by :func:`tables.read_tsv` when
    pyarrow refuses the file (a row with missing or extra cells)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    with open(path, encoding="utf-8", newline="") as fh:
        header = fh.readline().rstrip("\n").split("\t")
    if header == [""] or len(set(header)) != len(header):
        return _table_of_rows(read_tsv(path))
    try:
        table = pcsv.read_csv(
            path, read_options=pcsv.ReadOptions(block_size=1 << 24),
            parse_options=pcsv.ParseOptions(delimiter="\t", quote_char='"', double_quote=True,
                                            newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(
                column_types=dict.fromkeys(header, pa.string()), strings_can_be_null=False,
                quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return _table_of_rows(read_tsv(path))
    return table if table.column_names == header else _table_of_rows(read_tsv(path))


def _table_of_rows(rows: list[dict[str, str]]):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    keys = list(dict.fromkeys(k for r in rows for k in r if k is not None))
    return pa.table({k: text_array([r.get(k) for r in rows]) for k in keys})


def numbers(values):  # type: ignore[no-untyped-def]
    """A float column of TSV cells (a list or a pyarrow text array): empty or unreadable
    cells are null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else text_array(values)
    arr = pc.utf8_trim_whitespace(arr)
    ok = pc.match_substring_regex(arr, _NUMBER, ignore_case=True)
    return pc.if_else(ok, arr, null(pa.string())).cast(pa.float64())


#: a cell that reads as a number (float() would take it); anything else is null
_NUMBER = r"^[-+]?((\d+\.?\d*|\.\d+)(e[-+]?\d+)?|inf|infinity|nan)$"


def _aligner(ids, keys):  # type: ignore[no-untyped-def]
    """How to put a column keyed by ``keys`` in the order of ``ids`` (both text arrays):
    None when they are the same (the usual case), else the take indices (null: no row; the
    last row of a repeated key)."""
    if ids.equals(keys):
        return None
    where = {k: j for j, k in enumerate(keys.to_pylist())}
    return int_array([where.get(i) for i in ids.to_pylist()])


def _align(column, how):  # type: ignore[no-untyped-def]
    return column if how is None else column.take(how)


def _run_table(set_name: str, run: str, run_id: str, sols, times, info):  # type: ignore[no-untyped-def]
    """The columns of one run over one set (SatSols rows joined with their times by id);
    ``sols``, ``times`` and ``info`` (:func:`instance_columns`) are tables of text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    solver, _, encoding = run.partition("/")
    n = sols.num_rows
    blank = text("")
    empty = repeat_text("", n)

    def sol(key: str):  # type: ignore[no-untyped-def]
        return sols.column(key).fill_null(blank) if key in sols.column_names else empty

    ids = sol("id").combine_chunks()
    if info.num_rows:
        how = _aligner(ids, info.column("id").combine_chunks())

        def known(key: str):  # type: ignore[no-untyped-def]
            return _align(info.column(key), how).fill_null(blank)
    else:
        def known(key: str):  # type: ignore[no-untyped-def]
            return empty

    family = known("family")
    status, verified = sol("status"), sol("verified")
    model = pc.and_(pc.and_(pc.equal(family, text(CNF_FAMILY)), pc.equal(status, text("SAT"))),
                    pc.equal(verified, text("yes")))
    line = pc.if_else(pc.equal(sol("line"), blank), known("line"), sol("line"))
    cols: dict[str, Any] = {
        "run_id": repeat_text(run_id, n),
        "set": repeat_text(set_name, n),
        "id": pc.cast(ids, pa.int64()),
        "line": pc.cast(pc.if_else(pc.equal(line, blank), text("0"), line), pa.int64()),
        "instance_hash": pc.if_else(pc.equal(sol("instance_hash"), blank),
                                    known("instance_hash"), sol("instance_hash")),
        "name": known("name"), "family": family,
        "solver": repeat_text(solver, n),
        "encoding": repeat_text(encoding, n),
        "status": status, "verified": verified, "detail": sol("detail"),
        "solution": pc.if_else(model, blank, sol("solution")),
    }
    if times.num_rows or times.column_names:
        how = _aligner(ids, times.column("id").fill_null(blank).combine_chunks()) \
            if "id" in times.column_names else pa.nulls(n, pa.int64())
        for k in times.column_names:
            if k in cols:
                continue
            column = _align(times.column(k), how)
            cols[k] = column.fill_null(blank) if k in TEXT_COLUMNS else numbers(column)
    return pa.table(cols)


def build_set(set_name: str, shards: Sequence[str | Path],
              runs: Mapping[str, tuple[str | Path, str | Path | None]], run_id: str = "",
              info=None):  # type: ignore[no-untyped-def]
    """The run table of one set: its Instances ``shards`` and, per run (``solver/encoding``),
    its SatSols and SatOutputTimes files (None, or a missing file: no times). ``info``: the
    shards' :func:`instance_columns` when the caller has read them already."""
    import pyarrow as pa

    if info is None:
        info = instance_columns(shards)
    parts = []
    for run, (sols_path, times_path) in runs.items():
        times = tsv_table(times_path) if times_path and Path(times_path).exists() else pa.table({})
        parts.append(_run_table(set_name, run, run_id, tsv_table(sols_path), times, info))
    return _concat(parts)


def run_rows(table, run: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:  # type: ignore[no-untyped-def]
    """One run's rows of a one-set run table as the text reports read them: SatSols-like rows
    (``id line status verified solution detail``) and times-like rows (``id status`` and
    ``total_seconds`` as the times file writes it: six decimals, empty for none)."""
    import pyarrow.compute as pc

    solver, _, encoding = run.partition("/")
    mine = table.filter(pc.and_(pc.equal(table.column("solver"), text(solver)),
                                pc.equal(table.column("encoding"), text(encoding))))
    cols = {c: mine.column(c).to_pylist()
            for c in ("id", "line", "status", "verified", "solution", "detail")}
    seconds = (mine.column("total_seconds").to_pylist() if "total_seconds" in mine.column_names
               else [None] * mine.num_rows)
    ids = [str(i) for i in cols["id"]]
    sols = [{"id": i, "line": str(ln), "status": s, "verified": v, "solution": t, "detail": d}
            for i, ln, s, v, t, d in zip(ids, cols["line"], cols["status"], cols["verified"],
                                         cols["solution"], cols["detail"], strict=True)]
    times = [{"id": i, "status": s, "total_seconds": "" if t is None else f"{t:.6f}"}
             for i, s, t in zip(ids, cols["status"], seconds, strict=True)]
    return sols, times


def _concat(parts: list[Any]):  # type: ignore[no-untyped-def]
    import pyarrow as pa

    if parts:
        return pa.concat_tables(parts, promote_options="default")
    return pa.table({c: pa.nulls(0, pa.int64() if c in ("id", "line") else pa.string())
                     for c in KEY_COLUMNS})


def build(files: Sequence[str | Path], run_id: str = "",
          manifest: Mapping[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """The run table (pyarrow) of the gathered stage files ``files`` (every set x run given),
    with ``manifest`` as its metadata: each file read once; rows set by set in the order the
    sets are given, runs in the order their SatSols files are."""
    shards, sols, times = classify_files(files)
    parts = [build_set(name, shards.get(name, []),
                       {run: (path, times.get((s, run))) for (s, run), path in sols.items()
                        if s == name}, run_id)
             for name in set_order(files)]
    table = _concat([p for p in parts if p.num_rows])
    if manifest is not None:
        table = table.replace_schema_metadata({META_KEY: json.dumps(manifest)})
    return table


def store_path(results: str | Path, run_id: str) -> Path:
    """Where the run store keeps run ``run_id`` of a results directory."""
    return sp.stage_path(sp.RUNS_STORE, results, run=run_id)


def read_store(path: str | Path):  # type: ignore[no-untyped-def]
    """One stored run's table (its manifest in the metadata), read through ``ParquetFile``:
    ``pq.read_table`` would import pyarrow's dataset layer (and pandas with it), about 0.3 s
    of CPU a report job does not need for one file."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).read()


def stored(results: str | Path):  # type: ignore[no-untyped-def]
    """The stored table of the run ``results/run.json`` names (None when there is none)."""
    manifest = read_manifest(Path(results) / sp.RUN_MANIFEST)
    if not manifest or not manifest.get("run_id"):
        return None
    path = store_path(results, str(manifest["run_id"]))
    return read_store(path) if path.is_file() else None


def table_of_files(files: Sequence[str | Path]):  # type: ignore[no-untyped-def]
    """The run table of the gathered stage files ``files``: the stored run of their results
    directory when it holds exactly their sets and runs and is newer than every one of them
    (what the workflow's reports read: the run record writes it first), else built from the
    files (:func:`build`). Rows of other sets or runs are never included."""
    _, sols, _ = classify_files(files)
    try:
        results = _results_dir(files)
    except ValueError:
        results = None
    if results is not None and sols:
        try:
            table = stored(results)
        except (OSError, ValueError):
            table = None
        if table is not None and _covers(table, results, files, sols):
            return table
    return build(files)


def _results_dir(files: Sequence[str | Path]) -> Path:
    """The one results directory of stage files (ValueError for none or several)."""
    shards, sols, times = classify_files(files)
    roots = {Path(p).parents[2] for ps in shards.values() for p in ps}  # Instances/SET/SHARD
    roots |= {Path(p).parents[3] for p in [*sols.values(), *times.values()]}
    if len(roots) != 1:
        raise ValueError(f"stage files from {len(roots)} results directories: "
                         f"{', '.join(map(str, sorted(roots))) or 'none'}")
    return roots.pop()


def _covers(table, results: Path, files: Sequence[str | Path],  # type: ignore[no-untyped-def]
            sols: Mapping[tuple[str, str], Path]) -> bool:
    """Whether a stored table is the table of ``files``: every column, the same (set, run)
    pairs, and no stage file changed after it was written."""
    if not set(KEY_COLUMNS) <= set(table.column_names):  # stored before these columns were
        return False
    manifest = read_manifest(results / sp.RUN_MANIFEST) or {}
    written = store_path(results, str(manifest.get("run_id", ""))).stat().st_mtime
    if any(Path(f).stat().st_mtime > written for f in files):
        return False
    return run_pairs(table) == set(sols) or (not table.num_rows and not sols)


def run_pairs(table) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """The distinct (set, ``solver/encoding``) pairs of a run table, found in C (a Python pass
    over a 50,000-row table's two text columns cost 0.35 s; ``Table.group_by`` imports
    pyarrow's dataset layer and pandas with it)."""
    import numpy as np
    import pyarrow.compute as pc

    if not table.num_rows:
        return set()
    runs = pc.binary_join_element_wise(table.column("solver"), table.column("encoding"),
                                       text("/"))
    sets = pc.dictionary_encode(table.column("set")).combine_chunks()
    runs = pc.dictionary_encode(runs).combine_chunks()
    width = len(runs.dictionary)
    pairs = np.unique(_codes(sets).astype(np.int64) * width + _codes(runs).astype(np.int64))
    names, run_names = sets.dictionary.to_pylist(), runs.dictionary.to_pylist()
    return {(names[k // width], run_names[k % width]) for k in pairs.tolist()}


def _codes(encoded):  # type: ignore[no-untyped-def]
    """The int32 codes of a dictionary-encoded array without nulls as a numpy view of its
    buffer: ``to_numpy`` imports pandas through pyarrow's Python layer (about 0.4 s), which
    the record job and the reports do without."""
    import numpy as np

    indices = encoded.indices
    return np.frombuffer(indices.buffers()[1], dtype=np.int32,
                         count=indices.offset + len(indices))[indices.offset:]
