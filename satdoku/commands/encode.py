"""`satdoku encode FILE -o DIR`: one standalone DIMACS file per puzzle of a file."""

from __future__ import annotations

import argparse
from pathlib import Path

from satdoku.cnf.dimacs import write_dimacs
from satdoku.cnf.encode import encode, variable_comment
from satdoku.cnf.encodings import (
    DEFAULT_ENCODING,
    ENCODINGS,  # the registry: every named encoding
    Unencodable,
)
from satdoku.formats import read_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file (any supported format)")
    p.add_argument("-o", "--output", required=True, help="directory for <stem>_<id>.cnf files")
    p.add_argument("--encoding", default=DEFAULT_ENCODING, choices=list(ENCODINGS),
                   metavar="ENCODING",
                   help=f"one of {', '.join(ENCODINGS)} (default {DEFAULT_ENCODING})")
    p.add_argument("--format", default="auto", help="force a reader")


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(args.file).stem
    written = invalid = 0
    for rec in read_records(args.file, args.format):
        if rec.puzzle is None:
            invalid += 1
            print(f"{args.file}:{rec.line}: instance {rec.id} INVALID: {rec.error}")
            continue
        try:
            cnf = encode(rec.puzzle, args.encoding)
        except Unencodable as exc:  # augmented on a Latin square: one line, like INVALID
            invalid += 1
            print(f"{args.file}:{rec.line}: instance {rec.id} not encoded: {exc}")
            continue
        p = rec.puzzle
        cnf.comments = [
            f"satdoku instance {rec.id} of {args.file} (line {rec.line})"
            + (f": {rec.name}" if rec.name else ""),
            f"set {stem} kind {p.kind} size {p.size} order {p.layout.box or p.size} "
            f"encoding {args.encoding}",
            variable_comment(p, args.encoding),
            *cnf.comments,  # the encoder's own (a simplified formula's kept count, ...)
        ]
        with open(out / f"{stem}_{rec.id}.cnf", "w", encoding="utf-8") as fh:
            write_dimacs(cnf, fh)
        written += 1
    print(f"wrote {written} CNF files to {out} ({invalid} invalid or unencodable instances "
          "skipped)")
    return 0
