"""The propagation analysis as files: its stage files, a Markdown table and a bar chart.

:func:`write_outputs` writes the directory ``satdoku analyze --out DIR`` and the workflow's
``propagation`` rule make (:mod:`satdoku.stagefiles.propagation_files` names the files).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from satdoku.report.plots import _encoding_ticks, empty_chart, subplots
from satdoku.stagefiles.propagation_files import (
    CHART_FILE,
    INSTANCES_FILE,
    SUMMARY_FILE,
    TABLE_FILE,
    write_instances,
    write_summary,
)

#: (column, heading) of the Markdown table; a share follows its count in brackets
_HEADINGS = (("layout", "layout"), ("encoding", "encoding"), ("instances", "instances"),
             ("variables", "variables"), ("clauses", "clauses"),
             ("up_solved", "UP solved"), ("fl_solved", "FL solved"),
             ("singles_solved", "singles solved"), ("up_refuted", "UP refuted"),
             ("up_cpu_seconds", "UP CPU s"), ("fl_cpu_seconds", "FL CPU s"))


def write_outputs(instances: Sequence[Mapping[str, object]],
                  summary: Sequence[Mapping[str, object]], out_dir: str | Path,
                  title: str = "") -> dict[str, Path]:
    """Write ``propagation.csv``, ``propagation_instances.tsv``, ``propagation.md`` and
    ``propagation.png`` into ``out_dir``; returns their paths by file name."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {name: out / name for name in (SUMMARY_FILE, INSTANCES_FILE, TABLE_FILE,
                                           CHART_FILE)}
    write_summary(summary, paths[SUMMARY_FILE])
    write_instances(instances, paths[INSTANCES_FILE])
    paths[TABLE_FILE].write_text(markdown(summary, title), encoding="utf-8")
    chart(summary, paths[CHART_FILE], title)
    return paths


def _cell(row: Mapping[str, object], col: str) -> str:
    value = row.get(col)
    if value is None or value == "":
        return "-"
    if col.endswith("_solved"):
        share = row.get(col.replace("_solved", "_share"))
        return f"{int(value):,} ({100 * float(share):.1f}%)" if share not in (None, "") \
            else f"{int(value):,}"
    if col.endswith("_seconds"):
        n = int(row.get("instances") or 0)
        rate = f", {n / float(value):,.0f}/s" if float(value) > 0 else ""
        return f"{float(value):.2f}{rate}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{int(value):,}" if str(value).isdigit() else str(value)


def markdown(summary: Sequence[Mapping[str, object]], title: str = "") -> str:
    """The per-encoding table: counts with their shares, refutations and the CPU seconds
    (with instances per CPU second) each inference took over the set."""
    head = f"Propagation alone{f' on {title}' if title else ''}: instances each inference " \
           "solves (every cell decided) with no search. UP: unit propagation on the encoding " \
           "plus the givens; FL: UP with failed-literal probing to a fixpoint (run on what UP " \
           "left open); singles: naked and hidden singles (satdoku.heuristics). CPU s: CPU " \
           "seconds of each inference over the row, with the row's instances per CPU second " \
           "(FL: over the puzzles UP left open).\n\n"
    sampled = [r for r in summary if r.get("sample_of") not in (None, "", r.get("instances"))]
    if sampled:
        head += "A seeded uniform sample: " + "; ".join(
            f"{int(r['instances']):,} of the set's {int(r['sample_of']):,} {r['layout']} "  # type: ignore[call-overload]
            f"instances ({r['encoding']})" for r in sampled) + " (`satdoku analyze` on the " \
            "set's file analyses all of them).\n\n"
    if not summary:
        return head + "(no instances)\n"
    lines = ["| " + " | ".join(h for _, h in _HEADINGS) + " |",
             "| " + " | ".join(":---" if c in ("layout", "encoding") else "---:"
                               for c, _ in _HEADINGS) + " |"]
    lines += ["| " + " | ".join(_cell(r, c) for c, _ in _HEADINGS) + " |" for r in summary]
    return head + "\n".join(lines) + "\n"


def chart(summary: Sequence[Mapping[str, object]], out: str | Path, title: str = "") -> None:
    """Bars of the UP and FL shares per encoding, one panel per layout, the singles' share as a
    dashed line."""
    layouts = list(dict.fromkeys(str(r["layout"]) for r in summary))
    if not layouts:
        empty_chart(out, "no instances analysed", dpi=100)
        return
    most = max(sum(1 for r in summary if r["layout"] == lay) for lay in layouts)
    width = max(4.5, 1.5 + 1.1 * most)
    fig, axes = subplots(1, len(layouts), figsize=(width * len(layouts), 3.8), squeeze=False)
    for ax, lay in zip(axes[0], layouts, strict=True):
        rows = [r for r in summary if r["layout"] == lay]
        encs = [str(r["encoding"]) for r in rows]
        x = range(len(rows))
        for offset, key, label, colour in ((-0.2, "up_share", "UP", "0.45"),
                                           (0.2, "fl_share", "FL", "0.8")):
            vals = [100 * float(r[key]) if r.get(key) not in (None, "") else 0.0 for r in rows]
            bars = ax.bar([i + offset for i in x], vals, width=0.4, color=colour,
                          edgecolor="black", lw=0.5, label=label)
            ax.bar_label(bars, fmt="{:.1f}", fontsize=7)
        singles = [r.get("singles_share") for r in rows if r.get("singles_share") not in
                   (None, "")]
        if singles:
            ax.axhline(100 * float(singles[0]), color="black", ls="--", lw=1,
                       label=f"singles {100 * float(singles[0]):.1f}%")
        _encoding_ticks(ax, encs)
        ax.set_ylim(0, 108)
        ax.set_ylabel("instances solved (%)", fontsize=8)
        n = rows[0].get("instances", "")
        ax.set_title(f"{lay} ({n} instances)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", frameon=False)
    fig.suptitle(f"Solved by propagation alone{f': {title}' if title else ''}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
