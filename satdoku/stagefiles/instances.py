"""The Instances stage file: one JSON object per line, a header line then one line per instance.

The header (first line) is ``{"satdoku": "instances", "version": 1, "source": ..., "sha256": ...,
"shard": k, "shard_size": S, "format": ...}``: the input file's (or CNF directory's) checksum
as read for this shard, so every shard of a set provably comes from the same input. Instance
objects: ``id`` (1-based index in the input, the instance number everywhere), ``line`` (1-based
line where it starts; 1 for a DIMACS file of a CNF set), ``source``, ``notation`` (reader name),
``empty`` (empty-cell symbol of the input), ``name``, ``instance_hash`` (valid instances:
:mod:`satdoku.identity`), then one of

- ``error``: why the instance is INVALID;
- the puzzle, in the JSON format's fields (:func:`satdoku.formats.jsonpuzzle.puzzle_to_json`:
  ``kind``, ``box`` or ``size``/``order``/``shape``, ``domain``, ``givens``, ``groups``,
  ``less_than``) and optional ``solution`` (a solution the input provided);
- a DIMACS instance (``kind`` ``cnf``): ``vars``, ``clauses``, ``sha256`` of the file named by
  ``source``, and, when its read found them out, ``standard`` (whether a solver binary reads
  the file as we do) and ``compression`` (gzip, xz or bz2; absent for a plain file). Without
  ``standard`` (a file written before it was recorded) the solve stage finds it out itself.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, overload

from satdoku.formats import Record
from satdoku.formats.jsonpuzzle import board_in, board_out, puzzle_from_json, puzzle_to_json
from satdoku.formats.record import CnfFile
from satdoku.identity import record_hash
from satdoku.stagefiles.families import family_of_record
from satdoku.stagefiles.paths import INSTANCES, stage_path

HEADER_TAG = "instances"
VERSION = 1
CNF_KIND = "cnf"


def object_flags(d: Mapping[str, Any]) -> tuple[bool, bool]:
    """(valid, has a puzzle) of an Instances object, without building its record: a record is
    INVALID when its object has an ``error``; a CNF instance has no puzzle."""
    valid = "error" not in d
    return valid, valid and d.get("kind") != CNF_KIND


class StageFileError(ValueError):
    """A stage file that does not follow the contract (names the file and line)."""


@dataclass(frozen=True)
class ShardHeader:
    """Where a shard's instances come from: the input and its checksum when it was read."""

    source: str
    sha256: str
    shard: int = 0
    shard_size: int = 0
    format: str = "auto"

    def to_json(self) -> str:
        return json.dumps({"satdoku": HEADER_TAG, "version": VERSION, **asdict(self)},
                          separators=(",", ":"))


def record_to_dict(r: Record) -> dict[str, Any]:
    """The Instances object of one record."""
    d: dict[str, Any] = {"id": r.id, "line": r.line, "source": r.source, "notation": r.notation,
                         "empty": r.empty}
    if r.name:
        d["name"] = r.name
    if r.error is not None or (r.puzzle is None and r.cnf is None):
        d["error"] = r.error or "no instance"
        return d
    d["instance_hash"] = record_hash(r)
    if r.cnf is not None:
        d.update(kind=CNF_KIND, source=r.cnf.path, vars=r.cnf.num_vars,
                 clauses=r.cnf.num_clauses, sha256=r.cnf.sha256)
        if r.cnf.standard is not None:  # the file's form, as its read found it
            d["standard"] = r.cnf.standard
            if r.cnf.compression is not None:
                d["compression"] = r.cnf.compression
        return d
    assert r.puzzle is not None
    d.update(puzzle_to_json(r.puzzle))
    if r.solution is not None:
        d["solution"] = board_out(r.solution, r.puzzle.domain)
    return d


def record_from_dict(d: dict[str, Any]) -> Record:
    """The record of one Instances object (raises ValueError/KeyError/TypeError if malformed)."""
    rec = Record(str(d["source"]), int(d["line"]), int(d["id"]), str(d["notation"]),
                 name=str(d.get("name", "")), empty=str(d.get("empty", ".")),
                 instance_hash=str(d.get("instance_hash", "")))
    if "error" in d:
        rec.error = str(d["error"])
    elif d.get("kind") == CNF_KIND:
        standard = d.get("standard")  # absent from files written before it was recorded
        rec.cnf = CnfFile(str(d["source"]), int(d["vars"]), int(d["clauses"]), str(d["sha256"]),
                          None if standard is None else bool(standard),
                          None if d.get("compression") is None else str(d["compression"]))
    else:
        rec.puzzle = puzzle_from_json(d)
        if "solution" in d:
            rec.solution = board_in(d["solution"], rec.puzzle.domain, rec.puzzle.ncells)
    return rec


#: Instances fields that differ between puzzles of one layout; every other field is part of the
#: layout (two objects that agree on all of them describe the same grid, groups and relations).
PER_INSTANCE = frozenset({"id", "line", "source", "notation", "empty", "name", "instance_hash",
                          "givens", "solution"})


def layout_signature(d: dict[str, Any]) -> tuple[Any, ...] | None:
    """What an Instances object says about its puzzle's layout, hashable: its fields in order
    and the values of those not in :data:`PER_INSTANCE` (None: an invalid instance or a CNF
    file). Objects with one signature build the same grid, groups and relations, so a reader
    that needs the layout builds it once per signature."""
    if "error" in d or d.get("kind") == CNF_KIND:
        return None
    return (tuple(d), *((k, json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v)
                        for k, v in d.items() if k not in PER_INSTANCE))


class LayoutSignatures:
    """:func:`layout_signature` for many objects, cheaply: the layout fields of each field
    order are found once, and an object whose layout values are all hashable (every Sudoku,
    Latin square, ...) gets ``(fields, *values)`` without a JSON dump."""

    def __init__(self) -> None:
        self._fields: dict[tuple[str, ...], tuple[str, ...]] = {}

    def __call__(self, d: dict[str, Any]) -> tuple[Any, ...] | None:
        if "error" in d or d.get("kind") == CNF_KIND:
            return None
        keys = tuple(d)
        fields = self._fields.get(keys)
        if fields is None:
            fields = self._fields[keys] = tuple(k for k in keys if k not in PER_INSTANCE)
        sig = (keys, *map(d.__getitem__, fields))
        try:
            hash(sig)
        except TypeError:  # a list-valued field (groups, relations): the general signature
            return layout_signature(d)
        return sig


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                yield n, line


def _header_of(d: Any) -> ShardHeader | None:
    if not (isinstance(d, dict) and d.get("satdoku") == HEADER_TAG):
        return None
    fields = {k: d[k] for k in ("source", "sha256", "shard", "shard_size", "format") if k in d}
    return ShardHeader(**fields)


def read_header(path: str | Path) -> ShardHeader | None:
    """The header of an Instances shard (None for a file written without one)."""
    for _, line in _lines(path):
        try:
            return _header_of(json.loads(line))
        except ValueError as exc:
            raise StageFileError(f"{path}:1: bad Instances header: {exc}") from exc
    return None


def iter_instance_dicts(path: str | Path) -> Iterator[dict[str, Any]]:
    """The raw instance objects of a shard (header skipped): cheap, no puzzle is built."""
    for _, d in iter_instance_texts(path):
        yield d


def iter_instance_texts(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(JSON text, object) of every instance of a shard (header skipped): the text as the
    shard has it, for a writer that passes objects on without encoding them again."""
    for n, line in _lines(path):
        d = _instance_object(line, path, n, header_allowed=True)
        if d is not None:
            yield line.strip(), d


def iter_instance_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, JSON text) of every instance of a shard (header skipped), not parsed:
    :func:`_instance_object` reads one when it is needed."""
    for n, line in _lines(path):
        if n == 1 and _instance_object(line, path, n, header_allowed=True) is None:
            continue
        yield n, line.strip()


def _instance_object(line: str, path: str | Path, n: int,
                     header_allowed: bool = False) -> dict[str, Any] | None:
    """The instance object of line ``n`` of a shard (None for the header on line 1 when
    ``header_allowed``); a line that is not one raises a StageFileError naming the place."""
    try:
        d = json.loads(line)
    except ValueError as exc:
        raise StageFileError(f"{path}:{n}: bad instance record: {exc}") from exc
    if header_allowed and n == 1 and _header_of(d) is not None:
        return None
    if not isinstance(d, dict) or "id" not in d:
        raise StageFileError(f"{path}:{n}: bad instance record: not an instance object")
    return d


def read_instances(path: str | Path) -> Iterator[Record]:
    """Every record of an Instances shard, in order."""
    for n, d in enumerate(iter_instance_dicts(path), 1):
        try:
            yield record_from_dict(d)
        except (ValueError, KeyError, TypeError) as exc:
            raise StageFileError(f"{path}: instance {d.get('id', n)}: bad instance record: "
                                 f"{exc}") from exc


#: json.dumps(..., separators=(",", ":")) without building an encoder per record
_COMPACT = json.JSONEncoder(separators=(",", ":"))


class InstanceShards(Sequence[Record]):
    """The records of Instances shards, in order, each JSON object parsed once and built into a
    :class:`Record` (its puzzle constructed) only when asked for: a report on a 1M-instance
    set shows a few hundred. Validity and the family come from the objects themselves.

    ``parse=False`` keeps each object's JSON text and parses it only when its record (or
    :attr:`objects`) is asked for: a caller that takes the flags from the run table's
    instance columns (:func:`satdoku.stagefiles.runtable.instance_columns`) then parses only
    the records it shows. A bad object is then named when it is reached."""

    def __init__(self, shards: Iterable[str | Path], parse: bool = True) -> None:
        self._objects: list[dict[str, Any] | None] = []
        self._texts: list[str] = []
        self._places: list[tuple[str, int]] = []  # (shard, line) of each text
        self._sources: list[str] = []
        for s in shards:
            before = len(self._objects)
            if parse:
                self._objects.extend(iter_instance_dicts(s))
            else:
                for n, line in iter_instance_lines(s):
                    self._texts.append(line)
                    self._places.append((str(s), n))
                self._objects.extend([None] * (len(self._texts) - before))
            self._sources.extend([str(s)] * (len(self._objects) - before))
        self._built: dict[int, Record] = {}

    def _object(self, i: int) -> dict[str, Any]:
        d = self._objects[i]
        if d is None:
            path, n = self._places[i]
            d = _instance_object(self._texts[i], path, n)
            assert d is not None  # only line 1 can be the header, and it was left out
            self._objects[i] = d
        return d

    def __len__(self) -> int:
        return len(self._objects)

    @overload
    def __getitem__(self, i: int) -> Record: ...

    @overload
    def __getitem__(self, i: slice) -> list[Record]: ...

    def __getitem__(self, i: int | slice) -> Record | list[Record]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        i = range(len(self))[i]  # negative indices, IndexError
        rec = self._built.get(i)
        if rec is None:
            d = self._object(i)
            try:
                rec = self._built[i] = record_from_dict(d)
            except (ValueError, KeyError, TypeError) as exc:
                raise StageFileError(f"{self._sources[i]}: instance {d.get('id', i + 1)}: bad "
                                     f"instance record: {exc}") from exc
        return rec

    @property
    def objects(self) -> Sequence[dict[str, Any]]:
        """The Instances objects themselves, in order (never modify them)."""
        return [self._object(i) for i in range(len(self._objects))]

    def flags(self) -> list[tuple[str, bool, bool]]:
        """(id, valid, has a puzzle) of every instance, without building a record
        (:func:`object_flags`)."""
        return [(str(d["id"]), *object_flags(d)) for d in self.objects]

    def families(self) -> dict[str, str]:
        """id -> family of every instance (as :func:`read_families`)."""
        return {str(d["id"]): family_of_record(d) for d in self.objects}


def read_families(shards: Iterable[str | Path]) -> dict[str, str]:
    """id -> family of every instance in Instances shards (no puzzle is built, so a 50,000-
    puzzle set loads in well under a second)."""
    return {str(d["id"]): family_of_record(d) for s in shards for d in iter_instance_dicts(s)}


def write_instances(path: str | Path, header: ShardHeader,
                    records: Iterable[Record | dict[str, Any]]) -> dict[str, int]:
    """Write one Instances shard; returns counts of instances and invalid ones. An item is a
    record, or an Instances object already made (normalize's fast path for plain files)."""
    counts = {"instances": 0, "invalid": 0}
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(header.to_json() + "\n")
        for rec in records:
            obj = rec if isinstance(rec, dict) else record_to_dict(rec)
            fh.write(_COMPACT.encode(obj) + "\n")
            counts["instances"] += 1
            counts["invalid"] += "error" in obj
    return counts


def shard_of(results: str | Path, set_name: str, ident: str) -> str:
    """The name of the Instances shard holding instance ``ident`` (ids grow with shards)."""
    shards = sorted(stage_path(INSTANCES, results, set=set_name, shard="*").parent
                    .glob("*.jsonl"))
    if not shards:
        raise KeyError(f"no Instances shards for set {set_name!r} under {results}")
    firsts: list[int] = []
    names: list[str] = []
    for s in shards:
        first = next(iter_instance_dicts(s), None)
        if first is not None:
            firsts.append(int(first["id"]))
            names.append(s.stem)
    if not ident.isdigit():
        raise KeyError(f"instance ids are numbers, got {ident!r}")
    k = bisect_right(firsts, int(ident)) - 1
    if k < 0:
        raise KeyError(f"no instance {ident} in set {set_name!r}")
    return names[k]


def id_of_hash(results: str | Path, set_name: str, instance_hash: str) -> str:
    """The id of the instance of a set whose ``instance_hash`` is given (the first, if the set
    holds the same instance twice); KeyError when none has it."""
    folder = stage_path(INSTANCES, results, set=set_name, shard="*").parent
    for s in sorted(folder.glob("*.jsonl")):
        for d in iter_instance_dicts(s):
            if d.get("instance_hash") == instance_hash:
                return str(d["id"])
    raise KeyError(f"no instance with instance_hash {instance_hash} in set {set_name!r} under "
                   f"{results}")
