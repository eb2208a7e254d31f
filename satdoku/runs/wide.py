"""``reports/instances_wide.csv``: one row per instance (``set, id, name, instance_hash``), then
for each run (``solver/encoding``) its ``status`` and ``total_seconds`` columns
(``<run> status``, ``<run> total_seconds``): the whole run in one sheet, ready for a
spreadsheet or pandas. An instance a run did not answer has empty cells there."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

KEY = ("set", "id", "name", "instance_hash")
PER_RUN = ("status", "total_seconds")


def wide_rows(table) -> tuple[list[str], list[list[Any]]]:  # type: ignore[no-untyped-def]
    """(header, rows) of the wide table of a store table (:func:`satdoku.runs.store.run_table`),
    instances in (set as first seen, id) order and runs in order of first appearance."""
    col = {c: table.column(c).to_pylist() for c in (*KEY, "solver", "encoding", *PER_RUN)
           if c in table.column_names}
    n = table.num_rows
    runs = list(dict.fromkeys(f"{s}/{e}" for s, e in zip(col["solver"], col["encoding"],
                                                         strict=True)))
    slot = {run: 4 + 2 * k for k, run in enumerate(runs)}
    sets = list(dict.fromkeys(col["set"]))
    out: dict[tuple[str, int], list[Any]] = {}
    status, seconds = col["status"], col.get("total_seconds", [None] * n)
    for j in range(n):
        key = (col["set"][j], col["id"][j])
        row = out.get(key)
        if row is None:
            row = out[key] = [key[0], key[1], col["name"][j], col["instance_hash"][j],
                              *([None] * (2 * len(runs)))]
        elif not row[3]:
            row[3] = col["instance_hash"][j]
        k = slot[f"{col['solver'][j]}/{col['encoding'][j]}"]
        row[k], row[k + 1] = status[j], seconds[j]
    header = [*KEY, *(f"{run} {k}" for run in runs for k in PER_RUN)]
    order = {s: i for i, s in enumerate(sets)}
    return header, [out[k] for k in sorted(out, key=lambda k: (order[k[0]], k[1]))]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if v != v else f"{v:.6f}"
    return str(v)


def write_wide(table, path: str | Path) -> int:  # type: ignore[no-untyped-def]
    """Write the wide CSV of a store table; returns the number of instances."""
    header, rows = wide_rows(table)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows([_cell(v) for v in row] for row in rows)
    return len(rows)
