"""The ``dimacs`` format: CNF sets, whose instances are formulas, not puzzles.

A CNF set is a directory of DIMACS files (``*.cnf``, ``*.dimacs``, each optionally ``.gz``,
``.xz`` or ``.bz2``; compression is recognised by magic bytes whatever the name) or a single
DIMACS file. It has one record per file, in sorted file-name order: notation ``dimacs``, ``name``
the file name, ``line`` 1, and ``cnf`` a :class:`~satdoku.formats.record.CnfFile` (path,
variables, clauses, sha256 of the raw bytes) and ``instance_hash`` GBD's hash of the formula
(:mod:`satdoku.identity`). Each file is checked completely by the fast
DIMACS reader (header, every literal, the clause count; SATLIB ``%`` trailers accepted) but not
kept: solvers read it again (:func:`cnf_file_read` keeps it, for a caller that solves the file
next). A malformed file is one INVALID record with the reason and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from satdoku.cnf.dimacs_fast import DimacsError, parse_dimacs_buffer
from satdoku.cnf.dimacs_stream import scan_dimacs
from satdoku.cnf.formula import Cnf
from satdoku.cnf.native import dimacs_passes
from satdoku.formats.record import CnfFile, Record
from satdoku.formats.symbols import ints_text
from satdoku.identity import cnf_hash_bytes
from satdoku.size_limits import SizeLimits, default_size_limits
from satdoku.sources import InputError, Snapshot

NOTATION = "dimacs"
DIMACS_SUFFIXES = (".cnf", ".dimacs")
COMPRESSION_SUFFIXES = (".gz", ".xz", ".bz2")
_COMMENT = re.compile(r"^\s*c(\s|$)")
_HEADER = re.compile(r"^\s*p\s+cnf\s+([0-9]{1,4300})\s+[0-9]+\s*$")  # DIMACS refuses huge
_LITERAL = re.compile(r"-?[0-9]{1,18}")


def is_dimacs_name(name: str) -> bool:
    """``x.cnf``, ``x.dimacs``, optionally followed by ``.gz``/``.xz``/``.bz2``."""
    low = name.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if low.endswith(suffix):
            low = low[: -len(suffix)]
            break
    return low.endswith(DIMACS_SUFFIXES)


def looks_like_dimacs(path: Path, head: list[tuple[int, str]]) -> bool:
    """A DIMACS file by name, or one whose first line other than ``c`` comments is a ``p cnf
    V C`` header followed by a clause of literals within +-V (no puzzle format has one; a
    ``p cnf`` line after or before puzzles is a bad line of a puzzle file, never a reason
    to read the whole file as one formula)."""
    if is_dimacs_name(path.name):
        return True
    body = (t for _, t in head if not _COMMENT.match(t))
    first = next(body, "")
    m = _HEADER.match(first)
    if not m:
        return False
    num_vars = int(m.group(1))
    clause = next(body, "").split()  # the first clause, when the head holds one
    return all(tok == "%" or (_LITERAL.fullmatch(tok) and abs(int(tok)) <= num_vars)
               for tok in clause)


def cnf_file_record(path: str | Path, snapshot: Snapshot | None = None,
                    limits: SizeLimits | None = None) -> Record:
    """The record of one DIMACS file: checked, counted and hashed, not kept (a file is read in
    one streaming pass, :func:`~satdoku.cnf.dimacs_stream.scan_dimacs`; a ``snapshot``, content
    already read, in memory)."""
    return _record(path, snapshot, limits or default_size_limits(), False)[0]


def cnf_file_read(path: str | Path, limits: SizeLimits | None = None
                  ) -> tuple[Record, Cnf | None]:
    """The record of one DIMACS file (:func:`cnf_file_record`) and its formula as that same
    pass read it (a flat literal buffer: the formula whose sha256 the record holds; None for
    an INVALID file). For a caller that solves the file next in the same process: a solver in
    this process gets it without reading the file again, and a binary's model is checked
    against it instead of a second pass over the file. It costs the formula's size in memory,
    so callers keep one at a time."""
    return _record(path, None, limits or default_size_limits(), True)


def _record(path: str | Path, snapshot: Snapshot | None, lim: SizeLimits, keep: bool
            ) -> tuple[Record, Cnf | None]:
    source, name = str(path), Path(path).name
    formula = None
    try:
        if snapshot is None:
            scan = scan_dimacs(path, gbd=True, keep=keep, limits=lim)
            cnf = CnfFile(source, scan.num_vars, scan.num_clauses, scan.sha256, scan.standard,
                          scan.compression)
            gbd = scan.instance_hash
            if keep:
                formula = Cnf(scan.num_vars, None, scan.comments, lits=scan.lits,
                              num_clauses=scan.num_clauses)
        else:
            arrays = parse_dimacs_buffer(snapshot.data, source, 0, lim)
            cnf = CnfFile(source, arrays.num_vars, arrays.num_clauses, snapshot.sha256)
            gbd = cnf_hash_bytes(snapshot.data)
    except DimacsError as exc:
        why = f"line {exc.line}: {exc.reason}" if exc.line else exc.reason
        return Record(source, 1, 0, NOTATION, name=name, error=why), None
    except InputError as exc:
        return Record(source, 1, 0, NOTATION, name=name, error=exc.reason), None
    return Record(source, 1, 0, NOTATION, name=name, cnf=cnf, instance_hash=gbd), formula


def cnf_set_files(directory: str | Path) -> list[Path]:
    """The DIMACS files of a CNF set directory, in sorted file-name order (hidden files and
    other names are not part of the set)."""
    d = Path(directory)
    try:
        entries = sorted(d.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise InputError(str(directory), exc.strerror or str(exc)) from None
    return [p for p in entries if not p.name.startswith(".") and is_dimacs_name(p.name)
            and not p.is_dir()]


def read_cnf_set(directory: Path, limits: SizeLimits | None = None) -> Iterator[Record]:
    """One record per DIMACS file of a directory (see the module doc); an InputError at once
    when the directory holds none."""
    files = cnf_set_files(directory)
    if not files:
        raise InputError(str(directory), "is a directory without DIMACS files (*.cnf, *.dimacs, "
                                         "optionally .gz/.xz/.bz2)")
    return (cnf_file_record(path, limits=limits) for path in files)


def read_cnf_file(snapshot: Snapshot, limits: SizeLimits | None = None) -> Iterator[Record]:
    """The one record of a single DIMACS file given as a set."""
    yield cnf_file_record(snapshot.source, snapshot, limits)


def format_model(model: Sequence[int], side: int = 0, empty: str = ".") -> str:
    """A CNF instance's answer: its model as signed literals on one line."""
    return ints_text(model)


def solution_text(model: Sequence[int]) -> str:
    """A CNF instance's solution in SatSols: its model's literals, then ``0``, one space apart
    (in C when it is built: a model may hold millions of literals; a list of ints or an
    ``array('i')``)."""
    native = dimacs_passes()
    if native is None:
        return " ".join(map(str, [*model, 0]))
    return str(native.literals_text(model if isinstance(model, list) or
                                     getattr(model, "typecode", "") == "i" else list(model)))


def parse_model(text: str, side: int = 0) -> tuple[int, ...] | None:
    """Inverse of :func:`format_model` (None for anything else; blank text: the empty model)."""
    parts = text.split()
    if not all(_LITERAL.fullmatch(p) for p in parts):
        return None
    return tuple(map(int, parts))
