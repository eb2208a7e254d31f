"""`satdoku analyze FILE|DIR`: what each encoding lets propagation decide alone, no search.

For every instance and encoding: unit propagation (UP) on the encoding plus the givens,
UP with failed-literal probing to a fixpoint (FL), and the human naked and hidden singles:
solved (every cell decided), open (how many cells not), or refuted (a conflict: no solution).
Writes DIR/propagation.csv (per encoding), propagation_instances.tsv (per instance),
propagation.md and propagation.png, and prints the table. FILE is a puzzle file (any format);
DIR a CNF set (UP and FL on each formula as it is). Exit codes: 0 done; 1 a board an inference
called solved failed verification (a bug); 2 a usage error (unknown encoding, unreadable file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from satdoku.analysis.set_analysis import VerificationError, analyze
from satdoku.cnf.encodings import ENCODINGS, get
from satdoku.formats import read_records
from satdoku.report.propagation_report import markdown, write_outputs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="puzzle file (any supported format), or a DIMACS file / "
                   "directory of DIMACS files")
    p.add_argument("--encodings", nargs="+", metavar="ENCODING",
                   help="encodings to measure (default: every one that applies: "
                   f"{', '.join(n for n, e in ENCODINGS.items() if not e.simplified)}; the "
                   "simplified ones propagate as extended does)")
    p.add_argument("--out", help="output directory (default: analyze_<file stem>)")
    p.add_argument("--set", dest="set_name", help="the set's name in the files (default: the "
                   "file's stem)")
    p.add_argument("--no-fl", dest="probe", action="store_false",
                   help="skip failed-literal probing")
    p.add_argument("--no-singles", dest="singles", action="store_false",
                   help="skip the human singles")
    p.add_argument("--format", default="auto", help="force a reader (line, ndigits, csv, ...)")
    p.add_argument("--backend", choices=("auto", "c", "python"), default="auto",
                   help="propagation kernel: the compiled one (auto, c) or its readable twin "
                   "(python, slow)")


def run(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        print(f"satdoku analyze: {message}", file=sys.stderr)
        return 2

    name = args.set_name or Path(args.file).stem
    try:
        for e in args.encodings or ():
            get(e)
        records = list(read_records(args.file, args.format))
    except (ValueError, OSError) as exc:  # unknown encoding, InputError, FormatError, ...
        return fail(str(exc))
    try:
        result = analyze(records, name, args.encodings, probe=args.probe,
                         singles=args.singles, backend=args.backend)
    except VerificationError as exc:
        print(f"satdoku analyze: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # a simplified encoding, the C kernel not built
        return fail(str(exc))
    out = Path(args.out or f"analyze_{name}")
    paths = write_outputs(result.instances, result.summary, out, name)
    sys.stdout.write(markdown(result.summary, name))
    print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0
