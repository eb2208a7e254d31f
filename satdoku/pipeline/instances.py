"""The Instances stage file: one JSON object per line, one line per instance, input order.

Fields: ``id`` (1-based index in the input file), ``line`` (1-based line where it starts),
``source``, ``notation`` (reader name), ``empty`` (empty-cell symbol of the input), ``name``, and
either ``error`` (INVALID reason) or the puzzle: ``kind``, ``box`` (Sudoku box order) or ``size``,
``givens`` (cell symbols as a string when the domain allows, else a list of ints), optional
``less_than`` ([[a, b], ...] cell pairs) and ``solution`` (a solution the input provided).
3-D and custom puzzles use the JSON format's fields (satdoku/formats/jsonpuzzle.py: ``order``,
``shape``, ``domain``, expanded ``groups``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from satdoku.formats import Record, read_records
from satdoku.formats.jsonpuzzle import puzzle_from_json, puzzle_to_json
from satdoku.formats.symbols import ALPHABET, parse_board_chars
from satdoku.puzzle import (
    CUSTOM,
    FUTOSHIKI,
    LATIN,
    SUDOKU,
    SUDOKU3D,
    Puzzle,
    futoshiki,
    latin,
    sudoku,
)


def _board_out(board: tuple[int, ...], domain: int) -> str | list[int]:
    if domain <= len(ALPHABET):
        return "".join(ALPHABET[v - 1] if v else "." for v in board)
    return list(board)


def _board_in(value: str | list[int], domain: int) -> tuple[int, ...]:
    if isinstance(value, str):
        board, reason = parse_board_chars(value, domain)
        if board is None:
            raise ValueError(reason)
        return board
    return tuple(value)


def puzzle_to_dict(p: Puzzle) -> dict[str, Any]:
    if p.kind in (SUDOKU3D, CUSTOM):  # order/shape, domain, expanded groups: the JSON format
        return puzzle_to_json(p)
    d: dict[str, Any] = {"kind": p.kind}
    if p.layout.box is not None:
        d["box"] = p.layout.box
    else:
        d["size"] = p.size
    d["givens"] = _board_out(p.givens, p.domain)
    if p.less_than:
        d["less_than"] = [list(x) for x in p.less_than]
    return d


def puzzle_from_dict(d: dict[str, Any]) -> Puzzle:
    kind = d["kind"]
    if kind in (SUDOKU3D, CUSTOM):
        return puzzle_from_json(d)
    if kind == SUDOKU:
        box = int(d["box"])
        return sudoku(_board_in(d["givens"], box * box), box)
    n = int(d["size"])
    givens = _board_in(d["givens"], n)
    if kind == LATIN:
        return latin(givens, n)
    if kind == FUTOSHIKI:
        return futoshiki(givens, n, [tuple(x) for x in d.get("less_than", [])])
    raise ValueError(f"unknown puzzle kind {kind!r}")


def record_to_dict(r: Record) -> dict[str, Any]:
    d: dict[str, Any] = {"id": r.id, "line": r.line, "source": r.source,
                         "notation": r.notation, "empty": r.empty}
    if r.name:
        d["name"] = r.name
    if r.puzzle is None:
        d["error"] = r.error
        return d
    d.update(puzzle_to_dict(r.puzzle))
    if r.solution is not None:
        d["solution"] = _board_out(r.solution, r.puzzle.domain)
    return d


def record_from_dict(d: dict[str, Any]) -> Record:
    rec = Record(d["source"], int(d["line"]), int(d["id"]), d["notation"], name=d.get("name", ""),
                 empty=d.get("empty", "."))
    if "error" in d:
        rec.error = d["error"]
        return rec
    rec.puzzle = puzzle_from_dict(d)
    if "solution" in d:
        rec.solution = _board_in(d["solution"], rec.puzzle.domain)
    return rec


def read_instances(path: str | Path) -> Iterator[Record]:
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                yield record_from_dict(json.loads(line))
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{path}:{lineno}: bad instance record: {exc}") from exc


def count_lines(path: str | Path) -> int:
    """Number of lines of an input file, as the readers number them (decompressed, CR-only
    line ends; a directory, device or FIFO is an InputError): sharding is by input line."""
    from satdoku.sources import count_lines as count

    return count(path)


def num_shards(path: str | Path, shard_size: int) -> int:
    """Shards of a set: shard k holds the instances starting on lines k*S+1 .. (k+1)*S."""
    return max(1, -(-count_lines(path) // shard_size))


def shard_name(k: int) -> str:
    return f"{k:05d}"


def normalize(source: str | Path, out: str | Path, shard: int, shard_size: int,
              fmt: str = "auto", strict: bool = False) -> dict[str, int]:
    """Write shard ``shard`` (0-based) of a set: the instances starting on its lines."""
    start = shard * shard_size + 1
    records = read_records(source, fmt, strict, start, start + shard_size)
    counts = {"instances": 0, "invalid": 0}
    with open(out, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(record_to_dict(rec), separators=(",", ":")) + "\n")
            counts["instances"] += 1
            counts["invalid"] += rec.error is not None
    return counts
