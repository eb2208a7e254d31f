"""The TSV stage files: SatOutputTimes, SatSols, uniqueness, CNF sizes; shards and gathering.

Every TSV has a header line and one row per instance in input order; ``gather`` concatenates a
set's shard files. Columns:

- SatOutputTimes: ``id line instance_hash status solve_seconds total_seconds check_seconds
  decisions conflicts propagations restarts learnt load1 wall_seconds cpu_seconds max_rss_mb
  termination measurement cores ... message`` (statistics empty where a solver does not report
  them; ``check_seconds`` is the answer's check, apart from the solver's time; the resource
  figures are the solve path's measurement of the run, ``measurement`` the backend that made
  it and ``cores`` the CPU cores it was pinned to, see docs/solvers.md);
- SatSols: ``id line instance_hash status verified solution detail`` (``verified`` is ``yes``,
  ``proof``, ``FAILED`` or ``-``; ``solution`` the board in the input's notation or the text
  users know from the original systems: ``Instance Timeout``, ``Instance Unsatisfiable``, ...);
- ``instance_hash`` (:mod:`satdoku.identity`) is empty for an INVALID instance, and readers
  accept files written before the ``instance_hash``, ``check_seconds``, resource,
  ``measurement`` or ``cores`` columns existed (a missing cell reads as None);
- uniqueness: ``id line solutions verdict seconds``;
- CNF sizes: ``id family encoding vars clauses bytes``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO

from satdoku.records import replace
from satdoku.solvers.base import STAT_KEYS
from satdoku.solvers.result import (
    ERROR,
    FAILED,
    INVALID,
    MEMOUT,
    SAT,
    TIMEOUT,
    UNSAT,
    WRONG,
    Result,
)

#: The resource columns of SatOutputTimes (what the solve path measured of each run).
RESOURCE_COLUMNS = ("wall_seconds", "cpu_seconds", "max_rss_mb", "termination", "measurement",
                    "cores")
#: Time columns a repeated solve (``repeats: k``) reports as the median of its k runs, each
#: with its spread in ``<column>_min`` / ``<column>_max``.
REPEATED = ("total_seconds", "solve_seconds", "cpu_seconds")
REPEAT_COLUMNS = ("repeats", *(f"{c}_{m}" for c in REPEATED for m in ("min", "max")))
TIMES_COLUMNS = ("id", "line", "instance_hash", "status", "solve_seconds", "total_seconds",
                 "check_seconds", *STAT_KEYS, "load1", *RESOURCE_COLUMNS, *REPEAT_COLUMNS,
                 "message")
SOLS_COLUMNS = ("id", "line", "instance_hash", "status", "verified", "solution", "detail")
UNIQUE_COLUMNS = ("id", "line", "solutions", "verdict", "seconds")
SIZE_COLUMNS = ("id", "family", "encoding", "vars", "clauses", "bytes")
COLUMNS = {"times": TIMES_COLUMNS, "sols": SOLS_COLUMNS, "unique": UNIQUE_COLUMNS,
           "sizes": SIZE_COLUMNS}

#: SatSols detail of a verified board that is not the solution the input gives (the reports and
#: the check name every such instance: the puzzle has several solutions, or the given is wrong)
GIVEN_DIFFERS = "valid, but differs from the solution given in the input"
#: SatSols ``detail`` of an UNSAT answer (verified FAILED: a wrong answer) to a puzzle whose
#: given solution solves it.
GIVEN_SOLUTION_REFUTES_UNSAT = "UNSAT, but the solution given in the input solves the puzzle"

TEXT = {
    TIMEOUT: "Instance Timeout",
    MEMOUT: "Instance Memory Out",
    UNSAT: "Instance Unsatisfiable",
    INVALID: "Instance Invalid",
    ERROR: "Instance Error",
    WRONG: "Instance Wrong Answer",
}


def _clean(text: str) -> str:
    """A free-text cell: no TAB or newline may break the row."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def times_row(ident: str, line: int | str, result: Result, load1: float,
              instance_hash: str = "", repeats: Sequence[Result] = ()) -> dict[str, object]:
    """The SatOutputTimes row of one answer. ``repeats``: every run of a repeated solve
    (``result`` the first): its time columns are then the median of the runs, with their
    minimum and maximum, and a status that differed between runs is named in the message."""
    runs = list(repeats) or [result]
    if len(runs) > 1:
        import statistics

        medians = {f: statistics.median(getattr(r, f) for r in runs)
                   for f in ("solve_seconds", "total_seconds", "check_seconds", "wall_seconds",
                             "cpu_seconds")}
        statuses = [r.status for r in runs]
        message = result.message
        if len(set(statuses)) > 1:
            message = f"repeats disagree: {', '.join(statuses)}" + (
                f"; {message}" if message else "")
        result = replace(result, message=message, **medians)
    row: dict[str, object] = {
        "id": ident, "line": line, "instance_hash": instance_hash, "status": result.status,
        "solve_seconds": f"{result.solve_seconds:.6f}",
        "total_seconds": f"{result.total_seconds:.6f}",
        "check_seconds": f"{result.check_seconds:.6f}",
        "load1": f"{load1:.2f}", "message": _clean(result.message),
        "wall_seconds": f"{result.wall_seconds:.6f}", "cpu_seconds": f"{result.cpu_seconds:.6f}",
        "max_rss_mb": f"{result.max_rss_mb:.1f}", "termination": result.termination,
        "measurement": result.measurement, "cores": result.cores,
    }
    for k in STAT_KEYS:
        row[k] = result.stats.get(k, "")
    if len(runs) > 1:
        row["repeats"] = len(runs)
        for c in REPEATED:
            values = [getattr(r, c) for r in runs]
            row[f"{c}_min"], row[f"{c}_max"] = f"{min(values):.6f}", f"{max(values):.6f}"
    return row


def solution_text(status: str, board_text: str, detail: str) -> str:
    """The SatSols line of one instance: the board, or the status text with its reason."""
    if status == SAT:
        return board_text
    text = TEXT.get(status, f"Instance {status}")
    return f"{text}: {detail}" if detail and status in (INVALID, ERROR, WRONG, MEMOUT) else text


def sols_row(ident: str, line: int | str, status: str, verified: str, board_text: str,
             detail: str, instance_hash: str = "") -> dict[str, object]:
    """The SatSols row of one answer (``verified`` FAILED shows as a wrong answer)."""
    shown = WRONG if verified == FAILED else status
    return {"id": ident, "line": line, "instance_hash": instance_hash, "status": status,
            "verified": verified,
            "solution": _clean(solution_text(shown, board_text, detail)),
            "detail": _clean(detail)}


def write_tsv(rows: Iterable[Mapping[str, object]], path: str | Path,
              columns: Sequence[str]) -> int:
    """Write a TSV stage file (header + rows); returns the number of rows."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = TsvWriter(fh, columns)
        for row in rows:
            writer.write(row)
        return writer.rows


class TsvWriter:
    """Rows of a TSV stage file written as they come, exactly as ``csv.DictWriter`` (tab
    delimiter, ``\n`` line ends, minimal quoting, missing and None cells empty) writes them:
    a row that needs no quoting (no quote, tab or line break in a cell: nearly every row) is
    joined directly, any other goes through the csv module."""

    def __init__(self, fh: IO[str], columns: Sequence[str]) -> None:
        self.fh, self.columns, self.rows = fh, list(columns), 0
        self._csv = csv.DictWriter(fh, self.columns, delimiter="\t", lineterminator="\n",
                                   extrasaction="ignore")
        self._csv.writeheader()
        self._tabs = len(self.columns) - 1

    def write(self, row: Mapping[str, object]) -> None:
        self.rows += 1
        values = list(map(row.get, self.columns))
        if None not in values and self._tabs:
            line = "\t".join(map(str, values))
            if line.count("\t") == self._tabs and not _NEEDS_QUOTES.search(line):
                self.fh.write(line + "\n")
                return
        self._csv.writerow(row)


_NEEDS_QUOTES = re.compile('["\r\n]')


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    """The rows of a TSV stage file as dicts (column -> text), as ``csv.DictReader`` reads them.

    A file without quotes or carriage returns (every stage file we write, nearly always) is
    split on tabs and line ends directly; any other goes through the csv module."""
    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    lines = text.split("\n")
    if ('"' in text or "\r" in text or "\0" in text
            or max(map(len, lines)) > _CSV_FIELD_LIMIT):
        return list(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t"))
    if not text:
        return []
    header = lines[0].split("\t") if lines[0] else []  # a blank first line: no field names
    n = len(header)
    rows = []
    for line in lines[1:]:
        if not line:  # DictReader skips blank lines
            continue
        fields = line.split("\t")
        row = dict(zip(header, fields, strict=False))
        if len(fields) < n:  # DictReader: missing cells are None, extra ones go under None
            row.update(dict.fromkeys(header[len(fields):]))
        elif len(fields) > n:
            row[None] = fields[n:]  # type: ignore[index]
        rows.append(row)
    return rows


#: the csv module's default field size limit (a longer field is its error, not ours to hide)
_CSV_FIELD_LIMIT = csv.field_size_limit()


def gather(shards: Sequence[str | Path], tsv_out: str | Path, kind: str,
           txt_out: str | Path | None = None) -> int:
    """Concatenate a set's shard TSVs in order; for SatSols optionally also the plain text file
    (one ``solution`` line per instance). Returns the number of rows.

    Shards with this kind's header whose every row has every cell and needs no quoting (what
    :class:`TsvWriter` writes) are joined line by line: the same file as reading every row
    and writing it again, which any other shard gets."""
    columns = COLUMNS[kind]
    bodies = [_plain_rows(s, columns) for s in shards]
    if all(b is not None for b in bodies):
        lines = [line for b in bodies for line in b]  # type: ignore[union-attr]
        with open(tsv_out, "w", encoding="utf-8", newline="") as fh:
            fh.write("\t".join(columns) + "\n")
            fh.writelines(f"{line}\n" for line in lines)
        if txt_out is not None:
            at = columns.index("solution")
            with open(txt_out, "w", encoding="utf-8") as fh:
                fh.writelines(f"{line.split(chr(9), at + 1)[at]}\n" for line in lines)
        return len(lines)
    rows = [row for s in shards for row in read_tsv(s)]
    write_tsv(rows, tsv_out, columns)
    if txt_out is not None:
        with open(txt_out, "w", encoding="utf-8") as fh:
            fh.writelines(f"{r['solution']}\n" for r in rows)
    return len(rows)


def _plain_rows(path: str | Path, columns: Sequence[str]) -> list[str] | None:
    """The row lines of a TSV whose header is ``columns`` and whose every row has every cell
    and needs no quoting (no quote, carriage return or blank line), else None."""
    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    if '"' in text or "\r" in text or not text.endswith("\n"):
        return None
    lines = text[:-1].split("\n")
    if lines[0] != "\t".join(columns):
        return None
    tabs = len(columns) - 1
    rows = lines[1:]
    if any(line.count("\t") != tabs for line in rows):
        return None
    return rows
