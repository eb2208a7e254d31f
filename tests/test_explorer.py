"""The explorer's data files (no browser): the figures equal the summary's, filters' status
columns say what the stage files say, chunks hold every instance, cactus curves name real
instances, CNF-set instances have no board, and the LTN report carries example boards."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import report_fixture as fx

from satdoku.report.explorer import site as ex
from satdoku.report.explorer.chunks import ChunkColumns, chunk_entries


def load(path: Path) -> tuple[str, object]:
    """(key, value) of a data file (one SATDOKU.load call); a chunk's value is its instances,
    as the page reads them from the chunk's columns."""
    m = re.fullmatch(r'SATDOKU\.load\(("[^"]*"), (.*)\);\n', path.read_text(encoding="utf-8"),
                     re.S)
    assert m, f"{path} is not one SATDOKU.load call"
    key, value = json.loads(m.group(1)), json.loads(m.group(2))
    return key, chunk_entries(value) if key.startswith("chunk:") else value


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path, dict]:
    root = tmp_path_factory.mktemp("explorer")
    results = fx.build(root)
    out = root / "reports" / "explorer"
    ov = ex.build_explorer(results, fx.SETS, fx.RUNS, fx.TIME_LIMIT, out, chunk=2)
    return results, out, ov


def test_page_files_and_plotly_bundle_are_copied(built):
    _, out, _ = built
    for name in ex.STATIC:
        assert (out / name).stat().st_size > 100, name
    bundle = (out / "plotly.min.js").read_text(encoding="utf-8")
    assert len(bundle) > 1_000_000 and "plotly" in bundle[:2000].lower()
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html  # nothing from the network


def stage_files(results: Path) -> list[Path]:
    """The gathered stage files of a results directory (what the report rules pass)."""
    return [*sorted(results.glob("Instances/*/*.jsonl")),
            *sorted(results.glob("SatSols/*/*/*.tsv")),
            *sorted(results.glob("SatOutputTimes/*/*/*.tsv"))]


def test_table_equals_the_summary_table(built):
    """The overview's figures are the summary's: same function, same frame, the virtual best
    solvers (VBS, VBS-reference) included."""
    from satdoku.report.collect import load_files
    from satdoku.report.pairs import with_vbs
    from satdoku.report.solver_tables import solver_table

    results, out, ov = built
    expected = solver_table(with_vbs(load_files(stage_files(results))), fx.TIME_LIMIT)
    key, data = load(out / "data" / "overview.js")
    assert key == "overview" and data == json.loads(json.dumps(ov))
    table = data["table"]
    assert table["columns"] == list(expected.columns)
    assert len(table["rows"]) == len(expected) == len(fx.SETS) * (len(fx.RUNS) + 2)
    wanted = {tuple(w[:3]): w for w in expected.itertuples(index=False)}  # set, solver, encoding
    for got in table["rows"]:
        want = wanted[tuple(got[:3])]
        for g, w in zip(got, want, strict=True):
            if isinstance(w, float) and math.isnan(w):
                assert g is None
            else:
                assert g == pytest.approx(w) if isinstance(w, float) else g == w


def test_problems_come_from_the_planted_wrong_answer_and_disagreement(built):
    from satdoku.report.collect import load_files
    from satdoku.report.summary import problems as summary_problems

    results, _, ov = built
    problems = ov["problems"]
    assert sorted(problems) == sorted(summary_problems(load_files(stage_files(results))))
    assert ov["problems_total"] == len(problems) == 2
    assert any("nine instance 2" in p and "cdcl/extended answer failed verification" in p
               for p in problems)
    assert any("futo instance 3: solvers disagree" in p for p in problems)
    flagged = {(r[0], r[1], r[2]) for r, bad in zip(ov["table"]["rows"],
                                                     ov["table"]["problem"], strict=True) if bad}
    assert ("nine", "cdcl", "extended") in flagged  # the wrong answer
    assert ("futo", "cadical195", "extended") in flagged  # UNSAT against SAT
    assert ("nine", "minisat22", "extended") not in flagged


def test_status_columns_and_times(built):
    _, out, ov = built
    runs = ov["runs"]
    k = {r["run"]: j for j, r in enumerate(runs)}
    _, dpll = load(out / "data/sets/nine" / f"run{k['dpll/extended']}.js")
    assert dpll["s"] == "SSTSUI"  # the planted timeout is #3; #6 is INVALID
    assert dpll["t"][:3] == [500000, 1500000, 10000000]  # microseconds of total_seconds
    _, cdcl = load(out / "data/sets/nine" / f"run{k['cdcl/extended']}.js")
    assert cdcl["s"][1] == "s"  # a SAT answer that failed verification
    _, meta = load(out / "data/sets/nine/set.js")
    assert meta["ids"] is None and len(meta["fam"]) == 6 and meta["uq"] == "------"


def test_the_page_reads_its_columns_with_codes_shipped_from_python(built):
    """The overview carries the one-character codes (explorer.js keeps no copy): every status
    and verdict character the data files hold has a word; the list's flags, evaluated as the
    page does (each group has some run's character), find the planted problems; the problem
    columns are the Stats flagged so; the set/solver/encoding cells are where ``at`` says."""
    from satdoku.report.solver_tables import STATS

    _, out, ov = built
    codes = ov["codes"]
    assert codes == json.loads(json.dumps(ex.page_codes()))
    groups = [chars for _, chars in codes["filters"].values()]
    groups += [chars for _, flag in codes["flags"].values() for chars in flag]
    groups += [codes["solved"], codes["wrong"], codes["no_point"]]
    assert set("".join(groups)) <= set(codes["status"])
    k = {r["run"]: j for j, r in enumerate(ov["runs"])}

    def flagged(set_name: str, flag: str) -> list[int]:
        cols = [load(out / f"data/sets/{set_name}/run{j}.js")[1]["s"]
                for j in next(s for s in ov["sets"] if s["name"] == set_name)["runs"]]
        assert set("".join(cols)) <= set(codes["status"])
        return [i + 1 for i in range(len(cols[0]))
                if all(any(c[i] in chars for c in cols) for chars in codes["flags"][flag][1])]

    assert 2 in flagged("nine", "wrong")  # cdcl's failed SAT answer
    assert 3 in flagged("futo", "disagree")  # cadical195 UNSAT against SAT
    assert flagged("nine", "disagree") == []
    _, cdcl = load(out / "data/sets/nine" / f"run{k['cdcl/extended']}.js")
    assert codes["status"][cdcl["s"][1]] == "WRONG SAT" and cdcl["s"][1] in codes["wrong"]
    _, meta = load(out / "data/sets/nine/set.js")
    assert set(meta["uq"]) <= set(codes["verdicts"])
    table = ov["table"]
    marked = {c for c, bad in zip(table["columns"], table["problem_columns"], strict=True) if bad}
    assert marked == {s.key for s in STATS if s.problem} == {"TIMEOUT", "MEMOUT", "ERROR",
                                                              "failed"}
    assert {name: table["columns"][j] for name, j in table["at"].items()} == {
        "set": "set", "solver": "solver", "encoding": "encoding"}
    js = "".join((out / name).read_text(encoding="utf-8") for name in ex.STATIC
                 if name.endswith(".js"))
    for word in ("WRONG SAT", "solved (SAT/UNSAT)", "solvers disagree", '"TIMEOUT"'):
        assert word not in js, word


def test_chunks_hold_every_instance_in_order(built):
    _, out, ov = built
    nine = next(s for s in ov["sets"] if s["name"] == "nine")
    assert nine["n"] == 6 and nine["first"] == 1 and nine["shards"] == [["00000", 1, 6]]
    ids = []
    for c in range(3):  # chunk size 2
        key, chunk = load(out / f"data/sets/nine/chunk{c}.js")
        assert key == f"chunk:nine:{c}"
        ids += [inst["id"] for inst in chunk]
    assert ids == [1, 2, 3, 4, 5, 6]
    _, last = load(out / "data/sets/nine/chunk2.js")
    assert last[1]["error"].startswith("80 cells") and "p" not in last[1]
    first = last[0]
    assert first["p"]["kind"] == "sudoku" and first["p"]["shape"] == [9, 9]
    dpll = str(ov["runs"].index(next(r for r in ov["runs"] if r["run"] == "dpll/extended")))
    assert first["r"][dpll]["s"] == "UNSAT" and first["r"][dpll]["t"] == 0.25


def test_cactus_points_name_solved_instances(built, tmp_path, monkeypatch):
    _, out, ov = built
    _, plots = load(out / "data" / "plots.js")
    fams = {f["family"]: f for f in plots["cactus"]}
    assert set(fams) == {"9x9", "Futoshiki"} and fams["9x9"]["total"] == 5
    dpll = next(c for c in fams["9x9"]["curves"]
                if ov["runs"][c["run"]]["run"] == "dpll/extended")
    assert dpll["y"] == [0.25, 0.5, 1.5, 2.0] and dpll["id"] == [5, 1, 2, 4]  # #3 timed out
    assert dpll["x"] == [1, 2, 3, 4] and set(dpll["set"]) == {"nine"}
    # large curves are sampled: at most CACTUS_POINTS, first and last kept, x = rank
    monkeypatch.setattr(ex, "CACTUS_POINTS", 3)
    e = ex.Explorer(Path("."), tmp_path, ["a/x"], 10.0)
    e.family_totals["9x9"] = 10
    e.set_names.append("s")
    secs, sets, ids = e.cactus[("9x9", "a/x")]
    for k in range(10, 0, -1):
        secs.append(0.1 * k)
        sets.append(0)
        ids.append(k)
    (curve,) = e.cactus_plots()[0]["curves"]
    assert curve["x"] == [1, 5, 10] and curve["id"] == [1, 5, 10] and curve["solved"] == 10


def test_explorer_from_the_rule_s_files(built, tmp_path):
    """Given the gathered stage files (as the rule passes them), the explorer finds the results
    directory, the sets and the runs itself."""
    from satdoku.report.explorer.data import files_plan

    results, _, ov = built
    root, sets, runs = files_plan(stage_files(results))
    assert root == results and sorted(sets) == sorted(fx.SETS) and sorted(runs) == sorted(fx.RUNS)
    again = ex.explorer_from_files(stage_files(results), fx.TIME_LIMIT, tmp_path / "x")
    assert sorted(map(tuple, again["table"]["rows"])) == sorted(map(tuple, ov["table"]["rows"]))
    other = tmp_path / "elsewhere" / "results"
    shutil.copytree(results / "Instances", other / "Instances")
    with pytest.raises(ValueError, match="2 results directories"):
        files_plan([*stage_files(results), *sorted(other.glob("Instances/*/*.jsonl"))])


def test_answers_come_from_the_run_table_and_uniqueness_from_shard_files(tmp_path):
    """read_set takes each run's rows from the run table (the stored run when it is current,
    else the table of the gathered files), one shard at a time, aligned with the shard's
    instances; uniqueness prefers SET/shards/SHARD.tsv to the gathered file."""
    from satdoku.report.explorer.data import read_set
    from satdoku.stagefiles.runtable import build
    from satdoku.stagefiles.tsv import read_tsv, write_tsv

    results = fx.build(tmp_path, ("minisat22/extended",))
    (data,) = list(read_set(results, "nine", ["minisat22/extended"]))
    sols = read_tsv(results / "SatSols/minisat22/extended/nine.tsv")
    answers = data.answers["minisat22/extended"]
    assert [str(d["id"]) for d in data.objects] == ["1", "2", "3", "4", "5", "6"]
    assert answers["status"] == [r["status"] for r in sols]
    # a table handed in is the one read: a row changed only there shows
    table = build([*sorted(results.glob("Instances/nine/*.jsonl")),
                   results / "SatSols/minisat22/extended/nine.tsv",
                   results / "SatOutputTimes/minisat22/extended/nine.tsv"])
    status = table.column("status").to_pylist()
    status[1] = "ERROR"
    table = table.set_column(table.column_names.index("status"), "status",
                             __import__("pyarrow").array(status))
    (data,) = list(read_set(results, "nine", ["minisat22/extended"], table=table))
    assert data.answers["minisat22/extended"]["status"][1] == "ERROR"
    unique = [{"id": "1", "line": "1", "solutions": "1", "verdict": "several", "seconds": "0"}]
    part = results / "Reports" / "unique" / "nine" / "shards" / "00000.tsv"
    part.parent.mkdir(parents=True)
    write_tsv(unique, part, tuple(unique[0]))
    (data,) = list(read_set(results, "nine", ["minisat22/extended"]))
    assert data.unique["1"]["verdict"] == "several"


def test_fast_instance_objects_equal_the_records(built, tmp_path):
    """The objects the explorer takes as they stand (one reference record per layout) are what
    instance_base builds from a record of each, and the boards it reads from SatSols texts are
    what run_answer draws (a text that is no board: the givens)."""
    import functools

    from satdoku.formats import format_board
    from satdoku.formats.jsonpuzzle import board_out
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.report.text import board_of
    from satdoku.stagefiles.instances import iter_instance_dicts, record_from_dict

    results, _, _ = built
    tiny = Path(__file__).parent / "data" / "tiny"
    csv = tmp_path / "given.csv"
    csv.write_text("puzzle,solution\n" + fx_csv())
    shards = sorted(results.glob("Instances/*/*.jsonl"))
    for k, src in enumerate([tiny / "mixed9.txt", tiny / "sudokusolver_4x4.txt", csv]):
        normalize(src, tmp_path / f"{k}.jsonl", 0, 1000)
        shards.append(tmp_path / f"{k}.jsonl")
    bases = ex._Bases()
    fast = 0
    for shard in shards:
        for d in iter_instance_dicts(shard):
            got, board = bases(d)
            rec = record_from_dict(d)
            assert got == ex.instance_base(rec)
            if rec.puzzle is None:
                assert board is None
                continue
            fast += isinstance(board, functools.partial)
            full = rec.solution or rec.puzzle.givens
            for text in (format_board(full, rec.notation, rec.puzzle.size), "not a board"):
                assert board(text) == board_out(board_of(rec, text), rec.puzzle.domain)
    assert fast >= 8  # the 9x9 lines and the CSV puzzles


def test_chunk_answers_are_run_answer_of_the_stage_files(built):
    """Every instance in the chunks, as the page reads it from their columns, is what
    instance_base makes of its record (the set's source and notation said once), and every
    answer what run_answer makes of the instance's SatSols and SatOutputTimes rows (the
    explorer reads them from the run table, columns at a time)."""
    from satdoku.stagefiles.instances import read_instances
    from satdoku.stagefiles.tsv import read_tsv

    results, out, ov = built
    runs = [r["run"] for r in ov["runs"]]
    checked = 0
    measured: set[str] = set()
    for info in ov["sets"]:
        name = info["name"]
        records = {r.id: r for s in sorted(results.glob(f"Instances/{name}/*.jsonl"))
                   for r in read_instances(s)}
        rows = {}
        for k in info["runs"]:
            solver, _, encoding = runs[k].partition("/")
            sols = results / "SatSols" / solver / encoding / f"{name}.tsv"
            times = results / "SatOutputTimes" / solver / encoding / f"{name}.tsv"
            rows[k] = ({r["id"]: r for r in read_tsv(sols)},
                       {r["id"]: r for r in read_tsv(times)} if times.exists() else {})
        common = {k: info[k] for k in ("source", "notation") if k in info}
        for chunk in sorted((out / "data" / "sets" / name).glob("chunk*.js")):
            for inst in load(chunk)[1]:
                rec, boards = records[str(inst["id"])], []
                base = {k: v for k, v in inst.items()
                        if k not in ("r", "boards", "u", "sz", "pg", "sg")}
                assert {**common, **base} == ex.instance_base(rec)
                expected = {}
                for k, (sols, times) in rows.items():
                    a = ex.run_answer(rec, sols.get(rec.id), times.get(rec.id), boards)
                    if a:
                        expected[str(k)] = a
                assert inst["r"] == expected
                assert inst.get("boards", []) == boards
                checked += 1
                measured.update(a["ms"] for a in inst["r"].values() if "ms" in a)
    assert checked == sum(s["n"] for s in ov["sets"])
    assert measured  # each answer says which backend measured it (in-process solvers here)


def fx_csv() -> str:
    """Two 9x9 puzzles with their solutions (CSV rows)."""
    solution = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
    puzzle = "".join(c if k % 3 else "0" for k, c in enumerate(solution))
    return f"{puzzle},{solution}\n{solution[:40]}{'0' * 41},{solution}\n"


def test_cnf_set_instances_have_no_board(public_data):
    """A CNF-set instance (a CnfFile instead of a puzzle) shows its file, size and checksum."""
    import hashlib

    from satdoku.formats.record import CnfFile, Record

    path = public_data / "satlib" / "uf20-91" / "uf20-01.cnf"
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    rec = Record(str(path), 1, 1, "dimacs", cnf=CnfFile(str(path), 20, 91, sha))
    d = ex.instance_base(rec)
    assert d["fam"] == "CNF" and "p" not in d and "error" not in d
    assert d["cnf"] == {"path": str(path), "vars": 20, "clauses": 91, "sha256": sha,
                        "bytes": path.stat().st_size}
    answer = ex.run_answer(rec, {"id": "1", "status": "SAT", "verified": "yes",
                                 "solution": "", "detail": ""}, None, [])
    assert answer == {"s": "SAT", "v": "yes"}  # no board to draw


def test_ltn_examples_right_and_wrong_per_question():
    from satdoku.ltn.dataset import Example
    from satdoku.ltn.evaluate import examples

    grid = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)
    closed = [Example(grid, "closed_valid"), Example(grid, "closed_invalid", "changed1"),
              Example(grid, "closed_invalid", "row_swap"), Example(grid, "closed_valid")]
    verdicts = [True, True, False, False]  # right, wrong, right, wrong
    closed_reports = [SimpleNamespace(valid=v, confidence=0.9) for v in verdicts]
    hole = (0, *grid[1:])
    opened = [Example(hole, "open_solvable"), Example(hole, "open_impossible")]
    open_reports = [
        SimpleNamespace(solvable=True, decided_by="ltn", solution="1234341221434321",
                        q3_agreement=True, moves=[{}]),
        SimpleNamespace(solvable=True, decided_by="ltn", solution=None, q3_agreement=False,
                        moves=[]),
    ]
    ex_ = examples(closed, closed_reports, opened, open_reports, per_side=3)
    q1 = ex_["q1"]
    assert [(e["kind"], e["answer"]) for e in q1["right"]] == [
        ("closed_valid", "valid"), ("closed_invalid", "invalid")]
    assert [(e["subkind"], e["truth"], e["answer"]) for e in q1["wrong"]] == [
        ("changed1", "invalid", "valid"), ("-", "valid", "invalid")]
    assert q1["right"][0]["board"] == "1234341221434321" and q1["right"][0]["confidence"] == 0.9
    assert [e["kind"] for e in ex_["q2"]["right"]] == ["open_solvable"]
    assert ex_["q2"]["right"][0]["solution"] == "1234341221434321"
    assert [e["truth"] for e in ex_["q2"]["wrong"]] == ["unsolvable"]
    assert ex_["q2"]["right"][0]["board"].startswith("0")  # empty cells as 0
    assert len(ex_["q3"]["right"]) == 1 and len(ex_["q3"]["wrong"]) == 1
    # round robin: with one example per side, every kind still gets its turn first
    one = examples(closed, [SimpleNamespace(valid=e.kind == "closed_valid", confidence=None)
                            for e in closed], [], [], per_side=2)
    assert [e["subkind"] for e in one["q1"]["right"]] == ["-", "changed1"]


def test_cactus_has_the_virtual_best_and_each_set_limit(built):
    """The 9x9 family: a VBS curve (run -1) whose times are, per instance, the fastest run that
    solved it (recomputed from the summary's frame); the family's limit is its set's."""
    from satdoku.report.collect import load_files

    results, out, _ = built
    _, plots = load(out / "data" / "plots.js")
    fam = next(f for f in plots["cactus"] if f["family"] == "9x9")
    (vbs,) = [c for c in fam["curves"] if c["run"] == -1]
    df = load_files(stage_files(results))
    nine = df[(df["set"] == "nine") & df["solved"]]
    best = sorted(nine.groupby("id")["seconds"].min())
    assert vbs["y"] == pytest.approx(best) and vbs["solved"] == len(best) == 5
    assert fam["limits"] == [[fx.TIME_LIMIT, ["nine"]]]


def test_encodings_view_reads_the_propagation_analysis(tmp_path):
    """The overview lists each analysed set's propagation rows with every run's share of
    instances decided with zero decisions; an instance carries its UP / FL outcomes."""
    from satdoku.stagefiles.paths import PROPAGATION_DIR
    from satdoku.stagefiles.propagation_files import write_instances, write_summary

    results = fx.build(tmp_path)
    d = results / PROPAGATION_DIR.format(set="nine")
    d.mkdir(parents=True)
    write_summary([{"set": "nine", "layout": "sudoku-9", "encoding": "extended", "instances": 5,
                    "up_solved": 2, "up_share": 0.4, "fl_solved": 5, "fl_share": 1.0}],
                  d / "propagation.csv")
    write_instances([{"id": str(i), "line": i, "layout": "sudoku-9", "encoding": "extended",
                      "up": "solved" if i < 3 else "open", "up_open": 0 if i < 3 else 40,
                      "fl": "solved", "fl_open": 0, "fl_failed": 1, "singles": "open",
                      "singles_open": 40, "detail": ""} for i in range(1, 6)],
                    d / "propagation_instances.tsv")
    ov = ex.build_explorer(results, fx.SETS, fx.RUNS, fx.TIME_LIMIT, tmp_path / "out", chunk=10)
    (row,) = ov["propagation"]
    assert (row["set"], row["encoding"], row["up_solved"]) == ("nine", "extended", "2")
    runs = {ov["runs"][int(k)]["run"]: v for k, v in row["zero"].items()}
    assert runs == {"minisat22/extended": 0.0, "dpll/extended": 0.0, "cdcl/extended": 0.0}
    _, chunk = load(tmp_path / "out/data/sets/nine/chunk0.js")
    assert chunk[0]["pg"] == {"extended": ["solved", "0", "solved", "0"]}
    assert chunk[3]["pg"]["extended"][:2] == ["open", "40"] and chunk[0]["sg"] == "open"
    assert "pg" not in chunk[5]  # the INVALID line was not analysed


def test_chunk_columns_cut_parts_of_any_size_into_chunks():
    """Shard parts of 3, 0, 5 and 1 rows, with columns one part lacks, come out as chunks of 2
    (the last one short) holding every row once, in order, null where a part had no column."""
    cut = ChunkColumns(2)
    chunks = []
    for start, n, keys in ((0, 3, ("a",)), (3, 0, ("a",)), (3, 5, ("a", "b")), (8, 1, ("b",))):
        part = {(k,): [f"{k}{start + j}" for j in range(n)] for k in keys}
        chunks += cut.add(part, n)
    chunks.append(cut.rest())
    assert cut.rest() is None
    sizes = [len(next(iter(c.values()))) for c in chunks]
    assert sizes == [2, 2, 2, 2, 1]
    assert all(len(v) == n for c, n in zip(chunks, sizes, strict=True) for v in c.values())

    def column(key: str) -> list:
        return [v for c, n in zip(chunks, sizes, strict=True) for v in c.get((key,), [None] * n)]

    assert column("a") == [*(f"a{i}" for i in range(8)), None]
    assert column("b") == [None, None, None, *(f"b{i}" for i in range(3, 9))]


@pytest.mark.parametrize("cells", [
    ["729", "12012", "0", "148576"],  # what the sizes job writes: converted in C
    ["729", "", "1.5", "x"],  # empty, a decimal, no number: cell by cell
    ["7", "99999999999999999999999"],  # beyond int64
    ["7", None, "²"],  # a null cell; a digit isdigit takes but [0-9] does not
    [],
])
def test_size_counts_read_in_c_equal_the_cell_by_cell_read(cells):
    """The explorer's CNF size columns (data._counts) equal count_or_number of each cell."""
    import pyarrow as pa

    from satdoku.report.explorer.data import _counts, count_or_number

    got = _counts(pa.chunked_array([pa.array(cells, pa.string())]))
    want = [count_or_number(c) for c in cells]
    assert got == want and [type(v) for v in got] == [type(v) for v in want]
