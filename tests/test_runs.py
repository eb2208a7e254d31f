"""Runs: manifest, the Parquet store and its listing, instances_wide.csv, `satdoku compare`
(on the report fixture: fixed times, so every ratio is known by hand)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import report_fixture as fx
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.cli import main
from satdoku.pipeline.stage_record import record_run
from satdoku.runs.compare import compare
from satdoku.runs.provenance import build_manifest, config_hash
from satdoku.runs.store import list_runs, read_rows
from satdoku.stagefiles.manifest import read_manifest
from satdoku.stagefiles.tsv import read_tsv, write_tsv

CONFIG = {"sets": {"nine": "nine.txt", "futo": "futo.dat"},
          "solvers": {"minisat22": {}, "cadical195": {}, "dpll": {}, "cdcl": {}},
          "encodings": ["extended", "minimal"], "time_limit": fx.TIME_LIMIT}


def _record(root: Path, start: str) -> dict:
    results = root / "results"
    (results / "runs").mkdir(parents=True, exist_ok=True)
    (results / "runs" / ".started").write_text(start + "\n")
    return record_run(fx.files(results), CONFIG, results, results / "run.json",
                      root / "reports_wide.csv")


def test_manifest_fields() -> None:
    m = build_manifest(CONFIG, start="2026-01-02T03:04:05+00:00", end="2026-01-02T03:05:00+00:00")
    assert m["run_id"] == "20260102T030405Z-" + config_hash(CONFIG)[:8]
    assert m["python"].count(".") == 2 and m["machine"]["cores"] >= 1
    assert m["machine"]["memory_mb"] > 0 and m["machine"]["cpu"]
    assert {s["name"] for s in m["solvers"]} == set(CONFIG["solvers"])
    dpll = next(s for s in m["solvers"] if s["name"] == "dpll")
    assert dpll["version"].startswith("dpll[") and "code " in dpll["version"]
    assert "python-sat" in next(s for s in m["solvers"] if s["name"] == "minisat22")["version"]
    assert m["packages"]["numpy"]
    # the hash is of the settings, not of their order
    assert config_hash(dict(reversed(CONFIG.items()))) == config_hash(CONFIG)
    assert config_hash({**CONFIG, "time_limit": 5}) != config_hash(CONFIG)


def test_record_store_and_listing(tmp_path: Path) -> None:
    fx.build(tmp_path)
    m = _record(tmp_path, "2026-01-02T03:04:05+00:00")
    assert read_manifest(tmp_path / "results" / "run.json") == m
    assert m["start"] == "2026-01-02T03:04:05+00:00" and m["end"] >= m["start"]
    t = read_rows(tmp_path / "results" / "runs" / f"{m['run_id']}.parquet")
    rows = t.to_pylist()
    assert len(rows) == 5 * 9  # 5 runs x (6 nine + 3 futo)
    r = next(x for x in rows if x["set"] == "nine" and x["id"] == 3 and x["solver"] == "dpll")
    assert (r["status"], r["total_seconds"], r["decisions"]) == ("TIMEOUT", 10.0, 99.0)
    assert r["run_id"] == m["run_id"] and r["family"] == "9x9"
    # a second run of the same results is a second stored file; listing is oldest first
    m2 = _record(tmp_path, "2026-02-01T00:00:00+00:00")
    runs = list_runs(tmp_path / "results")
    assert [x["manifest"]["run_id"] for x in runs] == [m["run_id"], m2["run_id"]]
    assert [x["rows"] for x in runs] == [45, 45]
    assert runs[0]["manifest"]["machine"] == m["machine"]


def test_a_corrupt_stored_run_is_named_and_skipped(tmp_path: Path, capsys) -> None:
    fx.build(tmp_path)
    m = _record(tmp_path, "2026-01-02T03:04:05+00:00")
    bad = tmp_path / "results" / "runs" / "20250101T000000Z-broken.parquet"
    bad.write_bytes(b"PAR1 not really a parquet file")
    assert main(["runs", "--results", str(tmp_path / "results")]) == 0
    out, err = capsys.readouterr()
    assert m["run_id"] in out and "45 rows" in out  # the good run is still listed
    assert len(err.splitlines()) == 1 and err.startswith(f"satdoku runs: skipped {bad}: ")
    assert "Traceback" not in err and "_duckdb" not in err
    assert m["measurement"]["setting"] == "auto" and m["measurement"]["host"]


def test_instances_wide(tmp_path: Path) -> None:
    fx.build(tmp_path)
    _record(tmp_path, "2026-01-02T03:04:05+00:00")
    with open(tmp_path / "reports_wide.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    # sets in the order their files were given (sorted here), instances in id order
    assert [(r["set"], r["id"]) for r in rows] == [("futo", "1"), ("futo", "2"), ("futo", "3")] \
        + [("nine", str(i)) for i in range(1, 7)]
    assert list(rows[0])[:4] == ["set", "id", "name", "instance_hash"]
    assert rows[5]["dpll/extended status"] == "TIMEOUT"
    assert rows[5]["dpll/extended total_seconds"] == "10.000000"
    assert rows[2]["cadical195/extended status"] == "UNSAT"
    assert rows[8]["minisat22/minimal status"] == "INVALID"


def _plant(results: Path) -> None:
    """B's regression: cdcl three times slower on nine, minisat22/extended's futo #2 SAT ->
    UNSAT (a flip), dpll's nine #1 SAT -> TIMEOUT (a status change, not a flip)."""
    def edit(path: Path, fn) -> None:
        rows = read_tsv(path)
        cols = list(rows[0])
        for r in rows:
            fn(r)
        write_tsv(rows, path, cols)

    def slower(r: dict) -> None:
        if r["total_seconds"]:
            r["total_seconds"] = f"{float(r['total_seconds']) * 3:.6f}"

    edit(results / "SatOutputTimes/cdcl/extended/nine.tsv", slower)
    for sub in ("SatSols", "SatOutputTimes"):
        edit(results / sub / "minisat22/extended/futo.tsv",
             lambda r: r.update(status="UNSAT") if r["id"] == "2" else None)
        edit(results / sub / "dpll/extended/nine.tsv",
             lambda r: r.update(status="TIMEOUT") if r["id"] == "1" else None)


def test_compare_planted_regression(tmp_path: Path, capsys) -> None:
    a = fx.build(tmp_path / "a")
    shutil.copytree(a, tmp_path / "b" / "results")
    b = tmp_path / "b" / "results"
    _plant(b)
    c = compare(a, b, by="set")
    rows = {(r["set"], r["solver"], r["encoding"]): r for r in c.rows}
    slow = rows[("nine", "cdcl", "extended")]
    # nine has 5 valid instances, #2 a failed verification: 4 solved by both, each 3x slower
    assert slow["n"] == 6 and slow["status_changes"] == 0
    assert abs(slow["median_ratio"] - 3) < 1e-9 and abs(slow["ci_low"] - 3) < 1e-9
    same = rows[("futo", "dpll", "extended")]
    assert same["median_ratio"] == 1 and same["status_changes"] == 0
    assert rows[("nine", "dpll", "extended")]["status_changes"] == 1
    assert [(f["set"], f["id"], f["solver"], f["status_a"], f["status_b"]) for f in c.flips] == [
        ("futo", 2, "minisat22", "SAT", "UNSAT")]
    assert len(c.changes) == 2
    assert c.slower[0]["solver"] == "cdcl" and abs(c.slower[0]["ratio"] - 3) < 1e-9
    # the command: exit 1 on the flip, both files written, the flip loud in the HTML
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "--by", "set", "--out", str(out)]) == 1
    with open(out / "compare.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert list(table[0]) == ["set", "solver", "encoding", "n", "status_changes",
                              "median_ratio", "ci_low", "ci_high"]
    cdcl = next(r for r in table if r["set"] == "nine" and r["solver"] == "cdcl")
    assert float(cdcl["median_ratio"]) == 3.0
    page = (out / "compare.html").read_text()
    assert "1 answer(s) flipped between SAT and UNSAT" in page and 'class="flip"' in page
    assert "flipped" in capsys.readouterr().err
    # without the flip: exit 0
    assert main(["compare", str(a), str(a), "--by", "set", "--out", str(out)]) == 0
    assert "No answer flipped" in (out / "compare.html").read_text()


def test_compare_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["compare", str(tmp_path / "none"), str(tmp_path), "--out",
                 str(tmp_path / "o")]) == 2
    assert "neither a results directory nor a stored run" in capsys.readouterr().err


def test_compare_runs_with_nothing_in_common_is_one_line(tmp_path: Path, capsys) -> None:
    """Runs with different solvers (or sets) share no instance: one line and exit 2, never an
    empty report that exits 0 (a CI gate comparing the wrong runs would pass)."""
    a = fx.build(tmp_path / "a")
    b = tmp_path / "b" / "results"
    shutil.copytree(a, b)
    for sub in ("SatSols", "SatOutputTimes"):
        for d in list((b / sub).iterdir()):
            if d.is_dir():
                d.rename(d.with_name("other-" + d.name))
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "--by", "set", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "share no instance" in err[0] and "only in A 45" in err[0], err
    assert not out.exists()
    # a run whose every answer is an ERROR: its ratio is said to be missing, not "nan"
    shutil.rmtree(b)
    shutil.copytree(a, b)
    for sub in ("SatSols", "SatOutputTimes"):
        for f in (b / sub).rglob("*.tsv"):
            rows = read_tsv(f)
            write_tsv([{**r, "status": "ERROR"} for r in rows], f, list(rows[0]))
    assert main(["compare", str(a), str(b), "--by", "set", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text and "B/A - (no instance solved by both)" in text


def test_runs_command(tmp_path: Path, capsys) -> None:
    assert main(["runs", "--results", str(tmp_path)]) == 0
    assert "no stored runs" in capsys.readouterr().out
    fx.build(tmp_path)
    m = _record(tmp_path, "2026-01-02T03:04:05+00:00")
    assert main(["runs", "--results", str(tmp_path / "results")]) == 0
    out = capsys.readouterr().out
    assert m["run_id"] in out and "45 rows" in out and m["machine"]["cpu"] in out
    # a stored run by its id: the same rows as the results directory, so nothing changed
    assert main(["compare", m["run_id"], str(tmp_path / "results"), "--results",
                 str(tmp_path / "results"), "--by", "set", "--out", str(tmp_path / "c")]) == 0
    with open(tmp_path / "c" / "compare.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 10 and {r["status_changes"] for r in table} == {"0"}
    assert {r["n"] for r in table} == {"6", "3"}
    assert json.loads((tmp_path / "results" / "run.json").read_text())["run_id"] == m["run_id"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-inftyaINF x", max_size=8), max_size=20))
def test_number_cells_read_as_float_reads_them(cells: list[str]) -> None:
    """The store's number columns: a TSV cell float() reads is that number, any other null."""
    import math

    from satdoku.stagefiles.runtable import numbers as _numbers

    def reference(cell: str) -> float | None:
        try:
            return float(cell)
        except ValueError:
            return None

    got = _numbers(cells).to_pylist()
    for cell, value in zip(cells, got, strict=True):
        want = reference(cell)
        if want is None or value is None:
            assert want is None and value is None, cell
        else:
            assert value == want or (math.isnan(value) and math.isnan(want)), cell


def test_instance_columns_read_by_arrow_equal_the_object_by_object_read(tmp_path: Path) -> None:
    """The Instances columns the run table takes (id, line, hash, name, family), read by
    pyarrow's JSON reader, equal the object-by-object read on shards of every kind (9x9 with
    invalid lines, 4x4, 16x16, Futoshiki, Latin, a CNF set); a shard not as normalize writes it
    (a numeric id, an object without an id) goes the object-by-object way, alone."""
    import pytest

    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.stagefiles.instances import StageFileError, iter_instance_dicts
    from satdoku.stagefiles.runtable import _columns_read_by_arrow, instance_columns

    root = Path(__file__).resolve().parent.parent
    inputs = [root / "tests/data/tiny/mixed9.txt", root / "data/sudoku/malformed.txt",
              root / "data/sudoku/sudokusolver_4x4.txt", root / "data/sudoku/vu_16x16_10.txt",
              root / "data/futoshiki/futoshiki.dat", root / "data/latin/qwh_sample.txt",
              root / "data/public/satlib/uf50-218"]
    shards = []
    for k, src in enumerate(inputs):
        shards.append(tmp_path / f"{k}.jsonl")
        normalize(src, shards[-1], 0, 40)
    for shard in shards:
        assert _columns_read_by_arrow(shard) is not None, shard
        fast = instance_columns([shard])
        slow = instance_columns(objects=iter_instance_dicts(shard))
        assert fast.to_pylist() == slow.to_pylist(), shard
    assert instance_columns(shards).num_rows == sum(
        1 for s in shards for _ in iter_instance_dicts(s))
    families = set(instance_columns(shards).column("family").to_pylist())
    assert len(families) >= 5, families
    lines = shards[0].read_text().splitlines()
    numeric = tmp_path / "numeric.jsonl"
    numeric.write_text("\n".join([lines[0], lines[1].replace('"id":"1"', '"id":1')]) + "\n")
    assert _columns_read_by_arrow(numeric) is None
    assert instance_columns([numeric]).column("id").to_pylist() == ["1"]
    mixed = [shards[0], numeric, shards[3]]  # only the one shard goes object by object
    assert instance_columns(mixed).to_pylist() == instance_columns(
        objects=(d for s in mixed for d in iter_instance_dicts(s))).to_pylist()
    no_id = tmp_path / "no_id.jsonl"
    no_id.write_text("\n".join([lines[0], lines[1].replace('"id":"1",', '')]) + "\n")
    assert _columns_read_by_arrow(no_id) is None
    with pytest.raises(StageFileError):
        instance_columns([no_id])
    # an explicit "error": null makes the instance INVALID read object by object; pyarrow
    # cannot tell it from a missing error, so such a shard goes the object-by-object way
    null_error = tmp_path / "null_error.jsonl"
    null_error.write_text("\n".join([lines[0], lines[1].replace('"id":"1",',
                                                                 '"id":"1","error" : null,'),
                                     *lines[2:]]) + "\n")
    assert _columns_read_by_arrow(null_error) is None
    flags = instance_columns([null_error]).select(["valid", "puzzle"]).to_pylist()
    assert flags[0] == {"valid": False, "puzzle": False}
    # read object by object, a null line or name is "" as the arrow read gives it; a field of
    # the wrong kind (a numeric kind, a box that is no number, half a surrogate pair in a
    # name) is a StageFileError naming the shard, never a traceback of another type
    nulls = tmp_path / "nulls.jsonl"
    nulls.write_text("\n".join([lines[0], lines[1].replace('"line":1,', '"line":null,').replace(
        '"id":"1",', '"id":"1","name":null,')]) + "\n")
    for read in (instance_columns([nulls]), instance_columns(objects=iter_instance_dicts(nulls))):
        assert read.select(["line", "name"]).to_pylist()[0] == {"line": "", "name": ""}
    for k, edit in enumerate(({"kind": 5}, {"box": "three"}, {"name": "\ud800"})):
        odd = tmp_path / f"odd{k}.jsonl"
        odd.write_text("\n".join([lines[0], json.dumps({**json.loads(lines[1]), **edit})]) + "\n")
        with pytest.raises(StageFileError, match=f"odd{k}.jsonl"):
            instance_columns([odd])


def test_instance_flags_equal_the_objects_and_records_are_parsed_on_demand(tmp_path: Path) -> None:
    """The per-set report's flags (id, valid, has a puzzle) come from the instance columns;
    they equal the objects' own, on valid, INVALID and CNF instances; the records it shows are
    the same as parsed up front, and a bad object is named when it is reached."""
    import pytest

    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.pipeline.stage_report import instance_flags
    from satdoku.stagefiles.instances import InstanceShards, StageFileError
    from satdoku.stagefiles.runtable import instance_columns

    root = Path(__file__).resolve().parent.parent
    shards = []
    for k, src in enumerate((root / "data/sudoku/malformed.txt",
                             root / "data/public/satlib/uf50-218",
                             root / "data/sudoku/sudokusolver_4x4.txt")):
        shards.append(tmp_path / f"{k}.jsonl")
        normalize(src, shards[-1], 0, 40)
    eager, lazy = InstanceShards(shards), InstanceShards(shards, parse=False)
    flags = instance_flags(instance_columns(shards), lazy)
    assert flags == eager.flags()
    assert {(v, p) for _, v, p in flags} == {(True, True), (False, False), (True, False)}
    assert len(lazy) == len(eager) and lazy._objects.count(None) == len(lazy)  # none parsed
    assert [lazy[i] for i in (0, 3, len(lazy) - 1)] == [eager[i] for i in (0, 3, len(eager) - 1)]
    assert lazy.objects == eager.objects
    bad = tmp_path / "bad.jsonl"
    text = shards[0].read_text().splitlines()
    bad.write_text("\n".join([*text[:3], "[1, 2]", *text[3:]]) + "\n")
    shown = InstanceShards([bad], parse=False)
    assert shown[0] == eager[0]  # the bad line is not reached
    with pytest.raises(StageFileError, match=r"bad.jsonl:4: .*not an instance object"):
        shown[2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=8)), max_size=40))
def test_text_array_from_buffers_equals_pa_array(values: list[str | None]) -> None:
    """The buffer-built arrays (no pandas import) are pyarrow's own from the same values."""
    import pyarrow as pa

    from satdoku.stagefiles.arrow_values import (
        bool_array,
        int_array,
        repeat_text,
        text,
        text_array,
    )

    assert text_array(values).equals(pa.array(values, type=pa.string()))
    ints = [None if v is None else len(v) - 3 for v in values]
    assert int_array(ints).equals(pa.array(ints, type=pa.int64()))
    flags = [v is not None and len(v) % 2 == 1 for v in values]
    assert bool_array(flags).equals(pa.array(flags, type=pa.bool_()))
    for word in ("", "é", "SAT"):
        assert repeat_text(word, len(values)).equals(pa.array([word] * len(values), pa.string()))
        assert text(word).equals(pa.scalar(word, pa.string()))


def test_record_imports_no_pandas(tmp_path: Path) -> None:
    """The run record (run table, Parquet store, wide CSV) never pays pyarrow's pandas import
    (pa.array / pa.scalar of Python values): a process of its own checks sys.modules."""
    import subprocess
    import sys

    fx.build(tmp_path)
    (tmp_path / "results" / "runs").mkdir(parents=True, exist_ok=True)
    code = (
        "import sys, json\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import report_fixture as fx\n"
        "from pathlib import Path\n"
        "from satdoku.pipeline.stage_record import record_run\n"
        "r = Path(sys.argv[2]) / 'results'\n"
        "record_run(fx.files(r), json.loads(sys.argv[3]), r, r / 'run.json', r / 'wide.csv')\n"
        "assert (r / 'wide.csv').stat().st_size\n"
        "print('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(tmp_path),
                           json.dumps(CONFIG)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
