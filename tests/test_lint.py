"""Style is part of the build: ruff, snakemake --lint and snakefmt must be clean (CI runs this)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT

BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_is_clean() -> None:
    proc = _run(str(BIN / "ruff"), "check", "satdoku", "tests", "benchmarks", "scripts")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rules_are_snakefmt_formatted() -> None:
    proc = _run(str(BIN / "snakefmt"), "--check", "Snakefile", "workflow/rules")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakemake_lint_is_clean() -> None:
    proc = _run(sys.executable, "-m", "snakemake", "--lint")
    assert proc.returncode == 0 and "good condition" in proc.stdout + proc.stderr, (
        proc.stdout[-3000:] + proc.stderr[-3000:])
