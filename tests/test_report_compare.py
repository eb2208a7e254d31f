"""Virtual best solvers, paired comparisons and per-set limits, recomputed independently from the
fixture's fixed times (and scipy for the Wilcoxon test)."""

from __future__ import annotations

import math
import statistics

import pytest
import report_fixture as fx

from satdoku.paired_stats import bootstrap_median_ci
from satdoku.report.collect import TimeLimits, load_files
from satdoku.report.pairs import pair_line, pairs, vbs_frame, with_vbs
from satdoku.report.solver_tables import empty_sets, headers, solver_table


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return fx.build(tmp_path_factory.mktemp("fx"))


@pytest.fixture(scope="module")
def df(results):
    return load_files(fx.files(results))


def _solved(set_name: str, run: str) -> dict[str, float]:
    """Seconds of the instances a run solved, straight from the fixture's table."""
    return {str(i): t for i, (st, t, _) in enumerate(fx.TIMES[(set_name, run)], start=1)
            if st in ("SAT", "UNSAT") and (set_name, run, str(i)) not in fx.FAILED}


def test_vbs_is_the_best_run_per_instance(df):
    v = vbs_frame(df)
    for name in fx.SETS:
        runs = [r for s, r in fx.TIMES if s == name]
        ids = {str(i) for i in range(1, len(fx.TIMES[(name, runs[0])]) + 1)}
        best = {i: min(_solved(name, r)[i] for r in runs if i in _solved(name, r))
                for i in ids}
        rows = v[(v["set"] == name) & (v["solver"] == "VBS")].set_index("id")
        assert rows["encoding"].unique().tolist() == ["*"]
        for i, t in best.items():
            assert rows.loc[i, "seconds"] == pytest.approx(t) and rows.loc[i, "solved"]
    # the INVALID line stays INVALID: no run could solve it
    assert v[(v["set"] == "nine") & (v["id"] == "6")]["status"].unique().tolist() == ["INVALID"]


def test_vbs_reference_uses_reference_runs_only(df):
    v = vbs_frame(df)
    ref = v[(v["set"] == "nine") & (v["solver"] == "VBS-reference")].set_index("id")
    refs = ("minisat22/extended", "cadical195/extended", "minisat22/minimal")
    for i in ("1", "2", "3", "4", "5"):
        want = min(_solved("nine", r)[i] for r in refs)
        assert ref.loc[i, "seconds"] == pytest.approx(want)
        assert ref.loc[i, "detail"].startswith("best: ")


def test_vbs_times_out_only_when_every_run_failed(df):
    """Instance 3 of nine: dpll timed out, the others solved it: the VBS solved it. Keep only
    dpll's timeout and cdcl's failed answer on an instance: the VBS times out."""
    nine3 = df[(df["set"] == "nine") & (df["id"] == "3")]
    v = vbs_frame(nine3)
    assert v.loc[v["solver"] == "VBS", "status"].tolist() == ["SAT"]
    only_bad = df[(df["set"] == "nine") & (
        ((df["run"] == "dpll/extended") & (df["id"] == "3"))
        | ((df["run"] == "cdcl/extended") & (df["id"] == "2")))]
    out = vbs_frame(only_bad).set_index("id")
    assert out["solver"].unique().tolist() == ["VBS"]  # no reference run: no VBS-reference
    assert out.loc["3", "status"] == "TIMEOUT" and not out.loc["3", "solved"]
    assert out.loc["2", "status"] == "TIMEOUT"  # a failed verification is no answer


def test_vbs_rows_in_the_solver_table(df):
    table = solver_table(with_vbs(df), fx.TIME_LIMIT)
    vbs = table[(table["set"] == "nine") & (table["solver"] == "VBS")].iloc[0]
    best = [min(_solved("nine", r)[i] for r in fx.RUNS if i in _solved("nine", r))
            for i in ("1", "2", "3", "4", "5")]
    assert vbs["solved"] == 5 and vbs["INVALID"] == 1 and vbs["TIMEOUT"] == 0
    assert vbs["median_s"] == pytest.approx(statistics.median(best))
    assert vbs["par2_s"] == pytest.approx(sum(best) / 5)


def test_pairs_against_an_independent_computation(df):
    from scipy.stats import wilcoxon

    table = pairs(df, fx.TIME_LIMIT)
    runs = [r for s, r in fx.TIMES if s == "nine"]
    assert len(table[table["set"] == "nine"]) == len(runs) * (len(runs) - 1) // 2
    row = table[(table["set"] == "nine") & (table["run_a"] == "minisat22/extended")
                & (table["run_b"] == "dpll/extended")].iloc[0]  # reference first
    a, b = _solved("nine", "minisat22/extended"), _solved("nine", "dpll/extended")
    both = sorted(a.keys() & b.keys())
    ta, tb = [a[i] for i in both], [b[i] for i in both]
    assert row["n"] == len(both) == 4
    assert row["median_ratio"] == pytest.approx(statistics.median(
        [y / x for x, y in zip(ta, tb, strict=True)]))
    assert row["wilcoxon_p"] == pytest.approx(wilcoxon(ta, tb).pvalue)
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (4, 0, 0)
    assert (row["only_a"], row["only_b"]) == (1, 0)
    assert row["ci_low"] <= row["median_ratio"] <= row["ci_high"]
    par2_a = sum(a.values()) / 5
    par2_b = (sum(b.values()) + 2 * fx.TIME_LIMIT) / 5
    assert row["par2_diff"] == pytest.approx(par2_b - par2_a)
    line = pair_line(row)
    assert line.startswith("dpll/extended vs minisat22/extended: ") and "4 pairs" in line


def test_bootstrap_interval_is_seeded_and_brackets_the_median():
    x = [0.5, 0.8, 1.0, 1.1, 1.3, 2.0, 0.9, 1.05]
    assert bootstrap_median_ci(x) == bootstrap_median_ci(x)
    lo, hi = bootstrap_median_ci(x)
    assert min(x) <= lo <= statistics.median(x) <= hi <= max(x)
    assert all(math.isnan(v) for v in bootstrap_median_ci([]))


def test_each_set_its_own_limit_in_par2(df):
    limits = TimeLimits(10.0, {"nine": 3.0})
    table = solver_table(df, limits)
    dpll = table[(table["set"] == "nine") & (table["solver"] == "dpll")].iloc[0]
    solved = _solved("nine", "dpll/extended")
    assert dpll["par2_s"] == pytest.approx((sum(solved.values()) + 2 * 3.0) / 5)
    assert dpll["time_limit"] == 3.0
    futo = table[(table["set"] == "futo") & (table["solver"] == "dpll")].iloc[0]
    assert futo["time_limit"] == 10.0
    with pytest.raises(ValueError, match="SET=SECONDS"):
        TimeLimits.parse(10.0, ["nine=0"])
    assert TimeLimits.parse(None, ["a=b=2"]).of("a=b") == 2.0
    # limit lines of a figure: each limit with its sets, in the sets' order, each set once
    assert limits.by_limit(["futo", "nine", "futo", "x"]) == {10.0: ["futo", "x"], 3.0: ["nine"]}
    assert TimeLimits(None, {"nine": 3.0}).by_limit(["futo", "nine"]) == {3.0: ["nine"]}


def test_empty_set_is_a_row_with_zero_instances(df):
    table = solver_table(df, fx.TIME_LIMIT, sets=[*fx.SETS, "empty"])
    row = table[table["set"] == "empty"].iloc[0]
    assert row["instances"] == 0 and row["solver"] == "-"
    assert empty_sets(table) == ["empty"]


def test_headers_name_the_time_column(results):
    search = solver_table(load_files(fx.files(results), "solve_seconds"), fx.TIME_LIMIT,
                          time_column="solve_seconds")
    assert "median s (search)" in headers(search) and "PAR-2 s (search)" in headers(search)
    with pytest.raises(ValueError, match="time column"):
        load_files(fx.files(results), "wall")


def test_repeated_solves_record_the_median_and_spread(tmp_path):
    """repeats: 3 solves each instance three times through the one solve path; the times file
    has the median and min/max, the table the spread (median of each instance's min / max)."""
    from conftest import TINY

    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.pipeline.stage_solve import ShardFiles, SolveSettings, solve_shard
    from satdoku.solvers.base import RunLimits
    from satdoku.stagefiles.tsv import read_tsv

    shard = tmp_path / "results/Instances/t4/00000.jsonl"
    shard.parent.mkdir(parents=True)
    normalize(TINY / "sudokusolver_4x4.txt", shard, 0, 100)
    times = tmp_path / "results/SatOutputTimes/csp-mac-mrv/direct/t4.tsv"
    sols = tmp_path / "results/SatSols/csp-mac-mrv/direct/t4.tsv"
    for p in (times, sols):
        p.parent.mkdir(parents=True)
    counts = solve_shard(ShardFiles(shard, times, sols),
                         SolveSettings("csp-mac-mrv", "direct", limits=RunLimits(time_limit=5),
                                       repeats=3))
    assert counts == {"SAT": 6, "UNSAT": 1}
    rows = read_tsv(times)
    for r in rows:
        assert r["repeats"] == "3"
        lo, mid, hi = (float(r[k]) for k in ("total_seconds_min", "total_seconds",
                                              "total_seconds_max"))
        assert lo <= mid <= hi
    df = load_files([shard, times, sols])
    table = solver_table(df, 5.0)
    row = table.iloc[0]
    solved = [r for r in rows if r["status"] in ("SAT", "UNSAT")]
    assert row["median_min_s"] == pytest.approx(
        statistics.median(float(r["total_seconds_min"]) for r in solved))
    assert row["median_min_s"] <= row["median_s"] <= row["median_max_s"]
    assert "median of max s (total)" in headers(table)


def test_times_row_of_repeats_is_the_median_and_names_a_disagreement():
    from satdoku.solvers.result import Result
    from satdoku.stagefiles.tsv import times_row

    runs = [Result("SAT", total_seconds=t, solve_seconds=t / 2) for t in (0.3, 0.1, 0.2)]
    row = times_row("1", 1, runs[0], 0.0, "", runs)
    assert (row["total_seconds"], row["total_seconds_min"], row["total_seconds_max"]) == (
        "0.200000", "0.100000", "0.300000")
    assert row["solve_seconds"] == "0.100000" and row["repeats"] == 3
    mixed = [Result("SAT", total_seconds=0.1), Result("TIMEOUT", total_seconds=5.0)]
    assert "repeats disagree: SAT, TIMEOUT" in times_row("1", 1, mixed[0], 0.0, "", mixed)[
        "message"]
    assert "repeats" not in times_row("1", 1, runs[0], 0.0)  # one run: no spread columns


def test_one_table_of_statistic_columns(df, results, tmp_path):
    """Every solver-table column is a STATS record; the explorer's overview takes headers and
    formats from the same records (its JS writes each cell by that format)."""
    from satdoku.report.explorer.site import build_explorer
    from satdoku.report.solver_tables import BY_KEY, formats

    table = solver_table(with_vbs(df), fx.TIME_LIMIT)
    assert all(c in BY_KEY for c in table.columns)
    ov = build_explorer(results, fx.SETS, fx.RUNS, fx.TIME_LIMIT, tmp_path / "ex")
    assert ov["table"]["columns"] == list(table.columns)
    assert ov["table"]["headers"] == headers(table)
    assert ov["table"]["formats"] == formats(table)
    assert dict(zip(table.columns, formats(table), strict=True))["par2_s"] == "seconds"


def test_set_table_measures_the_chosen_time(results, tmp_path):
    """The per-set table (results/Reports/S_table.*) uses report_time too: search seconds."""
    from satdoku.report.report_stages import write_set_table

    df = load_files(fx.files(results), "solve_seconds")
    nine = df[df["set"] == "nine"]
    write_set_table("nine", nine, fx.TIME_LIMIT, str(tmp_path / "t.md"), str(tmp_path / "t.csv"),
                    time_column="solve_seconds")
    md = (tmp_path / "t.md").read_text()
    assert "median s (search)" in md and "median s (total)" not in md
    total = load_files(fx.files(results))
    assert not nine["seconds"].equals(total[total["set"] == "nine"]["seconds"])


def test_summary_without_rows_writes_the_pairs_header(tmp_path):
    """No run on any set: pairs.csv is still written, its header alone."""
    from satdoku.report.pairs import PAIR_COLUMNS
    from satdoku.report.report_stages import SummaryRequest, summary

    out = tmp_path / "pairs.csv"
    pages = (str(tmp_path / f) for f in ("s.md", "s.csv", "s.html", "p.html"))
    assert summary(SummaryRequest([], 10.0, *pages, pages_dir=str(tmp_path),
                                  pairs_csv=str(out))) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [",".join(PAIR_COLUMNS)]
