"""How the reports scale with the number of instances: CPU per instance of every report job.

For each size N (default 10,000, 40,000 and 160,000 instances): a results directory of N
Kaggle-style puzzles with three runs' answers SYNTHESIZED (``bench_explorer.synthesize``: the
real normalize stage, seeded answers checked by the solve path's ``verify``, written by the
stage-file writers; no solver runs), the real encode stage for the SatInput bundles, then each
report job as the workflow runs it, in its own process: the run record (manifest, Parquet store,
wide CSV), the summary, the explorer, the set's report, its check and the CNF sizes. Each job's
CPU seconds are its process's (``resource.getrusage(RUSAGE_CHILDREN)``: interpreter start-up
and imports included), so a job's per-instance cost falls as N grows while its fixed cost is
spread, and stays flat when its work is linear. ``growth`` is the per-instance CPU at the
largest N over that at the smallest: at most 1 means no job scales worse than linearly.

Results: a table on stdout and benchmarks/results/reports_scaling.csv.

Usage: python benchmarks/bench_reports.py [--sizes 10000 40000 160000] [--shard-size 25000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import write_csv  # noqa: E402
from bench_explorer import RUNS, TIME_LIMIT, synthesize  # noqa: E402

SET = "bench"


def _encode(results: Path) -> list[Path]:
    """The SatInput bundles of every Instances shard (the real encode stage), made once."""
    from satdoku.pipeline.encode import encode_shard
    from satdoku.stagefiles import paths as sp

    out = []
    for inst in sorted(results.glob(sp.INSTANCES.format(set=SET, shard="*"))):
        bundle = sp.stage_path(sp.SATINPUT, results, encoding="extended", set=SET,
                               shard=inst.stem)
        if not bundle.exists():
            bundle.parent.mkdir(parents=True, exist_ok=True)
            encode_shard(inst, bundle, SET, "extended")
        out.append(bundle)
    return out


def jobs(root: Path) -> list[tuple[str, list[str]]]:
    """Each report job's command line, as the workflow's rules write it."""
    from satdoku.stagefiles import paths as sp

    results = root / "results"
    shards = sorted(str(p) for p in results.glob(sp.INSTANCES.format(set=SET, shard="*")))
    sols = {r: str(sp.stage_path(sp.SOLS, results, set=SET, solver=r.split("/")[0],
                                 encoding=r.split("/")[1])) for r in RUNS}
    times = {r: str(sp.stage_path(sp.TIMES, results, set=SET, solver=r.split("/")[0],
                                  encoding=r.split("/")[1])) for r in RUNS}
    files = [*shards, *sols.values(), *times.values()]
    bundles = [str(b) for b in _encode(results)]
    sizes = str(sp.stage_path(sp.CNF_SIZES, results, encoding="extended", set=SET))
    rep, out = results / "Reports", root / "reports"
    config = json.dumps({"sets": {SET: "synthesized"}, "solvers": {r.split("/")[0]: {}
                                                                     for r in RUNS}})
    limits = ["--time-limit", str(TIME_LIMIT), "--set-time-limit", f"{SET}={TIME_LIMIT}",
              "--time-column", "total_seconds"]
    return [
        ("CNF sizes", ["report", "sizes", *bundles, "--encoding", "extended", "--out", sizes]),
        ("run record", ["pipeline", "record", *files, "--config", config, "--results",
                        str(results), "--manifest", str(results / sp.RUN_MANIFEST), "--wide",
                        str(out / "instances_wide.csv")]),
        ("set report", ["pipeline", "report", "--set", SET, "--instances", *shards, "--sols",
                        *(f"{r}={p}" for r, p in sols.items()), "--times",
                        *(f"{r}={p}" for r, p in times.items()), "--time-limit",
                        str(TIME_LIMIT), "--time-column", "total_seconds", "--txt",
                        str(rep / f"{SET}.txt"), "--png", str(rep / f"{SET}_time.png"),
                        "--skipped", "--table-md", str(rep / f"{SET}_table.md"), "--table-csv",
                        str(rep / f"{SET}_table.csv"), "--table-html",
                        str(rep / f"{SET}_table.html")]),
        ("set check", ["pipeline", "check", "--set", SET, "--sols",
                       *(f"{r}={p}" for r, p in sols.items()), "--out",
                       str(rep / f"{SET}.check")]),
        ("summary", ["report", "summary", *files, *limits, "--pairs", str(out / "pairs.csv"),
                     "--sizes", sizes, "--cactus-dir", str(out / "cactus"), "--scatter-dir",
                     str(out / "scatter"), "--encodings-md", str(out / "encodings.md"),
                     "--encodings-csv", str(out / "encodings.csv"), "--encodings-png",
                     str(out / "encodings.png"), "--md", str(out / "summary.md"), "--csv",
                     str(out / "summary.csv"), "--html", str(out / "summary.html"),
                     "--problems", str(out / "problems.html"), "--pages-dir", str(rep)]),
        ("explorer", ["report", "explorer", *files, *limits, "--pages-dir", str(rep), "--out",
                      str(out / "explorer")]),
    ]


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_jobs(root: Path) -> dict[str, float]:
    """CPU seconds of each report job (its own process), in the workflow's order."""
    (root / "reports").mkdir(exist_ok=True)
    out = {}
    satdoku = [sys.executable, "-m", "satdoku"]
    for label, args in jobs(root):
        c0 = _cpu()
        done = subprocess.run([*satdoku, *args], cwd=root, capture_output=True, text=True,
                              env={**os.environ, "SATDOKU_PROGRESS": "off"})
        if done.returncode:
            raise SystemExit(f"{label} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        out[label] = _cpu() - c0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000, 160_000])
    ap.add_argument("--shard-size", type=int, default=25_000)
    ap.add_argument("--work", default=str(ROOT / "results" / "bench_reports"))
    args = ap.parse_args()
    rows = []
    print(f"load {os.getloadavg()[0]:.2f}; CPU seconds of each report job, and per instance")
    for n in sorted(args.sizes):
        root = Path(args.work) / f"n{n}"
        t0 = time.perf_counter()
        synthesize(root, n, args.shard_size, SET)
        print(f"n={n}: stage files ready in {time.perf_counter() - t0:.0f} s", flush=True)
        for label, cpu in run_jobs(root).items():
            rows.append({"n": n, "job": label, "cpu_s": round(cpu, 3),
                         "us_per_instance": round(cpu / n * 1e6, 2)})
            print(f"  {label:12} {cpu:7.2f} s  {cpu / n * 1e6:7.1f} us/instance", flush=True)
    small, large = min(args.sizes), max(args.sizes)
    print(f"\ngrowth of the per-instance CPU from n={small} to n={large} (<= 1: linear or "
          "better)")
    for label in dict.fromkeys(r["job"] for r in rows):
        per = {r["n"]: r["us_per_instance"] for r in rows if r["job"] == label}
        growth = per[large] / per[small] if per[small] else float("nan")
        print(f"  {label:12} {growth:5.2f}")
        for r in rows:
            if r["job"] == label:
                r["growth"] = round(growth, 3)
    write_csv(ROOT / "benchmarks" / "results" / "reports_scaling.csv", rows)


if __name__ == "__main__":
    main()
