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

import re
from collections.abc import Iterable, Iterator

from satdoku.formats.record import Record
from satdoku.puzzle import Puzzle, futoshiki

_SIGN_ROW = re.compile(r"^[\sv^]*[v^][\sv^]*$")
_CELL_TOKEN = re.compile(r"[<>]|[^\s<>]+")


def is_sign_row(text: str) -> bool:
    """True for a line holding only ``v``/``^`` signs (and spaces)."""
    return bool(_SIGN_ROW.match(text))


def has_inequality(text: str) -> bool:
    """True for a cell row with a ``<``/``>`` sign between two cells."""
    return bool(re.search(r"\S\s*[<>]\s*\S", text))


# --- .dat -----------------------------------------------------------------------------------
def _ints(text: str) -> list[int] | None:
    parts = text.split()
    return [int(p) for p in parts] if parts and all(p.isdigit() for p in parts) else None


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
            return None, f"line {lineno}: coordinate outside 1..{d} in {text.strip()!r}"
        r1, c1, r2, c2 = vals
        a, b = (r1 - 1) * d + c1 - 1, (r2 - 1) * d + c2 - 1
        if a == b:
            return None, f"line {lineno}: a cell cannot be smaller than itself"
        pairs.append((a, b))
    return futoshiki(givens, d, pairs), ""


def read_futoshiki_dat(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for the futoshiki_usp ``.dat`` layout (count line, then puzzles)."""
    it = iter(lines)
    first = next(it, None)
    if first is None:
        return
    count = _ints(first[1])
    if count is None or len(count) != 1:
        yield Record(source, first[0], 0, "futoshiki",
                     error=f"expected the number of puzzles, got {first[1].strip()[:40]!r}")
        return
    seen = 0
    for lineno, text in it:
        head = _ints(text)
        if head is None or len(head) != 2 or head[0] < 1:
            yield Record(source, lineno, 0, "futoshiki",
                         error=f"expected 'd r' (order, inequalities), got {text.strip()[:40]!r}; "
                               "the rest of the file cannot be read")
            return
        d, r = head
        body = []
        for _ in range(d + r):
            nxt = next(it, None)
            if nxt is None:
                break
            body.append((nxt[0], _ints(nxt[1]), nxt[1]))
        seen += 1
        if len(body) < d + r:
            yield Record(source, lineno, 0, "futoshiki",
                         error=f"puzzle needs {d} rows and {r} inequalities; file ends early")
            return
        puzzle, reason = _dat_puzzle(d, body[:d], body[d:])
        yield Record(source, lineno, 0, "futoshiki", puzzle=puzzle, error=reason or None,
                     empty="0")
    if seen != count[0]:
        yield Record(source, first[0], 0, "futoshiki",
                     error=f"file announces {count[0]} puzzles but holds {seen}")


def write_futoshiki_dat(puzzles: list[Puzzle]) -> str:
    """Puzzles in the ``.dat`` layout (the inverse of :func:`read_futoshiki_dat`)."""
    out = [str(len(puzzles))]
    for p in puzzles:
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
    return int(tok) if tok.isdigit() else None


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
    """(column index, sign) of each ``v``/``^`` in a sign row, matched to the cell above."""
    out = []
    for i, ch in enumerate(text):
        if ch not in "v^":
            continue
        col = next((k for k, (s, e) in enumerate(spans) if s <= i < e), None)
        if col is None:
            centers = [abs((s + e - 1) / 2 - i) for s, e in spans]
            best = min(range(len(spans)), key=centers.__getitem__)
            if centers[best] > 1.5:
                return [], f"sign {ch!r} at column {i + 1} is under no cell"
            col = best
        out.append((col, ch))
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

    def record(self, source: str) -> Record:
        if self.error:
            return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                          error=self.error)
        n = self.n
        flat = [v for row in self.rows for v in row]
        bad = next((v for v in flat if v > n), None)
        if bad is not None:
            return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                          error=f"value {bad} above {n}")
        return Record(source, self.start, 0, "futoshiki_grid", name=self.name,
                      puzzle=futoshiki(flat, n, self.pairs), empty=".")


def read_futoshiki_grid(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
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
                yield cur.record(source)
                cur = None
            name = stripped
            continue
        if cur is None:
            cur = _GridBuilder(lineno, name)
            name = ""
        cur.add_row(lineno, text)
        if cur.complete:
            yield cur.record(source)
            cur = None
    if cur is not None:
        cur.error = cur.error or f"grid ends after {len(cur.rows)} of {cur.n} rows at end of file"
        yield cur.record(source)
