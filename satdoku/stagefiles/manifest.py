"""The run manifest stage file, ``results/run.json``: what produced a run's results.

Written by :func:`satdoku.runs.provenance.write_manifest` (workflow rule ``run_record``); read
here, by the summary, the explorer and ``satdoku runs``. Fields: ``run_id``, ``start``, ``end``
(ISO 8601, UTC), ``satdoku`` (version: ``git describe`` in a checkout), ``python``, ``packages``
(distribution -> version), ``machine`` (``cpu``, ``cores``, ``memory_mb``, ``os``,
``hostname``), ``config_sha256``, ``solvers`` (one object per configured solver: ``name``,
``solver`` (its registry base), ``options``, ``version``), ``sets``, ``measurement``
(``setting``: auto, benchexec or basic; ``host``: what it means where the manifest was
written, e.g. ``benchexec 3.35``; ``rows``: rows per backend that measured them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VERSION = 1


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The manifest at ``path``; None when there is none (results from before manifests)."""
    p = Path(path)
    if not p.is_file():
        return None
    with open(p, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{p}: not a run manifest (a JSON object)")
    return data


def write_manifest_file(path: str | Path, manifest: dict[str, Any]) -> None:
    """Write a manifest (pretty JSON, keys in a fixed order: diffs stay readable)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")


def describe(m: dict[str, Any]) -> list[str]:
    """A manifest as short text lines (reports show them under "Run")."""
    mach = m.get("machine", {})
    pk = m.get("packages", {})
    lines = [
        f"run {m.get('run_id', '?')}: {m.get('start') or '?'} -> {m.get('end', '?')}",
        f"satdoku {m.get('satdoku', '?')}, Python {m.get('python', '?')}"
        + "".join(f", {k} {v}" for k, v in pk.items()),
        f"machine: {mach.get('cpu', '?')}, {mach.get('cores', '?')} cores, "
        f"{mach.get('memory_mb', '?')} MB, {mach.get('os', '?')}",
        f"config sha256 {str(m.get('config_sha256', '?'))[:16]}",
    ]
    meas = m.get("measurement")
    if isinstance(meas, dict):
        rows = ", ".join(f"{k} {v} rows" for k, v in (meas.get("rows") or {}).items())
        lines.append(f"measurement: {meas.get('setting', '?')} ({meas.get('host', '?')})"
                     + (f"; {rows}" if rows else ""))
    lines += [f"solver {s.get('name')}: {s.get('version')}" for s in m.get("solvers", [])]
    return lines
