"""The SatOutputTimes stage file: a TSV row per instance with status, seconds and statistics.

Columns: id, line, status, solve_seconds (search only), total_seconds (whole instance: solver
build, clause loading, search), decisions, conflicts, propagations, restarts, learnt ('' where the
solver does not report it), load1 (1-minute load average when the shard started: what ran
beside it), message.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from satdoku.solvers.base import STAT_KEYS, Result

COLUMNS = ("id", "line", "status", "solve_seconds", "total_seconds", *STAT_KEYS, "load1", "message")


def times_row(ident: str, line: int, result: Result, load1: float) -> dict[str, object]:
    row: dict[str, object] = {
        "id": ident, "line": line, "status": result.status,
        "solve_seconds": f"{result.solve_seconds:.6f}",
        "total_seconds": f"{result.total_seconds:.6f}",
        "load1": f"{load1:.2f}", "message": result.message.replace("\t", " ").replace("\n", " "),
    }
    for k in STAT_KEYS:
        row[k] = result.stats.get(k, "")
    return row


def write_tsv(rows: Iterable[dict[str, object]], path: str | Path,
              columns: tuple[str, ...] = COLUMNS) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, columns, delimiter="\t", lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))
