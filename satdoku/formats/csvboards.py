"""CSV boards: headerless (one board per line, as the LTN datasets) or with a header naming a
puzzle column (``puzzle``/``quizzes``...) and optionally a solution column, which becomes an
extra check of our answers (an empty solution cell: no solution given; columns beyond the
named ones are ignored; a solution cell that is not a board makes the row INVALID, naming
the column).

Headerless lines hold a board as one field of symbols, or one numeric field per cell; a board
field followed by other fields takes the next field as its solution when it solves the puzzle,
else the other fields as its name (``<81 symbols>,puzzle 1``).
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from satdoku.formats.lines import MAX_NAME, sudoku_from_symbols, write_line_boards
from satdoku.formats.record import Record
from satdoku.formats.symbols import ALPHABET, ascii_int, parse_board_chars
from satdoku.puzzle import Puzzle
from satdoku.size_limits import SizeLimits

PUZZLE_COLUMNS = ("puzzle", "puzzles", "quizzes", "quiz", "board", "sudoku", "grid")
SOLUTION_COLUMNS = ("solution", "solutions")


def _fields(text: str) -> list[str] | None:
    """The fields of one CSV line, None when the csv module refuses it (NUL bytes, a field
    over its size limit)."""
    try:
        return next(csv.reader([text]), [])
    except csv.Error:
        return None


def _cells_text(fields: list[str]) -> str | None:
    """One numeric field per cell as a string of symbols, None when the fields are not that."""
    values = [ascii_int(f.strip()) for f in fields]
    if None in values or max(values) > len(ALPHABET):  # type: ignore[type-var]
        return None
    return "".join(ALPHABET[v - 1] if v else "." for v in values)  # type: ignore[index]


def is_header(fields: list[str]) -> bool:
    return any(f.strip().lower() in PUZZLE_COLUMNS for f in fields)


def is_header_line(text: str) -> bool:
    fields = _fields(text)
    return fields is not None and is_header(fields)


def header_columns(fields: list[str]) -> tuple[int, int | None]:
    """(puzzle column, solution column or None) a header line names (0-based; the first
    column with a puzzle name, the first with a solution name)."""
    names = [f.strip().lower() for f in fields]
    puzzle_col = next(i for i, n in enumerate(names) if n in PUZZLE_COLUMNS)
    return puzzle_col, next((i for i, n in enumerate(names) if n in SOLUTION_COLUMNS), None)


def header_of(text: str) -> tuple[int, int | None] | None:
    """(puzzle column, solution column or None) of a header line, None for a line that is no
    header."""
    fields = _fields(text)
    return header_columns(fields) if fields is not None and is_header(fields) else None


def header_lines(head: list[tuple[int, str]]) -> int:
    """1 when the file starts with a header line (it yields no record), else 0."""
    return int(bool(head) and is_header_line(head[0][1]))


def _headerless(fields: list[str], source: str, lineno: int, limits: SizeLimits | None) -> Record:
    cells = _cells_text(fields) if len(fields) > 1 else None
    text = cells if cells is not None else fields[0].strip() if fields else ""
    puzzle, reason = sudoku_from_symbols(text, limits=limits)
    rec = Record(source, lineno, 0, "csv", puzzle=puzzle, error=reason or None, empty="0")
    if puzzle is None or cells is not None or len(fields) < 2:
        return rec
    sol, _ = parse_board_chars(fields[1].strip(), puzzle.domain)
    if sol is not None and len(sol) == puzzle.ncells and not puzzle.check_solution(sol):
        rec.solution = sol
        rest = fields[2:]
    else:
        rest = fields[1:]
    name = ",".join(rest).strip()
    rec.name = name if len(name) <= MAX_NAME else name[:MAX_NAME] + "..."
    return rec


def read_csv_boards(lines: Iterable[tuple[int, str]], source: str,
                    limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for CSV files; ``lines`` are the non-blank, non-comment (lineno, text) pairs."""
    it = iter(lines)
    first_line = next(it, None)
    if first_line is None:
        return
    first = _fields(first_line[1])
    puzzle_col = solution_col = None
    body: Iterable[tuple[int, str]] = itertools.chain([first_line], it)
    if first is not None and is_header(first):
        puzzle_col, solution_col = header_columns(first)
        body = it
    for lineno, raw in body:
        fields = _fields(raw)
        if fields is None:
            yield Record(source, lineno, 0, "csv", error="not a CSV line (NUL byte or a field "
                                                         "longer than the csv module allows)")
            continue
        if puzzle_col is None:
            yield _headerless(fields, source, lineno, limits)
            continue
        if len(fields) <= puzzle_col:
            yield Record(source, lineno, 0, "csv", error=f"missing column {puzzle_col + 1}")
            continue
        puzzle, reason = sudoku_from_symbols(fields[puzzle_col].strip(), limits=limits)
        rec = Record(source, lineno, 0, "csv", puzzle=puzzle, error=reason or None, empty="0")
        given = fields[solution_col].strip() if solution_col is not None and len(
            fields) > solution_col else ""
        if puzzle is not None and given:  # an empty or missing solution cell: none given
            sol, why = parse_board_chars(given, puzzle.domain)
            if sol is None or len(sol) != puzzle.ncells:
                rec.puzzle, rec.error = None, f"bad solution column: {why or 'wrong length'}"
            else:
                rec.solution = sol
        yield rec


def looks_like_csv(path: Path, head: list[tuple[int, str]]) -> bool:
    """A ``.csv`` file, one with a comma in its first lines, or one starting with a header
    naming a puzzle column (the reader decides the rest)."""
    return (path.suffix.lower() == ".csv" or any("," in text for _, text in head)
            or bool(header_lines(head)))


def write_csv_boards(puzzles: Sequence[Puzzle]) -> str:
    """Sudoku puzzles under a ``puzzle`` header, one board per line."""
    return "puzzle\n" + write_line_boards(puzzles)
