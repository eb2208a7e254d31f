"""`satdoku report STAGE ...`: tables, plots and summary pages (the report rules call these).

table (per set) ; sizes (formula sizes of a set's bundles) ; cactus ; scatter ; encodings ;
summary (which can make the cactus, scatter and encodings outputs too, from one read of the
stage files: the workflow's summary rule does) ; explorer (the static results explorer).
Cross-set stages take the gathered stage files themselves (Instances shards, SatSols and
SatOutputTimes TSVs: the rules pass their inputs; by hand, e.g.
``results/Instances/*/*.jsonl results/SatSols/*/*/*.tsv results/SatOutputTimes/*/*/*.tsv``);
each file's set and run are read from its path in the stage-file layout.
"""

from __future__ import annotations

import argparse

from satdoku.commands.common import positive_seconds
from satdoku.report.collect import TIME_COLUMNS, TimeLimits


def _cross(s: argparse.ArgumentParser) -> None:
    s.add_argument("files", nargs="+", help="Instances shards, SatSols and SatOutputTimes TSVs")
    s.add_argument("--time-limit", type=positive_seconds,
                   help="time limit of the sets not named in --set-time-limit")
    s.add_argument("--set-time-limit", nargs="*", default=[], metavar="SET=SECONDS",
                   help="a set's own time limit (PAR-2, limit lines, timeouts in plots)")
    s.add_argument("--time-column", default="total_seconds",
                   choices=list(TIME_COLUMNS),
                   help="the time every figure uses (default: total_seconds)")


def _limits(args: argparse.Namespace):
    """The one TimeLimits of a cross-set stage (a bad SET=SECONDS is one line, exit 2)."""
    try:
        return TimeLimits.parse(args.time_limit, args.set_time_limit)
    except ValueError as exc:
        raise SystemExit(f"satdoku report {args.stage}: {exc}") from None


def _summary_request(args: argparse.Namespace):
    """The summary's request from its arguments (a bad combination is one line)."""
    from satdoku.report import report_stages as build

    try:
        encodings = build.EncodingsFiles(args.encodings_md, args.encodings_csv, args.encodings_png)
    except ValueError as exc:
        raise SystemExit(f"satdoku report summary: {exc}") from None
    return build.SummaryRequest(
        args.files, _limits(args), args.md, args.csv, args.html, args.problems,
        pairs_csv=args.pairs, cactus_dir=args.cactus_dir, scatter_dir=args.scatter_dir,
        linked_plots=dict(p.split("=", 1) for p in args.plots), encodings=encodings,
        sizes=args.sizes, propagation=args.propagation, pages_dir=args.pages_dir,
        variants=build.parse_variants(args.variants), time_column=args.time_column)


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="stage", metavar="STAGE", required=True)

    s = sub.add_parser("table", help="per-set solver table: Markdown, CSV, HTML")
    s.add_argument("--set", dest="set_name", required=True)
    s.add_argument("--instances", nargs="+", required=True, help="Instances JSONL shards")
    s.add_argument("--sols", nargs="*", default=[], help="RUN=PATH of gathered SatSols TSVs")
    s.add_argument("--times", nargs="*", default=[], help="RUN=PATH of gathered times TSVs")
    s.add_argument("--time-limit", type=positive_seconds)
    s.add_argument("--md", required=True)
    s.add_argument("--csv", required=True)
    s.add_argument("--html")

    s = sub.add_parser("sizes", help="variables / clauses / bytes of every instance of bundles")
    s.add_argument("bundles", nargs="+")
    s.add_argument("--encoding", default="")
    s.add_argument("--out", required=True)

    s = sub.add_parser("cactus", help="one cactus plot per instance family")
    _cross(s)
    s.add_argument("--out-dir", required=True)

    s = sub.add_parser("scatter", help="our SAT solvers against each reference solver")
    _cross(s)
    s.add_argument("--out-dir", required=True)
    s.add_argument("--variants", default="{}", help="JSON of configured solvers (variants)")

    s = sub.add_parser("encodings", help="encoding comparison: table + plot")
    _cross(s)
    s.add_argument("--sizes", nargs="*", default=[], help="CNF sizes files (results layout)")
    s.add_argument("--propagation", nargs="*", default=[],
                   help="propagation_instances files of analysed sets (results layout)")
    s.add_argument("--variants", default="{}", help="JSON of configured solvers (variants)")
    s.add_argument("--md", required=True)
    s.add_argument("--csv", required=True)
    s.add_argument("--png", required=True)

    s = sub.add_parser("summary", help="summary.md/.csv/.html across sets, problems first")
    _cross(s)
    s.add_argument("--md", required=True)
    s.add_argument("--csv", required=True)
    s.add_argument("--html", required=True)
    s.add_argument("--problems", required=True, help="HTML fragment of the problems (red)")
    s.add_argument("--plots", nargs="*", default=[], help="SECTION=DIR of PNGs to link")
    s.add_argument("--encodings-md", help="encodings table (Markdown) to include")
    s.add_argument("--encodings-csv", help="encodings table (CSV) to include")
    s.add_argument("--pages-dir", default="results/Reports",
                   help="where CSP/LTN pages are looked for")
    s.add_argument("--cactus-dir", help="also draw the cactus plots here (and link them)")
    s.add_argument("--scatter-dir", help="also draw the scatter plots here (and link them)")
    s.add_argument("--variants", default="{}", help="JSON of configured solvers (scatter)")
    s.add_argument("--encodings-png", help="also write the encodings table (to --encodings-md "
                   "and --encodings-csv) and this plot, from --sizes")
    s.add_argument("--sizes", nargs="*", default=[], help="CNF sizes files (results layout)")
    s.add_argument("--propagation", nargs="*", default=[],
                   help="propagation_instances files of analysed sets (results layout): the "
                   "encodings table's UP / FL columns")
    s.add_argument("--pairs", help="also write the paired comparison of every two runs of a "
                   "set (pairs.csv)")

    s = sub.add_parser("explorer", help="static results explorer: OUT/index.html + data files")
    _cross(s)
    s.add_argument("--out", default="reports/explorer", help="folder of index.html")
    s.add_argument("--variants", default="{}", help="JSON of configured solvers (variants)")
    s.add_argument("--pages-dir", help="where CSP/LTN results are looked for "
                   "(default: RESULTS/Reports)")


def run(args: argparse.Namespace) -> int:
    if args.stage == "sizes":  # a CNF sizes job: the bundles' reader, not the reports
        from satdoku.stagefiles.bundles import write_sizes_of

        print(f"sizes: {write_sizes_of(args.bundles, args.encoding, args.out)} instances")
        return 0
    # each workflow job imports what its stage needs (issue 29 goal 2)
    from satdoku.report import report_stages as build

    if args.stage == "table":
        n = build.set_table(args.set_name, args.instances, args.sols, args.times,
                            args.time_limit, args.md, args.csv, args.html)
        print(f"table {args.set_name}: {n} problems")
    elif args.stage == "cactus":
        fams = build.cactus_plots(args.files, _limits(args), args.out_dir,
                                  time_column=args.time_column)
        print(f"cactus: families {', '.join(fams) or '(none with data)'}")
    elif args.stage == "scatter":
        names = build.scatter_plots(args.files, _limits(args), args.out_dir,
                                    build.parse_variants(args.variants),
                                    time_column=args.time_column)
        print(f"scatter: {', '.join(names) or '(no pair of our solver and a reference)'}")
    elif args.stage == "encodings":
        n = build.encoding_report(args.files, args.sizes, args.md, args.csv, args.png,
                                  variants=build.parse_variants(args.variants),
                                  time_column=args.time_column, propagation=args.propagation)
        print(f"encodings: {n} family x set x encoding rows")
    elif args.stage == "summary":
        n = build.summary(_summary_request(args))
        print(f"summary: {n} problems -> {args.md}")
    elif args.stage == "explorer":
        from satdoku.report.explorer.site import explorer_from_files

        ov = explorer_from_files(args.files, _limits(args), args.out,
                                 build.parse_variants(args.variants), args.pages_dir,
                                 time_column=args.time_column)
        print(f"explorer: {sum(s['n'] for s in ov['sets'])} instances, {len(ov['runs'])} runs, "
              f"{ov['problems_total']} problems -> {args.out}/index.html")
    return 0
