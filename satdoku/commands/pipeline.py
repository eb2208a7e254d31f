"""`satdoku pipeline STAGE ...`: the stage commands the Snakemake rules call (one per rule).

normalize SET OUT ; encode SHARD OUT ; solve ; gather ; unique ; propagation ; report ; check ;
record ; plus decode (re-check a SatOutput shard made elsewhere). Each runs by hand on any
shard; paths are explicit so the rules stay thin. A failure prints one line naming the file and
the reason (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys

from satdoku.cnf.encodings import DEFAULT_ENCODING
from satdoku.commands.common import (
    add_limit_arguments,
    int_in,
    positive_seconds,
    run_limits,
)
from satdoku.commands.variants_arg import solver_variants
from satdoku.size_limits import SizeLimits, set_default_size_limits

#: (module, class) of the errors a stage reports as one line: looked up when one is caught, so
#: that a job imports the readers, the set planner and the measurement backends only when its
#: own stage does (an exception whose class was never imported cannot have been raised; the
#: command module alone loaded them all, ~0.15 s of CPU for every job)
STAGE_ERRORS = (("satdoku.set_plans", "SetError"),
                ("satdoku.stagefiles.instances", "StageFileError"),
                ("satdoku.formats.reading", "StrictError"),
                ("satdoku.solvers.measurement", "MeasurementError"))


def stage_errors() -> tuple[type[BaseException], ...]:
    """The one-line errors of :data:`STAGE_ERRORS` whose modules are loaded, and OSError."""
    found: list[type[BaseException]] = [OSError]
    for module, name in STAGE_ERRORS:
        error = getattr(sys.modules.get(module), name, None)  # (None: not loaded, or half)
        if error is not None:
            found.append(error)
    return tuple(found)


def time_column(value: str) -> str:
    """``--time-column``: one of the report's time columns (the report module is loaded for
    the report stage only)."""
    from satdoku.report.collect import TIME_COLUMNS

    if value not in TIME_COLUMNS:
        raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from "
                                         f"{', '.join(TIME_COLUMNS)})")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="stage", metavar="STAGE", required=True)

    s = sub.add_parser("normalize", help="read one shard of a set file into Instances JSONL")
    s.add_argument("source")
    s.add_argument("output")
    s.add_argument("--shard", type=int_in(0), default=0, help="0-based shard number")
    s.add_argument("--shard-size", type=int_in(1), default=1000, help="input lines per shard")
    s.add_argument("--format", default="auto")
    s.add_argument("--strict", action="store_true", help="fail on the first malformed instance")
    s.add_argument("--sha256", default=None,
                   help="checksum the workflow planned with: fail if the input changed since")
    s.add_argument("--size-limits", default="{}",
                   help="JSON of size limits (satdoku.size_limits.SizeLimits fields, e.g. "
                   "max_cells)")

    s = sub.add_parser("encode", help="Instances shard -> CNF bundle (SatInput)")
    s.add_argument("instances")
    s.add_argument("output")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--encoding", default=DEFAULT_ENCODING)
    s.add_argument("--size-limits", default="{}", help="JSON of size limits "
                   "(satdoku.size_limits.SizeLimits fields; max_clauses: the memory guard of "
                   "the encoding)")

    s = sub.add_parser("solve", help="run one solver over a shard: SatOutput (SAT solvers), "
                       "SatOutputTimes and verified SatSols")
    s.add_argument("instances", help="Instances shard")
    s.add_argument("--bundle", help="SatInput bundle of the shard (SAT solvers)")
    s.add_argument("--solver", required=True)
    s.add_argument("--encoding", default=DEFAULT_ENCODING,
                   help="the bundle's encoding (direct: puzzle-level, dimacs: CNF set)")
    s.add_argument("--variants", type=solver_variants, default={},
                   help="JSON of configured solver variants (options checked)")
    s.add_argument("--time-limit", type=positive_seconds, default=None)
    s.add_argument("--verify-time-limit", type=positive_seconds, default=None,
                   help="budget of each UNSAT proof check (default: the time limit)")
    add_limit_arguments(s)
    s.add_argument("--output", help="SatOutput shard (SAT solvers)")
    s.add_argument("--repeats", type=int_in(1, 100), default=1,
                   help="solve each instance this many times; times are their median, with "
                   "min and max (default 1)")
    s.add_argument("--sols", required=True, help="SatSols shard")
    s.add_argument("--times", required=True, help="SatOutputTimes shard")

    s = sub.add_parser("decode", help="decode + verify a SatOutput shard into a SatSols shard")
    s.add_argument("instances")
    s.add_argument("output")
    s.add_argument("sols")
    s.add_argument("--encoding", default=DEFAULT_ENCODING, help="encoding the models satisfy")

    s = sub.add_parser("gather", help="concatenate shard TSVs of a set in order")
    s.add_argument("shards", nargs="+")
    s.add_argument("--tsv", required=True)
    s.add_argument("--txt", help="also write one SatSols line per instance here")
    s.add_argument("--kind", choices=["sols", "times", "unique"], default="sols")

    s = sub.add_parser("report", help="text report + time plot of a set")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--instances", nargs="+", required=True)
    s.add_argument("--sols", nargs="*", default=[], help="RUN=PATH of gathered SatSols TSVs")
    s.add_argument("--times", nargs="*", default=[], help="RUN=PATH of gathered times TSVs")
    s.add_argument("--time-limit", type=positive_seconds)
    s.add_argument("--txt", required=True)
    s.add_argument("--png", required=True)
    s.add_argument("--unique", help="gathered uniqueness TSV of the set (optional)")
    s.add_argument("--skipped", nargs="*", default=[],
                   help="configured solvers that do not run on this set (named in the report)")
    s.add_argument("--table-md", help="also write the set's solver table here (with --table-csv)")
    s.add_argument("--time-column", default="total_seconds", type=time_column,
                   help="the time the solver table uses: total_seconds (default), "
                   "solve_seconds or cpu_seconds")
    s.add_argument("--table-csv", help="... and its CSV here")
    s.add_argument("--table-html", help="... and its HTML here (optional)")

    s = sub.add_parser("propagation", help="what propagation alone decides on a set's "
                       "instances per encoding (the files of satdoku analyze)")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--instances", nargs="+", required=True, help="the set's Instances shards")
    s.add_argument("--encodings", nargs="+", required=True)
    s.add_argument("--out", required=True, help="directory of the propagation files")
    s.add_argument("--no-fl", dest="probe", action="store_false",
                   help="skip failed-literal probing")
    s.add_argument("--sample", type=int_in(1), default=None,
                   help="analyse a seeded sample of this many valid instances when the set "
                   "has more (default: every instance)")

    s = sub.add_parser("unique", help="count solutions (0, 1, 2+) of every puzzle of a bundle")
    s.add_argument("bundle", help="CNF bundle of the extended encoding")
    s.add_argument("output")
    s.add_argument("--time-limit", type=positive_seconds, default=10.0)

    s = sub.add_parser("record", help="the run's manifest (run.json), stored run (Parquet) "
                       "and instances_wide.csv from every set's gathered stage files")
    s.add_argument("files", nargs="+", help="gathered stage files (Instances, SatSols, times)")
    s.add_argument("--config", required=True, help="JSON of the run's checked configuration")
    s.add_argument("--results", required=True, help="results directory (runs/ store inside)")
    s.add_argument("--manifest", required=True, help="run.json to write")
    s.add_argument("--wide", required=True, help="instances_wide.csv to write")

    s = sub.add_parser("check", help="list the set's problems (OK when none); fail (exit 1) on "
                       "wrong answers or solver disagreements")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--sols", nargs="*", default=[], help="RUN=PATH of gathered SatSols TSVs")
    s.add_argument("--out", required=True)


def run(args: argparse.Namespace) -> int:
    """Run one stage; a malformed input or stage file is one line on stderr and exit 1."""
    try:
        return _run(args)
    except stage_errors() as exc:
        where = ""
        if isinstance(exc, OSError) and not exc.filename:  # e.g. disk full while writing
            outputs = [getattr(args, k, None) for k in ("output", "sols", "times", "tsv", "out")]
            where = f" (writing {', '.join(str(o) for o in outputs if o)})"
        print(f"satdoku pipeline {args.stage}: {exc}{where}", file=sys.stderr, flush=True)
        return 1


def _run(args: argparse.Namespace) -> int:
    """Each stage's module is imported when that stage runs: a job pays the imports of its
    own stage only (a gather job does not load the solvers, the analysis or the plots)."""
    if getattr(args, "size_limits", None):
        set_default_size_limits(SizeLimits(**json.loads(args.size_limits)))
    if args.stage == "normalize":
        from satdoku.pipeline.stage_normalize import normalize
        counts = normalize(args.source, args.output, args.shard, args.shard_size, args.format,
                           args.strict, args.sha256)
        print(f"normalize {args.source} shard {args.shard}: {counts['instances']} instances, "
              f"{counts['invalid']} invalid")
    elif args.stage == "encode":
        from satdoku.pipeline.stage_encode import encode_shard
        n = encode_shard(args.instances, args.output, args.set_name, args.encoding)
        print(f"encode {args.instances}: {n} instances ({args.encoding})")
    elif args.stage == "solve":
        from satdoku.pipeline.stage_solve import ShardFiles, SolveSettings, solve_shard
        counts = solve_shard(
            ShardFiles(args.instances, args.times, args.sols, args.bundle, args.output),
            SolveSettings(args.solver, args.encoding, args.variants, run_limits(args),
                          args.repeats, args.cores))
        print(f"solve {args.instances} with {args.solver}: {counts}")
    elif args.stage == "decode":
        from satdoku.pipeline.stage_decode import decode_shard
        counts = decode_shard(args.instances, args.output, args.sols, args.encoding)
        print(f"decode {args.output}: {counts}")
    elif args.stage == "gather":
        from satdoku.stagefiles.tsv import gather
        n = gather(args.shards, args.tsv, args.kind, args.txt)
        print(f"gather: {n} rows -> {args.tsv}")
    elif args.stage == "report":
        from satdoku.pipeline.stage_report import report_set
        n = report_set(args.set_name, args.instances, args.sols, args.times, args.txt, args.png,
                       args.time_limit, args.unique, args.skipped, args.table_md,
                       args.table_csv, args.table_html, args.time_column)
        print(f"report {args.set_name}: {n} problems")
    elif args.stage == "propagation":
        from satdoku.pipeline.stage_propagation import propagation_set
        n = propagation_set(args.set_name, args.instances, args.out, args.encodings,
                            args.probe, sample=args.sample)
        print(f"propagation {args.set_name}: {n} layout x encoding rows -> {args.out}")
    elif args.stage == "unique":
        from satdoku.pipeline.stage_unique import unique_shard
        print(f"unique {args.bundle}: {unique_shard(args.bundle, args.output, args.time_limit)}")
    elif args.stage == "record":
        from satdoku.pipeline.stage_record import record_run
        m = record_run(args.files, json.loads(args.config), args.results, args.manifest,
                       args.wide)
        print(f"record: run {m['run_id']} ({m['start']} -> {m['end']})")
    elif args.stage == "check":
        from satdoku.pipeline.stage_report import check_set
        problems, wrong = check_set(args.set_name, args.sols, args.out)
        for p in problems:
            print(f"{'ERROR' if p in wrong else 'PROBLEM'}: {p}", file=sys.stderr)
        return 1 if wrong else 0
    return 0
