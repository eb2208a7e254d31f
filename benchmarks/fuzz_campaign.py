"""The fuzz campaign over every target of the library (satdoku/fuzz), for as long as asked:
cases per second per target and what it found.

    python benchmarks/fuzz_campaign.py --minutes 30 [--seed S] [--targets a,b] \
        [--drat-trim PATH] [--out DIR]

Targets take turns, one case each (docs/fuzzing.md); every failure is shrunk and written to
``--out`` (default ``benchmarks/results/fuzz_findings``, made only when something fails).
Rows go to ``benchmarks/results/fuzz_campaign.csv``: per target the cases, the seconds spent
running them (oracles included, shrinking apart), cases per second, findings, oracle
disagreements and cases per kind; ``fuzz_campaign.md`` holds the same table. With drat-trim
(``--drat-trim`` or ``$SATDOKU_DRAT_TRIM``) every proof of our solvers and of the DRAT target
is also checked by it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_common import write_csv

HERE = Path(__file__).resolve().parent


def main() -> int:
    from satdoku.fuzz.campaign import Campaign, print_findings, summary
    from satdoku.fuzz.checks import check_targets
    from satdoku.fuzz.oracles import drat_trim_path
    from satdoku.fuzz.targets import own_targets

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=2025)
    p.add_argument("--targets", help="comma-separated target names (default: all)")
    p.add_argument("--drat-trim", help="drat-trim binary (default: $SATDOKU_DRAT_TRIM)")
    p.add_argument("--out", default=str(HERE / "results" / "fuzz_findings"))
    p.add_argument("--csv", default=str(HERE / "results" / "fuzz_campaign.csv"))
    args = p.parse_args()
    drat_trim = drat_trim_path(args.drat_trim)
    with tempfile.TemporaryDirectory(prefix="fuzz-campaign-") as workdir:
        targets = own_targets(workdir, drat_trim=drat_trim) + check_targets(drat_trim, workdir)
        if args.targets:
            wanted = args.targets.split(",")
            targets = [t for t in targets if t.name in wanted]
        campaign = Campaign(targets, args.seed, out=Path(args.out), progress=sys.stderr,
                            progress_every=60.0)
        began = time.time()
        runs = campaign.run(seconds=args.minutes * 60)
        wall = time.time() - began
    rows = [{"target": r.target.name, "cases": r.cases, "seconds": round(r.seconds, 1),
             "cases_per_s": round(r.rate, 2), "findings": len(r.findings),
             "oracle_disagreements": len(r.harness_errors),
             "shrink_seconds": round(r.shrink_seconds, 1),
             "kinds": " ".join(f"{k}:{n}" for k, n in sorted(r.kinds.items()))}
            for r in runs]  # fmt: skip
    write_csv(args.csv, rows)
    lines = [f"Seed {args.seed}, {wall / 60:.1f} min wall, drat-trim "
             f"{'on' if drat_trim else 'off'}, load1 at the end "
             f"{os.getloadavg()[0]:.1f} (shared 2-core machine).", "",
             "| target | cases | cases/s | findings | oracle disagreements |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['target']} | {r['cases']} | {r['cases_per_s']} | {r['findings']} | "
              f"{r['oracle_disagreements']} |" for r in rows]
    Path(args.csv).with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(summary(runs)))
    print_findings(runs, sys.stdout)
    return 1 if any(r.findings for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
