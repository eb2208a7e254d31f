"""The Format registry: one :class:`Format` record per input format.

A record says how to read the format (a line reader, or a whole-file / directory reader), how
to recognise it (``detect`` and ``priority``), whether its records are one line each (a shard
skips straight to its lines), how a board is written in it and read back (``format_board`` /
``parse_board``: SatSols lines and reports), and how to write puzzles in it (the generator).
``FORMATS``, the one-line formats, auto-detection, the CLI's and the schema's lists of format
names all come from these records: a new format is one module plus one :func:`register` call
(or one entry in :data:`BUILTIN`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import satdoku.formats.cnfset as cnfset
import satdoku.formats.csvboards as csvboards
import satdoku.formats.futoshiki as futoshiki
import satdoku.formats.grid as grid
import satdoku.formats.jsonpuzzle as jsonpuzzle
import satdoku.formats.latin as latin
import satdoku.formats.lines as lines
from satdoku.formats.record import Record
from satdoku.formats.symbols import format_ints, format_symbols, parse_ints, parse_symbols
from satdoku.puzzle import Puzzle
from satdoku.size_limits import SizeLimits
from satdoku.sources import Snapshot

#: (lines as (number, text) pairs, source name, limits) -> records
LineReader = Callable[[Iterable[tuple[int, str]], str, SizeLimits | None], Iterator[Record]]
#: (path, first content lines) -> is this format plausible for the file?
Detector = Callable[[Path, list[tuple[int, str]]], bool]
#: (board, side, empty symbol) -> one line of text
BoardFormatter = Callable[[Sequence[int], int, str], str]
#: (text, side) -> board, or None when the text is not a board of this format
BoardParser = Callable[[str, int], "tuple[int, ...] | None"]
#: puzzles -> the text of a file in this format
Writer = Callable[[Sequence[Puzzle]], str]

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


class FormatError(ValueError):
    """An unknown format name, or a format record that cannot be registered."""


def _no_header(head: list[tuple[int, str]]) -> int:
    return 0


@dataclass(frozen=True)
class Format:
    """One input format.

    Exactly one of ``read`` (content lines -> records) and ``read_file`` (a whole file ->
    records) is set; ``read_dir`` reads a directory as a set (CNF sets). ``detect`` is None for
    a format that is never auto-detected; among the formats whose ``detect`` accepts a file,
    the one whose records cover most of the file's first lines wins, ties by ``priority``.
    ``one_line``: every content line is exactly one record (after ``header_lines(head)``
    header lines that yield none), so a shard reads only its own lines. ``fallback``: a
    single line may be read with this format when another format found it INVALID (record by
    record reading: a line that is a valid puzzle is a puzzle wherever it stands).
    """

    name: str
    description: str
    format_board: BoardFormatter
    parse_board: BoardParser
    read: LineReader | None = None
    read_file: Callable[[Snapshot, SizeLimits | None], Iterator[Record]] | None = None
    read_dir: Callable[[Path, SizeLimits | None], Iterator[Record]] | None = None
    detect: Detector | None = None
    priority: int = 0
    one_line: bool = False
    fallback: bool = False
    header_lines: Callable[[list[tuple[int, str]]], int] = _no_header
    write: Writer | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name) or self.name == "auto":
            raise FormatError(f"bad format name {self.name!r} (lower-case letters, digits, _)")
        if (self.read is None) == (self.read_file is None):
            raise FormatError(f"format {self.name}: set exactly one of read and read_file")
        if self.fallback and self.read is None:
            raise FormatError(f"format {self.name}: a fallback format needs a line reader")


BUILTIN: tuple[Format, ...] = (
    Format("line", "N² cell symbols per line (1-9, A-Z; . 0 - empty), optional name after "
           "TAB/space", format_symbols, parse_symbols, read=lines.read_line_boards,
           detect=lambda path, head: True, priority=0, one_line=True, fallback=True,
           write=lines.write_line_boards),
    Format("ndigits", "'<box order> <n⁴ symbols>' per line", lines.format_ndigits,
           lines.parse_ndigits, read=lines.read_ndigit_lines, detect=lines.looks_like_ndigits,
           priority=30, one_line=True, fallback=True, write=lines.write_ndigit_lines),
    Format("csv", "CSV boards, headerless or with a puzzle (and solution) column",
           format_symbols, parse_symbols, read=csvboards.read_csv_boards,
           detect=csvboards.looks_like_csv, priority=40, one_line=True, fallback=True,
           header_lines=csvboards.header_lines, write=csvboards.write_csv_boards),
    Format("grid", "Sudoku rows of integers (or digits), blank lines between bands, optional "
           "'Grid 01' headers", format_ints, parse_ints, read=grid.read_grids,
           detect=grid.looks_like_grid, priority=20, write=grid.write_grids),
    Format("futoshiki", "futoshiki_usp .dat: count line, then 'd r', d rows, r relations",
           format_ints, parse_ints, read=futoshiki.read_futoshiki_dat,
           detect=futoshiki.looks_like_futoshiki_dat, priority=70,
           write=futoshiki.write_futoshiki_dat),
    Format("futoshiki_grid", "Futoshiki text grids: < > between cells, v ^ rows between rows",
           format_ints, parse_ints, read=futoshiki.read_futoshiki_grid,
           detect=futoshiki.looks_like_futoshiki_grid, priority=60,
           write=futoshiki.write_futoshiki_grid),
    Format("latin", "one list of rows per line (latin_square_qwh), 0 = hole", latin.rows_text,
           latin.parse_rows_text, read=latin.read_latin_lists,
           detect=latin.looks_like_latin_lists, priority=80, one_line=True, fallback=True,
           write=latin.write_latin_lists),
    Format("latin_grid", "Latin squares as integer rows, any order", format_ints, parse_ints,
           read=latin.read_latin_grids, detect=latin.looks_like_latin_grid, priority=50,
           write=latin.write_latin_grids),
    Format("json", "one JSON object per puzzle (any kind; 3-D and custom groups)",
           jsonpuzzle.format_json_board, jsonpuzzle.parse_json_board,
           read=jsonpuzzle.read_json_puzzles, detect=jsonpuzzle.looks_like_json, priority=90,
           fallback=True, write=jsonpuzzle.write_json_puzzles),
    Format("dimacs", "DIMACS CNF: a file, or a directory of *.cnf / *.dimacs (a CNF set)",
           cnfset.format_model, cnfset.parse_model, read_file=cnfset.read_cnf_file,
           read_dir=cnfset.read_cnf_set, detect=cnfset.looks_like_dimacs, priority=100),
)

#: name -> Format, in registration order (the order help texts list them)
FORMATS: dict[str, Format] = {f.name: f for f in BUILTIN}


def register(fmt: Format, replace: bool = False) -> Format:
    """Add a format (``replace`` to redefine one); it is then read, detected and listed like
    the built-in ones."""
    if fmt.name in FORMATS and not replace:
        raise FormatError(f"format {fmt.name!r} is already registered")
    FORMATS[fmt.name] = fmt
    return fmt


def unregister(name: str) -> Format:
    """Remove a registered format (tests register toy formats and remove them again)."""
    return FORMATS.pop(get_format(name).name)


def format_names(auto: bool = False) -> list[str]:
    """The registered format names (with ``auto`` first when asked: the CLI/schema choices)."""
    return (["auto"] if auto else []) + list(FORMATS)


def get_format(name: str) -> Format:
    """The format called ``name``; a FormatError listing the known ones otherwise."""
    fmt = FORMATS.get(name) if isinstance(name, str) else None
    if fmt is None:
        raise FormatError(f"unknown format {name!r}; known: {', '.join(format_names(True))}")
    return fmt


def by_priority() -> list[Format]:
    """Formats in detection order: highest priority first."""
    return sorted(FORMATS.values(), key=lambda f: -f.priority)


class _Names(Sequence[str]):
    """A live, read-only list of the names of the formats satisfying ``test``."""

    def __init__(self, test: Callable[[Format], bool]) -> None:
        self._test = test

    def _names(self) -> tuple[str, ...]:
        return tuple(n for n, f in FORMATS.items() if self._test(f))

    def __getitem__(self, i):  # type: ignore[no-untyped-def,override]
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(self._names())


#: names of the formats whose records are one line each (shards skip to their lines)
LINE_FORMATS: Sequence[str] = _Names(lambda f: f.one_line)
