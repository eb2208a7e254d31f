"""Reading a file (or a CNF set directory) into records: detection, shards, record-by-record
repair. Nothing a file holds can lose a valid puzzle:

- Detection tries every plausible format (:attr:`Format.detect`) on the first content lines and
  takes the one whose valid records cover most of them (ties: :attr:`Format.priority`), so a
  title line, a letter in the first cell or a comma in a name cannot change the notation.
- A line that is not UTF-8 is one INVALID record naming the line and byte offset; a record
  that would span it is INVALID too, never silently read.
- Record by record: when the format finds a record INVALID, each of its lines that is a valid
  puzzle on its own (in a ``fallback`` format: line, ndigits, csv, latin, json) is read as one;
  the rest of the record's lines are read again with the file's format.
- Shards (``start_line``/``stop_line``) give exactly the records of the whole-file read that
  start on their lines, with the same numbers.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path

from satdoku.formats.format_registry import FORMATS, Format, by_priority, get_format
from satdoku.formats.record import Record
from satdoku.size_limits import SizeLimits, default_size_limits
from satdoku.sources import STDIN, InputError, Snapshot, read_snapshot

#: content lines format detection reads
HEAD_LINES = 200


class StrictError(ValueError):
    """Raised in strict mode on the first malformed instance."""


# --- detection --------------------------------------------------------------------------------
def _coverage(fmt: Format, head: list[tuple[int, str]], source: str) -> int:
    """How many of the ``head`` lines fall inside valid records when ``fmt`` reads them."""
    assert fmt.read is not None
    starts = sorted((r.line, r.valid) for r in fmt.read(head, source, None))
    covered, k, owner_valid = 0, 0, False
    for lineno, _ in head:
        while k < len(starts) and starts[k][0] <= lineno:
            owner_valid = starts[k][1]
            k += 1
        covered += owner_valid
    return covered


def detect_format(path: str | Path, lines: list[tuple[int, str]]) -> str:
    """Name of the format of a file, from its name and first content lines ``(number, text)``.

    A plausible format without a line reader (DIMACS) wins outright; among the others the one
    whose valid records cover most lines, ties broken by priority."""
    p = Path(path)
    plausible = [f for f in by_priority() if f.detect is not None and f.detect(p, lines)]
    whole = [f for f in plausible if f.read is None]
    if whole:
        return whole[0].name
    if not plausible:
        return "line" if "line" in FORMATS else by_priority()[-1].name
    if len(plausible) == 1:
        return plausible[0].name
    return max(plausible, key=lambda f: (_coverage(f, lines, str(p)), f.priority)).name


# --- record by record ---------------------------------------------------------------------------
class _Repair:
    """Applies undecodable lines and the record-by-record fallback to one reader's records."""

    def __init__(self, fmt: Format, snap: Snapshot, limits: SizeLimits) -> None:
        self.fmt, self.snap, self.limits = fmt, snap, limits
        self.bad = snap.bad_lines
        self.fallbacks = [f for f in by_priority() if f.fallback and f is not fmt]

    def text(self, lineno: int) -> str:
        return self.snap.lines[lineno - 1]

    def alone(self, lineno: int) -> Record | None:
        """The line read on its own by a fallback format, when that gives a valid puzzle."""
        if lineno in self.bad:
            return None
        item = [(lineno, self.text(lineno))]
        for f in self.fallbacks:
            assert f.read is not None
            rec = next(iter(f.read(item, self.snap.source, self.limits)), None)
            if rec is not None and rec.valid and rec.line == lineno:
                return rec
        return None

    def undecodable(self, rec: Record, linenos: Iterable[int]) -> bool:
        """Make ``rec`` INVALID when it spans a line that is not text; True if it does."""
        first = next((n for n in linenos if n in self.bad), None)
        if first is None:
            return False
        if rec.valid or rec.line == first:
            rec.puzzle = rec.cnf = rec.solution = None
            rec.error = self.bad[first]
        return True

    def one(self, rec: Record) -> Record:
        """A record of a one-line format."""
        if self.undecodable(rec, (rec.line,)) or rec.valid:
            return rec
        return self.alone(rec.line) or rec

    def spanning(self, rec: Record, span: list[int]) -> Iterator[Record]:
        """A record of a multi-line format, covering the content lines ``span``."""
        if self.undecodable(rec, span) or rec.valid:
            yield rec
            return
        found = {n: alt for n in span if (alt := self.alone(n)) is not None}
        if not found:
            yield rec
            return
        segment: list[int] = []
        for n in span:
            if n in found:
                yield from self.reread(segment, rec)
                segment = []
                yield found[n]
            else:
                segment.append(n)
        yield from self.reread(segment, rec)

    def reread(self, segment: list[int], original: Record) -> Iterator[Record]:
        """The lines of a segment read again with the file's format."""
        if not segment:
            return
        assert self.fmt.read is not None
        got = list(self.fmt.read([(n, self.text(n)) for n in segment], self.snap.source,
                                 self.limits))
        if not got and original.line in segment:
            got = [original]
        for i, rec in enumerate(got):
            end = got[i + 1].line if i + 1 < len(got) else None
            self.undecodable(rec, (n for n in segment if n >= rec.line and (
                end is None or n < end)))
            yield rec


def _spans(records: Iterable[Record], snap: Snapshot) -> Iterator[tuple[Record, list[int]]]:
    """Each record with the content lines from its start to the next record's start."""
    nums = snap.content_linenos

    def span(a: int, b: int | None) -> list[int]:
        lo = bisect.bisect_left(nums, a)
        hi = len(nums) if b is None else bisect.bisect_left(nums, b)
        return nums[lo:hi] if hi > lo else [a]

    prev: Record | None = None
    for rec in records:
        if prev is not None:
            yield prev, span(prev.line, rec.line)
        prev = rec
    if prev is not None:
        yield prev, span(prev.line, None)


def _indexed(fmt: Format, snap: Snapshot, limits: SizeLimits, start: int,
             stop: int | None) -> Iterator[tuple[int, Record]]:
    """(index in the whole file, record) of a snapshot read with ``fmt``."""
    source = snap.source
    if fmt.read_file is not None:
        yield from enumerate(fmt.read_file(snap, limits), 1)
        return
    assert fmt.read is not None
    repair = _Repair(fmt, snap, limits)
    if fmt.one_line:
        base = 0
        lines: Iterable[tuple[int, str]] = snap.content_lines(1, stop)
        if start > 1:  # a shard: only its own lines (and the header lines, which yield nothing)
            head = snap.head(HEAD_LINES)
            header = [h for h in head[:fmt.header_lines(head)] if h[0] < start]
            lines = itertools.chain(header, snap.content_lines(start, stop))
            base = snap.count_content_before(start) - len(header)
        for index, rec in enumerate(fmt.read(lines, source, limits), base + 1):
            yield index, repair.one(rec)
        return
    repaired = (r for rec, span in _spans(_walled(fmt, snap, limits), snap)
                for r in repair.spanning(rec, span))
    yield from enumerate(repaired, 1)


def _walled(fmt: Format, snap: Snapshot, limits: SizeLimits) -> Iterator[Record]:
    """The records of a multi-line format, each line that is not text a wall: one INVALID
    record of its own, and the lines on each side read apart, so that no record spans it (a
    stray line between two grids costs neither grid, and a record it cuts is INVALID, never
    read without it)."""
    assert fmt.read is not None
    bad, source = snap.bad_lines, snap.source
    if not bad:
        yield from _resynced(fmt, list(snap.content_lines()), source, limits)
        return
    segment: list[tuple[int, str]] = []
    for lineno, text in snap.content_lines():
        if lineno not in bad:
            segment.append((lineno, text))
            continue
        recs = _resynced(fmt, segment, source, limits)
        if recs and recs[-1].error:  # the record the wall cut: say where it ends
            recs[-1].error = (recs[-1].error.replace("at end of file", f"before line {lineno}")
                              .replace("file ends early", f"line {lineno} is not text"))
        yield from recs
        segment = []
        yield Record(source, lineno, 0, fmt.name, error=bad[lineno])
    yield from _resynced(fmt, segment, source, limits)


#: stray lines in a row that re-synchronising a multi-line format skips
RESYNC_SKIPS = 3


def _resynced(fmt: Format, lines: list[tuple[int, str]], source: str, limits: SizeLimits,
              skips: int = RESYNC_SKIPS) -> list[Record]:
    """The records of a multi-line format, re-synchronised after stray lines: where a run of
    INVALID records starts, its first line is read as one INVALID record of its own and the
    rest of the run read again; the new reading is kept when it finds valid puzzles the first
    did not (a title or junk line before a grid no longer shifts every row after it). Each
    run is read again at most ``skips`` times, so a file is read at most skips + 1 times."""
    assert fmt.read is not None
    recs = list(fmt.read(lines, source, limits))
    if skips == 0 or all(r.valid for r in recs):
        return recs
    pos = {n: k for k, (n, _) in enumerate(lines)}
    out: list[Record] = []
    i = 0
    while i < len(recs):
        rec = recs[i]
        if rec.valid or rec.line not in pos:
            out.append(rec)
            i += 1
            continue
        j = i
        while j < len(recs) and not recs[j].valid:
            j += 1
        stop = pos.get(recs[j].line, len(lines)) if j < len(recs) else len(lines)
        window = lines[pos[rec.line] + 1:stop]
        again = _resynced(fmt, window, source, limits, skips - 1) if window else []
        if any(r.valid for r in again):
            out.append(Record(source, rec.line, 0, fmt.name, name=rec.name, error=rec.error))
            out.extend(again)
        else:
            out.extend(recs[i:j])
        i = j
    return out


def _numbered(indexed: Iterable[tuple[int, Record]], strict: bool, start: int,
              stop: int | None) -> Iterator[Record]:
    for index, rec in indexed:
        if stop is not None and rec.line >= stop:
            break
        if rec.line < start:
            continue
        rec.index = index
        if strict and rec.error:
            raise StrictError(f"{rec.source}:{rec.line}: {rec.error}")
        yield rec


def read_records(path: str | Path, fmt: str = "auto", strict: bool = False,
                 start_line: int = 1, stop_line: int | None = None, *,
                 snapshot: Snapshot | None = None,
                 limits: SizeLimits | None = None) -> Iterator[Record]:
    """Every instance of a file (or of a CNF set directory) in order, numbered from 1 across
    the whole file.

    ``fmt`` forces a format (a FormatError, listing the known ones, for an unknown name). With
    ``start_line``/``stop_line`` only the instances that start on lines start_line <= line <
    stop_line are read (a shard); one-line formats skip straight there. ``snapshot`` reuses
    one read of the file (:func:`satdoku.sources.read_snapshot`: detection, sharding and
    parsing from one read, and its sha256 for the record of the run). The file is read and
    the format chosen at the call: InputError (missing file, directory, device, corrupt
    archive, over the size limit) and FormatError are raised here, not when iterating.
    """
    lim = limits or default_size_limits()
    chosen = None if fmt == "auto" else get_format(fmt)
    name = str(path)
    p = Path(path)
    if snapshot is None and name != STDIN and p.is_dir():
        dir_format = chosen or next((f for f in by_priority() if f.read_dir is not None), None)
        if dir_format is None or dir_format.read_dir is None:
            raise InputError(name, "is a directory; only a CNF set (format dimacs) can be a "
                                   "directory")
        return _numbered(enumerate(dir_format.read_dir(p, lim), 1), strict, start_line,
                         stop_line)
    snap = snapshot or read_snapshot(path, lim.max_input_bytes)
    if chosen is None:
        chosen = get_format(detect_format(p, snap.text_head(HEAD_LINES)))
    return _numbered(_indexed(chosen, snap, lim, start_line, stop_line), strict, start_line,
                     stop_line)
