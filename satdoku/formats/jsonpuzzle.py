"""The JSON format: one puzzle object per line (JSON Lines; an object may span several lines).

Any family can be written this way; it is the only format for 3-D Sudoku and custom groups.
Coordinates are 0-based; ``givens`` is a flat row-major list (nested lists are flattened) or a
string of cell symbols, 0 / ``.`` = empty. Fields by ``kind``:

- ``sudoku3d``: ``order`` n (cube side n²), optional ``domain`` (default n², the original used
  n³), ``givens`` (or ``fixed``: ``[[l, r, c, v], ...]``), optional ``cube_boxes``
  (``[l, r, c]`` corners of n×n×n boxes, or ``{"corner": [l, r, c], "size": [sl, sr, sc]}``),
  ``path_boxes`` (``{"start": [l, r, c], "end": [l, r, c], "order": "asc"|"desc"}``, order
  optional), ``generic_boxes`` (each ``[[l, r, c, v], ...]``, v = 0 free) and — as written by
  the pipeline — ``groups`` (already expanded cell lists) and ``less_than`` (cell pairs);
- ``custom``: ``shape`` (e.g. ``[6, 6]``), ``domain``, ``groups`` (lists of cells as indices or
  coordinates), optional ``givens`` and ``less_than`` (pairs of cells);
- ``sudoku`` (``box``), ``latin`` / ``futoshiki`` (``size``, ``less_than``): as in the
  Instances stage file.

An optional ``name`` names the instance; ``solution`` (same form as ``givens``) is an extra check.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from satdoku.formats.record import Record
from satdoku.formats.symbols import ALPHABET, parse_board_chars
from satdoku.puzzle import (
    CUSTOM,
    FUTOSHIKI,
    LATIN,
    SUDOKU,
    SUDOKU3D,
    Puzzle,
    custom,
    custom_layout,
    futoshiki,
    latin,
    sudoku,
    sudoku3d,
    sudoku3d_layout,
)


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for v in value for x in _flatten(v)]
    return [value]


def board_in(value: Any, domain: int, ncells: int | None = None) -> tuple[int, ...]:
    """A board from a symbol string or (nested) list of ints; ValueError names the problem."""
    if isinstance(value, str):
        board, reason = parse_board_chars(value, domain)
        if board is None:
            raise ValueError(reason)
    else:
        flat = _flatten(value)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
            raise ValueError("givens must be integers")
        bad = next((v for v in flat if not 0 <= v <= domain), None)
        if bad is not None:
            raise ValueError(f"value {bad} outside 0..{domain}")
        board = tuple(flat)
    if ncells is not None and len(board) != ncells:
        raise ValueError(f"{len(board)} givens for {ncells} cells")
    return board


def board_out(board: tuple[int, ...], domain: int) -> str | list[int]:
    """A board as a symbol string when the domain allows, else a list of ints."""
    if domain <= len(ALPHABET):
        return "".join(ALPHABET[v - 1] if v else "." for v in board)
    return list(board)


def _coord(x: Any, what: str) -> tuple[int, int, int]:
    if not (isinstance(x, list) and len(x) == 3 and all(isinstance(v, int) for v in x)):
        raise ValueError(f"{what}: expected [l, r, c], got {x!r}")
    return (x[0], x[1], x[2])


def _sudoku3d(d: dict[str, Any]) -> Puzzle:
    order = int(d["order"])
    domain = int(d["domain"]) if d.get("domain") is not None else None
    layout = sudoku3d_layout(order, domain)
    givens = list(board_in(d.get("givens", [0] * layout.ncells), layout.domain, layout.ncells))
    n = layout.shape[0]
    for item in d.get("fixed", []):
        if not (isinstance(item, list) and len(item) == 4):
            raise ValueError(f"fixed: expected [l, r, c, v], got {item!r}")
        la, r, c, v = item
        cell = (la * n + r) * n + c
        if not (min(la, r, c) >= 0 and max(la, r, c) < n and 1 <= v <= layout.domain):
            raise ValueError(f"fixed: {item!r} outside the cube or the domain")
        givens[cell] = v
    cubes = []
    for spec in d.get("cube_boxes", []):
        if isinstance(spec, dict):
            cubes.append((_coord(spec["corner"], "cube box corner"),
                          _coord(spec.get("size", [order] * 3), "cube box size")))
        else:
            cubes.append((_coord(spec, "cube box corner"), (order, order, order)))
    paths = []
    for spec in d.get("path_boxes", []):
        if not isinstance(spec, dict):
            raise ValueError(f"path box: expected {{start, end, order}}, got {spec!r}")
        paths.append((_coord(spec["start"], "path start"), _coord(spec["end"], "path end"),
                      spec.get("order")))
    generic = []
    for spec in d.get("generic_boxes", []):
        items = []
        for item in spec:
            if not (isinstance(item, list) and len(item) == 4):
                raise ValueError(f"generic box: expected [l, r, c, v], got {item!r}")
            items.append(((item[0], item[1], item[2]), item[3]))
        generic.append(items)
    p = sudoku3d(order, givens, domain=domain, cube_boxes=cubes, path_boxes=paths,
                 generic_boxes=generic)
    groups = tuple(tuple(int(c) for c in g) for g in d.get("groups", []))
    less = tuple((int(a), int(b)) for a, b in d.get("less_than", []))
    if groups or less:
        for g in groups:
            if len(g) > p.domain or not all(0 <= c < p.ncells for c in g):
                raise ValueError(f"group {list(g)[:6]} does not fit the cube or the domain")
        p = Puzzle(p.layout, p.givens, p.less_than + less, p.extra_groups + groups)
    return p


def _custom(d: dict[str, Any]) -> Puzzle:
    shape = d["shape"]
    shape = [shape] if isinstance(shape, int) else list(shape)
    domain = int(d["domain"])
    layout = custom_layout(tuple(int(s) for s in shape), domain)
    givens = board_in(d["givens"], domain, layout.ncells) if "givens" in d else None
    return custom(shape, domain, d["groups"], givens,
                  [(a, b) for a, b in d.get("less_than", [])])


def puzzle_from_json(d: dict[str, Any]) -> Puzzle:
    """A puzzle from a JSON object of any kind (raises ValueError/KeyError/TypeError)."""
    kind = d.get("kind")
    if kind == SUDOKU3D:
        return _sudoku3d(d)
    if kind == CUSTOM:
        return _custom(d)
    if kind == SUDOKU:
        box = int(d["box"])
        return sudoku(board_in(d["givens"], box * box, box**4), box)
    if kind in (LATIN, FUTOSHIKI):
        n = int(d["size"])
        givens = board_in(d["givens"], n, n * n)
        if kind == LATIN:
            return latin(givens, n)
        pairs = [(int(a), int(b)) for a, b in d.get("less_than", [])]
        if not all(0 <= a < n * n and 0 <= b < n * n and a != b for a, b in pairs):
            raise ValueError("less_than pair outside the grid")
        return futoshiki(givens, n, pairs)
    raise ValueError(f"unknown puzzle kind {kind!r} (sudoku, latin, futoshiki, sudoku3d, custom)")


def puzzle_to_json(p: Puzzle) -> dict[str, Any]:
    """The JSON object of a puzzle of any kind, the inverse of :func:`puzzle_from_json` (3-D
    boxes written as expanded ``groups``). It is also the Instances stage file's puzzle part."""
    if p.kind == SUDOKU and p.layout.box is not None:
        d: dict[str, Any] = {"kind": SUDOKU, "box": p.layout.box}
    elif p.kind in (LATIN, FUTOSHIKI):
        d = {"kind": p.kind, "size": p.size}
    elif p.kind == SUDOKU3D:
        n = p.size
        order = next(k for k in range(1, n + 1) if k * k == n)
        d = {"kind": SUDOKU3D, "order": order, "size": n}
        if p.domain != n:
            d["domain"] = p.domain
    elif p.kind == CUSTOM:
        d = {"kind": CUSTOM, "shape": list(p.layout.shape), "size": p.size, "domain": p.domain}
    else:
        raise ValueError(f"puzzle_to_json: unknown puzzle kind {p.kind!r}")
    d["givens"] = board_out(p.givens, p.domain)
    if p.extra_groups:
        d["groups"] = [list(g) for g in p.extra_groups]
    if p.less_than:
        d["less_than"] = [list(x) for x in p.less_than]
    return d


def _objects(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """(first line, text, error) of each JSON object; a failed parse keeps reading lines until
    the object closes, so pretty-printed objects work and a bad line costs one record."""
    buf: list[str] = []
    start = 0
    for lineno, raw in lines:
        if buf and raw.startswith(("{", "[")):  # a new top-level object: the last one is cut
            yield start, "\n".join(buf), f"JSON object not closed before line {lineno}"
            buf = []
        if not buf:
            start = lineno
        buf.append(raw)
        text = "\n".join(buf)
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith(("Expecting", "Unterminated")) and exc.pos >= len(text) - 1:
                continue  # the object goes on in the next line
            yield start, text, f"bad JSON: {exc.msg} (line {start + exc.lineno - 1}, " \
                               f"column {exc.colno})"
            buf = []
            continue
        yield start, text, ""
        buf = []
    if buf:
        yield start, "\n".join(buf), "JSON object not closed at end of file"


def read_json_puzzles(lines: Iterable[tuple[int, str]], source: str) -> Iterator[Record]:
    """Reader for JSON puzzle objects (any kind; the format of 3-D and custom instances)."""
    for lineno, text, err in _objects(lines):
        if err:
            yield Record(source, lineno, 0, "json", error=err)
            continue
        d = json.loads(text)
        if not isinstance(d, dict):
            yield Record(source, lineno, 0, "json", error="expected a JSON object per puzzle")
            continue
        name = str(d.get("name", ""))
        try:
            puzzle = puzzle_from_json(d)
            solution = (board_in(d["solution"], puzzle.domain, puzzle.ncells)
                        if "solution" in d else None)
        except KeyError as exc:
            yield Record(source, lineno, 0, "json", name=name, error=f"missing field {exc}")
            continue
        except (ValueError, TypeError) as exc:
            yield Record(source, lineno, 0, "json", name=name, error=str(exc))
            continue
        yield Record(source, lineno, 0, "json", puzzle=puzzle, name=name, solution=solution,
                     empty="0")
