"""Every report plot rendered from the small results fixture: a real PNG, with the expected series
read back from the figure itself (captured just before it is saved), and one colour per solver."""

from __future__ import annotations

import csv
import math

import pytest
import report_fixture as fx

from satdoku.report import report_stages as build
from satdoku.report.plots import colour, time_per_instance
from satdoku.stagefiles.tsv import read_tsv


@pytest.fixture
def figures(monkeypatch):
    """Figures as they are saved: {file name: Figure}."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    saved = {}
    original = Figure.savefig

    def spy(self, fname, *args, **kwargs):
        saved[str(fname).rsplit("/", 1)[-1]] = self
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return saved


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return fx.build(tmp_path_factory.mktemp("fx"))


def assert_png(path, min_bytes=8000):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > min_bytes
    from PIL import Image

    with Image.open(path) as im:
        w, h = im.size
        assert w > 400 and h > 300
        assert sum(1 for c in im.convert("L").histogram() if c) > 20  # not a blank canvas


def assert_readable(fig):
    """Every text of a saved figure lies inside it (no label, title or legend cut off by the
    fixed margins) and is plain text: no mathtext tick labels (10^-3), whose layout costs a
    report job 0.2-0.4 s of CPU per figure."""
    from matplotlib.text import Text

    fig.canvas.draw()
    page = fig.bbox
    hidden = set()  # tick labels of ticks outside the view limits: made, never drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - abs(lo) * 1e-9 <= tick.get_loc() <= hi + abs(hi) * 1e-9:
                    hidden |= {id(tick.label1), id(tick.label2)}
    texts = [t for t in fig.findobj(Text)
             if t.get_visible() and t.get_text() and id(t) not in hidden]
    assert texts
    for t in texts:
        assert "$" not in t.get_text(), t.get_text()
        box = t.get_window_extent()
        assert (box.x0 >= page.x0 - 1 and box.x1 <= page.x1 + 1 and box.y0 >= page.y0 - 1
                and box.y1 <= page.y1 + 1), (t.get_text(), box, page)
    labels = [t.get_text() for t in texts if t in {
        lab for ax in fig.axes if ax.get_yscale() == "log" for lab in ax.get_yticklabels()}]
    if any(ax.get_yscale() == "log" for ax in fig.axes):
        assert labels and all(float(x) > 0 for x in labels)  # plain numbers: 0.01, 1, 10


def lines_by_label(fig, ax_index=0):
    return {ln.get_label(): ln for ln in fig.axes[ax_index].get_lines()}


def test_time_per_instance(results, tmp_path, figures):
    times = {run: read_tsv(results / "SatOutputTimes" / run / "nine.tsv") for run in fx.RUNS}
    out = tmp_path / "nine_time.png"
    series = time_per_instance("nine", times, out, fx.TIME_LIMIT)
    assert_png(out)
    lines = lines_by_label(figures["nine_time.png"])
    assert set(fx.RUNS) <= set(lines)
    dpll = lines["dpll/extended"]
    ys = list(dpll.get_ydata())
    assert list(dpll.get_xdata()) == [1, 2, 3, 4, 5, 6]
    assert ys[:2] == [0.5, 1.5] and math.isnan(ys[2]) and math.isnan(ys[5])  # timeout, INVALID
    timeouts = lines["dpll/extended: 1 timeout/error"]
    assert list(timeouts.get_xdata()) == [3] and list(timeouts.get_ydata()) == [fx.TIME_LIMIT]
    assert dpll.get_color() == colour("dpll") and dpll.get_linestyle() == "-"
    assert lines["minisat22/extended"].get_marker() == "s"  # reference: squares
    assert series["dpll/extended"][2] == (3, None)
    assert figures["nine_time.png"].axes[0].get_yscale() == "log"
    assert "s" in figures["nine_time.png"].axes[0].get_ylabel()
    assert_readable(figures["nine_time.png"])


def test_cactus_per_family(results, tmp_path, figures):
    fams = build.cactus_plots(fx.files(results), fx.TIME_LIMIT, str(tmp_path / "c"))
    assert fams == ["9x9", "Futoshiki"]  # the INVALID instance makes no family
    for name in ("9x9.png", "futoshiki.png"):
        assert_png(tmp_path / "c" / name)
    lines = lines_by_label(figures["9x9.png"])
    dpll = lines["dpll/extended (4/5)"]
    assert list(dpll.get_ydata()) == [0.25, 0.5, 1.5, 2.0]
    assert list(dpll.get_xdata()) == [1, 2, 3, 4]
    assert lines["cdcl/extended (4/5)"].get_color() == colour("cdcl")  # wrong answer not solved
    assert "minisat22/minimal (5/5)" in lines
    ax = figures["9x9.png"].axes[0]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "instances solved"
    assert "time limit (10 s)" in lines and "all 5 instances" in lines
    # the legend sits outside the axes, so it covers no data
    legend = ax.get_legend()
    fig = figures["9x9.png"]
    fig.canvas.draw()
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1
    assert_readable(fig)


def test_large_cactus_curve_is_drawn_sampled(tmp_path, figures):
    from satdoku.report.plots import CACTUS_POINTS, cactus

    times = [(k * 7919 % 5000 + 1) / 1000 for k in range(5000)]  # 5,000 distinct, unsorted
    series = cactus("big", {"cdcl/extended": times}, tmp_path / "big.png", 5000)
    assert series["cdcl/extended"] == sorted(times)  # the series returned: every instance
    line = lines_by_label(figures["big.png"])["cdcl/extended (5000/5000)"]
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    assert len(xs) == CACTUS_POINTS and xs[0] == 1 and xs[-1] == 5000  # first and last kept
    assert xs == sorted(set(xs))  # x = rank, strictly increasing
    assert ys == [sorted(times)[x - 1] for x in xs]


def test_scatter_ours_against_each_reference(results, tmp_path, figures):
    names = build.scatter_plots(fx.files(results), fx.TIME_LIMIT, str(tmp_path / "s"))
    assert sorted(names) == ["cdcl_vs_cadical195.png", "cdcl_vs_minisat22.png",
                             "dpll_vs_cadical195.png", "dpll_vs_minisat22.png"]
    for n in names:
        assert_png(tmp_path / "s" / n)
    fig = figures["dpll_vs_minisat22.png"]
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    pts = {c.get_label(): c.get_offsets().tolist() for c in ax.collections}
    # minisat22 has two encodings but dpll only extended: pairs join on the same encoding
    assert sorted(pts) == ["9x9 (5)", "Futoshiki (3)"]
    nine = pts["9x9 (5)"]
    assert [0.01, 0.5] in nine
    assert [0.04, 15.0] in nine  # the dpll timeout sits on the border, beyond the limit
    assert "equal time" in lines_by_label(fig)
    assert ax.get_xlabel().startswith("minisat22: total seconds")
    assert ax.get_ylabel().startswith("dpll")
    face = ax.collections[0].get_facecolor()[0][:3]
    import matplotlib.colors as mc

    assert tuple(round(v, 3) for v in face) == tuple(round(v, 3) for v in mc.to_rgb(
        colour("dpll")))
    assert_readable(fig)
    # the legend lies under the axes, clear of the x label
    fig.canvas.draw()
    assert fig.legends[0].get_window_extent().y1 <= ax.xaxis.get_tightbbox().y0 + 1


def test_only_references_no_scatter_and_missing_solvers_do_not_crash(tmp_path, figures):
    refs = ("minisat22/extended", "cadical195/extended")
    results = fx.build(tmp_path, runs=refs)
    files = fx.files(results)  # dpll and cdcl configured, but no result files
    assert build.scatter_plots(files, fx.TIME_LIMIT, str(tmp_path / "s")) == []
    assert list((tmp_path / "s").iterdir()) == []
    assert build.cactus_plots(files, fx.TIME_LIMIT, str(tmp_path / "c")) == ["9x9", "Futoshiki"]
    assert set(lines_by_label(figures["9x9.png"])) >= {"minisat22/extended (5/5)",
                                                       "cadical195/extended (5/5)"}
    md, csv, html, pr = (str(tmp_path / f) for f in ("s.md", "s.csv", "s.html", "p.html"))
    n = build.summary(build.SummaryRequest(
        files, fx.TIME_LIMIT, md, csv, html, pr, linked_plots={"Cactus plots": str(tmp_path / "c")},
        pages_dir=str(tmp_path / "none")))
    assert n == 1  # the planted disagreement needs only the two references
    assert "![9x9](c/9x9.png)" in (tmp_path / "s.md").read_text()


def test_encoding_panels_make_room_for_wide_tick_labels(tmp_path, figures):
    """Counts of six digits (a user's large CNF set: 100,000-999,999 variables per instance)
    are labelled in full; the margins are measured from each column's axis, so no label is
    cut off at the left edge or under the panel beside it."""
    from satdoku.report.plots import encodings

    rows = [{"family": "cnf", "encoding": enc, "vars": v, "clauses": c, "bytes": b}
            for enc, v, c, b in (("direct", 400_000, 900_000, 9e6),
                                 ("support", 120_000, 350_000, 3e6))]
    encodings(rows, {("cnf", "direct"): {"minisat22": 0.5}}, tmp_path / "wide.png")
    assert_readable(figures["wide.png"])


def test_encoding_comparison(results, tmp_path, figures):
    sizes = []
    for enc, clauses in (("minimal", 8844), ("extended", 12003)):
        for name, fam, n, v in (("nine", "9x9", 5, 729), ("futo", "Futoshiki", 3, 125)):
            p = tmp_path / "Reports" / "cnf_sizes" / enc / f"{name}.tsv"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("id\tfamily\tencoding\tvars\tclauses\tbytes\n" + "".join(
                f"{i}\t{fam}\t{enc}\t{v}\t{clauses // (8 if fam == 'Futoshiki' else 1)}\t"
                f"{clauses * 12}\n" for i in range(1, n + 1)))
            sizes.append(str(p))
    prop = tmp_path / "Reports" / "propagation" / "nine" / "propagation_instances.tsv"
    prop.parent.mkdir(parents=True)
    prop.write_text("id\tline\tlayout\tencoding\tup\tup_open\tfl\tfl_open\tfl_failed\tsingles"
                    "\tsingles_open\tdetail\n" + "".join(
                        f"{i}\t{i}\tsudoku-9\t{enc}\t{up}\t\t{fl}\t\t0\topen\t3\t\n"
                        for i in range(1, 6) for enc, up, fl in (
                            ("extended", "solved" if i < 3 else "open", "solved" if i < 5
                             else "open"), ("minimal", "open", "-"))))
    out = tmp_path / "enc.png"
    rows = build.encoding_report(fx.files(results), sizes, str(tmp_path / "e.md"),
                                 str(tmp_path / "e.csv"), str(out), propagation=[str(prop)])
    assert rows == 4
    assert_png(out)
    fig = figures["enc.png"]
    assert len(fig.axes) == 8  # 2 families x (vars, clauses, KB, time)
    assert_readable(fig)
    clauses = [b.get_height() for b in fig.axes[1].patches]
    assert clauses == [8844, 12003]  # 9x9 first, encodings minimal -> extended
    tl = lines_by_label(fig, 3)
    assert tl["minisat22"].get_ydata().tolist() == [0.05, 0.03]  # median per encoding
    assert math.isnan(tl["dpll"].get_ydata()[0]) and tl["dpll"].get_ydata()[1] == 1.0
    assert tl["dpll"].get_color() == colour("dpll")
    md = (tmp_path / "e.md").read_text()
    assert "| 9x9 | nine | minimal | 5 | 729.0 | 8,844.0 |" in md and "![encodings compared]" in md
    table = {(r["family"], r["set"], r["encoding"]): r
             for r in csv.DictReader((tmp_path / "e.csv").open())}
    nine, futo = table["9x9", "nine", "extended"], table["Futoshiki", "futo", "extended"]
    assert (nine["up_solved"], nine["fl_solved"]) == ("2", "4")
    assert table["9x9", "nine", "minimal"]["fl_solved"] == ""  # FL not run there
    assert futo["up_solved"] == futo["fl_solved"] == ""  # futo was not analysed
    assert nine["zero_decisions_minisat22"] == "0" and "zero_decisions_cadical195" not in nine


def test_short_log_span_still_labelled(tmp_path, figures):
    """A time plot whose times span less than a decade still shows labelled ticks (minor ones,
    plain numbers), and a long legend widens the right margin instead of being cut off."""
    run = "a-solver-with-a-long-name-for-the-legend/extended"
    rows = [{"id": str(k), "status": "SAT", "total_seconds": str(0.5 + k / 20)}
            for k in range(1, 11)]
    time_per_instance("short", {run: rows}, tmp_path / "short.png", None)
    fig = figures["short.png"]
    assert_readable(fig)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels(minor=True) if t.get_text()]
    assert len(labels) >= 2


def test_report_figures_do_not_import_pyplot(results, tmp_path):
    """The report jobs draw on a Figure with the Agg canvas: pyplot (its backend machinery and
    global figure manager) is never imported."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from satdoku.report.plots import cactus, time_per_instance\n"
        "rows = [{'id': '1', 'status': 'SAT', 'total_seconds': '0.5'}]\n"
        f"time_per_instance('s', {{'dpll/extended': rows}}, {str(tmp_path / 't.png')!r}, 10)\n"
        f"cactus('f', {{'dpll/extended': [0.5]}}, {str(tmp_path / 'c.png')!r}, 1, 10)\n"
        "print('matplotlib.pyplot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False"]
    assert_png(tmp_path / "t.png", min_bytes=2000)
    assert_png(tmp_path / "c.png", 2000)


def test_zero_decisions_read_each_solvers_counter():
    """MiniSat and Glucose (python-sat) count 2 decisions for a model found with none made;
    our solvers and CaDiCaL count only decisions; an UNSAT at level 0 is 0 for every one."""
    import pandas as pd

    from satdoku.report.encodings_table import size_table

    sizes = pd.DataFrame({"set": "s", "id": ["1", "2", "3"], "family": "9x9",
                          "encoding": "extended", "vars": 729, "clauses": 11988, "bytes": 1})
    rows = [("minisat22", "1", "SAT", 2), ("minisat22", "2", "SAT", 3),
            ("minisat22", "3", "UNSAT", 0), ("glucose4", "1", "SAT", 2),
            ("cdcl", "1", "SAT", 0), ("cdcl", "2", "SAT", 2), ("cdcl", "3", "UNSAT", 0),
            ("dpll", "1", "SAT", 1), ("dpll", "2", "TIMEOUT", 0)]
    df = pd.DataFrame([{"set": "s", "family": "9x9", "encoding": "extended", "solver": solver,
                        "id": ident, "status": status, "solved": status in ("SAT", "UNSAT"),
                        "seconds": 0.01, "decisions": float(d)}
                       for solver, ident, status, d in rows])
    table, _, _ = size_table(sizes, df)
    (row,) = table.to_dict("records")
    assert row["zero_decisions_minisat22"] == pytest.approx(2 / 3)  # ids 1 (2 = none) and 3
    assert row["zero_decisions_glucose4"] == pytest.approx(1 / 3)
    assert row["zero_decisions_cdcl"] == pytest.approx(2 / 3)
    assert row["zero_decisions_dpll"] == 0  # a timeout decided nothing
