"""Propagation stage: a set's Instances shards -> its propagation analysis (the files of
``satdoku analyze``, in ``results/Reports/propagation/<set>/``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from satdoku.analysis.set_analysis import analyze
from satdoku.cnf.encodings import ENCODINGS
from satdoku.report.propagation_report import write_outputs
from satdoku.stagefiles.instances import InstanceShards


def propagation_set(set_name: str, instance_shards: Sequence[str], out_dir: str | Path,
                    encodings: Sequence[str], probe: bool = True, singles: bool = True,
                    sample: int | None = None) -> int:
    """Analyse a set's instances under ``encodings`` (the simplified ones are left out: they
    propagate as extended does; a CNF set's label ``dimacs`` too: its formulas are analysed as
    they are) and write its propagation files; returns the number of summary rows. ``sample``:
    a set of more valid instances than that is analysed on a seeded sample of that many."""
    records = InstanceShards(instance_shards)
    chosen = [e for e in encodings if e in ENCODINGS and not ENCODINGS[e].simplified]
    result = analyze(records, set_name, chosen, probe=probe, singles=singles,
                     sample=sample)
    write_outputs(result.instances, result.summary, out_dir, set_name)
    return len(result.summary)
