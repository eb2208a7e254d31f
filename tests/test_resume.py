"""Resume: a run killed with SIGKILL while solvers run, restarted with --rerun-incomplete, ends
with SatSols byte-identical to an uninterrupted run.

The restart is Snakemake's two-step procedure: ``snakemake --unlock`` (a killed Snakemake cannot
remove its lock), then the same command with ``--rerun-incomplete`` (profiles/default sets that
flag, so with the default profile a plain rerun after the unlock resumes).

The set is the first 72 of norvig_top95 (real hard 9x9 puzzles) in three shards of 24, solved
by our pure-Python DPLL (about 2 s per shard, so a solve job is caught mid-way) and MiniSat.
Only the SatSols targets are built, which keeps the runs short.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SET_FILE = ROOT / "data" / "sudoku" / "norvig_top95.txt"
SOLVERS = ("dpll", "minisat22")
SHARD_SIZE = 24
CONFIG = "\n".join(
    [
        "sets:",
        "  top95: data/norvig_top95.txt",
        "encodings: [extended]",
        "solvers:",
        *(f"  {s}: {{}}" for s in SOLVERS),
        "time_limit: 60",
        f"shard_size: {SHARD_SIZE}",
        "strict: false",
        "",
    ]
)
TARGETS = [f"results/SatSols/{s}/extended/top95.txt" for s in SOLVERS]
LINES = 72  # the first 72 puzzles: three shards


def _shard_len(out: Path) -> int:
    """Instances in a shard file named <shard>.out (the last shard may be short)."""
    return min(SHARD_SIZE, LINES - int(out.stem) * SHARD_SIZE)


pytestmark = pytest.mark.slow


def _workdir(base: Path) -> Path:
    (base / "data").mkdir(parents=True)
    head = SET_FILE.read_text().splitlines(keepends=True)[:LINES]
    (base / "data" / SET_FILE.name).write_text("".join(head))
    (base / "config.yaml").write_text(CONFIG)
    return base


def _command(workdir: Path, *extra: str) -> list[str]:
    # --workflow-profile none: the test states every option itself (profiles/default would
    # otherwise add rerun-incomplete and hide what the restart needs).
    return [
        sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"),
        "--directory", str(workdir), "--configfile", str(workdir / "config.yaml"),
        "--workflow-profile", "none", "--cores", "2", *extra, *TARGETS,
    ]  # fmt: skip


def _run(workdir: Path, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["timeout", "-k", "10", "300", *_command(workdir, *extra)],
        capture_output=True,
        text=True,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _partial_solver_output(workdir: Path) -> Path | None:
    """A SatOutput shard a solver has started writing (not every instance in it yet)."""
    for out in (workdir / "results" / "SatOutput").rglob("*.out"):
        try:
            text = out.read_text()
        except FileNotFoundError:
            continue
        if 0 < text.count("c instance ") < _shard_len(out):
            return out
    return None


def _kill_while_solving(workdir: Path) -> tuple[Path, str]:
    """Start a run and SIGKILL its whole process group as soon as a solver is mid-shard."""
    log = workdir / "killed-run.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            _command(workdir), stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
    victim = None
    deadline = time.monotonic() + 240
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            victim = _partial_solver_output(workdir)
            if victim is not None:
                break
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    if victim is None:
        pytest.fail(f"no solve job was caught mid-way:\n{log.read_text()[-3000:]}")
    return victim, victim.read_text()


def test_sigkill_then_rerun_incomplete_gives_identical_satsols(tmp_path: Path) -> None:
    reference = _workdir(tmp_path / "reference")
    _run(reference)
    expected = _tree(reference / "results" / "SatSols")
    assert any(name.endswith("top95.txt") for name in expected)

    resumed = _workdir(tmp_path / "resumed")
    victim, partial = _kill_while_solving(resumed)
    # Killed mid-shard: the solver's output stops part-way and nothing was gathered yet.
    assert 0 < partial.count("c instance ") < _shard_len(victim)
    assert not any((resumed / t).exists() for t in TARGETS)
    time.sleep(0.5)  # the group is dead: nothing writes any more
    assert victim.read_text() == partial

    # Snakemake knows the shard is incomplete: without the flag it refuses to go on ...
    refused = _run(resumed, check=False)
    assert refused.returncode != 0
    assert "IncompleteFilesException" in refused.stdout + refused.stderr
    assert str(victim.relative_to(resumed)) in refused.stdout + refused.stderr
    # ... and a killed Snakemake cannot remove its lock: --unlock is the documented first step.
    locked = _run(resumed, "--rerun-incomplete", check=False)
    assert locked.returncode != 0 and "LockException" in locked.stdout + locked.stderr
    _run(resumed, "--unlock")

    _run(resumed, "--rerun-incomplete")
    assert victim.read_text().count("c instance ") == _shard_len(victim)
    assert _tree(resumed / "results" / "SatSols") == expected
