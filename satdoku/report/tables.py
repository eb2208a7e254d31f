"""Per-solver tables: solved / UNSAT / timeouts / invalid, time figures, PAR-2, search statistics.

Computed from the long frame of :mod:`satdoku.report.collect` (pandas, imported lazily). Times
are ``total_seconds`` (the whole instance as the solver saw it). An instance counts as solved when
the answer is SAT or UNSAT and did not fail verification. PAR-2 is the mean over the valid
(non-INVALID) instances of the time when solved and twice the time limit otherwise (timeouts,
errors and wrong answers alike), the usual SAT-competition score.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path

#: Columns of a solver table, in order, with the header shown in Markdown/HTML.
HEADERS = {
    "set": "set", "solver": "solver", "encoding": "encoding", "instances": "instances",
    "solved": "solved", "SAT": "SAT", "UNSAT": "UNSAT", "TIMEOUT": "timeouts",
    "INVALID": "invalid", "ERROR": "errors", "failed": "failed verif.",
    "median_s": "median s", "mean_s": "mean s", "p90_s": "p90 s", "max_s": "max s",
    "par2_s": "PAR-2 s", "decisions": "mean decisions", "conflicts": "mean conflicts",
}
COUNTS = ("instances", "solved", "SAT", "UNSAT", "TIMEOUT", "INVALID", "ERROR", "failed")


def _stats(g, time_limit: float | None) -> dict[str, float]:
    solved = g[g["solved"]]
    t = solved["seconds"].dropna()
    valid = g[g["status"] != "INVALID"]
    if time_limit:
        par2 = [s if ok else 2 * time_limit for s, ok in zip(valid["seconds"], valid["solved"],
                                                             strict=True)]
        par2_s = sum(par2) / len(par2) if par2 else math.nan
    else:
        par2_s = math.nan
    out = {
        "instances": len(g), "solved": int(g["solved"].sum()),
        **{s: int((g["status"] == s).sum()) for s in ("SAT", "UNSAT", "TIMEOUT", "INVALID",
                                                        "ERROR")},
        "failed": int((g["verified"] == "FAILED").sum()),
        "median_s": float(t.median()) if len(t) else math.nan,
        "mean_s": float(t.mean()) if len(t) else math.nan,
        "p90_s": float(t.quantile(0.9)) if len(t) else math.nan,
        "max_s": float(t.max()) if len(t) else math.nan,
        "par2_s": par2_s,
    }
    for key in ("decisions", "conflicts"):
        v = solved[key].dropna()
        out[key] = float(v.mean()) if len(v) else math.nan
    return out


def solver_table(df, time_limit: float | None, by: Sequence[str] = ("set", "solver", "encoding")):
    """One row per group (default: set x solver x encoding) with every figure of HEADERS."""
    import pandas as pd

    keys = list(by)
    rows = []
    if len(df):
        for key, g in df.groupby(keys, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            rows.append({**dict(zip(keys, key, strict=True)), **_stats(g, time_limit)})
    cols = keys + [c for c in HEADERS if c not in ("set", "solver", "encoding")]
    return pd.DataFrame(rows, columns=cols)


def _fmt(col: str, v) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    if col in COUNTS:
        return str(int(v))
    if col in ("decisions", "conflicts"):
        return f"{v:,.0f}"
    if isinstance(v, float):
        return f"{v:.3g}" if v < 1 else f"{v:.2f}"
    return str(v)


def _cells(table) -> tuple[list[str], list[list[str]]]:
    cols = list(table.columns)
    head = [HEADERS.get(c, c) for c in cols]
    body = [[_fmt(c, v) for c, v in zip(cols, row, strict=True)]
            for row in table.itertuples(index=False)]
    return head, body


def to_markdown(table) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned)."""
    head, body = _cells(table)
    cols = list(table.columns)
    align = ["---:" if c not in ("set", "solver", "encoding", "family") else ":---" for c in cols]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n"


def to_html(table) -> str:
    """An HTML table (escaped); a row with failed verifications is red."""
    head, body = _cells(table)
    failed = list(table["failed"]) if "failed" in table.columns else [0] * len(body)
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row, bad in zip(body, failed, strict=True):
        style = ' style="color:#b00000;font-weight:bold"' if bad else ""
        out.append(f"<tr{style}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row)
                   + "</tr>")
    out.append("</table>")
    return "\n".join(out) + "\n"


def write_csv(table, path: str | Path) -> None:
    table.to_csv(path, index=False, float_format="%.6g")
