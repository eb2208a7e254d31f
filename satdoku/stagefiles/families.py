"""Instance families: 4x4, 9x9, 16x16, 25x25+, Latin, Futoshiki, 3-D Sudoku, CNF.

A family is derived from an instance's kind and size (Instances fields, or the header of a
SatInput instance block), never from the set name, so a set that mixes sizes is split correctly.
The CNF sizes stage file and every cross-set table and plot group instances by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INVALID_FAMILY = "invalid"

#: Display order of the families (others, e.g. a new kind, sort after these by name).
CNF_FAMILY = "CNF"
ORDER = ("4x4", "9x9", "16x16", "25x25+", "Latin", "Futoshiki", "3-D Sudoku", CNF_FAMILY)

_SLUGS = {"25x25+": "25x25plus", "3-D Sudoku": "sudoku3d"}


def family(kind: str | None, size: int | None) -> str:
    """The family of one instance from its kind and board size (side length)."""
    if not kind:
        return INVALID_FAMILY
    if kind == "sudoku":
        n = int(size or 0)
        if n >= 25:
            return "25x25+"
        return f"{n}x{n}"
    if kind in ("cnf", "dimacs"):
        return CNF_FAMILY
    named = {"latin": "Latin", "futoshiki": "Futoshiki", "sudoku3d": "3-D Sudoku"}
    return named.get(kind, kind.capitalize())


def family_of_record(d: Mapping[str, Any]) -> str:
    """The family of an Instances JSONL object (``box`` for Sudoku, else ``size``)."""
    if "error" in d or "kind" not in d:
        return INVALID_FAMILY
    if "box" in d:
        return family(d["kind"], int(d["box"]) ** 2)
    return family(d["kind"], int(d["size"]) if "size" in d else None)


def slug(fam: str) -> str:
    """A file-name-safe name of a family (``25x25+`` -> ``25x25plus``)."""
    return _SLUGS.get(fam, fam.lower().replace(" ", "_").replace("+", "plus"))


def sort_key(fam: str) -> tuple[int, str]:
    return (ORDER.index(fam), fam) if fam in ORDER else (len(ORDER), fam)

