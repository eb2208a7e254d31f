"""The encodings table: formula sizes (the CNF sizes stage files) per family, set and encoding,
what propagation alone solves there (the propagation stage files, when the set was analysed)
and, per solver, the median solve time and the share of instances decided with zero
decisions."""

from __future__ import annotations

from collections.abc import Mapping

from satdoku.solvers.registry import model_decisions

KEYS = ["family", "set", "encoding"]


def size_table(sizes, df, propagation=None,  # type: ignore[no-untyped-def]
               variants: Mapping[str, Mapping] | None = None):
    """Per (family, set, encoding): instances, mean vars / clauses / bytes; ``up_solved`` and
    ``fl_solved``, the instances unit propagation (with failed-literal probing) solves alone
    (from ``propagation``, a frame of the sets' propagation_instances rows with a set column;
    empty where a set was not analysed), ``analysed`` the instances they were counted over (all
    of the row's, or a seeded sample of a large set); per solver the median time of solved instances
    (``median_s_<solver>``) and the share of the row's instances it solved with zero
    decisions (``zero_decisions_<solver>``: its decision counter, less the decisions the
    solver counts for finding a model, :func:`satdoku.solvers.registry.model_decisions`).

    ``sizes`` is a frame with columns set + SIZE_COLUMNS, ``df`` the long results frame.
    Returns (table, {(family, encoding): {solver: median s}}, the size means per (family,
    encoding): what the encodings plot draws)."""
    import pandas as pd

    cols = [*KEYS, "instances", "vars", "clauses", "bytes", "up_solved", "fl_solved",
            "analysed"]
    if sizes.empty:
        return pd.DataFrame(columns=cols), {}, pd.DataFrame(columns=cols)
    table = _means(sizes, KEYS)
    by_family = _means(sizes, ["family", "encoding"])
    table = table.merge(_propagation_counts(sizes, propagation), on=KEYS, how="left")
    times: dict[tuple[str, str], dict[str, float]] = {}
    solved = df[df["solved"] & df["encoding"].isin(table["encoding"].unique())]
    if len(solved):
        for (fam, enc, solver), v in solved.groupby(["family", "encoding", "solver"])[
                "seconds"].median().items():
            times.setdefault((str(fam), str(enc)), {})[str(solver)] = float(v)
        for solver, rows in solved.groupby("solver", sort=False):
            med = rows.groupby(KEYS)["seconds"].median().rename(f"median_s_{solver}")
            table = table.merge(med.reset_index(), on=KEYS, how="left")
        zero = zero_decisions(solved, KEYS, variants)
        for solver, rows in zero.groupby("solver", sort=False):
            table = table.merge(rows.drop(columns="solver"), on=KEYS, how="left")
            table[f"zero_decisions_{solver}"] = table.pop("zero") / table["instances"]
    return table, times, by_family


def _means(sizes, keys: list[str]):  # type: ignore[no-untyped-def]
    g = sizes.groupby(keys, sort=False)
    return g.agg(instances=("id", "size"), vars=("vars", "mean"), clauses=("clauses", "mean"),
                 bytes=("bytes", "mean")).reset_index()


def _propagation_counts(sizes, propagation):  # type: ignore[no-untyped-def]
    """Per (family, set, encoding) the instances UP and FL solve and how many were analysed
    (NaN: not analysed)."""
    import pandas as pd

    out = pd.DataFrame(columns=[*KEYS, "up_solved", "fl_solved", "analysed"])
    if propagation is None or propagation.empty:
        return out
    joined = sizes[["set", "id", "family", "encoding"]].merge(
        propagation[["set", "id", "encoding", "up", "fl"]].astype({"id": str}),
        on=["set", "id", "encoding"], how="inner")
    if joined.empty:
        return out
    joined = joined.assign(up_solved=joined["up"].eq("solved"),
                           fl_solved=joined["fl"].eq("solved"), fl_run=joined["fl"].ne("-"),
                           analysed=joined["up"].isin(("solved", "open", "refuted")))
    counts = joined.groupby(KEYS).agg(up_solved=("up_solved", "sum"),
                                      fl_solved=("fl_solved", "sum"),
                                      fl_run=("fl_run", "any"),
                                      analysed=("analysed", "sum")).reset_index()
    counts["fl_solved"] = counts["fl_solved"].where(counts["fl_run"])  # FL not run: empty
    return counts.drop(columns="fl_run")


def zero_decisions(df, keys: list[str], variants: Mapping[str, Mapping] | None = None
                   ):  # type: ignore[no-untyped-def]
    """Per ``keys`` and solver: how many solved instances of the long results frame ``df`` the
    solver decided with zero decisions (solvers that report decisions only; their counters
    read through :func:`_decisions_made`)."""
    import pandas as pd

    solved = df[df["solved"] & df["decisions"].notna()]
    parts = [rows.assign(zero=_decisions_made(rows, str(solver), variants).eq(0))
             .groupby([*keys, "solver"])["zero"].sum()
             for solver, rows in solved.groupby("solver", sort=False)]
    if not parts:
        return pd.DataFrame(columns=[*keys, "solver", "zero"])
    return pd.concat(parts).reset_index()


def _decisions_made(rows, solver: str, variants):  # type: ignore[no-untyped-def]
    """The decisions a solver made per row: its counter less what it counts for a model."""
    extra = model_decisions(solver, dict(variants or {}))
    return rows["decisions"] - rows["status"].eq("SAT").astype(int) * extra
