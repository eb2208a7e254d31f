"""``satdoku compare A B``: what changed between two runs, instance by instance.

Each side is a results directory (its current stage files) or a stored run
(``results/runs/<run id>.parquet``). Rows join on (instance, solver, encoding), the instance
being its ``instance_hash`` (``by="hash"``, the default: across renamed sets, moved files and
machines; an instance listed twice counts once; INVALID instances, which have no hash, are left
out) or its (set, id) (``by="set"``). Per (set, solver, encoding): ``n`` joined instances,
``status_changes`` (any status differs), and over the instances both runs solved the median of
the per-instance ratios B/A of ``total_seconds`` (or another time column) with a seeded
bootstrap 95% interval (the same ratio floor, median and bootstrap as ``reports/pairs.csv``:
:mod:`satdoku.report.pairs`). An answer that flips between SAT and UNSAT is a wrong answer in one
of the runs: :func:`compare` counts those flips and the command exits 1 on any.

The join and the aggregates are DuckDB queries over the two row tables.
"""

from __future__ import annotations

import csv
import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satdoku.paired_stats import RESAMPLES, SEED, TIME_FLOOR, bootstrap_median_ci, median
from satdoku.runs.store import manifest_of, read_rows
from satdoku.stagefiles.manifest import describe

COMPARE_COLUMNS = ("set", "solver", "encoding", "n", "status_changes", "median_ratio", "ci_low",
                   "ci_high")
SOLVED = ("SAT", "UNSAT")


@dataclass
class Comparison:
    """The result of :func:`compare`: per-run rows, the instance-level changes and extremes."""

    rows: list[dict[str, Any]]
    changes: list[dict[str, Any]]  # instances whose status changed
    flips: list[dict[str, Any]]  # ... from SAT to UNSAT or back
    slower: list[dict[str, Any]]  # largest ratios B/A first
    faster: list[dict[str, Any]]  # smallest first
    manifests: tuple[dict | None, dict | None] = (None, None)
    sources: tuple[str, str] = ("", "")
    time_column: str = "total_seconds"
    only: dict[str, int] = field(default_factory=dict)  # instances only in A / only in B
    by: str = "instance_hash"  # how instances were joined


def _side(con, name: str, table, by: str, time_column: str) -> None:  # type: ignore[no-untyped-def]
    """Register one side as view ``name`` with a join key and one row per key."""
    if time_column not in table.column_names:
        raise ValueError(f"{name.upper()} has no column {time_column!r}")
    con.register(f"{name}_raw", table)
    key = ("instance_hash" if by == "hash"
           else "\"set\" || '#' || CAST(id AS VARCHAR)")
    where = "WHERE instance_hash <> ''" if by == "hash" else ""
    con.execute(f"""
        CREATE TEMP VIEW {name} AS
        SELECT {key} AS k, "set", id, instance_hash, solver, encoding, status, verified,
               CAST("{time_column}" AS DOUBLE) AS t
        FROM {name}_raw {where}
        QUALIFY row_number() OVER (PARTITION BY k, solver, encoding ORDER BY "set", id) = 1
    """)


def compare(a: str | Path, b: str | Path, by: str = "hash", time_column: str = "total_seconds",
            top: int = 10, resamples: int = RESAMPLES, seed: int = SEED,
            results: str | Path = "results") -> Comparison:
    """Compare run B against run A (see the module doc; a run id names a run stored under
    ``results``)."""
    import duckdb

    if by not in ("hash", "set"):
        raise ValueError(f"by must be 'hash' or 'set', not {by!r}")
    ta, tb = read_rows(a, results), read_rows(b, results)
    con = duckdb.connect()
    _side(con, "a", ta, by, time_column)
    _side(con, "b", tb, by, time_column)
    solved = "({s}.status IN ('SAT', 'UNSAT') AND {s}.verified <> 'FAILED')"
    con.execute(f"""
        CREATE TEMP VIEW j AS
        SELECT a."set", a.id, b."set" AS set_b, b.id AS id_b, a.instance_hash, a.solver,
               a.encoding, a.status AS status_a, b.status AS status_b,
               a.verified AS verified_a, b.verified AS verified_b, a.t AS ta, b.t AS tb,
               {solved.format(s="a")} AND {solved.format(s="b")}
                   AND a.t IS NOT NULL AND b.t IS NOT NULL AS both_solved,
               greatest(b.t, {TIME_FLOOR}) / greatest(a.t, {TIME_FLOOR}) AS ratio
        FROM a JOIN b USING (k, solver, encoding)
    """)
    groups = con.execute("""
        SELECT "set", solver, encoding, count(*) AS n,
               count(*) FILTER (WHERE status_a <> status_b) AS status_changes,
               list(ratio ORDER BY "set", id) FILTER (WHERE both_solved) AS ratios,
               min(id) AS first
        FROM j GROUP BY "set", solver, encoding
        ORDER BY min(id), "set", solver, encoding
    """).fetchall()
    rows = []
    for set_name, solver, encoding, n, changes, ratios, _ in groups:
        ratios = ratios or []
        lo, hi = bootstrap_median_ci(ratios, resamples, seed)
        rows.append({"set": set_name, "solver": solver, "encoding": encoding, "n": n,
                     "status_changes": changes, "median_ratio": median(ratios), "ci_low": lo,
                     "ci_high": hi})

    def records(sql: str) -> list[dict[str, Any]]:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    cols = ('"set", id, set_b, id_b, instance_hash, solver, encoding, status_a, status_b, '
            "verified_a, verified_b, ta, tb, ratio")
    changes = records(f"SELECT {cols} FROM j WHERE status_a <> status_b "
                      "ORDER BY \"set\", id, solver, encoding")
    flips = [c for c in changes if {c["status_a"], c["status_b"]} == set(SOLVED)]
    slower = records(f"SELECT {cols} FROM j WHERE both_solved AND ratio > 1 "
                     f"ORDER BY ratio DESC, \"set\", id LIMIT {int(top)}")
    faster = records(f"SELECT {cols} FROM j WHERE both_solved AND ratio < 1 "
                     f"ORDER BY ratio, \"set\", id LIMIT {int(top)}")
    only = dict(zip(("only_a", "only_b"), con.execute("""
        SELECT (SELECT count(*) FROM a ANTI JOIN b USING (k, solver, encoding)),
               (SELECT count(*) FROM b ANTI JOIN a USING (k, solver, encoding))
    """).fetchone(), strict=True))
    return Comparison(rows, changes, flips, slower, faster, (manifest_of(ta), manifest_of(tb)),
                      (str(a), str(b)), time_column, only,
                      "instance_hash" if by == "hash" else "(set, id)")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def write_csv(c: Comparison, path: str | Path) -> None:
    """DIR/compare.csv: one row per (set, solver, encoding), columns COMPARE_COLUMNS."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COMPARE_COLUMNS)
        for r in c.rows:
            w.writerow([_fmt(r[k]) for k in COMPARE_COLUMNS])


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(t)}</th>" for _, t in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(k, '')))}</td>"
                                     for k, _ in columns) + "</tr>" for r in rows)
    return f'<table class="{cls}"><tr>{head}</tr>{body}</table>'


_INSTANCE = [("set", "set (A)"), ("id", "id (A)"), ("instance_hash", "instance_hash"),
             ("solver", "solver"), ("encoding", "encoding")]
_STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em;display:block;overflow-x:auto}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
.flip{background:#fdd;border:3px solid #c00;padding:.5em 1em}
.flip h2{color:#c00}.ok{color:#070}code{word-break:break-all}"""


def write_html(c: Comparison, path: str | Path) -> None:
    """DIR/compare.html: answer flips first (loud), status changes, per-run ratios, the
    instances that got most slower and faster, and the two runs' manifests."""
    e = html.escape
    t = e(c.time_column)
    parts = [f"<!doctype html><meta charset='utf-8'><title>satdoku compare</title>"
             f"<style>{_STYLE}</style>",
             f"<h1>B against A</h1><p>A: <code>{e(c.sources[0])}</code><br>"
             f"B: <code>{e(c.sources[1])}</code><br>Instances joined by <b>{e(c.by)}</b>. "
             f"Ratios are B / A of <b>{t}</b> over the "
             "instances both runs solved; the interval is a seeded bootstrap 95% interval of "
             "the median.</p>"]
    if c.flips:
        parts.append(f'<div class="flip"><h2>{len(c.flips)} answer(s) flipped between SAT and '
                     "UNSAT: one of the runs is wrong</h2>"
                     + _table(c.flips, [*_INSTANCE, ("status_a", "A"), ("status_b", "B"),
                                        ("verified_a", "A verified"),
                                        ("verified_b", "B verified")]) + "</div>")
    else:
        parts.append('<p class="ok">No answer flipped between SAT and UNSAT.</p>')
    parts.append("<h2>Per run</h2>" + _table(c.rows, [(k, k) for k in COMPARE_COLUMNS]))
    parts.append(f"<p>Instances only in A: {c.only.get('only_a', 0)}, only in B: "
                 f"{c.only.get('only_b', 0)}.</p>")
    parts.append(f"<h2>Status changes ({len(c.changes)})</h2>"
                 + (_table(c.changes, [*_INSTANCE, ("status_a", "A"), ("status_b", "B"),
                                       ("ta", f"A {t}"), ("tb", f"B {t}")])
                    if c.changes else "<p>none</p>"))
    timing = [*_INSTANCE, ("ta", f"A {t}"), ("tb", f"B {t}"), ("ratio", "B / A")]
    parts.append("<h2>Most slowed down</h2>" + (_table(c.slower, timing) if c.slower
                                                  else "<p>none</p>"))
    parts.append("<h2>Most sped up</h2>" + (_table(c.faster, timing) if c.faster
                                              else "<p>none</p>"))
    for label, m in zip("AB", c.manifests, strict=True):
        text = "<br>".join(e(x) for x in describe(m)) if m else "no run manifest"
        parts.append(f"<h2>Run {label}</h2><p>{text}</p>")
    Path(path).write_text("\n".join(parts) + "\n", encoding="utf-8")


def write_report(c: Comparison, out: str | Path) -> tuple[Path, Path]:
    """Write DIR/compare.csv and DIR/compare.html."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    write_csv(c, d / "compare.csv")
    write_html(c, d / "compare.html")
    return d / "compare.csv", d / "compare.html"
