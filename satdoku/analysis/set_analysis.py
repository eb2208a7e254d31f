"""The propagation analysis of a set: per instance and encoding what UP, FL and the human
singles decide alone, and per (layout, encoding) how many instances each solved.

UP runs on every puzzle; FL only where UP left cells open (FL includes UP: a puzzle UP solves
or refutes, FL solves or refutes too, with no failed literal). The singles do not depend on the
encoding: they run once per puzzle. Every board an inference calls solved is verified against
the puzzle before it is counted; one that fails stops the analysis (a bug, never a figure).

With ``sample``, a set of more valid instances than that is analysed on a seeded uniform
sample of that many (:func:`sample_indices`, seed :data:`SAMPLE_SEED`): the others get rows
marked ``-`` ("not in the sample"), and each summary row says how many instances its layout
has in the set (``sample_of``). The outcome of an instance does not depend on which others
are analysed, so a sampled instance's row equals the full analysis's.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from satdoku.analysis.propagation import (
    OPEN,
    REFUTED,
    SOLVED,
    Outcome,
    Propagator,
    propagate_formula,
    singles_outcomes,
)
from satdoku.cnf.encode import check_encoding_applies
from satdoku.cnf.encodings import ENCODINGS, Unencodable, resolve
from satdoku.formats.record import Record
from satdoku.progress import Progress
from satdoku.puzzle import Layout, Puzzle
from satdoku.solve import formula_of
from satdoku.solvers.result import INVALID
from satdoku.stagefiles.instances import LayoutSignatures
from satdoku.stagefiles.paths import DIMACS
from satdoku.stagefiles.propagation_files import NOT_RUN, NOT_SAMPLED

#: puzzles between two progress updates
CHUNK = 4096
#: layout column of a CNF set's rows
CNF_LAYOUT = "cnf"
#: seed of the sample of a large set (:func:`sample_indices`)
SAMPLE_SEED = 29


class VerificationError(RuntimeError):
    """A board an inference called solved is not a solution: a bug in the inference."""


@dataclass
class Analysis:
    """The rows of ``propagation_instances.tsv`` and ``propagation.csv``."""

    instances: list[dict[str, object]] = field(default_factory=list)
    summary: list[dict[str, object]] = field(default_factory=list)


def applicable_encodings(layouts: Sequence[Layout]) -> list[str]:
    """Every registered encoding analyze can measure on at least one of ``layouts``: all but
    the ``simplified`` ones (UP on them is UP on ``extended``), ``augmented`` only where there
    are boxes."""
    out = []
    for name, enc in ENCODINGS.items():
        if enc.simplified:
            continue
        for layout in layouts:
            try:
                check_encoding_applies(layout, enc)
            except Unencodable:
                continue
            out.append(name)
            break
    return out


def sample_indices(candidates: Sequence[int], size: int | None, seed: int = SAMPLE_SEED
                   ) -> list[int]:
    """A seeded uniform sample of ``size`` of ``candidates`` (all of them when there are no
    more than ``size`` or ``size`` is None), in their order."""
    if size is None or len(candidates) <= size:
        return list(candidates)
    import random

    chosen = sorted(random.Random(seed).sample(range(len(candidates)), size))
    return [candidates[k] for k in chosen]


def _validity(records: Sequence[Record]) -> list[bool]:
    """Whether each record is valid (an Instances shard reader answers without building any)."""
    flags = getattr(records, "flags", None)
    if flags is not None:
        return [valid for _, valid, _ in flags()]
    return [rec.valid for rec in records]


def analyze(records: Sequence[Record], set_name: str, encodings: Sequence[str] | None = None,
            *, probe: bool = True, singles: bool = True, backend: str = "auto",
            progress: str | None = None, sample: int | None = None) -> Analysis:
    """Analyse ``records`` (one set). ``encodings``: default every one that applies
    (:func:`applicable_encodings`); ``probe``: run FL too; ``singles``: run the human singles
    too; ``progress``: the mode of :class:`~satdoku.progress.Progress` (None: automatic);
    ``sample``: analyse a seeded sample of that many valid instances when there are more
    (:func:`sample_indices`)."""
    validity = _validity(records)
    valid = [i for i, ok in enumerate(validity) if ok]
    chosen = sample_indices(valid, sample)
    sampling = len(chosen) < len(valid)
    skipped = sorted(set(valid).difference(chosen)) if sampling else []
    analysed: Sequence[int] = chosen if sampling else range(len(records))
    by_layout: dict[Layout, list[int]] = {}
    for i in analysed:
        rec = records[i]
        if rec.puzzle is not None:
            by_layout.setdefault(rec.puzzle.layout, []).append(i)
    if encodings is None:
        encodings = applicable_encodings(list(by_layout))
    for name in encodings:
        if resolve(name).simplified:
            raise ValueError(f"encoding {name}: its formulas share no rules; analyze "
                             f"{resolve(name).base.replace('simplified', 'extended')} instead "
                             "(the same propagation)")
    out = Analysis()
    single: dict[int, Outcome] = {}
    checked = _Checked(records)
    singles_cpu_seconds: dict[Layout, float] = {}
    if singles:
        for layout, idx in by_layout.items():
            start = time.process_time()
            with Progress(len(idx), f"analyze {layout.key}: singles", "puzzles",
                          mode=progress) as bar:
                for first in range(0, len(idx), CHUNK):
                    chunk = idx[first:first + CHUNK]
                    found = singles_outcomes([records[i].puzzle for i in chunk])  # type: ignore[misc]
                    pairs = list(zip(chunk, found, strict=True))
                    checked.many(pairs, "singles")
                    single.update(pairs)
                    bar.update(len(chunk))
            singles_cpu_seconds[layout] = time.process_time() - start
    rows: dict[tuple[int, str], dict[str, object]] = {}
    for name in encodings:
        for layout, idx in by_layout.items():
            summary = _analyze_layout(records, idx, layout, name, probe, backend, progress,
                                      single, rows, checked)
            if summary is not None:
                summary.update(set=set_name,
                               singles_cpu_seconds=_round(singles_cpu_seconds.get(layout)))
                out.summary.append(summary)
    cnf_idx = [i for i in analysed if records[i].cnf is not None]
    if cnf_idx:
        out.summary.append(_analyze_cnf(records, cnf_idx, set_name, probe, backend, progress,
                                        rows))
    if skipped:
        _mark_sample(records, skipped, len(chosen), encodings, out.summary, rows)
    for i in (i for i, ok in enumerate(validity) if not ok):
        rec = records[i]
        rows[i, NOT_RUN] = _row(rec.id, rec.line, "", NOT_RUN, detail=rec.error or "invalid",
                                status=INVALID)
    order = {name: k for k, name in enumerate([NOT_RUN, *encodings, DIMACS])}
    out.instances = [rows[k] for k in sorted(rows, key=lambda k: (k[0], order[k[1]]))]
    return out


def _mark_sample(records: Sequence[Record], skipped: list[int], size: int,
                 encodings: Sequence[str], summary: list[dict[str, object]],
                 rows: dict[tuple[int, str], dict[str, object]]) -> None:
    """Rows of the valid instances left out of the sample (``-``, "not in the sample"), and
    each summary row's ``sample_of``: its layout's instances in the whole set. An Instances
    shard reader's objects give an instance's id, line and layout without building it."""
    objects = getattr(records, "objects", None)
    signature = LayoutSignatures()
    key_of: dict[object, str] = {}  # layout signature -> layout key
    totals: dict[str, int] = {}
    for layout in {i: str(row["layout"]) for (i, _), row in rows.items()}.values():
        totals[layout] = totals.get(layout, 0) + 1
    detail = f"{NOT_SAMPLED} ({size:,} instances, seed {SAMPLE_SEED})"
    for i in skipped:
        sig = signature(objects[i]) if objects is not None else None
        layout = key_of.get(sig) if sig is not None else None
        if layout is None:
            rec = records[i]
            layout = rec.puzzle.layout.key if rec.puzzle is not None else CNF_LAYOUT
            if sig is not None:
                key_of[sig] = layout
        ident, line = ((objects[i]["id"], objects[i]["line"]) if objects is not None
                       else (records[i].id, records[i].line))
        totals[layout] = totals.get(layout, 0) + 1
        for name in (encodings if layout != CNF_LAYOUT else (DIMACS,)):
            rows[i, name] = _row(ident, line, layout, name, detail=detail)
    for row in summary:
        row["sample_of"] = totals.get(str(row["layout"]), row["instances"])


def _analyze_layout(records: Sequence[Record], idx: list[int], layout: Layout, name: str,
                    probe: bool, backend: str, progress: str | None, single: dict[int, Outcome],
                    rows: dict[tuple[int, str], dict[str, object]], checked: _Checked
                    ) -> dict[str, object] | None:
    """UP (and FL) of one encoding on the puzzles of one layout; their rows go into ``rows``;
    returns the summary row (None when the encoding does not apply)."""
    puzzles: list[Puzzle] = [records[i].puzzle for i in idx]  # type: ignore[misc]
    try:
        prop = Propagator(layout, name, backend)
    except Unencodable as exc:
        for i in idx:
            rows[i, name] = _row(records[i].id, records[i].line, layout.key, name, detail=str(exc),
                                 singles=single.get(i))
        return None
    start = time.process_time()
    up = _in_chunks(prop, puzzles, False, f"analyze {layout.key} {name}: UP", progress)
    up_cpu = time.process_time() - start
    fl: dict[int, Outcome] = {}
    fl_cpu = None
    if probe:
        start = time.process_time()
        still = [k for k, o in enumerate(up) if o.status == OPEN]
        probed = _in_chunks(prop, [puzzles[k] for k in still], True,
                            f"analyze {layout.key} {name}: FL", progress)
        fl = {k: o for k, o in zip(still, probed, strict=True)}
        fl_cpu = time.process_time() - start
    counts = dict.fromkeys(("up_solved", "up_refuted", "fl_solved", "fl_refuted",
                            "singles_solved"), 0)
    checked.many(zip(idx, up, strict=True), f"{name} UP")  # every solved board verified
    checked.many(((idx[k], o) for k, o in fl.items()), f"{name} FL")  # (or raised) at once
    for k, i in enumerate(idx):
        rec, u = records[i], up[k]
        f = fl.get(k, u if probe else None)
        s = single.get(i)
        rows[i, name] = _row(rec.id, rec.line, layout.key, name, up=u, fl=f, singles=s)
        counts["up_solved"] += u.status == SOLVED
        counts["up_refuted"] += u.status == REFUTED
        if f is not None:
            counts["fl_solved"] += f.status == SOLVED
            counts["fl_refuted"] += f.status == REFUTED
        if s is not None:
            counts["singles_solved"] += s.status == SOLVED
    n = len(idx)
    return {"layout": layout.key, "encoding": name, "instances": n,
            "variables": prop.num_vars, "clauses": prop.num_clauses,
            "up_solved": counts["up_solved"], "up_share": _share(counts["up_solved"], n),
            "up_refuted": counts["up_refuted"],
            **({"fl_solved": counts["fl_solved"], "fl_share": _share(counts["fl_solved"], n),
                "fl_refuted": counts["fl_refuted"]} if probe else {}),
            **({"singles_solved": counts["singles_solved"],
                "singles_share": _share(counts["singles_solved"], n)} if single else {}),
            "up_cpu_seconds": _round(up_cpu), "fl_cpu_seconds": _round(fl_cpu)}


def _in_chunks(prop: Propagator, puzzles: list[Puzzle], probe: bool, desc: str,
               progress: str | None) -> list[Outcome]:
    out: list[Outcome] = []
    with Progress(len(puzzles), desc, "puzzles", mode=progress) as bar:
        for start in range(0, len(puzzles), CHUNK):
            chunk = puzzles[start:start + CHUNK]
            out += prop.run(chunk, probe)
            bar.update(len(chunk))
    return out


def _analyze_cnf(records: Sequence[Record], idx: list[int], set_name: str, probe: bool,
                 backend: str, progress: str | None,
                 rows: dict[tuple[int, str], dict[str, object]]) -> dict[str, object]:
    """UP (and FL) of each DIMACS instance as it is (encoding ``dimacs``)."""
    counts = dict.fromkeys(("up_solved", "up_refuted", "fl_solved", "fl_refuted"), 0)
    nvars = nclauses = 0
    seconds = {"up": 0.0, "fl": 0.0}
    with Progress(len(idx), f"analyze {set_name}: CNF", "formulas", mode=progress) as bar:
        for i in idx:
            cnf = formula_of(records[i], DIMACS).whole()
            nvars += cnf.num_vars
            nclauses += cnf.num_clauses
            start = time.process_time()
            u = propagate_formula(cnf, False, backend)
            seconds["up"] += time.process_time() - start
            f = None
            if probe:
                start = time.process_time()
                f = propagate_formula(cnf, True, backend) if u.status == OPEN else u
                seconds["fl"] += time.process_time() - start
                counts["fl_solved"] += f.status == SOLVED
                counts["fl_refuted"] += f.status == REFUTED
            counts["up_solved"] += u.status == SOLVED
            counts["up_refuted"] += u.status == REFUTED
            rows[i, DIMACS] = _row(records[i].id, records[i].line, CNF_LAYOUT, DIMACS, up=u, fl=f)
            bar.update()
    n = len(idx)
    return {"set": set_name, "layout": CNF_LAYOUT, "encoding": DIMACS, "instances": n,
            "variables": round(nvars / n, 1), "clauses": round(nclauses / n, 1),
            "up_solved": counts["up_solved"], "up_share": _share(counts["up_solved"], n),
            "up_refuted": counts["up_refuted"],
            **({"fl_solved": counts["fl_solved"], "fl_share": _share(counts["fl_solved"], n),
                "fl_refuted": counts["fl_refuted"], "fl_cpu_seconds": _round(seconds["fl"])}
               if probe else {}),
            "up_cpu_seconds": _round(seconds["up"])}


class _Checked:
    """Boards inferences called solved, verified against their records' puzzles: each
    (instance, board) once (UP on several encodings, FL and the singles mostly reach the same
    solution of an instance: verifying it again would give the same answer)."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = records
        self.verified: set[tuple[int, tuple[int, ...]]] = set()

    def many(self, items: Iterable[tuple[int, Outcome]], what: str) -> None:
        """Verify the solved boards of many (record index, outcome) pairs: those of puzzles
        with no rules of their own at once per layout (:meth:`Layout.solved_boards`), the
        others, and any the batch refuses, one by one (which names what is wrong)."""
        todo: dict[Layout, list[tuple[int, Outcome]]] = {}
        for i, outcome in items:
            if outcome.status != SOLVED or outcome.board is None or \
                    (i, outcome.board) in self.verified:
                continue
            p = self.records[i].puzzle
            if p is None or p.less_than or p.extra_groups or p.domain > 63 or \
                    len(outcome.board) != p.ncells:
                self(outcome, i, what)
            else:
                todo.setdefault(p.layout, []).append((i, outcome))
        for layout, group in todo.items():
            good = layout.solved_boards(
                [self.records[i].puzzle.givens for i, _ in group],  # type: ignore[union-attr]
                [o.board for _, o in group])
            for (i, outcome), ok in zip(group, good.tolist(), strict=True):
                if ok:
                    self.verified.add((i, outcome.board))  # type: ignore[arg-type]
                else:
                    self(outcome, i, what)

    def __call__(self, outcome: Outcome, i: int, what: str) -> Outcome:
        """``outcome`` of record ``i``, once a board it calls solved is verified."""
        if outcome.status == SOLVED and outcome.board is not None and \
                (i, outcome.board) not in self.verified:
            rec = self.records[i]
            assert rec.puzzle is not None
            problems = rec.puzzle.check_solution(outcome.board)
            if problems:
                raise VerificationError(f"{rec.source}:{rec.line}: instance {rec.id}: the "
                                        f"board {what} solved fails verification: "
                                        f"{problems[0]}")
            self.verified.add((i, outcome.board))
        return outcome


def _row(ident: object, line: int, layout: str, encoding: str, *, up: Outcome | None = None,
         fl: Outcome | None = None, singles: Outcome | None = None, detail: str = "",
         status: str = NOT_RUN) -> dict[str, object]:
    def cells(o: Outcome | None) -> tuple[str, object]:
        if o is None:
            return status, ""
        return o.status, o.open if o.status != REFUTED else ""

    row: dict[str, object] = {"id": ident, "line": line, "layout": layout,
                              "encoding": encoding, "detail": detail}
    row["up"], row["up_open"] = cells(up)
    row["fl"], row["fl_open"] = cells(fl)
    row["fl_failed"] = fl.failed if fl is not None else ""
    row["singles"], row["singles_open"] = cells(singles)
    return row


def _share(solved: int, n: int) -> float:
    return round(solved / n, 6) if n else 0.0


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)
