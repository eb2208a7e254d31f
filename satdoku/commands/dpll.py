"""`satdoku dpll FILE`: run our own SAT solver on a DIMACS file, SAT-competition style.

Prints ``c`` lines (times, statistics), the ``s`` line and ``v`` lines; exits 10 for SAT, 20 for
UNSAT, 0 when undecided (time limit) and 1 for unreadable input. Imports stay inside ``run`` so
``--help`` is instant.
"""

from __future__ import annotations

import argparse
import sys
import time

MODES = ("dpll", "cdcl")
DPLL_HEURISTICS = ("first", "random", "dlis", "moms", "jw", "vsids")  # = dpll.HEURISTICS
EXIT = {"SAT": 10, "UNSAT": 20}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="DIMACS CNF file (.cnf, .cnf.gz, .cnf.xz; '-' = stdin)")
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="cdcl",
        help="cdcl: clause learning, numba-compiled (default); dpll: readable pure-Python DPLL",
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
        choices=("luby", "glucose", "none"),
        default=None,
        help="cdcl restart policy (default glucose)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="give up after S seconds, reading and loading the file included "
        "(status UNKNOWN, exit 0)",
    )
    parser.add_argument(
        "--proof",
        default=None,
        metavar="FILE",
        help="write a DRUP proof (drat-trim text format) for UNSAT",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (heuristic 'random')")
    parser.add_argument("--no-model", action="store_true", help="omit the v lines")


def run(args: argparse.Namespace) -> int:
    from satdoku.cnf.dimacs import DimacsError, format_solver_output

    heuristic = args.heuristic or "vsids"
    if args.mode == "dpll" and heuristic not in DPLL_HEURISTICS:
        print(f"satdoku dpll: unknown heuristic {heuristic!r}", file=sys.stderr)
        return 1
    if args.mode == "cdcl" and heuristic != "vsids":
        print("satdoku dpll: --mode cdcl branches with vsids only", file=sys.stderr)
        return 1
    start = time.perf_counter()
    try:
        if args.mode == "dpll":
            status, model, stats, times = _run_dpll(args, heuristic)
        else:
            status, model, stats, times = _run_cdcl(args)
    except DimacsError as exc:
        print(f"satdoku dpll: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"satdoku dpll: {exc}", file=sys.stderr)
        return 1
    total = time.perf_counter() - start
    out = sys.stdout
    out.write(f"c satdoku {args.mode} ({heuristic if args.mode == 'dpll' else 'vsids'})\n")
    for key, seconds in times.items():
        out.write(f"c {key}_seconds {seconds:.6f}\n")
    out.write(f"c total_seconds {total:.6f}\n")
    for key, value in stats.items():
        out.write(f"c {key} {value}\n")
    if status == "UNSAT" and args.proof:
        out.write(f"c proof written to {args.proof}\n")
    lines = format_solver_output(status, None if args.no_model else model)
    out.write("\n".join(lines) + "\n")
    return EXIT.get(status, 0)


def _run_dpll(args: argparse.Namespace, heuristic: str):  # type: ignore[no-untyped-def]
    from satdoku.cnf.dimacs import read_dimacs
    from satdoku.solvers.base import Deadline
    from satdoku.solvers.dpll import Dpll

    t0 = time.perf_counter()
    deadline = Deadline(args.time_limit, start=t0)  # reading and loading count too
    cnf = read_dimacs(args.file)
    t1 = time.perf_counter()
    proof = open(args.proof, "w", encoding="ascii") if args.proof else None  # noqa: SIM115
    try:
        solver = Dpll(
            cnf.num_vars,
            cnf.clauses,
            heuristic,
            pure_literals=args.pure_literals,
            seed=args.seed,
            proof=proof,
            deadline=deadline,
        )
        t2 = time.perf_counter()
        status, model = solver.solve(deadline)
    finally:
        if proof is not None:
            proof.close()
    t3 = time.perf_counter()
    times = {"parse": t1 - t0, "build": t2 - t1, "solve": t3 - t2}
    return status, model, solver.stats.as_dict(), times


def _run_cdcl(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from satdoku.solvers.cdcl import solve_file

    options = {} if args.restarts is None else {"restarts": args.restarts}
    res = solve_file(args.file, time_limit=args.time_limit, proof_path=args.proof, **options)
    return res.status, res.model, res.stats, res.times
