"""Style is part of the build: ruff, snakemake --lint and snakefmt must be clean (CI runs this)."""

from __future__ import annotations

import re
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


RULE_FILES = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]


def test_rules_have_no_lambdas() -> None:
    """Named input functions live in workflow/rules/common.smk and the *_helpers.smk it includes
    (Snakemake's best practice)."""
    found = [f"{f.name}:{n}" for f in RULE_FILES
             for n, line in enumerate(f.read_text().splitlines(), 1)
             if re.search(r"\blambda\b", line.split("#")[0])]
    assert found == []


def test_every_shell_placeholder_is_quoted() -> None:
    """No path, name or option value reaches a shell unquoted: every {input}, {params.x}, ...
    of a rule carries :q (tests/test_workflow_quoting.py runs the hostile cases)."""
    placeholder = re.compile(r"\{(?:input|output|params|log|wildcards|threads|resources|"
                             r"benchmark)(?:\.\w+)?(?:\[\d+\])?(?::([^}]*))?\}")
    strings = [(f.name, text) for f in RULE_FILES
               for text in re.findall(r'"([^"\n]*)"', f.read_text())]
    found = [f"{name}: {m.group(0)}" for name, text in strings
             for m in placeholder.finditer(text) if m.group(1) != "q"]
    assert len(strings) > 100  # the rules' shell commands were read
    assert found == []
