"""Comparisons a reviewer asks for: the virtual best solver and paired statistics of two runs.

- :func:`vbs_frame`: per set, the virtual best solver (``VBS``: per instance the best time over
  every run; ``VBS-reference``: over the reference solvers only, so our contribution to the
  portfolio shows) as long rows of the :mod:`satdoku.report.collect` frame, so the solver
  table, the summary and the cactus plots compute its figures like any run's.
- :func:`pairs`: every two runs on a set, over the instances both decided: wins, ties, the
  median of the per-instance ratios b/a with a seeded bootstrap 95% interval, the Wilcoxon
  signed-rank test of the paired times (``scipy.stats.wilcoxon(a, b)``, its defaults:
  two-sided; :mod:`satdoku.paired_stats`), instances solved by only one of them and the PAR-2
  difference.

pandas, numpy and scipy are imported inside the functions (heavy).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations

from satdoku.paired_stats import (
    RESAMPLES,
    SEED,
    TIME_FLOOR,
    bootstrap_median_ci,
    median,
    wilcoxon_p,
)
from satdoku.report.collect import COLUMNS, TimeLimits, frame, time_limits
from satdoku.report.solver_tables import par2
from satdoku.solvers.registry import is_reference
from satdoku.stagefiles.paths import DIRECT

VBS, VBS_REFERENCE, ANY_ENCODING = "VBS", "VBS-reference", "*"
PAIR_COLUMNS = ("set", "run_a", "run_b", "n", "wins_a", "wins_b", "ties", "median_ratio",
                "ci_low", "ci_high", "wilcoxon_p", "solved_a", "solved_b", "only_a", "only_b",
                "par2_a", "par2_b", "par2_diff")


def is_virtual(solver: str) -> bool:
    return solver in (VBS, VBS_REFERENCE)


def _best(g, solver: str):
    """The long rows of the virtual best of the runs in ``g`` (one set or several)."""
    import numpy as np

    keys = ["set", "id"]
    first = g.drop_duplicates(keys)[[*keys, "line", "family"]]
    solved = g[g["solved"]].assign(_t=g["seconds"].fillna(np.inf))
    best = solved.sort_values(["_t", "run"], kind="stable").drop_duplicates(keys)  # ties: by name
    invalid = g.assign(_i=g["status"] == "INVALID").groupby(keys, sort=False)["_i"].all()
    spread = [c for c in ("seconds_min", "seconds_max") if c in best.columns]
    m = first.merge(best[[*keys, "run", "status", "verified", "seconds", "solve_seconds",
                          *spread]], on=keys, how="left")
    for c in ("seconds_min", "seconds_max"):
        if c not in m.columns:
            m[c] = math.nan
    m["solved"] = m["status"].notna()
    all_invalid = invalid.reindex(list(zip(m["set"].tolist(), m["id"].tolist(),
                                           strict=True))).to_numpy()
    m["status"] = np.where(m["solved"], m["status"],
                           np.where(all_invalid, "INVALID", "TIMEOUT"))
    m["verified"] = m["verified"].fillna("-")
    m["detail"] = ["best: " + r if isinstance(r, str) else "" for r in m["run"].tolist()]
    m["run"], m["solver"], m["encoding"] = f"{solver}/{ANY_ENCODING}", solver, ANY_ENCODING
    m["decisions"] = m["conflicts"] = math.nan
    return m


def vbs_frame(df, variants: Mapping[str, Mapping] | None = None):
    """Long rows of ``VBS`` (every set with two runs or more) and ``VBS-reference`` (every set
    with a reference run and one of ours): per instance the best time of a run that solved it,
    TIMEOUT only when no run did (INVALID when every run found the instance invalid)."""
    import pandas as pd

    parts = []
    for _, g in df.groupby("set", sort=False):
        runs = g["run"].unique().tolist()  # in order of appearance
        refs = [r for r in runs if is_reference(r, variants)]
        if len(runs) > 1:
            parts.append(_best(g, VBS))
        if refs and len(refs) < len(runs):
            parts.append(_best(g[g["run"].isin(refs)], VBS_REFERENCE))
    if not parts:
        return frame([])
    return pd.concat(parts, ignore_index=True)[list(COLUMNS)]


def with_vbs(df, variants: Mapping[str, Mapping] | None = None):
    """``df`` with the virtual best solvers' rows after each set's runs."""
    import pandas as pd

    v = vbs_frame(df, variants)
    if not len(v):
        return df
    out = pd.concat([df, v], ignore_index=True)
    order = {s: k for k, s in enumerate(df["set"].unique())}  # in order of appearance
    out = out.sort_values("set", key=lambda c: c.map(order), kind="stable", ignore_index=True)
    out.attrs.update(df.attrs)
    return out


def _ordered(a: str, b: str, variants: Mapping[str, Mapping] | None) -> tuple[str, str]:
    """(run_a, run_b) of a pair: a reference solver is a, ours b ("ours vs reference: b/a");
    otherwise in the order given."""
    if not is_reference(a, variants) and is_reference(b, variants):
        return b, a
    return a, b


def pair_row(set_name: str, run_a: str, run_b: str, a, b, limit: float | None,
             resamples: int = RESAMPLES, seed: int = SEED) -> dict:
    """The pairs.csv row of two runs' long rows ``a`` and ``b`` on one set."""
    import numpy as np

    va, vb = (x[x["status"] != "INVALID"].set_index("id") for x in (a, b))
    sa, sb = va.index[va["solved"]], vb.index[vb["solved"]]
    both = sa.intersection(sb, sort=False)
    ta = va.loc[both, "seconds"].to_numpy(dtype=float)
    tb = vb.loc[both, "seconds"].to_numpy(dtype=float)
    keep = ~(np.isnan(ta) | np.isnan(tb))
    ta, tb = ta[keep], tb[keep]
    ma, mb = np.round(ta / TIME_FLOOR), np.round(tb / TIME_FLOOR)
    ratios = np.maximum(tb, TIME_FLOOR) / np.maximum(ta, TIME_FLOOR)
    lo, hi = bootstrap_median_ci(ratios, resamples, seed)
    pa, pb = par2(va, limit), par2(vb, limit)
    return {
        "set": set_name, "run_a": run_a, "run_b": run_b, "n": len(ta),
        "wins_a": int((ma < mb).sum()), "wins_b": int((mb < ma).sum()),
        "ties": int((ma == mb).sum()),
        "median_ratio": median(ratios),
        "ci_low": lo, "ci_high": hi, "wilcoxon_p": wilcoxon_p(ta, tb),
        "solved_a": len(sa), "solved_b": len(sb),
        "only_a": len(sa.difference(sb)), "only_b": len(sb.difference(sa)),
        "par2_a": pa, "par2_b": pb, "par2_diff": pb - pa,
    }


def pairs(df, time_limit: TimeLimits | float | None,
          variants: Mapping[str, Mapping] | None = None, resamples: int = RESAMPLES,
          seed: int = SEED):
    """reports/pairs.csv: one row per two runs on a set (virtual best solvers left out), in
    run order; a reference run is ``run_a`` against one of ours (ratios are ours / theirs)."""
    import pandas as pd

    limits = time_limits(time_limit)
    rows = []
    real = df[~df["solver"].map(is_virtual)] if len(df) else df
    for name, g in real.groupby("set", sort=False):
        by_run = {r: x for r, x in g.groupby("run", sort=False)}
        for x, y in combinations(by_run, 2):
            a, b = _ordered(x, y, variants)
            rows.append(pair_row(str(name), a, b, by_run[a], by_run[b], limits.of(str(name)),
                                 resamples, seed))
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def _two(v: float) -> str:
    """Two significant digits, trailing zeros kept (0.10, 1.0, 12)."""
    if math.isnan(v):
        return "-"
    return f"{v:.0f}" if abs(v) >= 10 else f"{v:#.2g}"


def p_text(p: float) -> str:
    if math.isnan(p):
        return "p n/a"
    return "p < 1e-9" if p < 1e-9 else f"p = {p:.2g}"


def pair_line(row: Mapping) -> str:
    """One pair in words: "cdcl/extended vs minisat22/extended: 0.11x [0.10, 0.12],
    p < 1e-9, 1465 pairs" (run b's time as a multiple of run a's, median over the instances
    both solved, its 95% interval, the Wilcoxon p)."""
    if not row["n"]:
        return f"{row['run_b']} vs {row['run_a']}: no instance solved by both"
    return (f"{row['run_b']} vs {row['run_a']}: {_two(row['median_ratio'])}x "
            f"[{_two(row['ci_low'])}, {_two(row['ci_high'])}], {p_text(row['wilcoxon_p'])}, "
            f"{row['n']} pairs")


def headline(row: Mapping, variants: Mapping[str, Mapping] | None = None) -> bool:
    """A pair the summary shows: one of ours against a reference on the same encoding (or a
    puzzle-level reference). Every pair is in pairs.csv."""
    a, b = str(row["run_a"]), str(row["run_b"])
    enc_a, enc_b = a.partition("/")[2], b.partition("/")[2]
    return (is_reference(a, variants) and not is_reference(b, variants)
            and enc_a in (enc_b, DIRECT))


def pair_lines(table, variants: Mapping[str, Mapping] | None = None,
               headlines: bool = False) -> dict[str, list[str]]:
    """{set: [pair_line of each of its rows]} of a pairs table; with ``headlines`` only the
    :func:`headline` pairs of a set that has any (a set without one keeps all its pairs)."""
    out: dict[str, list[str]] = {}
    for name, g in table.groupby("set", sort=False):
        rows = g.to_dict("records")
        if headlines:
            rows = [r for r in rows if headline(r, variants)] or rows
        out[str(name)] = [pair_line(r) for r in rows]
    return out


def write_pairs(table, path) -> None:
    table.to_csv(path, index=False, float_format="%.6g")
