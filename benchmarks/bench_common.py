"""What every benchmark script shares: writing its rows (the scripts run as
``python benchmarks/bench_X.py``, so this folder is on their import path)."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path


def write_csv(path: str | Path, rows: Sequence[Mapping[str, object]],
              columns: Sequence[str] | None = None) -> Path:
    """Write ``rows`` (columns: ``columns``, else the first row's keys) as CSV; makes the folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns or (rows[0] if rows else [])))
        writer.writeheader()
        writer.writerows(rows)
    return path
