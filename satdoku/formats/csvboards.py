"""CSV boards: headerless (one board per line, as the LTN datasets) or with a header naming a
puzzle column (``puzzle``/``quizzes``...) and optionally a solution column, which becomes an
extra check of our answers."""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable, Iterator

from satdoku.formats.lines import sudoku_from_symbols
from satdoku.formats.record import Record
from satdoku.formats.symbols import parse_board_chars

PUZZLE_COLUMNS = ("puzzle", "puzzles", "quizzes", "quiz", "board", "sudoku", "grid")
SOLUTION_COLUMNS = ("solution", "solutions")


def _board_text(fields: list[str]) -> str:
    """A board given as one field of symbols, or as one numeric field per cell."""
    if len(fields) == 1:
        return fields[0].strip()
    vals = [f.strip() for f in fields]
    if all(v.isdigit() and int(v) < 36 for v in vals):
        return "".join("." if v == "0" else "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[int(v) - 1]
                       for v in vals)
    return ",".join(vals)  # not a board: the symbol check will name the bad character


def is_header(fields: list[str]) -> bool:
    return any(f.strip().lower() in PUZZLE_COLUMNS for f in fields)


def is_header_line(text: str) -> bool:
    return is_header(next(csv.reader([text])))


def read_csv_boards(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for CSV files; ``lines`` are the non-blank, non-comment (lineno, text) pairs."""
    it = iter(lines)
    first_line = next(it, None)
    if first_line is None:
        return
    first = next(csv.reader([first_line[1]]))
    puzzle_col = solution_col = None
    body: Iterable[tuple[int, str]] = itertools.chain([first_line], it)
    if is_header(first):
        names = [f.strip().lower() for f in first]
        puzzle_col = next(i for i, n in enumerate(names) if n in PUZZLE_COLUMNS)
        solution_col = next((i for i, n in enumerate(names) if n in SOLUTION_COLUMNS), None)
        body = it
    for lineno, raw in body:
        fields = next(csv.reader([raw]))
        if puzzle_col is not None:
            if len(fields) <= puzzle_col:
                yield Record(source, lineno, 0, "csv", error=f"missing column {puzzle_col + 1}")
                continue
            text = fields[puzzle_col].strip()
        else:
            text = _board_text(fields)
        puzzle, reason = sudoku_from_symbols(text)
        rec = Record(source, lineno, 0, "csv", puzzle=puzzle, error=reason or None,  # type: ignore[arg-type]
                     empty="0")
        if puzzle is not None and solution_col is not None and len(fields) > solution_col:
            sol, why = parse_board_chars(fields[solution_col].strip(), puzzle.domain)  # type: ignore[attr-defined]
            if sol is None or len(sol) != puzzle.ncells:  # type: ignore[attr-defined]
                rec.puzzle, rec.error = None, f"bad solution column: {why or 'wrong length'}"
            else:
                rec.solution = sol
        yield rec
