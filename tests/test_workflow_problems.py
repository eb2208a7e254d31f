"""End-to-end: failures are problems (issue 18 section 4). One real run, nothing planted: an
external solver whose binary fails (`false`: every answer is ERROR), a CSV board whose given
solution contradicts the verified answer, and a set whose limit (1 microsecond) every solver
hits. Each is named in the set's report and `.check` (not `OK`), in its solver table's red
rows, in reports/problems.html and the summary, and in the explorer's overview (headline, list,
red rows); never "All answers verified"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import TINY, run_snakemake

pytestmark = pytest.mark.slow

PUZZLE = "000070030000003020056200089000064001007000000090080005900005000000037910280000000"
SOLUTION = "429578136718693524356241789532764891867159243194382675971425368645837912283916457"
WRONG_GIVEN = SOLUTION[1] + SOLUTION[0] + SOLUTION[2:]  # two empty cells swapped

CONFIG = """sets:
  tiny4: data/sudokusolver_4x4.txt
  given: data/given.csv
  tight: {path: data/sudokusolver_4x4.txt, time_limit: 0.000001}
encodings: [extended]
solvers:
  minisat22: {}
  broken: {solver: external, command: "false {cnf}"}
time_limit: 5
shard_size: 100
check_unique: false
"""


def _overview(workdir: Path) -> dict:
    text = (workdir / "reports/explorer/data/overview.js").read_text()
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("problems")
    (d / "data").mkdir()
    shutil.copy(TINY / "sudokusolver_4x4.txt", d / "data")
    (d / "data" / "given.csv").write_text(
        f"puzzle,solution\n{PUZZLE},{SOLUTION}\n{PUZZLE},{WRONG_GIVEN}\n")
    (d / "config.yaml").write_text(CONFIG)
    run_snakemake(d)
    return d


def test_a_given_solution_that_differs_is_a_problem(run_dir):
    check = (run_dir / "results/Reports/given.check").read_text().splitlines()
    assert len(check) == 2 and check[0].startswith("set given: broken/extended returned ERROR")
    assert check[1] == (
        "set given instance 2 (line 3): the solution given in the input differs from the "
        "verified answer of minisat22/extended (the puzzle has several solutions, or the given "
        "one is wrong)")
    report = (run_dir / "results/Reports/given.txt").read_text()
    assert "!!! 2 PROBLEM(S)" in report and "All answers verified" not in report


def test_a_run_that_hits_its_limit_on_every_instance_is_a_problem(run_dir):
    check = (run_dir / "results/Reports/tight.check").read_text().splitlines()
    assert len(check) == 2 and check[0] == (  # then broken: it times out before its binary starts
        "set tight: minisat22/extended solved none of its 7 instance(s): it hit its limit on "
        "every one (7 TIMEOUT)")
    report = (run_dir / "results/Reports/tight.txt").read_text()
    assert "!!! 2 PROBLEM(S)" in report and "All answers verified" not in report
    table = (run_dir / "results/Reports/tight_table.html").read_text()
    assert table.count('<tr style="color:#b00000') == 2  # both runs' rows in red


def test_solver_errors_are_problems_in_red(run_dir):
    (check,) = (run_dir / "results/Reports/tiny4.check").read_text().splitlines()
    assert check == ("set tiny4: broken/extended returned ERROR on 7 instance(s) (1, 2, 3, 4, "
                     "5, ...); instance 1 (line 1): no answer (exit code 1)")
    report = (run_dir / "results/Reports/tiny4.txt").read_text()
    assert "!!! 1 PROBLEM(S)" in report and "!!! " + check in report
    assert "All answers verified" not in report
    table = (run_dir / "results/Reports/tiny4_table.html").read_text()
    assert table.count('<tr style="color:#b00000') == 1 and "<td>broken</td>" in table
    page = (run_dir / "reports/problems.html").read_text()
    assert "color:#b00000" in page and check in page and "tight: minisat22" in page
    assert "All answers verified" not in page
    summary = (run_dir / "reports/summary.md").read_text()
    assert summary.index("5 PROBLEM(S)") < summary.index("| set | solver |")
    overview = _overview(run_dir)
    assert overview["problems_total"] == 5 and check in overview["problems"]
    assert overview["problems_headline"].startswith("5 PROBLEM(S)")
    red = {(r[0], r[1]) for r, bad in zip(overview["table"]["rows"],
                                           overview["table"]["problem"], strict=True) if bad}
    assert red == {("tiny4", "broken"), ("given", "broken"), ("tight", "minisat22"),
                   ("tight", "broken")}
