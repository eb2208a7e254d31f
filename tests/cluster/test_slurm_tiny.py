"""A real SLURM run of the tiny config gives the same SatSols, byte for byte, as a local run.

Run by `make test-cluster` (which sets SATDOKU_TEST_CLUSTER=1); skipped otherwise. Needs root:
scripts/slurm/up.sh installs the Debian SLURM packages if missing and starts munged, MariaDB,
slurmdbd, slurmctld and slurmd for one node on 127.0.0.1; the fixture stops them again with
scripts/slurm/down.sh (by PID) unless the cluster was already up before the test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "tiny"
SCRIPTS = ROOT / "scripts" / "slurm"

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(
        os.environ.get("SATDOKU_TEST_CLUSTER") != "1",
        reason="real SLURM test: run `make test-cluster` (sets SATDOKU_TEST_CLUSTER=1)",
    ),
]


def _report(message: str) -> None:
    """Timings and facts worth seeing in the make test-cluster output."""
    print(f"[cluster test] {message}", file=sys.stderr, flush=True)


def _script(name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPTS / name), *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def slurm_cluster() -> Iterator[None]:
    if os.geteuid() != 0:
        pytest.fail("make test-cluster must run as root (it installs and starts SLURM)")
    was_up = _script("up.sh", "--check", timeout=60).returncode == 0
    start = time.monotonic()
    up = _script("up.sh", timeout=900)
    if up.returncode != 0:
        pytest.fail(f"scripts/slurm/up.sh failed:\n{up.stdout}\n{up.stderr[-5000:]}")
    _report(f"bring-up {time.monotonic() - start:.1f} s ({'already up' if was_up else 'started'})")
    try:
        yield
    finally:
        if not was_up:
            start = time.monotonic()
            down = _script("down.sh", timeout=120)
            _report(f"teardown {time.monotonic() - start:.1f} s (exit {down.returncode})")
            assert down.returncode == 0, down.stderr


def _tiny_copy(directory: Path) -> Path:
    (directory / "data").mkdir(parents=True)
    for f in TINY.glob("*.txt"):
        shutil.copy(f, directory / "data" / f.name)
    shutil.copy(TINY / "config.yaml", directory / "config.yaml")
    return directory


def _snakemake(directory: Path, *args: str, limit: int) -> str:
    # timeout -k: after SIGTERM the SLURM executor waits for running jobs and may never exit.
    cmd = [
        "timeout", "-k", "20", str(limit),
        sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"),
        "--directory", str(directory), *args,
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (directory / "snakemake-run.log").write_text(log)
    if proc.returncode != 0:
        logs = directory / ".snakemake" / "slurm_logs"
        listing = "\n".join(str(p) for p in logs.rglob("*.log")) if logs.exists() else ""
        why = "timed out" if proc.returncode in (124, 137) else "failed"
        pytest.fail(
            f"snakemake {why} (exit {proc.returncode}):\n{log[-6000:]}\n"
            f"SLURM job logs kept:\n{listing}"
        )
    return log


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _sacct_jobs(workdir: Path) -> list[tuple[str, str]]:
    """(job id, state) of every SLURM job that ran in ``workdir``."""
    out = subprocess.run(
        ["sacct", "-X", "-P", "-n", "-a", "-S", "now-1days", "-o", "JobIDRaw,State,WorkDir%4096"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    rows = [line.split("|") for line in out.splitlines() if line.strip()]
    return [(job, state) for job, state, wd in rows if Path(wd) == workdir]


def test_tiny_config_on_slurm_gives_the_local_satsols(slurm_cluster: None, tmp_path: Path) -> None:
    local = _tiny_copy(tmp_path / "local")
    start = time.monotonic()
    _snakemake(local, "--cores", "2", limit=300)
    _report(f"local run {time.monotonic() - start:.1f} s")

    cluster = _tiny_copy(tmp_path / "slurm")
    start = time.monotonic()
    log = _snakemake(
        cluster,
        "--workflow-profile", str(ROOT / "profiles" / "slurm"),
        "--slurm-init-seconds-before-status-checks", "2",
        limit=480,
    )  # fmt: skip
    submitted = set(re.findall(r"submitted with SLURM jobid (\d+)", log))
    _report(f"SLURM run {time.monotonic() - start:.1f} s, {len(submitted)} SLURM jobs")

    # The jobs really went through SLURM, and every one of them completed.
    jobs = _sacct_jobs(cluster)
    assert submitted and {job for job, _ in jobs} == submitted
    assert all(state == "COMPLETED" for _, state in jobs), jobs

    expected = _tree(local / "results" / "SatSols")
    got = _tree(cluster / "results" / "SatSols")
    assert any(name.endswith(".txt") for name in expected)
    assert sorted(got) == sorted(expected)
    different = [name for name in expected if got[name] != expected[name]]
    assert not different, f"SatSols differ between the local and the SLURM run: {different}"
