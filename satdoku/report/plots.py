"""Plots (matplotlib, imported lazily, Agg backend)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from satdoku.cnf.encodings import ENCODINGS
from satdoku.report.collect import time_word
from satdoku.report.pairs import is_virtual
from satdoku.solvers.registry import CNF, is_reference, level
from satdoku.solvers.registry import colour as solver_colour
from satdoku.stagefiles.families import sort_key


def colour(run: str, variants: Mapping[str, Mapping] | None = None) -> str:
    """The colour of a run (solver/encoding): the solver registry's, the same in every plot."""
    return solver_colour(run.split("/")[0], variants)


def subplots(nrows: int = 1, ncols: int = 1, figsize: tuple[float, float] = (6.4, 4.8),
             squeeze: bool = True):  # type: ignore[no-untyped-def]
    """A figure and its axes (as ``pyplot.subplots``) drawn by the Agg canvas, without pyplot:
    no figure manager, no backend switch, no global state to close; ``fig.savefig`` writes the
    PNG. A figure is freed when its last reference goes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def empty_chart(out: str | Path, text: str, dpi: int) -> None:
    """A small chart that only says why it has nothing to show (``text``)."""
    fig, ax = subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center")
    fig.savefig(out, dpi=dpi)


def log_seconds(axis) -> None:  # type: ignore[no-untyped-def]
    """A log axis of seconds labelled in plain numbers (0.001, 0.01, 0.1, 1, 10; a short span
    also its minor ticks, as matplotlib's own log labels choose them). The default labels are
    mathtext (10^-3), whose layout costs 0.2-0.4 s of CPU per figure."""
    from matplotlib.ticker import LogFormatter

    class PlainLog(LogFormatter):
        """matplotlib's choice of the ticks to label, each labelled by ``:g``."""

        def __call__(self, x, pos=None):  # type: ignore[no-untyped-def]
            return f"{x:g}" if super().__call__(x, pos) else ""

    axis.set_major_formatter(PlainLog())
    axis.set_minor_formatter(PlainLog(labelOnlyBase=False, minor_thresholds=(1, 0.4)))


#: fixed margins (inches) of a figure with one axes and its legend to the right: room for the
#: title, the plain tick labels and the axis labels (no tight_layout: it lays every tick label
#: out once more, 0.1-0.5 s of CPU per figure)
MARGINS = {"left": 0.85, "bottom": 0.6, "top": 0.35, "right": 0.15}


def _place(fig, legend=None, bottom_extra: float = 0.0) -> None:  # type: ignore[no-untyped-def]
    """Set the axes' margins in inches (:data:`MARGINS`); the right margin also holds
    ``legend`` (drawn right of the axes), measured by the renderer (its plain text only)."""
    width, height = fig.get_size_inches()
    right = MARGINS["right"]
    if legend is not None:
        box = legend.get_window_extent(fig.canvas.get_renderer())
        right += box.width / fig.dpi + 0.1
    right = min(right, width * 0.6)
    fig.subplots_adjust(left=MARGINS["left"] / width, right=1 - right / width,
                        bottom=(MARGINS["bottom"] + bottom_extra) / height,
                        top=1 - MARGINS["top"] / height)


def _encoding_style(enc: str) -> tuple[str, str]:
    """(line style, marker fill) of an encoding in plots that compare encodings."""
    e = ENCODINGS.get(enc)
    return (e.line, e.fill) if e is not None else ("-", "full")  # direct, dimacs


def _virtual(run: str) -> bool:
    return is_virtual(run.split("/")[0])


def _style(run: str, index: int, by_encoding: bool = False,
           variants: Mapping[str, Mapping] | None = None) -> dict:
    """Line style of a run. Colour: the solver's (registry). Marker and width: circles and thick
    for our solvers, squares and thin for references. Line: solid for ours and dashed for
    references, or, when a plot shows several encodings, the encoding's (its registry record).
    A virtual best solver: a dashed black line (VBS-reference: grey), no marker."""
    if _virtual(run):
        ref = run.startswith("VBS-reference")
        return {"color": "0.5" if ref else "black", "ls": "--", "marker": "None",
                "lw": 1.4 if ref else 1.8, "fill": "full"}
    ref = is_reference(run, variants)
    enc = run.split("/")[1] if "/" in run else ""
    line, fill = _encoding_style(enc)
    ls = line if by_encoding else ("--" if ref else "-")
    return {"color": colour(run, variants), "ls": ls, "marker": "s" if ref else "o",
            "lw": 1.1 if ref else 1.8, "fill": fill if by_encoding else "full"}


def _several_encodings(runs) -> bool:
    return len({r.split("/")[1] for r in runs if "/" in r and not _virtual(r)}) > 1


def _run_label(run: str, runs) -> str:
    """A run's legend label: solver/encoding, or the virtual best solver's name."""
    return run.split("/")[0] if _virtual(run) else run


def _style_key(runs, variants: Mapping[str, Mapping] | None = None) -> list:
    """Legend entries (grey proxies) saying once what line styles and markers mean: the
    encodings when the figure shows several (ours circles, references squares), else ours solid
    and reference dashed."""
    from matplotlib.lines import Line2D

    real = [r for r in runs if not _virtual(r)]
    kinds = {is_reference(r, variants) for r in real}
    out = []
    if _several_encodings(real):
        by_style: dict[tuple[str, str], list[str]] = {}
        for enc in sorted({r.split("/")[1] for r in real if "/" in r}):
            by_style.setdefault(_encoding_style(enc), []).append(enc)
        for (line, fill), encs in by_style.items():
            out.append(Line2D([], [], color="0.3", ls=line, lw=1.4, marker="o", fillstyle=fill,
                              label=f"encoding {', '.join(encs)}"))
        if kinds == {True, False}:
            out += [Line2D([], [], color="0.3", ls="none", marker="o", label="ours"),
                    Line2D([], [], color="0.3", ls="none", marker="s", label="reference")]
    elif kinds == {True, False}:
        out += [Line2D([], [], color="0.3", ls="-", lw=1.8, label="ours (solid)"),
                Line2D([], [], color="0.3", ls="--", lw=1.1, label="reference (dashed)")]
    return out


#: Time limits of a figure: one number, or {limit: the sets it is the limit of}.
SizeLimits = float | None | Mapping[float, Sequence[str]]


def _limit_map(time_limit: SizeLimits) -> dict[float, list[str]]:
    if not time_limit:
        return {}
    if isinstance(time_limit, Mapping):
        return {float(k): list(v) for k, v in sorted(time_limit.items())}
    return {float(time_limit): []}


def _limit_line(ax, time_limit: SizeLimits, horizontal: bool = True,
                vertical: bool = False) -> None:
    """One line per time limit of the figure (horizontal, and vertical too for a scatter),
    labelled with its sets when they differ."""
    limits = _limit_map(time_limit)
    for k, (lim, sets) in enumerate(limits.items()):
        who = f": {', '.join(sets)}" if sets and len(limits) > 1 else ""
        style = {"color": "0.35", "ls": (":", "-.", (0, (1, 3)))[k % 3], "lw": 1.0}
        if horizontal:
            ax.axhline(lim, label=f"time limit ({lim:g} s{who})", **style)
        if vertical:
            ax.axvline(lim, label=None if horizontal else f"time limit ({lim:g} s{who})",
                       **style)


def _legend_outside(ax, fig, extra=(), **kw) -> None:
    """Legend to the right of the axes, so it never covers data; ``extra``: key entries
    (line styles, markers) listed once after the runs."""
    handles, labels = ax.get_legend_handles_labels()
    handles, labels = [*handles, *extra], [*labels, *(h.get_label() for h in extra)]
    legend = None
    if handles:
        legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                           fontsize=8, frameon=False, **kw)
    _place(fig, legend)


def time_per_instance(set_name: str, times: Mapping[str, Sequence[Mapping[str, str]]],
                      out: str | Path, time_limit: float | None = None):
    """Per-instance total time (s, log scale) of every run in input order; our solvers solid,
    references dashed; timeouts/errors as crosses on the time-limit line; INVALID not shown.

    Returns the figure's series {run: [(instance id, seconds or None for timeout/error)]}."""
    fig, ax = subplots(figsize=(10, 4.8))
    series: dict[str, list[tuple[int, float | None]]] = {}
    invalid: set[str] = set()
    solved_all: list[float] = []
    for rows in times.values():
        solved_all += [float(r["total_seconds"]) for r in rows
                       if r["status"] in ("SAT", "UNSAT") and r.get("total_seconds")]
    top = time_limit or (max(solved_all) * 2 if solved_all else 1.0)
    for i, (run, rows) in enumerate(times.items()):
        pts: list[tuple[int, float | None]] = []
        xs: list[int] = []
        ys: list[float] = []  # NaN breaks the line at a timeout or invalid instance
        for k, r in enumerate(rows):
            x = int(r["id"]) if str(r["id"]).isdigit() else k + 1
            if r["status"] == "INVALID":
                invalid.add(r["id"])
                xs.append(x)
                ys.append(math.nan)
                continue
            ok = r["status"] in ("SAT", "UNSAT") and r.get("total_seconds")
            pts.append((x, max(float(r["total_seconds"]), 1e-6) if ok else None))
            xs.append(x)
            ys.append(math.nan if pts[-1][1] is None else pts[-1][1])  # type: ignore[arg-type]
        series[run] = pts
        st = _style(run, i, _several_encodings(times))
        many = len(pts) > 60
        label = _run_label(run, times)
        ax.plot(xs, ys, color=st["color"], ls="none" if many else st["ls"], lw=st["lw"] * 0.7,
                marker=st["marker"], ms=3 if many else 4, fillstyle=st["fill"], alpha=0.85,
                label=label,
                rasterized=many)
        to = [x for x, y in pts if y is None]
        if to:
            ax.plot(to, [top] * len(to), ls="none", marker="x", ms=7, mew=1.5, color=st["color"],
                    label=f"{label}: {len(to)} timeout/error")
    _limit_line(ax, time_limit)
    ax.set_yscale("log")
    log_seconds(ax.yaxis)
    ax.set_xlabel("instance (id = position in the input file)"
                  + (f"; {len(invalid)} invalid instance(s) not shown" if invalid else ""))
    ax.set_ylabel("total seconds per instance (log)")
    ax.set_title(f"{set_name}: total time per instance", fontsize=10)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax, fig, _style_key(times))
    fig.savefig(out, dpi=110)
    return series


#: points a cactus curve is drawn with at most (its solved instances sampled evenly): a curve
#: of 50,000 instances looks the same on a plot a thousand pixels wide, and costs 25x less to
#: draw (the summary's PNG, the explorer's plots.js)
CACTUS_POINTS = 2000


def curve_sample(m: int, most: int = CACTUS_POINTS):  # type: ignore[no-untyped-def]
    """Indices (numpy) of the points of a sorted curve of ``m`` points that are drawn: all of
    them up to ``most``, else ``most`` evenly spaced ones, the first and the last always."""
    import numpy as np

    if m <= most:
        return np.arange(m)
    return np.unique(np.round(np.arange(most) * (m - 1) / (most - 1)).astype(int))


def cactus(title: str, solved_times: Mapping[str, Sequence[float]], out: str | Path,
           total: int, time_limit: SizeLimits = None,
           variants: Mapping[str, Mapping] | None = None, time_column: str = "total_seconds"):
    """Cactus plot: for each run, instances solved (x) within a per-instance time (y, s, log);
    a virtual best solver (run ``VBS/*``) as a dashed black line; one line per set limit.

    ``solved_times`` maps a run to the times of the instances it solved; ``total`` is the number
    of valid instances of the family. Returns {run: sorted times} (the plotted series)."""
    fig, ax = subplots(figsize=(9, 5))
    series: dict[str, list[float]] = {}
    for i, (run, times) in enumerate(solved_times.items()):
        ys = sorted(max(float(t), 1e-6) for t in times if not math.isnan(float(t)))
        series[run] = ys
        st = _style(run, i, _several_encodings(solved_times), variants)
        keep = curve_sample(len(ys)).tolist()  # x = rank, as every point drawn
        ax.plot([k + 1 for k in keep], [ys[k] for k in keep], color=st["color"], ls=st["ls"],
                lw=st["lw"], marker=st["marker"], ms=4, fillstyle=st["fill"],
                markevery=max(1, len(keep) // 25) if keep else 1,
                label=f"{_run_label(run, solved_times)} ({len(ys)}/{total})",
                zorder=3 if _virtual(run) else 2)
    _limit_line(ax, time_limit)
    ax.axvline(total, color="0.6", lw=0.8, ls="-.", label=f"all {total} instances")
    ax.set_yscale("log")
    log_seconds(ax.yaxis)
    ax.set_xlim(0, max(total, 1) * 1.03)
    ax.set_xlabel("instances solved")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel(f"{time_word(time_column)} seconds per instance (log)")
    ax.set_title(f"{title}: solved within a time (lower/right is better)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax, fig, _style_key(solved_times, variants))
    fig.savefig(out, dpi=110)
    return series


_FAMILY_MARKERS = ["o", "s", "^", "D", "v", "P", "*", "X"]


def scatter(ours: str, reference: str, points: Sequence[tuple[float | None, float | None, str]],
            out: str | Path, time_limit: SizeLimits = None,
            variants: Mapping[str, Mapping] | None = None, time_column: str = "total_seconds",
            note: str = ""):
    """Log-log scatter of per-instance times: a reference solver (x) against ours (y).

    ``points`` are (reference seconds, our seconds, family) with None for an unsolved instance
    (timeout, error, wrong answer), drawn on the border beyond the largest time limit of the
    points' sets (each limit drawn as its own line). Returns {family: [(x, y)]} as plotted
    (border values substituted). ``note``: a line under the plot (the paired statistics)."""
    solved = [v for x, y, _ in points for v in (x, y) if v is not None]
    lo = max(min(solved) / 2, 1e-5) if solved else 1e-3
    limits = _limit_map(time_limit)
    limit = max(limits) if limits else (max(solved) if solved else 1.0)
    border = max(limit, max(solved) if solved else limit) * 1.5
    fig, ax = subplots(figsize=(6.8, 6))
    series: dict[str, list[tuple[float, float]]] = {}
    for x, y, fam in points:
        series.setdefault(fam, []).append((border if x is None else max(x, lo),
                                           border if y is None else max(y, lo)))
    for k, (fam, pts) in enumerate(sorted(series.items(), key=lambda kv: _family_key(kv[0]))):
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, alpha=0.7,
                   marker=_FAMILY_MARKERS[k % len(_FAMILY_MARKERS)], color=colour(ours, variants),
                   edgecolors="black", linewidths=0.3, label=f"{fam} ({len(pts)})")
    top = border * 1.4
    ax.plot([lo, top], [lo, top], color="0.3", lw=1, label="equal time")
    for f, lab in ((10, "10x faster/slower"), (0.1, None)):
        ax.plot([lo, top], [lo * f, top * f], color="0.6", lw=0.7, ls=":", label=lab)
    _limit_line(ax, limits, horizontal=True, vertical=True)
    ax.axhline(border, color="0.6", lw=0.6)
    ax.axvline(border, color="0.6", lw=0.6, label="on the border: timeout/error")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_seconds(ax.xaxis)
    log_seconds(ax.yaxis)
    ax.set_xlim(lo, top)
    ax.set_ylim(lo, top)
    ax.set_aspect("equal")
    word = time_word(time_column)
    ax.set_xlabel(f"{reference}: {word} seconds per instance (log)")
    ax.set_ylabel(f"{ours}: {word} seconds per instance (log); below the diagonal: faster")
    lv = (_level(ours, variants), _level(reference, variants))
    who = (f"{ours} ({lv[0]}) vs {reference} ({lv[1]})" if lv[0] != lv[1]
           else f"{ours} vs {reference}")
    ax.set_title(f"{who}: {len(points)} instances", fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    height = fig.get_size_inches()[1]
    below = 0.05  # inches under the legend: the note's line when there is one
    if note:
        fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=8)
        below = 0.25
    handles, labels = ax.get_legend_handles_labels()
    legend = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, below / height),
                        ncol=3, fontsize=8, frameon=False)
    legend_height = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi
    _place(fig, bottom_extra=below + legend_height)  # the legend under the axes
    fig.savefig(out, dpi=110)
    return series


def _level(solver: str, variants: Mapping[str, Mapping] | None = None) -> str:
    """ "CNF" or "puzzle-level": what a solver works on (a scatter of a CNF run against a
    puzzle-level one says so in its title)."""
    try:
        lv = level(solver, dict(variants or {}))  # type: ignore[arg-type]
    except KeyError:
        return "CNF"
    return "CNF" if lv == CNF else "puzzle-level"


def encodings(rows: Sequence[Mapping[str, object]], times: Mapping[tuple[str, str], Mapping[str,
              float]], out: str | Path, variants: Mapping[str, Mapping] | None = None,
              time_column: str = "total_seconds"):
    """Encoding comparison, one row of panels per family: mean variables, clauses and DIMACS
    kilobytes per instance for each encoding, and the median time of each solver per encoding.

    ``rows``: dicts with family, encoding, vars, clauses, bytes (means); ``times``:
    {(family, encoding): {solver: median seconds}}. Returns {family: {panel: {label: value}}}."""
    fams = sorted({str(r["family"]) for r in rows}, key=_family_key)
    series: dict[str, dict[str, dict[str, float]]] = {}
    if not fams:
        empty_chart(out, "no CNF inputs: no encoding to compare", dpi=110)
        return series
    fig, axes = subplots(len(fams), 4, figsize=(15, 2.9 * len(fams)), squeeze=False)
    legends = []
    panels = (("vars", "variables per instance", 1), ("clauses", "clauses per instance", 1),
              ("bytes", "DIMACS size per instance (KB)", 1024))
    for row_axes, fam in zip(axes, fams, strict=True):
        data = [r for r in rows if r["family"] == fam]
        encs = [str(r["encoding"]) for r in data]
        series[fam] = {}
        for ax, (key, label, div) in zip(row_axes, panels, strict=False):
            vals = [float(r[key]) / div for r in data]  # type: ignore[arg-type]
            series[fam][key] = dict(zip(encs, vals, strict=True))
            bars = ax.bar(range(len(encs)), vals, width=0.55, color="0.55", edgecolor="black",
                          lw=0.5)
            _encoding_ticks(ax, encs)
            ax.bar_label(bars, fmt="{:,.0f}" if div == 1 else "{:,.1f}", fontsize=7)
            ax.set_ylabel(label, fontsize=8)
            ax.set_title(f"{fam}: {label}", fontsize=9)
            ax.margins(y=0.18)
        ax = row_axes[3]
        solvers = sorted({s for e in encs for s in times.get((fam, e), {})})
        med: dict[str, float] = {}
        for j, solver in enumerate(solvers):
            ys = [times.get((fam, e), {}).get(solver, math.nan) for e in encs]
            st = _style(solver, j, variants=variants)
            ax.plot(range(len(encs)), ys, color=st["color"], ls=st["ls"], marker=st["marker"],
                    ms=6, lw=1.2, label=solver)
            med.update({f"{solver}/{e}": y for e, y in zip(encs, ys, strict=True)})
        series[fam]["median_s"] = med
        _encoding_ticks(ax, encs)
        ax.set_xlim(-0.5, len(encs) - 0.5)
        ax.set_yscale("log")
        log_seconds(ax.yaxis)
        vals = [v for v in med.values() if not math.isnan(v)]
        if vals:  # at least one decade shown, so the log axis has labelled ticks
            lo, hi = min(vals), max(vals)
            mid = math.sqrt(lo * hi)
            span = max(hi / lo, 10.0) ** 0.5 * 1.3
            ax.set_ylim(mid / span, mid * span)
        ax.set_ylabel(f"median {time_word(time_column)} s (log)", fontsize=8)
        ax.set_title(f"{fam}: median time per solved instance", fontsize=9)
        ax.grid(True, which="both", axis="y", alpha=0.3)
        if solvers:
            legends.append(ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
                                     frameon=False))
    fig.suptitle("Encodings compared: formula size and solving time", fontsize=11)
    _place_grid(fig, axes, legends)
    fig.savefig(out, dpi=100)
    return series


def _place_grid(fig, axes, legends) -> None:  # type: ignore[no-untyped-def]
    """Fixed margins (inches) of the encodings' grid of panels: the suptitle above, the slanted
    encoding names under each row, each panel's axis label and tick labels left of it (the
    widest of each column, so six-digit counts fit), and the widest legend of the last column
    to the right (both measured by the renderer)."""
    nrows, ncols = len(axes), len(axes[0])
    width, height = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    right = 0.15 + max((lg.get_window_extent(renderer).width / fig.dpi + 0.1 for lg in legends),
                       default=0.0)
    y_axis = [max(row[col].yaxis.get_tightbbox(renderer).width for row in axes) / fig.dpi
              for col in range(ncols)]  # tick labels and axis label, left of each panel
    left = max(0.75, y_axis[0] + 0.1)
    gap_x = max([0.95] + [w + 0.2 for w in y_axis[1:]])
    top, bottom, gap_y = 0.75, 0.8, 1.15
    panel_w = (width - left - right - gap_x * (ncols - 1)) / ncols
    panel_h = (height - top - bottom - gap_y * (nrows - 1)) / nrows
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height,
                        top=1 - top / height, wspace=gap_x / panel_w, hspace=gap_y / panel_h)


def _encoding_ticks(ax, encs: Sequence[str]) -> None:
    """Encoding names under the bars, slanted so that long names never overlap."""
    ax.set_xticks(range(len(encs)), encs, rotation=30, ha="right", rotation_mode="anchor",
                  fontsize=8)


def _family_key(fam: str) -> tuple[int, str]:
    return sort_key(fam)
