"""`satdoku dpll FILE [FILE ...]`: run our own SAT solver on DIMACS files, SAT-competition style.

For each file: ``c`` lines (times, statistics), the ``s`` line and ``v`` lines. One file: exit
10 for SAT, 20 for UNSAT, 0 when undecided (time limit), 1 for unreadable input. Several files
(start-up paid once): one block per file, opened by ``c file NAME``, then a ``c summary`` line;
exit 1 if a file was unreadable, else 0 if one was undecided, else 10 (all SAT), 20 (all
UNSAT) or 30 (all decided, both answers). Imports stay inside ``run`` so ``--help`` is instant,
and the default mode (the compiled cdcl kernel) imports neither numpy nor numba.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

MODES = ("dpll", "cdcl")
DPLL_HEURISTICS = ("first", "random", "dlis", "moms", "jw", "vsids")  # = dpll.HEURISTICS
EXIT = {"SAT": 10, "UNSAT": 20}
BATCH_HELP = """\
several files: start-up is paid once and each file gets its own block (``c file NAME``, its
c / s / v lines, its own time limit); a ``c summary`` line closes the output. Exit code, one
file: 10 SAT, 20 UNSAT, 0 undecided, 1 unreadable. Several files: 1 if any file was
unreadable, else 0 if any was undecided, else 10 (all SAT), 20 (all UNSAT) or 30 (both)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = BATCH_HELP
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="DIMACS CNF file(s) (.cnf, .cnf.gz, .cnf.xz; '-' = stdin)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="cdcl",
        help="cdcl: clause learning, compiled kernel (default); dpll: readable pure-Python DPLL",
    )
    parser.add_argument(
        "--heuristic",
        default=None,
        help=f"dpll branching heuristic: {', '.join(DPLL_HEURISTICS)} "
        "(default vsids); cdcl accepts only vsids",
    )
    parser.add_argument(
        "--pure-literals",
        action="store_true",
        help="dpll: pure-literal elimination (off while writing a proof)",
    )
    parser.add_argument(
        "--restarts",
        choices=("mixed", "luby", "glucose", "none"),
        default=None,
        help="cdcl restart policy (default mixed: glucose and Luby phases alternating)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="give up after S seconds per file, reading and loading the file included "
        "(status UNKNOWN)",
    )
    parser.add_argument(
        "--proof",
        default=None,
        metavar="PATH",
        help="write a DRUP proof (drat-trim text format) for UNSAT; with several files PATH "
        "is a directory that receives NAME.drup per UNSAT file",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (heuristic 'random')")
    parser.add_argument("--no-model", action="store_true", help="omit the v lines")


def run(args: argparse.Namespace) -> int:
    heuristic = args.heuristic or "vsids"
    if args.mode == "dpll" and heuristic not in DPLL_HEURISTICS:
        print(f"satdoku dpll: unknown heuristic {heuristic!r}", file=sys.stderr)
        return 1
    if args.mode == "cdcl" and heuristic != "vsids":
        print("satdoku dpll: --mode cdcl branches with vsids only", file=sys.stderr)
        return 1
    if args.time_limit is not None and not (0 < args.time_limit < float("inf")):
        print("satdoku dpll: --time-limit must be a positive number of seconds", file=sys.stderr)
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
            proof = os.path.join(args.proof, os.path.basename(path) + ".drup")
        codes.append(_one_file(path, args, heuristic, proof))
        sys.stdout.flush()
    if not batch:
        return codes[0]
    return _summary(codes)


def _one_file(path: str, args: argparse.Namespace, heuristic: str, proof: str | None) -> int:
    """Solve one file and print its block; returns its exit code."""
    from lzma import LZMAError

    from satdoku.cnf.dimacs import DimacsError, format_solver_output
    from satdoku.solvers.base import Deadline

    start = time.perf_counter()
    deadline = Deadline(args.time_limit, start=start)
    try:
        if args.mode == "dpll":
            status, model, stats, times = _run_dpll(path, args, heuristic, deadline, proof)
            label = f"dpll ({heuristic})"
        else:
            status, model, stats, times, backend = _run_cdcl(path, args, deadline, proof)
            label = f"cdcl (vsids, {backend} kernel)"
    except (DimacsError, OSError, EOFError, LZMAError) as exc:  # unreadable input
        message = str(exc) if isinstance(exc, DimacsError) else f"{path}: {exc}"
        print(f"satdoku dpll: {message}", file=sys.stderr)
        sys.stdout.write(f"c error {message}\ns UNKNOWN\n")
        return 1
    total = time.perf_counter() - start
    out = sys.stdout
    out.write(f"c satdoku {label}\n")
    for key, seconds in times.items():
        out.write(f"c {key}_seconds {seconds:.6f}\n")
    out.write(f"c total_seconds {total:.6f}\n")
    for key, value in stats.items():
        out.write(f"c {key} {value}\n")
    if status == "UNSAT" and proof:
        out.write(f"c proof written to {proof}\n")
    lines = format_solver_output(status, None if args.no_model else model)
    out.write("\n".join(lines) + "\n")
    return EXIT.get(status, 0)


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


def _run_dpll(path: str, args: argparse.Namespace, heuristic: str, deadline, proof):  # type: ignore[no-untyped-def]
    from satdoku.cnf.dimacs import read_dimacs
    from satdoku.solvers.dpll import Dpll, gc_paused

    t0 = time.perf_counter()
    cnf = read_dimacs(path)
    t1 = time.perf_counter()
    fh = open(proof, "w", encoding="ascii") if proof else None  # noqa: SIM115
    try:
        with gc_paused():
            solver = Dpll(
                cnf.num_vars,
                cnf.clauses,
                heuristic,
                pure_literals=args.pure_literals,
                seed=args.seed,
                proof=fh,
                deadline=deadline,
            )
            t2 = time.perf_counter()
            status, model = solver.solve(deadline)
    finally:
        if fh is not None:
            fh.close()
    t3 = time.perf_counter()
    times = {"parse": t1 - t0, "build": t2 - t1, "solve": t3 - t2}
    return status, model, solver.stats.as_dict(), times


def _run_cdcl(path: str, args: argparse.Namespace, deadline, proof):  # type: ignore[no-untyped-def]
    from satdoku.solvers.cdcl import solve_file

    options = {} if args.restarts is None else {"restarts": args.restarts}
    res = solve_file(path, deadline, proof_path=proof, **options)
    return res.status, res.model, res.stats, res.times, res.backend
