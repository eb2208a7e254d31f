"""Normalize stage: one shard of a set's input -> an Instances shard (stage file).

Shard ``k`` of a puzzle file holds the instances that *start* on lines ``k*S+1 .. (k+1)*S``;
shard ``k`` of a CNF set holds its DIMACS files ``k*S+1 .. (k+1)*S`` in sorted name order. The
input is checked against the checksum the workflow planned with (:mod:`satdoku.pipeline.sets`),
so every shard of a set comes from the same version of the input; the shard's header records it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from satdoku.formats import Record, read_records
from satdoku.pipeline.sets import SetError, cnf_files, fingerprint, is_cnf_set, measure
from satdoku.stagefiles.instances import ShardHeader, write_instances


def _read_cnf_file(path: Path, index: int) -> Record:
    """One DIMACS file as a record: its header counts and checksum, or INVALID with the reason.
    (Interim: replaced by the formats package's DIMACS reader.)"""
    from satdoku.cnf.dimacs import DimacsError
    from satdoku.cnf.dimacs_fast import read_dimacs_arrays
    from satdoku.formats.record import CnfFile
    from satdoku.stagefiles.instances import file_sha256

    rec = Record(str(path), 1, index, "dimacs", name=path.name)
    try:
        arrays = read_dimacs_arrays(path)
    except (DimacsError, OSError, EOFError, ValueError) as exc:
        rec.error = str(exc)
        return rec
    rec.cnf = CnfFile(str(path), arrays.num_vars, arrays.num_clauses, file_sha256(path))
    return rec


def _cnf_records(source: str | Path, first: int, stop: int, strict: bool) -> Iterator[Record]:
    """The DIMACS instances ``first <= position < stop`` of a CNF set (1-based positions)."""
    for index, path in enumerate(cnf_files(source), 1):
        if first <= index < stop:
            rec = _read_cnf_file(path, index)
            if strict and rec.error:
                from satdoku.formats import StrictError

                raise StrictError(f"{path}: {rec.error}")
            yield rec


def set_records(source: str | Path, fmt: str = "auto", strict: bool = False, first: int = 1,
                stop: int | None = None) -> Iterator[Record]:
    """The records of a set path: a puzzle file's instances starting on lines ``first <= line <
    stop``, or a CNF set's DIMACS files at positions ``first <= position < stop``."""
    if is_cnf_set(source, fmt):
        return _cnf_records(source, first, stop if stop is not None else 1 << 62, strict)
    return read_records(source, fmt, strict, first, stop)


def normalize(source: str | Path, out: str | Path, shard: int, shard_size: int,
              fmt: str = "auto", strict: bool = False,
              expect_sha256: str | None = None) -> dict[str, int]:
    """Write shard ``shard`` (0-based) of a set; returns counts of instances and invalid ones.

    ``expect_sha256`` is the checksum the workflow planned with: a different input (edited or
    truncated since) is a :class:`SetError` naming the file."""
    cnf = is_cnf_set(source, fmt)
    sha = fingerprint(cnf_files(source)) if cnf else measure(source)[1]
    if expect_sha256 and sha != expect_sha256:
        raise SetError(f"{source} changed since the workflow planned this run (sha256 "
                       f"{sha[:12]}..., expected {expect_sha256[:12]}...); run it again")
    first = shard * shard_size + 1
    records = set_records(source, fmt, strict, first, first + shard_size)
    header = ShardHeader(str(source), sha, shard, shard_size, "dimacs" if cnf else fmt)
    return write_instances(out, header, records)
