"""Plots (matplotlib, imported lazily, Agg backend)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path


def colour(run: str, variants: Mapping[str, Mapping] | None = None) -> str:
    """The colour of a run (solver/encoding): the solver registry's, the same in every plot."""
    from satdoku.solvers.registry import colour as solver_colour

    return solver_colour(run.split("/")[0], variants)


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def is_reference(run: str, variants: Mapping[str, Mapping] | None = None) -> bool:
    """True for a reference (third-party) solver, False for ours: the solver registry's origin
    of the run's solver (a configured variant shares its base's)."""
    from satdoku.solvers.registry import REFERENCE, origin

    return origin(run.split("/")[0], variants) == REFERENCE


def _encoding_style(enc: str) -> tuple[str, str]:
    """(line style, marker fill) of an encoding in plots that compare encodings."""
    from satdoku.cnf.encodings import ENCODINGS

    e = ENCODINGS.get(enc)
    return (e.line, e.fill) if e is not None else ("-", "full")  # direct, dimacs


def _style(run: str, index: int, by_encoding: bool = False) -> dict:
    """Line style of a run. Colour: the solver's. Marker and width: circles and thick for our
    solvers, squares and thin for references. Line: solid for ours and dashed for references,
    or, when a plot shows several encodings, the encoding's (its registry record)."""
    ref = is_reference(run)
    enc = run.split("/")[1] if "/" in run else ""
    line, fill = _encoding_style(enc)
    ls = line if by_encoding else ("--" if ref else "-")
    return {"color": colour(run), "ls": ls, "marker": "s" if ref else "o",
            "lw": 1.1 if ref else 1.8, "fill": fill if by_encoding else "full"}


def _several_encodings(runs) -> bool:
    return len({r.split("/")[1] for r in runs if "/" in r}) > 1


_LINE_WORDS = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
_FILL_WORDS = {"full": "filled", "left": "half", "none": "hollow", "bottom": "bottom-half",
               "top": "top-half"}


def _style_note(runs) -> str:
    ours = {is_reference(r) for r in runs} == {True, False}
    if _several_encodings(runs):
        encs = sorted({r.split("/")[1] for r in runs if "/" in r})
        parts = []
        for enc in encs:
            line, fill = _encoding_style(enc)
            parts.append(f"{_LINE_WORDS.get(line, line)} / {_FILL_WORDS.get(fill, fill)} = {enc}")
        return ("colour = solver; line / marker: " + ", ".join(parts)
                + ("; circles = ours, squares = reference" if ours else ""))
    return "solid = ours, dashed = reference" if ours else ""


def _wrap(title: str, note: str = "", width: int = 80) -> str:
    """A title with its note on wrapped lines below, so nothing is cut at the figure edge."""
    import textwrap

    return "\n".join([title, *textwrap.wrap(note, width)]) if note else title


def _limit_line(ax, time_limit: float | None, horizontal: bool = True) -> None:
    if time_limit:
        f = ax.axhline if horizontal else ax.axvline
        f(time_limit, color="0.35", ls=":", lw=1.0, label=f"time limit ({time_limit:g} s)")


def _legend_outside(ax, fig, **kw) -> None:
    """Legend to the right of the axes, so it never covers data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
                  frameon=False, **kw)
    fig.tight_layout()


def time_per_instance(set_name: str, times: Mapping[str, Sequence[Mapping[str, str]]],
                      out: str | Path, time_limit: float | None = None):
    """Per-instance total time (s, log scale) of every run in input order; our solvers solid,
    references dashed; timeouts/errors as crosses on the time-limit line; INVALID not shown.

    Returns the figure's series {run: [(instance id, seconds or None for timeout/error)]}."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 4.8))
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
        ax.plot(xs, ys, color=st["color"], ls="none" if many else st["ls"], lw=st["lw"] * 0.7,
                marker=st["marker"], ms=3 if many else 4, fillstyle=st["fill"], alpha=0.85,
                label=run,
                rasterized=many)
        to = [x for x, y in pts if y is None]
        if to:
            ax.plot(to, [top] * len(to), ls="none", marker="x", ms=7, mew=1.5, color=st["color"],
                    label=f"{run}: {len(to)} timeout/error")
    _limit_line(ax, time_limit)
    ax.set_yscale("log")
    ax.set_xlabel("instance (id = position in the input file)")
    ax.set_ylabel("time per instance (s, log scale)")
    kinds = {is_reference(r) for r in times}
    who = ("our solvers vs reference solvers" if kinds == {True, False}
           else "reference solvers" if kinds == {True} else "our solvers")
    notes = [n for n in (_style_note(times),) if n]
    notes.append("x on the limit line = timeout/error")
    if invalid:
        notes.append(f"{len(invalid)} invalid instance(s) not shown")
    ax.set_title(_wrap(f"{set_name}: time per instance, {who}", "; ".join(notes)), fontsize=10)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax, fig)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return series


def cactus(title: str, solved_times: Mapping[str, Sequence[float]], out: str | Path,
           total: int, time_limit: float | None = None):
    """Cactus plot: for each run, instances solved (x) within a per-instance time (y, s, log).

    ``solved_times`` maps a run to the times of the instances it solved; ``total`` is the number
    of valid instances of the family. Returns {run: sorted times} (the plotted series)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 5))
    series: dict[str, list[float]] = {}
    for i, (run, times) in enumerate(solved_times.items()):
        ys = sorted(max(float(t), 1e-6) for t in times if not math.isnan(float(t)))
        series[run] = ys
        st = _style(run, i, _several_encodings(solved_times))
        ax.plot(range(1, len(ys) + 1), ys, color=st["color"], ls=st["ls"], lw=st["lw"],
                marker=st["marker"], ms=4, fillstyle=st["fill"],
                markevery=max(1, len(ys) // 25) if ys else 1,
                label=f"{run} ({len(ys)}/{total})")
    _limit_line(ax, time_limit)
    ax.axvline(total, color="0.6", lw=0.8, ls="-.", label=f"all {total} instances")
    ax.set_yscale("log")
    ax.set_xlim(0, max(total, 1) * 1.03)
    ax.set_xlabel("instances solved")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("time per instance (s, log scale)")
    ax.set_title(_wrap(f"{title}: instances solved within a time (cactus; lower/right is "
                       "better)", _style_note(solved_times)), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax, fig)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return series


_FAMILY_MARKERS = ["o", "s", "^", "D", "v", "P", "*", "X"]


def scatter(ours: str, reference: str, points: Sequence[tuple[float | None, float | None, str]],
            out: str | Path, time_limit: float | None = None,
            variants: Mapping[str, Mapping] | None = None):
    """Log-log scatter of per-instance times: a reference solver (x) against ours (y).

    ``points`` are (reference seconds, our seconds, family) with None for an unsolved instance
    (timeout, error, wrong answer), drawn on the border beyond the time limit. Returns
    {family: [(x, y)]} as plotted (border values substituted)."""
    plt = _plt()
    solved = [v for x, y, _ in points for v in (x, y) if v is not None]
    lo = max(min(solved) / 2, 1e-5) if solved else 1e-3
    limit = time_limit or (max(solved) if solved else 1.0)
    border = limit * 1.5
    fig, ax = plt.subplots(figsize=(6.8, 6))
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
    ax.axhline(limit, color="0.35", ls="--", lw=0.8)
    ax.axvline(limit, color="0.35", ls="--", lw=0.8, label=f"time limit ({limit:g} s); beyond "
               "= timeout/error")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, top)
    ax.set_ylim(lo, top)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{reference} time per instance (s, log scale)")
    ax.set_ylabel(f"{ours} time per instance (s, log scale)")
    ax.set_title(f"{ours} vs {reference}: {len(points)} instances\n"
                 f"below the diagonal: {ours} faster", fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return series


def encodings(rows: Sequence[Mapping[str, object]], times: Mapping[tuple[str, str], Mapping[str,
              float]], out: str | Path):
    """Encoding comparison, one row of panels per family: mean variables, clauses and DIMACS
    kilobytes per instance for each encoding, and the median time of each solver per encoding.

    ``rows``: dicts with family, encoding, vars, clauses, bytes (means); ``times``:
    {(family, encoding): {solver: median seconds}}. Returns {family: {panel: {label: value}}}."""
    plt = _plt()
    fams = sorted({str(r["family"]) for r in rows}, key=_family_key)
    series: dict[str, dict[str, dict[str, float]]] = {}
    if not fams:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no CNF inputs: no encoding to compare", ha="center", va="center")
        fig.savefig(out, dpi=110)
        plt.close(fig)
        return series
    fig, axes = plt.subplots(len(fams), 4, figsize=(15, 2.9 * len(fams)), squeeze=False)
    panels = (("vars", "variables per instance", 1), ("clauses", "clauses per instance", 1),
              ("bytes", "DIMACS size per instance (KB)", 1024))
    for row_axes, fam in zip(axes, fams, strict=True):
        data = [r for r in rows if r["family"] == fam]
        encs = [str(r["encoding"]) for r in data]
        series[fam] = {}
        for ax, (key, label, div) in zip(row_axes, panels, strict=False):
            vals = [float(r[key]) / div for r in data]  # type: ignore[arg-type]
            series[fam][key] = dict(zip(encs, vals, strict=True))
            bars = ax.bar(encs, vals, width=0.55, color="0.55", edgecolor="black", lw=0.5)
            ax.bar_label(bars, fmt="{:,.0f}" if div == 1 else "{:,.1f}", fontsize=7)
            ax.set_ylabel(label, fontsize=8)
            ax.set_title(f"{fam}: {label}", fontsize=9)
            ax.margins(y=0.18)
        ax = row_axes[3]
        solvers = sorted({s for e in encs for s in times.get((fam, e), {})})
        med: dict[str, float] = {}
        for j, solver in enumerate(solvers):
            ys = [times.get((fam, e), {}).get(solver, math.nan) for e in encs]
            st = _style(solver, j)
            ax.plot(range(len(encs)), ys, color=st["color"], ls=st["ls"], marker=st["marker"],
                    ms=6, lw=1.2, label=solver)
            med.update({f"{solver}/{e}": y for e, y in zip(encs, ys, strict=True)})
        series[fam]["median_s"] = med
        ax.set_xticks(range(len(encs)), encs)
        ax.set_xlim(-0.5, len(encs) - 0.5)
        ax.set_yscale("log")
        vals = [v for v in med.values() if not math.isnan(v)]
        if vals:  # at least one decade shown, so the log axis has labelled ticks
            lo, hi = min(vals), max(vals)
            mid = math.sqrt(lo * hi)
            span = max(hi / lo, 10.0) ** 0.5 * 1.3
            ax.set_ylim(mid / span, mid * span)
        ax.set_ylabel("median time (s, log)", fontsize=8)
        ax.set_title(f"{fam}: median time per solved instance", fontsize=9)
        ax.grid(True, which="both", axis="y", alpha=0.3)
        if solvers:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    fig.suptitle("Encodings compared: formula size and solving time", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return series


def _family_key(fam: str) -> tuple[int, str]:
    from satdoku.stagefiles.families import sort_key

    return sort_key(fam)
