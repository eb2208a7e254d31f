"""CPU and memory figures of satdoku's measurement backends against BenchExec's own ``runexec``
on the same commands (issue 26: they must agree within 5%).

Each command runs ``--runs`` times through each of: ``runexec --no-container`` (BenchExec's
command line, the reference), satdoku's ``benchexec`` backend and its ``basic`` backend
(:func:`satdoku.solvers.measurement.run_command`), interleaved (one run of each in turn), so
load on the machine hits all three alike. Printed: the median CPU seconds and peak MB of each,
and each backend's median as a ratio of runexec's.

    python benchmarks/bench_measurement.py --runs 5
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from satdoku.solvers import measurement
from satdoku.solvers.base import RunLimits
from satdoku.solvers.result import BASIC, BENCHEXEC

SPIN = "i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done"
ALLOC = "b = b'x' * (300 * 2**20); import time; time.sleep(0.2)"
COMMANDS = {
    "cpu-bound sh loop": ["sh", "-c", SPIN],
    "cpu-bound, two processes": ["sh", "-c", f"sh -c '{SPIN}' & sh -c '{SPIN}'; wait"],
    "300 MB allocator": [sys.executable, "-c", ALLOC],
}


def runexec(argv: list[str], tmp: Path) -> tuple[float, float]:
    """(CPU seconds, peak MB) of one run by BenchExec's ``runexec`` command."""
    exe = shutil.which("runexec") or str(Path(sys.executable).with_name("runexec"))
    out = subprocess.run([exe, "--no-container", "--output", str(tmp / "runexec.log"), "--",
                          *argv], capture_output=True, text=True, check=True).stdout
    cpu = float(re.search(r"^cputime=([\d.]+)s", out, re.M).group(1))  # type: ignore[union-attr]
    mem = float(re.search(r"^memory=(\d+)B", out, re.M).group(1))  # type: ignore[union-attr]
    return cpu, mem / 2**20


def ours(argv: list[str], mode: str, tmp: Path) -> tuple[float, float]:
    """(CPU seconds, peak MB) of one run through satdoku's backend ``mode``."""
    limits = RunLimits(time_limit=600, measurement=mode)
    done = measurement.run_command(argv, limits.deadline(), limits, lambda _b: None,
                                   str(tmp / "err.txt"))
    return done.usage.cpu_seconds, done.usage.max_rss_mb


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    problem = measurement.benchexec_problem()
    if problem is not None:
        print(f"BenchExec cannot work on this host: {problem}")
        return 1
    print("| command | figure | runexec | satdoku benchexec | ratio | satdoku basic | ratio |\n"
          "|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for name, argv in COMMANDS.items():
            figures: dict[str, list[tuple[float, float]]] = {"runexec": [], BENCHEXEC: [],
                                                              BASIC: []}
            for _ in range(args.runs):  # interleaved: each backend once per round
                figures["runexec"].append(runexec(argv, tmp))
                figures[BENCHEXEC].append(ours(argv, BENCHEXEC, tmp))
                figures[BASIC].append(ours(argv, BASIC, tmp))
            for i, fig in ((0, "CPU s"), (1, "peak MB")):
                med = {k: statistics.median(v[i] for v in vals) for k, vals in figures.items()}
                ref = med["runexec"]
                print(f"| {name} | {fig} | {ref:.3f} | {med[BENCHEXEC]:.3f} | "
                      f"{med[BENCHEXEC] / ref:.3f} | {med[BASIC]:.3f} | {med[BASIC] / ref:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
