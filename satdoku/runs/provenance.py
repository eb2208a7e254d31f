"""The run manifest (``results/run.json``): versions, machine, configuration and solvers of a
run, with its start and end time, so a result can be traced to what produced it and two runs
compared knowing what differed (see :mod:`satdoku.stagefiles.manifest` for the fields)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from satdoku import __version__
from satdoku.solvers.measurement import MeasurementError, describe
from satdoku.solvers.registry import resolve, solver_version
from satdoku.stagefiles.manifest import VERSION
from satdoku.stagefiles.paths import RUN_START, stage_path

#: distributions whose versions a manifest records (those not installed are left out)
KEY_PACKAGES = ("numpy", "pandas", "python-sat", "ortools", "snakemake", "torch", "ltntorch",
                "duckdb", "pyarrow")


def now() -> str:
    """The time now, ISO 8601 in UTC to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def satdoku_version() -> str:
    """``git describe --always --dirty --tags`` when satdoku runs from a git checkout, else the
    package version."""
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists():
        try:
            out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty",
                                  "--tags"], capture_output=True, text=True, timeout=10,
                                 check=True).stdout.strip()
            if out:
                return f"{__version__} ({out})"
        except (OSError, subprocess.SubprocessError):
            pass
    return __version__


def package_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str]:
    """Installed versions of ``names`` (read from metadata: nothing is imported)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_mb() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return None


def machine() -> dict[str, Any]:
    """CPU model, cores (the machine's, not the run's ``--cores``), memory, OS, host name."""
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "memory_mb": _memory_mb(),
            "os": platform.platform(), "hostname": platform.node()}


def config_hash(config: Mapping[str, Any]) -> str:
    """sha256 of the configuration as canonical JSON (sorted keys): equal settings, equal hash,
    whatever the YAML's layout or comments."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def solvers(variants: Mapping[str, Mapping[str, Any] | None]) -> list[dict[str, Any]]:
    """Each configured solver's name, registry base, options and version (the same version
    string the workflow's rule params use, so it changes exactly when its jobs rerun)."""
    out = []
    for name in variants:
        base, options = resolve(name, variants)
        out.append({"name": name, "solver": base, "options": dict(options),
                    "version": solver_version(name, variants)})
    return out


def run_id(start: str, config_sha256: str) -> str:
    """A run's id: its start time (compact, UTC) and the configuration's hash prefix, e.g.
    ``20261125T130512Z-3fa2c1d0``: sorts by time, and two runs at one second differ by config."""
    stamp = start.replace("-", "").replace(":", "").replace("+0000", "Z")
    return f"{stamp}-{config_sha256[:8]}"


def measurement(config: Mapping[str, Any], backends: Mapping[str, int] | None = None
                ) -> dict[str, Any]:
    """The run's measurement: the configured setting, what it means on the host writing the
    manifest (``benchexec 3.35``, ``basic (auto: why)``), and how many rows each backend
    measured (``backends``: the rows' ``measurement`` values counted)."""
    setting = str(config.get("measurement", "auto"))
    try:
        host = describe(setting)
    except MeasurementError as exc:
        host = str(exc)
    return {"setting": setting, "host": host, "rows": dict(sorted((backends or {}).items()))}


def build_manifest(config: Mapping[str, Any], start: str | None = None,
                   end: str | None = None, backends: Mapping[str, int] | None = None
                   ) -> dict[str, Any]:
    """The manifest of a run of ``config`` (a checked configuration: ``solvers`` and ``sets``
    as the workflow has them). ``start`` defaults to ``end``, ``end`` to now."""
    import sys

    end = end or now()
    start = start or end
    digest = config_hash(config)
    variants = {k: dict(v or {}) for k, v in (config.get("solvers") or {}).items()}
    return {
        "satdoku_manifest": VERSION,
        "run_id": run_id(start, digest),
        "start": start,
        "end": end,
        "satdoku": satdoku_version(),
        "python": sys.version.split()[0],
        "packages": package_versions(),
        "machine": machine(),
        "config_sha256": digest,
        "solvers": solvers(variants),
        "sets": list(config.get("sets") or {}),
        "measurement": measurement(config, backends),
    }


# --- the run's start: marked when the workflow starts (Snakemake's onstart) -----------------
def mark_start(results: str | Path) -> None:
    """Record that a run starts now (the workflow's ``onstart`` calls this; a dry run does not)."""
    p = stage_path(RUN_START, results)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(now() + "\n", encoding="utf-8")


def started(results: str | Path) -> str | None:
    """The start the workflow marked, or None when no run marked one."""
    try:
        return stage_path(RUN_START, results).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
