"""`satdoku solve FILE`: solve every instance of a file, one SatSols line per instance.

Every instance goes through the one solve path (:func:`satdoku.solve.solve`), exactly as in the
workflow: the time limit covers encoding, loading and search; models are decoded with the chosen
encoding and verified, UNSAT answers of our solvers are proof-checked. FILE is a puzzle file
(any supported format) or a DIMACS file / directory of DIMACS files (a CNF set).
Exit codes: 0 every answer checked; 1 a wrong answer, or FILE changed while it was solved;
2 a usage error (unknown solver, encoding or format; bad limit; unreadable file).
"""

from __future__ import annotations

import argparse
import itertools
import sys

from satdoku.commands.common import positive_seconds


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file (any supported format, auto-detected) or a "
                   "DIMACS file / directory of DIMACS files")
    p.add_argument("--solver", default="minisat22", help="solver name (default: minisat22)")
    p.add_argument("--encoding", default="extended", help="CNF encoding for SAT solvers "
                   "(minimal, efficient, extended, simplified; + _seq)")
    p.add_argument("--time-limit", type=positive_seconds, default=None,
                   help="seconds per instance, encoding and loading included")
    p.add_argument("--format", default="auto", help="force a reader (line, ndigits, csv, ...)")
    p.add_argument("--times", action="store_true", help="append status and ms after each line")


def run(args: argparse.Namespace) -> int:
    from satdoku.cnf.encodings import get as get_encoding
    from satdoku.pipeline.instances import set_records
    from satdoku.pipeline.sets import SetError, plan
    from satdoku.progress import track
    from satdoku.solve import open_solver, solve
    from satdoku.solvers.registry import CNF
    from satdoku.stagefiles.tables import FAILED

    def fail(message: str) -> int:
        print(f"satdoku solve: {message}", file=sys.stderr)
        return 2

    try:
        solver = open_solver(args.solver)
    except (KeyError, ValueError) as exc:
        return fail(str(exc.args[0]))
    try:
        if solver.level == CNF:
            get_encoding(args.encoding)
        before = plan(args.file, args.format)
        records = set_records(args.file, args.format)
        first = next(records, None)
    except (SetError, ValueError, OSError) as exc:
        return fail(str(exc))
    wrong = 0
    pending = [first] if first is not None else []
    everything = itertools.chain(pending, records)
    for rec in track(everything, desc=f"solve {args.solver}", unit="instances"):
        answer = solve(rec, solver, args.encoding, args.time_limit)
        row = answer.sols_row(rec)
        wrong += answer.verified == FAILED
        line = str(row["solution"])
        if args.times:
            line += f"\t{answer.status}\t{answer.result.total_seconds * 1000:.1f} ms"
        print(line, flush=True)
    if plan(args.file, args.format).sha256 != before.sha256:
        print(f"satdoku solve: {args.file} changed while it was being solved: the lines above "
              "may not match the file as it is now", file=sys.stderr)
        return 1
    return 1 if wrong else 0

