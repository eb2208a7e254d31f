"""The search engine and the generator, before vs after: CSP solver figures, LTN data set
generation, board generation, interleaved between two checkouts.

Every job runs in a fresh child Python whose ``PYTHONPATH`` is one checkout (``--tree``, default
this repository; ``--base DIR`` adds a second one, e.g. an exported ``main``), alternating
between the checkouts on every repetition so that machine noise hits both alike. Printed per job:
the median seconds of each checkout (wall clock, or the child's CPU time with ``--clock cpu``;
CSP jobs time their solve loop in the child) and their ratio; for the CSP jobs also the
solved count and the total number of search nodes (deterministic, a check that the engine
explores the same tree).

Jobs:

* ``csp:<solver>``: the solver on a fixed instance list (futoshiki_usp 4x4-6x6, the first
  norvig top95 9x9 puzzles, Latin QWH order 10), every SAT board verified;
* ``dataset4`` / ``dataset9``: ``satdoku generate dataset`` as the workflow calls it
  (config.yaml ``ltn:``: 2000 / 800 boards per kind, fractions 0.8 0.1 0.1, seed 0);
* ``boards:<family>:<size>``: ``satdoku generate boards --kind unique``.

Usage: python benchmarks/bench_generate.py [--base DIR] [--repeat 3] [--jobs csp,dataset4,...]
       [--csp-limit 5] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSP_NAMES = [f"csp-{i}-{o}{lcv}" for i in ("bt", "fc", "mac") for o in ("first", "mrv")
             for lcv in ("", "-lcv")]

# Runs inside the child: solve the fixed instance list with one solver, print JSON figures.
_CSP_CHILD = r"""
import inspect, json, sys, time
from pathlib import Path
from satdoku.formats import read_records
from satdoku.solvers.base import Deadline
from satdoku.solvers.registry import make_solver
data = Path(sys.argv[1]); name = sys.argv[2]; limit = float(sys.argv[3])
recs = list(read_records(data / "futoshiki_usp" / "futoshiki.dat"))[:48]
recs += list(read_records(data / "norvig" / "top95.txt"))[:10]
qwh = data / "latin_square_qwh"
recs += [r for i in range(1, 6) for r in read_records(qwh / f"o10hp42_{i}.txt")]
solver = make_solver(name)
solved = nodes = bad = 0
# older checkouts take a limit in seconds, newer ones a Deadline
takes_seconds = "time_limit" in inspect.signature(solver.solve_puzzle).parameters
t0 = time.perf_counter()
for rec in recs:
    res = solver.solve_puzzle(rec.puzzle, limit if takes_seconds else Deadline(limit))
    if res.status == "SAT":
        solved += 1
        bad += bool(rec.puzzle.check_solution(res.board))
    nodes += res.stats.get("decisions", 0)
print(json.dumps({"seconds": time.perf_counter() - t0, "solved": solved, "instances": len(recs),
                  "nodes": nodes, "bad": bad}))
"""


def _child(tree: Path, args: list[str], cwd: Path, clock: str) -> tuple[float, dict]:
    """Run ``python args`` with ``tree`` first on the path; (seconds of wall time or of the
    child's CPU time, JSON of its last line)."""
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=3600)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    secs = (time.perf_counter() - t0 if clock == "wall"
            else (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime))
    if proc.returncode != 0:
        raise RuntimeError(f"{tree}: {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}"
    try:
        info = json.loads(last)
    except json.JSONDecodeError:
        info = {}
    return secs, info if isinstance(info, dict) else {}


def job_args(job: str, tmp: Path, csp_limit: float) -> list[str]:
    """The child command line of one job."""
    if job.startswith("csp:"):
        return ["-c", _CSP_CHILD, str(ROOT / "data" / "public"), job[4:], str(csp_limit)]
    if job in ("dataset4", "dataset9"):
        size, per_kind = (4, 2000) if job == "dataset4" else (9, 800)
        return ["-m", "satdoku", "generate", "dataset", "--size", str(size), "--per-kind",
                str(per_kind), "--fractions", "0.8", "0.1", "0.1", "--seed", "0", "--out",
                str(tmp / job)]
    if job.startswith("boards:"):
        _, family, size, count = [*job.split(":"), "10"][:4]
        return ["-m", "satdoku", "generate", "boards", "--family", family, "--size", size,
                "--count", count, "--kind", "unique", "--seed", "1"]
    raise ValueError(f"unknown job {job!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout measured (default: this)")
    ap.add_argument("--base", type=Path, default=None, help="a second checkout to compare with")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", default="csp,dataset4,dataset9,boards:sudoku:9,"
                    "boards:futoshiki:5,boards:latin:6,boards:sudoku3d:2")
    ap.add_argument("--csp-limit", type=float, default=5.0, help="seconds per CSP instance")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="whole-process jobs: wall time or the child's CPU time (steadier on "
                         "a shared machine)")
    ap.add_argument("--markdown", type=Path, default=None)
    args = ap.parse_args(argv)
    jobs = [j for part in args.jobs.split(",")
            for j in ([f"csp:{n}" for n in CSP_NAMES] if part == "csp" else [part])]
    trees = [("new", args.tree)] + ([("base", args.base)] if args.base else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for job in jobs:
            secs: dict[str, list[float]] = {label: [] for label, _ in trees}
            info: dict[str, dict] = {}
            for _ in range(args.repeat):
                for label, tree in trees:
                    s, inf = _child(tree, job_args(job, Path(tmp), args.csp_limit), Path(tmp),
                                    args.clock)
                    secs[label].append(inf.get("seconds", s) if job.startswith("csp:") else s)
                    info[label] = inf
            med = {label: statistics.median(v) for label, v in secs.items()}
            row = {"job": job, **{f"{k}_s": round(v, 3) for k, v in med.items()}}
            if "base" in med:
                row["ratio"] = round(med["new"] / med["base"], 3)
            for label in info:
                for key in ("solved", "nodes", "bad"):
                    if key in info[label]:
                        row[f"{label}_{key}"] = info[label][key]
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.markdown:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        lines = ["| " + " | ".join(keys) + " |", "|" + " --- |" * len(keys)]
        lines += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
        args.markdown.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
