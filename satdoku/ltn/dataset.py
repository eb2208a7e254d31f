"""Labelled board sets for the LTN branch: generated or imported, verified, split, deduplicated.

Four kinds, as in the original system: ``closed_valid``, ``closed_invalid`` (subkinds
``changed1``/``changed2``/``changed3`` cells and ``row_swap``), ``open_solvable`` and
``open_impossible`` (no immediate conflict, no cell without candidates, unsolvability proved by
exact search). Splits are built from disjoint pools of complete grids, so no test board shares
its grid with a training board; for 4x4 (only 288 grids exist) that means the test set's valid
grids were never seen in training. Every board appears once in the whole data set.

On disk: ``DIR/{train,val,test}.tsv`` with header ``board kind subkind empty`` (board in the
one-character-per-cell notation of :func:`board_text`: ``0`` empty, ``1``-``9`` then ``A``-``Z``
for 10..35, the symbols of :mod:`satdoku.formats.symbols`) and
``DIR/manifest.json`` (settings, counts per split/kind/subkind, verification summary).
"""

from __future__ import annotations

import csv
import json
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from satdoku import generate as gen
from satdoku.formats.symbols import ALPHABET, board_chars, parse_board_chars
from satdoku.puzzle import SUDOKU, Puzzle, box_order_for, sudoku
from satdoku.solvers.csp import SearchLimit, iter_solutions

KINDS = ("closed_valid", "closed_invalid", "open_solvable", "open_impossible")
INVALID_SUBKINDS = ("changed1", "changed2", "changed3", "row_swap")
SPLITS = ("train", "val", "test")
HEADER = ("board", "kind", "subkind", "empty")


@dataclass(frozen=True)
class Example:
    """One labelled board."""

    board: tuple[int, ...]
    kind: str
    subkind: str = "-"

    @property
    def empty(self) -> int:
        return sum(1 for v in self.board if not v)

    @property
    def is_closed(self) -> bool:
        return self.kind.startswith("closed")

    def puzzle(self) -> Puzzle:
        return sudoku(self.board)


@dataclass
class DatasetSpec:
    """What to generate. ``per_kind`` is the total count per kind over all splits."""

    size: int = 4
    per_kind: int = 1000
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    seed: int = 0
    min_empty: int | None = None  # open boards: empty cells, default ~25%..75% of the cells
    max_empty: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def box(self) -> int:
        box = box_order_for(self.size)
        if box is None or box < 2:
            raise ValueError(f"size {self.size} is not a Sudoku side (4, 9, 16, ...)")
        return box

    def empty_range(self) -> tuple[int, int]:
        cells = self.size * self.size
        lo = self.min_empty if self.min_empty is not None else max(2, cells // 4)
        hi = self.max_empty if self.max_empty is not None else (cells * 3) // 4
        if not 1 <= lo <= hi < cells:
            raise ValueError(f"empty-cell range {lo}..{hi} invalid for {cells} cells")
        return lo, hi


def board_text(board: Sequence[int]) -> str:
    """A board in the data set notation (the original LTN CSV one): one symbol per cell,
    ``0`` for empty."""
    return board_chars(board, empty="0")


def parse_board(text: str) -> tuple[int, ...]:
    """Inverse of :func:`board_text` (``.`` and ``-`` are read as empty too); ValueError names
    the first bad symbol."""
    values, why = parse_board_chars(text.strip(), len(ALPHABET))
    if values is None:
        raise ValueError(why)
    return values


def split_counts(total: int, fractions: Sequence[float]) -> list[int]:
    """``total`` split by ``fractions`` (rounded; the first split takes the remainder)."""
    s = sum(fractions)
    rest = [round(total * f / s) for f in fractions[1:]]
    return [total - sum(rest), *rest]


# --- label verification ----------------------------------------------------------------------
def verify(ex: Example, max_nodes: int = 2_000_000) -> str | None:
    """Why ``ex``'s label is wrong (None: it is right). Closed labels use the rule check, open
    labels the exact search; ``open_impossible`` also requires no immediate problem."""
    p = ex.puzzle()
    if ex.kind == "closed_valid":
        return "; ".join(p.check_solution(ex.board)) or None
    if ex.kind == "closed_invalid":
        if not p.is_closed:
            return "board is not closed"
        return None if p.conflicts() else "board is a valid grid"
    if p.is_closed:
        return "board is closed"
    try:
        n = gen.count_solutions(p, limit=1, max_nodes=max_nodes)
    except SearchLimit:
        return "exact search budget exceeded"
    if ex.kind == "open_solvable":
        return None if n else "board has no solution"
    if ex.kind == "open_impossible":
        if n:
            return "board has a solution"
        problem = gen.immediate_problem(p)
        return f"immediate problem: {problem}" if problem else None
    return f"unknown kind {ex.kind!r}"


def true_kind(board: tuple[int, ...], max_nodes: int = 2_000_000) -> tuple[str, str]:
    """The verified (kind, subkind) of any board (used to relabel imported data)."""
    p = sudoku(board)
    if p.is_closed:
        return ("closed_invalid", "original") if p.conflicts() else ("closed_valid", "-")
    problem = gen.immediate_problem(p)
    if problem:
        return "open_impossible", "immediate_conflict"
    n = gen.count_solutions(p, limit=1, max_nodes=max_nodes)
    return ("open_solvable", "-") if n else ("open_impossible", "-")


# --- generation ------------------------------------------------------------------------------
def _grid_pools(spec: DatasetSpec, rng: random.Random, need: Sequence[int]) -> list[list[Puzzle]]:
    """Disjoint lists of complete grids, one per split. Small families (4x4: 288 grids) are
    enumerated and partitioned; larger ones are sampled with global deduplication."""
    empty = gen.empty_puzzle(SUDOKU, spec.box)
    if spec.box == 2:
        grids = [gen.with_board(empty, s)
                 for s in iter_solutions(empty, **gen.search_options(empty))]
        rng.shuffle(grids)
        cuts = split_counts(len(grids), spec.fractions)
        out, start = [], 0
        for n in cuts:
            out.append(grids[start:start + n])
            start += n
        return out
    seen: set[tuple[int, ...]] = set()
    out = []
    for n in need:
        pool = []
        while len(pool) < n:
            g = gen.complete_grid(empty, rng)
            if g.givens not in seen:
                seen.add(g.givens)
                pool.append(g)
        out.append(pool)
    return out


def _kind_examples(kind: str, count: int, grids: list[Puzzle], spec: DatasetSpec,
                   rng: random.Random, seen: set[tuple[int, ...]]) -> list[Example]:
    """Up to ``count`` new distinct examples of ``kind`` from ``grids`` (fewer only when the
    grids cannot yield more, e.g. 4x4 closed valid)."""
    out: list[Example] = []
    lo, hi = spec.empty_range()
    if kind == "closed_valid":
        for g in grids:
            if len(out) >= count:
                break
            if g.givens not in seen:
                seen.add(g.givens)
                out.append(Example(g.givens, kind))
        return out
    attempts = 0
    max_attempts = 50 * count + 1000
    while len(out) < count and attempts < max_attempts:
        attempts += 1
        g = rng.choice(grids)
        if kind == "closed_invalid":
            sub = INVALID_SUBKINDS[len(out) % len(INVALID_SUBKINDS)]
            p = gen.row_swap(g, rng) if sub == "row_swap" else gen.corrupt(g, int(sub[-1]), rng)
        elif kind == "open_solvable":
            sub = "-"
            p = gen.erase(g, rng.randint(lo, hi), rng)
        else:
            sub = "-"
            p = gen.impossible_board(g, rng.randint(lo, hi) + 1, rng, tries=5)
            if p is None:
                continue
        if p.givens in seen:
            continue
        seen.add(p.givens)
        out.append(Example(p.givens, kind, sub))
    return out


def generate(spec: DatasetSpec) -> dict[str, list[Example]]:
    """The three splits for ``spec``, every label verified (raises if one is wrong)."""
    rng = random.Random(spec.seed)
    per_split = split_counts(spec.per_kind, spec.fractions)
    pools = _grid_pools(spec, rng, [max(50, n) for n in per_split])
    seen: set[tuple[int, ...]] = set()
    splits: dict[str, list[Example]] = {}
    for name, n, grids in zip(SPLITS, per_split, pools, strict=True):
        exs: list[Example] = []
        for kind in KINDS:
            exs.extend(_kind_examples(kind, n, grids, spec, rng, seen))
        rng.shuffle(exs)
        splits[name] = exs
    check_labels(ex for exs in splits.values() for ex in exs)
    return splits


def check_labels(examples: Iterable[Example]) -> int:
    """Verify every example; raises ValueError naming the first wrong one. Returns the count."""
    n = 0
    for ex in examples:
        why = verify(ex)
        if why:
            raise ValueError(f"label {ex.kind} wrong for {board_text(ex.board)}: {why}")
        n += 1
    return n


# --- the original system's CSV files ---------------------------------------------------------
ORIGINAL_FILES = {  # label in the file name -> our kind
    "closed_valid": "closed_valid",
    "closed_invalid": "closed_invalid",
    "open_solvable": "open_solvable",
    "open_unsolvable": "open_impossible",
}


def read_board_lines(path: Path) -> Iterator[tuple[int, tuple[int, ...] | str]]:
    """(line number, board or error text naming file and line) per non-blank line of an
    original-style CSV (one board per line, digits, ``0`` or ``.`` empty)."""
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            text = line.strip().split(",")[0].strip()
            if not text:
                continue
            try:
                board = parse_board(text)
                sudoku(board)
            except ValueError as e:
                yield i, f"{path}:{i}: {e}"
                continue
            yield i, board


def import_original(directory: Path, spec: DatasetSpec,
                    limit_per_file: int | None = None) -> tuple[dict[str, list[Example]], dict]:
    """The original data set of one size (files ``*_{label}.csv`` in ``directory``), relabelled
    by verification, deduplicated, shuffled and split by ``spec.fractions``.

    Returns the splits and a report of how many file labels were wrong."""
    rng = random.Random(spec.seed)
    seen: set[tuple[int, ...]] = set()
    examples: list[Example] = []
    report: dict = {"files": {}, "relabelled": Counter(), "duplicates": 0, "malformed": 0,
                    "malformed_examples": []}
    for path in sorted(directory.glob("*.csv")):
        label = next((k for k in ORIGINAL_FILES if path.stem.endswith(k)), None)
        if label is None:
            continue
        n_file = 0
        for _, board in read_board_lines(path):
            if isinstance(board, str):
                report["malformed"] += 1
                if len(report["malformed_examples"]) < 5:
                    report["malformed_examples"].append(board)
                continue
            if len(board) != spec.size * spec.size:
                continue
            if limit_per_file is not None and n_file >= limit_per_file:
                break
            n_file += 1
            if board in seen:
                report["duplicates"] += 1
                continue
            seen.add(board)
            kind, sub = true_kind(board)
            if kind != ORIGINAL_FILES[label]:
                report["relabelled"][f"{ORIGINAL_FILES[label]}->{kind}"] += 1
            examples.append(Example(board, kind, sub))
        report["files"][path.name] = n_file
    rng.shuffle(examples)
    cuts = split_counts(len(examples), spec.fractions)
    splits, start = {}, 0
    for name, n in zip(SPLITS, cuts, strict=True):
        splits[name] = examples[start:start + n]
        start += n
    report["relabelled"] = dict(report["relabelled"])
    return splits, report


# --- files -----------------------------------------------------------------------------------
def write_splits(directory: Path, splits: dict[str, list[Example]], spec: DatasetSpec,
                 source: str, seconds: float, extra: dict | None = None) -> dict:
    """Write ``{split}.tsv`` files and ``manifest.json``; returns the manifest."""
    directory.mkdir(parents=True, exist_ok=True)
    counts: dict = {}
    for name, exs in splits.items():
        with open(directory / f"{name}.tsv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(HEADER)
            for ex in exs:
                w.writerow((board_text(ex.board), ex.kind, ex.subkind, ex.empty))
        counts[name] = dict(Counter(f"{ex.kind}/{ex.subkind}" for ex in exs))
    manifest = {
        "size": spec.size,
        "source": source,
        "spec": asdict(spec),
        "counts": counts,
        "total": sum(len(v) for v in splits.values()),
        "labels_verified": True,
        "distinct_boards": True,
        "seconds": round(seconds, 3),
        **(extra or {}),
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def read_split(directory: Path, split: str) -> list[Example]:
    """Examples of one split file; ValueError names file and line of a malformed row."""
    path = Path(directory) / f"{split}.tsv"
    out = []
    with open(path, encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if tuple(header or ()) != HEADER:
            raise ValueError(f"{path}:1: expected header {'/'.join(HEADER)}, got {header}")
        for i, row in enumerate(reader, 2):
            if len(row) != len(HEADER) or row[1] not in KINDS:
                raise ValueError(f"{path}:{i}: malformed row {row!r}")
            try:
                board = parse_board(row[0])
            except ValueError as e:
                raise ValueError(f"{path}:{i}: {e}") from None
            out.append(Example(board, row[1], row[2]))
    return out


def build(directory: Path, spec: DatasetSpec, original: Path | None = None,
          limit_per_file: int | None = None) -> dict:
    """Generate (or import from ``original``) and write one size's data set."""
    t0 = time.perf_counter()
    if original is not None:
        splits, report = import_original(Path(original), spec, limit_per_file)
        return write_splits(directory, splits, spec, f"original:{original}",
                            time.perf_counter() - t0, {"import": report})
    splits = generate(spec)
    return write_splits(directory, splits, spec, "generated", time.perf_counter() - t0)
