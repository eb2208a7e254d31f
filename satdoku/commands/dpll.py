"""`satdoku dpll FILE [FILE ...]`: run our own SAT solver on DIMACS files, SAT-competition style:
DPLL by default, our CDCL with ``--mode cdcl``.

For each file: ``c`` lines (times, statistics), the ``s`` line and ``v`` lines. One file: exit
10 for SAT, 20 for UNSAT, 0 when undecided (time limit), 1 for unreadable input. Several files
(start-up paid once): one block per file, opened by ``c file NAME``, then a ``c summary`` line;
exit 1 if a file was unreadable, else 0 if one was undecided, else 10 (all SAT), 20 (all
UNSAT) or 30 (all decided, both answers). A file is a formula: the command loads the DIMACS
reader, the solver it runs and the checks of its answer (the solve path's core,
:mod:`satdoku.solver_run`), never the puzzle, format or stage-file modules
(tests/test_startup.py keeps it so); the cdcl mode (the compiled kernel) imports no numpy.
"""

from __future__ import annotations

import os
import sys
import time

from satdoku.cnf.dimacs import v_lines
from satdoku.cnf.dimacs_fast import DimacsError
from satdoku.commands.common import int_in
from satdoku.solver_run import open_solver, read_formula, solve_formula
from satdoku.solvers.base import RunLimits
from satdoku.solvers.choices import HEURISTICS
from satdoku.solvers.result import FAILED
from satdoku.sources import InputError, read_snapshot, snapshot_from_bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only: argparse loads only when a parser is built
    import argparse
    from typing import Any

MODES = ("dpll", "cdcl")
PROOF_FORMATS = ("lrat", "drat")  # = the solvers' (dpll.PROOF_FORMATS, cdcl.PROOF_FORMATS)
#: proof file suffix of each format, in a batch's proof directory
PROOF_SUFFIX = {"lrat": ".lrat", "drat": ".drup"}
EXIT = {"SAT": 10, "UNSAT": 20}
BATCH_HELP = """\
several files: start-up is paid once and each file gets its own block (``c file NAME``, its
c / s / v lines, its own time limit); a ``c summary`` line closes the output. Exit code, one
file: 10 SAT, 20 UNSAT, 0 undecided, 1 unreadable. Several files: 1 if any file was
unreadable, else 0 if any was undecided, else 10 (all SAT), 20 (all UNSAT) or 30 (both)."""


#: The command's arguments, one row each: (names, argparse settings). :func:`add_arguments`
#: hands them to argparse; :mod:`satdoku.commands.plain_args` reads a plain command line by the
#: same rows without argparse (issue 29: argparse and its message catalogue look-ups cost a
#: one-shot process about 18 million instructions, a third of its own start-up).
ARGUMENTS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("files",), dict(
        nargs="+", metavar="FILE",
        help="DIMACS CNF file(s) (.cnf, .cnf.gz, .cnf.xz; '-' = stdin)")),
    (("--mode",), dict(
        choices=MODES, default="dpll",
        help="dpll: the readable pure-Python DPLL (default, as the command's name says); "
        "cdcl: clause learning, the compiled kernel (the fast one)")),
    (("--heuristic",), dict(
        default=None,
        help=f"dpll branching heuristic: {', '.join(HEURISTICS)} "
        "(default vsids); cdcl accepts only vsids")),
    (("--pure-literals",), dict(
        action="store_true",
        help="dpll: pure-literal elimination (off while writing a proof)")),
    (("--restarts",), dict(
        choices=("mixed", "luby", "glucose", "none"), default=None,
        help="cdcl restart policy (default mixed: glucose and Luby phases alternating)")),
    (("--no-simplify",), dict(
        action="store_true",
        help="cdcl: skip the preprocessing (variable elimination, subsumption) before the "
        "search (the solver cdcl-nosimp)")),
    (("--time-limit",), dict(
        type=float, default=None, metavar="S",
        help="give up after S seconds per file, reading and loading the file included "
        "(status UNKNOWN)")),
    (("--verify-time-limit",), dict(
        type=float, default=None, metavar="S",
        help="budget of the UNSAT proof check, apart from --time-limit (default: the time "
        "limit; none without one); a check that runs out leaves the answer unchecked")),
    (("--proof",), dict(
        default=None, metavar="PATH",
        help="write the proof of an UNSAT answer to PATH (--proof-format); with several files "
        "PATH is a directory that receives NAME.lrat (or NAME.drup) per UNSAT file")),
    (("--proof-format",), dict(
        choices=PROOF_FORMATS, default="lrat",
        help="lrat (default): clause ids and hints, as cadical --lrat writes, checked in "
        "linear time; drat: DRUP in drat-trim's text format")),
    (("--seed",), dict(type=int_in(0), default=0, help="random seed (heuristic 'random')")),
    (("--no-model",), dict(action="store_true", help="omit the v lines")),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from satdoku.commands.help_format import RawDescriptionHelpFormatter

    parser.formatter_class = RawDescriptionHelpFormatter
    parser.epilog = BATCH_HELP
    for names, settings in ARGUMENTS:
        parser.add_argument(*names, **settings)


def run(args: argparse.Namespace) -> int:
    heuristic = args.heuristic or "vsids"
    if args.mode == "dpll" and heuristic not in HEURISTICS:
        print(f"satdoku dpll: unknown heuristic {heuristic!r}", file=sys.stderr)
        return 1
    if args.mode == "cdcl" and heuristic != "vsids":
        print("satdoku dpll: --mode cdcl branches with vsids only", file=sys.stderr)
        return 1
    if args.time_limit is not None and not (0 < args.time_limit < float("inf")):
        print("satdoku dpll: --time-limit must be a positive number of seconds", file=sys.stderr)
        return 1
    if args.verify_time_limit is not None and not (0 < args.verify_time_limit < float("inf")):
        print("satdoku dpll: --verify-time-limit must be a positive number of seconds",
              file=sys.stderr)
        return 1
    batch = len(args.files) > 1
    if batch and args.proof is not None:
        os.makedirs(args.proof, exist_ok=True)
    codes = []
    for path in args.files:
        if batch:
            sys.stdout.write(f"c file {path}\n")
        proof = args.proof
        if batch and proof is not None:
            proof = os.path.join(args.proof, os.path.basename(path)
                                 + PROOF_SUFFIX[args.proof_format])
        codes.append(_one_file(path, args, heuristic, proof))
        sys.stdout.flush()
    if not batch:
        return codes[0]
    return _summary(codes)


def _one_file(path: str, args: argparse.Namespace, heuristic: str, proof: str | None) -> int:
    """Solve one file through the solve path's core (:func:`satdoku.solver_run.solve_formula`,
    the one :func:`satdoku.solve.solve` runs too: the limit covers reading and loading, a model
    is checked clause by clause, an UNSAT proof is checked) and print its block; returns its
    exit code. A file is a formula here, never a puzzle: no format, encoding or stage file."""
    start = time.perf_counter()
    try:
        snapshot = (snapshot_from_bytes(sys.stdin.buffer.read(), "<stdin>") if path == "-"
                    else read_snapshot(path))
        formula = read_formula(snapshot.data, path)
    except (DimacsError, InputError, OSError) as exc:  # unreadable input
        message = str(exc) if isinstance(exc, (DimacsError, InputError)) else f"{path}: {exc}"
        print(f"satdoku dpll: {message}", file=sys.stderr)
        sys.stdout.write(f"c error {message}\ns UNKNOWN\n")
        return 1
    parsed = time.perf_counter()
    solver = open_solver("cli", {"cli": _options(args, heuristic)})
    limit = None
    if args.time_limit is not None:  # reading counted: the solve path gets what is left
        limit = max(1e-6, args.time_limit - (parsed - start))
    check_limit = args.verify_time_limit if args.verify_time_limit is not None else args.time_limit
    result, verdict = solve_formula(solver, formula,
                                    RunLimits(time_limit=limit, verify_time_limit=check_limit),
                                    proof_path=proof)
    total = (parsed - start) + result.total_seconds  # the answer's check is not the solver's
    out = sys.stdout
    out.write(f"c satdoku {_label(args, heuristic)}\n")
    out.write(f"c parse_seconds {parsed - start:.6f}\n"
              f"c build_seconds {max(0.0, result.total_seconds - result.solve_seconds):.6f}\n"
              f"c solve_seconds {result.solve_seconds:.6f}\n"
              f"c total_seconds {total:.6f}\n"
              f"c check_seconds {result.check_seconds:.6f}\n")
    for key, value in result.stats.items():
        out.write(f"c {key} {value}\n")
    out.write(f"c verified {verdict.verified}"
              + (f" ({verdict.detail})" if verdict.detail else "") + "\n")
    if result.status == "UNSAT" and proof:
        out.write(f"c proof written to {proof}\n")
    out.write({"SAT": "s SATISFIABLE\n", "UNSAT": "s UNSATISFIABLE\n"}.get(result.status,
                                                                          "s UNKNOWN\n"))
    if result.status == "SAT" and result.model is not None and not args.no_model:
        out.write(v_lines(result.model))
    if verdict.verified == FAILED:
        print(f"satdoku dpll: {path}: wrong answer: {verdict.detail}", file=sys.stderr)
        return 1
    return EXIT.get(result.status, 0)


def _options(args: argparse.Namespace, heuristic: str) -> dict:  # type: ignore[type-arg]
    """The configured-solver options of the command line (checked by the solver itself)."""
    if args.mode == "dpll":
        return {"solver": "dpll", "heuristic": heuristic, "pure_literals": args.pure_literals,
                "seed": args.seed, "proof": args.proof_format}
    return ({"solver": "cdcl", "proof": args.proof_format}
            | ({} if args.restarts is None else {"restarts": args.restarts})
            | ({"simplify": False} if args.no_simplify else {}))


def _label(args: argparse.Namespace, heuristic: str) -> str:
    if args.mode == "dpll":
        return f"dpll ({heuristic})"
    from satdoku.solvers.cdcl.driver import choose_backend  # loaded by the cdcl mode anyway

    simplify = "" if args.no_simplify else ", preprocessing"
    return f"cdcl (vsids, {choose_backend()} kernel{simplify})"


def _summary(codes: list[int]) -> int:
    """The closing line of a batch, and its exit code."""
    sat, unsat = codes.count(10), codes.count(20)
    unreadable, undecided = codes.count(1), codes.count(0)
    sys.stdout.write(
        f"c summary {len(codes)} files: {sat} SATISFIABLE, {unsat} UNSATISFIABLE, "
        f"{undecided} UNKNOWN, {unreadable} unreadable\n"
    )
    if unreadable:
        return 1
    if undecided:
        return 0
    return 30 if sat and unsat else 10 if sat else 20
