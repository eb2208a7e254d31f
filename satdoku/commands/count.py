"""`satdoku count FILE [--max K]`: count the solutions of every puzzle of a file, up to K.

    satdoku count data/public/futoshiki_usp/futoshiki.dat --max 2
    satdoku count puzzles.txt --max 10 --method sat --time-limit 30

One TSV row per instance: id, line, solutions (a number below K is exact; K means "at least K";
``-`` when the time limit ended the count), and a verdict: ``none``, ``unique``, ``multiple``,
``>=K`` , ``timeout`` or ``INVALID: reason``. ``--method csp`` counts by the search engine
(the generator's options: backtracking + MRV, MAC for relations and instance groups), ``sat`` by
MiniSat with blocking clauses (:mod:`satdoku.solvers.sat_count`; the rules of a layout stay
loaded from one puzzle to the next). ``--time-limit`` bounds each puzzle's count. The exit code
is 0 unless an input line was invalid or (with ``--require-unique``) a puzzle has not exactly
one solution: so pipelines can flag puzzles with more than one solution.
"""

from __future__ import annotations

import argparse
import sys

from satdoku.commands.common import int_in, positive_seconds
from satdoku.formats import read_records
from satdoku.generate import SolutionCounter
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import SearchLimit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="puzzle file (any format; detected unless --format)")
    parser.add_argument("--max", type=int_in(1, 1_000_000_000), default=2, dest="limit",
                        help="stop counting at K solutions (default 2: is it unique?)")
    parser.add_argument("--method", choices=("csp", "sat"), default="csp")
    parser.add_argument("--format", default="auto")
    parser.add_argument("--time-limit", type=positive_seconds, default=None,
                        help="seconds per puzzle")
    parser.add_argument("--require-unique", action="store_true",
                        help="exit 1 if any puzzle has no or several solutions")


def _verdict(n: int, limit: int) -> str:
    if n == 0:
        return "none"
    if n == 1 and limit > 1:
        return "unique"
    if n >= limit:
        return f">={limit}"
    return "multiple"


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        print("error: --max must be at least 1", file=sys.stderr)
        return 2
    if args.time_limit is not None and not args.time_limit > 0:
        print("error: --time-limit must be a positive number of seconds", file=sys.stderr)
        return 2
    bad = not_unique = 0
    print("id\tline\tsolutions\tverdict")
    try:
        records = list(read_records(args.file, args.format))
    except (OSError, ValueError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    counter = SolutionCounter(args.method)
    for rec in records:
        if rec.puzzle is None:
            bad += 1
            print(f"{rec.id}\t{rec.line}\t-\tINVALID: {rec.error}")
            continue
        try:
            n = counter.count(rec.puzzle, args.limit, Deadline(args.time_limit))
        except SearchLimit:
            not_unique += 1
            print(f"{rec.id}\t{rec.line}\t-\ttimeout")
            continue
        not_unique += n != 1
        print(f"{rec.id}\t{rec.line}\t{n}\t{_verdict(n, args.limit)}")
    counter.close()
    if bad:
        return 1
    return 1 if args.require_unique and not_unique else 0
