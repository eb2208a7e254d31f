"""Puzzle families (issue 4): constructors, readers, Instances round trips, display."""

from __future__ import annotations

import json

import pytest

from satdoku.display import render_3d, render_board, render_png
from satdoku.formats import format_board, parse_board, read_records
from satdoku.formats.futoshiki import read_futoshiki_grid, write_futoshiki_dat
from satdoku.formats.jsonpuzzle import puzzle_from_json, puzzle_to_json
from satdoku.pipeline.stage_normalize import normalize
from satdoku.puzzle import CUSTOM, FUTOSHIKI, LATIN, SUDOKU3D, custom, path_cells, sudoku3d
from satdoku.stagefiles.instances import read_instances


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --- constructors ---------------------------------------------------------------------------
def test_sudoku3d_groups_and_boxes():
    p = sudoku3d(2)
    assert p.layout.shape == (4, 4, 4) and p.domain == 4
    assert len(p.groups) == 3 * 16 and all(len(g) == 4 for g in p.groups)
    # the stack through (r, c) = (1, 2) holds every layer
    assert (0 * 16 + 1 * 4 + 2, 3 * 16 + 1 * 4 + 2) in [(g[0], g[-1]) for g in p.groups]
    q = sudoku3d(2, domain=8, cube_boxes=[(0, 0, 0)],
                 path_boxes=[((0, 0, 0), (0, 1, 1), "asc")],
                 generic_boxes=[[((3, 3, 3), 5), ((3, 3, 2), 0)]])
    assert q.layout.key == "sudoku3d-4-d8"
    assert len(q.extra_groups) == 3 and len(q.extra_groups[0]) == 8
    assert q.less_than == ((0, 4), (4, 5))
    assert q.givens[63] == 5
    with pytest.raises(ValueError, match="only 4 values"):
        sudoku3d(2, cube_boxes=[(0, 0, 0)])  # 8 cells, 4 values
    with pytest.raises(ValueError, match="outside"):
        path_cells(4, (0, 0, 0), (0, 0, 4))


def test_custom_groups_cell_coordinates():
    p = custom([2, 3], 3, [[0, 1, 2], [[1, 0], [1, 1], [1, 2]], [0, 3]], less_than=[([0, 0], 1)])
    assert p.kind == CUSTOM and p.groups[1] == (3, 4, 5) and p.less_than == ((0, 1),)
    assert p.layout.key == "custom-2x3-d3"
    with pytest.raises(ValueError):
        custom([2, 2], 2, [[0, 1, 2]])  # three cells, two values


# --- readers --------------------------------------------------------------------------------
def test_futoshiki_usp_dat(public_data):
    recs = list(read_records(public_data / "futoshiki_usp" / "futoshiki.dat"))
    assert len(recs) == 100 and all(r.valid and r.notation == "futoshiki" for r in recs)
    sizes = [r.puzzle.size for r in recs]
    assert [sizes.count(n) for n in range(4, 10)] == [16, 16, 16, 16, 16, 20]
    first = recs[0].puzzle
    assert first.kind == FUTOSHIKI and first.size == 4
    # "2 1 1 1": cell(2,1) < cell(1,1)
    assert first.less_than[0] == (4, 0)
    cases = list(read_records(public_data / "futoshiki_usp" / "casos.in"))
    assert len(cases) == 4 and cases[0].puzzle.size == 6


def test_futoshiki_dat_errors(tmp_path):
    text = "3\n2 1\n1 0\n0 0\n1 1 1 3\n2 0\n1 2\n1 9\n2 1\n0 0\n0 0\n1 1 1 1\n"
    recs = list(read_records(_write(tmp_path, "bad.dat", text)))
    assert [bool(r.valid) for r in recs] == [False, False, False]
    assert "coordinate outside 1..2" in recs[0].error
    assert "value 9 above 2" in recs[1].error and recs[1].line == 6
    assert "smaller than itself" in recs[2].error
    short = list(read_records(_write(tmp_path, "short.dat", "2\n2 0\n0 0\n0 0\n")))
    assert short[0].error == "file announces 2 puzzles but holds 1" and short[0].line == 1
    assert short[1].valid  # the puzzle the file holds is read


def test_futoshiki_text_grid_roundtrip(public_data, tmp_path):
    recs = list(read_records(public_data / "futoshiki_usp" / "futoshiki.dat"))
    text = "\n\n".join(render_board(r.puzzle) for r in recs[::7])
    back = list(read_records(_write(tmp_path, "grids.txt", text)))
    assert [r.notation for r in back] == ["futoshiki_grid"] * len(back)
    for r, b in zip(recs[::7], back, strict=True):
        assert b.error is None, b.error
        assert b.puzzle.givens == r.puzzle.givens
        assert set(b.puzzle.less_than) == set(r.puzzle.less_than)


def test_futoshiki_grid_errors():
    lines = ["1 < 2 >", "2   1", "Name", "1 x 2", "2   1", "v  ", "1   2"]
    recs = list(read_futoshiki_grid(enumerate(lines, 1), "t"))
    assert "row ends with a sign" in recs[0].error
    assert "bad cell 'x'" in recs[1].error
    assert recs[1].name == "Name" and len(recs) == 2


def test_latin_qwh_lists(public_data):
    for order in (10, 15, 20, 30):
        for hp in (35, 42, 50):
            f = public_data / "latin_square_qwh" / f"o{order}hp{hp}_1.txt"
            (rec,) = read_records(f)
            assert rec.notation == "latin" and rec.puzzle.kind == LATIN
            assert rec.puzzle.size == order
            holes = order * order - rec.puzzle.num_givens
            assert abs(holes / order**2 - hp / 100) < 0.01
            assert rec.puzzle.conflicts() == []


def test_latin_errors_and_grid(tmp_path):
    text = "[[1, 0], [0, 1]]\n[[1, 2], [3]]\n[[1, 2], [2, 1\n[[3, 0], [0, 1]]\n"
    recs = list(read_records(_write(tmp_path, "l.txt", text)))
    assert recs[0].valid and recs[0].puzzle.size == 2
    assert "row 2 has 1 cells" in recs[1].error
    assert "not a list of lists" in recs[2].error
    assert "value 3" in recs[3].error
    grid = "1 0 3\n0 0 0\n3 0 0\n"
    (g,) = read_records(_write(tmp_path, "g.txt", grid))
    assert g.notation == "latin_grid" and g.puzzle.size == 3 and g.puzzle.num_givens == 3
    (forced,) = read_records(_write(tmp_path, "g4.txt", "1 0 0 0\n" + "0 0 0 0\n" * 3),
                             fmt="latin_grid")
    assert forced.puzzle.kind == LATIN


def test_json_puzzles(tmp_path):
    objs = [
        {"kind": "sudoku3d", "order": 2, "fixed": [[0, 0, 0, 1]], "name": "cube",
         "path_boxes": [{"start": [0, 0, 0], "end": [0, 0, 3], "order": "asc"}]},
        {"kind": "custom", "shape": [2, 2], "domain": 2, "groups": [[0, 1], [2, 3], [0, 2]]},
        {"kind": "futoshiki", "size": 2, "givens": [0, 0, 0, 0], "less_than": [[0, 1]]},
        {"kind": "sudoku3d", "order": 2, "cube_boxes": [[0, 0, 0]]},
        {"kind": "cube"},
    ]
    text = "\n".join(json.dumps(o) for o in objs[:2]) + "\n" + json.dumps(objs[2], indent=2) \
        + "\n" + "\n".join(json.dumps(o) for o in objs[3:]) + "\n{\"kind\": \n"
    recs = list(read_records(_write(tmp_path, "p.jsonl", text)))
    assert [r.notation for r in recs] == ["json"] * 6
    assert recs[0].puzzle.kind == SUDOKU3D and recs[0].name == "cube"
    assert recs[0].puzzle.givens[0] == 1 and len(recs[0].puzzle.less_than) == 3
    assert recs[1].puzzle.kind == CUSTOM and recs[2].puzzle.kind == FUTOSHIKI
    assert recs[2].line == 3
    assert "only 4 values" in recs[3].error
    assert "unknown puzzle kind" in recs[4].error
    assert "not closed" in recs[5].error


def test_instances_roundtrip_all_kinds(public_data, tmp_path):
    p3 = sudoku3d(2, path_boxes=[((0, 0, 0), (1, 1, 0), "desc")], generic_boxes=[{5: 2}])
    pc = custom([3], 3, [[0, 1, 2]], [0, 2, 0], [(0, 2)])
    for p in (p3, pc):
        assert puzzle_from_json(json.loads(json.dumps(puzzle_to_json(p)))) == p
    src = public_data / "futoshiki_usp" / "futoshiki.dat"
    out = tmp_path / "inst.jsonl"
    normalize(src, out, 0, 10_000)
    back = list(read_instances(out))
    assert [r.puzzle for r in back] == [r.puzzle for r in read_records(src)]


def test_solution_notations_roundtrip():
    board = (1, 2, 2, 1)
    for notation in ("latin", "json", "futoshiki", "futoshiki_grid", "latin_grid"):
        text = format_board(board, notation, 2)
        assert "\n" not in text
        assert parse_board(text, notation, 2) == board


def test_write_futoshiki_dat_roundtrip(public_data, tmp_path):
    recs = list(read_records(public_data / "futoshiki_usp" / "futoshiki.dat"))[:5]
    p = _write(tmp_path, "w.dat", write_futoshiki_dat([r.puzzle for r in recs]))
    assert [r.puzzle for r in read_records(p)] == [r.puzzle for r in recs]


def test_display_3d_axes_and_png(tmp_path):
    p = sudoku3d(2, generic_boxes=[{0: 1, 21: 3}])
    layers = render_3d(p, axis=0)
    assert layers.count("layer") == 4 and layers.splitlines()[1].startswith("  1 . | . .")
    cols = render_3d(p, axis=2)
    assert cols.count("column") == 4
    assert render_board(p) == layers
    out = tmp_path / "b.png"
    render_png(p, None, str(out), "cube")
    assert out.read_bytes()[:4] == b"\x89PNG"
