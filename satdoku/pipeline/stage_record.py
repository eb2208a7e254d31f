"""Record stage: after every set's stage files are gathered, write the run's manifest
(``results/run.json``), add the run to the store (``results/runs/<run id>.parquet``) and write
``reports/instances_wide.csv``, all from one read of the stage files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from satdoku.runs.provenance import build_manifest, started
from satdoku.runs.store import META_KEY, run_table, write_run
from satdoku.runs.wide import write_wide
from satdoku.stagefiles.arrow_values import repeat_text
from satdoku.stagefiles.manifest import write_manifest_file


def record_run(files: Sequence[str | Path], config: Mapping[str, Any], results: str | Path,
               manifest_out: str | Path, wide_out: str | Path) -> dict[str, Any]:
    """Write the manifest, the stored run and the wide CSV of the gathered stage files
    ``files`` of a run of ``config``; returns the manifest."""
    import json

    table = run_table(files)  # read once; its run id and manifest are set below
    backends: dict[str, int] = {}
    if "measurement" in table.column_names:
        for value in table.column("measurement").to_pylist():
            if value:
                backends[value] = backends.get(value, 0) + 1
    manifest = build_manifest(config, start=started(results), backends=backends)
    table = table.set_column(table.column_names.index("run_id"), "run_id",
                             repeat_text(str(manifest["run_id"]), table.num_rows))
    table = table.replace_schema_metadata({META_KEY: json.dumps(manifest)})
    write_run(results, table)
    write_wide(table, wide_out)
    write_manifest_file(manifest_out, manifest)
    return manifest
