"""Instance sets as the workflow plans them: what a set's path is, how many shards it has, and
a fingerprint that every shard's normalize job checks, so a file that changes during a run is
a clear failure naming the file instead of ids that no longer match lines.

A set's path is a puzzle file (any supported format; sharded by input line) or a CNF set: a
directory of DIMACS files, or a single DIMACS file (sharded by file, in sorted file-name order).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from satdoku.stagefiles.instances import file_sha256

DIMACS_FORMAT = "dimacs"
CNF_SUFFIXES = (".cnf", ".dimacs", ".cnf.gz", ".cnf.xz", ".cnf.bz2", ".dimacs.gz", ".dimacs.xz")


class SetError(ValueError):
    """A set whose path cannot be used (missing, not a regular file or directory, changed)."""


@dataclass(frozen=True)
class SetPlan:
    """What the DAG needs to know of a set: its kind, its size in shard units, its checksum."""

    path: str
    cnf: bool  # a CNF set (DIMACS instances) rather than a puzzle file
    units: int  # lines of a puzzle file, or DIMACS files of a CNF set
    sha256: str

    def shards(self, shard_size: int) -> int:
        return max(1, -(-self.units // shard_size))


def cnf_files(path: str | Path) -> list[Path]:
    """The DIMACS files of a CNF set, in sorted file-name order (a single file is a set of one)."""
    p = Path(path)
    if p.is_file():
        return [p]
    return sorted((f for f in p.iterdir() if f.is_file() and f.name.lower().endswith(CNF_SUFFIXES)),
                  key=lambda f: f.name)


def is_cnf_set(path: str | Path, fmt: str = "auto") -> bool:
    """Whether a set path holds DIMACS instances: a directory, ``format: dimacs``, or a single
    file named like a DIMACS file (``.cnf``, ``.dimacs``, compressed or not)."""
    p = Path(path)
    return fmt == DIMACS_FORMAT or p.is_dir() or p.name.lower().endswith(CNF_SUFFIXES)


def measure(path: str | Path) -> tuple[int, str]:
    """(lines, sha256) of a file in one pass over its bytes; sharding is by input line."""
    n = 0
    last = b"\n"
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            n += block.count(b"\n")
            h.update(block)
            last = block[-1:]
    return n + (last != b"\n"), h.hexdigest()


def plan(path: str | Path, fmt: str = "auto") -> SetPlan:
    """Check a set's path and measure it (one pass over the bytes; SetError names the problem)."""
    p = Path(path)
    if not p.exists():
        raise SetError(f"{path}: no such file or directory")
    if is_cnf_set(p, fmt):
        if not (p.is_dir() or p.is_file()):
            raise SetError(f"{path}: not a regular file or a directory")
        files = cnf_files(p)
        if not files:
            raise SetError(f"{path}: a CNF set directory without DIMACS files "
                           f"({', '.join(CNF_SUFFIXES)})")
        return SetPlan(str(path), True, len(files), fingerprint(files))
    if not p.is_file():
        raise SetError(f"{path}: not a regular file (a puzzle file, or a directory of DIMACS "
                       "files for a CNF set)")
    lines, sha = measure(p)
    return SetPlan(str(path), False, lines, sha)


def fingerprint(files: list[Path]) -> str:
    """One checksum over a CNF set: every file's name and sha256, in order."""
    h = hashlib.sha256()
    for f in files:
        h.update(f"{f.name}\t{file_sha256(f)}\n".encode())
    return h.hexdigest()
