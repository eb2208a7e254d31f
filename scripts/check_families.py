"""The issue-4 targets, in full: all 100 futoshiki_usp puzzles with csp-mac-mrv (each under 1 s
is the target) and all 60 latin_square_qwh instances (orders 10-30) with cpsat and our cdcl.

Every answer is verified against its puzzle. Prints one summary line per (set, solver): solved,
median and worst seconds. Exit code 1 if any instance is unsolved or wrong. (The test suite
checks a sample of these; this script is the complete run, ~1-2 minutes on 2 cores.)

Usage: python scripts/check_families.py [--time-limit 60] [--cdcl-encoding simplified]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from satdoku.formats import read_records  # noqa: E402
from satdoku.solve import open_solver, solve  # noqa: E402
from satdoku.solvers.result import SAT, YES  # noqa: E402


def run(records: list, name: str, time_limit: float, encoding: str) -> tuple[int, list[float]]:
    """Solve and verify every record through the one solve path; (failures, seconds)."""
    solver = open_solver(name)
    times, bad = [], 0
    for rec in records:
        answer = solve(rec, solver, encoding, time_limit)
        ok = answer.status == SAT and answer.verified == YES
        bad += not ok
        times.append(answer.result.total_seconds)
        if not ok:
            print(f"  FAILED {rec.source}: {answer.status} {answer.detail}", file=sys.stderr)
    return bad, times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--cdcl-encoding", default="extended")
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "public",
                    help="directory laid out like data/public")
    args = ap.parse_args(argv)
    futo = list(read_records(args.data / "futoshiki_usp" / "futoshiki.dat"))
    qwh = [r for f in sorted((args.data / "latin_square_qwh").glob("*.txt"))
           for r in read_records(f)]
    failed = 0
    for set_name, recs, solvers in [("futoshiki_usp", futo, ["csp-mac-mrv"]),
                                    ("latin_square_qwh", qwh, ["cpsat", "cdcl"])]:
        for name in solvers:
            bad, times = run(recs, name, args.time_limit, args.cdcl_encoding)
            failed += bad
            over1 = sum(t >= 1.0 for t in times)
            print(f"{set_name} {name}: solved {len(recs) - bad}/{len(recs)}, median "
                  f"{statistics.median(times):.3f}s, worst {max(times):.3f}s, "
                  f"total {sum(times):.1f}s, >=1s: {over1}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
