"""`satdoku extract SET ID`: one instance's standalone DIMACS (or solver output) from a run.

``ID`` is the instance's number or its ``instance_hash`` (:mod:`satdoku.identity`), so an
instance named by another run, machine or GBD is found by its content.

The SatInput bundles keep shared clauses once per shard; this joins them back into the plain
DIMACS file any solver accepts. With ``--solver`` it prints that solver's SatOutput block.
"""

from __future__ import annotations

import argparse
import sys

from satdoku.cnf.dimacs import write_dimacs
from satdoku.cnf.encodings import DEFAULT_ENCODING
from satdoku.identity import is_instance_hash
from satdoku.solvers.registry import PUZZLE, level
from satdoku.stagefiles.bundles import standalone
from satdoku.stagefiles.instances import id_of_hash, shard_of
from satdoku.stagefiles.outputs import output_block
from satdoku.stagefiles.paths import SATINPUT, SATOUTPUT, stage_path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("set", help="set name (as in config.yaml)")
    p.add_argument("id", help="instance id (its number in the input file) or its instance_hash")
    p.add_argument("--encoding", default=DEFAULT_ENCODING,
                   help="the run's encoding (dimacs for a CNF set, direct has no CNF)")
    p.add_argument("--solver", help="print this solver's output for the instance instead")
    p.add_argument("--results", default="results", help="results directory (default: results)")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")


def run(args: argparse.Namespace) -> int:
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    try:
        ident = (id_of_hash(args.results, args.set, args.id.lower())
                 if is_instance_hash(args.id.lower()) else args.id)
        shard = shard_of(args.results, args.set, ident)
        where = {"set": args.set, "shard": shard, "encoding": args.encoding}
        if args.solver:
            path = stage_path(SATOUTPUT, args.results, solver=args.solver, **where)
            out.writelines(line + "\n" for line in output_block(path, ident))
        else:
            write_dimacs(standalone(stage_path(SATINPUT, args.results, **where), ident), out)
    except KeyError as exc:  # its message, without the quotes str(KeyError) adds
        print(f"satdoku extract: {exc.args[0]}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:
        print(f"satdoku extract: {_missing(args, exc.filename)}", file=sys.stderr)
        return 1
    finally:
        if args.output:
            out.close()
    return 0


def _missing(args: argparse.Namespace, path: str) -> str:
    """Why a stage file is missing, in one line: a puzzle-level solver writes no SatOutput;
    otherwise the run did not make this solver / encoding / set."""
    if args.solver:
        try:
            puzzle_level = level(args.solver) == PUZZLE
        except KeyError:  # a configured variant: its base is in the run's config, not here
            puzzle_level = False
        if puzzle_level:
            return (f"{args.solver} is a puzzle-level solver: it writes no SatOutput (its "
                    f"answers are in {args.results}/SatSols/{args.solver}/direct/{args.set}.txt)")
        return (f"{path}: no such file (did the run solve set {args.set} with "
                f"{args.solver} and encoding {args.encoding}?)")
    return f"{path}: no such file (did the run encode set {args.set} with {args.encoding}?)"
