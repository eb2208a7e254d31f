"""Report tables and pages: counts, time figures and PAR-2 by hand, problems first, families,
formula sizes read from real CNF bundles."""

from __future__ import annotations

import io
import math
import shutil

import pytest
import report_fixture as fx
from conftest import TINY

from satdoku.report.collect import load_files
from satdoku.report.solver_tables import solver_table, to_html, to_markdown
from satdoku.report.summary import problems, problems_html, summary_html, summary_markdown
from satdoku.stagefiles.families import family, family_of_record, slug
from satdoku.stagefiles.instances import read_families


@pytest.fixture(scope="module")
def df(tmp_path_factory):
    results = fx.build(tmp_path_factory.mktemp("fx"))
    return load_files(fx.files(results))


def _row(table, set_name, solver, encoding="extended"):
    t = table[(table["set"] == set_name) & (table["solver"] == solver)
              & (table["encoding"] == encoding)]
    assert len(t) == 1
    return t.iloc[0]


def test_counts_times_and_par2_by_hand(df):
    table = solver_table(df, fx.TIME_LIMIT)
    assert len(table) == len(fx.SETS) * len(fx.RUNS)
    d = _row(table, "nine", "dpll")
    assert (d["instances"], d["solved"], d["SAT"], d["UNSAT"], d["TIMEOUT"], d["INVALID"]) == (
        6, 4, 3, 1, 1, 1)
    solved = [0.5, 1.5, 2.0, 0.25]
    assert d["median_s"] == pytest.approx(1.0)
    assert d["mean_s"] == pytest.approx(sum(solved) / 4)
    assert d["max_s"] == pytest.approx(2.0)
    # PAR-2 over the 5 valid instances: the timeout counts 2 x 10 s; INVALID is not counted
    assert d["par2_s"] == pytest.approx((sum(solved) + 20.0) / 5)
    assert d["decisions"] == pytest.approx((5 + 15 + 20 + 2) / 4)  # solved instances only
    assert d["conflicts"] == pytest.approx((2 + 7 + 10 + 1) / 4)


def test_wrong_answer_is_not_solved_and_is_penalised(df):
    c = _row(solver_table(df, fx.TIME_LIMIT), "nine", "cdcl")
    assert (c["SAT"], c["failed"], c["solved"]) == (4, 1, 4)
    assert c["par2_s"] == pytest.approx((0.1 + 0.4 + 0.3 + 0.2 + 20.0) / 5)


def test_missing_statistics_stay_missing(df):
    table = solver_table(df, fx.TIME_LIMIT)
    cad = _row(table, "nine", "cadical195")
    assert math.isnan(cad["decisions"]) and math.isnan(cad["conflicts"])
    md = to_markdown(table[table["solver"] == "cadical195"])
    assert md.splitlines()[2].endswith("| - | - |")


def test_group_by_solver_and_encoding_only(df):
    t = solver_table(df, fx.TIME_LIMIT, by=("solver", "encoding"))
    m = t[(t["solver"] == "minisat22") & (t["encoding"] == "minimal")].iloc[0]
    assert m["instances"] == 9 and m["solved"] == 8


def test_problems_found_and_listed_first(df):
    probs = problems(df)
    assert len(probs) == 2
    assert any("nine instance 2" in p and "cdcl/extended answer failed verification" in p
               for p in probs)
    assert any("futo instance 3: solvers disagree" in p and "UNSAT by cadical195/extended" in p
               for p in probs)
    table = solver_table(df, fx.TIME_LIMIT)
    md = summary_markdown(table, probs, fx.TIME_LIMIT, {}, {})
    assert md.index("2 PROBLEM(S)") < md.index("| set | solver |")
    page = summary_html(table, probs, fx.TIME_LIMIT, {})
    red = page.index("color:#b00000")
    assert red < page.index("<table>") and page.index("failed verification") < page.index(
        "<table>")
    rows = page[page.index("<table>"):].split("<tr")
    red_rows = [r for r in rows if "#b00000" in r]
    assert len(red_rows) == 1 and "<td>cdcl</td>" in red_rows[0]  # the wrong answer's row


def test_all_clear_is_green_and_html_is_escaped():
    assert "color:#006000" in problems_html([])
    assert "&lt;b&gt;" in problems_html(["<b>"])
    import pandas as pd

    t = pd.DataFrame([{"set": "a<b", "solver": "x", "encoding": "e", "instances": 1}])
    assert "a&lt;b" in to_html(t)


@pytest.mark.parametrize(("kind", "size", "expected"), [
    ("sudoku", 4, "4x4"), ("sudoku", 9, "9x9"), ("sudoku", 16, "16x16"), ("sudoku", 25, "25x25+"),
    ("sudoku", 36, "25x25+"), ("latin", 10, "Latin"), ("futoshiki", 5, "Futoshiki"),
    ("cnf", None, "CNF"), (None, None, "invalid"),
])
def test_family(kind, size, expected):
    assert family(kind, size) == expected


def test_family_of_instances_records(tmp_path):
    assert family_of_record({"kind": "sudoku", "box": 4}) == "16x16"
    assert family_of_record({"kind": "latin", "size": 15}) == "Latin"
    assert family_of_record({"error": "bad"}) == "invalid"
    assert slug("25x25+") == "25x25plus" and slug("CNF") == "cnf"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "kind": "sudoku", "box": 3}\nnot json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        read_families([bad])


def test_bundle_sizes_equal_the_standalone_dimacs(tmp_path):
    """vars / clauses / bytes read from the p lines and line lengths of a real bundle equal
    those of the standalone DIMACS file of every instance."""
    from satdoku.cnf.dimacs import write_dimacs
    from satdoku.cnf.formula import Cnf
    from satdoku.pipeline.stage_encode import encode_shard
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.stagefiles.bundles import bundle_sizes, standalone

    src = tmp_path / "mixed9.txt"
    shutil.copy(TINY / "mixed9.txt", src)
    inst, bundle = tmp_path / "i.jsonl", tmp_path / "b.cnfs"
    normalize(src, inst, 0, 100)
    for enc in ("minimal", "extended"):
        encode_shard(inst, bundle, "mixed9", enc)
        rows = list(bundle_sizes(bundle, enc))
        assert len(rows) == 8  # 10 lines, 2 invalid (no formula)
        for r in rows:
            cnf = standalone(bundle, str(r["id"]))
            buf = io.StringIO()
            write_dimacs(Cnf(cnf.num_vars, cnf.clauses), buf)  # what a solver reads: no comments
            assert (r["vars"], r["clauses"]) == (cnf.num_vars, len(cnf.clauses))
            assert r["bytes"] == len(buf.getvalue().encode())
            assert (r["family"], r["encoding"]) == ("9x9", enc)


def test_csp_and_ltn_pages_are_included_when_present(df, tmp_path):
    """Pages other stages write under results/Reports (CSP variants table, "largest n" plot,
    LTN metrics) appear in summary.md (linked relative to it) and summary.html (verbatim)."""
    from satdoku.report.summary import find_pages

    pages_dir = tmp_path / "results" / "Reports"
    pages_dir.mkdir(parents=True)
    assert find_pages(pages_dir) == {"CSP variants": [], "LTN metrics": []}
    (pages_dir / "csp_largest_n.md").write_text("| variant | solved |\n|---|---|\n| mac | 9 |\n")
    (pages_dir / "csp_notes.md").write_text("not a page the CSP branch writes\n")
    (pages_dir / "csp_largest_n.png").write_bytes(b"\x89PNG")
    (pages_dir / "ltn_4.md").write_text("accuracy 0.97 <on test>\n")
    (pages_dir / "other.md").write_text("not a hook page\n")
    pages = find_pages(pages_dir)
    assert [p.name for p in pages["CSP variants"]] == ["csp_largest_n.md", "csp_largest_n.png"]
    assert [p.name for p in pages["LTN metrics"]] == ["ltn_4.md"]
    table = solver_table(df, fx.TIME_LIMIT)
    md = summary_markdown(table, [], fx.TIME_LIMIT, {}, pages, base=tmp_path / "reports")
    assert "## CSP variants" in md and "| mac | 9 |" in md
    assert "![csp_largest_n](../results/Reports/csp_largest_n.png)" in md
    assert "## LTN metrics" in md and "accuracy 0.97" in md and "not a hook page" not in md
    page = summary_html(table, [], fx.TIME_LIMIT, pages)
    assert "accuracy 0.97 &lt;on test&gt;" in page
