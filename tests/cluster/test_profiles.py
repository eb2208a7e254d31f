"""The workflow profiles stay in step with the rules (runs in `make test`, needs no cluster)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SLURM = ROOT / "profiles" / "slurm" / "config.yaml"
DEFAULT = ROOT / "profiles" / "default" / "config.yaml"
#: Rules that run no command of their own (Snakemake handles them in the main process).
TARGET_RULES = {"all"}


def local_rules() -> set[str]:
    """Rules named in a ``localrules:`` directive or marked ``localrule: True``."""
    names: set[str] = set()
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]:
        text = path.read_text()
        for block in re.findall(r"^localrules:((?:[ \t]*\S.*\n?|\s*\n)+?)(?=^\S|\Z)", text, re.M):
            names |= {n for n in re.split(r"[\s,]+", block) if n}
        for name, body in re.findall(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", text, re.M):
            if re.search(r"^\s+localrule:\s*True", body, re.M):
                names.add(name)
    return names


@pytest.fixture(scope="module")
def rules() -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--list-rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = {line.strip() for line in proc.stdout.splitlines() if line.strip()}
    assert {"normalize", "solve_cnf", "solve_puzzle"} <= names
    return names


def test_slurm_profile_is_complete_and_site_neutral() -> None:
    profile = yaml.safe_load(SLURM.read_text())
    assert profile["executor"] == "slurm"
    assert profile["jobs"] >= 1
    assert {"mem_mb", "runtime"} <= set(profile["default-resources"])
    # Site settings appear only as commented examples.
    for key in ("slurm_account", "slurm_partition"):
        assert key not in profile["default-resources"]
        assert f"# {key}:" in SLURM.read_text()
    # Across a cluster the local solver_slots limit must not throttle submissions.
    assert profile["resources"]["solver_slots"] >= 1000


def test_every_rule_of_the_workflow_has_a_slurm_group(rules: set[str]) -> None:
    groups = yaml.safe_load(SLURM.read_text())["groups"]
    unknown = set(groups) - rules
    assert not unknown, f"profiles/slurm groups name rules the workflow does not have: {unknown}"
    local = local_rules()
    assert local <= rules, f"localrules name rules the workflow does not have: {local - rules}"
    assert not local & set(groups), "a local rule runs in the main process; do not group it"
    ungrouped = rules - set(groups) - local - TARGET_RULES
    assert not ungrouped, (
        f"rules {sorted(ungrouped)} have no group in profiles/slurm/config.yaml: each would be "
        "its own SLURM job (seconds of overhead); add it to a group there or make it local"
    )
    assert groups["normalize"] == groups["solve_cnf"] == groups["solve_puzzle"]


def test_default_profile_is_local_and_resumes() -> None:
    profile = yaml.safe_load(DEFAULT.read_text())
    assert "executor" not in profile
    assert profile["rerun-incomplete"] is True
    assert {"mem_mb", "runtime"} <= set(profile["default-resources"])
