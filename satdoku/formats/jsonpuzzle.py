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

Every field is checked before anything is built: integers must be integers (``"box": 2.7`` is
refused, ``3.0`` is 3, ``1e400`` is refused), cells and relations must lie inside the grid, and
the declared size must pass the size guard of :mod:`satdoku.size_limits`. Anything wrong makes the
object one INVALID record naming the field; other objects of the file still read.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from satdoku.formats.record import Record
from satdoku.formats.symbols import ALPHABET, board_chars, parse_board_chars
from satdoku.puzzle import (
    CUSTOM,
    FUTOSHIKI,
    LATIN,
    SUDOKU,
    SUDOKU3D,
    Puzzle,
    custom,
    futoshiki,
    latin,
    sudoku,
    sudoku3d,
)
from satdoku.size_limits import (
    SizeLimits,
    TooLarge,
    capped_product,
    check_puzzle_size,
    default_size_limits,
)

KINDS = (SUDOKU, LATIN, FUTOSHIKI, SUDOKU3D, CUSTOM)
_MAX_NESTING = 3  # givens of a 3-D cube: layers of rows of cells


# --- checked field access -------------------------------------------------------------------
def _show(value: Any) -> str:
    """A short text for a value in a message (huge numbers and lists are abbreviated)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"{'-' if value < 0 else ''}(a {value.bit_length()}-bit number)"
    text = json.dumps(value) if isinstance(value, (list, dict, str)) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def as_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int within lo..hi; a float counts only when integral and finite
    (``3.0``); anything else is a ValueError naming ``what``."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {_show(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{what} {_show(value)} outside {bounds}")
    return value


def _field(d: dict[str, Any], key: str) -> Any:
    if key not in d:
        raise ValueError(f"missing field {key!r}")
    return d[key]


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, got {_show(value)}")
    return value


def _flatten(value: Any, what: str) -> list[Any]:
    """A (nested) list flattened, at most :data:`_MAX_NESTING` levels deep (iteratively: a
    deeply nested list is an error, not a RecursionError)."""
    flat: list[Any] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list):
            if depth >= _MAX_NESTING:
                raise ValueError(f"{what} nested deeper than {_MAX_NESTING} levels")
            stack.extend((x, depth + 1) for x in reversed(item))
        else:
            flat.append(item)
    return flat


def board_in(value: Any, domain: int, ncells: int | None = None,
             what: str = "givens") -> tuple[int, ...]:
    """A board from a symbol string or (nested) list of ints; ValueError names the problem."""
    if isinstance(value, str):
        board, reason = parse_board_chars(value, domain)
        if board is None:
            raise ValueError(f"{what}: {reason}")
    elif isinstance(value, list):
        flat = _flatten(value, what)
        if ncells is not None and len(flat) != ncells:
            raise ValueError(f"{len(flat)} {what} for {ncells} cells")
        board = tuple(as_int(v, f"{what} value", 0, domain) for v in flat)
    else:
        raise ValueError(f"{what} must be a string of symbols or a list, got {_show(value)}")
    if ncells is not None and len(board) != ncells:
        raise ValueError(f"{len(board)} {what} for {ncells} cells")
    return board


def board_out(board: tuple[int, ...], domain: int) -> str | list[int]:
    """A board as a symbol string when the domain allows, else a list of ints."""
    if domain <= len(ALPHABET):
        return board_chars(board, ".")
    return list(board)


def _cells(value: Any, ncells: int, what: str) -> tuple[int, ...]:
    return tuple(as_int(c, f"{what} cell", 0, ncells - 1) for c in _list(value, what))


def _pairs(value: Any, ncells: int, what: str = "less_than") -> list[tuple[int, int]]:
    """``[[a, b], ...]`` cell pairs (flat indices) inside the grid, a != b."""
    out = []
    for item in _list(value, what):
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError(f"{what}: expected [a, b], got {_show(item)}")
        a, b = (as_int(x, f"{what} cell", 0, ncells - 1) for x in item)
        if a == b:
            raise ValueError(f"{what}: a cell cannot be smaller than itself ({a})")
        out.append((a, b))
    return out


def _coord(x: Any, what: str, n: int | None = None) -> tuple[int, int, int]:
    if not (isinstance(x, list) and len(x) == 3):
        raise ValueError(f"{what}: expected [l, r, c], got {_show(x)}")
    hi = None if n is None else n - 1
    return (as_int(x[0], what, 0, hi), as_int(x[1], what, 0, hi), as_int(x[2], what, 0, hi))


def _no_relations(d: dict[str, Any], kind: str) -> None:
    if d.get("less_than"):
        raise ValueError(f"less_than is not a field of kind {kind} (use futoshiki, sudoku3d or "
                         "custom)")


# --- kinds ----------------------------------------------------------------------------------
def _sudoku3d(d: dict[str, Any], limits: SizeLimits) -> Puzzle:
    order = as_int(_field(d, "order"), "order", 1, 1_000)
    n = order * order
    domain = as_int(d["domain"], "domain", n) if d.get("domain") is not None else None
    check_puzzle_size(n**3, domain or n, limits)
    dom = domain or n
    ncells = n**3
    givens = list(board_in(d.get("givens", [0] * ncells), dom, ncells))
    for item in _list(d.get("fixed", []), "fixed"):
        if not (isinstance(item, list) and len(item) == 4):
            raise ValueError(f"fixed: expected [l, r, c, v], got {_show(item)}")
        la, r, c = _coord(item[:3], "fixed", n)
        givens[(la * n + r) * n + c] = as_int(item[3], "fixed value", 1, dom)
    cubes = []
    for spec in _list(d.get("cube_boxes", []), "cube_boxes"):
        if isinstance(spec, dict):
            cubes.append((_coord(_field(spec, "corner"), "cube box corner", n),
                          _coord(spec.get("size", [order] * 3), "cube box size")))
        else:
            cubes.append((_coord(spec, "cube box corner", n), (order, order, order)))
    paths = []
    for spec in _list(d.get("path_boxes", []), "path_boxes"):
        if not isinstance(spec, dict):
            raise ValueError(f"path box: expected {{start, end, order}}, got {_show(spec)}")
        direction = spec.get("order")
        if direction not in (None, "asc", "desc"):
            raise ValueError(f"path box order must be 'asc', 'desc' or absent, "
                             f"got {_show(direction)}")
        paths.append((_coord(_field(spec, "start"), "path start", n),
                      _coord(_field(spec, "end"), "path end", n), direction))
    generic = []
    for spec in _list(d.get("generic_boxes", []), "generic_boxes"):
        items = []
        for item in _list(spec, "generic box"):
            if not (isinstance(item, list) and len(item) == 4):
                raise ValueError(f"generic box: expected [l, r, c, v], got {_show(item)}")
            items.append((_coord(item[:3], "generic box cell", n),
                          as_int(item[3], "generic box value", 0, dom)))
        generic.append(items)
    p = sudoku3d(order, givens, domain=domain, cube_boxes=cubes, path_boxes=paths,
                 generic_boxes=generic)
    groups = tuple(_cells(g, ncells, "group") for g in _list(d.get("groups", []), "groups"))
    less = tuple(_pairs(d.get("less_than", []), ncells))
    for g in groups:
        if len(g) > p.domain or len(set(g)) != len(g):
            raise ValueError(f"group {_show(list(g))} lists a cell twice or has more cells "
                             f"than the {p.domain} values")
    if groups or less:
        p = Puzzle(p.layout, p.givens, p.less_than + less, p.extra_groups + groups)
    return p


def _custom(d: dict[str, Any], limits: SizeLimits) -> Puzzle:
    raw_shape = _field(d, "shape")
    dims = [raw_shape] if not isinstance(raw_shape, list) else raw_shape
    if not dims:
        raise ValueError("shape must list at least one dimension")
    shape = tuple(as_int(s, "shape dimension", 1) for s in dims)
    domain = as_int(_field(d, "domain"), "domain", 1)
    ncells = capped_product(shape, limits.max_cells)
    if ncells > limits.max_cells:
        raise TooLarge(f"too large: shape {_show(dims)} has more than {limits.max_cells} cells "
                       "(satdoku.size_limits.SizeLimits.max_cells)")
    check_puzzle_size(ncells, domain, limits)

    def cell(c: Any, what: str) -> int | tuple[int, ...]:
        if isinstance(c, list):
            if len(c) != len(shape):
                raise ValueError(f"{what} {_show(c)} does not have {len(shape)} coordinates")
            return tuple(as_int(x, what, 0, s - 1) for x, s in zip(c, shape, strict=True))
        return as_int(c, what, 0, ncells - 1)

    groups = [[cell(c, "group cell") for c in _list(g, "group")]
              for g in _list(_field(d, "groups"), "groups")]
    givens = board_in(d["givens"], domain, ncells) if "givens" in d else None
    less = []
    for item in _list(d.get("less_than", []), "less_than"):
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError(f"less_than: expected [a, b], got {_show(item)}")
        less.append((cell(item[0], "less_than cell"), cell(item[1], "less_than cell")))
    p = custom(shape, domain, groups, givens, less)  # type: ignore[arg-type]
    if any(a == b for a, b in p.less_than):
        raise ValueError("less_than: a cell cannot be smaller than itself")
    return p


def puzzle_from_json(d: dict[str, Any], limits: SizeLimits | None = None) -> Puzzle:
    """A puzzle from a JSON object of any kind; ValueError names the first bad field."""
    if not isinstance(d, dict):
        raise ValueError(f"expected a JSON object, got {_show(d)}")
    lim = limits or default_size_limits()
    kind = d.get("kind")
    if kind == SUDOKU3D:
        return _sudoku3d(d, lim)
    if kind == CUSTOM:
        return _custom(d, lim)
    if kind == SUDOKU:
        box = as_int(_field(d, "box"), "box", 2, 1_000)
        check_puzzle_size(box**4, box * box, lim)
        _no_relations(d, kind)
        return sudoku(board_in(_field(d, "givens"), box * box, box**4), box)
    if kind in (LATIN, FUTOSHIKI):
        n = as_int(_field(d, "size"), "size", 1, 1_000_000)
        check_puzzle_size(n * n, n, lim)
        givens = board_in(_field(d, "givens"), n, n * n)
        if kind == LATIN:
            _no_relations(d, kind)
            return latin(givens, n)
        return futoshiki(givens, n, _pairs(d.get("less_than", []), n * n))
    raise ValueError(f"unknown puzzle kind {_show(kind)} ({', '.join(KINDS)})")


def puzzle_to_json(p: Puzzle) -> dict[str, Any]:
    """The JSON object of a puzzle of any kind (3-D and custom boxes written as expanded
    ``groups``); :func:`puzzle_from_json` reads it back to an equal puzzle."""
    d: dict[str, Any] = {"kind": p.kind}
    if p.kind == SUDOKU3D:
        n = p.size
        d.update(order=next(k for k in range(1, n + 1) if k * k == n), size=n)
        if p.domain != n:
            d["domain"] = p.domain
    elif p.kind == CUSTOM:
        d.update(shape=list(p.layout.shape), size=p.size, domain=p.domain)
    elif p.layout.box is not None:
        d["box"] = p.layout.box
    else:
        d["size"] = p.size
    d["givens"] = board_out(p.givens, p.domain)
    if p.extra_groups:
        d["groups"] = [list(g) for g in p.extra_groups]
    if p.less_than:
        d["less_than"] = [list(x) for x in p.less_than]
    return d


# --- reading ----------------------------------------------------------------------------------
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth_change(line: str) -> tuple[int, bool]:
    """(opened minus closed brackets outside strings, whether a string is left open)."""
    bare = _STRING.sub("", line)
    opened = bare.count("{") + bare.count("[")
    return opened - bare.count("}") - bare.count("]"), '"' in bare


def _objects(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, Any, str]]:
    """(first line, value, error) of each JSON value. Lines are gathered while brackets stay
    open (a pretty-printed object spans lines), then parsed once; a line starting a new
    top-level ``{``/``[`` ends an unclosed object, so a bad line costs one record."""
    buf: list[str] = []
    start = depth = 0
    for lineno, raw in lines:
        if buf and raw.startswith(("{", "[")):
            yield start, None, f"JSON object not closed before line {lineno}"
            buf, depth = [], 0
        if not buf:
            start = lineno
        buf.append(raw)
        change, open_string = _depth_change(raw)
        depth += change
        if depth > 0 and not open_string:
            continue
        text = "\n".join(buf)
        buf, depth = [], 0
        try:
            yield start, json.loads(text), ""
        except json.JSONDecodeError as exc:
            yield start, None, (f"bad JSON: {exc.msg} (line {start + exc.lineno - 1}, "
                                f"column {exc.colno})")
        except RecursionError:
            yield start, None, "bad JSON: nested too deep"
        except ValueError as exc:  # e.g. an integer of more than 4300 digits
            yield start, None, f"bad JSON: {str(exc)[:80]}"
    if buf:
        yield start, None, "JSON object not closed at end of file"


def read_json_puzzles(lines: Iterable[tuple[int, str]], source: str,
                      limits: SizeLimits | None = None) -> Iterator[Record]:
    """Reader for JSON puzzle objects (any kind; the format of 3-D and custom instances)."""
    for lineno, d, err in _objects(lines):
        if err:
            yield Record(source, lineno, 0, "json", error=err)
            continue
        if not isinstance(d, dict):
            yield Record(source, lineno, 0, "json", error="expected a JSON object per puzzle")
            continue
        name = d.get("name", "")
        name = (name if isinstance(name, str) else _show(name))[:200]
        try:
            puzzle = puzzle_from_json(d, limits)
            solution = (board_in(d["solution"], puzzle.domain, puzzle.ncells, "solution")
                        if "solution" in d else None)
        except (ValueError, TypeError, KeyError) as exc:
            yield Record(source, lineno, 0, "json", name=name, error=str(exc)[:300])
            continue
        yield Record(source, lineno, 0, "json", puzzle=puzzle, name=name, solution=solution,
                     empty="0")


def looks_like_json(path: Path, head: list[tuple[int, str]]) -> bool:
    """A ``.json``/``.jsonl`` file, or one with a line starting ``{``."""
    return path.suffix.lower() in (".json", ".jsonl") or any(
        text.lstrip().startswith("{") for _, text in head)


def format_json_board(board: Sequence[int], side: int = 0, empty: str = ".") -> str:
    """A solution as a one-line JSON list."""
    return json.dumps(list(board), separators=(",", ":"))


def parse_json_board(text: str, side: int = 0) -> tuple[int, ...] | None:
    """Inverse of :func:`format_json_board` (None for anything else)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return None
    return tuple(value)


def write_json_puzzles(puzzles: Sequence[Puzzle]) -> str:
    """Puzzles of any kind as one JSON object per line."""
    return "".join(json.dumps(puzzle_to_json(p), separators=(",", ":")) + "\n" for p in puzzles)
