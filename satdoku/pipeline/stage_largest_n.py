"""The original CSP experiment: the largest n each solver completes within a time limit.

For each family (Latin square completion, Futoshiki) and each puzzle-level solver, instances of
order n = n_min, n_min+1, ... are generated from fixed seeds
(:func:`satdoku.generate.completion_instance`) and solved; a solver stops at its first
n it cannot solve within the limit (or at n_max). Every answer is verified against its puzzle
(the inequalities included). Outputs: a TSV of every run, a markdown table of the largest n
per family and solver, and a plot of solve time against n.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from satdoku.formats import Record
from satdoku.generate import completion_instance
from satdoku.puzzle import latin
from satdoku.solve import open_solver, solve
from satdoku.solvers.registry import PUZZLE, colour, level
from satdoku.solvers.result import ERROR, FAILED, SAT

RUN_COLUMNS = ("family", "solver", "n", "seed", "status", "verified", "seconds", "decisions",
               "conflicts", "givens", "relations")


def run_experiment(families: Sequence[str], solvers: Sequence[str], n_min: int, n_max: int,
                   time_limit: float, seed: int = 0, holes: float = 0.5,
                   givens: float = 0.1, relations: float = 0.3,
                   variants: dict[str, dict[str, Any]] | None = None,
                   log: Any = None) -> list[dict[str, Any]]:
    """Every run of the experiment, in order (one row per family, solver and n tried). Each
    instance goes through the one solve path (:func:`satdoku.solve.solve`): the limit covers
    building the model, and every board is verified against its puzzle."""
    rows: list[dict[str, Any]] = []
    cache: dict[tuple[str, int], Any] = {}
    for name in solvers:
        if level(name, variants) != PUZZLE:
            raise ValueError(f"solver {name!r} is not puzzle-level (cpsat, csp-...)")
    for fam in families:
        for name in solvers:
            solver = open_solver(name, variants)
            warm = Record("warm-up", 0, 0, "grid", puzzle=latin([1, 0, 0, 0], 2))
            solve(warm, solver, "direct", time_limit)  # imports, JIT: outside every timing
            for n in range(n_min, n_max + 1):
                key = (fam, n)
                if key not in cache:
                    cache[key] = completion_instance(fam, n, seed, holes, givens, relations)
                p = cache[key]
                answer = solve(Record(f"{fam}-{n}", n, n, "grid", puzzle=p), solver, "direct",
                               time_limit)
                res = answer.result
                status = ERROR if answer.verified == FAILED else res.status
                rows.append({"family": fam, "solver": name, "n": n, "seed": seed,
                             "status": status, "verified": answer.verified,
                             "seconds": f"{res.total_seconds:.4f}",
                             "decisions": res.stats.get("decisions", ""),
                             "conflicts": res.stats.get("conflicts", ""),
                             "givens": p.num_givens, "relations": len(p.less_than)})
                if log is not None:
                    print(f"{fam} {name} n={n}: {status} {res.total_seconds:.3f}s", file=log,
                          flush=True)
                if status != SAT:
                    break
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per family and solver: the largest n solved within the limit and what stopped it."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        key = (r["family"], r["solver"])
        s = out.setdefault(key, {"family": r["family"], "solver": r["solver"], "largest_n": "-",
                                 "seconds": "", "stopped_at": "", "stopped_by": "n_max"})
        if r["status"] == SAT:
            s["largest_n"], s["seconds"] = r["n"], r["seconds"]
        else:
            s["stopped_at"], s["stopped_by"] = r["n"], r["status"]
    return list(out.values())


def write_outputs(rows: Sequence[dict[str, Any]], tsv: str | Path, md: str | Path,
                  png: str | Path, time_limit: float, settings: str = "") -> None:
    """The runs TSV, the markdown table and the time-vs-n plot."""
    with open(tsv, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, RUN_COLUMNS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    summary = summarize(rows)
    lines = [f"# Largest n solved within {time_limit:g} s", ""]
    if settings:
        lines += [settings, ""]
    lines += ["| family | solver | largest n | seconds at largest n | stopped at n | by |",
              "|---|---|---:|---:|---:|---|"]
    for s in summary:
        secs = f"{float(s['seconds']):.3f}" if s["seconds"] else ""
        lines.append(f"| {s['family']} | {s['solver']} | {s['largest_n']} | {secs} | "
                     f"{s['stopped_at']} | {s['stopped_by'] if s['stopped_at'] else 'n_max'} |")
    Path(md).write_text("\n".join(lines) + "\n", encoding="utf-8")
    _plot(rows, png, time_limit)


def _plot(rows: Sequence[dict[str, Any]], png: str | Path, time_limit: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = list(dict.fromkeys(r["family"] for r in rows)) or ["(none)"]
    fig, axes = plt.subplots(1, len(families), figsize=(6 * len(families), 4.2), squeeze=False)
    for ax, fam in zip(axes[0], families, strict=True):
        solvers = list(dict.fromkeys(r["solver"] for r in rows if r["family"] == fam))
        for name in solvers:
            pts = [(r["n"], float(r["seconds"])) for r in rows
                   if r["family"] == fam and r["solver"] == name and r["status"] == SAT]
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, [max(y, 1e-4) for y in ys], marker="o", ms=3, label=name,
                        color=colour(name))
        ax.axhline(time_limit, color="grey", ls="--", lw=1, label=f"limit {time_limit:g} s")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("solve time (s)")
        ax.set_title(f"{fam}: time to solve vs n")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
