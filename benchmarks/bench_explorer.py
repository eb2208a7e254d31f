"""Load times of the results explorer on a 1,000,000-instance run, in headless Chromium.

1. Stage files of a 1M-instance run (cached in --work): the Kaggle-style puzzles of
   bench_pipeline.build_set, normalized into Instances shards by the real normalize stage; the
   answers of three runs are SYNTHESIZED (no solver runs: that is bench_pipeline's job): each
   puzzle's own solution (checked by the solve path's ``verify``) with seeded log-normal
   times, and a seeded share of TIMEOUTs per run. ``--results DIR --set S --runs ..``
   measures a real run instead.
2. ``build_explorer`` over it (seconds, peak memory).
3. Headless Chromium (Debian's package; satdoku.report.explorer.browser) opens the explorer
   from file:// --repeat times, each in a fresh browser, and times in the page
   (performance.now()): opening it (navigation start -> overview drawn: the < 2 s target), the
   set's instance list, a status filter, sorting by one run's time and by the ratio of two, one
   instance's view, and the plots page (plotly, cactus curves, a scatter sampled to 40,000
   points).

Results: a table on stdout and benchmarks/results/explorer.{md,csv}.

Usage: python benchmarks/bench_explorer.py [--n 1000000] [--shard-size 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import write_csv  # noqa: E402

#: synthesized runs: name -> (median seconds, log-normal sigma, share of TIMEOUTs)
RUNS = {"minisat22/extended": (0.006, 0.6, 0.001), "cadical195/extended": (0.004, 0.7, 0.002),
        "cdcl/extended": (0.003, 0.5, 0.004)}
TIME_LIMIT = 10.0


def synthesize(work: Path, n: int, shard_size: int, set_name: str = "bench") -> Path:
    """A results directory with Instances of n real puzzles and synthesized answers of RUNS,
    verified by the solve path's ``verify`` and written by the stage-file writers (per-shard
    and gathered SatSols / SatOutputTimes)."""
    from bench_pipeline import build_set

    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.solve import verify
    from satdoku.solvers.result import Result
    from satdoku.stagefiles import paths as sp
    from satdoku.stagefiles.instances import read_instances
    from satdoku.stagefiles.tsv import SOLS_COLUMNS, TIMES_COLUMNS, gather, times_row, write_tsv

    results = work / "results"
    stamp = results / f".synthesized-{n}-{shard_size}"
    if stamp.exists():
        return results
    src = build_set(n, work / f"kaggle_{n}.csv")
    shards: list[Path] = []
    while True:  # Instances shards by the real normalize stage, until the input runs out
        path = sp.stage_path(sp.INSTANCES, results, set=set_name, shard=sp.shard_name(len(shards)))
        path.parent.mkdir(parents=True, exist_ok=True)
        if normalize(src, path, len(shards), shard_size)["instances"] == 0:
            path.unlink()
            break
        shards.append(path)
    t0 = time.perf_counter()
    for run, (median, sigma, timeouts) in RUNS.items():
        rng = random.Random(run)
        solver, _, encoding = run.partition("/")
        where = {"set": set_name, "solver": solver, "encoding": encoding}
        for inst in shards:
            sols, times = [], []
            for rec in read_instances(inst):
                late = rec.puzzle is not None and rng.random() < timeouts
                secs = TIME_LIMIT + 0.01 if late else median * rng.lognormvariate(0, sigma)
                status = "INVALID" if rec.puzzle is None else "TIMEOUT" if late else "SAT"
                res = Result(status, board=None if late else rec.solution, solve_seconds=secs * 0.8,
                             total_seconds=secs, stats={"decisions": rng.randint(10, 200),
                                                        "conflicts": rng.randint(0, 50)})
                sols.append(verify(rec, encoding, res).sols_row(rec))
                times.append(times_row(rec.id, rec.line, res, 1.0))
            for template, rows, cols in ((sp.SOLS_SHARD, sols, SOLS_COLUMNS),
                                         (sp.TIMES_SHARD, times, TIMES_COLUMNS)):
                p = sp.stage_path(template, results, shard=inst.stem, **where)
                p.parent.mkdir(parents=True, exist_ok=True)
                write_tsv(rows, p, cols)
        for template, gathered, kind in ((sp.SOLS_SHARD, sp.SOLS, "sols"),
                                         (sp.TIMES_SHARD, sp.TIMES, "times")):
            parts = [sp.stage_path(template, results, shard=i.stem, **where) for i in shards]
            gather(parts, sp.stage_path(gathered, results, **where), kind)
        print(f"  synthesized {run}: {time.perf_counter() - t0:.0f} s", flush=True)
    stamp.write_text("synthesized answers, see benchmarks/bench_explorer.py\n")
    return results


#: (label, view) measured after the explorer is open; times are in-page milliseconds
VIEWS = [
    ("instance list (page 1)", "#/set/{set}"),
    ("filter: TIMEOUT of run 2", "#/set/{set}?st{r2}=T"),
    ("sort by time of run 1", "#/set/{set}?sort=t{r1}&desc=1"),
    ("sort by ratio run 1 / run 2", "#/set/{set}?sort=r{r1}_{r2}"),
    ("one instance", "#/i/{set}/{last}"),
    ("plots page (plotly, cactus, scatter of <= 40,000 points)", "#/plots?set={set}"),
]


def measure(index: Path, set_name: str, n: int, runs: list[int], repeat: int) -> dict[str, list]:
    """In-page milliseconds of each view, ``repeat`` fresh browsers."""
    from satdoku.report.explorer.browser import browser_page, wait_ready

    out: dict[str, list[float]] = {"open explorer (overview drawn)": []}
    fmt = {"set": set_name, "r1": runs[0], "r2": runs[min(1, len(runs) - 1)], "last": n}
    for _ in range(repeat):
        with browser_page() as page:
            page.goto(index.resolve().as_uri() + "#/")
            wait_ready(page, "#/", 120_000)
            out["open explorer (overview drawn)"].append(page.evaluate("performance.now()"))
            for label, view in VIEWS:
                h = view.format(**fmt)
                t0 = page.evaluate("h => { const t = performance.now(); location.hash = h; "
                                   "return t; }", h)
                wait_ready(page, h, 300_000)
                out.setdefault(label, []).append(page.evaluate("performance.now()") - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--shard-size", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default=str(ROOT / "results" / "bench_explorer"))
    ap.add_argument("--results", help="a real results directory instead of the synthesized one")
    ap.add_argument("--set", default="bench", help="with --results: the set to measure")
    ap.add_argument("--runs", nargs="*", help="with --results: SOLVER/ENCODING runs")
    args = ap.parse_args()
    from satdoku.report.explorer.site import build_explorer

    work = Path(args.work)
    if args.results:
        results, runs = Path(args.results), args.runs or []
    else:
        print(f"stage files of {args.n:,} instances in {work} (answers synthesized)")
        results, runs = synthesize(work, args.n, args.shard_size), list(RUNS)
    out = work / "explorer"
    t0 = time.perf_counter()
    ov = build_explorer(results, [args.set], runs, TIME_LIMIT, out)
    build_s = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size_mb = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 1e6
    n = ov["sets"][0]["n"]
    print(f"build_explorer: {build_s:.1f} s, peak RSS {peak_mb:.0f} MB, {size_mb:.0f} MB written "
          f"({n:,} instances, {len(runs)} runs)")
    times = measure(out / "index.html", args.set, n, ov["sets"][0]["runs"], args.repeat)
    rows = [{"view": k, "median_ms": statistics.median(v), "min_ms": min(v), "max_ms": max(v),
             "repeats": len(v)} for k, v in times.items()]
    print(f"\n{'view':58} {'median ms':>10} {'min':>8} {'max':>8}")
    for r in rows:
        print(f"{r['view']:58} {r['median_ms']:>10.0f} {r['min_ms']:>8.0f} {r['max_ms']:>8.0f}")
    res = ROOT / "benchmarks" / "results"
    res.mkdir(parents=True, exist_ok=True)
    write_csv(res / "explorer.csv", rows)
    meta = {"instances": n, "runs": len(runs), "build_s": round(build_s, 1),
            "peak_rss_mb": round(peak_mb), "explorer_mb": round(size_mb)}
    lines = [f"Explorer load times, {n:,} instances x {len(runs)} runs ({json.dumps(meta)}); "
             "in-page ms, headless Chromium", "", "| view | median ms | min | max |",
             "|---|---:|---:|---:|"]
    lines += [f"| {r['view']} | {r['median_ms']:.0f} | {r['min_ms']:.0f} | {r['max_ms']:.0f} |"
              for r in rows]
    (res / "explorer.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
