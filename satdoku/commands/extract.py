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
    p.add_argument("--encoding", default="extended",
                   help="the run's encoding (dimacs for a CNF set, direct has no CNF)")
    p.add_argument("--solver", help="print this solver's output for the instance instead")
    p.add_argument("--results", default="results", help="results directory (default: results)")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")


def run(args: argparse.Namespace) -> int:
    from satdoku.cnf.dimacs import write_dimacs
    from satdoku.stagefiles.bundles import standalone
    from satdoku.stagefiles.instances import shard_of
    from satdoku.stagefiles.outputs import output_block
    from satdoku.stagefiles.paths import SATINPUT, SATOUTPUT, stage_path

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        shard = shard_of(args.results, args.set, args.id)
        where = {"set": args.set, "shard": shard, "encoding": args.encoding}
        if args.solver:
            path = stage_path(SATOUTPUT, args.results, solver=args.solver, **where)
            out.writelines(line + "\n" for line in output_block(path, args.id))
        else:
            write_dimacs(standalone(stage_path(SATINPUT, args.results, **where), args.id), out)
    except (KeyError, FileNotFoundError) as exc:
        print(f"satdoku extract: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.output:
            out.close()
    return 0
