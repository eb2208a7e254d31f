"""`satdoku solve FILE`: solve every instance of a file, one SatSols line per instance.

Every instance goes through the one solve path (:func:`satdoku.solve.solve`), exactly as in the
workflow: the time limit covers encoding, loading and search; models are decoded with the chosen
encoding and verified, UNSAT answers of our solvers are proof-checked. FILE is a puzzle file
(any supported format) or a DIMACS file / directory of DIMACS files (a CNF set: each line then
starts with its file's name and a tab).
Exit codes: 0 every answer checked; 1 a wrong answer, or FILE changed while it was solved;
2 a usage error (unknown solver, encoding or format; bad limit; unreadable file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from satdoku.cnf.encodings import (
    DEFAULT_ENCODING,
    ENCODINGS,  # the registry: every named encoding
)
from satdoku.cnf.encodings import get as get_encoding
from satdoku.cnf.formula import Cnf, Formula
from satdoku.commands.common import add_limit_arguments, positive_seconds, run_limits
from satdoku.config import size_limits_of_file, solvers_of_file
from satdoku.formats.cnfset import NOTATION as CNF_SET
from satdoku.pipeline.stage_normalize import set_records
from satdoku.progress import track
from satdoku.set_plans import is_cnf_set, plan
from satdoku.size_limits import SizeLimits, set_default_size_limits
from satdoku.solve import assign_cores, open_solver, solve
from satdoku.solvers.external import check_options
from satdoku.solvers.measurement import MeasurementError, backend
from satdoku.solvers.registry import CNF, SOLVERS
from satdoku.solvers.result import FAILED
from satdoku.sources import read_snapshot
from satdoku.stagefiles.tsv import GIVEN_DIFFERS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file (any supported format, auto-detected) or a "
                   "DIMACS file / directory of DIMACS files")
    p.add_argument("--solver", default="minisat22", help="solver name (default: minisat22)")
    p.add_argument("--encoding", default=None, metavar="ENCODING",
                   help=f"CNF encoding of the puzzles for a SAT solver: {', '.join(ENCODINGS)} "
                   "(default extended); refused where nothing is encoded (a puzzle-level "
                   "solver, a CNF set)")
    p.add_argument("--time-limit", type=positive_seconds, default=None,
                   help="seconds per instance, encoding and loading included")
    p.add_argument("--verify-time-limit", type=positive_seconds, default=None,
                   help="budget of each UNSAT proof check, apart from the time limit (default: "
                   "the time limit); a check that runs out leaves the answer unchecked (-)")
    add_limit_arguments(p)
    p.add_argument("--configfile", help="a configuration file whose solvers (variants, "
                   "external binaries) --solver may name, and whose size_limits: (size guard) hold")
    p.add_argument("--command", help="run this solver binary, e.g. \"cadical -q {cnf}\" (split "
                   "like a shell word list, never run by a shell; see docs/solvers.md)")
    p.add_argument("--format", default="auto", help="force a reader (line, ndigits, csv, ...)")
    p.add_argument("--times", action="store_true", help="append status and ms after each line")


def run(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        print(f"satdoku solve: {message}", file=sys.stderr)
        return 2

    try:
        variants = _variants(args)
        solver = open_solver(args.solver, variants)
        limits = run_limits(args)
        if solver.in_child:  # `measurement: benchexec` where it cannot work: one line
            backend(limits.measurement)
    except (KeyError, ValueError, MeasurementError) as exc:
        return fail(str(exc.args[0]))
    try:
        encoding = args.encoding or DEFAULT_ENCODING
        if solver.level == CNF:
            get_encoding(encoding)
        elif args.encoding is not None:
            return fail(f"--encoding {args.encoding}: nothing is encoded ({args.solver} solves "
                        "the puzzles themselves)")
        before, records, cnf_set, kept = _read(args.file, args.format)
        if args.encoding is not None and cnf_set:
            return fail(f"--encoding {args.encoding}: nothing is encoded ({args.file} is a CNF "
                        "set, its files are the formulas)")
    except (ValueError, OSError) as exc:  # InputError, FormatError, DimacsError, ...
        return fail(str(exc))
    several = cnf_set and Path(args.file).is_dir()  # a directory: each line names its file
    if not records:  # an empty or comment-only file: say so, it is not an error
        print(f"satdoku solve: {args.file}: no instances (empty, or only blank and # comment "
              "lines)", file=sys.stderr)
    wrong = 0
    limits = assign_cores(limits, getattr(args, "cores", 1))
    for rec in track(records, desc=f"solve {args.solver}", unit="instances"):
        answer = solve(rec, solver, encoding, limits, _kept(kept, rec.index))  # then dropped
        row = answer.sols_row(rec)
        wrong += answer.verified == FAILED
        if answer.detail == GIVEN_DIFFERS:  # as the workflow's report and check say it
            print(f"satdoku solve: {args.file}: instance {rec.id} (line {rec.line}): the "
                  f"solution given in the input differs from the verified answer of "
                  f"{args.solver} (the puzzle has several solutions, or the given one is "
                  "wrong)", file=sys.stderr)
        times = (f"\t{answer.status}\t{answer.result.total_seconds * 1000:.1f} ms"
                 if args.times else "")
        # one write: an interrupt never splits a line (and one copy of a model's text)
        sys.stdout.write("".join((f"{rec.name}\t" if several else "", str(row["solution"]),
                                  times, "\n")))
        sys.stdout.flush()
    try:
        changed = plan(args.file, CNF_SET if cnf_set else args.format).sha256 != before
    except (ValueError, OSError):
        changed = True
    if changed:
        print(f"satdoku solve: {args.file} changed while it was being solved: the lines above "
              f"are for the version read at the start (sha256 {before[:12]}...)",
              file=sys.stderr)
        return 1
    return 1 if wrong else 0


def _kept(kept: dict[int, Cnf], index: int) -> Formula | None:
    """The formula the read kept for instance ``index``, taken out of ``kept``: once its solve
    returns nothing holds it, so its memory is free before the answer's text is built."""
    cnf = kept.pop(index, None)
    return Formula.of(cnf) if cnf is not None else None


def _variants(args: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    """The solver variants ``--solver`` may name: a configuration file's, and ``--command``
    as a solver of its own (named by ``--solver`` when it names no registered solver, else
    ``command``)."""
    variants = solvers_of_file(args.configfile) if args.configfile else {}
    if args.configfile:  # the file's size guard holds here as in the workflow
        set_default_size_limits(SizeLimits(**size_limits_of_file(args.configfile)))
    if args.command is not None:  # an empty --command is a usage error, never the default
        entry = {"solver": "external", "command": args.command}
        check_options(entry)
        if args.solver in SOLVERS:  # the default minisat22: --command alone names the binary
            args.solver = "command"
        variants[args.solver] = entry
    return variants


def _read(path: str, fmt: str) -> tuple[str, list, bool, dict[int, Cnf]]:  # type: ignore[type-arg]
    """(checksum, records, whether it is a CNF set, formulas kept from the read by record
    index) of a puzzle file or CNF set, read once: the records are what was read then,
    whatever happens to the file while it is solved. A single DIMACS file keeps its formula
    from that read (``set_records``' ``kept``): the solve needs no second pass over it. A
    directory's files are all read before the first is solved, so holding their formulas
    would cost the whole set's size in memory: they are read again. The file's kind is found
    once (a CNF set is then planned as ``dimacs``, which it is)."""
    if is_cnf_set(path, fmt):
        kept: dict[int, Cnf] = {}
        records = list(set_records(path, CNF_SET, kept=kept if Path(path).is_file() else None))
        known = {r.cnf.path: r.cnf.sha256 for r in records if r.cnf is not None}
        return plan(path, CNF_SET, known).sha256, records, True, kept
    snapshot = read_snapshot(path)
    return snapshot.sha256, list(set_records(path, fmt, snapshot=snapshot)), False, {}
