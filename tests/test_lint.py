"""Style is part of the build: ruff, snakemake --lint and snakefmt must be clean (CI runs this)."""

from __future__ import annotations

import json
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


#: The explorer's JavaScript, formatted by prettier (`make lint` checks it where npm exists).
JS_FILES = sorted((ROOT / "satdoku" / "report" / "explorer" / "static").glob("*.js"))
#: The JS line limit: the Python one (ruff), and prettier's printWidth in package.json.
JS_WIDTH = 100


def test_explorer_js_lines_fit_the_line_limit() -> None:
    """Every line of the explorer's JS is at most JS_WIDTH characters (no npm needed), the
    width prettier is pinned to."""
    assert JS_FILES
    assert json.loads((ROOT / "package.json").read_text())["prettier"]["printWidth"] == JS_WIDTH
    long = [f"{f.name}:{i}: {len(line)} characters" for f in JS_FILES
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > JS_WIDTH]
    assert not long, long


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
