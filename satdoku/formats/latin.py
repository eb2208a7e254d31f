"""Latin square completion readers: list-of-lists lines (latin_square_qwh) and integer grids.

``latin``: one puzzle per line written as a Python/JSON list of rows, ``0`` = hole, symbols 1..n::

    [[0, 0, 10, 0, 9, 4, 3, 8, 1, 2], [5, 6, 9, 8, 1, 0, 7, 0, 0, 0], ...]

``latin_grid``: one row per line as space-separated integers, a grid ends after as many rows as
its first row has cells (like the Sudoku ``grid`` format, but any order n and no boxes); a line
starting with a letter before a grid names it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from math import isqrt
from pathlib import Path

from satdoku.formats.grid import square_grids
from satdoku.formats.record import Record
from satdoku.formats.symbols import ints_of, ints_text
from satdoku.puzzle import LATIN, Puzzle, latin
from satdoku.size_limits import SizeLimits, TooLarge, check_puzzle_size


def latin_from_rows(rows: object, limits: SizeLimits | None = None) -> tuple[Puzzle | None, str]:
    """(Puzzle, '') from a list of n rows of n ints, or (None, reason)."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        return None, "expected a list of rows (a list of lists of integers)"
    n = len(rows)
    try:
        check_puzzle_size(n * n, n, limits)
    except TooLarge as exc:
        return None, str(exc)
    for i, r in enumerate(rows, 1):
        if len(r) != n:
            return None, f"row {i} has {len(r)} cells, expected {n} (a square)"
        for v in r:
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= n:
                return None, f"row {i}: value {str(v)[:20]} is not an integer in 0..{n}"
    return latin([v for r in rows for v in r], n), ""


def read_latin_lists(lines: Iterable[tuple[int, str]], source: str,
                     limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for one list-of-lists Latin square per line."""
    for lineno, raw in lines:
        text = raw.strip()
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            yield Record(source, lineno, 0, "latin", error=f"not a list of lists: {exc.msg} "
                                                           f"at column {exc.colno}")
            continue
        except (ValueError, RecursionError) as exc:  # a 5000-digit number; nesting too deep
            yield Record(source, lineno, 0, "latin", error=f"not a list of lists: "
                                                           f"{str(exc)[:60] or 'nested too deep'}")
            continue
        puzzle, reason = latin_from_rows(rows, limits)
        yield Record(source, lineno, 0, "latin", puzzle=puzzle, error=reason or None, empty="0")


def read_latin_grids(lines: Iterable[tuple[int, str]], source: str,
                     limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for Latin squares as integer grids (one row per line)."""
    def finish(rows: list[list[int]], start: int, name: str) -> Record:
        puzzle, reason = latin_from_rows(rows, limits)
        return Record(source, start, 0, "latin_grid", puzzle=puzzle, error=reason or None,
                      name=name, empty="0")

    yield from square_grids(lines, source, "latin_grid", ints_of,
                            lambda text: text[:1].isalpha(), finish)


def looks_like_latin_lists(path: Path, head: list[tuple[int, str]]) -> bool:
    """A file with a line starting ``[``."""
    return any(text.lstrip().startswith("[") for _, text in head)


def looks_like_latin_grid(path: Path, head: list[tuple[int, str]]) -> bool:
    """A first integer row whose length is not a square (so it cannot be a Sudoku grid; name
    ``format: latin_grid`` for other orders)."""
    for _, text in head:
        values = ints_of(text)
        if values is not None and len(values) > 2:
            return isqrt(len(values)) ** 2 != len(values)
    return False


def rows_text(board: Sequence[int], n: int, empty: str = ".") -> str:
    """A board as the one-line list of lists of the ``latin`` format."""
    return json.dumps([list(board[r * n:(r + 1) * n]) for r in range(n)])


def parse_rows_text(text: str, n: int = 0) -> tuple[int, ...] | None:
    """Inverse of :func:`rows_text`: the flat board of a list of lists (None for anything else)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(row, list) for row in value):
        return None
    flat = [v for row in value for v in row]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        return None
    return tuple(flat)


def _latin_boards(puzzles: Sequence[Puzzle], notation: str) -> Sequence[Puzzle]:
    for p in puzzles:
        if p.kind != LATIN:
            raise ValueError(f"the {notation} format writes Latin squares, not {p.layout.key} "
                             "(Futoshiki relations need futoshiki or futoshiki_grid)")
    return puzzles


def write_latin_lists(puzzles: Sequence[Puzzle]) -> str:
    """Latin squares as one list of lists per line (the inverse of :func:`read_latin_lists`)."""
    return "".join(rows_text(p.givens, p.size) + "\n" for p in _latin_boards(puzzles, "latin"))


def write_latin_grids(puzzles: Sequence[Puzzle]) -> str:
    """Latin squares as integer grids, a blank line after each."""
    out = []
    for p in _latin_boards(puzzles, "latin_grid"):
        n = p.size
        out.extend(ints_text(p.givens[r * n:(r + 1) * n]) for r in range(n))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
