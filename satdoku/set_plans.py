"""Instance sets as the workflow plans them: what a set's path is, how many shards it has, and
a fingerprint that every shard's normalize job checks, so a file that changes during a run is
a clear failure naming the file instead of ids that no longer match lines.

A set's path is a puzzle file (any supported format; sharded by input line) or a CNF set: a
directory of DIMACS files, or a single DIMACS file (sharded by file, in sorted file-name order).
Files are measured through :mod:`satdoku.sources` (decompressed lines, raw-byte checksum), so a
directory, a device or a corrupt archive is an InputError naming it, never a hang.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from satdoku.formats.cnfset import NOTATION as DIMACS_FORMAT
from satdoku.formats.cnfset import cnf_set_files, looks_like_dimacs
from satdoku.sources import InputError, count_lines, file_sha256, head_lines

SetError = InputError  # what a set path that cannot be used raises (one line naming it)


@dataclass(frozen=True)
class SetPlan:
    """What the DAG needs to know of a set: its kind, its size in shard units, its checksum."""

    path: str
    cnf: bool  # a CNF set (DIMACS instances) rather than a puzzle file
    units: int  # lines of a puzzle file, or DIMACS files of a CNF set
    sha256: str

    def shards(self, shard_size: int) -> int:
        return max(1, -(-self.units // shard_size))

    def shard_size(self, setting: int | str, cores: int) -> int:
        """The set's shard size: ``setting`` when it is a number, else :func:`auto_shard_size`."""
        if setting == AUTO:
            return auto_shard_size(self.units, cores)
        return int(setting)


#: ``shard_size: auto`` (the default): shards of at most AUTO_MAX_SHARD and, where the set is big
#: enough, at least AUTO_MIN_SHARD units, as many as a multiple of the cores.
AUTO, AUTO_MAX_SHARD, AUTO_MIN_SHARD = "auto", 50_000, 1_000


def auto_shard_size(units: int, cores: int) -> int:
    """Units per shard such that the shards keep every core busy with few jobs.

    Each shard costs three processes (normalize, encode, solve per solver), each ~0.2 s of
    start-up, plus Snakemake's own work per job: a 50,000-puzzle set in shards of 1,000 spent
    more CPU on that than on solving. So: the fewest shards of at most ``AUTO_MAX_SHARD`` units,
    their number rounded up to a multiple of ``cores`` (equal shards finish together), but no
    shard below ``AUTO_MIN_SHARD`` units only to reach the core count (a 95-puzzle set is one
    shard). The result depends on the cores, so runs on machines of different sizes shard a set
    differently (their SatSols are the same)."""
    cores = max(1, cores)
    shards = max(1, -(-units // AUTO_MAX_SHARD))
    if shards < cores:
        shards = max(1, min(cores, units // AUTO_MIN_SHARD))
    else:
        shards = -(-shards // cores) * cores
    return max(1, -(-units // shards))


def cnf_files(path: str | Path) -> list[Path]:
    """The DIMACS files of a CNF set in sorted name order (a single file is a set of one)."""
    p = Path(path)
    return [p] if p.is_file() else cnf_set_files(p)


def is_cnf_set(path: str | Path, fmt: str = "auto") -> bool:
    """Whether a set path holds DIMACS instances: a directory, ``format: dimacs``, or a file
    named or looking like DIMACS (a ``p cnf`` line: no puzzle format has one)."""
    p = Path(path)
    if fmt == DIMACS_FORMAT or p.is_dir():
        return True
    if fmt != "auto":
        return False
    return looks_like_dimacs(p, head_lines(p))


def fingerprint(files: list[Path], known: Mapping[str, str] | None = None) -> str:
    """One checksum over a CNF set: every file's name and sha256, in order (``known``: the
    sha256s of files already read, by path, as their records hold them: not read again)."""
    h = hashlib.sha256()
    for f in files:
        sha = (known or {}).get(str(f)) or file_sha256(f)
        h.update(f"{f.name}\t{sha}\n".encode())
    return h.hexdigest()


def plan(path: str | Path, fmt: str = "auto", known: Mapping[str, str] | None = None
         ) -> SetPlan:
    """Check a set's path and measure it; InputError (one line) names what is wrong.
    ``known``: sha256s of a CNF set's files already read (:func:`fingerprint`)."""
    p = Path(path)
    if not p.exists():
        raise InputError(str(path), "no such file or directory")
    if is_cnf_set(p, fmt):
        files = cnf_files(p)
        if not files:
            raise InputError(str(path), "is a directory without DIMACS files (*.cnf, *.dimacs, "
                                        "optionally .gz/.xz/.bz2)")
        return SetPlan(str(path), True, len(files), fingerprint(files, known))
    return SetPlan(str(path), False, count_lines(p), file_sha256(p))
