"""Named encodings compared: clauses, variables, DIMACS bytes, parse + solve time per solver.

For each instance set and each encoding (minimal, efficient, extended, simplified, each with
pairwise or ``_seq`` at-most-one) every puzzle is encoded and written as a DIMACS file; each
solver then reads the file back (our DIMACS parser, timed as "parse") and solves it ("solve").
Every answer is decoded with its encoding and verified against the puzzle, and all encodings
must decode a uniquely solvable puzzle to the same board. Rows report the mean per instance.

Usage: python benchmarks/bench_encodings.py [--sets futoshiki,latin,sudoku9,sudoku16]
       [--solvers minisat22,cadical195,cdcl] [--limit 10] [--time-limit 20]
       [--markdown FILE] [--csv FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench_common import write_csv  # noqa: E402

from satdoku.cnf.decode import decode_model  # noqa: E402
from satdoku.cnf.dimacs import read_dimacs, write_dimacs  # noqa: E402
from satdoku.cnf.encode import ENCODINGS, encode  # noqa: E402
from satdoku.formats import read_records  # noqa: E402
from satdoku.solvers.base import Deadline  # noqa: E402
from satdoku.solvers.registry import make_solver  # noqa: E402
from satdoku.solvers.result import SAT, TIMEOUT  # noqa: E402

DATA = ROOT / "data" / "public"  # in-repo subsets
SETS = {
    "futoshiki": (DATA / "futoshiki_usp" / "futoshiki.dat", 5),  # every 5th: all sizes
    "latin": (ROOT / "data" / "latin" / "qwh_sample.txt", 1),
    "sudoku9": (DATA / "norvig" / "top95.txt", 9),
    "sudoku16": (DATA / "vu_kr_sudoku" / "16x16.txt", 10),
}
COLUMNS = ("set", "encoding", "solver", "instances", "vars", "clauses", "bytes", "parse_ms",
           "solve_ms", "solved")


def _records(name: str, limit: int) -> list:
    path, stride = SETS[name]
    return [r for r in read_records(path) if r.valid][::stride][:limit]


def bench(sets: list[str], solvers: list[str], limit: int, time_limit: float) -> list[dict]:
    rows = []
    made = {s: make_solver(s) for s in solvers}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            recs = _records(set_name, limit)
            boards: dict[str, dict[str, tuple]] = {}
            for enc in ENCODINGS:
                files, sizes = [], []
                for i, rec in enumerate(recs):
                    cnf = encode(rec.puzzle, enc)
                    f = Path(tmp) / f"{set_name}_{enc}_{i}.cnf"
                    with open(f, "w", encoding="utf-8") as fh:
                        write_dimacs(cnf, fh)
                    files.append(f)
                    sizes.append((cnf.num_vars, cnf.num_clauses, f.stat().st_size))
                for sname, solver in made.items():
                    parse, solve, solved = [], [], 0
                    for rec, f in zip(recs, files, strict=True):
                        t0 = time.perf_counter()
                        cnf = read_dimacs(f)
                        t1 = time.perf_counter()
                        res = solver.solve_cnf(cnf, Deadline(time_limit, start=t1))
                        t2 = time.perf_counter()
                        parse.append(t1 - t0)
                        solve.append(t2 - t1)
                        if res.status == TIMEOUT:
                            continue
                        if res.status != SAT:  # every benchmark puzzle has a solution
                            raise AssertionError(f"{sname}/{enc} on {rec.id}: {res.status} "
                                                 f"{res.message}")
                        board = decode_model(res.model, rec.puzzle, enc)
                        problems = rec.puzzle.check_solution(board)
                        if problems:
                            raise AssertionError(f"{sname}/{enc} wrong on {rec.id}: {problems}")
                        boards.setdefault(rec.id, {})[f"{enc}/{sname}"] = board
                        solved += 1
                    rows.append({
                        "set": set_name, "encoding": enc, "solver": sname,
                        "instances": len(recs),
                        "vars": round(statistics.mean(s[0] for s in sizes)),
                        "clauses": round(statistics.mean(s[1] for s in sizes)),
                        "bytes": round(statistics.mean(s[2] for s in sizes)),
                        "parse_ms": f"{1000 * statistics.mean(parse):.1f}",
                        "solve_ms": f"{1000 * statistics.mean(solve):.1f}",
                        "solved": solved,
                    })
                    print(" ".join(str(v) for v in rows[-1].values()), file=sys.stderr)
            _check_agreement(set_name, recs, boards)
    return rows


def _check_agreement(set_name: str, recs: list, boards: dict[str, dict[str, tuple]]) -> None:
    """Uniquely solvable puzzles must decode to one board under every encoding and solver."""
    from satdoku.generate import count_solutions

    for rec in recs:
        seen = set(boards.get(rec.id, {}).values())
        if len(seen) > 1 and count_solutions(rec.puzzle, 2) == 1:
            raise AssertionError(f"{set_name} {rec.id}: encodings decode to different boards")


def markdown(rows: list[dict]) -> str:
    out = ["| set | encoding | solver | n | vars | clauses | bytes | parse ms | solve ms |"
           " solved |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    out += [f"| {r['set']} | {r['encoding']} | {r['solver']} | {r['instances']} | {r['vars']} | "
            f"{r['clauses']} | {r['bytes']} | {r['parse_ms']} | {r['solve_ms']} | "
            f"{r['solved']} |" for r in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="futoshiki,latin,sudoku9,sudoku16")
    ap.add_argument("--solvers", default="minisat22,cadical195,cdcl")
    ap.add_argument("--limit", type=int, default=10, help="instances per set")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args(argv)
    rows = bench(args.sets.split(","), args.solvers.split(","), args.limit, args.time_limit)
    text = markdown(rows)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    if args.csv:
        write_csv(args.csv, rows, COLUMNS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
