"""The solve stage's compiled loop (satdoku/pipeline/batch.py, _batch.c) against its reference,
the Python loop of satdoku/pipeline/stage_solve.py: the same SatOutput, SatOutputTimes and SatSols
files apart from the measured times, on shards that mix what the loop takes with what it hands
back (the first puzzle of a layout, invalid lines, another layout, UNSAT, boards that differ
from a given solution, models that do not check)."""

from __future__ import annotations

import random
import re
from array import array
from contextlib import ExitStack
from pathlib import Path

import pytest

from satdoku.formats.symbols import board_chars
from satdoku.generate import complete_grid, erase, impossible_board
from satdoku.pipeline import batch
from satdoku.pipeline.shard_writers import ShardWriters
from satdoku.pipeline.stage_encode import encode_shard
from satdoku.pipeline.stage_normalize import normalize
from satdoku.pipeline.stage_solve import ShardFiles, SolveSettings, solve_shard
from satdoku.solve import open_solver, verify
from satdoku.solvers.base import RunLimits
from satdoku.solvers.cores import describe
from satdoku.solvers.result import TIMEOUT, Result
from satdoku.stagefiles.bundles import read_bundle
from satdoku.stagefiles.instances import read_instances
from satdoku.stagefiles.outputs import write_block
from satdoku.stagefiles.tsv import TIMES_COLUMNS, read_tsv, times_row

pytestmark = pytest.mark.skipif(batch.native() is None, reason="satdoku.pipeline._batch not built")

VARIANTS = {"minisat22-inc": {"solver": "minisat22", "incremental": True},
            "cdcl-inc": {"solver": "cdcl", "incremental": True}}
#: measured, so different between two runs; everything else must be equal
MEASURED = ("solve_seconds", "total_seconds", "check_seconds", "wall_seconds", "cpu_seconds",
            "max_rss_mb", "load1")
TINY9 = Path(__file__).parent / "data" / "tiny" / "mixed9.txt"
KAGGLE = (Path(__file__).parents[1] / "data" / "public" / "kaggle_style_sample"
          / "sudoku_puzzle_solution_sample.csv")


def _mixed_lines() -> list[str]:
    """9x9 puzzles, an invalid line, an impossible 9x9, 4x4 puzzles, 9x9 again."""
    rng = random.Random(7)
    nines = TINY9.read_text().split()[:14]
    impossible = impossible_board(complete_grid(3, rng), 50, rng)
    assert impossible is not None
    fours = [board_chars(erase(complete_grid(2, rng), 9, rng).givens) for _ in range(4)]
    return [*nines[:8], "12345 not a board", board_chars(impossible.givens), *fours, *nines[8:],
            "", board_chars(erase(complete_grid(3, rng), 30, rng).givens)]


def _csv_with_solutions() -> str:
    """Puzzles with their solution as the input gives it: few givens (another board may be
    found: 'differs'), many givens, and one wrong given solution."""
    rng = random.Random(11)
    rows = ["puzzle,solution"]
    for holes in (70, 65, 40, 30, 72):
        grid = complete_grid(3, rng)
        rows.append(f"{board_chars(erase(grid, holes, rng).givens)},{board_chars(grid.givens)}")
    grid = complete_grid(3, rng)
    wrong = list(grid.givens)
    wrong[0], wrong[1] = wrong[1], wrong[0]
    rows.append(f"{board_chars(erase(grid, 45, rng).givens)},{board_chars(tuple(wrong))}")
    return "\n".join(rows) + "\n"


def _shard(tmp: Path, name: str, text: str, encoding: str = "extended", size: int = 1000
           ) -> tuple[Path, Path]:
    src = tmp / name
    src.write_text(text)
    inst, bundle = tmp / f"{name}.jsonl", tmp / f"{name}.cnfs"
    normalize(src, inst, 0, size)
    encode_shard(inst, bundle, "t", encoding)
    return inst, bundle


def _solve(tmp: Path, inst: Path, bundle: Path, solver: str, compiled: bool,
           encoding: str = "extended", **kw: object) -> tuple[list[dict], str, str]:
    tag = f"{solver}-{'c' if compiled else 'py'}"
    times, sols, out = tmp / f"{tag}.tsv", tmp / f"{tag}.sols", tmp / f"{tag}.out"
    solve_shard(ShardFiles(inst, times, sols, bundle, out), SolveSettings(
        solver, encoding, {solver: VARIANTS[solver]},
        RunLimits(time_limit=kw.pop("time_limit", 20.0)),  # type: ignore[arg-type]
        compiled=compiled, **kw))  # type: ignore[arg-type]
    rows = read_tsv(times)
    for r in rows:
        for k in MEASURED:
            r[k] = "t" if r[k] else ""
    text = re.sub(r"c time \S+ search \S+", "c time", out.read_text())
    return rows, sols.read_text(), text


class _Counting:
    """The compiled module with its Runner counting the puzzles it wrote."""

    def __init__(self, mod: object) -> None:
        self.mod, self.done, self.resumed = mod, 0, 0

    def scan_bundle(self, data: bytes) -> object:
        return self.mod.scan_bundle(data)  # type: ignore[attr-defined]

    def Runner(self, *args: object) -> object:
        runner = self.mod.Runner(*args)  # type: ignore[attr-defined]
        outer = self

        class Counted:
            def run(self, *a: object) -> tuple:
                before = runner.resumed
                result = runner.run(*a)
                outer.done += result[0]
                outer.resumed += runner.resumed - before
                return result

        return Counted()


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> _Counting:
    spy = _Counting(batch.native())
    monkeypatch.setattr(batch, "native", lambda: spy)
    return spy


@pytest.mark.parametrize("solver", list(VARIANTS))
def test_compiled_loop_writes_what_the_reference_loop_writes(
        tmp_path: Path, solver: str, counting: _Counting) -> None:
    inst, bundle = _shard(tmp_path, "mixed.txt", "\n".join(_mixed_lines()) + "\n")
    c_rows, c_sols, c_out = _solve(tmp_path, inst, bundle, solver, True)
    py_rows, py_sols, py_out = _solve(tmp_path, inst, bundle, solver, False)
    assert c_rows == py_rows
    assert c_sols == py_sols
    assert c_out == py_out
    statuses = [r["status"] for r in py_rows]
    assert {"SAT", "UNSAT", "INVALID"} <= set(statuses)
    # the plain path takes the invalid lines and, of the valid ones, the first 9x9, the
    # first 4x4, the first 9x9 after the 4x4s (its rules loaded again) and for cdcl the UNSAT
    # ones (a proof is written and checked)
    valid = sum(s != "INVALID" for s in statuses)
    unsat = statuses.count("UNSAT") if solver == "cdcl-inc" else 0
    assert counting.done == valid - 3 - unsat


@pytest.mark.parametrize("solver", list(VARIANTS))
def test_given_solutions_differ_and_agree_alike(tmp_path: Path, solver: str,
                                               counting: _Counting) -> None:
    inst, bundle = _shard(tmp_path, "given.csv", _csv_with_solutions())
    c = _solve(tmp_path, inst, bundle, solver, True)
    assert c == _solve(tmp_path, inst, bundle, solver, False)
    assert "valid, but differs" in c[1]  # at least the wrong given solution
    assert counting.done == 5


@pytest.mark.parametrize("solver", list(VARIANTS))
def test_a_model_that_does_not_check_goes_back_to_the_reference(tmp_path: Path,
                                                                solver: str) -> None:
    """Rules without their group clauses: the models break the puzzle's groups; the loop
    stops at each and the plain path writes the failed verification."""
    inst, bundle = _shard(tmp_path, "mixed.txt", "\n".join(TINY9.read_text().split()[:6]) + "\n")
    text = bundle.read_text()
    head, _, rest = text.partition("c instance ")
    lines = head.splitlines()
    p_at = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    kept = [c for c in lines[p_at + 1:]
            if len({(abs(int(x)) - 1) // 9 for x in c.split()[:-1]}) == 1]
    dropped = len(lines) - p_at - 1 - len(kept)
    lines[p_at] = f"p cnf 729 {len(kept)}"
    rest = re.sub(r"p cnf 729 (\d+)", lambda m: f"p cnf 729 {int(m[1]) - dropped}",
                  "c instance " + rest)
    bundle.write_text("\n".join([*lines[:p_at + 1], *kept]) + "\n" + rest)
    c_rows, c_sols, _ = _solve(tmp_path, inst, bundle, solver, True)
    py_rows, py_sols, _ = _solve(tmp_path, inst, bundle, solver, False)
    # solved again after the loop's attempt, a puzzle may get another model (the solver learnt
    # from the first attempt), so the verdicts are compared, not the details
    assert [(r["id"], r["status"]) for r in c_rows] == [(r["id"], r["status"]) for r in py_rows]
    verdicts = [line.split("\t")[4] for line in c_sols.splitlines()]
    assert verdicts == [line.split("\t")[4] for line in py_sols.splitlines()]
    assert verdicts.count("FAILED") >= 3


@pytest.mark.parametrize("solver", list(VARIANTS))
def test_timeout_rows_are_the_reference_texts(tmp_path: Path, solver: str) -> None:
    """A limit already spent (a nanosecond): every puzzle after the first (which loads the rules
    with time to spare) is a TIMEOUT written by the loop, in the texts the solve path writes
    for one."""
    inst, bundle = _shard(tmp_path, "nine.txt", "\n".join(TINY9.read_text().split()[:5]) + "\n")
    conf = open_solver(solver, {solver: VARIANTS[solver]})
    planned = batch.plan(conf, "extended", inst, bundle)
    assert planned is not None
    paths = {k: tmp_path / f"t.{k}" for k in ("out", "times", "sols")}
    records = list(read_instances(inst))
    with ExitStack() as stack:
        writers = ShardWriters(stack, paths["times"], paths["sols"], paths["out"])

        def step(rec, formula):  # type: ignore[no-untyped-def]
            from satdoku.solve import solve

            writers.write(rec, [solve(rec, conf, "extended", 20.0, formula=formula)], 0.0)

        batch.solve_planned(planned, conf, "extended", writers, step,
                            RunLimits(time_limit=1e-9), 0.0, "t")
    message = "incremental (rules loaded once per shard)"
    stats = conf.impl.batch_driver(next(iter(planned.rules.values()))[1])[-1]
    expected_out, expected_sols = [], []
    for rec in records[1:]:
        result = Result(TIMEOUT, message=message, termination="timelimit",
                        stats=dict.fromkeys(stats, 0), cores=describe(None))
        answer = verify(rec, "extended", result)
        block = _Text()
        write_block(block, rec.id, result)
        expected_out.append(block.text)
        expected_sols.append("\t".join(str(v) for v in answer.sols_row(rec).values()))
        row = times_row(rec.id, rec.line, result, 0.0, rec.instance_hash)
        assert [str(row.get(c, "")) for c in TIMES_COLUMNS if c not in MEASURED] == [
            v for c, v in zip(TIMES_COLUMNS, _row(paths["times"], rec.id), strict=True)
            if c not in MEASURED]
    out_text = re.sub(r"c time \S+ search \S+", "c time", paths["out"].read_text())
    assert out_text.endswith(re.sub(r"c time \S+ search \S+", "c time", "".join(expected_out)))
    # the header, the first instance's row (the plain path: it loads the rules), then the loop's
    assert paths["sols"].read_text().splitlines()[2:] == expected_sols


def test_the_watchdog_is_armed_once_per_run_and_a_search_it_stops_early_resumes(
        tmp_path: Path, counting: _Counting, monkeypatch: pytest.MonkeyPatch) -> None:
    """minisat22-inc's watchdog is armed once and left armed from puzzle to puzzle (an earlier
    puzzle's deadline bounds every later search), not armed and disarmed per puzzle. A search
    it stops before that search's own deadline (here: the 500th, stopped by the test as the
    watchdog would) resumes and answers; every answer is a verified board."""
    lines = [row.split(",")[0] for row in KAGGLE.read_text().splitlines()[1:]]
    inst, bundle = _shard(tmp_path, "many.txt", "\n".join(lines) + "\n", size=len(lines))
    conf = open_solver("minisat22-inc", {"minisat22-inc": VARIANTS["minisat22-inc"]})
    calls = {"arm": 0, "disarm": 0, "solve": 0}
    real = type(conf.impl).batch_driver

    def driver(self, rules):  # type: ignore[no-untyped-def]
        d = list(real(self, rules))
        solve_lim, arm, disarm = d[1], d[7], d[8]

        def solve(*a):  # type: ignore[no-untyped-def]
            calls["solve"] += 1
            return None if calls["solve"] == 500 else solve_lim(*a)

        def arming(*a):  # type: ignore[no-untyped-def]
            calls["arm"] += 1
            return arm(*a)

        def disarming():  # type: ignore[no-untyped-def]
            calls["disarm"] += 1
            return disarm()

        d[1], d[7], d[8] = solve, arming, disarming
        return tuple(d)

    monkeypatch.setattr(type(conf.impl), "batch_driver", driver)
    _solve(tmp_path, inst, bundle, "minisat22-inc", True, time_limit=60.0)
    rows = read_tsv(tmp_path / "minisat22-inc-c.tsv")
    sols = read_tsv(tmp_path / "minisat22-inc-c.sols")
    assert counting.done == len(lines) - 1  # the first through the plain path
    assert [r["status"] for r in rows] == ["SAT"] * len(lines)
    assert [s["verified"] for s in sols] == ["yes"] * len(lines)
    assert counting.resumed == 1 and calls["solve"] == len(lines)  # 999 + the one resumed
    assert calls["arm"] == 2 and calls["disarm"] == 1  # once, again after the stop; at the end


class _Text:
    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> None:
        self.text += s


def _row(path: Path, ident: str) -> list[str]:
    for line in path.read_text().splitlines():
        cells = line.split("\t")
        if cells[0] == ident:
            return cells
    raise KeyError(ident)


# --- the bundle scan against the bundle reader ---------------------------------------------
HEADER = "c id 1 set t line 1 kind sudoku size 9 encoding extended rules sudoku-9.extended"


def _block(units: int, *lines: str, vars_: int = 729) -> list[str]:
    """An instance block: header, p line counting 3 rules clauses and ``units`` own ones."""
    return [HEADER, f"p cnf {vars_} {3 + units}", *lines]


VARIANT_BLOCKS = {
    "plain": (_block(3, "5 0", "17 0", "300 0"), "u"),
    "two per line": (_block(3, "5 0 17 0", "300 0"), "u"),
    "tabs and spaces": (_block(3, " 5\t0  17 0", "300   0 "), "u"),
    "plus sign": (_block(1, "+5 0"), "o"),
    "leading zero": (_block(1, "05 0"), "o"),
    "negative": (_block(2, "-5 0", "17 0"), "u"),
    "beyond the variables": (_block(1, "730 0"), "o"),
    "a binary clause": (_block(1, "5 6 0"), "o"),
    "no terminating zero": (_block(1, "5"), "o"),
    "no header": (["p cnf 729 4", "5 0"], "o"),
    "no p line": (["c id 1 rules sudoku-9.extended", "5 0"], "o"),
    "p line with five words": ([HEADER, "p cnf 729 4 9", "5 0"], "o"),
    "blank lines": (_block(1, "", "5 0", ""), "u"),
}


@pytest.mark.parametrize("name", list(VARIANT_BLOCKS))
def test_scan_agrees_with_the_bundle_reader(tmp_path: Path, name: str) -> None:
    body, kind = VARIANT_BLOCKS[name]
    rules = ["c rules sudoku-9.extended", "p cnf 729 3", "1 2 0", "-1 -2 0", "3 0"]
    text = "\n".join(["c satdoku bundle", *rules, "c instance 1", *body,
                      "c instance 2", "c invalid 80 cells", "c id 2 set t line 2"]) + "\n"
    path = tmp_path / "b.cnfs"
    path.write_text(text)
    scan = batch.native().scan_bundle(text.encode())  # type: ignore[union-attr]
    rules_blocks, ids, kinds, rule_keys, lines, declared, _nv, offsets, lits, heads, sizes = scan
    assert ids == ["1", "2"] and kinds == f"{kind}i".encode() and lines == [7, 7 + len(body) + 1]
    assert [(k, ln) for k, ln, _, _ in rules_blocks] == [("sudoku-9.extended", 2)]
    start, end = rules_blocks[0][2], rules_blocks[0][3]
    assert text[start:end] == "\n".join(rules[1:]) + "\n"
    entries = list(read_bundle(path)) if kind == "u" else []
    if kind == "u":
        off = array("q")
        off.frombytes(offsets)
        units = array("i")
        units.frombytes(lits)
        assert rule_keys[0] == "sudoku-9.extended"
        assert [[u] for u in units[off[0]:off[1]]] == entries[0].own
        assert declared[0] == len(entries[0].own) + 3
        assert entries[1].invalid is not None
        assert heads[0] == body[0] and sizes[0] == (len(body[1]) + 1,
                                                     sum(len(x) + 1 for x in body[2:]))
    assert sizes[1] == (-1, -1) and heads[1] == ""


def test_scan_takes_an_invalid_block_with_a_formula_as_other() -> None:
    text = "c instance 1\nc invalid no\np cnf 3 1\n1 0\n"
    assert batch.native().scan_bundle(text.encode())[2] == b"o"  # type: ignore[union-attr]


def test_scan_leaves_other_text_to_the_reader() -> None:
    mod = batch.native()
    assert mod is not None
    assert mod.scan_bundle(b"c instance 1\np cnf 1 1\n1 0\r\n") is None
    assert mod.scan_bundle("c instance 1\nc é\n".encode()) is None
    assert mod.scan_bundle(b"c instance \n") is None
