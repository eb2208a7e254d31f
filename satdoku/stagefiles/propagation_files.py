"""The propagation stage files (``satdoku analyze``, the workflow's ``propagation`` rule).

A directory per analysed set holds:

- ``propagation.csv``: one row per (layout, encoding): ``set layout encoding instances variables
  clauses up_solved up_share up_refuted fl_solved fl_share fl_refuted singles_solved
  singles_share up_cpu_seconds fl_cpu_seconds singles_cpu_seconds sample_of``. ``variables``
  and ``clauses`` count the
  encoding's rules (without the givens' units; for a CNF set, encoding ``dimacs``, the mean
  formula); a share is solved / instances; the fl and singles columns are empty when that
  inference was not run; the seconds are the CPU time of each inference over the whole row
  (the process's, numpy's threads included: on a shared machine a steadier figure than the
  wall clock; FL's counts only the puzzles UP left open); ``sample_of`` is empty unless the set
  was analysed on a seeded sample (the workflow's ``propagation_sample``): then ``instances``
  counts the sampled instances of the row's layout and ``sample_of`` all of them in the set;
- ``propagation_instances.tsv``: one row per instance and encoding: ``id line layout encoding
  up up_open fl fl_open fl_failed singles singles_open detail``. A status is ``solved`` (every
  cell has a value), ``open`` (``*_open`` cells have none), ``refuted`` (a conflict: the givens
  have no solution), ``-`` (not run, not in the sample, or the encoding does not apply:
  ``detail`` says why) or
  ``INVALID`` (the input record; ``detail`` is its reason). ``fl_failed`` counts the failed
  literals probing found; the singles columns repeat for each encoding of an instance;
- ``propagation.md`` and ``propagation.png``: the table and bar chart (not parsed).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from pathlib import Path

from satdoku.stagefiles.paths import (
    PROPAGATION_CHART,
    PROPAGATION_INSTANCES,
    PROPAGATION_SUMMARY,
    PROPAGATION_TABLE,
)
from satdoku.stagefiles.tsv import read_tsv, write_tsv

SUMMARY_FILE, INSTANCES_FILE, TABLE_FILE, CHART_FILE = (
    Path(t).name for t in (PROPAGATION_SUMMARY, PROPAGATION_INSTANCES, PROPAGATION_TABLE,
                           PROPAGATION_CHART))
SUMMARY_COLUMNS = ("set", "layout", "encoding", "instances", "variables", "clauses",
                   "up_solved", "up_share", "up_refuted", "fl_solved", "fl_share", "fl_refuted",
                   "singles_solved", "singles_share", "up_cpu_seconds", "fl_cpu_seconds",
                   "singles_cpu_seconds", "sample_of")
INSTANCE_COLUMNS = ("id", "line", "layout", "encoding", "up", "up_open", "fl", "fl_open",
                    "fl_failed", "singles", "singles_open", "detail")
#: status words of the instance file besides the inference outcomes
NOT_RUN = "-"
#: how the ``detail`` of an instance left out of a sampled analysis begins
NOT_SAMPLED = "not in the sample"


def sampled_out(row: Mapping[str, object]) -> bool:
    """Whether an instance row is one the (sampled) analysis left out."""
    return str(row.get("detail", "")).startswith(NOT_SAMPLED)


def write_summary(rows: Iterable[Mapping[str, object]], path: str | Path) -> int:
    """Write ``propagation.csv``; returns the number of rows."""
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, SUMMARY_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
            n += 1
    return n


def read_summary(path: str | Path) -> list[dict[str, str]]:
    """The rows of ``propagation.csv`` (column -> text)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def write_instances(rows: Iterable[Mapping[str, object]], path: str | Path) -> int:
    """Write ``propagation_instances.tsv``; returns the number of rows."""
    return write_tsv(rows, path, INSTANCE_COLUMNS)


def read_instances(path: str | Path) -> list[dict[str, str]]:
    """The rows of ``propagation_instances.tsv``."""
    return read_tsv(path)
