"""End-to-end: the real Snakefile on the tiny config makes the per-set tables, the cross-set
summary and plots, and `snakemake --report` builds an HTML report whose landing page states the
verification result; a planted wrong answer shows up first, in red. Two sets with different
time limits and a comment-only set: every figure uses each set's own limit (summary PAR-2,
explorer), the summary has each set's virtual best solver and a 0-instance row for the empty
set, and reports/pairs.csv's figures equal ones recomputed here from the stage files (scipy)."""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from pathlib import Path

import pytest
from conftest import TINY, plant_failed_answer, run_snakemake

pytestmark = pytest.mark.slow

#: 9x9 SAT, UNSAT and INVALID lines (limit 5 s), 4x4 puzzles with their own limit of 2 s and a
#: comment-only set, each in one shard, two reference solvers: few jobs
CONFIG = """sets:
  tiny9: data/mixed9.txt
  tiny4: {path: data/sudokusolver_4x4.txt, time_limit: 2}
  empty: data/empty.txt
encodings: [extended]
solvers:
  minisat22: {}
  cadical195: {}
time_limit: 5
repeats: 2
shard_size: 100
ltn: {enabled: false}
csp_experiment: {enabled: false}
"""


def snakemake(workdir: Path, *args: str) -> str:
    return run_snakemake(workdir, *args)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("report_e2e")
    (d / "data").mkdir()
    shutil.copy(TINY / "mixed9.txt", d / "data" / "mixed9.txt")
    shutil.copy(TINY / "sudokusolver_4x4.txt", d / "data" / "sudokusolver_4x4.txt")
    (d / "data" / "empty.txt").write_text("# no puzzle here\n")
    (d / "config.yaml").write_text(CONFIG)
    snakemake(d)
    return d


def test_tables_summary_and_plots_are_made(run_dir):
    rep = run_dir / "results" / "Reports"
    md = (rep / "tiny9_table.md").read_text()
    assert md.startswith("# tiny9: solvers compared")
    assert "All answers verified" in md
    assert "| minisat22 | extended | 10 | 8 | 7 | 1 | 0 | 0 | 2 | 0 | 0 |" in md
    csv = (rep / "tiny9_table.csv").read_text().splitlines()
    assert csv[0].startswith("set,solver,encoding,instances,solved,SAT,UNSAT,TIMEOUT")
    assert len(csv) == 3  # two reference solvers, one encoding
    top = run_dir / "reports"
    summary = (top / "summary.md").read_text()
    assert summary.index("All answers verified") < summary.index("| set | solver |")
    assert "![9x9](cactus/9x9.png)" in summary and "![encodings compared]" in summary
    # per set: two runs and their virtual best solver; the empty set: one row
    assert len((top / "summary.csv").read_text().splitlines()) == 1 + 3 + 3 + 1
    assert sorted(p.name for p in (top / "cactus").glob("*.png")) == ["4x4.png", "9x9.png"]
    assert list((top / "scatter").glob("*.png")) == []  # only references configured
    assert "9x9,tiny9,extended,8,729," in (top / "encodings.csv").read_text()


def test_propagation_columns_agree_with_the_solvers_decisions(run_dir):
    """Each analysed set (the empty one too) has its propagation files; MiniSat decides with
    zero decisions (its counter reading 2) exactly the instances UP solves or refutes."""
    rep = run_dir / "results" / "Reports" / "propagation"
    assert sorted(p.name for p in rep.iterdir()) == ["empty", "tiny4", "tiny9"]
    rows = [r for r in _csv_tsv(rep / "tiny9" / "propagation_instances.tsv")
            if r["encoding"] == "extended"]
    decided = sum(r["up"] in ("solved", "refuted") for r in rows)
    (table,) = [r for r in _csv(run_dir / "reports" / "encodings.csv") if r["set"] == "tiny9"]
    assert int(table["up_solved"]) == sum(r["up"] == "solved" for r in rows)
    assert decided > 0  # (UP refutes the UNSAT line)
    assert float(table["zero_decisions_minisat22"]) == pytest.approx(decided / len(rows))
    assert (rep / "tiny9" / "propagation.png").stat().st_size > 0


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _times(run_dir: Path, solver: str, name: str) -> dict[str, float]:
    """Seconds of the solved instances of a run, read from its stage files."""
    r = run_dir / "results"
    sols = {row["id"]: row for row in _csv_tsv(r / "SatSols" / solver / "extended" / f"{name}.tsv")}
    return {row["id"]: float(row["total_seconds"])
            for row in _csv_tsv(r / "SatOutputTimes" / solver / "extended" / f"{name}.tsv")
            if sols[row["id"]]["status"] in ("SAT", "UNSAT")
            and sols[row["id"]]["verified"] != "FAILED"}


def _csv_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_each_set_has_its_own_limit_vbs_and_empty_row(run_dir):
    rows = _csv(run_dir / "reports" / "summary.csv")
    limits = {(r["set"], r["solver"]): r["time_limit"] for r in rows}
    assert {limits[("tiny4", s)] for s in ("minisat22", "cadical195", "VBS")} == {"2"}
    assert {limits[("tiny9", s)] for s in ("minisat22", "cadical195", "VBS")} == {"5"}
    (empty,) = [r for r in rows if r["set"] == "empty"]
    assert empty["instances"] == "0" and empty["solver"] == "-"
    summary = (run_dir / "reports" / "summary.md").read_text()
    assert "Warning: set empty: no instances" in summary
    assert "Time limit per instance: 5 s (tiny9, empty); 2 s (tiny4)" in summary
    # the virtual best: per instance the fastest of the two runs (recomputed here)
    for name in ("tiny9", "tiny4"):
        a, b = (_times(run_dir, s, name) for s in ("minisat22", "cadical195"))
        best = [min(t for t in (a.get(i), b.get(i)) if t is not None) for i in a.keys() | b.keys()]
        (vbs,) = [r for r in rows if r["set"] == name and r["solver"] == "VBS"]
        assert vbs["encoding"] == "*" and int(vbs["solved"]) == len(best)
        assert float(vbs["median_s"]) == pytest.approx(statistics.median(best), rel=1e-5)
    # repeats: 2: every times row is the median of two solves, the table shows their spread
    times = _csv_tsv(run_dir / "results/SatOutputTimes/minisat22/extended/tiny9.tsv")
    assert {r["repeats"] for r in times} == {"2"}
    (mini,) = [r for r in rows if r["set"] == "tiny9" and r["solver"] == "minisat22"]
    assert float(mini["median_min_s"]) <= float(mini["median_s"]) <= float(mini["median_max_s"])
    overview = (run_dir / "reports" / "explorer" / "data" / "overview.js").read_text()
    data = json.loads(overview[overview.index(", ") + 2: overview.rindex(");")])
    assert data["limits"] == {"tiny9": 5.0, "tiny4": 2.0, "empty": 5.0}


def test_pairs_equal_an_independent_computation(run_dir):
    from scipy.stats import wilcoxon

    rows = _csv(run_dir / "reports" / "pairs.csv")
    assert list(rows[0])[:11] == ["set", "run_a", "run_b", "n", "wins_a", "wins_b", "ties",
                                  "median_ratio", "ci_low", "ci_high", "wilcoxon_p"]
    assert [(r["set"], r["run_a"], r["run_b"]) for r in rows] == [
        ("tiny9", "minisat22/extended", "cadical195/extended"),
        ("tiny4", "minisat22/extended", "cadical195/extended")]
    for r in rows:
        a, b = (_times(run_dir, s, r["set"]) for s in ("minisat22", "cadical195"))
        both = sorted(a.keys() & b.keys(), key=int)
        ta, tb = [a[i] for i in both], [b[i] for i in both]
        ratios = [max(y, 1e-6) / max(x, 1e-6) for x, y in zip(ta, tb, strict=True)]
        assert int(r["n"]) == len(both)
        assert float(r["median_ratio"]) == pytest.approx(statistics.median(ratios), rel=1e-5)
        assert float(r["ci_low"]) <= float(r["median_ratio"]) <= float(r["ci_high"])
        assert float(r["wilcoxon_p"]) == pytest.approx(wilcoxon(ta, tb).pvalue, rel=1e-5)
        assert int(r["wins_a"]) + int(r["wins_b"]) + int(r["ties"]) == len(both)
    summary = (run_dir / "reports" / "summary.md").read_text()
    assert "- cadical195/extended vs minisat22/extended: " in summary


def test_html_report(run_dir):
    out = snakemake(run_dir, "--report", "reports/report.html")
    assert "Report created" in out
    html = (run_dir / "reports" / "report.html").read_text()
    for item in ("summary.html", "9x9.png", "encodings.png", "tiny9_time.png",
                 "tiny9_table.html", "tiny9.txt",
                 "Every failed verification and every SAT/UNSAT disagreement"):
        assert item in html, item
    for category in ("1 Summary", "2 Cactus plots", "4 Encodings", "5 Per set"):
        assert category in html, category
    assert "All answers verified; no disagreement between solvers." in html


def test_wrong_answer_is_reported_first_in_red(run_dir):
    before = {(r["set"], r["solver"]): r for r in _csv(run_dir / "reports" / "summary.csv")}
    plant_failed_answer(run_dir / "results/SatSols/cadical195/extended/tiny9.tsv", 1)
    plant_failed_answer(run_dir / "results/SatSols/cadical195/extended/tiny4.tsv", 2)
    # rerun only the report steps on the edited file (the check rule fails by design)
    snakemake(run_dir, "--forcerun", "summary", "--until", "summary")
    problems = (run_dir / "reports" / "problems.html").read_text()
    assert "color:#b00000" in problems and "planted: row 1 repeats 4" in problems
    # PAR-2: the wrong answer counts as twice its own set's limit (5 s for tiny9, 2 s for tiny4)
    after = {(r["set"], r["solver"]): r for r in _csv(run_dir / "reports" / "summary.csv")}
    for name, limit, row in (("tiny9", 5.0, 1), ("tiny4", 2.0, 2)):
        times = _csv_tsv(run_dir / f"results/SatOutputTimes/cadical195/extended/{name}.tsv")
        t = float(times[row - 1]["total_seconds"])
        valid = int(before[(name, "cadical195")]["instances"]) - int(
            before[(name, "cadical195")]["INVALID"])
        old = float(before[(name, "cadical195")]["par2_s"])
        assert float(after[(name, "cadical195")]["par2_s"]) == pytest.approx(
            old + (2 * limit - t) / valid, rel=1e-4, abs=1e-5)
    summary = (run_dir / "reports" / "summary.md").read_text()
    assert summary.index("2 PROBLEM(S)") < summary.index("| set | solver |")
    snakemake(run_dir, "--report", "reports/report.html")
    html = (run_dir / "reports" / "report.html").read_text()
    assert "planted: row 1 repeats 4" in html and "#b00000" in html
