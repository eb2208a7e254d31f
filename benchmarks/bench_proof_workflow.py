"""Every UNSAT of ours proof-checked in the CNF-set workflow (issue 29 goal 3).

Writes a CNF set of random 3-SAT files (``--files``, default 24; variables spread evenly over
``--vars``, default 100-200; clause/variable ratio 4.26, so about half are UNSAT; seeded), runs
the real Snakefile on it (``snakemake --cores 2``) at the set's ``--time-limit`` (default 60 s,
the proof-check budget ``verify_time_limit`` left at its default, the same 60 s) with ``dpll``,
``cdcl`` (with its preprocessing) and ``cdcl-nosimp`` (LRAT proofs, their default) and, with
``--drat``, dpll and cdcl writing DRAT (``dpll-drat``, ``cdcl-drat``) for comparison, and
reads SatSols and SatOutputTimes: per
solver the answers, how many UNSAT answers were verified by their proof and how many were left
unchecked (budget spent), and the largest and median ``check_seconds`` and ``solve_seconds`` of
the UNSAT answers.

Usage: python benchmarks/bench_proof_workflow.py [--files 24] [--vars 100,200]
       [--time-limit 60] [--drat] [--work DIR] [--markdown FILE]
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
sys.path.insert(0, str(ROOT / "tests"))
from conftest import random_3sat  # noqa: E402

OURS = {"dpll": {}, "cdcl": {}, "cdcl-nosimp": {}}
DRAT = {"dpll-drat": {"solver": "dpll", "proof": "drat"},
        "cdcl-drat": {"solver": "cdcl", "proof": "drat"}}


def write_set(folder: Path, files: int, low: int, high: int) -> None:
    """``files`` seeded random 3-SAT formulas, variables spread from ``low`` to ``high``."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(files):
        n = low + round(k * (high - low) / max(1, files - 1))
        clauses = random_3sat(n, 29_000 + k, 4.26)
        body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
        (folder / f"r{k:02d}-n{n}.cnf").write_text(f"p cnf {n} {len(clauses)}\n{body}")


def run(work: Path, solvers: dict[str, dict], time_limit: float) -> float:  # type: ignore[type-arg]
    """Run the workflow on the set in ``work``; returns its wall seconds."""
    config = {"sets": {"random3sat": {"path": str(work / "random3sat"),
                                      "time_limit": time_limit}},
              "solvers": solvers, "encodings": ["extended"], "time_limit": time_limit,
              "check_unique": False, "ltn": {"enabled": False},
              "csp_experiment": {"enabled": False}}
    (work / "config.yaml").write_text(json.dumps(config))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--configfile",
           str(work / "config.yaml"), "--cores", "2", "--quiet", "all"]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=work, check=True)
    return time.perf_counter() - t0


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def figures(work: Path, solvers: dict[str, dict]) -> list[dict[str, object]]:  # type: ignore[type-arg]
    out: list[dict[str, object]] = []
    for solver in solvers:
        times = _rows(work / "results" / "SatOutputTimes" / solver / "dimacs" / "random3sat.tsv")
        sols = _rows(work / "results" / "SatSols" / solver / "dimacs" / "random3sat.tsv")
        unsat = [t for t in times if t["status"] == "UNSAT"]
        verified = {s["id"] for s in sols if s["status"] == "UNSAT" and s["verified"] == "proof"}
        check = [float(t["check_seconds"]) for t in unsat if t.get("check_seconds")]
        solve = [float(t["solve_seconds"]) for t in unsat if t.get("solve_seconds")]
        out.append({
            "solver": solver, "instances": len(times),
            "sat": sum(t["status"] == "SAT" for t in times), "unsat": len(unsat),
            "timeout": sum(t["status"] == "TIMEOUT" for t in times),
            "other": sum(t["status"] not in ("SAT", "UNSAT", "TIMEOUT") for t in times),
            "verified": len(verified),
            "unchecked": sum(s["status"] == "UNSAT" and s["verified"] == "-" for s in sols),
            "check_max": max(check, default=0.0),
            "check_median": statistics.median(check) if check else 0.0,
            "solve_max": max(solve, default=0.0),
        })
    return out


def table(rows: list[dict[str, object]], wall: float, load: float, time_limit: float) -> str:
    out = [f"Workflow run: {wall:.0f} s wall on 2 cores (time limit and proof-check budget "
           f"{time_limit:g} s), 1-minute load average at the end {load:.1f}.", "",
           "| solver | SAT | UNSAT | TIMEOUT | other | UNSAT verified by proof | unchecked | "
           "check s (median / max) | UNSAT solve s (max) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['solver']} | {r['sat']} | {r['unsat']} | {r['timeout']} | "
                   f"{r['other']} | {r['verified']} | {r['unchecked']} | "
                   f"{float(r['check_median']):.3g} / {float(r['check_max']):.3g} | "  # type: ignore[arg-type]
                   f"{float(r['solve_max']):.3g} |")  # type: ignore[arg-type]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--vars", default="100,200", help="fewest,most variables")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--drat", action="store_true", help="also dpll-drat and cdcl-drat")
    ap.add_argument("--work", type=Path, default=ROOT / "results" / "bench_proof_workflow")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    args = ap.parse_args(argv)
    low, high = (int(x) for x in args.vars.split(","))
    write_set(args.work / "random3sat", args.files, low, high)
    solvers = OURS | (DRAT if args.drat else {})
    wall = run(args.work, solvers, args.time_limit)
    text = table(figures(args.work, solvers), wall, os.getloadavg()[0], args.time_limit)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
