"""The unit every reader yields: one instance of an input file (a puzzle, a CNF formula, or
INVALID with a reason)."""

from __future__ import annotations

from dataclasses import dataclass

from satdoku.puzzle import Puzzle


@dataclass(frozen=True)
class CnfFile:
    """One DIMACS file of a CNF set, checked (header and every clause) but not kept in memory:
    solvers read it again from ``path``; ``sha256`` (of the file's raw bytes) tells whether it
    changed since. ``standard`` and ``compression`` are what the same read found out about
    the file's form (:class:`~satdoku.cnf.dimacs_stream.DimacsScan`): whether a solver binary
    reads it as we do, and how it is compressed; with them a binary is handed the file with
    no second pass over it (``standard`` None: not recorded, a pass finds out)."""

    path: str
    num_vars: int
    num_clauses: int
    sha256: str
    standard: bool | None = None
    compression: str | None = None


@dataclass
class Record:
    """One instance read from ``source``, starting at 1-based ``line``.

    Exactly one of ``puzzle`` / ``cnf`` / ``error`` is set. ``index`` is the 1-based position in
    the file (or in the CNF set) and the instance id. ``notation`` names the reader, so solutions
    can be written back the way the input wrote them; ``solution`` is a solution the file itself
    provides (an extra check). ``instance_hash`` identifies the instance across runs and
    machines (:mod:`satdoku.identity`).
    """

    source: str
    line: int
    index: int
    notation: str
    puzzle: Puzzle | None = None
    error: str | None = None
    name: str = ""
    solution: tuple[int, ...] | None = None
    empty: str = "."
    cnf: CnfFile | None = None
    instance_hash: str = ""  #: see :mod:`satdoku.identity` (:func:`record_hash` fills it)

    @property
    def id(self) -> str:
        return str(self.index)

    @property
    def valid(self) -> bool:
        return self.puzzle is not None or self.cnf is not None
