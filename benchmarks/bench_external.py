"""What the harness costs per solver-binary run: one 9x9 puzzle through ``cadical-bin`` (the
solve path: DIMACS file written off the clock, setpriv/prlimit/GNU time launcher, own process
group, output parsed, model verified) against the same binary on the same DIMACS file run by
hand (``subprocess.run``). Runs alternate (hand, harness, hand, ...) so both see the same load.

    python benchmarks/bench_external.py [--runs 40] [--out benchmarks/results/bench_external.csv]

Figures (medians over the runs, milliseconds):
- ``by_hand``: wall time of ``subprocess.run(["cadical", "-q", file])``;
- ``harness_call``: wall time of the whole ``satdoku.solve.solve`` call (writing the file,
  launching, parsing, verifying the model);
- ``recorded_wall``: the ``wall_seconds`` the times file records for the same run (the run
  alone: launcher and binary, without the file write and the model check);
- ``write_cnf``, ``check``: the file write (paused clock; the rules block's text is made once
  per shard, so this is a later puzzle's write) and the model check (check_seconds);
- ``launcher``: ``run_command(["true"])`` minus ``subprocess.run(["true"])``: the cost of the
  setpriv/prlimit/time chain itself;
- ``rss_hand`` / ``rss_recorded``: the binary's peak memory (MB) by GNU time by hand and as
  recorded by the harness.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import write_csv

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from satdoku.formats import read_records  # noqa: E402
from satdoku.solve import formula_of, open_solver, solve  # noqa: E402
from satdoku.solvers.base import Deadline  # noqa: E402
from satdoku.solvers.external import write_cnf  # noqa: E402
from satdoku.solvers.process import run_command  # noqa: E402

PUZZLES = ROOT / "data" / "public" / "norvig" / "top95.txt"


def _ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "bench_external.csv"))
    args = ap.parse_args()
    if shutil.which("cadical") is None:
        print("bench_external: cadical is not installed (apt-get install cadical)",
              file=sys.stderr)
        return 2
    rec = next(r for r in read_records(PUZZLES) if r.puzzle is not None)
    formula = formula_of(rec, "extended")
    variants = {"cadical-bin": {"solver": "external", "command": "cadical -q {cnf}"}}
    solver = open_solver("cadical-bin", variants)
    fig: dict[str, list[float]] = {k: [] for k in (
        "by_hand", "harness_call", "recorded_wall", "write_cnf", "check", "true_plain",
        "true_launcher", "rss_hand", "rss_recorded")}
    with tempfile.TemporaryDirectory() as tmp:
        cnf = str(Path(tmp) / "p.cnf")
        write_cnf(formula, cnf)  # the first write of a shard also formats its rules block once
        for _ in range(args.runs):
            t = time.perf_counter()
            write_cnf(formula, cnf)
            fig["write_cnf"].append(time.perf_counter() - t)
        out, err = str(Path(tmp) / "o"), str(Path(tmp) / "e")
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run(["cadical", "-q", cnf], stdout=subprocess.DEVNULL, check=False)
            fig["by_hand"].append(time.perf_counter() - t)
            t = time.perf_counter()
            answer = solve(rec, solver, "extended", 10.0, formula=formula, workdir=tmp)
            fig["harness_call"].append(time.perf_counter() - t)
            assert answer.status == "SAT" and answer.verified == "yes", answer.result.message
            fig["recorded_wall"].append(answer.result.wall_seconds)
            fig["check"].append(answer.result.check_seconds)
            fig["rss_recorded"].append(answer.result.max_rss_mb / 1000)  # MB, shown as MB below
            t = time.perf_counter()
            subprocess.run(["true"], check=False)
            fig["true_plain"].append(time.perf_counter() - t)
            t = time.perf_counter()
            run_command(["true"], Deadline(10), None, out, err)
            fig["true_launcher"].append(time.perf_counter() - t)
        timed = subprocess.run(["/usr/bin/time", "-f", "%M", "cadical", "-q", cnf],
                               capture_output=True, text=True, check=False)
        fig["rss_hand"].append(int(timed.stderr.split()[-1]) / 1024 / 1000)
    row = {k: _ms(v) for k, v in fig.items()}
    row["rss_hand"] = round(row["rss_hand"], 2)  # _ms scaled MB/1000 back to MB
    row["rss_recorded"] = round(row["rss_recorded"], 2)
    row["launcher"] = round(row["true_launcher"] - row["true_plain"], 3)
    row["harness_over_hand"] = round(row["harness_call"] / row["by_hand"], 2)
    row["recorded_over_hand"] = round(row["recorded_wall"] / row["by_hand"], 2)
    row["runs"] = args.runs
    row["load1"] = round(os.getloadavg()[0], 2)
    write_csv(args.out, [row])
    for k, v in row.items():
        print(f"{k:20} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
