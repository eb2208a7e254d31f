"""Grids: one board row per line as space-separated integers (0 empty), extra spaces between
boxes and blank lines between bands allowed; several grids per file, optionally each announced by
a header line such as ``Grid 01`` (Project Euler 96 style, rows of N digits without spaces)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from satdoku.formats.record import Record
from satdoku.formats.symbols import parse_board_chars
from satdoku.puzzle import box_order_for, sudoku


def _row_values(text: str) -> list[int] | None:
    parts = text.split()
    if len(parts) > 1:
        return [int(p) for p in parts] if all(p.isdigit() for p in parts) else None
    values, _ = parse_board_chars(text, 35)
    return list(values) if values is not None else None


def _finish(rows: list[list[int]], start: int, name: str, source: str) -> Record:
    side = len(rows[0])
    if any(len(r) != side for r in rows):
        return Record(source, start, 0, "grid", name=name,
                      error=f"rows of different lengths {sorted({len(r) for r in rows})}")
    box = box_order_for(side)
    if box is None:
        return Record(source, start, 0, "grid", name=name,
                      error=f"side {side} is not a Sudoku size (n^2: 4, 9, 16, 25, 36)")
    flat = [v for r in rows for v in r]
    bad = next((v for v in flat if v > side), None)
    if bad is not None:
        return Record(source, start, 0, "grid", name=name, error=f"value {bad} above {side}")
    return Record(source, start, 0, "grid", puzzle=sudoku(flat, box), name=name, empty="0")


def read_grids(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for integer grids; a grid ends when it has as many rows as its first row has cells."""
    rows: list[list[int]] = []
    start, name = 0, ""
    for lineno, raw in lines:
        text = raw.strip()
        if not text:
            continue
        values = _row_values(text)
        if values is None:
            if rows:  # a header or garbage in the middle of a grid: the grid is cut short
                why = f"grid ends after {len(rows)} rows (line {lineno}: {text[:30]!r})"
                yield Record(source, start, 0, "grid", name=name, error=why)
                rows = []
            if text.split()[0].isalpha():
                start, name = lineno, text
            else:
                yield Record(source, lineno, 0, "grid", error=f"not a grid row: {text[:40]!r}")
                name = ""
            continue
        if not rows:
            start = start if name else lineno
        rows.append(values)
        if len(rows) == len(rows[0]):
            yield _finish(rows, start, name, source)
            rows, name = [], ""
    if rows:
        yield Record(source, start, 0, "grid", name=name,
                     error=f"grid ends after {len(rows)} of {len(rows[0])} rows at end of file")
