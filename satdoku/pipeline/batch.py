"""The solve stage's per-puzzle loop in compiled code, for the shards it covers.

A shard of puzzles solved incrementally (the rules loaded once, each puzzle's givens as
assumptions) spends most of its time around the search when the loop is Python: reading the
bundle, building each puzzle, decoding, checking and writing three stage files. Here the loop is
``satdoku/pipeline/_batch.c``: :func:`plan` reads the shard (the bundle scanned in C, the
Instances objects as JSON, no puzzle built per instance) and :func:`solve_planned` hands runs of
puzzles to a compiled ``Runner``, which solves each under its givens with the solver the
adapter already loaded (python-sat's MiniSat through its compiled functions, or our CDCL
kernel), decodes the model, checks the board against the puzzle and writes the SatOutput
block, the SatOutputTimes row and the SatSols row exactly as the plain loop would.

Its oracle is the plain loop of :mod:`satdoku.pipeline.stage_solve` (:func:`satdoku.solve.solve`
per instance); tests/test_solve_batch.py compares the files both write. The plain loop also solves,
here, every instance the compiled loop does not finish itself: the first of each layout (it
loads the rules, and its time includes that, as in the plain loop), invalid ones, ones whose
puzzle or notation the loop does not know, and any answer other than a verified board, a
timeout or (for solvers without proofs) UNSAT: those the loop stops at and hands back, and the
plain path solves them again and writes what it finds.

Where it applies (:func:`plan` says None otherwise, and the plain loop runs): the compiled
module is built, the solver is incremental and its adapter offers a batch driver
(``minisat22`` and ``cdcl`` with ``incremental: true``), the limit is on the wall clock, one run
per instance (``repeats: 1``), the encoding is a direct one that is not simplified, and every
instance block of the bundle is the usual one (its givens as unit clauses) or invalid.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from satdoku.cnf.codec import codec
from satdoku.cnf.dimacs import V_WIDTH, parse_dimacs
from satdoku.cnf.formula import Cnf, Formula
from satdoku.formats import Record
from satdoku.formats.format_registry import get_format
from satdoku.formats.symbols import ALPHABET, format_symbols, value_table
from satdoku.pipeline.shard_writers import ShardWriters
from satdoku.progress import Progress
from satdoku.solver_run import LIMIT_GRACE, ConfiguredSolver, Run
from satdoku.solvers.base import STAT_KEYS, WALL, RunLimits
from satdoku.solvers.cores import describe
from satdoku.solvers.interrupts import searching
from satdoku.solvers.result import (
    EXIT,
    IN_PROCESS,
    SAT,
    TIMELIMIT,
    TIMEOUT,
    UNCHECKED,
    UNSAT,
    YES,
    Result,
)
from satdoku.stagefiles.instances import (
    LayoutSignatures,
    StageFileError,
    iter_instance_dicts,
    record_from_dict,
)
from satdoku.stagefiles.outputs import INSTANCE
from satdoku.stagefiles.tsv import GIVEN_DIFFERS, TIMES_COLUMNS, solution_text, times_row

#: Puzzles handed to the compiled loop per call (bounds the texts held in memory).
CHUNK = 1000

#: Step = the plain path for one instance: (record, its formula or None) -> None (it
#: solves, writes the three stage files' entries and counts the status).
Step = Callable[[Record, "Formula | None"], None]


def native() -> ModuleType | None:
    """The compiled loop, or None when it was not built."""
    try:
        from satdoku.pipeline import _batch  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _batch


@dataclass
class Plan:
    """A shard read for the compiled loop: the bundle's scan and the Instances objects."""

    dicts: list[dict[str, Any]]
    ids: list[str]
    kinds: bytes
    rule_keys: list[str]
    lines: list[int]
    declared: list[int]
    num_vars: bytes  # int32 per instance: the variables its p line declares
    offsets: bytes
    lits: bytes
    rules: dict[str, tuple[int, Cnf]]  # key -> (line of its block, clauses)


def plan(solver: ConfiguredSolver, encoding: str, instances: str | Path, bundle: str | Path,
         repeats: int = 1, limits: RunLimits | None = None) -> Plan | None:
    """The shard read for the compiled loop, or None when the loop does not apply (the
    plain loop then runs, and reports any malformed stage file as it always does)."""
    mod = native()
    limits = limits or RunLimits()
    if (mod is None or repeats != 1 or limits.clock != WALL or not solver.incremental
            or solver.in_child or not hasattr(solver.impl, "batch_driver")):
        return None
    enc = codec(encoding).encoding
    if enc.simplified:
        return None
    data = Path(bundle).read_bytes()
    scan = mod.scan_bundle(data)
    if scan is None:
        return None
    rules_blocks, ids, kinds, rule_keys, lines, declared, num_vars, offsets, lits = scan[:9]
    if b"o" in kinds:
        return None
    try:
        dicts = list(iter_instance_dicts(instances))
    except StageFileError:
        return None
    if len(dicts) != len(ids):
        return None
    rules: dict[str, tuple[int, Cnf]] = {}
    for key, line, start, end in rules_blocks:
        body = data[start:end].decode("ascii").split("\n")
        if body and body[-1] == "":
            body.pop()
        try:
            rules[key] = (line, parse_dimacs(body, f"{bundle} (block at line {line})"))
        except ValueError:
            return None
    return Plan(dicts, ids, kinds, rule_keys, lines, declared, num_vars, offsets, lits, rules)


@dataclass
class _Layout:
    """What the compiled loop checks a board of one layout against (from one record of the plain
    path), or None where it cannot (a notation that does not write boards as symbols, a domain
    beyond them)."""

    ncells: int
    domain: int
    groups: bytes
    group_offsets: bytes
    less_than: bytes


def _layout(rec: Record) -> _Layout | None:
    p = rec.puzzle
    if p is None or p.domain > len(ALPHABET):
        return None
    groups, offsets = array("i"), array("i", [0])
    for cells in p.groups:
        groups.extend(cells)
        offsets.append(len(groups))
    less = array("i", [c for pair in p.less_than for c in pair])
    return _Layout(p.ncells, p.domain, groups.tobytes(), offsets.tobytes(), less.tobytes())


def _symbols_notation(notation: str) -> bool:
    """Whether boards of this notation are written one symbol per cell (what the loop writes)."""
    try:
        return get_format(notation).format_board is format_symbols
    except (KeyError, ValueError):
        return False


def solve_planned(p: Plan, solver: ConfiguredSolver, encoding: str, writers: ShardWriters,
                  step: Step, limits: RunLimits, load1: float, desc: str) -> dict[str, int]:
    """Solve every instance of a planned shard, in order: runs of puzzles through the compiled
    loop, everything else through ``step`` (the plain path); returns status counts.
    ``limits``: the shard's (its time limit on the wall clock, its memory limit, the cores the
    shard is pinned to)."""
    mod = native()
    assert mod is not None
    enc = codec(encoding).encoding
    message = "incremental (rules loaded once per shard)"
    time_limit = limits.time_limit
    memory_limit = limits.memory_mb
    if memory_limit is None and solver.options.get("memory_limit") is not None:
        memory_limit = float(solver.options["memory_limit"])
    proto = times_row("", "", Result(SAT, message=message, measurement=IN_PROCESS,
                                     cores=describe(limits.cores)), load1)
    computed = {"id", "line", "instance_hash", "status", "solve_seconds", "total_seconds",
                "check_seconds", "wall_seconds", "cpu_seconds", "max_rss_mb", "termination",
                "message", *STAT_KEYS}
    constants = {c: "" if proto.get(c) is None else str(proto[c]) for c in TIMES_COLUMNS
                 if c not in computed}  # a missing cell is empty (TsvWriter)
    texts = (message, INSTANCE, SAT, UNSAT, TIMEOUT, "s SATISFIABLE", "s UNSATISFIABLE",
             "s UNKNOWN", EXIT, TIMELIMIT, solution_text(TIMEOUT, "", message),
             solution_text(UNSAT, "", message), GIVEN_DIFFERS, YES, UNCHECKED, V_WIDTH)
    table = value_table(missing=255)  # symbol byte -> value, 255: no symbol
    eligible = _Eligible(p)
    runners: dict[tuple[str, tuple[Any, ...]], Any] = {}
    loaded: set[str] = set()  # rules keys the solver loaded through the plain path
    run: list[int] = []
    run_key: tuple[str, tuple[Any, ...]] | None = None

    def plain(i: int) -> None:
        runners.clear()  # the plain path may load other rules: drivers change
        step(record_from_dict(p.dicts[i]), _formula(p, i))
        key = p.rule_keys[i]
        if p.kinds[i] == _UNITS:
            loaded.add(key)

    def flush() -> None:
        nonlocal run
        while run:
            assert run_key is not None
            runner = runners.get(run_key)
            if runner is None:
                driver = solver.impl.batch_driver(p.rules[run_key[0]][1])
                lay = eligible.layouts[run_key[1]]
                if driver is None or lay is None:
                    first, run = run[0], run[1:]
                    plain(first)
                    continue
                runner = runners[run_key] = mod.Runner(
                    driver,
                    STAT_KEYS,
                    (lay.ncells, lay.domain, lay.groups, lay.group_offsets, lay.less_than,
                     table, ("\0" + _alphabet())[:lay.domain + 1].encode("ascii"),
                     enc.cell_amo),
                    (time_limit, LIMIT_GRACE, solver.proofs),
                    texts, TIMES_COLUMNS, constants)
            chunk, rest = run[:CHUNK], run[CHUNK:]
            ds = [p.dicts[i] for i in chunk]
            with Run(solver, memory_limit), searching(solver.impl.searching_target()):
                done, out, times, sols, (n_sat, n_unsat, n_timeout), stop = runner.run(
                    [p.ids[i] for i in chunk], [str(int(d["line"])) for d in ds],
                    [str(d["instance_hash"]) for d in ds], [d["givens"] for d in ds],
                    [d.get("solution") for d in ds], p.lits, p.offsets, chunk[0])
            writers.write_text(out, times, sols)
            for status, k in ((SAT, n_sat), (UNSAT, n_unsat), (TIMEOUT, n_timeout)):
                writers.count(status, k)
            bar.update(done)
            if stop is None:
                run = rest
            else:  # the instance the loop stopped at: the plain path solves it again
                plain(chunk[done])
                bar.update(1)
                run = chunk[done + 1:] + rest

    with Progress(total=len(p.dicts), desc=desc, unit="instances") as bar:
        for i, d in enumerate(p.dicts):
            ident = _ident(d)
            if ident != p.ids[i]:
                raise StageFileError(f"instance {ident} has no matching SatInput block (found "
                                     f"{p.ids[i]})")
            key = eligible(i, d)
            if key is None or key[0] not in loaded:
                flush()
                plain(i)
                bar.update(1)
                continue
            if key != run_key:
                flush()
                run_key = key
            run.append(i)
        flush()
    return writers.counts


class _Eligible:
    """Which instances the compiled loop can take: (rules key, layout signature) of one, else
    None (the layouts and notations met are looked at once)."""

    def __init__(self, p: Plan) -> None:
        self.p = p
        self.starts = memoryview(p.offsets).cast("q").tolist()
        self.signature = LayoutSignatures()
        self.layouts: dict[tuple[Any, ...], _Layout | None] = {}
        self.notations: dict[str, bool] = {}

    def __call__(self, i: int, d: dict[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
        p = self.p
        if p.kinds[i] != _UNITS:
            return None
        key = p.rule_keys[i]
        entry = p.rules.get(key)
        if entry is None or entry[0] > p.lines[i]:
            return None
        if p.declared[i] != len(entry[1].clauses) + self.starts[i + 1] - self.starts[i]:
            return None
        sig = self.signature(d)
        if sig is None or type(d.get("givens")) is not str or not d.get("instance_hash") \
                or type(d.get("solution", "")) is not str:
            return None
        notation = d.get("notation")
        ok = self.notations.get(notation)  # type: ignore[arg-type]
        if ok is None:
            ok = self.notations[str(notation)] = _symbols_notation(str(notation))
        if not ok:
            return None
        lay = self.layouts.get(sig, False)
        if lay is False:
            try:
                lay = self.layouts[sig] = _layout(record_from_dict(d))
            except (ValueError, KeyError, TypeError):
                lay = self.layouts[sig] = None
        return None if lay is None else (key, sig)


_UNITS = ord("u")


def _ident(d: dict[str, Any]) -> str:
    try:
        return str(int(d["id"]))
    except (ValueError, TypeError, KeyError):
        return str(d.get("id"))


def _formula(p: Plan, i: int) -> Formula | None:
    """Instance ``i``'s formula as the bundle reader gives it (the shared rules and its givens
    as unit clauses; its comments only name it, which no incremental solver reads), or None
    for an invalid block."""
    if p.kinds[i] != _UNITS or p.rule_keys[i] not in p.rules:
        return None
    starts = memoryview(p.offsets).cast("q")
    units = memoryview(p.lits).cast("i")[starts[i]:starts[i + 1]].tolist()
    num_vars = memoryview(p.num_vars).cast("i")[i]
    return Formula(num_vars, [[u] for u in units], p.rules[p.rule_keys[i]][1],
                   [f"instance {p.ids[i]}"])


def _alphabet() -> str:
    return ALPHABET
