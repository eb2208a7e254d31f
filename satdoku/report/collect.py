"""Load stage files (SatSols, SatOutputTimes, Instances) into one long pandas table.

One row per (set, run, instance): set, run, solver, encoding, id, line, family, status, verified,
detail, solved, seconds (total_seconds: the whole instance as the solver saw it), solve_seconds,
decisions, conflicts. Every plot and table is computed from this frame, so they agree.
pandas is imported inside the functions (heavy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from satdoku.pipeline.times import read_tsv
from satdoku.report.families import INVALID_FAMILY, read_families

COLUMNS = ("set", "run", "solver", "encoding", "id", "line", "family", "status", "verified",
           "detail", "solved", "seconds", "solve_seconds", "decisions", "conflicts")


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
             times: Sequence[Mapping[str, str]], families: Mapping[str, str]) -> list[dict]:
    """The long rows of one run over one set (SatSols joined with its times by instance id)."""
    solver, _, encoding = run.partition("/")
    by_id = {t["id"]: t for t in times}
    rows = []
    for s in sols:
        t = by_id.get(s["id"], {})
        status = s["status"]
        rows.append({
            "set": set_name, "run": run, "solver": solver, "encoding": encoding or "-",
            "id": s["id"], "line": int(s["line"] or 0),
            "family": families.get(s["id"], INVALID_FAMILY if status == "INVALID" else "unknown"),
            "status": status, "verified": s["verified"], "detail": s.get("detail", ""),
            "solved": status in ("SAT", "UNSAT") and s["verified"] != "FAILED",
            "seconds": _num(t.get("total_seconds")), "solve_seconds": _num(t.get("solve_seconds")),
            "decisions": _num(t.get("decisions")), "conflicts": _num(t.get("conflicts")),
        })
    return rows


def frame(rows: list[dict[str, Any]]):
    """A DataFrame with the fixed COLUMNS (also when there are no rows)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=list(COLUMNS))


def load_set(set_name: str, instance_shards: Sequence[str | Path],
             sols: Mapping[str, str | Path], times: Mapping[str, str | Path]):
    """Long frame of one set; ``sols``/``times`` map run names (solver/encoding) to TSV paths.
    A run without a times file still counts (its times are NaN)."""
    families = read_families(instance_shards)
    rows: list[dict] = []
    for run, path in sols.items():
        t = read_tsv(times[run]) if run in times and Path(times[run]).exists() else []
        rows += run_rows(set_name, run, read_tsv(path), t, families)
    return frame(rows)


def results_paths(results: str | Path, set_name: str, run: str) -> tuple[Path, Path]:
    """(SatSols TSV, SatOutputTimes TSV) of one run over one set, by the stage-file layout."""
    r = Path(results)
    return r / "SatSols" / run / f"{set_name}.tsv", r / "SatOutputTimes" / run / f"{set_name}.tsv"


def load_results(results: str | Path, sets: Sequence[str], runs: Sequence[str]):
    """Long frame of every set x run under a results directory (missing run files are skipped,
    so a report over a partial configuration still renders)."""
    import pandas as pd

    frames = []
    for name in sets:
        shards = sorted((Path(results) / "Instances" / name).glob("*.jsonl"))
        sols, times = {}, {}
        for run in runs:
            s, t = results_paths(results, name, run)
            if s.exists():
                sols[run], times[run] = s, t
        frames.append(load_set(name, shards, sols, times))
    return pd.concat(frames, ignore_index=True) if frames else frame([])


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
