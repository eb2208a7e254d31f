"""`satdoku extract SET ID`: one instance's standalone DIMACS (or solver output) from a run.

The SatInput bundles keep shared clauses once per shard; this joins them back into the plain
DIMACS file any solver accepts. With ``--solver`` it prints that solver's SatOutput block.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("set", help="set name (as in config.yaml)")
    p.add_argument("id", help="instance id (its number in the input file)")
    p.add_argument("--encoding", default="extended")
    p.add_argument("--solver", help="print this solver's output for the instance instead")
    p.add_argument("--results", default="results", help="results directory (default: results)")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from satdoku.cnf.bundle import standalone
    from satdoku.cnf.dimacs import write_dimacs
    from satdoku.pipeline.locate import shard_of, solver_output_block

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        shard = shard_of(args.results, args.set, args.id)
        if args.solver:
            path = Path(args.results, "SatOutput", args.solver, args.encoding, args.set,
                        f"{shard}.out")
            out.writelines(line + "\n" for line in solver_output_block(path, args.id))
        else:
            path = Path(args.results, "SatInput", args.encoding, args.set, f"{shard}.cnfs")
            write_dimacs(standalone(path, args.id), out)
    except (KeyError, FileNotFoundError) as exc:
        print(f"satdoku extract: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.output:
            out.close()
    return 0
