"""LTN branch with a tiny configuration: labels, Q1 learning, Q2 soundness, Q3 agreement,
classify output. Whole file well under a minute on 2 cores."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("ltn")

from satdoku import generate as gen
from satdoku.heuristics import find_singles
from satdoku.ltn import dataset as ds
from satdoku.puzzle import sudoku
from satdoku.solvers.csp import count_solutions

ORIGINAL = Path(__file__).resolve().parents[1] / "data" / "public" / "ltn_sudoku_torch"


@pytest.fixture(scope="module")
def data4(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "4"
    ds.build(out, ds.DatasetSpec(size=4, per_kind=240, seed=3))
    return out


@pytest.fixture(scope="module")
def model4(data4: Path, tmp_path_factory) -> Path:
    from satdoku.ltn.train import TrainSettings, train

    models = tmp_path_factory.mktemp("models")
    train(data4, 4, models / "ltn_4.pt", models / "ltn_4.tsv", TrainSettings(epochs=4, seed=1),
          log=lambda s: None)
    return models


def test_dataset_labels_splits_and_dedup(data4: Path) -> None:
    splits = {s: ds.read_split(data4, s) for s in ds.SPLITS}
    boards = [e.board for exs in splits.values() for e in exs]
    assert len(boards) == len(set(boards))  # every board once in the whole data set
    for exs in splits.values():
        assert ds.check_labels(exs) == len(exs)  # re-verified from the files
        kinds = {e.kind for e in exs}
        assert kinds == set(ds.KINDS)
    subs = {e.subkind for e in splits["train"] if e.kind == "closed_invalid"}
    assert subs == set(ds.INVALID_SUBKINDS)
    for e in splits["test"]:
        if e.kind == "open_impossible":
            assert gen.immediate_problem(e.puzzle()) is None
            assert count_solutions(e.puzzle(), limit=1) == 0
    # splits come from disjoint grid pools: no valid test grid was seen in training
    train_valid = {e.board for e in splits["train"] if e.kind == "closed_valid"}
    assert not train_valid & {e.board for e in splits["test"] if e.kind == "closed_valid"}
    manifest = json.loads((data4 / "manifest.json").read_text())
    assert manifest["labels_verified"] and manifest["size"] == 4


def test_generation_is_seeded(tmp_path: Path) -> None:
    a = ds.generate(ds.DatasetSpec(size=4, per_kind=40, seed=5))
    b = ds.generate(ds.DatasetSpec(size=4, per_kind=40, seed=5))
    assert a == b


def test_verify_rejects_wrong_labels() -> None:
    grid = gen.complete_grid(2, random.Random(1))
    assert ds.verify(ds.Example(grid.givens, "closed_invalid")) == "board is a valid grid"
    open_board = gen.erase(grid, 6, random.Random(2)).givens
    assert ds.verify(ds.Example(open_board, "open_impossible")) == "board has a solution"


def test_import_original_relabels(tmp_path: Path) -> None:
    src = ORIGINAL / "data" / "4x4"
    splits, report = ds.import_original(src, ds.DatasetSpec(size=4), limit_per_file=60)
    exs = [e for v in splits.values() for e in v]
    assert ds.check_labels(e for e in exs if e.subkind != "immediate_conflict") > 100
    assert sum(report["files"].values()) == 240
    # the original "unsolvable" boards mostly have visible duplicates: flagged, not hidden
    assert any(e.subkind == "immediate_conflict" for e in exs)


def test_q1_model_beats_stated_accuracy(data4: Path, model4: Path) -> None:
    from satdoku.ltn import model as model_mod
    from satdoku.ltn.train import accuracy

    ok, _ = model_mod.load(model4 / "ltn_4.pt")
    acc, single = accuracy(ok, ds.read_split(data4, "test"), 4)
    assert acc >= 0.95 and single >= 0.9
    rows = (model4 / "ltn_4.tsv").read_text().splitlines()
    assert rows[0].split("\t")[:3] == ["epoch", "loss", "train_sat"] and len(rows) == 5


def test_training_is_reproducible(data4: Path, tmp_path: Path) -> None:
    from satdoku.ltn.train import TrainSettings, train

    s = TrainSettings(epochs=1, seed=7, steps_per_epoch=5)
    a = train(data4, 4, tmp_path / "a.pt", tmp_path / "a.tsv", s, log=lambda x: None)
    b = train(data4, 4, tmp_path / "b.pt", tmp_path / "b.tsv", s, log=lambda x: None)
    cut = lambda p: [r.split("\t")[:3] for r in p.read_text().splitlines()]  # noqa: E731
    assert cut(tmp_path / "a.tsv") == cut(tmp_path / "b.tsv")
    assert a["train_sat"] == b["train_sat"]


def test_q2_never_accepts_an_impossible_board() -> None:
    from satdoku.ltn.classify import ClassifySettings, decide_q2

    rng = random.Random(4)
    boards = []
    while len(boards) < 25:
        p = gen.impossible_board(gen.complete_grid(2, rng), 9, rng)
        if p is not None:
            boards.append(p)
    solvable = [gen.erase(gen.complete_grid(2, rng), 8, rng) for _ in range(25)]
    for singles in (True, False):
        out = decide_q2(boards + solvable, ClassifySettings(ltn_steps=60, ltn_singles=singles))
        assert all(d["solvable"] is False and d["decided_by"] in ("rules", "exact")
                   for d in out[:25])
        assert all(d["solvable"] is True for d in out[25:])
        certified = [d for d in out[25:] if d["decided_by"] in ("singles", "ltn", "singles+ltn")]
        assert len(certified) >= 20  # LTN solving certifies most 4x4 boards
        assert singles or all(d["decided_by"] not in ("singles", "singles+ltn") for d in out)
        for d, p in zip(out[25:], solvable, strict=True):
            assert p.check_solution(d["solution"]) == []


def _hard_9x9(n: int, seed: int) -> tuple[list, list]:
    """``n`` 9x9 boards with 50-59 blanks and ``n`` open impossible 9x9 boards (no immediate
    problem: only search shows they have no solution)."""
    rng = random.Random(seed)
    solvable = [gen.erase(gen.complete_grid(3, rng), rng.randint(50, 59), rng) for _ in range(n)]
    impossible = []
    while len(impossible) < n:
        p = gen.impossible_board(gen.complete_grid(3, rng), rng.randint(40, 55), rng, tries=20)
        if p is not None:
            impossible.append(p)
    return solvable, impossible


@pytest.mark.parametrize("singles", [True, False])
def test_ltn_solve_certifies_only_solutions(singles: bool) -> None:
    """Sound on 9x9: every board returned completes its givens and breaks no rule, no
    impossible board is ever certified, and the search solves most hard solvable boards."""
    from satdoku.ltn.board_solver import SolveSettings, ltn_solve

    solvable, impossible = _hard_9x9(8, 11)
    out = ltn_solve(solvable + impossible, SolveSettings(singles=singles, rounds=12, seed=2))
    for p, o in zip(solvable, out[:8], strict=True):
        assert o.board is None or (p.check_solution(o.board) == [] and all(
            not g or g == v for g, v in zip(p.givens, o.board, strict=True)))
    assert all(o.board is None for o in out[8:])
    assert sum(o.board is not None for o in out[:8]) >= (7 if singles else 3)
    assert all(o.rounds <= 12 and o.seconds > 0 for o in out)


def test_propagate_reaches_the_singles_fixpoint() -> None:
    """The mask propagation between rounds fills what :func:`apply_singles` fills (same
    closure of naked and hidden singles) and finds the same contradictions."""
    import numpy as np

    from satdoku.heuristics import apply_singles
    from satdoku.ltn.board_solver import _tables, propagate

    solvable, impossible = _hard_9x9(6, 12)
    rng = random.Random(3)
    clue17 = [gen.unique_puzzle(gen.complete_grid(3, rng), rng) for _ in range(4)]
    for p in solvable + impossible + clue17:
        board, _, dead, filled = propagate(np.array(p.givens), np.zeros((81, 9), dtype=bool),
                                           True, _tables(p.layout))
        res = apply_singles(p)
        assert dead == (res.contradiction is not None)
        if not dead:
            assert tuple(int(x) for x in board) == res.board
            assert filled == len(res.applied)


@pytest.mark.parametrize("box", [2, 3])
def test_q3_formulas_agree_with_symbolic_engine(box: int) -> None:
    from satdoku.ltn.kb import SingleFormulas

    rng = random.Random(box)
    formulas = None
    for _ in range(12 if box == 2 else 5):
        grid = gen.complete_grid(box, rng)
        p = gen.unique_puzzle(grid, rng) if rng.random() < 0.5 else gen.erase(
            grid, rng.randint(3, grid.ncells - 3), rng)
        formulas = formulas or SingleFormulas(p)
        ltn_moves = formulas.moves(p.givens)
        assert {m.key() for m in ltn_moves} == {m.key() for m in find_singles(p)}
        assert all(m.truth == 1.0 for m in ltn_moves)


def test_classify_json_schema(model4: Path, tmp_path: Path) -> None:
    from satdoku.cli import main

    rng = random.Random(8)
    grid = gen.complete_grid(2, rng)
    lines = [
        ds.board_text(grid.givens),  # closed valid
        ds.board_text(gen.corrupt(grid, 1, rng).givens),  # closed invalid
        ds.board_text(gen.erase(grid, 9, rng).givens),  # open solvable
        ds.board_text(gen.impossible_board(grid, 8, rng, tries=200).givens),  # impossible
        "1234",  # malformed
    ]
    path = tmp_path / "boards.csv"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["classify", "--path", str(path), "--format", "json", "--models", str(model4),
                   "--memory", str(tmp_path / "memory.json")])
    assert rc == 0
    out.write_text(buf.getvalue())
    objs = [json.loads(x) for x in buf.getvalue().splitlines()]
    assert len(objs) == 5
    keys = {"index", "size", "kind", "valid", "confidence", "solvable", "decided_by", "moves",
            "solution", "remaining"}
    assert all(keys <= set(o) for o in objs)
    a, b, c, d, e = objs
    assert (a["kind"], a["valid"], a["solution"]) == ("closed", True, lines[0])
    assert b["kind"] == "closed" and b["valid"] is False and b["solution"] is None
    assert 0.5 <= a["confidence"] <= 1 and 0.5 <= b["confidence"] <= 1
    assert c["kind"] == "open" and c["solvable"] is True and c["remaining"] == 0
    puzzle_c = sudoku(ds.parse_board(lines[2]))
    assert puzzle_c.check_solution(ds.parse_board(c["solution"])) == []
    assert all({"row", "col", "value", "heuristic", "truth"} <= set(m) for m in c["moves"])
    assert d["solvable"] is False and d["solution"] is None and d["moves"] == []
    assert d["decided_by"] in ("rules", "exact") and d["remaining"] == 7
    assert e["kind"] == "error" and "boards.csv:5" in e["error"]
    mem = json.loads((tmp_path / "memory.json").read_text())
    assert mem["summary"]["moves_applied"] == len(c["moves"])


def test_classify_missing_model_says_how_to_train(tmp_path: Path, capsys) -> None:
    from satdoku.cli import main

    path = tmp_path / "b.csv"
    path.write_text(ds.board_text(gen.complete_grid(2, random.Random(1)).givens) + "\n")
    assert main(["classify", "--path", str(path), "--models", str(tmp_path)]) == 2
    assert "satdoku train --size 4" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["one CNF file", "a CNF set", "empty file"])
def test_classify_refuses_cnf_and_names_an_empty_file(tmp_path: Path, capsys, case: str) -> None:
    """Not boards: DIMACS input is one line (each instance was a board "ERROR ...: None"), an
    empty file says it holds no boards; nothing is printed as a board either way."""
    from satdoku.cli import main

    cnf = tmp_path / "set"
    cnf.mkdir()
    (cnf / "a.cnf").write_text("p cnf 2 1\n1 -2 0\n")
    (cnf / "b.cnf").write_text("p cnf 1 1\n1 0\n")
    (tmp_path / "e.txt").write_text("# nothing\n\n")
    path = {"one CNF file": cnf / "a.cnf", "a CNF set": cnf, "empty file": tmp_path / "e.txt"}
    rc = main(["classify", "--path", str(path[case]), "--models", str(tmp_path)])
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "None" not in err, err
    if case == "empty file":
        assert rc == 0 and "no boards" in err
    else:
        assert rc == 1 and "holds DIMACS CNF, not Sudoku boards" in err


def test_evaluate_writes_report(data4: Path, model4: Path, tmp_path: Path) -> None:
    from satdoku.ltn.classify import ClassifySettings
    from satdoku.ltn.evaluate import Evaluation, band_table, certification_by_band, evaluate

    s = evaluate(Evaluation(data4, 4, model4, tmp_path / "ltn_4", model4 / "ltn_4.tsv",
                            ClassifySettings(ltn_steps=60), q2_limit=15))
    assert s["q2"]["accuracy"] == 1.0 and s["q2"]["impossible_accepted_by_ltn"] == 0
    # the band figures are the records' figures, in the JSON and in the Markdown alike
    q2 = json.loads((tmp_path / "ltn_4.json").read_text())["q2"]
    records, bands = q2["records"], q2["certification_by_band"]
    assert len(records) == 15 and bands == certification_by_band(records)
    assert bands[-1]["band"] == "all" and bands[-1]["boards"] == 15
    assert sum(b["boards"] for b in bands[:-1]) == 15
    assert bands[-1]["singles+ltn"] == sum(r["decided_by"] in ("singles", "ltn", "singles+ltn")
                                           for r in records)
    assert bands[-1]["exact"] + bands[-1]["singles+ltn"] + bands[-1]["undecided"] == 15
    md = (tmp_path / "ltn_4.md").read_text()
    assert all(line in md for line in band_table(bands))
    assert s["q3"]["agreement"] == 1.0 and s["q2"]["invalid_boards_output"] == 0
    for suffix in (".md", ".json", "_memory.json", "_curves.png", "_q1_confusion.png",
                   "_q2_decisions.png"):
        assert (tmp_path / f"ltn_4{suffix}").stat().st_size > 0


# --- faults: unusable model files, boards without a model -------------------------------------
def _model_faults(model4: Path, tmp_path: Path) -> dict[str, tuple[Path, int, str]]:
    """Broken copies of a good 4x4 model: (file, size asked for, what the message says)."""
    import torch

    good = (model4 / "ltn_4.pt").read_bytes()
    out = {}
    for name, data, size, says in (
        ("empty", b"", 4, "empty file"),
        ("truncated", good[: len(good) // 2], 4, "truncated or corrupt"),
        ("garbage", b"not a model at all\n" * 10, 4, "truncated or corrupt"),
        ("wrong_size", good, 9, "a model for 4x4 boards, not 9x9"),
    ):
        d = tmp_path / name
        d.mkdir()
        (d / f"ltn_{size}.pt").write_bytes(data)
        out[name] = (d, size, says)
    d = tmp_path / "bad_weights"  # the metadata says 4x4 but the weights are another network's
    d.mkdir()
    from satdoku.ltn.model import make_ok_predicate

    other = make_ok_predicate(4, hidden=16).model.state_dict()
    torch.save({"state_dict": other, "meta": {"size": 4, "hidden": 64}}, d / "ltn_4.pt")
    out["bad_weights"] = (d, 4, "weights do not fit a 4x4 model")
    return out


def test_unusable_model_files_give_one_line_naming_the_file(model4: Path, tmp_path: Path,
                                                           capsys) -> None:
    from satdoku.cli import main
    from satdoku.ltn.model import ModelError, load

    grid = gen.complete_grid(2, random.Random(3))
    for name, (d, size, says) in _model_faults(model4, tmp_path).items():
        path = d / f"ltn_{size}.pt"
        with pytest.raises(ModelError) as err:
            load(path, size)
        msg = str(err.value)
        assert str(path) in msg and says in msg and "\n" not in msg, name
        board = grid.givens if size == 4 else gen.complete_grid(3, random.Random(1)).givens
        boards = tmp_path / f"{name}.csv"
        boards.write_text(ds.board_text(board) + "\n")
        rc = main(["classify", "--path", str(boards), "--models", str(d), "--format", "json"])
        out, errtext = capsys.readouterr()
        assert rc == 2, name
        (rec,) = [json.loads(x) for x in out.splitlines()]
        assert rec["kind"] == "error" and str(path) in rec["error"] and says in rec["error"]
        assert "Traceback" not in errtext and str(path) in errtext
    with pytest.raises(ModelError, match="no such model file"):
        load(tmp_path / "nothing.pt")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_classify_decides_what_it_can_and_reports_the_rest(model4: Path, tmp_path: Path,
                                                          capsys, fmt: str) -> None:
    """One 16x16 and one 9x9 closed board (no model for either) among 4x4 boards: the 4x4
    boards and the open 16x16 board are classified, the two closed boards are error records."""
    from satdoku.cli import main

    rng = random.Random(6)
    g4 = gen.complete_grid(2, rng)
    g16 = gen.complete_grid(4, rng)
    lines = [ds.board_text(g4.givens),
             ds.board_text(g16.givens),  # closed 16x16: no ltn_16.pt
             ds.board_text(gen.erase(g4, 6, rng).givens),
             ds.board_text(gen.complete_grid(3, rng).givens),  # closed 9x9: no ltn_9.pt
             ds.board_text(gen.erase(g16, 20, rng).givens)]  # open 16x16: needs no model
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join(lines) + "\n")
    rc = main(["classify", "--path", str(path), "--models", str(model4), "--format", fmt])
    out, err = capsys.readouterr()
    assert rc == 2
    assert "ltn_16.pt" in err and "ltn_9.pt" in err and "Traceback" not in err
    if fmt == "json":
        recs = [json.loads(x) for x in out.splitlines()]
        assert [r["kind"] for r in recs] == ["closed", "error", "open", "error", "open"]
        assert recs[0]["valid"] is True and recs[2]["remaining"] == 0
        assert "ltn_16.pt" in recs[1]["error"] and "satdoku train --size 16" in recs[1]["error"]
        assert "ltn_9.pt" in recs[3]["error"]
        assert recs[4]["size"] == 16 and recs[4]["solvable"] is True
        assert sudoku(ds.parse_board(lines[4])).check_solution(
            ds.parse_board(recs[4]["solution"])) == []
    else:
        assert "board 2 (16x16, error): ERROR no LTN model for 16x16" in out  # 1-based
        assert "board 1 (4x4, closed): Q1 LTN says valid" in out
        assert "board 5 (16x16, open): Q2 solvable" in out


def test_certification_by_band_counts_records() -> None:
    """Hand-made records: each band counts its own boards, ``all`` counts every one."""
    from satdoku.ltn.evaluate import certification_by_band

    def rec(band, by, alone, secs):
        return {"band": band, "decided_by": by, "ltn_alone": alone, "ltn_seconds": secs,
                "ltn_alone_seconds": secs / 2}

    rows = certification_by_band([rec("50-59 blanks", "singles+ltn", False, 0.2),
                                  rec("50-59 blanks", "ltn", True, 0.4),
                                  rec("50-59 blanks", "singles", False, 0.3),
                                  rec("17-clue", "exact", False, 1.0),
                                  rec("17-clue", "undecided", False, 0.5)])
    assert [r["band"] for r in rows] == ["50-59 blanks", "17-clue", "all"]
    a, b, total = rows
    assert (a["boards"], a["ltn_alone"], a["singles+ltn"], a["exact"]) == (3, 1, 3, 0)
    assert a["singles_only"] == 1
    assert a["singles+ltn_rate"] == 1.0 and a["singles+ltn_seconds"] == 0.3
    assert (b["singles+ltn"], b["exact"], b["undecided"], b["ltn_alone_rate"]) == (0, 1, 1, 0.0)
    assert total["boards"] == 5 and total["singles+ltn_seconds_max"] == 1.0
    assert total["singles+ltn_cpu_seconds"] is None  # records without CPU figures


def test_clue17_reader_names_a_bad_line(tmp_path: Path) -> None:
    from satdoku.ltn.evaluate import read_clue17

    good = "1" + "0" * 80
    path = tmp_path / "17.txt"
    path.write_text(f"# header\n{good}\n{'1' * 79}\n")
    assert [e.subkind for e in read_clue17(path, 1)] == ["17_clue"]
    with pytest.raises(ValueError, match=r"17\.txt:3"):
        read_clue17(path, 5)


def test_certification_does_not_trust_the_network(monkeypatch) -> None:
    """Soundness is the symbolic check's, not the optimiser's: with an optimiser that returns
    random or constant probabilities, ltn_solve still returns only boards that complete their
    givens and break no rule, and never one for an impossible board."""
    import torch

    from satdoku.ltn import kb
    from satdoku.ltn.board_solver import SolveSettings, ltn_solve

    gen_ = torch.Generator().manual_seed(5)

    def noisy(mask, pairs, logits, steps, lr):
        probs = torch.rand(mask.shape, generator=gen_) * mask
        if steps % 2:  # every other call: all mass on the first value, allowed or not
            probs = torch.zeros(mask.shape)
            probs[..., 0] = 1.0
        return probs, torch.zeros(mask.shape[0]), logits

    monkeypatch.setattr(kb, "optimise", noisy)
    solvable, impossible = _hard_9x9(6, 13)
    for singles in (True, False):
        out = ltn_solve(solvable + impossible,
                        SolveSettings(singles=singles, rounds=15, steps=3, warm_steps=2))
        assert all(o.board is None for o in out[6:])
        for p, o in zip(solvable, out[:6], strict=True):
            assert o.board is None or (p.check_solution(o.board) == [] and all(
                not g or g == v for g, v in zip(p.givens, o.board, strict=True)))
