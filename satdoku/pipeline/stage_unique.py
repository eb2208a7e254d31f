"""Uniqueness stage: does each puzzle of a shard have exactly one solution?

The one SAT counter (:class:`~satdoku.solvers.sat_count.SatCounter`) with the shard's rules loaded
once: solve under the givens (as assumptions), then solve again with the found solution blocked
by a clause guarded by a fresh activation literal, so the block applies to this puzzle only and
is retired afterwards; ``time_limit`` bounds each puzzle's two solves together. Output TSV: id,
line, solutions (0, 1 or 2 meaning "two or more"), verdict (none / unique / several / unknown /
invalid), seconds.
"""

from __future__ import annotations

import time
from pathlib import Path

from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import SearchLimit
from satdoku.solvers.sat_count import SatCounter
from satdoku.stagefiles.bundles import read_bundle
from satdoku.stagefiles.tsv import UNIQUE_COLUMNS, write_tsv

VERDICT = {0: "none", 1: "unique", 2: "several"}


def unique_shard(bundle: str | Path, out: str | Path,
                 time_limit: float | None = 10.0) -> dict[str, int]:
    """Write the uniqueness TSV of one shard; returns verdict counts."""
    rows, counts = [], {}
    with SatCounter() as counter:
        for entry in read_bundle(bundle):
            t0 = time.perf_counter()
            line = entry.header.get("line", "")
            n: int | None = None
            if entry.invalid is not None:
                verdict = "invalid"
            else:  # no shared rules (e.g. simplified): the whole formula is a private block
                rules, own = ((entry.rules, entry.own) if entry.rules is not None
                              else (entry.cnf, []))
                try:
                    n = counter.count(rules, own, 2, Deadline(time_limit, start=t0))
                    verdict = VERDICT[n]
                except SearchLimit:
                    verdict = "unknown"
            rows.append({"id": entry.id, "line": line, "solutions": "" if n is None else n,
                         "verdict": verdict, "seconds": f"{time.perf_counter() - t0:.6f}"})
            counts[verdict] = counts.get(verdict, 0) + 1
    write_tsv(rows, out, UNIQUE_COLUMNS)
    return counts
