"""Formula sizes per encoding, read from SatInput bundles: variables, clauses, DIMACS bytes.

Each instance block of a bundle has a ``p cnf V C`` line counting its whole formula (shared rules
plus its own clauses); the bytes are those of the standalone DIMACS file a solver would read
(``p`` line + rules clauses + own clauses), computed from the line lengths without parsing a
single literal.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from satdoku.report.families import family

SIZE_COLUMNS = ("id", "family", "encoding", "vars", "clauses", "bytes")


def _header(line: str) -> dict[str, str]:
    toks = line[1:].split()
    return {toks[i]: toks[i + 1] for i in range(0, len(toks) - 1, 2)}


def bundle_sizes(path: str | Path, encoding: str = "") -> Iterator[dict[str, object]]:
    """One size row per valid instance of a bundle (invalid instances have no formula)."""
    rules_bytes: dict[str, int] = {}
    cur: dict | None = None  # the open block: kind, key, header, p, bytes

    def close(block: dict | None) -> Iterator[dict[str, object]]:
        if block is None:
            return
        if block["kind"] == "rules":
            rules_bytes[block["key"]] = block["bytes"]
        elif block["p"] is not None:
            h = block["header"]
            v, c, pline = block["p"]
            rkey = h.get("rules", "-")
            if rkey != "-" and rkey not in rules_bytes:
                raise ValueError(f"{path}: instance {block['key']} needs unknown rules {rkey}")
            size = int(h["size"]) if h.get("size", "").isdigit() else None
            yield {"id": block["key"], "family": family(h.get("kind"), size),
                   "encoding": h.get("encoding", encoding), "vars": v, "clauses": c,
                   "bytes": pline + rules_bytes.get(rkey, 0) + block["bytes"]}

    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.startswith("c rules ") or line.startswith("c instance "):
                yield from close(cur)
                kind = "rules" if line.startswith("c rules ") else "instance"
                cur = {"kind": kind, "key": line.split(maxsplit=2)[2].strip(), "header": {},
                       "p": None, "bytes": 0}
            elif cur is None:
                continue
            elif line.startswith("p "):
                parts = line.split()
                if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
                    raise ValueError(f"{path}:{n}: bad problem line {line.strip()!r}")
                cur["p"] = (int(parts[2]), int(parts[3]), len(line.encode()))
            elif line.startswith("c "):
                if cur["kind"] == "instance" and not cur["header"] and " id " in f" {line[2:]}":
                    cur["header"] = _header(line)
            else:
                cur["bytes"] += len(line.encode())
        yield from close(cur)


def write_sizes(rows: Iterable[Mapping[str, object]], path: str | Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, SIZE_COLUMNS, delimiter="\t", lineterminator="\n",
                           extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
            n += 1
    return n


def size_table(sizes, df):
    """Per (family, encoding): instances, mean vars / clauses / bytes, and per solver the median
    time of solved instances (from the long results frame ``df``, joined by set and id).

    ``sizes`` is a frame with columns set + SIZE_COLUMNS. Returns (table, {(family, encoding):
    {solver: median s}})."""
    import pandas as pd

    cols = ["family", "encoding", "instances", "vars", "clauses", "bytes"]
    if sizes.empty:
        return pd.DataFrame(columns=cols), {}
    g = sizes.groupby(["family", "encoding"], sort=False)
    table = g.agg(instances=("id", "size"), vars=("vars", "mean"), clauses=("clauses", "mean"),
                  bytes=("bytes", "mean")).reset_index()
    times: dict[tuple[str, str], dict[str, float]] = {}
    solved = df[df["solved"] & df["encoding"].isin(table["encoding"].unique())]
    if len(solved):
        med = solved.groupby(["family", "encoding", "solver"])["seconds"].median()
        for (fam, enc, solver), v in med.items():
            times.setdefault((str(fam), str(enc)), {})[str(solver)] = float(v)
            table.loc[(table["family"] == fam) & (table["encoding"] == enc),
                      f"median_s_{solver}"] = float(v)
    return table, times
