"""`satdoku largest-n`: the original CSP experiment (largest n solved within a time limit).

    satdoku largest-n --families latin futoshiki --solvers cpsat csp-mac-mrv csp-bt-first \\
        --time-limit 60 --n-min 3 --n-max 40 --seed 0 \\
        --tsv runs.tsv --md largest_n.md --png largest_n.png

Instances are generated from the seed (Latin: a random square with --holes of its cells
emptied; Futoshiki: --givens of a random grid's values and the true < between --relations of
its neighbouring pairs); see satdoku/pipeline/stage_largest_n.py.
"""

from __future__ import annotations

import argparse
import sys

from satdoku.commands.common import int_in, number_in, positive_seconds
from satdoku.commands.variants_arg import solver_variants
from satdoku.pipeline.stage_largest_n import run_experiment, write_outputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--families", nargs="+", choices=("latin", "futoshiki"),
                        default=["latin", "futoshiki"])
    parser.add_argument("--solvers", nargs="+", required=True, help="puzzle-level solvers")
    parser.add_argument("--variants", type=solver_variants, default={},
                        help="JSON of configured solver variants (options checked)")
    parser.add_argument("--time-limit", type=positive_seconds, default=60.0)
    parser.add_argument("--n-min", type=int_in(1, 200), default=3)
    parser.add_argument("--n-max", type=int_in(1, 200), default=30)
    parser.add_argument("--seed", type=int_in(0), default=0)
    parser.add_argument("--holes", type=number_in(0, 1), default=0.5,
                        help="latin: share of empty cells")
    parser.add_argument("--givens", type=number_in(0, 1), default=0.1,
                        help="futoshiki: share of givens")
    parser.add_argument("--relations", type=number_in(0, 1), default=0.3,
                        help="futoshiki: share of neighbour pairs with a < sign")
    parser.add_argument("--tsv", required=True)
    parser.add_argument("--md", required=True)
    parser.add_argument("--png", required=True)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.n_min <= args.n_max:
        print("error: need 1 <= --n-min <= --n-max", file=sys.stderr)
        return 2
    try:
        rows = run_experiment(args.families, args.solvers, args.n_min, args.n_max,
                              args.time_limit, args.seed, args.holes, args.givens,
                              args.relations, args.variants, log=sys.stdout)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = (f"Instances: seed {args.seed}; latin holes {args.holes:g}; futoshiki givens "
                f"{args.givens:g}, relations {args.relations:g}; n from {args.n_min} to "
                f"{args.n_max}; a solver stops at its first n not solved within the limit.")
    write_outputs(rows, args.tsv, args.md, args.png, args.time_limit, settings)
    bad = [r for r in rows if r["verified"] == "FAILED"]
    for r in bad:
        print(f"ERROR: wrong answer {r['family']} n={r['n']} by {r['solver']}", file=sys.stderr)
    return 1 if bad else 0
