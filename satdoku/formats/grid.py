"""Grids: one board row per line as space-separated integers (0 empty), extra spaces between
boxes and blank lines between bands allowed; several grids per file, optionally each announced by
a header line such as ``Grid 01`` (Project Euler 96 style, rows of N digits without spaces)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from satdoku.formats.record import Record
from satdoku.formats.symbols import ints_of, ints_text, parse_board_chars
from satdoku.puzzle import SUDOKU, Puzzle, box_order_for, sudoku
from satdoku.size_limits import SizeLimits, TooLarge, check_puzzle_size


def _row_values(text: str) -> list[int] | None:
    if len(text.split()) > 1:
        return ints_of(text)
    values, _ = parse_board_chars(text, 35)
    return list(values) if values is not None else None


def _finish(rows: list[list[int]], start: int, name: str, source: str,
            limits: SizeLimits | None) -> Record:
    side = len(rows[0])
    if any(len(r) != side for r in rows):
        return Record(source, start, 0, "grid", name=name,
                      error=f"rows of different lengths {sorted({len(r) for r in rows})}")
    box = box_order_for(side)
    if box is None or box < 2:
        return Record(source, start, 0, "grid", name=name,
                      error=f"side {side} is not a Sudoku size (n^2: 4, 9, 16, 25, 36)")
    try:
        check_puzzle_size(side * side, side, limits)
    except TooLarge as exc:
        return Record(source, start, 0, "grid", name=name, error=str(exc))
    flat = [v for r in rows for v in r]
    bad = next((v for v in flat if v > side), None)
    if bad is not None:
        return Record(source, start, 0, "grid", name=name, error=f"value {bad} above {side}")
    return Record(source, start, 0, "grid", puzzle=sudoku(flat, box), name=name, empty="0")


def square_grids(lines: Iterable[tuple[int, str]], source: str, fmt: str,
                 row_values: Callable[[str], list[int] | None], is_header: Callable[[str], bool],
                 finish: Callable[[list[list[int]], int, str], Record]) -> Iterator[Record]:
    """Integer rows grouped into square grids (the ``grid`` and ``latin_grid`` readers): a grid
    ends when it has as many rows as its first row has cells; a header line before it names it;
    a grid cut short or a line that is neither a row nor a header is an error record."""
    rows: list[list[int]] = []
    start, name = 0, ""
    for lineno, raw in lines:
        text = raw.strip()
        values = row_values(text)
        if values is None:
            if rows:  # a header or garbage in the middle of a grid: the grid is cut short
                why = f"grid ends after {len(rows)} rows (line {lineno}: {text[:30]!r})"
                yield Record(source, start, 0, fmt, name=name, error=why)
                rows = []
            if is_header(text):
                start, name = lineno, text[:200]
            else:
                yield Record(source, lineno, 0, fmt, error=f"not a grid row: {text[:40]!r}")
                name = ""
            continue
        if not rows:
            start = start if name else lineno
        rows.append(values)
        if len(rows) == len(rows[0]):
            yield finish(rows, start, name)
            rows, name = [], ""
    if rows:
        yield Record(source, start, 0, fmt, name=name,
                     error=f"grid ends after {len(rows)} of {len(rows[0])} rows at end of file")


def read_grids(lines: Iterable[tuple[int, str]], source: str,
               limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for integer grids; a grid ends when it has as many rows as its first row has cells."""
    def finish(rows: list[list[int]], start: int, name: str) -> Record:
        return _finish(rows, start, name, source, limits)

    nonblank = (line for line in lines if line[1].strip())
    yield from square_grids(nonblank, source, "grid", _row_values,
                            lambda text: text.split()[0].isalpha(), finish)


def looks_like_grid(path: Path, head: list[tuple[int, str]]) -> bool:
    """Rows of integers, ``Grid 01`` headers, or equal rows of 4, 9 or 25 digits (16 is left to
    the line reader: a 4x4 board is a line of 16 cells)."""
    texts = [t.strip() for _, t in head]
    for i, text in enumerate(texts):
        tokens = text.split()
        if len(tokens) > 2 and ints_of(text) is not None:
            return True
        nxt = texts[i + 1] if i + 1 < len(texts) else ""
        if text[:1].isalpha() and len(tokens) <= 3 and _row_values(nxt) is not None:
            return True
        if len(tokens) == 1 and len(text) in (4, 9, 25) and len(nxt) == len(text):
            return True
    return False


def write_grids(puzzles: Sequence[Puzzle]) -> str:
    """Sudoku puzzles as integer grids, a blank line after each (the inverse of
    :func:`read_grids`)."""
    out = []
    for p in puzzles:
        if p.kind != SUDOKU:
            raise ValueError(f"the grid format writes Sudoku boards, not {p.layout.key}")
        n = p.size
        out.extend(ints_text(p.givens[r * n:(r + 1) * n]) for r in range(n))
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
