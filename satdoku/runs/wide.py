"""``reports/instances_wide.csv``: one row per instance (``set, id, name, instance_hash``), then
for each run (``solver/encoding``) its ``status`` and ``total_seconds`` columns
(``<run> status``, ``<run> total_seconds``): the whole run in one sheet, ready for a
spreadsheet or pandas. An instance a run did not answer has empty cells there."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

KEY = ("set", "id", "name", "instance_hash")
PER_RUN = ("status", "total_seconds")


def wide_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """(header, rows) of the wide table of store rows (:func:`satdoku.runs.store.run_rows`),
    instances in (set as first seen, id) order and runs in order of first appearance."""
    runs: list[str] = []
    sets: list[str] = []
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:
        run = f"{r['solver']}/{r['encoding']}"
        if run not in runs:
            runs.append(run)
        if r["set"] not in sets:
            sets.append(r["set"])
        key = (r["set"], int(r["id"]))
        row = out.setdefault(key, {k: r.get(k, "") for k in KEY})
        if not row.get("instance_hash") and r.get("instance_hash"):
            row["instance_hash"] = r["instance_hash"]
        for k in PER_RUN:
            row[f"{run} {k}"] = r.get(k)
    header = [*KEY, *(f"{run} {k}" for run in runs for k in PER_RUN)]
    order = {s: i for i, s in enumerate(sets)}
    ordered = [out[k] for k in sorted(out, key=lambda k: (order[k[0]], k[1]))]
    return header, ordered


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6f}"
    return str(v)


def write_wide(rows: Sequence[Mapping[str, Any]], path: str | Path) -> int:
    """Write the wide CSV; returns the number of instances."""
    header, table = wide_rows(rows)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        for row in table:
            w.writerow([_cell(row.get(k)) for k in header])
    return len(table)
