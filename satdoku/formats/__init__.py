"""Instance file readers with auto-detection; every reader yields :class:`Record` s.

A malformed instance becomes a Record with ``error`` set (file, line, reason) — never dropped,
never fatal unless the caller asks for ``strict``. ``#`` comment lines and blank lines are skipped
(blank lines still separate grid bands).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from satdoku.formats.csvboards import read_csv_boards
from satdoku.formats.families import detect_family_format, format_family_board
from satdoku.formats.futoshiki import read_futoshiki_dat, read_futoshiki_grid
from satdoku.formats.grid import read_grids
from satdoku.formats.jsonpuzzle import read_json_puzzles
from satdoku.formats.latin import read_latin_grids, read_latin_lists
from satdoku.formats.lines import read_line_boards, read_ndigit_lines
from satdoku.formats.record import Record
from satdoku.formats.symbols import board_chars

__all__ = ["FORMATS", "Record", "detect_format", "format_board", "read_records"]

_NDIGITS = re.compile(r"^\d+\s+[0-9A-Za-z.\-]{16,}\s*$")

FORMATS = {
    "line": read_line_boards,
    "ndigits": read_ndigit_lines,
    "csv": read_csv_boards,
    "grid": read_grids,
    "futoshiki": read_futoshiki_dat,
    "futoshiki_grid": read_futoshiki_grid,
    "latin": read_latin_lists,
    "latin_grid": read_latin_grids,
    "json": read_json_puzzles,
}


class StrictError(ValueError):
    """Raised in strict mode on the first malformed instance."""


#: Readers whose instances are one line each (a shard can skip straight to its lines).
LINE_FORMATS = ("line", "ndigits", "csv", "latin")


def _is_content(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _head(path: Path, n: int = 2) -> list[tuple[int, str]]:
    """The first ``n`` content lines (for format detection and CSV headers)."""
    from satdoku.cnf.dimacs import open_text

    out: list[tuple[int, str]] = []
    with open_text(path) as fh:
        for i, line in enumerate(fh, 1):
            if _is_content(line):
                out.append((i, line.rstrip("\r\n")))
                if len(out) == n:
                    break
    return out


def _content_lines(path: Path, start: int = 1) -> Iterator[tuple[int, str]]:
    from satdoku.cnf.dimacs import open_text

    with open_text(path) as fh:
        for i, line in enumerate(fh, 1):
            if i >= start and _is_content(line):
                yield i, line.rstrip("\r\n")


def _count_content_before(path: Path, start: int) -> int:
    from satdoku.cnf.dimacs import open_text

    n = 0
    with open_text(path) as fh:
        for i, line in enumerate(fh, 1):
            if i >= start:
                break
            n += _is_content(line)
    return n


def detect_format(path: Path, lines: list[tuple[int, str]]) -> str:
    """Name of the reader for a file, from its name and first content lines."""
    family = detect_family_format(path, lines)
    if family:
        return family
    if path.suffix.lower() == ".csv" or (lines and "," in lines[0][1]):
        return "csv"
    if not lines:
        return "line"
    first = lines[0][1].strip()
    if _NDIGITS.match(first):
        return "ndigits"
    tokens = first.split()
    if first[:1].isalpha() and len(tokens) <= 3 and len(lines) > 1:  # "Grid 01" headers
        return "grid"
    if len(tokens) > 2 and all(t.isdigit() for t in tokens):
        return "grid"
    # rows of N digits without spaces; N = 16 is left to the line reader (a 4x4 board is 16 cells)
    if len(tokens) == 1 and len(lines) > 1 and len(tokens[0]) in (4, 9, 25) and len(
        lines[1][1].strip()
    ) == len(tokens[0]):
        return "grid"
    return "line"


def read_records(path: str | Path, fmt: str = "auto", strict: bool = False,
                 start_line: int = 1, stop_line: int | None = None) -> Iterator[Record]:
    """Every instance of a file in order, numbered from 1 across the whole file.

    ``fmt`` forces a reader. With ``start_line``/``stop_line`` only the instances that start on
    lines start_line <= line < stop_line are read (a shard); one-line formats skip straight there.
    """
    p = Path(path)
    head = _head(p, 12)
    name = detect_format(p, head) if fmt == "auto" else fmt
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    reader = FORMATS[name]
    base = 0
    if name in LINE_FORMATS and start_line > 1:
        lines: Iterator[tuple[int, str]] = _content_lines(p, start_line)
        base = _count_content_before(p, start_line)
        if name == "csv" and head:
            from satdoku.formats.csvboards import is_header_line

            if is_header_line(head[0][1]):
                lines = itertools.chain([head[0]], lines)
                base -= 1
    else:
        lines = _content_lines(p)
    for index, rec in enumerate(reader(lines, str(path)), base + 1):  # type: ignore[operator]
        if stop_line is not None and rec.line >= stop_line:
            break
        if rec.line < start_line:
            continue
        rec.index = index
        if strict and rec.error:
            raise StrictError(f"{rec.source}:{rec.line}: {rec.error}")
        yield rec


def format_board(board: tuple[int, ...] | list[int], notation: str, side: int,
                 empty: str = ".") -> str:
    """A board written in the notation its input used (one line; grids as integers)."""
    family = format_family_board(board, notation, side)
    if family is not None:
        return family
    if notation == "grid" or side > 35:
        return " ".join(map(str, board))
    text = board_chars(board, empty)
    if notation == "ndigits":
        from math import isqrt

        return f"{isqrt(side)} {text}"
    return text
