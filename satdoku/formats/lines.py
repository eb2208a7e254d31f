"""One puzzle per line: N² cell symbols, optionally followed by TAB/space and a free-text name.

Also the ``n digits`` form: ``<box order> <n⁴ symbols>`` (e.g. ``2 0240100340020130``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from math import isqrt
from pathlib import Path

from satdoku.formats.record import Record
from satdoku.formats.symbols import (
    ALPHABET,
    EMPTY_CHARS,
    ascii_int,
    board_chars,
    char_value,
    format_symbols,
    ints_text,
    parse_board_chars,
    parse_ints,
)
from satdoku.puzzle import SUDOKU, Puzzle, box_order_for, sudoku
from satdoku.size_limits import SizeLimits, TooLarge, check_puzzle_size

_NDIGITS = re.compile(r"^(\d+)\s+(\S+)\s*$", re.ASCII)
_NDIGITS_LINE = re.compile(r"^\d+\s+[0-9A-Za-z.\-]{16,}\s*$", re.ASCII)
#: longest name kept from a line (the rest of a line of junk is not worth carrying around)
MAX_NAME = 200


def sudoku_from_symbols(text: str, box: int | None = None,
                        limits: SizeLimits | None = None) -> tuple[Puzzle | None, str]:
    """(Puzzle, '') from a string of cell symbols, or (None, reason)."""
    ncells = len(text)
    side = box_order_for(ncells)
    order = box_order_for(side) if side else None
    if order is None or order < 2:
        return None, f"{ncells} cells is not a Sudoku size (n^4: 16, 81, 256, 625, ...)"
    if box is not None and box != order:
        return None, f"box order {box} announced but {ncells} cells means order {order}"
    try:
        check_puzzle_size(ncells, order * order, limits)
    except TooLarge as exc:
        return None, str(exc)
    values, reason = parse_board_chars(text, order * order)
    if values is None:
        return None, reason
    return sudoku(values, order), ""


def empty_char(text: str) -> str:
    """The empty-cell symbol a board uses (``.`` when it has no empty cell)."""
    return next((ch for ch in text if ch in EMPTY_CHARS), ".")


def split_name(text: str) -> tuple[str, str]:
    """(board, name) of a line: the name follows the board after any whitespace (a TAB, a
    space, a no-break space)."""
    parts = text.split(None, 1)
    board = parts[0] if parts else ""
    name = parts[1].strip() if len(parts) > 1 else ""
    return board, name if len(name) <= MAX_NAME else name[:MAX_NAME] + "..."


def read_line_boards(lines: Iterable[tuple[int, str]], source: str,
                     limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for N²-symbol lines with an optional name after TAB or space."""
    for lineno, raw in lines:
        text = raw.strip()
        board, name = split_name(text)
        puzzle, reason = sudoku_from_symbols(board, limits=limits)
        if puzzle is None and box_order_for(box_order_for(len(board)) or 0) is None and (
                name or any(char_value(ch) is None for ch in board)):  # a title, a header
            reason, name = f"not a puzzle line: {text[:50]!r}", ""
        yield Record(source, lineno, 0, "line", puzzle=puzzle, error=reason or None, name=name,
                     empty=empty_char(board))


def read_ndigit_lines(lines: Iterable[tuple[int, str]], source: str,
                      limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for ``<n> <n⁴ symbols>`` lines (n = box order)."""
    for lineno, raw in lines:
        m = _NDIGITS.match(raw.strip())
        if not m:
            yield Record(source, lineno, 0, "ndigits",
                         error=f"expected '<n> <n^4 digits>', got {raw.strip()[:40]!r}")
            continue
        box = ascii_int(m.group(1)) or 0
        board = m.group(2)
        if box < 2 or box**4 != len(board):
            need = f"{box**4} digits" if box < 100 else "more digits than any file holds"
            order = m.group(1) if len(m.group(1)) <= 40 else m.group(1)[:37] + "..."
            yield Record(source, lineno, 0, "ndigits",  # the order as the file writes it
                         error=f"order {order} needs {need}, line has {len(board)}")
            continue
        puzzle, reason = sudoku_from_symbols(board, box, limits)
        yield Record(source, lineno, 0, "ndigits", puzzle=puzzle, error=reason or None,
                     empty=empty_char(board))


def looks_like_ndigits(path: Path, head: list[tuple[int, str]]) -> bool:
    """A file with a ``<n> <symbols>`` line."""
    return any(_NDIGITS_LINE.match(text.strip()) for _, text in head)


# --- writing --------------------------------------------------------------------------------
def format_ndigits(board: Sequence[int], side: int, empty: str = ".") -> str:
    """A board as ``<box order> <symbols>`` (integers when values above 35 may occur)."""
    if side > len(ALPHABET):
        return ints_text(board)
    return f"{isqrt(side)} {board_chars(board, empty)}"


def parse_ndigits(text: str, side: int) -> tuple[int, ...] | None:
    """Inverse of :func:`format_ndigits` (None for anything else)."""
    if side > len(ALPHABET):
        return parse_ints(text)
    parts = text.split()
    if len(parts) != 2 or ascii_int(parts[0]) != isqrt(side):
        return None
    values, _ = parse_board_chars(parts[1], side)
    return values


def _sudoku_boards(puzzles: Sequence[Puzzle], notation: str) -> list[Puzzle]:
    for p in puzzles:
        if p.kind != SUDOKU or p.domain > len(ALPHABET):
            raise ValueError(f"the {notation} format writes Sudoku boards of at most 35 values, "
                             f"not {p.layout.key} (use grid or json)")
    return list(puzzles)


def write_line_boards(puzzles: Sequence[Puzzle]) -> str:
    """Sudoku puzzles as one line of symbols each (the inverse of :func:`read_line_boards`)."""
    return "".join(format_symbols(p.givens, p.size) + "\n"
                   for p in _sudoku_boards(puzzles, "line"))


def write_ndigit_lines(puzzles: Sequence[Puzzle]) -> str:
    """Sudoku puzzles as ``<n> <symbols>`` lines (the inverse of :func:`read_ndigit_lines`)."""
    return "".join(format_ndigits(p.givens, p.size, "0") + "\n"
                   for p in _sudoku_boards(puzzles, "ndigits"))
