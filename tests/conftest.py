"""Shared fixtures: the in-repository copies of public benchmark data (data/public/, sources in
data/SOURCES.md) and helpers to run the workflow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis: `make test` and CI are deterministic ("ci": each test's examples derived from its
# name, no example database, so no .hypothesis/ directory either); HYPOTHESIS_PROFILE=explore
# draws new examples on every run (with --hypothesis-seed N: those of seed N), still without
# a database. Settings a test gives itself (max_examples, deadline) apply under both.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
PUBLIC = ROOT / "data" / "public"
TINY = ROOT / "tests" / "data" / "tiny"


@pytest.fixture(scope="session")
def public_data() -> Path:
    """Small real subsets of public benchmark sets, kept in the repository (never skipped)."""
    assert PUBLIC.is_dir(), f"{PUBLIC} is missing: the repository is incomplete"
    return PUBLIC


def satlib_files(public: Path) -> list[tuple[Path, str]]:
    """The 63 SATLIB files kept in the repository with their answers (uuf*: UNSAT)."""
    files = sorted((public / "satlib").glob("*/*.cnf"))
    assert len(files) == 63
    return [(p, "UNSAT" if p.name.startswith("uuf") else "SAT") for p in files]


def run_snakemake(workdir: Path, *args: str, config: Path | None = None) -> str:
    """The real Snakefile in ``workdir`` (config: ``workdir/config.yaml`` unless given); fails
    the test with Snakemake's output when it fails."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2",
           "--configfile", str(config or workdir / "config.yaml"), *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout + proc.stderr


def still_alive(alive: Callable[[], list[str]], within: float = 10.0) -> list[str]:
    """What ``alive()`` (processes a test expects gone) still finds after up to ``within``
    seconds, looking every 50 ms: empty as soon as they are gone. A process that was killed
    takes a moment to go on a loaded machine; one left running (the bug the tests look for:
    their sleepers run for minutes) is still found."""
    end = time.monotonic() + within
    found = alive()
    while found and time.monotonic() < end:
        time.sleep(0.05)
        found = alive()
    return found


def copy_tiny(directory: Path, config: bool = True) -> Path:
    """``directory`` set up for a workflow run on the tiny sets: their files in ``data/`` and,
    with ``config``, the tiny ``config.yaml``."""
    (directory / "data").mkdir(parents=True, exist_ok=True)
    for f in TINY.glob("*.txt"):
        shutil.copy(f, directory / "data" / f.name)
    if config:
        shutil.copy(TINY / "config.yaml", directory / "config.yaml")
    return directory


def plant_answer(sols: Path, row: int, **cells: str) -> None:
    """Set cells (by SatSols column name) of line ``row`` (0-based, header included) of a
    SatSols TSV, as a solver run could have written them."""
    lines = sols.read_text().splitlines()
    header = lines[0].split("\t")
    values = lines[row].split("\t")
    for name, value in cells.items():
        values[header.index(name)] = value
    lines[row] = "\t".join(values)
    sols.write_text("\n".join(lines) + "\n")


def plant_failed_answer(sols: Path, row: int) -> None:
    """Mark line ``row`` (0-based, header included) of a SatSols TSV as a failed verification,
    as a wrong model would be reported."""
    plant_answer(sols, row, verified="FAILED", detail="planted: row 1 repeats 4")


def minisat(cnf) -> bool:
    """python-sat MiniSat's verdict on a :class:`~satdoku.cnf.formula.Cnf` (the reference)."""
    from pysat.solvers import Minisat22

    with Minisat22(bootstrap_with=cnf.clauses) as solver:
        return bool(solver.solve())


def line_record(text: str):
    """A valid 9x9 record from one line of 81 characters ('.' or 0 for an empty cell)."""
    from satdoku.formats import Record
    from satdoku.puzzle import sudoku

    return Record("t.txt", 1, 1, "line", puzzle=sudoku([0 if c == "." else int(c)
                                                        for c in text]))


def php(pigeons: int, holes: int):
    """The pigeonhole formula: unsatisfiable when pigeons > holes, hard for DPLL."""
    from satdoku.cnf.formula import Cnf

    def v(i: int, j: int) -> int:
        return i * holes + j + 1

    clauses = [[v(i, j) for j in range(holes)] for i in range(pigeons)]
    clauses += [
        [-v(i, j), -v(k, j)]
        for j in range(holes)
        for i in range(pigeons)
        for k in range(i + 1, pigeons)
    ]
    return Cnf(pigeons * holes, clauses)


def random_3sat(n: int, seed: int, ratio: float = 4.26) -> list[list[int]]:
    """``round(ratio * n)`` clauses of 3 distinct variables of 1..n, random signs (seeded)."""
    import random

    rng = random.Random(seed)
    return [
        [v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), 3)]
        for _ in range(round(ratio * n))
    ]
