"""Size limits of what the readers accept, checked on declared sizes before anything is built.

An instance too large to encode (a 3-D Sudoku of order 5, a custom shape of 100000 x 100000, a
domain of 10^8) becomes one INVALID record naming the limit, instead of a ``MemoryError`` or
minutes of work later; a DIMACS header declaring more variables than the limit is a
``DimacsError``; an input file larger than ``max_input_bytes`` (after decompression) is an
``InputError``. The defaults take a 36x36 Sudoku (1,296 cells, 46,656 values) and a 3-D Sudoku
of order 4 (4,096 cells; 262,144 values with the original's domain n³ = 64).

Every reader takes a ``limits`` argument; without one it uses the module default, which
:func:`set_default_size_limits` replaces (the CLI or the workflow can set it once per process).
This module imports nothing of ours.
"""

from __future__ import annotations

from collections.abc import Iterable

from satdoku.records import record


@record(frozen=True)
class SizeLimits:
    """Bounds on one input file and on one instance read from it."""

    max_input_bytes: int = 1 << 30  #: bytes of one input file after decompression
    max_cells: int = 20_000  #: cells of one puzzle
    max_domain: int = 4_096  #: values a cell may take
    max_values: int = 300_000  #: cells x domain: the variables of the direct encoding
    max_cnf_vars: int = 1 << 24  #: variables a DIMACS header may declare
    #: clauses of a layout's shared rules under an encoding (the memory guard: 5 million
    #: takes a 36x36 Sudoku's 3.3 million extended clauses; a 49x49's 11 million would take
    #: several GB)
    max_clauses: int = 5_000_000


_default = SizeLimits()


def default_size_limits() -> SizeLimits:
    """The limits readers use when given none."""
    return _default


def set_default_size_limits(limits: SizeLimits) -> SizeLimits:
    """Make ``limits`` the process-wide default; returns the previous default."""
    global _default
    previous, _default = _default, limits
    return previous


class TooLarge(ValueError):
    """An instance or input beyond the configured limits (the message names the limit)."""


def capped_product(factors: Iterable[int], cap: int) -> int:
    """The product of ``factors``, or ``cap + 1`` as soon as it exceeds ``cap`` (so a declared
    shape of a million dimensions costs nothing to check)."""
    out = 1
    for f in factors:
        out *= f
        if out > cap:
            return cap + 1
    return out


def check_puzzle_size(ncells: int, domain: int, limits: SizeLimits | None = None) -> None:
    """Raise :class:`TooLarge` when a puzzle of ``ncells`` cells with values 1..``domain`` is
    beyond ``limits``: call it with the declared sizes before building a layout."""
    lim = limits or _default
    if ncells > lim.max_cells:
        raise TooLarge(f"too large: {ncells} cells, the limit is {lim.max_cells} "
                       "(satdoku.size_limits.SizeLimits.max_cells)")
    if domain > lim.max_domain:
        raise TooLarge(f"too large: domain {domain}, the limit is {lim.max_domain} "
                       "(satdoku.size_limits.SizeLimits.max_domain)")
    if ncells * domain > lim.max_values:
        raise TooLarge(f"too large: {ncells} cells x domain {domain} = {ncells * domain} values, "
                       f"the limit is {lim.max_values} (satdoku.size_limits.SizeLimits.max_values)")
