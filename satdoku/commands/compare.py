"""`satdoku compare A B --out DIR`: run B against run A (results directories or stored runs).

Writes DIR/compare.csv and DIR/compare.html (:mod:`satdoku.runs.compare`) and prints the
per-run lines. Exit status 1 when an answer flipped between SAT and UNSAT, 2 on bad input.
"""

from __future__ import annotations

import argparse
import math
import sys

from satdoku.runs.compare import compare, write_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="RESULTS_A",
                   help="baseline: a results directory, a stored run (results/runs/*.parquet) "
                        "or a stored run's id (see satdoku runs)")
    p.add_argument("b", metavar="RESULTS_B", help="the run compared against it (same forms)")
    p.add_argument("--out", required=True, help="directory for compare.csv and compare.html")
    p.add_argument("--by", choices=["hash", "set"], default="hash",
                   help="join instances by instance_hash (default) or by (set, id)")
    p.add_argument("--time", default="total_seconds", dest="time_column",
                   help="time column of the ratios (total_seconds, solve_seconds, ...)")
    p.add_argument("--top", type=int, default=10, help="slowed / sped-up instances listed")
    p.add_argument("--results", default="results",
                   help="results directory whose runs/ store run ids name (default: results)")


def run(args: argparse.Namespace) -> int:
    try:
        c = compare(args.a, args.b, args.by, args.time_column, args.top,
                    results=args.results)
    except (FileNotFoundError, ValueError) as exc:
        print(f"satdoku compare: {exc}", file=sys.stderr)
        return 2
    if not c.rows:  # different sets, solvers or encodings: an empty report would pass a gate
        print(f"satdoku compare: {args.a} and {args.b} share no instance under the same solver "
              f"and encoding (joined by {c.by}; only in A {c.only.get('only_a', 0)}, only in "
              f"B {c.only.get('only_b', 0)}): nothing to compare", file=sys.stderr)
        return 2
    csv_path, html_path = write_report(c, args.out)
    for r in c.rows:
        ratio = ("- (no instance solved by both)" if math.isnan(r["median_ratio"]) else
                 f"{r['median_ratio']:.3g} [{r['ci_low']:.3g}, {r['ci_high']:.3g}]")
        print(f"{r['set']} {r['solver']}/{r['encoding']}: n {r['n']}, status changes "
              f"{r['status_changes']}, B/A {ratio}")
    if c.flips:
        print(f"satdoku compare: {len(c.flips)} answer(s) flipped between SAT and UNSAT "
              f"(see {html_path})", file=sys.stderr)
        return 1
    print(f"wrote {csv_path} and {html_path}")
    return 0
