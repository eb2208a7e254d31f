"""Normalize stage: one shard of a set's input -> an Instances shard (stage file).

Shard ``k`` of a puzzle file holds the instances that *start* on lines ``k*S+1 .. (k+1)*S``;
shard ``k`` of a CNF set holds its DIMACS files ``k*S+1 .. (k+1)*S`` in sorted name order. The
input is read once (a snapshot: detection, sharding and parsing from one read) and checked
against the checksum the workflow planned with (:mod:`satdoku.set_plans`), so every shard
of a set comes from the same version of the input; the shard's header records it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from satdoku.cnf.formula import Cnf
from satdoku.formats import Record, StrictError, read_records
from satdoku.formats.cnfset import cnf_file_read, cnf_file_record
from satdoku.set_plans import SetError, cnf_files, fingerprint, is_cnf_set
from satdoku.sources import read_snapshot
from satdoku.stagefiles.instances import ShardHeader, write_instances
from satdoku.stagefiles.plain_instances import plain_shard


def _cnf_records(source: str | Path, first: int, stop: int | None, strict: bool,
                 kept: dict[int, Cnf] | None = None) -> Iterator[Record]:
    """The DIMACS instances ``first <= position < stop`` of a CNF set (1-based positions);
    ``kept``: each file's formula too, as its read kept it (by position; an INVALID file has
    none)."""
    for index, path in enumerate(cnf_files(source), 1):
        if first <= index and (stop is None or index < stop):
            if kept is None:
                rec = cnf_file_record(path)
            else:
                rec, cnf = cnf_file_read(path)
                if cnf is not None:
                    kept[index] = cnf
            rec.index = index
            if strict and rec.error:
                raise StrictError(f"{path}: {rec.error}")
            yield rec


def set_records(source: str | Path, fmt: str = "auto", strict: bool = False, first: int = 1,
                stop: int | None = None, snapshot=None,  # type: ignore[no-untyped-def]
                kept: dict[int, Cnf] | None = None) -> Iterator[Record]:
    """The records of a set path: a puzzle file's instances starting on lines ``first <= line <
    stop``, or a CNF set's DIMACS files at positions ``first <= position < stop`` (``kept``:
    their formulas too, by position, as their one read kept them; each costs its size in
    memory, so for a set of one)."""
    if is_cnf_set(source, fmt):
        return _cnf_records(source, first, stop, strict, kept)
    return read_records(source, fmt, strict, first, stop, snapshot=snapshot)


def normalize(source: str | Path, out: str | Path, shard: int, shard_size: int,
              fmt: str = "auto", strict: bool = False,
              expect_sha256: str | None = None, plain: bool = True) -> dict[str, int]:
    """Write shard ``shard`` (0-based) of a set; returns counts of instances and invalid ones.

    With ``plain`` (the default) a plain one-line Sudoku file takes the fast path of
    :mod:`satdoku.stagefiles.plain_instances` (the same bytes; ``plain=False``: the general
    reader for every line, the readable reference the tests compare it with).

    ``expect_sha256`` is the checksum the workflow planned with: a different input (edited or
    truncated since) is a :class:`SetError` naming the file, and so is an input deleted since
    (the workflow hands the path as a parameter, not a Snakemake input, so this job says so
    instead of Snakemake waiting for the file as for filesystem latency)."""
    if expect_sha256 and not Path(source).exists():
        raise SetError(str(source), "deleted since the workflow planned this run (no such file "
                                    "or directory)")
    cnf = is_cnf_set(source, fmt)
    snapshot = None if cnf else read_snapshot(source)
    sha = fingerprint(cnf_files(source)) if snapshot is None else snapshot.sha256
    if expect_sha256 and sha != expect_sha256:
        raise SetError(str(source), f"changed since the workflow planned this run (sha256 "
                                    f"{sha[:12]}..., expected {expect_sha256[:12]}...); run it "
                                    "again")
    first = shard * shard_size + 1
    fast = None if snapshot is None or not plain else plain_shard(
        snapshot, fmt, first, first + shard_size, strict)
    records = fast if fast is not None else set_records(source, fmt, strict, first,
                                                        first + shard_size, snapshot)
    header = ShardHeader(str(source), sha, shard, shard_size, "dimacs" if cnf else fmt)
    return write_instances(out, header, records)
