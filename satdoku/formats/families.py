"""Detection and solution writing for the non-Sudoku formats (Futoshiki, Latin, JSON).

Kept apart from ``formats/__init__.py`` so the shared dispatcher only needs one hook each.
"""

from __future__ import annotations

import json
from math import isqrt
from pathlib import Path

from satdoku.formats.futoshiki import has_inequality, is_sign_row
from satdoku.formats.latin import rows_text

#: Reader names of the family formats (notation names written in Records).
FAMILY_FORMATS = ("futoshiki", "futoshiki_grid", "latin", "latin_grid", "json")


def _ints(text: str) -> list[str] | None:
    parts = text.split()
    return parts if parts and all(p.isdigit() for p in parts) else None


def detect_family_format(path: Path, lines: list[tuple[int, str]]) -> str | None:
    """The family reader for a file, or None to let the Sudoku rules decide.

    ``lines`` are the first content lines of the file (the more, the surer)."""
    if not lines:
        return None
    first = lines[0][1].strip()
    if first.startswith("{") or path.suffix.lower() in (".json", ".jsonl"):
        return "json"
    if first.startswith("["):
        return "latin"
    if len(lines) > 1:
        a, b = _ints(first), _ints(lines[1][1])
        if (a and len(a) == 1 and len(a[0]) <= 6 and b and len(b) == 2
                and all(len(x) <= 3 for x in b)):
            return "futoshiki"
    if path.suffix.lower() == ".dat":
        return "futoshiki"
    texts = [t for _, t in lines]
    if any(is_sign_row(t) for t in texts) or any(has_inequality(t) for t in texts):
        return "futoshiki_grid"
    toks = _ints(first)
    if toks and len(toks) > 2 and isqrt(len(toks)) ** 2 != len(toks):
        return "latin_grid"  # a square side that is not n²: cannot be a Sudoku grid
    return None


def format_family_board(board: tuple[int, ...] | list[int], notation: str, side: int) -> str | None:
    """A solution in the notation of a family format (one line), or None for other notations.

    Latin list-of-lists stay a list of lists; JSON boards are a JSON list; grids (Futoshiki,
    Latin) are space-separated integers, row-major, like the Sudoku ``grid`` notation."""
    if notation == "latin":
        return rows_text(board, side)
    if notation == "json":
        return json.dumps(list(board), separators=(",", ":"))
    if notation in ("futoshiki", "futoshiki_grid", "latin_grid"):
        return " ".join(map(str, board))
    return None


def parse_family_board(text: str, notation: str) -> tuple[int, ...] | None:
    """Inverse of :func:`format_family_board` (None for other notations or unreadable text)."""
    try:
        if notation in ("latin", "json"):
            value = json.loads(text)
            flat = [v for row in value for v in row] if notation == "latin" else list(value)
            return tuple(int(v) for v in flat)
        if notation in ("futoshiki", "futoshiki_grid", "latin_grid"):
            return tuple(int(x) for x in text.split())
    except (ValueError, TypeError):
        return None
    return None
