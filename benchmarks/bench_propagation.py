"""Unit propagation per encoding: ours (the C kernel's ``propagate_units``, as ``satdoku
analyze`` runs it) against python-sat's MiniSat 2.2 ``propagate`` on the same rules and
givens, interleaved on the same puzzles; the statuses and decided cells must agree puzzle by
puzzle (MiniSat is the independent oracle of the UP counts), and the singles
(``heuristics.singles_fixpoint``) must equal UP on ``extended``.

    python benchmarks/bench_propagation.py FILE [--encodings ...] [--limit N]

FILE: e.g. the 49,158-puzzle 17-clue collection (tdoku's ``data/puzzles2_17_clue``; the
repository keeps a 2,000-puzzle sample, the default). Writes
``benchmarks/results/propagation.{csv,md}``; exit 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data/public/tdoku_benchmarks/puzzles2_17_clue_2000.txt"
FOUR = ("minimal", "efficient", "extended", "augmented")


def minisat_up(rules: list[list[int]], givens: list[list[int]], ncells: int, dom: int
               ) -> list[tuple[str, tuple[int, ...] | None]]:
    """(status, decided board) per puzzle by MiniSat's propagation of the givens."""
    from pysat.solvers import Minisat22

    out: list[tuple[str, tuple[int, ...] | None]] = []
    top = ncells * dom
    with Minisat22(bootstrap_with=rules) as s:
        for lits in givens:
            ok, assigned = s.propagate(assumptions=lits)
            if not ok:
                out.append(("refuted", None))
                continue
            board = [0] * ncells
            for lit in assigned:
                if 0 < lit <= top:
                    board[(lit - 1) // dom] = (lit - 1) % dom + 1
            out.append(("open" if 0 in board else "solved", tuple(board)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(SAMPLE))
    ap.add_argument("--encodings", nargs="+", default=list(FOUR))
    ap.add_argument("--limit", type=int, default=None, help="first N puzzles only")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results"))
    args = ap.parse_args()

    from satdoku.analysis.propagation import Propagator, singles_outcomes
    from satdoku.cnf.encode import rules_cnf
    from satdoku.formats import read_records

    puzzles = [r.puzzle for r in read_records(args.file) if r.puzzle is not None]
    puzzles = puzzles[:args.limit] if args.limit else puzzles
    layout = puzzles[0].layout
    assert all(p.layout == layout and not p.less_than for p in puzzles), "one plain layout"
    ncells, dom = layout.ncells, layout.domain
    givens = [[c * dom + v for c, v in enumerate(p.givens) if v] for p in puzzles]
    rows, wrong = [], 0
    start = time.process_time()
    singles = singles_outcomes(puzzles)
    singles_s = time.process_time() - start
    for enc in args.encodings:
        prop = Propagator(layout, enc)
        start = time.process_time()
        ours = prop.run(puzzles)
        ours_s = time.process_time() - start
        start = time.process_time()
        oracle = minisat_up(rules_cnf(layout, enc).clauses, givens, ncells, dom)
        oracle_s = time.process_time() - start
        differ = sum(1 for o, (status, board) in zip(ours, oracle, strict=True)
                     if o.status != status or (board is not None and o.board != board))
        if enc == "extended":
            differ += sum(1 for o, s in zip(ours, singles, strict=True)
                          if (o.status, o.board) != (s.status, s.board))
        wrong += differ
        solved = sum(o.status == "solved" for o in ours)
        rows.append({"encoding": enc, "puzzles": len(puzzles), "up_solved": solved,
                     "minisat_solved": sum(s == "solved" for s, _ in oracle),
                     "up_share": round(solved / len(puzzles), 6), "disagreements": differ,
                     "ours_us": round(1e6 * ours_s / len(puzzles), 1),
                     "minisat_us": round(1e6 * oracle_s / len(puzzles), 1),
                     "ratio": round(ours_s / oracle_s, 3)})
        print(rows[-1], flush=True)
    n_singles = sum(s.status == "solved" for s in singles)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "propagation.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [f"UP on {Path(args.file).name} ({len(puzzles):,} puzzles): ours (C kernel, "
             "propagate_units) against python-sat MiniSat 2.2 propagate, CPU microseconds per "
             f"puzzle (process time, one run, interleaved); singles solve {n_singles:,} "
             f"({singles_s:.1f} s).", "",
             "| encoding | UP solved | share | MiniSat solved | disagreements | ours us | "
             "MiniSat us | ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['encoding']} | {r['up_solved']:,} | {100 * r['up_share']:.2f}% | "
              f"{r['minisat_solved']:,} | {r['disagreements']} | {r['ours_us']} | "
              f"{r['minisat_us']} | {r['ratio']} |" for r in rows]
    (out / "propagation.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
