"""Failures are problems (issue 18 section 4): solver errors, runs stopped by their limit on every
instance and given solutions that differ are found by the one problem finder
(satdoku/report/agreement.py), whatever path reads the rows (whole set, shard by shard, the
summary's long frame)."""

from __future__ import annotations

import report_fixture as fx
from conftest import plant_answer

from satdoku.report.agreement import WRONG_KINDS, Problems, find_problems
from satdoku.report.collect import load_files
from satdoku.report.solver_tables import solver_table
from satdoku.report.summary import problems, problems_html, problems_markdown, summary_html
from satdoku.stagefiles.tsv import GIVEN_DIFFERS, read_tsv


def _row(i: int, status: str, verified: str = "-", detail: str = "") -> dict[str, str]:
    return {"id": str(i), "line": str(10 + i), "status": status, "verified": verified,
            "detail": detail}


def test_errors_are_one_problem_per_run_naming_instances_and_message():
    runs = {"cdcl/extended": [_row(i, "ERROR", detail=f"boom {i}") for i in range(1, 8)],
            "minisat22/extended": [_row(i, "SAT", "yes") for i in range(1, 8)]}
    found = Problems("s").add(runs)
    (text,) = found.texts()
    assert text == ("set s: cdcl/extended returned ERROR on 7 instance(s) (1, 2, 3, 4, 5, ...); "
                    "instance 1 (line 11): boom 1")
    assert found.runs() == {"cdcl/extended"} and found.texts(WRONG_KINDS) == []


def test_a_run_that_hits_its_limit_on_every_valid_instance_is_flagged_and_only_that():
    rows = [_row(1, "TIMEOUT"), _row(2, "INVALID"), _row(3, "MEMOUT"), _row(4, "TIMEOUT")]
    (text,) = find_problems("s", {"dpll/extended": rows})
    assert text == ("set s: dpll/extended solved none of its 3 instance(s): it hit its limit on "
                    "every one (1 MEMOUT, 2 TIMEOUT)")
    assert find_problems("s", {"dpll/extended": [*rows, _row(5, "SAT", "yes")]}) == []
    assert find_problems("s", {"dpll/extended": [_row(1, "INVALID")]}) == []  # nothing to solve


def test_given_solution_that_differs_is_named_once_per_instance():
    runs = {r: [_row(1, "SAT", "yes", GIVEN_DIFFERS), _row(2, "SAT", "yes")]
            for r in ("a/extended", "b/extended")}
    found = Problems("s").add(runs)
    (text,) = found.texts()
    assert text.startswith("set s instance 1 (line 11): the solution given in the input "
                           "differs from the verified answer of a/extended, b/extended")
    assert found.runs() == set()  # the input is in question, not the runs
    many = {"a/x": [_row(i, "SAT", "yes", GIVEN_DIFFERS) for i in range(1, 31)]}
    texts = find_problems("s", many)
    assert len(texts) == 21 and texts[19].startswith("set s instance 20 (line 30)")
    assert texts[20] == ("set s: and 10 more instance(s) whose given solution differs from the "
                         "verified answer (21, 22, 23, 24, 25, ...; SatSols detail)")


def test_wrong_evidence_first_then_failures_and_shards_add_up_to_the_whole():
    whole = {"a/x": [_row(1, "ERROR", detail="e"), _row(2, "SAT", "FAILED", "bad"),
                     _row(3, "SAT", "yes", GIVEN_DIFFERS)],
             "b/x": [_row(1, "SAT", "yes"), _row(2, "UNSAT"), _row(3, "SAT", "yes")],
             "c/x": [_row(1, "TIMEOUT"), _row(2, "TIMEOUT"), _row(3, "TIMEOUT")]}
    texts = find_problems("s", whole)
    assert ["failed verification" in texts[0], "disagree" in texts[1], "ERROR" in texts[2],
            "limit on every one" in texts[3], "given in the input" in texts[4]] == [True] * 5
    assert len(texts) == 5
    assert Problems("s").add(whole).texts(WRONG_KINDS) == texts[:2]
    shards = Problems("s")
    for k in range(3):
        shards.add({run: rows[k:k + 1] for run, rows in whole.items()})
    assert shards.texts() == texts


def test_summary_frame_finds_the_same_problems_as_the_rows(tmp_path):
    results = fx.build(tmp_path)
    sols = results / "SatSols"
    plant_answer(sols / "dpll/extended/futo.tsv", 2, status="ERROR", verified="-",
                 detail="planted crash")
    for row in range(1, 4):  # every futo instance: TIMEOUT
        plant_answer(sols / "cdcl/extended/futo.tsv", row, status="TIMEOUT", verified="-")
    plant_answer(sols / "minisat22/extended/nine.tsv", 4, detail=GIVEN_DIFFERS)
    from_rows = []
    for name in fx.SETS:
        from_rows += find_problems(name, {run: read_tsv(sols / run / f"{name}.tsv")
                                          for run in fx.RUNS})
    from_frame = problems(load_files(fx.files(results)))
    assert sorted(from_frame) == sorted(from_rows) and len(from_rows) == 5
    assert any("dpll/extended returned ERROR on 1 instance(s) (2)" in p for p in from_frame)
    assert any("cdcl/extended solved none of its 3 instance(s)" in p for p in from_frame)
    assert any("nine instance 4 (line 4): the solution given" in p for p in from_frame)
    df = load_files(fx.files(results))
    red = [row for row in summary_html(solver_table(df, fx.TIME_LIMIT), from_frame,
                                       fx.TIME_LIMIT, {}).split("<tr")
           if "#b00000" in row and "<td>" in row]
    assert sorted((r.split("<td>")[1], r.split("<td>")[2]) for r in red) == [
        ("futo</td>", "cdcl</td>"), ("futo</td>", "dpll</td>"), ("nine</td>", "cdcl</td>")]
    page = problems_html(from_frame)
    assert "color:#b00000" in page and "planted crash" in page and "All answers" not in page
    assert "All answers verified" not in problems_markdown(from_frame)
