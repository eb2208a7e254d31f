"""`satdoku solve FILE`: solve every puzzle of a file, one SatSols line per instance."""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="instance file (any supported format, auto-detected)")
    p.add_argument("--solver", default="minisat22", help="solver name (default: minisat22)")
    p.add_argument("--encoding", default="extended", help="CNF encoding for SAT solvers")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per instance")
    p.add_argument("--format", default="auto", help="force a reader (line, ndigits, csv, grid)")
    p.add_argument("--times", action="store_true", help="append status and ms after each line")


def run(args: argparse.Namespace) -> int:
    from satdoku.cnf.decode import DecodeError, decode_model
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records
    from satdoku.pipeline.decode import sols_row
    from satdoku.progress import track
    from satdoku.solvers.base import ERROR, INVALID, SAT, Result
    from satdoku.solvers.registry import level, make_solver

    try:
        solver = make_solver(args.solver)
    except KeyError as exc:
        print(f"satdoku solve: {exc.args[0]}", file=sys.stderr)
        return 2
    puzzle_level = level(args.solver) == "puzzle"
    wrong = 0
    for rec in track(read_records(args.file, args.format), desc=f"solve {args.solver}",
                     unit="puzzles"):
        board = None
        if rec.puzzle is None:
            res = Result(INVALID, message=rec.error or "")
        elif puzzle_level:
            res = solver.solve_puzzle(rec.puzzle, args.time_limit)
            board = res.board
        else:
            res = solver.solve_cnf(encode(rec.puzzle, args.encoding), args.time_limit)
            if res.status == SAT and res.model is not None:
                try:
                    board = decode_model(res.model, rec.puzzle)
                except DecodeError as exc:
                    res = Result(ERROR, message=f"model does not decode: {exc}")
        row = sols_row(rec, res.status, board, res.message)
        wrong += row["verified"] == "FAILED"
        line = str(row["solution"])
        if args.times:
            line += f"\t{row['status']}\t{res.total_seconds * 1000:.1f} ms"
        print(line, flush=True)
    return 1 if wrong else 0
