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
from satdoku.stagefiles.instances import read_families
from satdoku.stagefiles.tables import read_tsv

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


def _num(value: str | None) -> float:
    try:
        return float(value) if value not in (None, "") else float("nan")
    except ValueError:
        return float("nan")


def run_rows(set_name: str, run: str, sols: Sequence[Mapping[str, str]],
             times: Sequence[Mapping[str, str]], families: Mapping[str, str],
             time_column: str = DEFAULT_TIME) -> list[dict]:
    """The long rows of one run over one set (SatSols joined with its times by instance id)."""
    cols = run_columns(set_name, run, sols, times, families, time_column)
    return [dict(zip(COLUMNS, values, strict=True))
            for values in zip(*(cols[c] for c in COLUMNS), strict=True)]


def run_columns(set_name: str, run: str, sols: Sequence[Mapping[str, str]],
                times: Sequence[Mapping[str, str]], families: Mapping[str, str],
                time_column: str = DEFAULT_TIME) -> dict[str, list[Any]]:
    """:func:`run_rows` as columns (one list per column of COLUMNS): a frame is built from
    columns many times faster than from one dict per row. ``seconds`` is ``time_column``
    (NaN where the times file lacks it: an older file without cpu_seconds)."""
    time_word(time_column)
    solver, _, encoding = run.partition("/")
    by_id = {t["id"]: t for t in times}
    n = len(sols)
    ids = [s["id"] for s in sols]
    status = [s["status"] for s in sols]
    verified = [s["verified"] for s in sols]
    joined = [by_id.get(i, _NO_TIMES) for i in ids]

    def numbers(key: str) -> list[float]:
        return [_num(t.get(key)) for t in joined]

    return {
        "set": [set_name] * n, "run": [run] * n, "solver": [solver] * n,
        "encoding": [encoding or "-"] * n, "id": ids,
        "line": [int(s["line"] or 0) for s in sols],
        "family": [families.get(i, INVALID_FAMILY if st == "INVALID" else "unknown")
                   for i, st in zip(ids, status, strict=True)],
        "status": status, "verified": verified,
        "detail": [s.get("detail", "") for s in sols],
        "solved": [st in ("SAT", "UNSAT") and v != "FAILED"
                   for st, v in zip(status, verified, strict=True)],
        "seconds": numbers(time_column), "solve_seconds": numbers("solve_seconds"),
        # the spread of a repeated solve (``repeats: k``): NaN for a single run
        "seconds_min": numbers(f"{time_column}_min"),
        "seconds_max": numbers(f"{time_column}_max"),
        "decisions": numbers("decisions"), "conflicts": numbers("conflicts"),
    }


_NO_TIMES: dict[str, str] = {}


def frame(rows: list[dict[str, Any]]):
    """A DataFrame with the fixed COLUMNS (also when there are no rows)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=list(COLUMNS))


def _frame_of_columns(parts: list[dict[str, list[Any]]]):
    """The frame of several runs' columns, as :func:`frame` of their rows would build it."""
    if not parts:
        return frame([])
    import pandas as pd

    data = {c: [v for part in parts for v in part[c]] for c in COLUMNS}
    if not data["id"]:
        return frame([])
    return pd.DataFrame(data, columns=list(COLUMNS))


def load_set(set_name: str, instance_shards: Sequence[str | Path],
             sols: Mapping[str, str | Path], times: Mapping[str, str | Path],
             time_column: str = DEFAULT_TIME):
    """Long frame of one set; ``sols``/``times`` map run names (solver/encoding) to TSV paths.
    A run without a times file still counts (its times are NaN)."""
    families = read_families(instance_shards)
    sol_rows = {run: read_tsv(path) for run, path in sols.items()}
    time_rows = {run: read_tsv(times[run]) for run in sols
                 if run in times and Path(times[run]).exists()}
    return set_frame(set_name, sol_rows, time_rows, families, time_column)


def set_frame(set_name: str, sols: Mapping[str, Sequence[Mapping[str, str]]],
              times: Mapping[str, Sequence[Mapping[str, str]]], families: Mapping[str, str],
              time_column: str = DEFAULT_TIME):
    """Long frame of one set from rows already read (``sols``/``times``: run -> rows;
    ``families``: id -> family), as :func:`load_set` makes it from the files."""
    return _frame_of_columns([run_columns(set_name, run, rows, times.get(run, []), families,
                                          time_column)
                              for run, rows in sols.items()])


def classify_files(paths: Sequence[str | Path]) -> tuple[dict[str, list[Path]],
                                                       dict[tuple[str, str], Path],
                                                       dict[tuple[str, str], Path]]:
    """Sort stage files by the stage-file layout: ({set: Instances shards},
    {(set, run): SatSols TSV}, {(set, run): SatOutputTimes TSV}). Other paths are refused."""
    from satdoku.stagefiles.paths import INSTANCES, SOLS, TIMES, match

    shards: dict[str, list[Path]] = {}
    sols: dict[tuple[str, str], Path] = {}
    times: dict[tuple[str, str], Path] = {}
    for p in map(Path, paths):
        if (m := match(INSTANCES, p)) is not None:
            shards.setdefault(m["set"], []).append(p)
        elif (m := match(SOLS, p)) is not None:
            sols[(m["set"], f"{m['solver']}/{m['encoding']}")] = p
        elif (m := match(TIMES, p)) is not None:
            times[(m["set"], f"{m['solver']}/{m['encoding']}")] = p
        elif p.suffix not in (".txt",):  # SatSols text files may come along: not needed here
            raise ValueError(f"{p}: not an Instances shard, SatSols or SatOutputTimes file")
    return {k: sorted(v) for k, v in shards.items()}, sols, times


def load_files(paths: Sequence[str | Path], time_column: str = DEFAULT_TIME):
    """Long frame of every set x run whose gathered stage files are given (the cross-set report
    rules pass their real input files; by hand, shell globs of the results directory do).
    ``frame.attrs["sets"]`` lists every set given, also one without instances (an empty or
    comment-only input has no rows but must still be reported)."""
    import pandas as pd

    shards, sols, times = classify_files(paths)
    frames = []
    names = list(dict.fromkeys([*shards, *(s for s, _ in sols)]))  # sets in the order given
    for name in names:
        runs = {run: p for (s, run), p in sols.items() if s == name}
        run_times = {run: p for (s, run), p in times.items() if s == name}
        frames.append(load_set(name, shards.get(name, []), runs, run_times, time_column))
    frames = [f for f in frames if len(f)]
    df = pd.concat(frames, ignore_index=True) if frames else frame([])
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
