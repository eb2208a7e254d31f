"""Write the static results explorer: ``index.html``, its JS/CSS, plotly's bundle and data files.

The page opens from ``file://`` with no server: browsers refuse ``fetch`` of local files, so every
data file is a script, ``SATDOKU.load("<key>", {...});``, which the page adds as a ``<script>``
tag when it needs it. Files (under ``OUT/data/``):

- ``overview.js``: sets (size, shards, families), runs (solver, encoding, registry colour and
  origin), the solver table (:func:`satdoku.report.solver_tables.solver_table` over the frame the
  summary uses, so the figures equal ``reports/summary.csv``; with its problem columns and where
  the set, solver and encoding cells are), the problems list, and the one-character codes
  (:func:`page_codes`: status words, filter and flag groups, verdicts), so the JS holds no copy.
- ``sets/SET/set.js``: one character per instance for its family and uniqueness verdict.
- ``sets/SET/runK.js``: one run's status per instance (one character, see :data:`STATUS_CHARS`)
  and ``total_seconds`` in whole microseconds (-1: none): what filters, sorts and scatter plots
  read without loading the instances.
- ``sets/SET/chunkC.js``: CHUNK instances in full (puzzle, each run's answer, board, time and
  statistics, uniqueness, formula sizes), in columns (:mod:`.chunks`): what the instance list
  and view read, one chunk at a time.
- ``plots.js``: cactus curves per family (sampled to at most CACTUS_POINTS points per run, each
  point naming its instance); ``pages.js``: the LTN and CSP pages.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
from array import array
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from satdoku.formats import Record
from satdoku.formats.format_registry import get_format
from satdoku.formats.jsonpuzzle import board_out
from satdoku.formats.symbols import ALPHABET, board_chars, parse_board_chars, parse_symbols
from satdoku.report.agreement import Problems, problem_headline
from satdoku.report.collect import (
    DEFAULT_TIME,
    TimeLimits,
    frame,
    frame_of_table,
    time_limits,
    time_word,
)
from satdoku.report.encodings_table import zero_decisions
from satdoku.report.explorer.chunks import ChunkColumns, Key, chunk_text
from satdoku.report.explorer.data import (
    ShardData,
    count_or_number,
    files_plan,
    number,
    present_runs,
    read_set,
    stage_files,
)
from satdoku.report.pairs import pair_line, pairs, with_vbs
from satdoku.report.plots import CACTUS_POINTS, curve_sample
from satdoku.report.solver_tables import (
    formats,
    headers,
    problem_columns,
    solver_table,
)
from satdoku.report.text import board_of
from satdoku.solvers.registry import colour, origin
from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.families import INVALID_FAMILY, family_of_record, sort_key
from satdoku.stagefiles.instances import LayoutSignatures, record_from_dict, record_to_dict
from satdoku.stagefiles.manifest import read_manifest
from satdoku.stagefiles.paths import RUN_MANIFEST
from satdoku.stagefiles.propagation_files import read_summary
from satdoku.stagefiles.runtable import table_of_files
from satdoku.stagefiles.tsv import read_tsv

#: Status of one run on one instance, one character: a wrong answer (failed verification) is
#: lower case, a missing row '-'.
STATUS_CHARS = {"SAT": "S", "UNSAT": "U", "TIMEOUT": "T", "MEMOUT": "M", "INVALID": "I",
                "ERROR": "E"}
#: The character of an instance without a row (no status, no uniqueness verdict).
MISSING_CHAR = "-"
#: Uniqueness verdict, one character ('-': not checked).
VERDICT_CHARS = {"unique": "u", "several": "s", "none": "n", "unknown": "?", "invalid": "i"}
#: A family's one-character code in a set's meta file: its index in the set's family list.
CODES = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Problems listed in the overview (a run with 100,000 wrong answers still opens fast; the
#: instance list's "wrong answer" filter finds them all).
MAX_PROBLEMS = 500
STATIC = ("index.html", "explorer.js", "board.js", "plots.js", "explorer.css")
#: Columns of the long frame the solver table needs (the rest is dropped to save memory).
TABLE_COLUMNS = ["set", "run", "solver", "encoding", "id", "line", "family", "status",
                 "verified", "solved", "seconds", "solve_seconds", "decisions", "conflicts",
                 "seconds_min", "seconds_max"]
#: Columns of TABLE_COLUMNS kept as categories while sets are read (a few words, a million rows)
#: and made plain again in :meth:`Explorer.frame`.
CATEGORY_COLUMNS = ("status", "verified", "run", "solver", "encoding", "family")


def js_data(key: str, value: Any) -> str:
    """A data file's text: one ``SATDOKU.load`` call (JSON is valid JavaScript)."""
    return f"SATDOKU.load({json.dumps(key)}, {json.dumps(value, separators=(',', ':'))});\n"


def _write(path: Path, key: str, value: Any) -> None:
    _write_text(path, js_data(key, value))


def _write_text(path: Path, text: str) -> None:
    """A data file of the site, its directory made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _clean(v: Any) -> Any:
    """JSON-safe table cell: NaN -> None, numpy scalars -> Python."""
    if hasattr(v, "item"):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v


def status_char(row: Mapping[str, str] | None) -> str:
    if row is None:
        return MISSING_CHAR
    return _status_char(row["status"], row.get("verified"))


def _status_char(status: str | None, verified: str | None) -> str:
    """One run's status character (:data:`STATUS_CHARS`; '-': no row)."""
    if status is None:
        return MISSING_CHAR
    c = STATUS_CHARS.get(status, "E")
    return c.lower() if verified == "FAILED" else c


def _chars(*statuses: str, wrong: bool = False) -> str:
    """The status characters of ``statuses`` (their wrong-answer forms with ``wrong``)."""
    return "".join(STATUS_CHARS[s].lower() if wrong else STATUS_CHARS[s] for s in statuses)


def page_codes() -> dict[str, Any]:
    """How the page reads the one-character columns (shipped in the overview, so explorer.js
    keeps no copy): each status character's word, the groups the list's filters, instance
    flags and the scatter plot test (a flag holds when every one of its groups has some run's
    character), the uniqueness verdicts and the family codes."""
    solved = _chars("SAT", "UNSAT")
    wrong = _chars("SAT", "UNSAT", wrong=True)
    words = {c: s for s, c in STATUS_CHARS.items()}
    words.update({c.lower(): f"WRONG {s}" for s, c in STATUS_CHARS.items()
                  if c.lower() in wrong})
    words[MISSING_CHAR] = MISSING_CHAR
    filters = {"solved": ["solved (SAT/UNSAT)", solved]}
    filters.update({STATUS_CHARS[s]: [s, STATUS_CHARS[s]]
                    for s in ("SAT", "UNSAT", "TIMEOUT", "MEMOUT", "ERROR", "INVALID")})
    filters["wrong"] = ["wrong answer", wrong]
    filters["unsolved"] = ["not solved (timeout, memout, error, wrong)",
                           _chars("TIMEOUT", "MEMOUT", "ERROR") + wrong]
    filters["missing"] = ["no answer", MISSING_CHAR]
    flags = {
        "disagree": ["solvers disagree (SAT vs UNSAT)",
                     [_chars("SAT") + _chars("SAT", wrong=True),
                      _chars("UNSAT") + _chars("UNSAT", wrong=True)]],
        "split": ["one solver timed out, another solved it", [_chars("TIMEOUT"), solved]],
        "wrong": ["some answer failed verification", [wrong]],
    }
    verdicts = {c: v for v, c in VERDICT_CHARS.items()}
    verdicts[MISSING_CHAR] = MISSING_CHAR
    return {"status": words, "solved": solved, "wrong": wrong,
            "no_point": _chars("INVALID") + MISSING_CHAR, "filters": filters, "flags": flags,
            "verdicts": verdicts, "families": CODES}


def _problem_rows(objects: Sequence[Mapping[str, Any]], cols: Mapping[str, Sequence[Any]]
                  ) -> list[dict[str, str]]:
    """The SatSols rows of one run over a shard's instances, as the problem finder reads them
    (instances the run has no row for left out)."""
    return [{"id": str(d["id"]), "line": str(cols["line"][j]), "status": s,
             "verified": cols["verified"][j], "detail": cols["detail"][j]}
            for j, (d, s) in enumerate(zip(objects, cols["status"], strict=True))
            if s is not None]


def instance_base(rec: Record) -> dict[str, Any]:
    """An instance as the page draws it: its Instances object (stage-file fields) plus the
    grid ``shape``, its family (``fam``: the one the summary groups by) and its
    ``instance_hash`` (``hash``)."""
    d = record_to_dict(rec)
    out: dict[str, Any] = {"id": int(rec.id), "line": rec.line, "fam": family_of_record(d),
                           "notation": rec.notation, "source": rec.source}  # dropped if the set's
    if rec.name:
        out["name"] = rec.name
    if d.get("instance_hash"):
        out["hash"] = d["instance_hash"]
    if rec.puzzle is not None:
        for k in ("id", "line", "source", "notation", "empty", "name", "instance_hash"):
            d.pop(k, None)
        d["shape"] = list(rec.puzzle.layout.shape)
        d["domain"] = rec.puzzle.domain
        out["p"] = d
    elif rec.cnf is not None:  # an instance of a CNF set: a DIMACS file, no board
        path = Path(rec.cnf.path)
        out["cnf"] = {"path": rec.cnf.path, "vars": rec.cnf.num_vars,
                      "clauses": rec.cnf.num_clauses, "sha256": rec.cnf.sha256,
                      "bytes": path.stat().st_size if path.is_file() else None}
    else:
        out["error"] = rec.error
    return out


def run_answer(rec: Record, sol: Mapping[str, str] | None, t: Mapping[str, str] | None,
               boards: list[Any], seen: dict[str, int] | None = None) -> dict[str, Any] | None:
    """One run's answer for an instance: status, verification, board (an index into
    ``boards``, which collects the instance's distinct solved boards; ``seen`` maps SatSols
    texts already read to their index, so runs that agree cost one parse), times, statistics."""
    if sol is None and t is None:
        return None
    src = sol or t or {}
    out: dict[str, Any] = {"s": src.get("status", ""), "v": (sol or {}).get("verified", "-")}
    message = (sol or {}).get("detail") or (t or {}).get("message") or ""
    if message:
        out["m"] = message
    text = sol.get("solution") if sol else None
    if text and sol["status"] == "SAT" and sol["verified"] != "FAILED" \
            and rec.puzzle is not None:
        seen = {} if seen is None else seen
        if text not in seen:
            board = board_out(board_of(rec, text), rec.puzzle.domain)
            if board not in boards:
                boards.append(board)
            seen[text] = boards.index(board)
        out["b"] = seen[text]
    if t:
        for key, col in (("t", "total_seconds"), ("ts", "solve_seconds"), ("d", "decisions"),
                         ("c", "conflicts"), ("p", "propagations"), ("rs", "restarts"),
                         ("l", "learnt"), ("load", "load1")):
            v = count_or_number(t.get(col))
            if v is not None:
                out[key] = v
        for key, col in ANSWER_TEXTS:
            if t.get(col):
                out[key] = t[col]
    return out


#: the numbers of an answer (:func:`run_answer`): (key, run-table column, whether a count)
ANSWER_NUMBERS = (("t", "total_seconds", False), ("ts", "solve_seconds", False),
                  ("d", "decisions", True), ("c", "conflicts", True), ("p", "propagations", True),
                  ("rs", "restarts", True), ("l", "learnt", True), ("load", "load1", False))
#: the texts of an answer: which backend measured it and the cores its solver was pinned to
ANSWER_TEXTS = (("ms", "measurement"), ("co", "cores"))


class _Bases:
    """Instances objects as the page draws them (:func:`instance_base`), and the board each
    answer's SatSols text means, for a whole set: a puzzle of a layout seen before is taken
    from its object as it stands (the object is what :func:`instance_base` would rebuild from
    it: checked on the first of each layout), its boards read with the symbol table; any other
    object goes through a record (:func:`instance_base`, :func:`run_answer`'s board)."""

    def __init__(self) -> None:
        self.layouts: dict[tuple[Any, ...], dict[str, Any] | None] = {}
        self.signature = LayoutSignatures()
        #: what the page needs of each plain layout (fam, shape, domain), by its ``index``
        self.shown: list[dict[str, Any]] = []

    def plain_layout(self, d: dict[str, Any]) -> dict[str, Any] | None:
        """The layout of an object the page can take as it stands (None: it goes through a
        record, :meth:`reference`)."""
        sig = self.signature(d)
        lay = None if sig is None else self.layouts.get(sig, False)
        if lay is False:
            lay = self.layouts[sig] = self._layout(d)  # type: ignore[index]
            if lay is not None:
                lay["index"] = len(self.shown)
                self.shown.append({"fam": lay["fam"], "shape": list(lay["shape"]),
                                   "domain": lay["domain"]})
        return lay if lay is not None and self._plain(d, lay) else None

    @staticmethod
    def board(lay: dict[str, Any], d: dict[str, Any]) -> Callable[[str], Any] | None:
        """The board reader of a plain object's answers."""
        return functools.partial(_symbol_board, lay, d["givens"]) if lay["symbols"] else \
            _Bases.reference(d)[1]

    def __call__(self, d: dict[str, Any]) -> tuple[dict[str, Any], Callable[[str], Any] | None]:
        lay = self.plain_layout(d)
        if lay is None:
            return self.reference(d)
        out: dict[str, Any] = {"id": int(d["id"]), "line": d["line"], "fam": lay["fam"],
                               "notation": d["notation"], "source": d["source"]}
        if "name" in d:
            out["name"] = d["name"]
        out["hash"] = d["instance_hash"]
        p = {k: v for k, v in d.items() if k not in _BASE_KEYS}
        p["shape"], p["domain"] = list(lay["shape"]), lay["domain"]
        out["p"] = p
        return out, self.board(lay, d)

    @staticmethod
    def _plain(d: dict[str, Any], lay: dict[str, Any]) -> bool:
        """Whether an object is written as its layout's first one was (canonical boards, an id
        and a hash, a name only when there is one)."""
        allowed = lay["allowed"]
        return (isinstance(d.get("givens"), str) and not d["givens"].strip(allowed)
                and (not isinstance(d.get("solution"), str) or not d["solution"].strip(allowed))
                and bool(d.get("instance_hash")) and bool(d.get("name", "x"))
                and str(d["id"]).isdigit() and str(int(d["id"])) == str(d["id"])
                and type(d.get("line")) is int and isinstance(d.get("notation"), str)
                and isinstance(d.get("source"), str))

    def _layout(self, d: dict[str, Any]) -> dict[str, Any] | None:
        """What every puzzle of this object's layout shares, or None when its objects must go
        through a record (the object is not what :func:`instance_base` rebuilds)."""
        try:
            rec = record_from_dict(d)
        except (ValueError, KeyError, TypeError):
            return None
        p = rec.puzzle
        if p is None or p.domain > len(ALPHABET) or not isinstance(d.get("givens"), str):
            return None
        try:
            symbols = get_format(rec.notation).parse_board is parse_symbols \
                and p.size <= len(ALPHABET)
        except (KeyError, ValueError):
            symbols = False
        lay = {"fam": family_of_record(d), "shape": p.layout.shape, "domain": p.domain,
               "side": p.size, "ncells": p.ncells, "symbols": symbols,
               "allowed": "." + ALPHABET[:p.domain], "full": ALPHABET[:min(p.domain, p.size)]}
        if not self._plain(d, lay):
            return None
        base = instance_base(rec)
        mine = {"id": int(d["id"]), "line": int(d["line"]), "fam": lay["fam"],
                "notation": d["notation"], "source": d["source"],
                **({"name": d["name"]} if "name" in d else {}), "hash": d["instance_hash"],
                "p": {**{k: v for k, v in d.items() if k not in _BASE_KEYS},
                      "shape": list(p.layout.shape), "domain": p.domain}}
        return lay if json.dumps(mine) == json.dumps(base) else None

    @staticmethod
    def reference(d: dict[str, Any]) -> tuple[dict[str, Any], Callable[[str], Any] | None]:
        """The instance as :func:`instance_base` builds it from a record, and its board
        reader (None: no puzzle)."""
        rec = record_from_dict(d)
        if rec.puzzle is None:
            return instance_base(rec), None

        def board(text: str) -> Any:
            assert rec.puzzle is not None
            return board_out(board_of(rec, text), rec.puzzle.domain)

        return instance_base(rec), board


#: Instances fields an instance's ``p`` object leaves out (the instance object has them)
_BASE_KEYS = frozenset(("id", "line", "source", "notation", "empty", "name", "instance_hash"))


def _symbol_board(lay: Mapping[str, Any], givens: str, text: str) -> str:
    """The board a SatSols text of a symbol notation means, as the page draws it (the
    puzzle's givens when the text is no board of its size: :func:`report.text.board_of`)."""
    if len(text) == lay["ncells"] and not text.strip(lay["full"]):
        return text  # a full board in upper-case symbols: as the page draws it already
    values, _ = parse_board_chars(text.strip(), lay["side"])
    if values is None or len(values) != lay["ncells"]:
        values, _ = parse_board_chars(givens, lay["domain"])
        assert values is not None
    return board_chars(values, ".")


@dataclass
class _SetColumns:
    """What the list and the plots read of a whole set: one entry per instance."""

    ids: array = field(default_factory=lambda: array("q"))
    families: list[str] = field(default_factory=list)
    fam_codes: list[str] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    status: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    micros: dict[int, array] = field(default_factory=lambda: defaultdict(lambda: array("q")))

    def family_code(self, fam: str) -> str:
        if fam not in self.families:
            self.families.append(fam)
        return CODES[min(self.families.index(fam), len(CODES) - 1)]

    def add(self, ids: Sequence[int], fams: Sequence[str], verdicts: Sequence[str],
            status: Sequence[Sequence[str]], seconds: Sequence[Sequence[float | None]]) -> None:
        """Instances (a shard's, at once): their ids, families and uniqueness verdicts, and per
        run their status characters and total seconds (kept in whole microseconds, rounded
        half to even as ``round`` does, -1 for none)."""
        import numpy as np

        self.ids.extend(ids)
        codes = {f: self.family_code(f) for f in dict.fromkeys(fams)}  # first seen, first coded
        self.fam_codes.extend(map(codes.__getitem__, fams))
        self.verdicts.extend(verdicts)
        for k, (chars, secs) in enumerate(zip(status, seconds, strict=True)):
            self.status[k].extend(chars)
            t = np.array([math.nan if v is None else v for v in secs], dtype=np.float64)
            micros = np.where(np.isnan(t), -1, np.rint(t * 1e6)).astype(np.int64)
            self.micros[k].extend(micros.tolist())


@dataclass
class Explorer:
    """The explorer of one results directory, filled set by set, then written."""

    results: Path
    out: Path
    runs: list[str]
    time_limit: TimeLimits | float | None
    variants: Mapping[str, Mapping] = field(default_factory=dict)
    chunk: int = 1000
    time_column: str = DEFAULT_TIME
    sets: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    problem_runs: set[tuple[str, str]] = field(default_factory=set)
    #: (family, run) -> solved instances: seconds, set (index into set_names), id
    cactus: dict[tuple[str, str], tuple[array, array, array]] = field(
        default_factory=lambda: defaultdict(lambda: (array("d"), array("I"), array("q"))))
    set_names: list[str] = field(default_factory=list)
    family_totals: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        self.time_limit = time_limits(self.time_limit)  # a number: every set's limit

    # ---- one set -----------------------------------------------------------------------------
    def add_set(self, name: str, table=None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        """Read one set shard by shard (its rows from the run ``table``, default: the run table
        of its stage files); write its chunk and column files; keep its table rows."""
        runs = present_runs(self.results, name, self.runs)
        encodings = sorted({r.partition("/")[2] for r in runs} - {sp.DIRECT, sp.DIMACS, ""})
        cols = _SetColumns()
        shards: list[list[Any]] = []
        chunks = ChunkColumns(self.chunk)
        written = 0  # chunks written; chunk c holds the instances at positions c*CHUNK...
        common: dict[str, str] = {}  # source file and notation of the set's first instance
        unique_seen = False
        found = Problems(name)
        bases = _Bases()
        if table is None:
            table = table_of_files(stage_files(self.results, [name], runs))
        self._set_frame(name, runs, table)
        for data in read_set(self.results, name, runs, encodings, table, self.time_column):
            if data.objects:
                shards.append([data.shard, int(data.objects[0]["id"]), len(data.objects)])
            unique_seen |= bool(data.unique)
            found.add({run: _problem_rows(data.objects, cols_)
                       for run, cols_ in data.answers.items()})
            part = self._shard(runs, data, cols, bases, common)
            for full in chunks.add(part, len(data.objects)):
                self._flush(name, written, full, bases)
                written += 1
        last = chunks.rest()
        if last is not None:
            self._flush(name, written, last, bases)
        self.problems += found.texts()
        self.problem_runs.update((name, run) for run in found.runs())
        first = cols.ids[0] if cols.ids else 1
        contiguous = cols.ids.tolist() == list(range(first, first + len(cols.ids)))
        d = self.out / "data" / "sets" / name
        _write(d / "set.js", f"set:{name}",
               {"fam": "".join(cols.fam_codes), "uq": "".join(cols.verdicts),
                "ids": None if contiguous else cols.ids.tolist()})
        for k, run in enumerate(runs):
            _write(d / f"run{self.runs.index(run)}.js", f"col:{name}:{self.runs.index(run)}",
                   {"s": "".join(cols.status[k]), "t": cols.micros[k].tolist()})
        info = {"name": name, "n": len(cols.ids), "first": first, "shards": shards, **common,
                "families": cols.families, "runs": [self.runs.index(r) for r in runs],
                "unique": unique_seen, "encodings": encodings,
                "scatter": self._default_pair(runs)}
        self.sets.append(info)
        return info

    def _answers(self, key: str, a: Mapping[str, list[Any]], n: int) -> dict[Key, list[Any]]:
        """One run's answers over a shard's instances as chunk columns (:mod:`.chunks`): what
        :func:`run_answer` makes of each row but the board (``b``, filled per instance)."""
        status = a["status"]
        message = a.get("message", [None] * n)
        out: dict[Key, list[Any]] = {
            ("r", key, "s"): status, ("r", key, "v"): a["verified"],
            ("r", key, "m"): [m or x or None for m, x in zip(a["detail"], message, strict=True)],
            ("r", key, "b"): [None] * n}
        for field_, col, count in ANSWER_NUMBERS:
            if col in a:
                out[("r", key, field_)] = [
                    None if v is None or v - v != 0 else int(v) if count and v.is_integer()
                    else v for v in a[col]]
        for field_, col in ANSWER_TEXTS:
            if col in a:
                out[("r", key, field_)] = [v or None for v in a[col]]
        return out

    def _shard(self, runs: Sequence[str], data: ShardData, cols: _SetColumns,
               bases: _Bases, common: dict[str, str]) -> dict[Key, list[Any]]:
        """The instances of one shard as chunk columns (:mod:`.chunks`; each run's answer as
        :func:`run_answer` makes it, from the run's columns taken apart once per shard); fills
        the set's columns and ``common`` (the first instance's source and notation)."""
        n = len(data.objects)
        part: dict[Key, list[Any]] = {}
        per_run = []
        for run in runs:
            a = data.answers[run]
            key = str(self.runs.index(run))
            part.update(self._answers(key, a, n))
            seconds = a[self.time_column] if self.time_column in a else [None] * n
            per_run.append((a["status"], a["verified"], a["solution"], seconds,
                            part[("r", key, "b")]))
        raws: list[str | None] = [None] * n
        lays: list[int | None] = [None] * n
        built: list[dict[str, Any] | None] = [None] * n
        boards_col: list[list[Any] | None] = [None] * n
        u_col: list[dict[str, Any] | None] = [None] * n
        sz_col: list[dict[str, Any] | None] = [None] * n
        pg_col: list[dict[str, Any] | None] = [None] * n
        sg_col: list[str | None] = [None] * n
        unique, sizes_of = data.unique, data.sizes
        ids: list[int] = []
        fams: list[str] = []
        verdicts: list[str] = []
        status_rows: list[list[str]] = []
        seconds_rows: list[list[float | None]] = []
        for j, d in enumerate(data.objects):
            i = str(d["id"])
            lay = bases.plain_layout(d)
            if lay is None:
                inst, board = bases.reference(d)
                fam = inst["fam"]
                for key in ("source", "notation"):  # said once per set (see add_set)
                    common.setdefault(key, inst[key])
                    if inst[key] == common[key]:
                        del inst[key]
                built[j] = inst
            else:
                raws[j], lays[j], fam = data.texts[j], lay["index"], lay["fam"]
                board = bases.board(lay, d)
                for key in ("source", "notation"):
                    common.setdefault(key, d[key])
            boards: list[Any] = []
            seen: dict[str, int] = {}
            chars, times = [], []
            valid = False
            for status, verified, solution, secs, b in per_run:
                st = status[j]
                if st is None:
                    chars.append(MISSING_CHAR)
                    times.append(None)
                    continue
                ve = verified[j]
                text = solution[j]
                if text and st == "SAT" and ve != "FAILED" and board is not None:
                    if text not in seen:
                        value = board(text)
                        if value not in boards:
                            boards.append(value)
                        seen[text] = boards.index(value)
                    b[j] = seen[text]
                chars.append(_status_char(st, ve))
                t = secs[j]
                times.append(None if t is None or t - t != 0 else t)
                valid = valid or st != "INVALID"
            if boards:
                boards_col[j] = boards
            u = unique.get(i)
            if u:
                u_col[j] = {"n": u.get("solutions", ""), "v": u["verdict"],
                            "t": number(u.get("seconds"))}
            if sizes_of:
                sizes = {e: z for e, rows in sizes_of.items() if (z := rows.get(i))}
                if sizes:
                    sz_col[j] = sizes
            analysed = data.propagation.get(i)
            if analysed:  # encoding -> [UP, its open cells, FL, its open cells]; the singles
                pg_col[j] = {e: [r["up"], r["up_open"], r["fl"], r["fl_open"]]
                             for e, r in analysed.items() if e != "-"}
                sg_col[j] = next(iter(analysed.values()))["singles"]
            ids.append(int(i))
            fams.append(fam)
            verdicts.append(VERDICT_CHARS.get(u["verdict"], "?") if u else MISSING_CHAR)
            status_rows.append(chars)
            seconds_rows.append(times)
            if valid and fam != INVALID_FAMILY:
                self.family_totals[fam] += 1
        cols.add(ids, fams, verdicts, list(zip(*status_rows, strict=True)) or [[] for _ in runs],
                 list(zip(*seconds_rows, strict=True)) or [[] for _ in runs])
        part.update({("raw",): raws, ("lay",): lays, ("built",): built, ("boards",): boards_col,
                     ("u",): u_col, ("sz",): sz_col, ("pg",): pg_col, ("sg",): sg_col})
        return part

    def _set_frame(self, name: str, runs: Sequence[str], table) -> None:  # type: ignore[no-untyped-def]
        """The summary's long rows of a set (:func:`collect.frame_of_table` over its rows in the
        run table): kept, as a small frame, for the solver table; solved ones give the cactus
        points (with their instance)."""
        import numpy as np
        import pyarrow.compute as pc

        if not runs:
            return
        mine = table.filter(pc.equal(table.column("set"), name))
        run_of = pc.binary_join_element_wise(mine.column("solver"), mine.column("encoding"),
                                             "/")
        mine = mine.filter(pc.is_in(run_of, value_set=pc.cast(runs, "string")))
        f = frame_of_table(mine, self.time_column)
        if name not in self.set_names:
            self.set_names.append(name)
        where = self.set_names.index(name)
        if not len(f):
            return
        ok = ((f["family"] != INVALID_FAMILY) & (f["status"] != "INVALID") & f["solved"]
              & f["seconds"].notna()).to_numpy()
        points = f.loc[ok, ["family", "run", "seconds", "id"]]
        for (fam, run), g in points.groupby(["family", "run"], sort=False):
            secs, sets, ids = self.cactus[(str(fam), str(run))]
            secs.extend(g["seconds"].to_numpy(dtype=float).tolist())
            sets.extend([where] * len(g))
            ids.extend(np.asarray(g["id"], dtype=np.int64).tolist())
        f = f[TABLE_COLUMNS].copy()
        for c in CATEGORY_COLUMNS:
            f[c] = f[c].astype("category")  # a few words, a million rows
        self.frames.append(f)

    def _flush(self, name: str, index: int, columns: Mapping[Key, list[Any]],
               bases: _Bases) -> None:
        _write_text(self.out / "data" / "sets" / name / f"chunk{index}.js",
                    chunk_text(f"chunk:{name}:{index}", columns, bases.shown, sorted(_BASE_KEYS)))

    def _default_pair(self, runs: Sequence[str]) -> list[int] | None:
        """The scatter plot shown first: a reference solver (x) against one of ours (y) on the
        same encoding (or a puzzle-level reference), else the first two runs."""
        def ori(run: str) -> str:
            return origin(run.partition("/")[0], dict(self.variants))

        for y in runs:
            if ori(y) != "ours":
                continue
            for x in runs:
                if ori(x) == "reference" and x.partition("/")[2] in (y.partition("/")[2],
                                                                      sp.DIRECT):
                    return [self.runs.index(x), self.runs.index(y)]
        return [self.runs.index(runs[0]), self.runs.index(runs[1])] if len(runs) > 1 else None

    # ---- across sets ---------------------------------------------------------------------------
    def frame(self):
        """The summary's long frame of every set read (categories back to plain columns)."""
        import pandas as pd

        if not self.frames:
            return frame([])
        df = pd.concat(self.frames, ignore_index=True)
        for c in CATEGORY_COLUMNS:
            df[c] = df[c].astype(str)
        return df

    def table(self, df=None) -> dict[str, Any]:
        """The solver table of every set, virtual best solvers and empty sets included (the
        summary's functions over the summary's frame)."""
        df = self.frame() if df is None else df
        table = solver_table(with_vbs(df, self.variants) if len(df) else df, self.time_limit,
                             sets=[s["name"] for s in self.sets],
                             time_column=self.time_column)
        columns = list(table.columns)
        rows = [[_clean(v) for v in row] for row in table.itertuples(index=False)]
        at = {k: columns.index(k) for k in ("set", "solver", "encoding")}
        problem = [(r[at["set"]], f"{r[at['solver']]}/{r[at['encoding']]}") in self.problem_runs
                   for r in rows]
        return {"columns": columns, "headers": headers(table), "formats": formats(table),
                "problem_columns": problem_columns(table), "at": at, "rows": rows,
                "problem": problem}

    def propagation(self, df=None) -> list[dict[str, Any]]:
        """The propagation analysis of every analysed set (its propagation.csv rows: what UP,
        FL and the singles solve per layout and encoding), each with the share of the set's
        instances every run of that encoding solved with zero decisions (run index ->
        share)."""
        df = self.frame() if df is None else df
        zero = zero_decisions(df, ["set", "run"], self.variants) if len(df) else None
        valid = df[df["status"] != "INVALID"].groupby(["set", "run"]).size() if len(df) else {}
        out = []
        for s in self.sets:
            path = sp.stage_path(sp.PROPAGATION_SUMMARY, self.results, set=s["name"])
            if not path.exists():
                continue
            for row in read_summary(path):
                shares = {}
                for k in s["runs"]:
                    run = self.runs[k]
                    if run.partition("/")[2] != row["encoding"] or zero is None:
                        continue
                    hit = zero[(zero["set"] == s["name"]) & (zero["run"] == run)]["zero"]
                    n = valid.get((s["name"], run), 0)
                    if n and len(hit):
                        shares[str(k)] = round(float(hit.sum()) / n, 4)
                out.append({**row, "zero": shares})
        return out

    def pairs(self, df=None) -> list[dict[str, Any]]:
        """Every two runs of a set compared (reports/pairs.csv's rows), with the line the
        scatter view shows under the plot of those two runs."""
        df = self.frame() if df is None else df
        if not len(df):
            return []
        return [{"set": r["set"], "a": self.runs.index(r["run_a"]),
                 "b": self.runs.index(r["run_b"]), "line": pair_line(r)}
                for r in pairs(df, self.time_limit, self.variants).to_dict("records")]

    def _curve(self, run: int, secs, sets, ids) -> dict[str, Any]:
        """One cactus curve: solved instances sorted by time, sampled evenly to at most
        CACTUS_POINTS points (the last one always kept), each point naming its instance."""
        import numpy as np

        order = np.argsort(secs, kind="stable")
        m = len(order)
        keep = curve_sample(m, CACTUS_POINTS)
        pick = order[keep]
        return {"run": run, "x": (keep + 1).tolist(), "y": secs[pick].tolist(),
                "set": [self.set_names[k] for k in sets[pick].tolist()],
                "id": ids[pick].tolist(), "solved": m}

    def cactus_plots(self) -> list[dict[str, Any]]:
        """Per family: every run's solved instances sorted by time, and (two runs or more) the
        virtual best solver's (``run`` -1: per instance the fastest run that solved it)."""
        import numpy as np

        out = []
        for fam in sorted(self.family_totals, key=sort_key):
            curves = []
            best: dict[tuple[int, int], float] = {}
            for run in self.runs:
                if (fam, run) not in self.cactus:
                    continue
                secs, sets, ids = (np.asarray(a) for a in self.cactus[(fam, run)])
                curves.append(self._curve(self.runs.index(run), secs, sets, ids))
                for t, k, i in zip(secs.tolist(), sets.tolist(), ids.tolist(), strict=True):
                    if t < best.get((k, i), math.inf):
                        best[(k, i)] = t
            if len(curves) > 1:
                keys = list(best)
                curves.append(self._curve(
                    -1, np.asarray([best[k] for k in keys]),
                    np.asarray([k for k, _ in keys], dtype=int),
                    np.asarray([i for _, i in keys], dtype=np.int64)))
            fam_sets = sorted({self.set_names[k] for run in self.runs if (fam, run) in self.cactus
                               for k in set(self.cactus[(fam, run)][1].tolist())})
            limits = self.time_limit.by_limit(fam_sets)
            out.append({"family": fam, "total": self.family_totals[fam], "curves": curves,
                        "limits": [[k, v] for k, v in sorted(limits.items())]})
        return out

    def run_info(self) -> list[dict[str, Any]]:
        out = []
        for run in self.runs:
            solver, _, encoding = run.partition("/")
            v = dict(self.variants)
            out.append({"run": run, "solver": solver, "encoding": encoding or "-",
                        "colour": colour(solver, v), "origin": origin(solver, v)})
        return out


def pages(pages_dir: Path, out: Path, variants: Mapping[str, Mapping]) -> dict[str, Any]:
    """The LTN evaluations (``ltn_SIZE.json``, with their figures) and the CSP largest-n
    experiment (runs from ``csp_largest_n.tsv``, its summary table ``.md``, its ``.png``) found in
    ``pages_dir``; figures are copied into ``out/pages`` so the explorer folder stands alone."""
    dest = out / "pages"
    ltn = []
    reports = sp.file_name(sp.LTN_REPORT, size="*", ext="json")
    for f in sorted(pages_dir.glob(reports), key=lambda p: (len(p.stem), p.stem)):
        size = (sp.match(Path(sp.LTN_REPORT).name, f.name) or {}).get("size", "")
        if not size.isdigit():
            continue  # ltn_4_memory.json and the like
        summary = json.loads(f.read_text(encoding="utf-8"))
        q3 = dict(summary.get("q3") or {})
        q3.pop("memory", None)
        q2 = dict(summary.get("q2") or {})
        q2.pop("records", None)  # per-board records: the band table carries their figures
        images = []
        for png in sorted(pages_dir.glob(sp.file_name(sp.LTN_FIGURE, size=size, figure="*"))):
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(png, dest / png.name)
            images.append(png.name)
        ltn.append({"size": int(size), "headline": summary.get("headline"),
                    "q1": summary.get("q1"), "q2": q2, "q3": q3,
                    "examples": summary.get("examples"), "images": images,
                    "seconds": summary.get("seconds")})
    csp = None
    tsv, png, md = (pages_dir / sp.file_name(sp.CSP_REPORT, ext=x) for x in ("tsv", "png", "md"))
    if tsv.exists():
        rows = read_tsv(tsv)
        image = None
        if png.exists():
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(png, dest / png.name)
            image = png.name
        solvers = list(dict.fromkeys(r["solver"] for r in rows))
        # md: the experiment's own summary table, shown as is
        csp = {"rows": rows, "md": md.read_text(encoding="utf-8") if md.exists() else "",
               "image": image, "colours": {s: colour(s, dict(variants)) for s in solvers}}
    return {"ltn": ltn, "csp": csp}


def copy_static(out: Path) -> None:
    """The page, its JS/CSS (package data) and plotly's offline bundle (from the plotly
    package: no CDN, no network at view time)."""
    from plotly.offline import get_plotlyjs

    static = resources.files("satdoku.report.explorer") / "static"
    for name in STATIC:
        (out / name).write_bytes((static / name).read_bytes())
    bundle = out / "plotly.min.js"
    text = get_plotlyjs()
    if not bundle.exists() or bundle.stat().st_size != len(text.encode("utf-8")):
        bundle.write_text(text, encoding="utf-8")


def explorer_from_files(files: Sequence[str | Path], time_limit: TimeLimits | float | None,
                        out_dir: str | Path, variants: Mapping[str, Mapping] | None = None,
                        pages_dir: str | Path | None = None,
                        time_column: str = DEFAULT_TIME) -> dict[str, Any]:
    """:func:`build_explorer` of the sets and runs whose gathered stage files are given (what
    the rule passes, like the other cross-set reports)."""
    results, sets, runs = files_plan(files)
    return build_explorer(results, sets, runs, time_limit, out_dir, variants, pages_dir,
                          time_column=time_column)


def build_explorer(results: str | Path, sets: Sequence[str], runs: Sequence[str],
                   time_limit: TimeLimits | float | None, out_dir: str | Path,
                   variants: Mapping[str, Mapping] | None = None,
                   pages_dir: str | Path | None = None, chunk: int = 1000,
                   title: str = "satdoku results",
                   time_column: str = DEFAULT_TIME) -> dict[str, Any]:
    """Write the explorer of ``sets`` x ``runs`` under ``results`` into ``out_dir``; returns
    the overview it wrote (sets, runs, table, problems). Each set is measured against its own
    limit (``time_limit``: :class:`TimeLimits`, or one number for every set)."""
    limits = time_limits(time_limit)
    out = Path(out_dir)
    if (out / "data").exists():
        shutil.rmtree(out / "data")  # stale chunks of an earlier, larger run
    if (out / "pages").exists():
        shutil.rmtree(out / "pages")
    out.mkdir(parents=True, exist_ok=True)
    ex = Explorer(Path(results), out, list(runs), limits, dict(variants or {}), chunk,
                  time_column)
    table = table_of_files(stage_files(results, sets, runs))
    for name in sets:
        ex.add_set(name, table)
    extra = pages(Path(pages_dir) if pages_dir else Path(results) / "Reports", out,
                  ex.variants)
    df = ex.frame()
    _write(out / "data" / "plots.js", "plots", {"cactus": ex.cactus_plots()})
    _write(out / "data" / "pages.js", "pages", extra)
    overview = {
        "title": title, "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "run": read_manifest(Path(results) / RUN_MANIFEST),
        "results": os.path.relpath(Path(results).resolve(), out.resolve()),
        "workdir": os.path.relpath(Path.cwd(), out.resolve()),  # input paths are relative to it
        "results_arg": str(results), "time_limit": limits.default, "chunk": chunk,
        "limits": {s["name"]: limits.of(s["name"]) for s in ex.sets},
        "time_column": time_column, "time_word": time_word(time_column),
        "runs": ex.run_info(), "sets": ex.sets, "table": ex.table(df), "pairs": ex.pairs(df),
        "propagation": ex.propagation(df),
        "problems": ex.problems[:MAX_PROBLEMS], "problems_total": len(ex.problems),
        "problems_headline": problem_headline(len(ex.problems)),
        "codes": page_codes(),
        "pages": {"ltn": [p["size"] for p in extra["ltn"]], "csp": extra["csp"] is not None},
    }
    _write(out / "data" / "overview.js", "overview", overview)
    copy_static(out)
    return overview
