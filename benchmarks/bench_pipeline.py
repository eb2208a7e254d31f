"""Throughput of the SAT branch on a big Kaggle-style set (issue: scale and cluster).

1. Builds an N-puzzle set (default 1,000,000) from data/public/kaggle_style_sample by seeded
   Sudoku symmetries (digit relabelling, row/column swaps inside bands/stacks, band/stack swaps,
   transposition), each with its transformed solution column as an extra check.
2. Times one shard stage by stage in this process (normalize, encode, solve, decode+verify) for
   each solver path: a reference solver per instance, the same solver incremental (rules loaded
   once per shard, givens as assumptions; labelled as such), and our `cdcl` if registered.
3. Optionally (--workflow) runs the whole set through Snakemake on the machine's cores and
   reports puzzles/s end to end, the DAG build time (`snakemake -n`), and bytes per instance in
   each stage directory.

Usage: python benchmarks/bench_pipeline.py [--n 1000000] [--shard-size 10000] [--workflow]
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data/public/kaggle_style_sample/sudoku_puzzle_solution_sample.csv"


def _perm_rows(rng: random.Random) -> list[int]:
    bands = rng.sample(range(3), 3)
    return [b * 3 + r for b in bands for r in rng.sample(range(3), 3)]


def transform(puzzle: str, solution: str, rng: random.Random) -> tuple[str, str]:
    """The same random Sudoku symmetry applied to a puzzle and its solution."""
    digits = rng.sample("123456789", 9)
    relabel = {str(i + 1): d for i, d in enumerate(digits)}
    relabel["0"] = "0"
    rows, cols, flip = _perm_rows(rng), _perm_rows(rng), rng.random() < 0.5

    def apply(board: str) -> str:
        out = []
        for r in range(9):
            for c in range(9):
                rr, cc = rows[r], cols[c]
                if flip:
                    rr, cc = cc, rr
                out.append(relabel[board[rr * 9 + cc]])
        return "".join(out)

    return apply(puzzle), apply(solution)


def build_set(n: int, out: Path, seed: int = 1) -> Path:
    """Write an n-puzzle CSV (header puzzle,solution) derived from the public sample."""
    if out.exists() and sum(1 for _ in out.open()) == n + 1:
        return out
    with SAMPLE.open() as fh:
        base = [(r["puzzle"], r["solution"]) for r in csv.DictReader(fh)]
    rng = random.Random(seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        fh.write("puzzle,solution\n")
        for i in range(n):
            p, s = base[i % len(base)]
            tp, ts = transform(p, s, rng)
            fh.write(f"{tp},{ts}\n")
    return out


def time_stages(src: Path, shard_size: int, solvers: list[tuple[str, dict]],
                work: Path) -> list[dict]:
    """Stage-by-stage seconds for shard 0 of the set, per solver path (the solve stage decodes
    and verifies every answer in the same pass)."""
    from satdoku.pipeline.encode import encode_shard
    from satdoku.pipeline.instances import normalize
    from satdoku.pipeline.solve import solve_shard

    work.mkdir(parents=True, exist_ok=True)
    inst, bundle = work / "i.jsonl", work / "b.cnfs"
    t0 = time.perf_counter()
    n = normalize(src, inst, 0, shard_size)["instances"]
    t1 = time.perf_counter()
    encode_shard(inst, bundle, "bench", "extended")
    t2 = time.perf_counter()
    rows = []
    for name, variant in solvers:
        out, times, sols = work / f"{name}.out", work / f"{name}.tsv", work / f"{name}.sols"
        t3 = time.perf_counter()
        counts = solve_shard(inst, name, "extended", times, sols, bundle=bundle, output=out,
                             variants={name: variant}, time_limit=10.0)
        t4 = time.perf_counter()
        total = (t1 - t0) + (t2 - t1) + (t4 - t3)
        rows.append({
            "path": name, "puzzles": n, "normalize_s": t1 - t0, "encode_s": t2 - t1,
            "solve_verify_s": t4 - t3, "total_s": total, "puzzles_per_s": n / total,
            "statuses": counts,
        })
    return rows


def bytes_per_instance(results: Path, n: int) -> dict[str, float]:
    out = {}
    for stage in ("Instances", "SatInput", "SatOutput", "SatOutputTimes", "SatSols"):
        d = results / stage
        if d.exists():
            total = sum(f.stat().st_blocks * 512 for f in d.rglob("*") if f.is_file())
            out[stage] = total / n
    return out


def run_workflow(src: Path, n: int, shard_size: int, solver: str, variant: dict,
                 work: Path) -> dict:
    """The whole set through Snakemake: DAG build time, wall time, bytes per instance."""
    import json

    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "config.yaml"
    cfg.write_text(json.dumps({
        "sets": {"bench": str(src)}, "encodings": ["extended"],
        "solvers": {solver: variant}, "time_limit": 10, "shard_size": shard_size,
    }))
    base = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile",
            str(cfg), "--cores", str(os.cpu_count() or 1), "--quiet", "all"]
    t0 = time.perf_counter()
    subprocess.run([*base, "-n"], cwd=work, check=True, capture_output=True)
    dag = time.perf_counter() - t0
    t1 = time.perf_counter()
    subprocess.run(base, cwd=work, check=True)
    wall = time.perf_counter() - t1
    return {"dag_seconds": dag, "wall_seconds": wall, "puzzles_per_s": n / wall,
            "bytes_per_instance": bytes_per_instance(work / "results", n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--shard-size", type=int, default=10_000)
    ap.add_argument("--work", default=str(ROOT / "results" / "bench_pipeline"))
    ap.add_argument("--workflow", action="store_true", help="also run the set through Snakemake")
    args = ap.parse_args()
    work = Path(args.work)
    src = build_set(args.n, work / f"kaggle_{args.n}.csv")
    print(f"set: {src} ({args.n} puzzles)")
    from satdoku.solvers.registry import make_solver

    paths = [("minisat22", {}), ("minisat22-inc", {"solver": "minisat22", "incremental": True})]
    try:
        make_solver("cdcl")
        paths.append(("cdcl", {}))
    except (AttributeError, ImportError) as exc:
        print(f"(our cdcl is not available here: {exc})")
    print(f"\nstage by stage, shard 0 ({min(args.n, args.shard_size)} puzzles), one core:")
    print(f"{'path':16} {'normalize':>10} {'encode':>8} {'solve+verify':>13} "
          f"{'total':>8} {'puzzles/s':>10}")
    for r in time_stages(src, args.shard_size, paths, work / "stages"):
        print(f"{r['path']:16} {r['normalize_s']:>9.2f}s {r['encode_s']:>7.2f}s "
              f"{r['solve_verify_s']:>12.2f}s {r['total_s']:>7.2f}s "
              f"{r['puzzles_per_s']:>10.0f}   {r['statuses']}")
    if args.workflow:
        res = run_workflow(src, args.n, args.shard_size, "minisat22-inc",
                           {"solver": "minisat22", "incremental": True}, work / "wf")
        print(f"\nworkflow ({os.cpu_count()} cores): DAG {res['dag_seconds']:.1f} s, "
              f"wall {res['wall_seconds']:.0f} s, {res['puzzles_per_s']:.0f} puzzles/s")
        for stage, b in res["bytes_per_instance"].items():
            print(f"  {stage:16} {b:8.0f} bytes/instance on disk")


if __name__ == "__main__":
    main()
