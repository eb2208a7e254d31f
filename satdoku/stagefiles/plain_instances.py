"""Normalize's fast path: the Instances objects of a plain one-line Sudoku file made straight
from its text, without building a puzzle per line.

It applies to files read in the ``line`` notation and to CSV files under a header naming the
puzzle column (and optionally the solution column). A line is *plain* when the general reader
would read it as a valid Sudoku and nothing else: its board is exactly n⁴ symbols of its domain
(``1``-``9``, letters, ``.``/``0``/``-`` for empty; 4x4 to 25x25) with no name, no surrounding
space and, in a CSV file, no quote, and its solution cell (if the header names one) is empty or
a full board of the same size. A plain line's object is the general one's with its own id, line,
empty symbol, givens (canonical symbols), instance hash (:class:`satdoku.identity.LayoutHash`)
and solution: the object of the layout's first plain line, made by the general
:func:`satdoku.stagefiles.instances.record_to_dict`, is the template. Every other line, and
every run of them, is read by the general reader (:func:`satdoku.formats.read_records` on those
lines, numbered as in a whole-file read), so a bad board, a name, a line that is not text or a
size limit gives exactly the general path's record.

The general path (normalize with ``plain=False``) is the readable reference: tests check that
both write the same bytes, and the differential fuzzer's ``plain_instances`` target compares
them on generated files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from satdoku.formats import Record, read_records
from satdoku.formats.csvboards import header_of
from satdoku.formats.format_registry import get_format
from satdoku.formats.reading import HEAD_LINES, detect_format
from satdoku.formats.symbols import EMPTY_CHARS, char_value, domain_symbols
from satdoku.identity import LayoutHash
from satdoku.puzzle import sudoku
from satdoku.size_limits import SizeLimits, TooLarge, check_puzzle_size, default_size_limits
from satdoku.sources import Snapshot
from satdoku.stagefiles.instances import record_to_dict

#: box orders with one-character symbols (4x4 .. 25x25)
BOXES = (2, 3, 4, 5)
#: a CSV line longer than this goes the general way (the csv module limits a field to 131,072)
MAX_CSV_LINE = 100_000
_EMPTY = re.compile("[" + re.escape(EMPTY_CHARS) + "]")


class _Layout:
    """What a plain board of one box order is made of: its symbols, and the texts of its
    givens, its hash and its solution made from a board's symbols."""

    def __init__(self, box: int) -> None:
        side = box * box
        self.box, self.ncells = box, side * side
        symbols = domain_symbols(side)
        values = "".join(ch for ch in symbols if ch not in EMPTY_CHARS)
        self.board = re.compile(f"[{re.escape(symbols)}]{{{self.ncells}}}")
        self.full = re.compile(f"[{re.escape(values)}]{{{self.ncells}}}")
        #: a symbol -> its canonical form (upper case; every empty symbol ``.``)
        self.canonical = str.maketrans({**{ch: ch.upper() for ch in values if ch.islower()},
                                        **{e: "." for e in EMPTY_CHARS}})
        #: a symbol -> its value as puzzle_text writes it (empty ``0``)
        self.value_text = {ch: str(char_value(ch)) for ch in symbols}
        self.digits = str.maketrans({e: "0" for e in EMPTY_CHARS}) if side <= 9 else None
        self.hash = LayoutHash(sudoku((0,) * self.ncells, box))

    def values_text(self, board: str) -> str:
        """The givens line of :func:`satdoku.identity.puzzle_text` for a plain board."""
        if self.digits is not None:
            return " ".join(board.translate(self.digits))
        return " ".join(map(self.value_text.__getitem__, board))


@dataclass
class _Plain:
    """A plain line as the fast path reads it."""

    board: str
    layout: _Layout
    empty: str
    solution: str | None


class _Reader:
    """Judges each line of one file, in its notation, plain or not."""

    def __init__(self, notation: str, puzzle_col: int, solution_col: int | None,
                 limits: SizeLimits) -> None:
        self.notation, self.puzzle_col, self.solution_col = notation, puzzle_col, solution_col
        self.layouts: dict[int, _Layout] = {}
        for box in BOXES:
            side = box * box
            try:
                check_puzzle_size(side * side, side, limits)
            except TooLarge:
                continue  # the general reader says why
            self.layouts[side * side] = _Layout(box)

    def plain(self, line: str) -> _Plain | None:
        if self.notation == "line":
            layout = self.layouts.get(len(line))
            if layout is None or not layout.board.fullmatch(line):
                return None
            m = _EMPTY.search(line)
            return _Plain(line, layout, m.group() if m else ".", None)
        if '"' in line or "\0" in line or len(line) > MAX_CSV_LINE:
            return None
        fields = line.split(",")
        if len(fields) <= self.puzzle_col:
            return None
        board = fields[self.puzzle_col]
        layout = self.layouts.get(len(board))
        if layout is None or not layout.board.fullmatch(board):
            return None
        solution = None
        col = self.solution_col
        if col is not None and col < len(fields) and fields[col]:
            solution = fields[col]
            if not layout.full.fullmatch(solution):
                return None
        return _Plain(board, layout, "0", solution)


def _reader(snap: Snapshot, fmt: str, limits: SizeLimits) -> tuple[_Reader, int] | None:
    """The line judge of a file in ``fmt`` and its number of header lines (None: not a
    notation the fast path knows)."""
    head = snap.head(HEAD_LINES)
    if fmt == "line":
        return _Reader("line", 0, None, limits), get_format("line").header_lines(head)
    if fmt != "csv" or not head:
        return None
    columns = header_of(head[0][1])
    if columns is None:
        return None  # headerless CSV: names and solutions are told apart per line
    return _Reader("csv", *columns, limits), 1


def plain_shard(snap: Snapshot, fmt: str, start: int, stop: int | None, strict: bool = False,
                limits: SizeLimits | None = None) -> Iterator[Record | dict[str, Any]] | None:
    """The instances of ``snap`` starting on lines ``start <= line < stop``, in order, as the
    general reader numbers them: a plain line's Instances object, any other line's
    :class:`Record` from the general reader. None when the file's format (``fmt``, or the one
    detected for ``auto``) is not one the fast path knows; then read it the general way."""
    lim = limits or default_size_limits()
    if fmt == "auto":
        fmt = detect_format(snap.source, snap.text_head(HEAD_LINES))
    found = _reader(snap, fmt, lim)
    if found is None:
        return None
    return _objects(snap, fmt, found[0], found[1], start, stop, strict, lim)


def _objects(snap: Snapshot, fmt: str, reader: _Reader, headers: int, start: int,
             stop: int | None, strict: bool, limits: SizeLimits
             ) -> Iterator[Record | dict[str, Any]]:
    first_body = snap.content_linenos[headers] if len(snap.content_linenos) > headers else 0
    begin = max(start, first_body)
    lines = snap.content_lines(begin, stop)
    first_index = snap.count_content_before(begin) - headers + 1  # ids count content lines
    templates: dict[tuple[int, bool], dict[str, Any]] = {}
    pending: int | None = None  # first line of a run of lines that are not plain
    for index, (lineno, line) in enumerate(lines, first_index):
        item = reader.plain(line)
        if item is None:
            if pending is None:
                pending = lineno
            continue
        if pending is not None:
            yield from read_records(snap.source, fmt, strict, pending, lineno, snapshot=snap,
                                    limits=limits)
            pending = None
        layout = item.layout
        key = (layout.box, item.solution is not None)
        template = templates.get(key)
        if template is None:  # the layout's first plain line: made the general way
            rec = next(read_records(snap.source, fmt, strict, lineno, lineno + 1,
                                    snapshot=snap, limits=limits))
            templates[key] = record_to_dict(rec)
            yield rec
            continue
        obj = template.copy()
        obj["id"], obj["line"], obj["empty"] = str(index), lineno, item.empty
        obj["instance_hash"] = layout.hash(layout.values_text(item.board))
        obj["givens"] = item.board.translate(layout.canonical)
        if item.solution is not None:
            obj["solution"] = item.solution.upper()
        yield obj
    if pending is not None:
        yield from read_records(snap.source, fmt, strict, pending, stop, snapshot=snap,
                                limits=limits)
