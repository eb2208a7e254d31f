"""Load stage files (SatSols, SatOutputTimes, Instances) into one long pandas table.

One row per (set, run, instance): set, run, solver, encoding, id, line, family, status, verified,
detail, solved, seconds (the chosen time column; seconds_min / seconds_max: its spread over
repeated solves, :data:`TIME_COLUMNS`; total_seconds unless told:
the whole instance as the solver saw it), solve_seconds, decisions, conflicts. Every plot and
table is computed from this frame, so they agree. Each set's time limit comes from one
:class:`TimeLimits`. pandas is imported inside the functions (heavy).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from satdoku.stagefiles.families import INVALID_FAMILY
from satdoku.stagefiles.runtable import build_set, set_order, table_of_files

COLUMNS = ("set", "run", "solver", "encoding", "id", "line", "family", "status", "verified",
           "detail", "solved", "seconds", "solve_seconds", "decisions", "conflicts",
           "seconds_min", "seconds_max")

#: The SatOutputTimes columns a report can measure time by, with the word its headers show:
#: the whole instance (encoding, loading, search; for cadical195 also the fork of its process),
#: the search alone, and the CPU time of the solve (when the times files have it).
TIME_COLUMNS = {"total_seconds": "total", "solve_seconds": "search", "cpu_seconds": "CPU"}
DEFAULT_TIME = "total_seconds"


def time_word(column: str = DEFAULT_TIME) -> str:
    """The word a header shows for a time column ("total", "search", "CPU")."""
    try:
        return TIME_COLUMNS[column]
    except KeyError:
        raise ValueError(f"time column {column!r}: expected one of "
                         f"{', '.join(TIME_COLUMNS)}") from None


@dataclass(frozen=True)
class TimeLimits:
    """Each set's time limit in seconds (None: no limit): ``per_set`` where given, else
    ``default``. The one place every figure (PAR-2, limit lines, timeouts drawn at the limit,
    the explorer) reads a set's limit from."""

    default: float | None = None
    per_set: Mapping[str, float] = field(default_factory=dict)

    def of(self, set_name: str) -> float | None:
        return self.per_set.get(set_name, self.default)

    def by_limit(self, sets: Iterable[str]) -> dict[float, list[str]]:
        """{limit: its sets} of ``sets``, in the sets' order (sets without a limit left out):
        what a figure over those sets draws as limit lines."""
        out: dict[float, list[str]] = {}
        if hasattr(sets, "unique"):  # a frame's column: its distinct names, in order
            sets = sets.unique().tolist()  # type: ignore[union-attr]
        for name in dict.fromkeys(str(s) for s in sets):
            if lim := self.of(name):
                out.setdefault(lim, []).append(name)
        return out

    @classmethod
    def parse(cls, default: float | None, pairs: Sequence[str] = ()) -> TimeLimits:
        """From ``--time-limit`` and ``SET=SECONDS`` arguments (one line per bad one)."""
        per_set = {}
        for p in pairs:
            name, _, value = p.rpartition("=")
            try:
                seconds = float(value)
            except ValueError:
                seconds = -1.0
            if not name or not seconds > 0:
                raise ValueError(f"expected SET=SECONDS (seconds > 0), got {p!r}")
            per_set[name] = seconds
        return cls(default, per_set)


def time_limits(value: TimeLimits | float | None) -> TimeLimits:
    """``value`` as :class:`TimeLimits` (a number or None is the limit of every set)."""
    return value if isinstance(value, TimeLimits) else TimeLimits(
        None if value is None else float(value))


def parse_runs(pairs: Sequence[str]) -> dict[str, str]:
    """``RUN=PATH`` command-line arguments as a mapping run -> path."""
    out = {}
    for p in pairs:
        run, _, path = p.partition("=")
        if not path:
            raise ValueError(f"expected RUN=PATH, got {p!r}")
        out[run] = path
    return out


def frame_of_table(table, time_column: str = DEFAULT_TIME,  # type: ignore[no-untyped-def]
                   sets: Sequence[str] | None = None):
    """The long frame of a run table (:mod:`satdoku.stagefiles.runtable`): one row per row
    of the table, set by set in the order of ``sets`` (default: as the table has them), each
    set's rows in the table's order. ``seconds`` is ``time_column`` (NaN where the table lacks
    it: times files without cpu_seconds); ``family`` is ``invalid`` for an INVALID instance
    and ``unknown`` for one the Instances shards do not have."""
    import numpy as np
    import pandas as pd
    import pyarrow.compute as pc

    time_word(time_column)
    n = table.num_rows
    if n == 0:
        return frame([])
    names = set(table.column_names)

    def text(name: str):  # type: ignore[no-untyped-def]
        return table.column(name).fill_null("").to_numpy(zero_copy_only=False).astype(object)

    def number(name: str):  # type: ignore[no-untyped-def]
        if name not in names:
            return np.full(n, np.nan)
        return table.column(name).cast("double").to_numpy(zero_copy_only=False)

    status, verified, family = text("status"), text("verified"), text("family")
    encoding = text("encoding")
    solver = text("solver")
    unknown = family == ""
    family[unknown] = np.where(status[unknown] == "INVALID", INVALID_FAMILY, "unknown")
    data = {
        "set": text("set"),
        "run": pc.binary_join_element_wise(table.column("solver"), table.column("encoding"),
                                           "/").to_numpy(zero_copy_only=False).astype(object),
        "solver": solver, "encoding": np.where(encoding == "", "-", encoding),
        "id": table.column("id").cast("string").to_numpy(zero_copy_only=False).astype(object),
        "line": table.column("line").fill_null(0).to_numpy(zero_copy_only=False),
        "family": family, "status": status, "verified": verified, "detail": text("detail"),
        "solved": np.isin(status, ["SAT", "UNSAT"]) & (verified != "FAILED"),
        "seconds": number(time_column), "solve_seconds": number("solve_seconds"),
        # the spread of a repeated solve (``repeats: k``): NaN for a single run
        "seconds_min": number(f"{time_column}_min"),
        "seconds_max": number(f"{time_column}_max"),
        "decisions": number("decisions"), "conflicts": number("conflicts"),
    }
    df = pd.DataFrame(data, columns=list(COLUMNS))
    if sets is not None:
        order = {name: k for k, name in enumerate(sets)}
        rank = df["set"].map(order).fillna(len(order))
        if not rank.is_monotonic_increasing:
            df = df.iloc[np.argsort(rank.to_numpy(), kind="stable")].reset_index(drop=True)
    return df


def frame(rows: list[dict[str, Any]]):
    """A DataFrame with the fixed COLUMNS (also when there are no rows)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=list(COLUMNS))


def load_set(set_name: str, instance_shards: Sequence[str | Path],
             sols: Mapping[str, str | Path], times: Mapping[str, str | Path],
             time_column: str = DEFAULT_TIME):
    """Long frame of one set; ``sols``/``times`` map run names (solver/encoding) to TSV paths.
    A run without a times file still counts (its times are NaN)."""
    table = build_set(set_name, instance_shards,
                      {run: (path, times.get(run)) for run, path in sols.items()})
    return frame_of_table(table, time_column)


def load_files(paths: Sequence[str | Path], time_column: str = DEFAULT_TIME):
    """Long frame of every set x run whose gathered stage files are given (the cross-set report
    rules pass their real input files; by hand, shell globs of the results directory do),
    from their run table (the stored run when it is current:
    :func:`satdoku.stagefiles.runtable.table_of_files`). ``frame.attrs["sets"]`` lists every
    set given, also one without instances (an empty or comment-only input has no rows but must
    still be reported)."""
    names = set_order(paths)
    df = frame_of_table(table_of_files(paths), time_column, names)
    df.attrs["sets"] = names
    df.attrs["time_column"] = time_column
    return df


def sols_by_run(df) -> dict[str, dict[str, list[dict[str, str]]]]:
    """{set: {run: SatSols-like rows}} rebuilt from a long frame (for the agreement checks)."""
    out: dict[str, dict[str, list[dict[str, str]]]] = {}
    for (name, run), g in df.groupby(["set", "run"], sort=False):
        out.setdefault(str(name), {})[str(run)] = [
            {"id": str(r.id), "line": str(r.line), "status": str(r.status),
             "verified": str(r.verified), "detail": str(r.detail)}
            for r in g.itertuples()
        ]
    return out
