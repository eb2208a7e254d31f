"""The encodings table: formula sizes (the CNF sizes stage files) per family and encoding,
joined with the median solve time of every solver."""

from __future__ import annotations


def size_table(sizes, df):
    """Per (family, encoding): instances, mean vars / clauses / bytes, and per solver the median
    time of solved instances (from the long results frame ``df``, joined by set and id).

    ``sizes`` is a frame with columns set + SIZE_COLUMNS. Returns (table, {(family, encoding):
    {solver: median s}})."""
    import pandas as pd

    cols = ["family", "encoding", "instances", "vars", "clauses", "bytes"]
    if sizes.empty:
        return pd.DataFrame(columns=cols), {}
    g = sizes.groupby(["family", "encoding"], sort=False)
    table = g.agg(instances=("id", "size"), vars=("vars", "mean"), clauses=("clauses", "mean"),
                  bytes=("bytes", "mean")).reset_index()
    times: dict[tuple[str, str], dict[str, float]] = {}
    solved = df[df["solved"] & df["encoding"].isin(table["encoding"].unique())]
    if len(solved):
        med = solved.groupby(["family", "encoding", "solver"])["seconds"].median()
        for (fam, enc, solver), v in med.items():
            times.setdefault((str(fam), str(enc)), {})[str(solver)] = float(v)
            table.loc[(table["family"] == fam) & (table["encoding"] == enc),
                      f"median_s_{solver}"] = float(v)
    return table, times
