"""End-to-end: the real Snakefile on the tiny config makes the per-set tables, the cross-set
summary and plots, and `snakemake --report` builds an HTML report whose landing page states the
verification result; a planted wrong answer shows up first, in red."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import TINY, plant_failed_answer, run_snakemake

pytestmark = pytest.mark.slow

#: one set (9x9 SAT, UNSAT and INVALID lines) in one shard, two reference solvers: few jobs
CONFIG = """sets:
  tiny9: data/mixed9.txt
encodings: [extended]
solvers:
  minisat22: {}
  cadical195: {}
time_limit: 5
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
    (d / "config.yaml").write_text(CONFIG)
    snakemake(d)
    return d


def test_tables_summary_and_plots_are_made(run_dir):
    rep = run_dir / "results" / "Reports"
    md = (rep / "tiny9_table.md").read_text()
    assert md.startswith("# tiny9: solvers compared")
    assert "All answers verified" in md
    assert "| minisat22 | extended | 10 | 8 | 7 | 1 | 0 | 2 | 0 | 0 |" in md
    csv = (rep / "tiny9_table.csv").read_text().splitlines()
    assert csv[0].startswith("set,solver,encoding,instances,solved,SAT,UNSAT,TIMEOUT")
    assert len(csv) == 3  # two reference solvers, one encoding
    top = run_dir / "reports"
    summary = (top / "summary.md").read_text()
    assert summary.index("All answers verified") < summary.index("| set | solver |")
    assert "![9x9](cactus/9x9.png)" in summary and "![encodings compared]" in summary
    assert len((top / "summary.csv").read_text().splitlines()) == 1 + 2
    assert [p.name for p in (top / "cactus").glob("*.png")] == ["9x9.png"]
    assert list((top / "scatter").glob("*.png")) == []  # only references configured
    assert "9x9,extended,8,729," in (top / "encodings.csv").read_text()


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
    plant_failed_answer(run_dir / "results/SatSols/cadical195/extended/tiny9.tsv", 1)
    # rerun only the report steps on the edited file (the check rule fails by design)
    snakemake(run_dir, "--forcerun", "summary", "--until", "summary")
    problems = (run_dir / "reports" / "problems.html").read_text()
    assert "color:#b00000" in problems and "planted: row 1 repeats 4" in problems
    summary = (run_dir / "reports" / "summary.md").read_text()
    assert summary.index("1 PROBLEM(S)") < summary.index("| set | solver |")
    snakemake(run_dir, "--report", "reports/report.html")
    html = (run_dir / "reports" / "report.html").read_text()
    assert "planted: row 1 repeats 4" in html and "#b00000" in html
