"""The unit every reader yields: one instance of an input file, parsed or INVALID with a reason."""

from __future__ import annotations

from dataclasses import dataclass

from satdoku.puzzle import Puzzle


@dataclass(frozen=True)
class CnfFile:
    """A DIMACS formula that is an instance itself (a CNF set: a directory of DIMACS files).

    The formula stays in its file; ``sha256`` (of the file's raw bytes) lets later stages notice
    a file that changed after it was read."""

    path: str
    num_vars: int
    num_clauses: int
    sha256: str


@dataclass
class Record:
    """One instance read from ``source``, starting at 1-based ``line``.

    Exactly one of ``puzzle`` / ``cnf`` (a DIMACS instance) / ``error`` is set. ``index`` is the
    1-based position in the file (or directory) and the instance id. ``notation`` names the
    reader, so solutions can be written back the way the input wrote them; ``solution`` is a
    solution the file itself provides (an extra check).
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

    @property
    def id(self) -> str:
        return str(self.index)

    @property
    def valid(self) -> bool:
        return self.puzzle is not None or self.cnf is not None
