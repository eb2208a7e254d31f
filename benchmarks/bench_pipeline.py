"""Workflow overhead against the solver's own rate (issue 12, goal 4), measured in one run.

For each solver path (default ``minisat22-inc`` and ``cdcl-inc``), interleaved, ``--repeat``
times:

1. **raw rate**: the solver's own loop in this process over the same puzzles, no I/O: the
   extended rules loaded once, each puzzle's givens as assumptions, the model read back
   (MiniSat: python-sat ``Solver.solve(assumptions=...)`` + ``get_model()``; ours: the ``Cdcl``
   class of :mod:`satdoku.solvers.cdcl.driver` with the parameters ``cdcl-inc`` uses, whose
   ``solve(assumptions=...)`` returns the model). Puzzles/s of CPU and of wall time (the
   rate without reading the model is printed beside it).
2. **workflow**: ``snakemake --cores C`` on a config with one set (the N puzzles) and that one
   solver, in a fresh directory: wall time, puzzles/s per core, every answer checked as
   verified in the gathered SatSols, and CPU seconds per rule. Every job's log ends with the
   ``satdoku-rusage`` line of its process (``SATDOKU_RUSAGE=1``: interpreter start-up and imports
   included); Snakemake's own CPU is what all its children used minus the jobs. With
   ``PYTHONDONTWRITEBYTECODE`` set (as in some shells and harnesses), satdoku/ is first compiled
   to bytecode, as an installed package has it (``--source``: not), since otherwise every job
   compiles each module it imports at each start; ``--timeline``: each job's start and end.
3. **ratio** = workflow puzzles/s per core / raw puzzles/s (goal: >= 0.5), against the raw wall
   rate (the same machine load as the workflow) and the raw CPU rate (the stricter one).

The set: N puzzles made from ``data/public/kaggle_style_sample`` by seeded Sudoku symmetries
(digit relabelling, row/column swaps inside bands/stacks, band/stack swaps, transposition),
each with its transformed solution as an extra check. ``--stages`` also times one shard stage by
stage in this process (``--profile``: the top functions of each stage under cProfile).

Usage: python benchmarks/bench_pipeline.py [--n 50000] [--shard-size auto|N] [--repeat 3]
       [--solvers minisat22-inc,cdcl-inc] [--cores 2] [--set-options JSON]
       [--stages [--profile]] [--timeline] [--source] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data/public/kaggle_style_sample/sudoku_puzzle_solution_sample.csv"
PATHS: dict[str, dict[str, Any]] = {
    "minisat22-inc": {"solver": "minisat22", "incremental": True},
    "cdcl-inc": {"solver": "cdcl", "incremental": True},
    "minisat22": {},
    "cdcl": {},
}
RUSAGE = re.compile(r"^satdoku-rusage: (.*?) cpu ([0-9.]+) s", re.M)


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


# --- 1. the solver's own loop ------------------------------------------------------------------
def givens_as_assumptions(src: Path) -> list[list[int]]:
    """Each puzzle's givens as direct-encoding literals v(cell, d) = cell * 9 + d."""
    with src.open() as fh:
        rows = list(csv.DictReader(fh))
    return [[c * 9 + int(ch) for c, ch in enumerate(r["puzzle"]) if ch not in "0."]
            for r in rows]


def raw_rate(name: str, puzzles: list[list[int]]) -> dict[str, float]:
    """Puzzles/s of the solver's own loop (rules once, givens as assumptions, no I/O)."""
    from satdoku.cnf.encode import rules_cnf
    from satdoku.puzzle import sudoku

    base = PATHS[name].get("solver", name)
    rules = rules_cnf(sudoku([0] * 81, 3).layout, "extended")
    loops: dict[str, Callable[[], None]] = {}
    if base == "minisat22":
        from pysat.solvers import Solver

        solver = Solver(name="minisat22", bootstrap_with=rules.clauses)
        bare = Solver(name="minisat22", bootstrap_with=rules.clauses)

        def with_model() -> None:
            for a in puzzles:
                if not solver.solve(assumptions=a) or not solver.get_model():
                    raise AssertionError("MiniSat found no model")

        def solve_only() -> None:
            for a in puzzles:
                bare.solve(assumptions=a)

        loops = {"": with_model, "solve_only_": solve_only}
    elif base == "cdcl":
        from satdoku.solvers.cdcl.adapter import INCREMENTAL_PARAMS
        from satdoku.solvers.cdcl.driver import Cdcl

        kernel = Cdcl(rules.num_vars, rules.clauses, params=INCREMENTAL_PARAMS)

        def with_model() -> None:  # Cdcl.solve always returns the model
            for a in puzzles:
                if kernel.solve(None, None, a)[0] != "SAT":
                    raise AssertionError("cdcl found no model")

        loops = {"": with_model}
    else:
        raise ValueError(f"no raw loop for {name}")
    out: dict[str, float] = {}
    for prefix, loop in loops.items():
        c0, t0 = time.process_time(), time.perf_counter()
        loop()
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        out[f"{prefix}cpu_rate"] = len(puzzles) / cpu
        out[f"{prefix}wall_rate"] = len(puzzles) / wall
    return out


# --- 2. the whole workflow ---------------------------------------------------------------------
def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def rule_cpu(logs: Path) -> dict[str, float]:
    """CPU seconds per command (``pipeline solve``, ``report table``, ...) from the job logs."""
    out: dict[str, float] = {}
    for log in logs.rglob("*.log"):
        for words, cpu in RUSAGE.findall(log.read_text(errors="replace")):
            out[words] = out.get(words, 0.0) + float(cpu)
    return out


def job_timeline(logs: Path, t0: float) -> list[dict[str, Any]]:
    """Each job's start and end in seconds after ``t0`` (epoch), by its log: created by the
    job's shell redirection as the job starts (the file's birth time, read with GNU stat: Python
    3.11 does not give it on Linux) and last written by its rusage line as it ends."""
    files = sorted(logs.rglob("*.log"))
    if not files:
        return []
    out = subprocess.run(["stat", "--format=%.W %.Y", *map(str, files)], capture_output=True,
                         text=True, check=False).stdout.split("\n")
    rows = []
    for path, line in zip(files, out, strict=False):
        born, modified = (float(x) for x in line.split())
        if born <= 0:  # no birth time on this file system
            return []
        rows.append({"job": str(path.relative_to(logs).with_suffix("")),
                     "start": round(born - t0, 2), "end": round(modified - t0, 2)})
    return sorted(rows, key=lambda r: r["start"])


def verified(results: Path, name: str) -> tuple[int, int]:
    """(rows, rows verified yes) of the gathered SatSols of the run."""
    path = results / "SatSols" / name / "extended" / "bench.tsv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return len(rows), sum(r["verified"] == "yes" for r in rows)


def bytes_per_instance(results: Path, n: int) -> dict[str, float]:
    out = {}
    for stage in ("Instances", "SatInput", "SatOutput", "SatOutputTimes", "SatSols"):
        d = results / stage
        if d.exists():
            out[stage] = sum(f.stat().st_size for f in d.rglob("*") if f.is_file()) / n
    return out


def run_workflow(src: Path, n: int, shard_size: str | None, name: str, cores: int,
                 work: Path, set_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole set through Snakemake in a fresh directory: wall, CPU per rule, checks.
    ``set_options``: settings of the set's entry (e.g. ``{"propagation": false}``)."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    entry: Any = {"path": str(src), **set_options} if set_options else str(src)
    config: dict[str, Any] = {"sets": {"bench": entry}, "encodings": ["extended"],
                              "solvers": {name: PATHS[name]}, "time_limit": 10}
    if shard_size is not None:
        config["shard_size"] = int(shard_size) if shard_size.isdigit() else shard_size
    cfg = work / "config.yaml"
    cfg.write_text(json.dumps(config))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile",
           str(cfg), "--cores", str(cores)]
    env = {**os.environ, "SATDOKU_RUSAGE": "1"}
    load = os.getloadavg()[0]
    cpu0, t0, epoch0 = _children_cpu(), time.perf_counter(), time.time()
    with (work / "snakemake.log").open("w") as log:
        done = subprocess.run(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode:
        raise SystemExit(f"workflow failed (exit {done.returncode}); see {work}/snakemake.log")
    rows, ok = verified(work / "results", name)
    if rows != n or ok != n:
        raise SystemExit(f"{name}: {ok} of {rows} answers verified, expected {n}")
    rules = rule_cpu(work / "results" / "logs")
    jobs = len(list((work / "results" / "logs").rglob("*.log")))
    return {"wall_s": wall, "cpu_s": cpu, "jobs": jobs, "rules": rules,
            "idle_core_s": wall * cores - cpu,
            "timeline": job_timeline(work / "results" / "logs", epoch0),
            "snakemake_cpu_s": cpu - sum(rules.values()), "load_start": load,
            "load_end": os.getloadavg()[0], "per_core": n / wall / cores,
            "bytes": bytes_per_instance(work / "results", n)}


def compile_package() -> bool:
    """Write the bytecode of every module of satdoku/ beside its source, as an installed package
    has it, when this environment does not (``PYTHONDONTWRITEBYTECODE``): every job would
    otherwise compile each module it imports from source, at each start (0.1-0.3 s of CPU a
    job). True when it compiled."""
    if not (sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")):
        return False  # the first job writes the bytecode, the others read it
    import compileall

    return bool(compileall.compile_dir(str(ROOT / "satdoku"), quiet=2, force=False))


# --- 3. one shard stage by stage, in this process ----------------------------------------------
def time_stages(src: Path, shard_size: int, names: list[str], work: Path,
                profile: bool = False) -> list[tuple[str, float]]:
    """CPU seconds of normalize, encode and each solver's solve stage (decode and verify
    included) on shard 0; with ``profile`` the top functions of each stage are printed."""
    import cProfile
    import io
    import pstats

    from satdoku.pipeline.stage_encode import encode_shard
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.pipeline.stage_solve import ShardFiles, SolveSettings, solve_shard
    from satdoku.solvers.base import RunLimits

    work.mkdir(parents=True, exist_ok=True)
    inst, bundle = work / "i.jsonl", work / "b.cnfs"
    stages: list[tuple[str, Callable[[], object]]] = [
        ("normalize", lambda: normalize(src, inst, 0, shard_size)),
        ("encode", lambda: encode_shard(inst, bundle, "bench", "extended")),
    ]
    for name in names:
        stages.append((f"solve {name}", lambda name=name: solve_shard(
            ShardFiles(inst, work / f"{name}.tsv", work / f"{name}.sols", bundle,
                       work / f"{name}.out"),
            SolveSettings(name, "extended", {name: PATHS[name]}, RunLimits(time_limit=10.0)))))
    out = []
    for label, fn in stages:
        prof = cProfile.Profile() if profile else None
        c0 = time.process_time()
        if prof:
            prof.enable()
        fn()
        if prof:
            prof.disable()
        out.append((label, time.process_time() - c0))
        if prof:
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(12)
            print(f"\n--- {label} (cProfile) ---\n" + text.getvalue().split("\n\n", 2)[-1])
    return out


# --- report ------------------------------------------------------------------------------------
def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--shard-size", default=None,
                    help="shard_size of the workflow config (a number or auto; default: the "
                         "schema's default)")
    ap.add_argument("--solvers", default="minisat22-inc,cdcl-inc")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--work", default=str(ROOT / "results" / "bench_pipeline"))
    ap.add_argument("--stages", action="store_true", help="also time one shard stage by stage")
    ap.add_argument("--stage-shard", type=int, default=10_000, help="shard size of --stages")
    ap.add_argument("--profile", action="store_true", help="cProfile each stage (--stages)")
    ap.add_argument("--no-workflow", action="store_true", help="raw rates (and --stages) only")
    ap.add_argument("--set-options", default="",
                    help='the set entry\'s settings, as JSON (e.g. \'{"propagation": false}\': '
                         "the set without the propagation analysis)")
    ap.add_argument("--timeline", action="store_true",
                    help="print each job's start and end (seconds after the workflow's start)")
    ap.add_argument("--source", action="store_true",
                    help="leave satdoku/ without bytecode when PYTHONDONTWRITEBYTECODE is set "
                    "(every job then compiles the modules it imports; default: compile them "
                    "first, as an installed package has them)")
    ap.add_argument("--json", help="write every measurement here")
    args = ap.parse_args()
    names = [s for s in args.solvers.split(",") if s]
    unknown = [s for s in names if s not in PATHS]
    if unknown:
        ap.error(f"unknown solver path(s) {unknown}; known: {list(PATHS)}")
    work = Path(args.work)
    src = build_set(args.n, work / f"kaggle_{args.n}.csv")
    puzzles = givens_as_assumptions(src)
    print(f"set: {src} ({args.n} puzzles), {args.cores} cores, load {os.getloadavg()[0]:.2f}")
    if not args.source and not args.no_workflow and compile_package():
        print("PYTHONDONTWRITEBYTECODE is set: satdoku/ compiled to bytecode first (--source: "
              "measure the jobs compiling it instead)")
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in names}
    for rep in range(args.repeat):
        for name in names:
            raw = raw_rate(name, puzzles)
            res: dict[str, Any] = {"raw": raw}
            if not args.no_workflow:
                res.update(run_workflow(src, args.n, args.shard_size, name, args.cores,
                                        work / f"wf_{name}",
                                        json.loads(args.set_options or "{}")))
                res["ratio_wall"] = res["per_core"] / raw["wall_rate"]
                res["ratio_cpu"] = res["per_core"] / raw["cpu_rate"]
            runs[name].append(res)
            line = (f"[{rep + 1}/{args.repeat}] {name:14} raw {raw['cpu_rate']:7.0f}/s cpu "
                    f"{raw['wall_rate']:7.0f}/s wall")
            if not args.no_workflow:
                line += (f" | workflow {res['wall_s']:6.1f} s, {res['per_core']:6.0f}/s/core, "
                         f"ratio {res['ratio_wall']:.2f} (vs raw cpu {res['ratio_cpu']:.2f}), "
                         f"load {res['load_start']:.1f}-{res['load_end']:.1f}")
            print(line, flush=True)
            if args.timeline and not args.no_workflow:
                for job in res["timeline"]:
                    print(f"    {job['start']:6.2f} {job['end']:6.2f}  {job['job']}")
                print(f"    idle core-s {res['idle_core_s']:.1f} (wall x cores - CPU)")
    print("\nmedians")
    for name, rs in runs.items():
        raw_cpu = _median([r["raw"]["cpu_rate"] for r in rs])
        raw_wall = _median([r["raw"]["wall_rate"] for r in rs])
        solve_only = _median([r["raw"].get("solve_only_cpu_rate", float("nan")) for r in rs])
        print(f"{name}: raw {raw_cpu:.0f} puzzles/s cpu, {raw_wall:.0f} wall"
              + (f" (solve without reading the model: {solve_only:.0f}/s cpu)"
                 if solve_only == solve_only else ""))
        if args.no_workflow:
            continue
        print(f"  workflow: wall {_median([r['wall_s'] for r in rs]):.1f} s, "
              f"{_median([r['per_core'] for r in rs]):.0f} puzzles/s/core, ratio "
              f"{_median([r['ratio_wall'] for r in rs]):.2f} (raw wall) / "
              f"{_median([r['ratio_cpu'] for r in rs]):.2f} (raw cpu); "
              f"{rs[0]['jobs']} jobs; CPU {_median([r['cpu_s'] for r in rs]):.1f} s in all")
        commands = sorted({c for r in rs for c in r["rules"]},
                          key=lambda c: -_median([r["rules"].get(c, 0.0) for r in rs]))
        for c in commands:
            print(f"    {c:22} {_median([r['rules'].get(c, 0.0) for r in rs]):7.2f} s CPU")
        print(f"    {'snakemake (+ shells)':22} "
              f"{_median([r['snakemake_cpu_s'] for r in rs]):7.2f} s CPU")
        for stage, b in rs[0]["bytes"].items():
            print(f"    {stage:16} {b:8.0f} bytes/instance")
    if args.stages:
        size = min(args.n, args.stage_shard)
        print(f"\nstage by stage, shard 0 ({size} lines), one core, CPU seconds:")
        for label, cpu in time_stages(src, size, names, work / "stages", args.profile):
            print(f"  {label:22} {cpu:7.3f} s  ({cpu / size * 1e6:6.1f} us/puzzle)")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
