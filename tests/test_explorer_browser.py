"""End-to-end: the real Snakefile on a small run (three sets: 4x4, 9x9 with INVALID and UNSAT
lines, and a Futoshiki / Latin / 3-D set; three solvers, one of them our DPLL with a 3-decision
budget so that some instances time out; LTN and CSP at toy sizes), then the explorer opened from
file:// in headless Chromium (Debian's package, installed when missing) and checked against the
stage files: the overview names every set and solver and its counts equal reports/summary.csv;
filters show exactly the instances the stage files say; an instance shows its board with the
SatSols digits; a click on a scatter point opens that instance; no request leaves file://.
Screenshots land in results/explorer_screenshots/ for people to look at.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT, copy_tiny, plant_failed_answer, run_snakemake

from satdoku.report.explorer.browser import BrowserMissing, browser_page, open_view, wait_ready
from satdoku.stagefiles.instances import iter_instance_dicts
from satdoku.stagefiles.tsv import read_tsv

pytestmark = pytest.mark.slow

SHOTS = ROOT / "results" / "explorer_screenshots"
SETS = ("tiny4", "tiny9", "families", "cnf")
PUZZLE_SETS = SETS[:3]
CNF_FILES = {"a_uf20-01.cnf": "uf20-91/uf20-01.cnf", "b_uuf50-01.cnf": "uuf50-218/uuf50-01.cnf"}
SOLVERS = ("minisat22", "cadical195", "dpll-budget")
RUNS = (*(f"{s}/extended" for s in SOLVERS), *(f"{s}/dimacs" for s in SOLVERS))

#: Futoshiki (signs between neighbours), Latin square, 3-D Sudoku of order 2 (4 layers)
FAMILIES = """\
{"kind": "futoshiki", "size": 4, "givens": [0,0,0,0, 0,0,3,0, 0,0,0,0, 0,0,0,0], \
"less_than": [[0,1],[5,1],[9,13],[14,15],[10,6]], "name": "futoshiki 4x4"}
{"kind": "latin", "size": 5, "givens": [1,0,0,0,5, 0,0,0,0,0, 0,0,3,0,0, 0,0,0,0,0, \
5,0,0,0,1], "name": "latin 5x5"}
{"kind": "sudoku3d", "order": 2, "givens": [1,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,2, 0,0,0,0, \
0,3,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,4,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, \
0,0,0,0], "name": "3-D order 2"}
"""

CONFIG = """\
sets:
  tiny4: data/sudokusolver_4x4.txt
  tiny9: data/mixed9.txt
  families: data/families.jsonl
  cnf: data/cnf
encodings: [extended]
solvers:
  minisat22: {}
  cadical195: {}
  dpll-budget: {solver: dpll, max_decisions: 3}
time_limit: 5
shard_size: 4
check_unique: true
ltn: {sizes: [4], per_kind: 60, epochs: 1, q2_limit: 6, q1_extra: 0, ltn_steps: 20,
      ltn_rounds: 1}
csp_experiment: {families: [latin, futoshiki], solvers: [csp-mac-mrv, csp-bt-first],
                 time_limit: 0.2, n_min: 3, n_max: 6}
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    d = copy_tiny(tmp_path_factory.mktemp("explorer_e2e"), config=False)
    (d / "data" / "families.jsonl").write_text(FAMILIES)
    (d / "data" / "cnf").mkdir()
    for name, src in CNF_FILES.items():  # a CNF set: a folder of DIMACS files
        shutil.copy(ROOT / "data/public/satlib" / src, d / "data" / "cnf" / name)
    (d / "config.yaml").write_text(CONFIG)
    run_snakemake(d)
    return d


@pytest.fixture(scope="module")
def browser(run_dir) -> Iterator[SimpleNamespace]:
    """One headless Chromium page for the module; records every request and script error."""
    try:
        with browser_page(install_log=run_dir / "apt-chromium.log") as page:
            seen = SimpleNamespace(page=page, index=run_dir / "reports/explorer/index.html",
                                   requests=[], errors=[])
            page.on("request", lambda r: seen.requests.append(r.url))
            page.on("pageerror", lambda e: seen.errors.append(str(e)))
            page.on("console", lambda m: m.type == "error" and seen.errors.append(m.text))
            yield seen
    except BrowserMissing as exc:
        pytest.fail(f"headless Chromium is needed for this test: {exc}")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def encoding(name: str) -> str:
    return "dimacs" if name == "cnf" else "extended"


def run_index(page, solver: str, enc: str = "extended") -> int:
    return page.evaluate("([s, e]) => SATDOKU.data.get('overview').runs"
                         ".findIndex(r => r.solver === s && r.encoding === e)", [solver, enc])


def times(run_dir: Path, solver: str, name: str) -> list[dict[str, str]]:
    return read_tsv(run_dir / f"results/SatOutputTimes/{solver}/{encoding(name)}/{name}.tsv")


def listed_ids(page) -> list[int]:
    return page.eval_on_selector_all("table.list tr[data-id]", "trs => trs.map(t => +t.dataset.id)")


def test_overview_names_every_set_and_solver_and_matches_summary_csv(run_dir, browser):
    page = browser.page
    open_view(page, browser.index, "#/")
    text = page.inner_text("main")
    for name in (*SETS, *SOLVERS):
        assert name in text, name
    # the one problem: the 3-decision DPLL hits its limit on both formulas of the CNF set (a run
    # stopped on every instance is flagged); no wrong answer, no disagreement
    problems = page.evaluate("() => SATDOKU.data.get('overview').problems")
    assert len(problems) == 1 and "dpll-budget/dimacs solved none" in problems[0], problems
    rows = page.evaluate("""() => [...document.querySelectorAll('table.solvers tr[data-href]')]
        .map(tr => [...tr.cells].map(td => td.innerText.trim()))""")
    heads = page.eval_on_selector_all("table.solvers th", "ths => ths.map(t => t.innerText.trim())")
    with open(run_dir / "reports/summary.csv", encoding="utf-8") as fh:
        summary = list(csv.DictReader(fh))
    assert len(rows) == len(summary) == len(SETS) * (len(SOLVERS) + 2)  # + VBS, VBS-reference
    shown = {(r[0], r[1].split()[0], r[2]): dict(zip(heads, r, strict=True)) for r in rows}
    counts = {"instances": "instances", "solved": "solved", "SAT": "SAT", "UNSAT": "UNSAT",
              "TIMEOUT": "timeouts", "INVALID": "invalid", "ERROR": "errors",
              "failed": "failed verif."}
    for want in summary:
        got = shown[(want["set"], want["solver"], want["encoding"])]
        for col, head in counts.items():
            assert int(got[head]) == int(want[col]), (want["set"], want["solver"], col)
        for col, head in (("median_s", "median s (total)"), ("par2_s", "PAR-2 s (total)")):
            if want[col] == "":
                assert got[head] == "-"
            else:
                assert float(got[head]) == pytest.approx(float(want[col]), rel=6e-3), col
    assert sum(int(r["TIMEOUT"]) for r in summary) > 0  # the budgeted DPLL timed out somewhere
    shot(page, "overview")


#: Every table inside the page's width (scrolling in its own box when wider) and every <code>
#: box whole: not past the page's right edge, not cut by a scrolling or clipping ancestor, and
#: at least as tall as its font's glyphs (underscores and descenders drawn inside it).
LAYOUT_PROBLEMS = """() => {
  const W = document.documentElement.clientWidth, bad = [];
  if (document.documentElement.scrollWidth > W + 1) {
    bad.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${W}`);
  }
  for (const t of document.querySelectorAll("main table")) {
    const r = t.getBoundingClientRect();
    if (r.right > W + 1) bad.push(`table.${t.className} ends at ${r.right} > ${W}`);
    const o = getComputedStyle(t).overflowX;
    if (t.scrollWidth > t.clientWidth + 1 && !["auto", "scroll"].includes(o)) {
      bad.push(`table.${t.className} is cut without a scroll bar`);
    }
  }
  for (const c of document.querySelectorAll("main code")) {
    const r = c.getBoundingClientRect(), text = c.textContent.slice(0, 40);
    if (r.right > W + 1) bad.push(`code "${text}" ends at ${r.right} > ${W}`);
    const range = document.createRange();
    range.selectNodeContents(c);
    const glyphs = range.getBoundingClientRect();
    if (r.bottom + 0.5 < glyphs.bottom || r.top - 0.5 > glyphs.top) {
      bad.push(`code "${text}": box ${r.top}-${r.bottom} shorter than its text ` +
               `${glyphs.top}-${glyphs.bottom}`);
    }
    for (let a = c.parentElement; a && a !== document.body; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX === "visible" && st.overflowY === "visible") continue;
      const ar = a.getBoundingClientRect();
      if (r.bottom > ar.bottom + 0.5 || r.top < ar.top - 0.5) {
        bad.push(`code "${text}" cut by ${a.tagName}.${a.className}`);
      }
    }
  }
  return bad;
}"""


def test_tables_and_code_fit_at_1280_px(run_dir, browser):
    """At 1280 px the overview, a set's instance list (every run a column), an instance and the
    plots page fit: wide tables scroll in their own box, code lines are whole."""
    page = browser.page
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        for view in ("#/", "#/set/tiny9", "#/i/tiny9/1", "#/i/cnf/1", "#/plots"):
            open_view(page, browser.index, view)
            assert page.evaluate(LAYOUT_PROBLEMS) == [], view
            if view != "#/plots":  # what is measured is there
                assert page.locator("main table").count(), view
        open_view(page, browser.index, "#/i/tiny9/1")
        assert page.locator("main code").count()  # the extract commands, file paths
        shot(page, "instance_1280")
        open_view(page, browser.index, "#/plots?set=tiny9")
        line = page.inner_text("#pair-line")  # the paired comparison of the two runs plotted
        assert re.fullmatch(r"Paired: \S+ vs \S+: (\S+x \[\S+, \S+\], p .+, \d+ pairs|"
                            r"no instance solved by both)", line), line
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})


def test_filters_show_exactly_the_instances_of_the_stage_files(run_dir, browser):
    page = browser.page
    open_view(page, browser.index, "#/set/tiny9")
    k = run_index(page, "dpll-budget")
    page.select_option(f'select[data-param="st{k}"]', "T")  # as a user would
    wait_ready(page, f"#/set/tiny9?st{k}=T")
    want = [int(r["id"]) for r in times(run_dir, "dpll-budget", "tiny9")
            if r["status"] == "TIMEOUT"]
    assert 0 < len(want) < 10 and listed_ids(page) == want
    assert page.get_attribute("#count", "data-matches") == str(len(want))
    shot(page, "list_timeouts")
    for name in SETS:  # every set and run, through the URL
        for solver in SOLVERS:
            k = run_index(page, solver, encoding(name))
            open_view(page, browser.index, f"#/set/{name}?st{k}=T")
            want = [int(r["id"]) for r in times(run_dir, solver, name) if r["status"] == "TIMEOUT"]
            assert listed_ids(page) == want, (name, solver)
    # one solver timed out, another solved it
    rows = {s: times(run_dir, s, "tiny9") for s in SOLVERS}
    split = [i + 1 for i in range(10)
             if any(rows[s][i]["status"] == "TIMEOUT" for s in SOLVERS)
             and any(rows[s][i]["status"] in ("SAT", "UNSAT") for s in SOLVERS)]
    open_view(page, browser.index, "#/set/tiny9?flag=split")
    assert split and listed_ids(page) == split
    # uniqueness verdict
    several = [int(r["id"]) for r in read_tsv(run_dir / "results/Reports/tiny4_unique.tsv")
               if r["verdict"] == "several"]
    open_view(page, browser.index, "#/set/tiny4?uq=s")
    assert several == [1] and listed_ids(page) == several


def test_sorting_by_time_and_by_ratio(run_dir, browser):
    page = browser.page
    open_view(page, browser.index, "#/")
    a, b = run_index(page, "minisat22"), run_index(page, "cadical195")
    ta = [round(float(r["total_seconds"]) * 1e6) for r in times(run_dir, "minisat22", "tiny9")]
    tb = [round(float(r["total_seconds"]) * 1e6) for r in times(run_dir, "cadical195", "tiny9")]
    open_view(page, browser.index, f"#/set/tiny9?sort=t{a}&desc=1")
    assert listed_ids(page) == sorted(range(1, 11), key=lambda i: (-ta[i - 1], i))
    open_view(page, browser.index, f"#/set/tiny9?sort=r{a}_{b}")
    assert listed_ids(page) == sorted(range(1, 11), key=lambda i: (ta[i - 1] / max(tb[i - 1], 1),
                                                                   i))


def board_digits(page, board: str) -> dict[int, int]:
    return {int(c): int(v) for c, v in page.eval_on_selector_all(
        f'svg[data-board="{board}"] text.v', "ts => ts.map(t => [t.dataset.cell, t.textContent])")}


def solution_values(text: str, notation: str) -> list[int]:
    """A SatSols board line as cell values (digits, 'n digits', or a JSON list)."""
    if text.startswith("["):
        return [int(v) for v in json.loads(text)]
    return [int(ch) for ch in text.split()[-1]]


def test_instance_view_draws_the_sat_sols_board(run_dir, browser):
    page = browser.page
    open_view(page, browser.index, "#/set/tiny9")
    page.click('table.list tr[data-id="3"] td:nth-child(2)')  # a row is its link
    wait_ready(page, "#/i/tiny9/3")
    shot(page, "instance_9x9")
    checked = 0
    for name in PUZZLE_SETS:
        insts = [d for f in sorted((run_dir / f"results/Instances/{name}").glob("*.jsonl"))
                 for d in iter_instance_dicts(f)]
        for solver in ("minisat22", "cadical195"):
            sols = read_tsv(run_dir / f"results/SatSols/{solver}/extended/{name}.tsv")
            k = run_index(page, solver)
            for inst, sol in zip(insts, sols, strict=True):
                if sol["status"] != "SAT":
                    continue
                open_view(page, browser.index, f"#/i/{name}/{inst['id']}")
                answer = page.inner_text(f'tr[data-run="{k}"] td.answer')
                board = str(int(answer.split()[1]) - 1)  # "solution N"
                want = solution_values(sol["solution"], inst["notation"])
                got = board_digits(page, board)
                assert [got[c] for c in range(len(want))] == want, (name, inst["id"], solver)
                givens = inst["givens"]
                values = [int(v) for v in givens] if isinstance(givens, list) else [
                    0 if ch == "." else int(ch) for ch in givens]
                assert board_digits(page, "input") == {c: v for c, v in enumerate(values) if v}
                checked += 1
    assert checked == 2 * (7 + 6 + 3)  # tiny9: 7 SAT; tiny4: 6 SAT; families: 3 (two solvers)
    open_view(page, browser.index, "#/i/families/1")  # Futoshiki: every relation drawn
    assert page.locator('svg[data-board="input"] text.sign').count() == 5
    shot(page, "instance_futoshiki")
    open_view(page, browser.index, "#/i/families/3")  # 3-D: four layers side by side
    assert page.locator('svg[data-board="input"] text.layer').count() == 4
    shot(page, "instance_3d")
    open_view(page, browser.index, "#/i/tiny9/7")
    assert "INVALID: 80 cells" in page.inner_text("main")


def test_cnf_set_instance_shows_its_file_and_every_result(run_dir, browser):
    page = browser.page
    for ident, name in enumerate(CNF_FILES, 1):
        open_view(page, browser.index, f"#/i/cnf/{ident}")
        text = page.inner_text("main")
        assert name in text and page.locator("svg.board").count() == 0
        size = (run_dir / "data" / "cnf" / name).stat().st_size
        assert f"{size:,} bytes" in text
        for solver in SOLVERS:
            row = times(run_dir, solver, "cnf")[ident - 1]
            k = run_index(page, solver, "dimacs")
            assert page.inner_text(f'tr[data-run="{k}"] td:nth-child(2)') == row["status"]
        if ident == 1:
            assert "20 variables, 91 clauses" in text  # uf20-01's header
            shot(page, "instance_cnf")


def test_scatter_hover_and_click_open_the_instance(run_dir, browser):
    page = browser.page
    open_view(page, browser.index, "#/")
    x, y = run_index(page, "minisat22"), run_index(page, "cadical195")
    open_view(page, browser.index, f"#/plots?set=tiny9&x={x}&y={y}")
    tx, ty = times(run_dir, "minisat22", "tiny9"), times(run_dir, "cadical195", "tiny9")
    solved = [i for i in range(10) if tx[i]["status"] == "SAT" and ty[i]["status"] == "SAT"]
    target = max(solved, key=lambda i: float(ty[i]["total_seconds"]))  # the highest point
    point = [max(round(float(t[target]["total_seconds"]) * 1e6), 1) / 1e6 for t in (tx, ty)]
    px, py = page.evaluate("""([x, y]) => {
        const gd = document.getElementById("scatter");
        gd.scrollIntoView();
        const r = gd.getBoundingClientRect();
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        return [r.left + xa._offset + xa.l2p(Math.log10(x)),
                r.top + ya._offset + ya.l2p(Math.log10(y))];
    }""", point)
    shot(page, "plots")
    page.mouse.move(px, py)
    page.wait_for_selector("#scatter .hoverlayer .hovertext")
    hover = page.text_content("#scatter .hoverlayer")
    assert f"tiny9 #{target + 1}" in hover, hover
    page.mouse.click(px, py)
    wait_ready(page, f"#/i/tiny9/{target + 1}")
    k = run_index(page, "cadical195")
    shown = float(page.inner_text(f'tr[data-run="{k}"] td.time'))
    assert shown == pytest.approx(float(ty[target]["total_seconds"]), rel=6e-3)


def test_problems_come_first_in_red(run_dir, browser, tmp_path):
    """A planted wrong answer: its row leads the table, in red, and the problem is listed."""
    from satdoku.report.explorer.site import build_explorer

    results = tmp_path / "results"
    shutil.copytree(run_dir / "results", results)
    plant_failed_answer(results / "SatSols/cadical195/extended/tiny9.tsv", 2)
    shutil.rmtree(results / "SatSols/cadical195/extended/tiny9/shards")  # the edited file rules
    build_explorer(results, SETS, RUNS, 5.0, tmp_path / "explorer")
    page = browser.page
    open_view(page, tmp_path / "explorer/index.html", "#/")
    first = page.locator("table.solvers tr[data-href]").first
    assert first.inner_text().split()[:2] == ["tiny9", "cadical195"]
    assert "problem" in first.get_attribute("class")
    assert first.evaluate("tr => getComputedStyle(tr).color") == "rgb(176, 0, 0)"
    assert "planted: row 1 repeats 4" in page.inner_text(".problems")
    shot(page, "overview_with_problem")
    k = run_index(page, "cadical195")
    open_view(page, tmp_path / "explorer/index.html", f"#/set/tiny9?st{k}=wrong")
    assert listed_ids(page) == [2]


def test_empty_set_is_a_row_and_a_warning(run_dir, browser, tmp_path):
    """A comment-only set: a 0-instance row in the solver table and a warning, never missing."""
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.report.explorer.site import build_explorer

    results = tmp_path / "results"
    shutil.copytree(run_dir / "results", results)
    (tmp_path / "void.txt").write_text("# nothing here\n")
    (results / "Instances" / "void").mkdir()
    normalize(tmp_path / "void.txt", results / "Instances/void/00000.jsonl", 0, 100)
    build_explorer(results, [*SETS, "void"], RUNS, 5.0, tmp_path / "explorer")
    page = browser.page
    open_view(page, tmp_path / "explorer/index.html", "#/")
    assert "Warning: set void: no instances" in page.inner_text("main .warning")
    rows = page.evaluate("""() => [...document.querySelectorAll('table.solvers tr[data-href]')]
        .map(tr => [...tr.cells].map(td => td.innerText.trim()))""")
    (void,) = [r for r in rows if r[0] == "void"]
    assert void[1:4] == ["-", "-", "0"]


def test_ltn_and_csp_pages(run_dir, browser):
    from satdoku.pipeline.stage_largest_n import summarize

    page = browser.page
    open_view(page, browser.index, "#/ltn")
    assert "LTN, 4x4 Sudoku" in page.inner_text("main")
    widths = page.eval_on_selector_all("main img", "imgs => imgs.map(i => i.naturalWidth)")
    assert len(widths) == 3 and min(widths) > 100  # curves, confusion, Q2 decisions
    report = json.loads((run_dir / "results/Reports/ltn_4.json").read_text())
    for q in ("q1", "q2", "q3"):
        for j, ex in enumerate(report["examples"][q]["right"]):
            givens = {c: int(ch) for c, ch in enumerate(ex["board"]) if ch != "0"}
            drawn = board_digits(page, f"ltn-{q}-right-{j}")
            assert {c: v for c, v in drawn.items() if c in givens} == givens, (q, j)
    bands = report["q2"]["certification_by_band"]  # the Q2 table by band of blanks
    shown = page.locator("main table.ltn").nth(1).locator("tr")
    assert shown.count() == 1 + len(bands) and bands[-1]["band"] == "all"
    assert shown.nth(len(bands)).inner_text().split()[:2] == ["all", str(bands[-1]["boards"])]
    shot(page, "ltn")
    open_view(page, browser.index, "#/csp")
    rows = read_tsv(run_dir / "results/Reports/csp_largest_n.tsv")
    assert page.locator("table.csp tr").count() == 1 + len(summarize(rows))
    assert page.locator("main .js-plotly-plot").count() == 2  # latin, futoshiki
    shot(page, "csp")


def test_nothing_left_file_and_no_script_error(browser):
    """After every explorer view above: each request stayed on file://."""
    assert browser.requests and all(u.startswith(("file://", "data:", "blob:"))
                                    for u in browser.requests), browser.requests
    assert not browser.errors, browser.errors


def test_snakemake_report_links_the_explorer(run_dir, browser):
    """`snakemake --report reports/report.html`: its landing page links to the explorer."""
    run_snakemake(run_dir, "--report", "reports/report.html")
    page = browser.page
    page.goto((run_dir / "reports/report.html").resolve().as_uri())
    link = page.locator('a[href="explorer/index.html"]').first
    link.wait_for()
    link.click()
    wait_ready(page, "#/")
    assert page.url.endswith("/reports/explorer/index.html")


def test_download_csv_instance_hash_and_run(run_dir, browser):
    """The filtered list's "download CSV" holds exactly the listed instances with each run's
    status and time from the stage files; an instance page shows its instance_hash; the
    overview shows the run's manifest (results/run.json)."""
    page = browser.page
    open_view(page, browser.index, "#/set/tiny9")
    k = run_index(page, "dpll-budget")
    open_view(page, browser.index, f"#/set/tiny9?st{k}=T")
    with page.expect_download() as info:
        page.click("#list-csv")
    download = info.value
    assert download.suggested_filename == "tiny9_instances.csv"
    rows = list(csv.DictReader(Path(download.path()).read_text().splitlines()))
    assert [int(r["id"]) for r in rows] == listed_ids(page)
    want = {r["id"]: r for r in times(run_dir, "minisat22", "tiny9")}
    for r in rows:
        assert r["dpll-budget/extended status"] == "TIMEOUT"
        m = want[r["id"]]
        assert r["minisat22/extended status"] == m["status"]
        assert float(r["minisat22/extended total_seconds"]) == pytest.approx(
            float(m["total_seconds"]), abs=1e-6)
    h = want["2"]["instance_hash"]
    open_view(page, browser.index, "#/i/tiny9/2")
    assert h and page.inner_text("code.hash") == h
    manifest = json.loads((run_dir / "results/run.json").read_text())
    open_view(page, browser.index, "#/")
    assert manifest["run_id"] in page.inner_text("p.run")
    assert page.eval_on_selector_all("table.run-solvers tr", "t => t.length") == 1 + len(SOLVERS)
