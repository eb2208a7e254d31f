"""Plots (matplotlib, imported lazily, Agg backend)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

#: One colour per solver across every plot.
SOLVER_COLOURS = {
    "minisat22": "#1f77b4", "glucose4": "#2ca02c", "cadical195": "#9467bd",
    "dpll": "#d62728", "cdcl": "#ff7f0e", "cpsat": "#8c564b",
}
_FALLBACK = ["#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78"]


def colour(run: str, index: int = 0) -> str:
    """The colour of a run (solver/encoding): fixed per solver name."""
    base = run.split("/")[0]
    if base in SOLVER_COLOURS:
        return SOLVER_COLOURS[base]
    stem = base.split("-")[0]
    return SOLVER_COLOURS.get(stem, _FALLBACK[index % len(_FALLBACK)])


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def time_per_instance(set_name: str, times: Mapping[str, Sequence[Mapping[str, str]]],
                      out: str | Path, time_limit: float | None = None):
    """Per-instance total time of every run, log scale, timeouts marked at the limit.

    Returns the figure's series {run: [(instance index, ms or None for timeout)]} for tests."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 5))
    series: dict[str, list[tuple[int, float | None]]] = {}
    limit_ms = (time_limit or 0) * 1000
    for i, (run, rows) in enumerate(times.items()):
        pts = [(k + 1, float(r["total_seconds"]) * 1000 if r["status"] in ("SAT", "UNSAT")
                else None) for k, r in enumerate(rows) if r["status"] != "INVALID"]
        series[run] = pts
        xs = [x for x, y in pts if y is not None]
        ys = [y for _, y in pts if y is not None]
        ax.plot(xs, ys, marker="o", ms=3, lw=0.8, color=colour(run, i), label=run)
        to = [x for x, y in pts if y is None]
        if to:
            top = limit_ms or (max(ys) * 2 if ys else 1.0)
            ax.scatter(to, [top] * len(to), marker="x", color=colour(run, i), s=40,
                       label=f"{run} timeout/error")
    ax.set_yscale("log")
    ax.set_xlabel("instance (input order)")
    ax.set_ylabel("time per instance (ms, log scale)")
    ax.set_title(f"{set_name}: time per instance, our solvers vs reference solvers")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return series
