"""Per-solver tables: solved / UNSAT / timeouts / invalid, time figures, PAR-2, search statistics.

Computed from the long frame of :mod:`satdoku.report.collect` (pandas, imported lazily). Times
are the frame's ``seconds``: ``total_seconds`` (the whole instance as the solver saw it) unless
another time column was chosen; the time headers say which. An instance counts as solved when
the answer is SAT or UNSAT and did not fail verification. PAR-2 is the mean over the valid
(non-INVALID) instances of the time when solved and twice the set's own time limit otherwise
(timeouts, memouts, errors and wrong answers alike), the usual SAT-competition score.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from satdoku.report.collect import DEFAULT_TIME, TimeLimits, time_limits, time_word
from satdoku.solvers.result import LIMIT_STATUSES


@dataclass(frozen=True)
class Stat:
    """One statistic column of a solver table: its key (CSV header), the header shown in
    Markdown / HTML / the explorer, how a value is written (``fmt``: count, seconds, mean,
    limit) and how it is computed from a group's long rows (``aggregate(g, solved, times,
    limits)``; None for the group keys and the limit, filled by :func:`_stats`). ``problem``:
    a value above zero in this column is a problem worth a look (the explorer marks the cell)."""

    key: str
    header: str
    fmt: str = "text"
    aggregate: Callable[..., float] | None = None
    timed: bool = False  # the header names the time column ("median s (total)")
    repeated: bool = False  # shown only for repeated solves (repeats: k)
    problem: bool = False  # a value above zero is marked in the explorer's overview


def _count(status: str) -> Callable[..., float]:
    return lambda g, solved, t, limits: int((g["status"] == status).sum())


def _of_times(how: str) -> Callable[..., float]:
    return lambda g, solved, t, limits: float(getattr(t, how)()) if len(t) else math.nan


def _mean_of(col: str) -> Callable[..., float]:
    def agg(g, solved, t, limits) -> float:
        v = solved[col].dropna()
        return float(v.mean()) if len(v) else math.nan
    return agg


def _median_of(col: str) -> Callable[..., float]:
    def agg(g, solved, t, limits) -> float:
        v = solved[col].dropna() if col in solved else []
        return float(v.median()) if len(v) else math.nan
    return agg


#: The one table of solver-table columns, in order: the summary (md, csv, html), the per-set
#: tables and the explorer's overview (headers, formats and problem columns, see
#: :meth:`satdoku.report.explorer.site.Explorer.table`) all come from it.
STATS: tuple[Stat, ...] = (
    Stat("set", "set"), Stat("solver", "solver"), Stat("encoding", "encoding"),
    Stat("instances", "instances", "count", lambda g, solved, t, limits: len(g)),
    Stat("solved", "solved", "count", lambda g, solved, t, limits: int(g["solved"].sum())),
    Stat("SAT", "SAT", "count", _count("SAT")),
    Stat("UNSAT", "UNSAT", "count", _count("UNSAT")),
    Stat("TIMEOUT", "timeouts", "count", _count("TIMEOUT"), problem=True),
    Stat("MEMOUT", "memouts", "count", _count("MEMOUT"), problem=True),
    Stat("INVALID", "invalid", "count", _count("INVALID")),
    Stat("ERROR", "errors", "count", _count("ERROR"), problem=True),
    Stat("failed", "failed verif.", "count",
         lambda g, solved, t, limits: int((g["verified"] == "FAILED").sum()), problem=True),
    Stat("median_s", "median s", "seconds", _of_times("median"), timed=True),
    Stat("mean_s", "mean s", "seconds", _of_times("mean"), timed=True),
    Stat("p90_s", "p90 s", "seconds",
         lambda g, solved, t, limits: float(t.quantile(0.9)) if len(t) else math.nan,
         timed=True),
    Stat("max_s", "max s", "seconds", _of_times("max"), timed=True),
    Stat("par2_s", "PAR-2 s", "seconds", lambda g, solved, t, limits: par2(g, limits),
         timed=True),
    Stat("time_limit", "limit s", "limit"),
    Stat("decisions", "mean decisions", "mean", _mean_of("decisions")),
    Stat("conflicts", "mean conflicts", "mean", _mean_of("conflicts")),
    # the median over solved instances of each instance's fastest / slowest repeated run
    Stat("median_min_s", "median of min s", "seconds", _median_of("seconds_min"), timed=True,
         repeated=True),
    Stat("median_max_s", "median of max s", "seconds", _median_of("seconds_max"), timed=True,
         repeated=True),
)
BY_KEY = {s.key: s for s in STATS}
HEADERS = {s.key: s.header for s in STATS}
COUNTS = tuple(s.key for s in STATS if s.fmt == "count")
TIMED = tuple(s.key for s in STATS if s.timed)
SPREAD = tuple(s.key for s in STATS if s.repeated)
#: The solver of the row of a set without any instance (an empty or comment-only input).
NO_SOLVER = "-"


def par2(g, time_limit: TimeLimits | float | None) -> float:
    """PAR-2 of long rows ``g``: the mean over its valid instances of the time when solved,
    twice the instance's set's limit otherwise (NaN without a limit or an instance)."""
    limits = time_limits(time_limit)
    valid = g[g["status"] != "INVALID"]
    scores = [s if ok else 2 * lim if lim else math.nan
              for s, ok, lim in zip(valid["seconds"], valid["solved"],
                                    valid["set"].map(limits.of), strict=True)]
    return sum(scores) / len(scores) if scores else math.nan


def _stats(g, limits: TimeLimits) -> dict[str, float]:
    """Every aggregated column of :data:`STATS` for one group, and its set's limit."""
    solved = g[g["solved"]]
    t = solved["seconds"].dropna()
    out = {s.key: s.aggregate(g, solved, t, limits) for s in STATS if s.aggregate}
    lims = [limits.of(x) for x in g["set"].unique().tolist()]
    out["time_limit"] = lims[0] if len(lims) == 1 and lims[0] else math.nan
    return out


def solver_table(df, time_limit: TimeLimits | float | None,
                 by: Sequence[str] = ("set", "solver", "encoding"),
                 sets: Sequence[str] = (), time_column: str = DEFAULT_TIME):
    """One row per group (default: set x solver x encoding) with every figure of HEADERS;
    PAR-2 with each set's own limit (``time_limit``: :class:`TimeLimits` or one number for
    all). A set of ``sets`` without rows gets one row of 0 instances (solver NO_SOLVER), so an
    empty input is seen, never silently left out. ``table.attrs["time"]`` names the time
    column the figures come from (the headers say it)."""
    import pandas as pd

    limits = time_limits(time_limit)
    keys = list(by)
    rows = []
    if len(df):
        for key, g in df.groupby(keys, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            rows.append({**dict(zip(keys, key, strict=True)), **_stats(g, limits)})
    if "set" in keys:
        present = set(df["set"].unique().tolist()) if len(df) else set()
        for name in sets:
            if name not in present:
                lim = limits.of(name)
                rows.append({**{k: NO_SOLVER for k in keys}, "set": name,
                             **{c: 0 for c in COUNTS},
                             "time_limit": lim if lim else math.nan})
    repeated = any(r.get(k) == r.get(k) and r.get(k) is not None for r in rows for k in SPREAD)
    cols = keys + [c for c in HEADERS if c not in ("set", "solver", "encoding")
                   and (repeated or c not in SPREAD)]
    table = pd.DataFrame(rows, columns=cols)
    table.attrs["time"] = time_column
    return table


def empty_sets(table) -> list[str]:
    """The sets of a solver table without any instance (their one row has 0 instances)."""
    if "set" not in table.columns or not len(table):
        return []
    counts = table.groupby("set", sort=False)["instances"].sum()
    return [str(s) for s, n in counts.items() if n == 0]


def headers(table) -> list[str]:
    """The shown header of each column; time figures name their time column."""
    word = time_word(table.attrs.get("time", DEFAULT_TIME))
    return [f"{HEADERS.get(c, c)} ({word})" if c in TIMED else HEADERS.get(c, c)
            for c in table.columns]


def formats(table) -> list[str]:
    """The ``fmt`` of each column of a table (text for columns not in :data:`STATS`)."""
    return [BY_KEY[c].fmt if c in BY_KEY else "text" for c in table.columns]


def problem_columns(table) -> list[bool]:
    """Which columns of a table are :attr:`Stat.problem` columns (a value above zero there is
    marked)."""
    return [c in BY_KEY and BY_KEY[c].problem for c in table.columns]


def _fmt(col: str, v) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    fmt = BY_KEY[col].fmt if col in BY_KEY else "text"
    if fmt == "count":
        return str(int(v))
    if fmt == "mean":
        return f"{v:,.0f}"
    if fmt == "limit":
        return f"{v:g}"
    if isinstance(v, float):
        return f"{v:.3g}" if v < 1 else f"{v:.2f}"
    return str(v)


def _cells(table) -> tuple[list[str], list[list[str]]]:
    cols = list(table.columns)
    head = headers(table)
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


def problem_rows(table) -> list[bool]:
    """Which rows of a solver table show a problem (:mod:`satdoku.report.agreement`): failed
    verifications, errors, or every valid instance stopped by a limit."""
    def column(name: str) -> list:
        return list(table[name]) if name in table.columns else [0] * len(table)

    limited = [sum(c) for c in zip(*(column(s) for s in LIMIT_STATUSES), strict=True)]
    valid = [n - i for n, i in zip(column("instances"), column("INVALID"), strict=True)]
    return [bool(f or e or (v and lim == v))
            for f, e, lim, v in zip(column("failed"), column("ERROR"), limited, valid,
                                    strict=True)]


def to_html(table) -> str:
    """An HTML table (escaped); a row that shows a problem (:func:`problem_rows`) is red."""
    head, body = _cells(table)
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row, bad in zip(body, problem_rows(table), strict=True):
        style = ' style="color:#b00000;font-weight:bold"' if bad else ""
        out.append(f"<tr{style}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row)
                   + "</tr>")
    out.append("</table>")
    return "\n".join(out) + "\n"


def write_csv(table, path: str | Path) -> None:
    table.to_csv(path, index=False, float_format="%.6g")
