"""Named CNF encodings of a Puzzle (direct encoding: one Boolean per cell and value).

Variable numbering: v(cell, d) = cell * D + d with d in 1..D and cells row-major from 0, so for a
Sudoku v(r, c, d) = (r * N + c) * N + d (1-based d). Clause families:

- cell-ALO: every cell has at least one value
- cell-AMO: every cell has at most one value
- group-AMO: no value twice in a group (all-different)
- group-ALO: every value at least once in a group of exactly D cells
- givens: one unit clause per given

Encodings: ``minimal`` = cell-ALO + group-AMO; ``efficient`` = minimal + cell-AMO;
``extended`` = all four families. The puzzle-independent part ("rules") is computed once per layout
and encoding and shared; the instance part holds givens and instance-specific relations.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from satdoku.cnf.formula import Cnf
from satdoku.puzzle import Layout, Puzzle

ENCODINGS = ("minimal", "efficient", "extended")
_FAMILIES = {
    "minimal": ("cell_alo", "group_amo"),
    "efficient": ("cell_alo", "cell_amo", "group_amo"),
    "extended": ("cell_alo", "cell_amo", "group_amo", "group_alo"),
}


def var(cell: int, d: int, domain: int) -> int:
    """DIMACS variable meaning 'cell holds value d' (d in 1..domain)."""
    return cell * domain + d


def num_vars(puzzle: Puzzle) -> int:
    return puzzle.ncells * puzzle.domain


def _check(encoding: str) -> tuple[str, ...]:
    try:
        return _FAMILIES[encoding]
    except KeyError:
        raise ValueError(f"unknown encoding {encoding!r}; known: {', '.join(ENCODINGS)}") from None


def _group_clauses(groups, domain: int, families: tuple[str, ...]) -> list[list[int]]:
    out: list[list[int]] = []
    for cells in groups:
        if "group_amo" in families:
            for d in range(1, domain + 1):
                vs = [c * domain + d for c in cells]
                out.extend([-a, -b] for a, b in combinations(vs, 2))
        if "group_alo" in families and len(cells) == domain:
            out.extend([c * domain + d for c in cells] for d in range(1, domain + 1))
    return out


@lru_cache(maxsize=32)
def _rules(layout: Layout, encoding: str) -> tuple[tuple[int, ...], ...]:
    families = _check(encoding)
    dom = layout.domain
    out: list[list[int]] = []
    for c in range(layout.ncells):
        vs = [c * dom + d for d in range(1, dom + 1)]
        if "cell_alo" in families:
            out.append(vs)
        if "cell_amo" in families:
            out.extend([-a, -b] for a, b in combinations(vs, 2))
    out.extend(_group_clauses(layout.groups, dom, families))
    return tuple(tuple(cl) for cl in out)


def rules_clauses(layout: Layout, encoding: str) -> list[list[int]]:
    """The clauses every puzzle of this layout shares under ``encoding`` (cached)."""
    return [list(cl) for cl in _rules(layout, encoding)]


def rules_key(puzzle: Puzzle, encoding: str) -> str:
    """Name of the shared rules block a puzzle's formula builds on, e.g. ``sudoku-9.extended``."""
    _check(encoding)
    return f"{puzzle.layout.key}.{encoding}"


def instance_clauses(puzzle: Puzzle, encoding: str) -> list[list[int]]:
    """The clauses specific to one puzzle: givens, instance groups, inequalities."""
    families = _check(encoding)
    dom = puzzle.domain
    out: list[list[int]] = []
    if puzzle.extra_groups:
        out.extend(_group_clauses(puzzle.extra_groups, dom, families))
    for a, b in puzzle.less_than:  # value(a) < value(b): forbid every pair with da >= db
        out.extend(
            [-(a * dom + da), -(b * dom + db)]
            for da in range(1, dom + 1)
            for db in range(1, da + 1)
        )
    out.extend([c * dom + v] for c, v in enumerate(puzzle.givens) if v)
    return out


def encode(puzzle: Puzzle, encoding: str = "extended") -> Cnf:
    """The whole formula of one puzzle (rules + instance clauses)."""
    clauses = rules_clauses(puzzle.layout, encoding) + instance_clauses(puzzle, encoding)
    return Cnf(num_vars(puzzle), clauses)
