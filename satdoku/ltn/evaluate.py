"""Held-out evaluation of the LTN branch: Q1 accuracy, Q2 decisions, Q3 agreement, timings.

Runs the very procedure of ``satdoku classify`` on the test split of a data set and scores it
against the verified labels. Writes ``PREFIX.json`` (all figures, and a few example boards
answered right and wrong per question), ``PREFIX.md`` (readable report), ``PREFIX_memory.json``
(move memory) and PNGs: ``PREFIX_curves.png`` (training curves), ``PREFIX_q1_confusion.png`` and
``PREFIX_q2_decisions.png``.
"""

from __future__ import annotations

import csv
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from satdoku import generate as gen
from satdoku.formats import read_records
from satdoku.heuristics import MoveMemory
from satdoku.ltn import model as model_mod
from satdoku.ltn.board_solver import ltn_solve
from satdoku.ltn.classify import ClassifySettings, classify, load_models, model_path
from satdoku.ltn.dataset import INVALID_SUBKINDS, Example, check_labels, parse_board, read_split
from satdoku.ltn.dataset import board_text as board_string

#: Example boards per question (Q1, Q2, Q3) and side (right, wrong) in the JSON report; the
#: results explorer draws them.
EXAMPLES = 3


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 6) if den else None


def _round_robin(items: list[tuple[str, dict]], n: int) -> list[dict]:
    """Up to ``n`` items, taking kinds in turn (first of each kind, then second, ...), so that a
    handful of examples shows every kind present."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for kind, item in items:
        by_kind[kind].append(item)
    out: list[dict] = []
    rank = 0
    while len(out) < n and any(rank < len(v) for v in by_kind.values()):
        out += [v[rank] for v in by_kind.values() if rank < len(v)][: n - len(out)]
        rank += 1
    return out


def examples(closed: list[Example], closed_reports: list, opened: list[Example],
             open_reports: list, per_side: int = EXAMPLES) -> dict[str, dict[str, list[dict]]]:
    """A few boards answered right and wrong per question: Q1 (closed boards: the LTN verdict
    against the verified label), Q2 (open boards: solvable? against the label, and which part
    decided), Q3 (open boards: did the LTN single-move formulas agree with the symbolic engine).
    Boards are written as :func:`satdoku.ltn.dataset.board_text` (``0`` = empty)."""
    sides: dict[str, dict[str, list[tuple[str, dict]]]] = {
        q: {"right": [], "wrong": []} for q in ("q1", "q2", "q3")}
    for e, r in zip(closed, closed_reports, strict=True):
        truth = e.kind == "closed_valid"
        ex = {"board": board_string(e.board), "kind": e.kind, "subkind": e.subkind,
              "truth": "valid" if truth else "invalid",
              "answer": "valid" if r.valid else "invalid",
              "confidence": None if r.confidence is None else round(r.confidence, 4)}
        sides["q1"]["right" if r.valid == truth else "wrong"].append((e.subkind, ex))
    for e, r in zip(opened, open_reports, strict=True):
        truth = e.kind == "open_solvable"
        base = {"board": board_string(e.board), "kind": e.kind, "subkind": e.subkind,
                "empty": e.empty}
        if r.solution is not None:
            base["solution"] = r.solution
        ex = {**base, "truth": "solvable" if truth else "unsolvable",
              "answer": "solvable" if r.solvable else "unsolvable", "decided_by": r.decided_by}
        sides["q2"]["right" if r.solvable == truth else "wrong"].append((e.kind, ex))
        if r.q3_agreement is not None:
            ex3 = {**base, "truth": "symbolic singles",
                   "answer": "LTN formulas agree" if r.q3_agreement else "LTN formulas differ",
                   "note": f"{len(r.moves)} single moves applied"}
            sides["q3"]["right" if r.q3_agreement else "wrong"].append((e.kind, ex3))
    return {q: {side: _round_robin(items, per_side) for side, items in v.items()}
            for q, v in sides.items()}


def fresh_closed_boards(size: int, per_subkind: int, exclude: set, seed: int) -> list[Example]:
    """Closed boards from grids outside the data set: one valid board and one board per
    invalid subkind per grid (for a larger Q1 test than the split holds)."""
    rng = random.Random(f"q1-extra-{seed}")
    box = round(size**0.5)
    out: list[Example] = []
    made = 0
    while made < per_subkind:
        grid = gen.complete_grid(box, rng)
        if grid.givens in exclude:
            continue
        exclude.add(grid.givens)
        made += 1
        out.append(Example(grid.givens, "closed_valid"))
        for sub in INVALID_SUBKINDS:
            p = gen.row_swap(grid, rng) if sub == "row_swap" else gen.corrupt(grid, int(sub[-1]),
                                                                                rng)
            out.append(Example(p.givens, "closed_invalid", sub))
    check_labels(out)
    return out


def fresh_open_boards(size: int, count: int, empty: tuple[int, int], exclude: set,
                     seed: int) -> list[Example]:
    """Open solvable boards with ``empty`` (lo, hi) blanks erased from grids outside the data
    set (held out from everything the data set holds), labels verified."""
    rng = random.Random(f"q2-extra-{seed}")
    box = round(size**0.5)
    out: list[Example] = []
    while len(out) < count:
        grid = gen.complete_grid(box, rng)
        if grid.givens in exclude:
            continue
        exclude.add(grid.givens)
        board = gen.erase(grid, rng.randint(*empty), rng).givens
        out.append(Example(board, "open_solvable", f"fresh_{empty[0]}_{empty[1]}"))
    check_labels(out)
    return out


def read_clue17(path: Path, limit: int) -> list[Example]:
    """The first ``limit`` puzzles of a 17-clue file (one 81-symbol line each, ``#`` comments),
    as open solvable 9x9 examples (subkind ``17_clue``); ValueError names a bad line."""
    out = []
    for rec in read_records(Path(path)):
        if len(out) >= limit:
            break
        if rec.puzzle is None or rec.puzzle.size != 9:
            raise ValueError(f"{path}:{rec.line}: {rec.error or 'not a 9x9 board'}")
        out.append(Example(rec.puzzle.givens, "open_solvable", "17_clue"))
    return out


#: Q2 certification figures per band: how each held-out solvable board was decided.
CERTIFIED = ("singles", "ltn", "singles+ltn")  # decided_by values that mean "no exact solver"


def band_of(e: Example) -> str:
    """The report band of a solvable board: ``17-clue`` or its decade of blanks."""
    if e.subkind == "17_clue":
        return "17-clue"
    lo = (e.empty // 10) * 10
    return f"{lo}-{lo + 9} blanks"


def certification_by_band(records: list[dict]) -> list[dict]:
    """One row per band (and ``all``) from the per-board records: boards, LTN alone certified,
    certified without the exact solver (LTN with singles between rounds, LTN alone included),
    decided by the exact solver, undecided, and seconds per board of both LTN procedures."""
    def row(band: str, rs: list[dict]) -> dict:
        n = len(rs)
        without = sum(r["decided_by"] in CERTIFIED for r in rs)
        return {
            "band": band, "boards": n,
            "ltn_alone": sum(r["ltn_alone"] for r in rs),
            "singles+ltn": without,
            "singles_only": sum(r["decided_by"] == "singles" for r in rs),
            "exact": sum(r["decided_by"] == "exact" for r in rs),
            "undecided": sum(r["decided_by"] not in (*CERTIFIED, "exact") for r in rs),
            "ltn_alone_rate": _rate(sum(r["ltn_alone"] for r in rs), n),
            "singles+ltn_rate": _rate(without, n),
            "ltn_alone_seconds": _mean([r["ltn_alone_seconds"] for r in rs]),
            "singles+ltn_seconds": _mean([r["ltn_seconds"] for r in rs]),
            "singles+ltn_seconds_max": round(max((r["ltn_seconds"] for r in rs), default=0), 6),
            "ltn_alone_cpu_seconds": _mean([r.get("ltn_alone_cpu_seconds") for r in rs]),
            "singles+ltn_cpu_seconds": _mean([r.get("ltn_cpu_seconds") for r in rs]),
        }

    bands = sorted({r["band"] for r in records}, key=lambda b: (b == "17-clue", b))
    rows = [row(b, [r for r in records if r["band"] == b]) for b in bands]
    return [*rows, row("all", records)] if records else rows


def _mean(xs: list) -> float | None:
    """The mean of the known values (None: a record without that figure)."""
    known = [x for x in xs if x is not None]
    return round(sum(known) / len(known), 6) if known else None


def q2_records(opened: list[Example], reports: list, settings: ClassifySettings
               ) -> list[dict]:
    """One record per solvable open board: where it comes from (``test`` split, ``fresh``
    boards, ``17_clue``), band, blanks, who decided it in the classify procedure with its LTN
    seconds, rounds and backtracks, and whether LTN alone (no singles, same budget) certified
    it, with its seconds. Every figure of :func:`certification_by_band` comes from these."""
    solvable = [(e, r) for e, r in zip(opened, reports, strict=True)
                if e.kind == "open_solvable"]
    alone = ltn_solve([e.puzzle() for e, _ in solvable], settings.solve_settings(singles=False))
    out = []
    for (e, r), a in zip(solvable, alone, strict=True):
        source = ("17_clue" if e.subkind == "17_clue"
                  else "fresh" if e.subkind.startswith("fresh") else "test")
        if a.board is not None and e.puzzle().check_solution(a.board):
            raise AssertionError("LTN solving returned a board that breaks a rule")
        out.append({"source": source, "band": band_of(e), "empty": e.empty,
                    "decided_by": r.decided_by, "solved_by": r.solved_by,
                    "ltn_seconds": round(r.ltn_seconds, 6),
                    "ltn_cpu_seconds": round(r.ltn_cpu_seconds, 6), "ltn_rounds": r.ltn_rounds,
                    "ltn_backtracks": r.ltn_backtracks,
                    "ltn_alone": a.board is not None, "ltn_alone_seconds": a.seconds,
                    "ltn_alone_cpu_seconds": a.cpu_seconds,
                    "ltn_alone_rounds": a.rounds})
    return out


@dataclass(frozen=True)
class Evaluation:
    """One held-out evaluation of the LTN branch: the data set and model it scores, the boards
    beyond the test split, and where the report goes.

    ``report``: the path prefix of every file written (``PREFIX.json``, ``.md``, PNGs).
    ``q2_limit``: open test boards per kind used for Q2/Q3. ``q1_extra`` fresh closed boards per
    Q1 subkind and ``q2_extra`` fresh open solvable boards with ``q2_extra_empty`` (lo, hi)
    blanks, both from grids outside the data set (9x9 and up: 4x4 has too few grids); the first
    ``clue17_limit`` puzzles of the 17-clue file ``clue17`` (9x9 only)."""

    dataset: Path
    size: int
    models_dir: Path
    report: Path
    epochs_tsv: Path | None = None
    settings: ClassifySettings = field(default_factory=ClassifySettings)
    q2_limit: int = 200
    q1_extra: int = 0
    q2_extra: int = 0
    q2_extra_empty: tuple[int, int] = (50, 59)
    clue17: Path | None = None
    clue17_limit: int = 0


@dataclass
class _Answers:
    """The classify procedure's reports on the closed and the open boards, with its move
    memory and the seconds each half took."""

    closed: list
    opened: list
    memory: MoveMemory
    closed_seconds: float
    open_seconds: float


def evaluate(ev: Evaluation) -> dict:
    """Score the boards of ``ev`` with the classify procedure; returns and writes the summary."""
    t_start = time.perf_counter()
    test = read_split(ev.dataset, "test")
    train = read_split(ev.dataset, "train")
    held_out = _held_out(ev, test, train)
    closed = closed_boards(ev, test, held_out)
    opened = open_boards(ev, test, held_out, closed)
    models = load_models(ev.models_dir, [ev.size])  # MissingModel names a missing one
    model = model_facts(ev)
    answers = classify_boards(ev, models, closed, opened)
    q1, confusion = score_q1(ev, closed, answers, train)
    q2, decided = score_q2(ev, opened, answers)
    q3 = score_q3(answers)
    epochs = _read_epochs(ev.epochs_tsv) if ev.epochs_tsv else []
    summary = {
        "headline": headline(ev.size, q1, q2, q3), "q1": q1, "q2": q2, "q3": q3,
        "examples": examples(closed, answers.closed, opened, answers.opened),
        "model": model,
        "dataset": json.loads((Path(ev.dataset) / "manifest.json").read_text())
        if (Path(ev.dataset) / "manifest.json").exists() else None,
        "epochs": epochs,
        "seconds": round(time.perf_counter() - t_start, 3),
    }
    write_report(Path(ev.report), summary, answers.memory, confusion, decided)
    return summary


def _held_out(ev: Evaluation, test: list[Example], train: list[Example]) -> set:
    """Every board of the data set (train, validation, test): fresh boards must avoid them."""
    return {e.board for e in train + test + read_split(ev.dataset, "val")}


def closed_boards(ev: Evaluation, test: list[Example], held_out: set) -> list[Example]:
    """Q1's boards: the closed boards of the test split, and the fresh ones asked for (none of
    the ``held_out`` boards)."""
    closed = [e for e in test if e.is_closed]
    if ev.q1_extra and ev.size > 4:
        closed += fresh_closed_boards(ev.size, ev.q1_extra, held_out, ev.settings.seed)
    return closed


def open_boards(ev: Evaluation, test: list[Example], held_out: set,
                closed: list[Example]) -> list[Example]:
    """Q2's boards: up to ``q2_limit`` open test boards per kind, the fresh ones asked for
    (avoiding the data set and Q1's boards) and the 17-clue sample."""
    opened: list[Example] = []
    per_kind: Counter = Counter()
    for e in test:
        if not e.is_closed and per_kind[e.kind] < ev.q2_limit:
            per_kind[e.kind] += 1
            opened.append(e)
    if ev.q2_extra and ev.size > 4:
        known = held_out | {e.board for e in closed}
        opened += fresh_open_boards(ev.size, ev.q2_extra, ev.q2_extra_empty, known,
                                    ev.settings.seed)
    if ev.clue17 is not None and ev.clue17_limit and ev.size == 9:
        opened += read_clue17(ev.clue17, ev.clue17_limit)
    return opened


def classify_boards(ev: Evaluation, models: dict[int, object], closed: list[Example],
                    opened: list[Example]) -> _Answers:
    """The classify procedure (with the Q1 ``models``) on the closed boards, then on the open
    ones (one move memory), each half timed."""
    memory = MoveMemory()
    t0 = time.perf_counter()
    on_closed = classify([(i, e.puzzle(), None) for i, e in enumerate(closed)], ev.models_dir,
                         ev.settings, memory, models=models)
    closed_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    on_open = classify([(len(closed) + i, e.puzzle(), None) for i, e in enumerate(opened)],
                       ev.models_dir, ev.settings, memory, models=models)
    return _Answers(on_closed, on_open, memory, closed_seconds, time.perf_counter() - t0)


def score_q1(ev: Evaluation, closed: list[Example], answers: _Answers, train: list[Example]
             ) -> tuple[dict, dict[str, Counter]]:
    """Q1's figures (accuracy overall, balanced and per kind) and its confusion matrix."""
    train_valid = {e.board for e in train if e.kind == "closed_valid"}
    by_kind: dict[str, list[bool]] = defaultdict(list)
    confusion = {"valid": Counter(), "invalid": Counter()}
    for e, r in zip(closed, answers.closed, strict=True):
        truth = e.kind == "closed_valid"
        by_kind["valid" if truth else e.subkind].append(r.valid == truth)
        confusion["valid" if truth else "invalid"]["valid" if r.valid else "invalid"] += 1
        assert r.rule_valid == truth, "rule check disagrees with a verified label"
    every = [x for xs in by_kind.values() for x in xs]
    valid_ok = by_kind.get("valid", [])
    invalid_ok = [x for k, xs in by_kind.items() if k != "valid" for x in xs]
    q1 = {
        "boards": len(every),
        "accuracy": _rate(sum(every), len(every)),
        "balanced_accuracy": (round((sum(valid_ok) / len(valid_ok)
                                     + sum(invalid_ok) / len(invalid_ok)) / 2, 6)
                              if valid_ok and invalid_ok else None),
        "by_kind": {k: {"boards": len(v), "accuracy": _rate(sum(v), len(v))}
                    for k, v in sorted(by_kind.items())},
        "confusion": {k: dict(v) for k, v in confusion.items()},
        "rule_check_accuracy": 1.0,
        "fresh_boards_per_subkind": ev.q1_extra if ev.size > 4 else 0,
        "test_valid_grids_seen_in_training": sum(1 for e in closed if e.kind == "closed_valid"
                                                 and e.board in train_valid),
        "seconds_per_board": round(answers.closed_seconds / max(1, len(closed)), 6),
    }
    return q1, confusion


def score_q2(ev: Evaluation, opened: list[Example], answers: _Answers
             ) -> tuple[dict, Counter]:
    """Q2's figures (decisions, who decided, certification by band, boards output that break
    a rule) and the (kind, decided_by) counts."""
    decided: Counter = Counter()
    correct = 0
    impossible_accepted = 0
    solved: Counter = Counter()
    invalid_output = 0
    for e, r in zip(opened, answers.opened, strict=True):
        truth = e.kind == "open_solvable"
        decided[(e.kind, r.decided_by)] += 1
        correct += r.solvable == truth
        if not truth and r.decided_by in CERTIFIED:
            impossible_accepted += 1
        if truth:
            solved[r.solved_by or "unsolved"] += 1
        if r.solution is not None and e.puzzle().check_solution(parse_board(r.solution)):
            invalid_output += 1
    settings = ev.settings
    records = q2_records(opened, answers.opened, settings)
    test_records = [r for r in records if r["source"] == "test"]
    q2 = {
        "boards": len(opened),
        "decisions_correct": correct,
        "accuracy": _rate(correct, len(opened)),
        "procedure": "rules (duplicate or cell without candidate) -> unsolvable; LTN solving "
                     "(singles between rounds) + symbolic check -> solvable; otherwise exact "
                     "search decides",
        "decided_by": {f"{k}/{d}": n for (k, d), n in sorted(decided.items())},
        "ltn_certification_rate": _rate(sum(r["decided_by"] in CERTIFIED
                                            for r in test_records), len(test_records)),
        "ltn_alone_certification_rate": _rate(sum(r["ltn_alone"] for r in test_records),
                                              len(test_records)),
        "certification_by_band": certification_by_band(records),
        "records": records,
        "impossible_accepted_by_ltn": impossible_accepted,
        "solved_by": dict(solved),
        "invalid_boards_output": invalid_output,
        "seconds_per_board": round(answers.open_seconds / max(1, len(opened)), 6),
        "threads": settings.threads,
        "settings": {"steps": settings.ltn_steps, "warm_steps": settings.ltn_warm_steps,
                     "lr": settings.ltn_lr, "rounds": settings.ltn_rounds,
                     "backtracks": settings.ltn_backtracks, "singles": settings.ltn_singles},
    }
    return q2, decided


def score_q3(answers: _Answers) -> dict:
    """Q3's figures: how often the LTN single-move formulas agreed with the symbolic engine,
    and the move memory."""
    agreements = [r.q3_agreement for r in answers.opened if r.q3_agreement is not None]
    return {"boards": len(agreements), "agreement": _rate(sum(agreements), len(agreements)),
            "memory": answers.memory.summary()}


def headline(size: int, q1: dict, q2: dict, q3: dict) -> dict:
    """The evaluation's few figures (what ``satdoku classify --evaluate`` prints)."""
    return {
        "size": size,
        "q1_accuracy": q1["accuracy"],
        "q1_single_cell_accuracy": q1["by_kind"].get("changed1", {}).get("accuracy"),
        "q2_accuracy": q2["accuracy"],
        "q2_ltn_certification": q2["ltn_certification_rate"],
        "q3_agreement": q3["agreement"],
    }


def model_facts(ev: Evaluation) -> dict:
    """What the model's file records of its training."""
    _, meta = model_mod.load(model_path(ev.models_dir, ev.size))
    return {k: meta.get(k) for k in ("best_epoch", "val_accuracy", "train_sat", "settings",
                                     "train_boards", "seconds")}


def write_report(prefix: Path, summary: dict, memory: MoveMemory, confusion: dict,
                 decided: Counter) -> None:
    """``PREFIX_memory.json``, the PNGs, ``PREFIX.json`` and ``PREFIX.md``."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    memory.save(f"{prefix}_memory.json")
    _plots(prefix, summary["epochs"], confusion, decided, summary["headline"]["size"])
    Path(f"{prefix}.json").write_text(json.dumps(summary, indent=1) + "\n")
    Path(f"{prefix}.md").write_text(_markdown(summary, prefix))


def _read_epochs(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(fh, delimiter="\t")]


def _plots(prefix: Path, epochs: list[dict], confusion: dict, decided: Counter,
           size: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    if epochs:
        x = [r["epoch"] for r in epochs]
        for key, label in (("loss", "loss (1 - SatAgg)"), ("train_sat", "train satisfaction"),
                           ("val_accuracy", "validation accuracy")):
            ax.plot(x, [r[key] for r in epochs], marker="o", label=label)
        ax.set_xlabel("epoch")
        ax.set_ylim(0, 1.02)
        ax.legend()
    ax.set_title(f"LTN {size}x{size}: training")
    fig.tight_layout()
    fig.savefig(f"{prefix}_curves.png", dpi=100)
    plt.close(fig)

    labels = ["valid", "invalid"]
    fig, ax = plt.subplots(figsize=(3.8, 3.4))
    m = [[confusion[t].get(p, 0) for p in labels] for t in labels]
    ax.imshow(m, cmap="Blues")
    for i in range(2):
        for j in range(2):
            ax.text(j, i, str(m[i][j]), ha="center", va="center")
    ax.set_xticks([0, 1], labels)
    ax.set_yticks([0, 1], labels)
    ax.set_xlabel("LTN verdict")
    ax.set_ylabel("true label")
    ax.set_title(f"Q1 {size}x{size} (test)")
    fig.tight_layout()
    fig.savefig(f"{prefix}_q1_confusion.png", dpi=100)
    plt.close(fig)

    kinds = ["open_solvable", "open_impossible"]
    parts = ["ltn", "singles+ltn", "singles", "rules", "exact", "undecided"]
    fig, ax = plt.subplots(figsize=(5, 3.4))
    bottom = [0, 0]
    for part in parts:
        vals = [decided.get((k, part), 0) for k in kinds]
        ax.bar(kinds, vals, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_ylabel("boards")
    ax.set_title(f"Q2 {size}x{size}: who decided")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{prefix}_q2_decisions.png", dpi=100)
    plt.close(fig)


def band_table(rows: list[dict]) -> list[str]:
    """Markdown lines of :func:`certification_by_band` rows."""
    header = ("band", "boards", "LTN alone", "singles+LTN (singles alone)", "exact", "undecided",
              "s/board LTN alone: wall (CPU)", "s/board singles+LTN: wall (CPU) [max wall]")
    return _table(header, (
        (r["band"], r["boards"], f"{r['ltn_alone']} ({_pct(r['ltn_alone_rate'])})",
         f"{r['singles+ltn']} ({_pct(r['singles+ltn_rate'])}; {r['singles_only']})",
         r["exact"], r["undecided"],
         f"{_secs(r['ltn_alone_seconds'])} ({_secs(r['ltn_alone_cpu_seconds'])})",
         f"{_secs(r['singles+ltn_seconds'])} ({_secs(r['singles+ltn_cpu_seconds'])}) "
         f"[{_secs(r['singles+ltn_seconds_max'])}]") for r in rows))


def _secs(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}%"


def _table(header: tuple[str, ...], rows: Iterable[tuple[object, ...]]) -> list[str]:
    """Markdown lines of a table: the header, its rule, a line a row."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows]


def _markdown(s: dict, prefix: Path) -> str:
    h, q1, q2, q3 = s["headline"], s["q1"], s["q2"], s["q3"]
    size = h["size"]
    name = prefix.name
    lines = [
        f"# LTN evaluation, {size}x{size} Sudoku (held-out test split)",
        "",
        "| question | figure |",
        "| --- | --- |",
        f"| Q1 accuracy (closed boards) | {_pct(q1['accuracy'])} of {q1['boards']} |",
        f"| Q1 balanced accuracy | {_pct(q1['balanced_accuracy'])} |",
        f"| Q1 single-cell corruptions | {_pct(h['q1_single_cell_accuracy'])} |",
        f"| Q2 decisions correct | {q2['decisions_correct']} / {q2['boards']} "
        f"({_pct(q2['accuracy'])}) |",
        f"| Q2 certified without the exact solver (test split, singles+LTN) | "
        f"{_pct(q2['ltn_certification_rate'])} |",
        f"| Q2 certified by LTN alone (test split, no singles) | "
        f"{_pct(q2['ltn_alone_certification_rate'])} |",
        f"| Q2 impossible boards accepted by LTN | {q2['impossible_accepted_by_ltn']} |",
        f"| Q3 agreement of LTN single formulas with the symbolic engine | "
        f"{_pct(q3['agreement'])} of {q3['boards']} boards |",
        f"| boards output that break a rule | {q2['invalid_boards_output']} |",
        "",
        "## Q1: valid? (learned predicate Ok(board, unit))",
        "",
        "Axioms: ∀b∈Valid ∀u Ok(b,u); ∀b∈Invalid ∃u ¬Ok(b,u) (pMeanError / pMean), loss "
        "1 − SatAgg. Verdict: ∀u Ok(b,u) under min ≥ 0.5.",
        "",
        *_table(("kind", "boards", "accuracy"),
                ((k, v["boards"], _pct(v["accuracy"])) for k, v in q1["by_kind"].items())),
        "",
        f"Boards: the test split plus {q1['fresh_boards_per_subkind']} fresh boards per kind "
        "from grids outside the data set. "
        f"Test valid grids also in the training set: "
        f"{q1['test_valid_grids_seen_in_training']} (splits are built from disjoint pools of "
        "grids" + ("; only 288 valid 4x4 grids exist, so the 4x4 valid class is small and each "
                   "split holds its own share of them" if size == 4 else "") + ").",
        "",
        f"![confusion]({name}_q1_confusion.png) ![curves]({name}_curves.png)",
        "",
        "## Q2: solvable? (neuro-symbolic, never wrong)",
        "",
        f"Procedure: {q2['procedure']}. LTN settings: {q2['settings']}.",
        "",
        *_table(("true kind / decided by", "boards"), q2["decided_by"].items()),
        "",
        "### Certification by band of blanks (held-out solvable boards)",
        "",
        *band_table(q2["certification_by_band"]),
        "",
        "LTN alone: rounds with IsPossible recomputed from the filled cells, no singles. "
        "singles+LTN: the classify procedure (naked and hidden singles filled between rounds), "
        "certified without the exact solver; in brackets the boards singles completed before "
        "any LTN round. exact: the exact solver decided the rest. "
        f"Seconds are each board's share of the batched LTN time ({q2['threads']} torch "
        "thread): wall and, in brackets, CPU time of this process (the wall time grows with "
        "the machine's load, the CPU time hardly), mean, and for singles+LTN the maximum wall. "
        "Sources: the test split, fresh boards from grids outside the data set, and the "
        "17-clue sample (data/public/tdoku_benchmarks).",
        "",
        f"Solvable boards finally solved by: {q2['solved_by']}.",
        "",
        f"![q2]({name}_q2_decisions.png)",
        "",
        "## Q3: heuristic moves",
        "",
        "Naked single and hidden single (row/column/box) as LTN formulas over fixed predicates "
        "(IsPossible, Peer, InUnit; min / Gödel operators), compared on every round of the "
        "solve with the symbolic engine.",
        "",
        *_table(("heuristic", "found", "applied", "effectiveness"),
                ((k, v["found"], v["applied"], f"{v['effectiveness']:.3f}")
                 for k, v in q3["memory"]["heuristics"].items() if v["found"])),
    ]
    m = s["model"]
    lines += [
        "",
        "## Timings",
        "",
        f"- training: {m.get('seconds')} s (best epoch {m.get('best_epoch')}, settings "
        f"{m.get('settings')})",
        f"- Q1: {q1['seconds_per_board'] * 1000:.2f} ms per board; Q2+Q3+solve: "
        f"{q2['seconds_per_board'] * 1000:.1f} ms per board",
        f"- whole evaluation: {s['seconds']} s",
        "",
    ]
    return "\n".join(lines)
