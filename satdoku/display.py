"""Readable ASCII boards: box separators for Sudoku, plain rows for other families."""

from __future__ import annotations

from collections.abc import Sequence

from satdoku.formats.symbols import ALPHABET
from satdoku.puzzle import Puzzle


def _cell(v: int, width: int) -> str:
    if not v:
        return ".".rjust(width)
    return (ALPHABET[v - 1] if width == 1 else str(v)).rjust(width)


def render_board(puzzle: Puzzle, board: Sequence[int] | None = None, indent: str = "") -> str:
    """A board as text lines; Sudoku boxes separated by ``|`` and ``-+-`` rules."""
    b = puzzle.givens if board is None else board
    n = puzzle.size
    width = 1 if puzzle.domain <= 9 else len(str(puzzle.domain))
    box = puzzle.layout.box
    rows = []
    for r in range(n):
        cells = [_cell(b[r * n + c], width) for c in range(n)]
        if box:
            parts = [" ".join(cells[i : i + box]) for i in range(0, n, box)]
            rows.append(indent + " | ".join(parts))
            if (r + 1) % box == 0 and r + 1 < n:
                seg = "-" * (box * (width + 1) - 1)
                rows.append(indent + "-+-".join([seg] * box))
        else:
            rows.append(indent + " ".join(cells))
    return "\n".join(rows)
