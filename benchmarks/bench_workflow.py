"""Solver times as the workflow records them: median ``total_seconds`` per set and solver.

Issue 12 goal 1 asks our solver to be at MiniSat's speed *in the workflow*: this runs the real
Snakefile (``snakemake --cores 2``) on hard 9x9 sets and on 16x16 / 25x25 puzzles with
``minisat22``, ``cdcl``, ``minisat22-inc`` and ``cdcl-inc`` (rules loaded once per shard, givens
as assumptions), reads every solver's SatOutputTimes, and prints per set the median and p90 of
``total_seconds`` (the instance's time as the solve stage measures it: solver construction,
clause loading and search; the shard's bundle parsing is shared and not included), the number
solved and verified, and the ratios cdcl / minisat22 and cdcl-inc / minisat22-inc.

Sets (in-repo, data/public): forum_hardest_1106 (375), magictour top1465, a 2,000-puzzle
17-clue sample, the vu_kr 16x16 file (100) and the bnguyen 25x25 puzzle plus generated 25x25
puzzles (seeded). ``--data DIR`` reads the same file names from another copy of the sets.

Usage: python benchmarks/bench_workflow.py [--sets a,b] [--work DIR] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETS = {
    "forum_hardest": "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt",
    "top1465": "tdoku_benchmarks/puzzles3_magictour_top1465.txt",
    "clue17_2000": "tdoku_benchmarks/puzzles2_17_clue_2000.txt",
    "vu_16x16": "vu_kr_sudoku/16x16.txt",
    "grids_25x25": "generated:25x25",
}
SOLVERS = {
    "minisat22": {},
    "cdcl": {},
    "minisat22-inc": {"solver": "minisat22", "incremental": True},
    "cdcl-inc": {"solver": "cdcl", "incremental": True},
}
PAIRS = (("cdcl", "minisat22"), ("cdcl-inc", "minisat22-inc"))


def _generated_25(path: Path, data: Path, count: int = 8) -> Path:
    """The bnguyen 25x25 puzzle plus seeded 25x25 puzzles (55% holes) as one grid file."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_solvers import generated_puzzles

    from satdoku.formats import read_records

    puzzles = [r.puzzle for r in read_records(data / "large_grids_bnguyen" / "25x25.txt")]
    puzzles += generated_puzzles(5, count, 0.55, seed=5)
    with open(path, "w") as fh:
        for p in puzzles:
            n = p.size
            fh.write("\n".join(" ".join(map(str, p.givens[r * n:(r + 1) * n]))
                               for r in range(n)) + "\n\n")
    return path


def run(work: Path, sets: dict[str, str], data: Path, time_limit: float) -> float:
    """Run the workflow in ``work``; returns its wall seconds."""
    work.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, src in sets.items():
        paths[name] = str(_generated_25(work / "grids_25x25.txt", data) if src.startswith(
            "generated:") else data / src)
    config = {"sets": paths, "encodings": ["extended"], "solvers": SOLVERS,
              "time_limit": time_limit, "shard_size": 10000}
    (work / "config.yaml").write_text(json.dumps(config))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile",
           str(work / "config.yaml"), "--cores", "2", "--quiet", "all"]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=work, check=True)
    return time.perf_counter() - t0


def medians(work: Path, sets: list[str]) -> list[dict]:
    rows = []
    for name in sets:
        for solver in SOLVERS:
            times = work / "results" / "SatOutputTimes" / solver / "extended" / f"{name}.tsv"
            sols = work / "results" / "SatSols" / solver / "extended" / f"{name}.tsv"
            with times.open() as fh:
                t = list(csv.DictReader(fh, delimiter="\t"))
            with sols.open() as fh:
                s = list(csv.DictReader(fh, delimiter="\t"))
            secs = sorted(float(r["total_seconds"]) for r in t if r["status"] in ("SAT", "UNSAT"))
            rows.append({
                "set": name, "solver": solver, "instances": len(t),
                "solved": len(secs), "verified": sum(r["verified"] in ("yes", "proof") for r in s),
                "median_ms": 1000 * statistics.median(secs) if secs else float("nan"),
                "p90_ms": 1000 * secs[int(0.9 * (len(secs) - 1))] if secs else float("nan"),
            })
    return rows


def table(rows: list[dict], load: float, wall: float) -> str:
    by = {(r["set"], r["solver"]): r for r in rows}
    out = [f"Workflow run: {wall:.0f} s wall on 2 cores, 1-minute load average at the end "
           f"{load:.1f}. Median / p90 of `total_seconds` per instance (ms).", "",
           "| set | solver | solved / instances | verified | median ms | p90 ms | ratio |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = ""
        for ours, ref in PAIRS:
            if r["solver"] == ours:
                base = by[(r["set"], ref)]["median_ms"]
                ratio = f"{r['median_ms'] / base:.2f} vs {ref}"
        out.append(f"| {r['set']} | {r['solver']} | {r['solved']} / {r['instances']} | "
                   f"{r['verified']} | {r['median_ms']:.2f} | {r['p90_ms']:.2f} | {ratio} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated set names")
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "public")
    ap.add_argument("--work", type=Path, default=ROOT / "results" / "bench_workflow")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    args = ap.parse_args(argv)
    chosen = {k: SETS[k] for k in args.sets.split(",") if k}
    wall = run(args.work, chosen, args.data, args.time_limit)
    text = table(medians(args.work, list(chosen)), os.getloadavg()[0], wall)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
