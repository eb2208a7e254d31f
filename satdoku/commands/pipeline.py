"""`satdoku pipeline STAGE ...`: the stage commands the Snakemake rules call (one per rule).

normalize SET_FILE OUT... ; encode SHARD OUT ; solve ; decode ; gather ; report ; check.
Each can be run by hand on any shard; paths are explicit so the rules stay thin.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="stage", metavar="STAGE", required=True)

    s = sub.add_parser("normalize", help="read one shard of a set file into Instances JSONL")
    s.add_argument("source")
    s.add_argument("output")
    s.add_argument("--shard", type=int, default=0, help="0-based shard number")
    s.add_argument("--shard-size", type=int, default=1000, help="input lines per shard")
    s.add_argument("--format", default="auto")
    s.add_argument("--strict", action="store_true", help="fail on the first malformed instance")

    s = sub.add_parser("encode", help="Instances shard -> CNF bundle (SatInput)")
    s.add_argument("instances")
    s.add_argument("output")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--encoding", default="extended")

    s = sub.add_parser("solve", help="run one solver over a shard")
    s.add_argument("input", help="CNF bundle (SAT solvers) or Instances shard (puzzle solvers)")
    s.add_argument("--solver", required=True)
    s.add_argument("--variants", default="{}", help="JSON of configured solver variants")
    s.add_argument("--time-limit", type=float, default=None)
    s.add_argument("--output", help="SatOutput shard (SAT solvers)")
    s.add_argument("--sols", help="SatSols shard (puzzle-level solvers)")
    s.add_argument("--times", required=True)

    s = sub.add_parser("decode", help="decode + verify a SatOutput shard into a SatSols shard")
    s.add_argument("instances")
    s.add_argument("output")
    s.add_argument("sols")
    s.add_argument("--encoding", default="extended", help="encoding the models satisfy")

    s = sub.add_parser("gather", help="concatenate shard TSVs of a set in order")
    s.add_argument("shards", nargs="+")
    s.add_argument("--tsv", required=True)
    s.add_argument("--txt", help="also write one SatSols line per instance here")
    s.add_argument("--kind", choices=["sols", "times", "unique"], default="sols")

    s = sub.add_parser("report", help="text report + time plot of a set")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--instances", nargs="+", required=True)
    s.add_argument("--sols", nargs="+", required=True, help="RUN=PATH of gathered SatSols TSVs")
    s.add_argument("--times", nargs="+", required=True, help="RUN=PATH of gathered times TSVs")
    s.add_argument("--time-limit", type=float)
    s.add_argument("--txt", required=True)
    s.add_argument("--png", required=True)
    s.add_argument("--unique", help="gathered uniqueness TSV of the set (optional)")

    s = sub.add_parser("unique", help="count solutions (0, 1, 2+) of every puzzle of a bundle")
    s.add_argument("bundle", help="CNF bundle of the extended encoding")
    s.add_argument("output")
    s.add_argument("--time-limit", type=float, default=10.0)

    s = sub.add_parser("check", help="fail (exit 1) on wrong answers or solver disagreements")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--sols", nargs="+", required=True)
    s.add_argument("--out", required=True)


def run(args: argparse.Namespace) -> int:
    if args.stage == "normalize":
        from satdoku.pipeline.instances import normalize

        counts = normalize(args.source, args.output, args.shard, args.shard_size, args.format,
                           args.strict)
        print(f"normalize {args.source} shard {args.shard}: {counts['instances']} instances, "
              f"{counts['invalid']} invalid")
    elif args.stage == "encode":
        from satdoku.pipeline.encode import encode_shard

        n = encode_shard(args.instances, args.output, args.set_name, args.encoding)
        print(f"encode {args.instances}: {n} instances ({args.encoding})")
    elif args.stage == "solve":
        from satdoku.pipeline.solve import solve_cnf_shard, solve_puzzle_shard

        variants = json.loads(args.variants)
        if args.output:
            counts = solve_cnf_shard(args.input, args.output, args.times, args.solver, variants,
                                     args.time_limit)
        else:
            counts = solve_puzzle_shard(args.input, args.sols, args.times, args.solver,
                                        variants, args.time_limit)
        print(f"solve {args.input} with {args.solver}: {counts}")
    elif args.stage == "decode":
        from satdoku.pipeline.decode import decode_shard

        counts = decode_shard(args.instances, args.output, args.sols, args.encoding)
        print(f"decode {args.output}: {counts}")
    elif args.stage == "gather":
        from satdoku.pipeline.decode import SOLS_COLUMNS, gather
        from satdoku.pipeline.times import COLUMNS
        from satdoku.pipeline.unique import COLUMNS as UNIQUE_COLUMNS

        cols = {"sols": SOLS_COLUMNS, "times": COLUMNS, "unique": UNIQUE_COLUMNS}[args.kind]
        n = gather(args.shards, args.tsv, args.txt, cols)
        print(f"gather: {n} rows -> {args.tsv}")
    elif args.stage == "report":
        from satdoku.pipeline.report import report_set

        n = report_set(args.set_name, args.instances, args.sols, args.times, args.txt, args.png,
                       args.time_limit, args.unique)
        print(f"report {args.set_name}: {n} problems")
    elif args.stage == "unique":
        from satdoku.pipeline.unique import unique_shard

        print(f"unique {args.bundle}: {unique_shard(args.bundle, args.output, args.time_limit)}")
    elif args.stage == "check":
        from satdoku.pipeline.report import check_set

        problems = check_set(args.set_name, args.sols, args.out)
        for p in problems:
            print(f"ERROR: {p}", file=sys.stderr)
        return 1 if problems else 0
    return 0
