"""Report and check stages of one set: text report + time plot, then the cross-solver check."""

from __future__ import annotations

from pathlib import Path

from satdoku.report.agreement import find_problems
from satdoku.report.collect import parse_runs
from satdoku.stagefiles.instances import read_instances
from satdoku.stagefiles.tables import read_tsv


def report_set(set_name: str, instance_shards: list[str], sols: list[str], times: list[str],
               out_txt: str, out_png: str, time_limit: float | None = None,
               unique: str | None = None, skipped: list[str] | None = None) -> int:
    """Write the text report and time plot; returns the number of problems found."""
    from satdoku.report.plots import time_per_instance
    from satdoku.report.text import build_report

    records = [r for s in instance_shards for r in read_instances(s)]
    sol_rows = {run: read_tsv(p) for run, p in parse_runs(sols).items()}
    time_rows = {run: read_tsv(p) for run, p in parse_runs(times).items()}
    unique_rows = read_tsv(unique) if unique else None
    notes = ([f"not run on this set: {', '.join(skipped)} (puzzle-level solvers; a CNF set "
              "has no puzzles)"] if skipped else [])
    Path(out_txt).write_text(build_report(set_name, records, sol_rows, time_rows, unique_rows,
                                          notes), encoding="utf-8")
    time_per_instance(set_name, time_rows, out_png, time_limit)
    return len(find_problems(set_name, sol_rows))


def check_set(set_name: str, sols: list[str], out: str) -> list[str]:
    """Write the check file (``OK`` or one problem per line); returns the problems."""
    sol_rows = {run: read_tsv(p) for run, p in parse_runs(sols).items()}
    problems = find_problems(set_name, sol_rows)
    n = sum(len(v) for v in sol_rows.values())
    Path(out).write_text(
        "\n".join(problems) + "\n" if problems else f"OK {set_name}: {n} answers checked\n",
        encoding="utf-8",
    )
    return problems
