"""One puzzle per line: N² cell symbols, optionally followed by TAB/space and a free-text name.

Also the ``n digits`` form: ``<box order> <n⁴ symbols>`` (e.g. ``2 0240100340020130``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from satdoku.formats.record import Record
from satdoku.formats.symbols import EMPTY_CHARS, parse_board_chars
from satdoku.puzzle import box_order_for, sudoku

_NDIGITS = re.compile(r"^(\d+)\s+(\S+)\s*$")


def sudoku_from_symbols(text: str, box: int | None = None) -> tuple[object, str]:
    """(Puzzle, '') from a string of cell symbols, or (None, reason)."""
    ncells = len(text)
    side = box_order_for(ncells)
    order = box_order_for(side) if side else None
    if order is None or order < 2:
        return None, f"{ncells} cells is not a Sudoku size (n^4: 16, 81, 256, 625, ...)"
    if box is not None and box != order:
        return None, f"box order {box} announced but {ncells} cells means order {order}"
    values, reason = parse_board_chars(text, order * order)
    if values is None:
        return None, reason
    return sudoku(values, order), ""


def _empty_char(text: str) -> str:
    return next((ch for ch in text if ch in EMPTY_CHARS), ".")


def read_line_boards(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for N²-symbol lines with an optional name after TAB or space."""
    for lineno, raw in lines:
        text = raw.strip()
        board, _, name = text.partition("\t") if "\t" in text else text.partition(" ")
        puzzle, reason = sudoku_from_symbols(board)
        yield Record(
            source, lineno, 0, "line", puzzle=puzzle, error=reason or None,  # type: ignore[arg-type]
            name=name.strip(), empty=_empty_char(board),
        )


def read_ndigit_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for ``<n> <n⁴ symbols>`` lines (n = box order)."""
    for lineno, raw in lines:
        m = _NDIGITS.match(raw.strip())
        if not m:
            yield Record(source, lineno, 0, "ndigits", error="expected '<n> <n^4 digits>'")
            continue
        box = int(m.group(1))
        board = m.group(2)
        if len(board) != box**4:
            yield Record(
                source, lineno, 0, "ndigits",
                error=f"order {box} needs {box**4} digits, line has {len(board)}",
            )
            continue
        puzzle, reason = sudoku_from_symbols(board, box)
        yield Record(
            source, lineno, 0, "ndigits", puzzle=puzzle, error=reason or None,  # type: ignore[arg-type]
            empty=_empty_char(board),
        )
