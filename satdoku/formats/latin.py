"""Latin square completion readers: list-of-lists lines (latin_square_qwh) and integer grids.

``latin``: one puzzle per line written as a Python/JSON list of rows, ``0`` = hole, symbols 1..n::

    [[0, 0, 10, 0, 9, 4, 3, 8, 1, 2], [5, 6, 9, 8, 1, 0, 7, 0, 0, 0], ...]

``latin_grid``: one row per line as space-separated integers, a grid ends after as many rows as
its first row has cells (like the Sudoku ``grid`` format, but any order n and no boxes); a line
starting with a letter before a grid names it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from satdoku.formats.record import Record
from satdoku.puzzle import Puzzle, latin


def latin_from_rows(rows: object) -> tuple[Puzzle | None, str]:
    """(Puzzle, '') from a list of n rows of n ints, or (None, reason)."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        return None, "expected a list of rows (a list of lists of integers)"
    n = len(rows)
    for i, r in enumerate(rows, 1):
        if len(r) != n:
            return None, f"row {i} has {len(r)} cells, expected {n} (a square)"
        for v in r:
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= n:
                return None, f"row {i}: value {v!r} is not an integer in 0..{n}"
    return latin([v for r in rows for v in r], n), ""


def read_latin_lists(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for one list-of-lists Latin square per line."""
    for lineno, raw in lines:
        text = raw.strip()
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            yield Record(source, lineno, 0, "latin", error=f"not a list of lists: {exc.msg} "
                                                           f"at column {exc.colno}")
            continue
        puzzle, reason = latin_from_rows(rows)
        yield Record(source, lineno, 0, "latin", puzzle=puzzle, error=reason or None, empty="0")


def read_latin_grids(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for Latin squares as integer grids (one row per line)."""
    rows: list[list[int]] = []
    start, name = 0, ""
    for lineno, raw in lines:
        text = raw.strip()
        parts = text.split()
        if not all(p.isdigit() for p in parts):
            if rows:
                yield Record(source, start, 0, "latin_grid", name=name,
                             error=f"grid ends after {len(rows)} rows (line {lineno}: "
                                   f"{text[:30]!r})")
                rows = []
            if text[:1].isalpha():
                start, name = lineno, text
            else:
                yield Record(source, lineno, 0, "latin_grid",
                             error=f"not a grid row: {text[:40]!r}")
                name = ""
            continue
        if not rows:
            start = start if name else lineno
        rows.append([int(p) for p in parts])
        if len(rows) == len(rows[0]):
            puzzle, reason = latin_from_rows(rows)
            yield Record(source, start, 0, "latin_grid", puzzle=puzzle, error=reason or None,
                         name=name, empty="0")
            rows, name = [], ""
    if rows:
        yield Record(source, start, 0, "latin_grid", name=name,
                     error=f"grid ends after {len(rows)} of {len(rows[0])} rows at end of file")


def rows_text(board: tuple[int, ...] | list[int], n: int) -> str:
    """A board as the one-line list of lists of the ``latin`` format."""
    return json.dumps([list(board[r * n:(r + 1) * n]) for r in range(n)])
