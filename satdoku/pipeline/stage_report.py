"""Report and check stages of one set: text report + time plot, then the cross-solver check."""

from __future__ import annotations

import sys
from pathlib import Path

from satdoku.report.agreement import WRONG_KINDS, Problems, find_problems
from satdoku.report.collect import frame_of_table, parse_runs
from satdoku.report.plots import time_per_instance
from satdoku.report.report_stages import write_set_table
from satdoku.report.text import build_report
from satdoku.runs.provenance import machine, package_versions, satdoku_version
from satdoku.stagefiles.instances import InstanceShards
from satdoku.stagefiles.runtable import build_set, instance_columns, run_rows
from satdoku.stagefiles.tsv import read_tsv


def report_set(set_name: str, instance_shards: list[str], sols: list[str], times: list[str],
               out_txt: str, out_png: str, time_limit: float | None = None,
               unique: str | None = None, skipped: list[str] | None = None,
               table_md: str | None = None, table_csv: str | None = None,
               table_html: str | None = None, time_column: str = "total_seconds") -> int:
    """Write the text report and time plot (and, given ``table_md`` and ``table_csv``, the
    set's solver table, its times from ``time_column``: the stage files are read once for all
    of them); returns the number of problems found."""
    sol_paths, time_paths = parse_runs(sols), parse_runs(times)
    # the instance columns and flags by pyarrow's JSON reader (one C pass, ~8x cheaper than
    # taking them from the parsed objects); the text report parses only the objects it shows
    info = instance_columns(instance_shards)
    records = InstanceShards(instance_shards, parse=False)
    table = build_set(set_name, instance_shards,
                      {run: (path, time_paths.get(run)) for run, path in sol_paths.items()},
                      info=info)
    sol_rows: dict[str, list[dict[str, str]]] = {}
    time_rows: dict[str, list[dict[str, str]]] = {}
    for run in sol_paths:
        sol_rows[run], time_rows[run] = run_rows(table, run)
    for run, path in time_paths.items():  # times of a run without answers: plotted only
        if run not in sol_rows:
            time_rows[run] = read_tsv(path)
    unique_rows = read_tsv(unique) if unique else None
    notes = ([f"not run on this set: {', '.join(skipped)} (puzzle-level solvers; a CNF set "
              "has no puzzles)"] if skipped else [])
    problems = find_problems(set_name, sol_rows)
    text = build_report(set_name, records, sol_rows, time_rows, unique_rows, notes,
                        flags=instance_flags(info, records), problems=problems)
    Path(out_txt).write_text(text + environment_text(), encoding="utf-8")
    time_per_instance(set_name, time_rows, out_png, time_limit)
    if table_md or table_csv or table_html:
        if not (table_md and table_csv):
            raise ValueError("the solver table needs its Markdown and CSV paths")
        write_set_table(set_name, frame_of_table(table, time_column), time_limit, table_md,
                        table_csv, table_html, time_column)
    return len(problems)


def instance_flags(info, records: InstanceShards) -> list[tuple[str, bool, bool]]:  # type: ignore[no-untyped-def]
    """(id, valid, has a puzzle) of every instance, from the instance columns (no object
    parsed); from the objects themselves when the two do not line up."""
    if info.num_rows != len(records):
        return records.flags()
    return list(zip(info.column("id").to_pylist(), info.column("valid").to_pylist(),
                    info.column("puzzle").to_pylist(), strict=True))


def environment_text() -> str:
    """The set report's last section: what wrote it (satdoku, Python, key packages, machine).
    The run's manifest (results/run.json, with solver versions and start/end) is cross-set, so
    a set report, which reruns only when its set changes, does not depend on it."""
    m = machine()
    packages = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    return ("\nRun environment (this report's job; the whole run: results/run.json)\n"
            f"  satdoku {satdoku_version()}, Python {sys.version.split()[0]}, {packages}\n"
            f"  machine: {m['cpu']}, {m['cores']} cores, {m['memory_mb']} MB, {m['os']}\n")


def check_set(set_name: str, sols: list[str], out: str) -> tuple[list[str], list[str]]:
    """Write the check file (``OK`` or one problem per line); returns every problem and the
    wrong evidence among them (failed verifications, disagreements: the check fails on
    those)."""
    sol_rows = {run: read_tsv(p) for run, p in parse_runs(sols).items()}
    found = Problems(set_name).add(sol_rows)
    problems = found.texts()
    n = sum(len(v) for v in sol_rows.values())
    Path(out).write_text(
        "\n".join(problems) + "\n" if problems else f"OK {set_name}: {n} answers checked\n",
        encoding="utf-8",
    )
    return problems, found.texts(WRONG_KINDS)
