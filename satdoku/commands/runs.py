"""`satdoku runs`: the runs stored under results/runs/ (one Parquet file each), oldest first,
with their time, machine, versions, sets and solvers."""

from __future__ import annotations

import argparse
import sys

from satdoku.runs.store import list_runs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--results", default="results", help="results directory (default: results)")


def run(args: argparse.Namespace) -> int:
    skipped: list[str] = []
    runs = list_runs(args.results, skipped)
    for bad in skipped:  # named, skipped; the others are listed
        print(f"satdoku runs: skipped {bad}", file=sys.stderr)
    if not runs:
        print(f"no stored runs under {args.results}/runs/")
        return 0
    for r in runs:
        m = r["manifest"]
        mach = m.get("machine", {})
        solvers = ", ".join(s.get("name", "?") for s in m.get("solvers", []))
        print(f"{m.get('run_id')}  {m.get('start')} -> {m.get('end')}  {r['rows']} rows\n"
              f"    satdoku {m.get('satdoku')}, Python {m.get('python')}; "
              f"{mach.get('cpu')}, {mach.get('cores')} cores, {mach.get('memory_mb')} MB, "
              f"{mach.get('os')}\n"
              f"    sets: {', '.join(m.get('sets', []))}; solvers: {solvers}\n"
              f"    {r['file']}")
    return 0
