"""Futoshiki readers and writer: the ``.dat`` file of futoshiki_usp and our text grid.

``.dat`` (wqferr/futoshiki): a first line with the number of puzzles; per puzzle a line ``d r``
(order, number of inequalities), ``d`` rows of ``d`` integers (0 = empty), then ``r`` lines
``r1 c1 r2 c2`` (1-based) meaning cell(r1, c1) < cell(r2, c2). Blank lines are ignored.

Text grid (also what :func:`satdoku.display.render_futoshiki` draws): cell rows with ``<`` or
``>`` between horizontally adjacent cells, and between two cell rows an optional sign row with
``v`` (upper cell greater) or ``^`` (upper cell smaller) under a cell::

    1 < 3   2   4
    ^           v
    2   4 > 1   3

Empty cells are ``.`` or ``0``. A grid ends after as many cell rows as its first row has cells;
a line starting with a letter (other than a sign row) before a grid names it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from math import isqrt
from pathlib import Path

from satdoku.formats.record import Record
from satdoku.formats.symbols import ascii_int, ints_of
from satdoku.puzzle import FUTOSHIKI, LATIN, Puzzle, futoshiki
from satdoku.size_limits import SizeLimits, TooLarge, check_puzzle_size

_SIGN_ROW = re.compile(r"^[\sv^]*[v^][\sv^]*$")
_CELL_TOKEN = re.compile(r"[<>]|[^\s<>]+")


def is_sign_row(text: str) -> bool:
    """True for a line holding only ``v``/``^`` signs (and spaces)."""
    return bool(_SIGN_ROW.match(text))


def has_inequality(text: str) -> bool:
    """True for a cell row with a ``<``/``>`` sign between two cells."""
    return bool(re.search(r"\S\s*[<>]\s*\S", text))


def _size_error(n: int, limits: SizeLimits | None) -> str:
    try:
        check_puzzle_size(n * n, n, limits)
    except TooLarge as exc:
        return str(exc)
    return ""


# --- .dat -----------------------------------------------------------------------------------
def _dat_puzzle(d: int, rows: list[tuple[int, list[int] | None, str]],
                rels: list[tuple[int, list[int] | None, str]]) -> tuple[Puzzle | None, str]:
    givens: list[int] = []
    for lineno, vals, text in rows:
        if vals is None or len(vals) != d:
            return None, f"line {lineno}: expected {d} integers, got {text.strip()[:40]!r}"
        bad = next((v for v in vals if v > d), None)
        if bad is not None:
            return None, f"line {lineno}: value {bad} above {d}"
        givens.extend(vals)
    pairs = []
    for lineno, vals, text in rels:
        if vals is None or len(vals) != 4:
            return None, f"line {lineno}: expected 'r1 c1 r2 c2', got {text.strip()[:40]!r}"
        if not all(1 <= v <= d for v in vals):
            return None, f"line {lineno}: coordinate outside 1..{d} in {text.strip()[:40]!r}"
        r1, c1, r2, c2 = vals
        a, b = (r1 - 1) * d + c1 - 1, (r2 - 1) * d + c2 - 1
        if a == b:
            return None, f"line {lineno}: a cell cannot be smaller than itself"
        pairs.append((a, b))
    return futoshiki(givens, d, pairs), ""


def _head(text: str) -> tuple[int, int] | None:
    vals = ints_of(text)
    return (vals[0], vals[1]) if vals is not None and len(vals) == 2 and vals[0] >= 1 else None


def _plausible_head(items: list[tuple[int, str]], i: int, limits: SizeLimits | None) -> bool:
    """Line i opens a puzzle: ``d r`` followed by d rows of d integers."""
    head = _head(items[i][1])
    if head is None or _size_error(head[0], limits) or i + head[0] >= len(items):
        return False
    d = head[0]
    return all(len(ints_of(items[i + 1 + k][1]) or ()) == d for k in range(d))


def read_futoshiki_dat(lines: Iterable[tuple[int, str]], source: str,
                       limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for the futoshiki_usp ``.dat`` layout (count line, then puzzles).

    A malformed ``d r`` line is one INVALID record; reading resumes at the next line that opens
    a puzzle (``d r`` then d rows of d integers). A count line that disagrees with the puzzles
    found is one INVALID record at that line. A file without a count line is read too."""
    items = list(lines)
    if not items:
        return
    out: list[Record] = []
    count: tuple[int, int] | None = None
    i = 0
    first = ints_of(items[0][1])
    if first is not None and len(first) == 1:
        count, i = (items[0][0], first[0]), 1
    elif _head(items[0][1]) is None:
        out.append(Record(source, items[0][0], 0, "futoshiki", error="expected the number of "
                          f"puzzles, got {items[0][1].strip()[:40]!r}"))
        i = 1
    seen = 0
    while i < len(items):
        lineno, text = items[i]
        head = _head(text)
        why = "" if head is None else _size_error(head[0], limits)
        if head is None or why:
            out.append(Record(source, lineno, 0, "futoshiki", error=why or (
                f"expected 'd r' (order, inequalities), got {text.strip()[:40]!r}")))
            i += 1
            while i < len(items) and not _plausible_head(items, i, limits):
                i += 1
            continue
        seen += 1
        d, r = head
        if i + d + r >= len(items):
            out.append(Record(source, lineno, 0, "futoshiki",
                              error=f"puzzle needs {d} rows and {r} inequalities; file ends early"))
            break
        body = [(n, ints_of(t), t) for n, t in items[i + 1:i + 1 + d + r]]
        puzzle, reason = _dat_puzzle(d, body[:d], body[d:])
        out.append(Record(source, lineno, 0, "futoshiki", puzzle=puzzle, error=reason or None,
                          empty="0"))
        i += 1 + d + r
    if count is not None and count[1] != seen:
        yield Record(source, count[0], 0, "futoshiki",
                     error=f"file announces {count[1]} puzzles but holds {seen}")
    yield from out


def looks_like_futoshiki_dat(path: Path, head: list[tuple[int, str]]) -> bool:
    """A ``.dat`` file, or a count line followed by a ``d r`` line (one stray line before or
    between them allowed)."""
    if path.suffix.lower() == ".dat":
        return True

    def count(k: int) -> bool:
        a = head[k][1].split()
        return len(a) == 1 and len(a[0]) <= 6 and ascii_int(a[0]) is not None

    def order(k: int) -> bool:
        b = head[k][1].split()
        return len(b) == 2 and all(len(x) <= 3 and ascii_int(x) is not None for x in b)

    # the count line, then 'd r'; one stray line before or between them changes nothing
    n = len(head)
    return any(count(k) and any(order(m) for m in range(k + 1, min(k + 3, n)))
               for k in range(min(2, n)))


def write_futoshiki_dat(puzzles: Sequence[Puzzle]) -> str:
    """Puzzles in the ``.dat`` layout (the inverse of :func:`read_futoshiki_dat`)."""
    out = [str(len(puzzles))]
    for p in puzzles:
        if p.kind not in (FUTOSHIKI, LATIN):
            raise ValueError(f"the futoshiki format writes Futoshiki/Latin boards, not "
                             f"{p.layout.key}")
        n = p.size
        out.append(f"{n} {len(p.less_than)}")
        out.extend(" ".join(str(v) for v in p.givens[r * n:(r + 1) * n]) for r in range(n))
        out.extend(f"{a // n + 1} {a % n + 1} {b // n + 1} {b % n + 1}" for a, b in p.less_than)
        out.append("")
    return "\n".join(out)


# --- text grid ------------------------------------------------------------------------------
def _cell_value(tok: str) -> int | None:
    if tok in (".", "0", "-", "_"):
        return 0
    return ascii_int(tok)


def _parse_cell_row(text: str) -> tuple[list[int], list[tuple[int, int]], list[str], str]:
    """(values, token spans, signs between cells, error) of one cell row."""
    values: list[int] = []
    spans: list[tuple[int, int]] = []
    signs: list[str] = []
    pending: str | None = None
    for m in _CELL_TOKEN.finditer(text):
        tok = m.group()
        if tok in "<>":
            if not values or pending is not None:
                return [], [], [], f"sign {tok!r} at column {m.start() + 1} is not between cells"
            pending = tok
            continue
        v = _cell_value(tok)
        if v is None:
            return [], [], [], f"bad cell {tok!r} at column {m.start() + 1}"
        if values:
            signs.append(pending or " ")
        pending = None
        values.append(v)
        spans.append((m.start(), m.end()))
    if pending is not None:
        return [], [], [], "row ends with a sign"
    return values, spans, signs, ""


def _sign_cells(text: str, spans: list[tuple[int, int]]) -> tuple[list[tuple[int, str]], str]:
    """(column index, sign) of each ``v``/``^`` in a sign row, matched to the cell above (the
    cell whose text covers the sign, else the nearest within 1.5 columns)."""
    out = []
    starts = [s for s, _ in spans]
    for i, ch in enumerate(text):
        if ch not in "v^":
            continue
        k = bisect.bisect_right(starts, i) - 1  # the last cell starting at or before i
        if k >= 0 and spans[k][0] <= i < spans[k][1]:
            out.append((k, ch))
            continue
        near = [j for j in (k, k + 1) if 0 <= j < len(spans)]
        dist = {j: abs((spans[j][0] + spans[j][1] - 1) / 2 - i) for j in near}
        best = min(near, key=dist.__getitem__, default=None)
        if best is None or dist[best] > 1.5:
            return [], f"sign {ch!r} at column {i + 1} is under no cell"
        out.append((best, ch))
    return out, ""


class _GridBuilder:
    """Accumulates the rows and signs of one text-grid puzzle."""

    def __init__(self, start: int, name: str) -> None:
        self.start, self.name = start, name
        self.rows: list[list[int]] = []
        self.spans: list[tuple[int, int]] = []
        self.pairs: list[tuple[int, int]] = []
        self.pending: list[tuple[int, str]] = []  # vertical signs awaiting the next row
        self.error = ""

    @property
    def n(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def add_row(self, lineno: int, text: str) -> None:
        values, spans, signs, err = _parse_cell_row(text)
        if err:
            self.error = self.error or f"line {lineno}: {err}"
            ntok = sum(1 for t in _CELL_TOKEN.findall(text) if t not in "<>")
            values = [0] * (self.n or max(ntok, 1))  # keep the grid's shape to resync
        if self.rows and len(values) != self.n and not self.error:
            self.error = f"line {lineno}: {len(values)} cells, expected {self.n}"
        r = len(self.rows)
        n = self.n or len(values)
        for col, ch in self.pending:
            above, below = (r - 1) * n + col, r * n + col
            self.pairs.append((below, above) if ch == "v" else (above, below))
        self.pending = []
        for c, s in enumerate(signs):
            left, right = r * n + c, r * n + c + 1
            if s == "<":
                self.pairs.append((left, right))
            elif s == ">":
                self.pairs.append((right, left))
        self.rows.append(values)
        self.spans = spans or self.spans

    def add_signs(self, lineno: int, text: str) -> None:
        if not self.rows:
            self.error = self.error or f"line {lineno}: sign row before the first cell row"
            return
        if self.pending:
            self.error = self.error or f"line {lineno}: two sign rows in a row"
        found, err = _sign_cells(text, self.spans)
        if err:
            self.error = self.error or f"line {lineno}: {err}"
        self.pending = found

    @property
    def complete(self) -> bool:
        return bool(self.rows) and len(self.rows) >= self.n

    def record(self, source: str, limits: SizeLimits | None = None) -> Record:
        n = self.n
        self.error = self.error or _size_error(n, limits)
        if self.error:
            return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                          error=self.error)
        flat = [v for row in self.rows for v in row]
        bad = next((v for v in flat if v > n), None)
        if bad is not None:
            return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                          error=f"value {bad} above {n}")
        return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                      puzzle=futoshiki(flat, n, self.pairs), empty=".")


def read_futoshiki_grid(lines: Iterable[tuple[int, str]], source: str,
                        limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for Futoshiki text grids (``<``/``>`` in rows, ``v``/``^`` rows between)."""
    cur: _GridBuilder | None = None
    name = ""
    for lineno, raw in lines:
        text = raw.rstrip()
        stripped = text.strip()
        if not stripped:
            continue
        if is_sign_row(text):
            if cur is None:
                yield Record(source, lineno, 0, "futoshiki_grid",
                             error="sign row before the first cell row")
                continue
            cur.add_signs(lineno, text)
            continue
        if stripped[0].isalpha():
            if cur is not None:
                cur.error = cur.error or f"grid ends after {len(cur.rows)} rows (line {lineno})"
                yield cur.record(source, limits)
                cur = None
            name = stripped[:200]
            continue
        if cur is None:
            cur = _GridBuilder(lineno, name)
            name = ""
        cur.add_row(lineno, text)
        if cur.complete:
            yield cur.record(source, limits)
            cur = None
    if cur is not None:
        cur.error = cur.error or f"grid ends after {len(cur.rows)} of {cur.n} rows at end of file"
        yield cur.record(source, limits)


def looks_like_futoshiki_grid(path: Path, head: list[tuple[int, str]]) -> bool:
    """A file with a sign row or a ``<``/``>`` between two cells, or a row of integers and
    ``.`` holes (this notation's empty cell) whose length is not a square: a Futoshiki drawn
    without relations (a square length is a Sudoku grid's)."""
    return any(is_sign_row(t) or has_inequality(t) or _dotted_latin_row(t) for _, t in head)


def _dotted_latin_row(text: str) -> bool:
    words = text.split()
    return ("." in words and len(words) > 2 and isqrt(len(words)) ** 2 != len(words)
            and all(w == "." or ascii_int(w) is not None for w in words))


def grid_lines(puzzle: Puzzle, board: Sequence[int] | None = None, indent: str = ""
               ) -> tuple[list[str], list[tuple[int, int]]]:
    """A 2-D board with its ``<`` relations drawn in place (the futoshiki grid notation): a
    relation between horizontal neighbours is ``<``/``>`` between them, between vertical
    neighbours a sign row holds ``^`` (upper cell smaller) or ``v`` (upper cell greater) under
    the upper cell; empty cells are ``.``. Returns (lines, relations that join cells which are
    not neighbours, which the notation cannot draw)."""
    b = puzzle.givens if board is None else board
    rows_n, cols_n = puzzle.layout.shape[0], puzzle.layout.shape[1]
    w = len(str(puzzle.domain))
    horiz: dict[int, str] = {}  # left cell -> sign to its right
    vert: dict[int, str] = {}  # upper cell -> sign below it
    other: list[tuple[int, int]] = []
    for a, c in puzzle.less_than:
        lo, hi = min(a, c), max(a, c)
        if hi == lo + 1 and lo // cols_n == hi // cols_n:
            horiz[lo] = "<" if a == lo else ">"
        elif hi == lo + cols_n:
            vert[lo] = "^" if a == lo else "v"
        else:
            other.append((a, c))
    lines = []
    for r in range(rows_n):
        cells = [(str(v) if v else ".").rjust(w) for v in b[r * cols_n:(r + 1) * cols_n]]
        lines.append(indent + "".join(
            cell + (f" {horiz.get(r * cols_n + c, ' ')} " if c + 1 < cols_n else "")
            for c, cell in enumerate(cells)).rstrip())
        signs = "".join(" " * (w - 1) + vert.get(r * cols_n + c, " ") + "   "
                        for c in range(cols_n))
        if r + 1 < rows_n and signs.strip():
            lines.append(indent + signs.rstrip())
    return lines, other


def write_futoshiki_grid(puzzles: Sequence[Puzzle]) -> str:
    """Futoshiki/Latin puzzles as text grids, a blank line after each (the inverse of
    :func:`read_futoshiki_grid`); every relation must join neighbouring cells."""
    out: list[str] = []
    for p in puzzles:
        if p.kind not in (FUTOSHIKI, LATIN):
            raise ValueError(f"the futoshiki_grid format writes Futoshiki/Latin boards, not "
                             f"{p.layout.key}")
        lines, other = grid_lines(p)
        if other:
            a, b = other[0]
            raise ValueError(f"relation {p.cell_name(a)} < {p.cell_name(b)} joins cells "
                             "that are not neighbours: the futoshiki format can write it")
        out.extend(lines)
        out.append("")
    return "\n".join(out) + ("\n" if out else "")

