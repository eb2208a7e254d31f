"""One-shot start-up: ``satdoku dpll --mode cdcl FILE`` as a whole process against a python-sat
script.

What a user comparing solvers file by file pays (issue 12 goal 3). Each side is a fresh
process, timed from start to exit (median of ``--runs`` runs, interleaved):

* ours — ``satdoku dpll --mode cdcl FILE`` (the C kernel; the console script of this
  Python's environment), model printed (``v`` lines), output discarded;
* reference — ``python -c SCRIPT FILE`` where SCRIPT imports python-sat, reads the file with
  python-sat's CNF parser (``CNF(from_file=...)``), solves it with ``Minisat22`` and prints the
  ``s`` line and the model as one ``v`` line (what a SAT-competition answer holds).

Files: a tiny CNF (3 clauses), and Sudoku DIMACS files (extended encoding) of the first
16x16 puzzle of data/public/vu_kr_sudoku/16x16.txt and the 25x25 puzzle of
data/public/large_grids_bnguyen/25x25.txt, written to a temporary folder; ``--data DIR`` adds
every ``*.cnf`` in DIR. The batch form (``satdoku dpll --mode cdcl A B C``, start-up paid
once) is timed against one process per file, for information.

Usage: python benchmarks/bench_oneshot.py [--runs 5] [--data DIR] [--csv FILE]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "public"
sys.path.insert(0, str(ROOT))
from bench_common import write_csv  # noqa: E402

PYSAT_SCRIPT = """\
import sys
from pysat.formula import CNF
from pysat.solvers import Minisat22
formula = CNF(from_file=sys.argv[1])
with Minisat22(bootstrap_with=formula.clauses) as solver:
    if solver.solve():
        print("s SATISFIABLE")
        print("v " + " ".join(map(str, solver.get_model())) + " 0")
    else:
        print("s UNSATISFIABLE")
"""
TINY = "p cnf 3 3\n1 2 0\n-1 3 0\n-3 -2 0\n"


def satdoku_command() -> list[str]:
    """The ``satdoku`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("satdoku")
    if not script.exists():
        raise SystemExit(f"{script} not found: install satdoku in this environment (make install)")
    return [str(script)]


def write_files(folder: Path) -> list[Path]:
    """The tiny CNF and the 16x16 / 25x25 Sudoku DIMACS files."""
    from satdoku.cnf.dimacs import write_dimacs
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    tiny = folder / "tiny.cnf"
    tiny.write_text(TINY)
    out = [tiny]
    sources = (("sudoku16x16.cnf", DATA / "vu_kr_sudoku" / "16x16.txt"),
               ("sudoku25x25.cnf", DATA / "large_grids_bnguyen" / "25x25.txt"))  # fmt: skip
    for name, source in sources:
        record = next(r for r in read_records(source) if r.puzzle is not None)
        path = folder / name
        with open(path, "w") as fh:
            write_dimacs(encode(record.puzzle, "extended"), fh)
        out.append(path)
    return out


def wall(cmd: list[str]) -> tuple[float, str]:
    """Seconds from process start to exit, and the status line printed."""
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - t0
    status = next((ln for ln in res.stdout.splitlines() if ln.startswith("s ")), "")
    if not status:
        raise SystemExit(f"no answer from {' '.join(cmd)}:\n{res.stdout[-500:]}{res.stderr}")
    return took, status


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per side and file (median)")
    ap.add_argument("--data", type=Path, default=None, help="also every *.cnf in this folder")
    ap.add_argument("--csv", type=Path, default=ROOT / "benchmarks/results/bench_oneshot.csv")
    args = ap.parse_args(argv)
    ours = [*satdoku_command(), "dpll", "--mode", "cdcl"]
    theirs = [sys.executable, "-c", PYSAT_SCRIPT]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp))
        if args.data is not None:
            files += sorted(args.data.glob("*.cnf"))
        for path in files:
            ours_t, theirs_t = [], []
            for _ in range(args.runs):
                t, ours_status = wall([*ours, str(path)])
                ours_t.append(t)
                t, ref_status = wall([*theirs, str(path)])
                theirs_t.append(t)
            if ours_status != ref_status:
                print(f"WRONG {path.name}: ours {ours_status!r}, python-sat {ref_status!r}")
                return 1
            row = {"file": path.name, "status": ours_status[2:],
                   "satdoku_s": statistics.median(ours_t), "pysat_s": statistics.median(theirs_t)}
            row["ratio"] = row["satdoku_s"] / row["pysat_s"]
            rows.append(row)
            print(f"{path.name:>20} {row['status']:>14}  satdoku dpll {row['satdoku_s']:.3f} s"
                  f"  python-sat script {row['pysat_s']:.3f} s  ratio {row['ratio']:.2f}",
                  flush=True)  # fmt: skip
        batch_t, single_t = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([*ours, *map(str, files)], capture_output=True, check=False)
            batch_t.append(time.perf_counter() - t0)
            single_t.append(sum(wall([*ours, str(p)])[0] for p in files))
    print(f"\nbatch: satdoku dpll on {len(files)} files in one process "
          f"{statistics.median(batch_t):.3f} s, one process per file "
          f"{statistics.median(single_t):.3f} s")  # fmt: skip
    print("\n| file | answer | satdoku dpll (s) | python-sat script (s) | ratio |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['file']} | {r['status']} | {r['satdoku_s']:.3f} | {r['pysat_s']:.3f} "
              f"| {r['ratio']:.2f} |")
    write_csv(args.csv, rows)
    print(f"# rows: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
