"""Per-board decisions of ``satdoku classify``: Q1 valid?, Q2 solvable?, Q3 moves, then a solve.

- Closed board → Q1: the learned ∀u Ok(b, u) verdict with its confidence, and the rule check
  beside it. The board is echoed as ``solution`` only when the rule check passes.
- Open board → Q2 by a fixed, sound procedure: an immediate problem (duplicate or cell without
  candidate) decides "unsolvable" (``rules``); a board completed by LTN solving (singles allowed
  between rounds: ``singles+ltn``, none filled: ``ltn``) *and* passing the symbolic check
  decides "solvable"; otherwise the exact search decides (``exact``). LTN solving can only
  certify, never refute, so Q2 is never wrong.
- Q3 for solvable boards: singles (naked; hidden per row/column/box) with the truth value of
  their LTN formula, applied round by round into the move memory; the solution is then the one
  Q2 certified or found (``solved_by`` says who: singles alone, ltn, singles+ltn, exact). A
  returned solution always passes ``puzzle.check_solution``; otherwise the partial board
  (singles only, forced in every solution) and the exact remaining cells are reported.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from satdoku import generate as gen
from satdoku.heuristics import MoveMemory, apply_singles, find_singles
from satdoku.ltn import model as model_mod
from satdoku.ltn.board_solver import SolveSettings, ltn_solve
from satdoku.ltn.dataset import board_text
from satdoku.ltn.kb import SingleFormulas, q1_predict
from satdoku.puzzle import Puzzle
from satdoku.solvers.csp import solve as exact_solve
from satdoku.stagefiles.paths import LTN_MODEL


@dataclass
class ClassifySettings:
    ltn_steps: int = 60  # Adam steps of a board's first LTN round
    ltn_warm_steps: int = 20  # steps of each later (warm-started) round
    ltn_lr: float = 0.1
    ltn_rounds: int = 35  # LTN rounds per board at most
    ltn_backtracks: int = 20  # decisions undone per board at most
    ltn_singles: bool = True  # singles between LTN rounds (False: LTN alone)
    seed: int = 0
    exact_max_nodes: int = 5_000_000
    threads: int = 1  # torch threads: more only pays off on large batches and idle cores

    def solve_settings(self, singles: bool | None = None):  # -> board_solver.SolveSettings
        """The LTN solving settings these classify settings mean (``singles`` overrides)."""
        return SolveSettings(steps=self.ltn_steps, warm_steps=self.ltn_warm_steps,
                             lr=self.ltn_lr, rounds=self.ltn_rounds,
                             backtracks=self.ltn_backtracks, seed=self.seed,
                             singles=self.ltn_singles if singles is None else singles)


@dataclass
class BoardReport:
    """Everything decided about one board (the JSON object of ``classify --format json``)."""

    index: int
    size: int | None
    kind: str  # "closed" / "open" / "error"
    valid: bool | None = None  # Q1: LTN verdict (closed boards)
    confidence: float | None = None
    rule_valid: bool | None = None  # Q1: the rule check beside it
    conflicts: list[str] = field(default_factory=list)
    solvable: bool | None = None  # Q2 (open boards)
    decided_by: str | None = None  # rules / singles / ltn / singles+ltn / exact / undecided
    moves: list[dict] = field(default_factory=list)  # Q3 singles applied, with truth values
    q3_agreement: bool | None = None  # LTN formulas == symbolic engine on every round
    solved_by: str | None = None  # singles / ltn / singles+ltn / exact / singles+exact
    ltn_rounds: int = 0  # LTN rounds and decisions undone in Q2 solving
    ltn_backtracks: int = 0
    ltn_seconds: float = 0.0  # this board's share of the batched LTN solving time (wall)
    ltn_cpu_seconds: float = 0.0  # ... and of the process's CPU time
    solution: str | None = None
    remaining: int = 0
    remaining_cells: list[str] = field(default_factory=list)
    partial: str | None = None
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


class MissingModel(RuntimeError):
    """No usable Q1 model (absent, unreadable, or for another size) for a size the input
    needs; the message is one line naming the file and how to get a good one."""


def model_path(models_dir: Path, size: int) -> Path:
    return Path(models_dir) / Path(LTN_MODEL.format(size=size)).name


def try_load_models(models_dir: Path, sizes: Iterable[int]
                    ) -> tuple[dict[int, object], dict[int, str]]:
    """(the Q1 predicate of every size whose model loads, the one-line reason for every other
    size): a missing, empty, truncated or wrong-size model file never raises here."""
    models: dict[int, object] = {}
    problems: dict[int, str] = {}
    for size in sorted(set(sizes)):
        path = model_path(models_dir, size)
        train = (f"train one with `satdoku train --size {size} --epochs 20` (or `snakemake "
                 f"--cores 2 {path}`), or point --models at a directory holding ltn_{size}.pt")
        if not path.exists():
            problems[size] = f"no LTN model for {size}x{size} boards at {path}; {train}"
            continue
        try:
            models[size], _ = model_mod.load(path, size)
        except model_mod.ModelError as exc:
            problems[size] = f"unusable LTN model: {exc}; {train}"
    return models, problems


def load_models(models_dir: Path, sizes: Sequence[int]) -> dict[int, object]:
    """The Q1 predicate per size; :class:`MissingModel` names the first size without a
    usable model and says how to train one."""
    models, problems = try_load_models(models_dir, sizes)
    if problems:
        raise MissingModel(problems[min(problems)])
    return models


def closed_sizes(puzzles: Sequence[tuple[int, Puzzle | None, str | None]]) -> set[int]:
    """The sizes of the closed Sudoku boards among ``puzzles``: those Q1 needs a model for."""
    return {p.size for _, p, err in puzzles
            if p is not None and not err and p.layout.kind == "sudoku" and p.is_closed}


def decide_q2(puzzles: Sequence[Puzzle], settings: ClassifySettings) -> list[dict]:
    """The Q2 procedure for same-size open puzzles: dicts with solvable, decided_by, solution
    (a checked board or None), the LTN rounds and backtracks, and seconds spent in each part.

    LTN solving (:mod:`satdoku.ltn.board_solver`, singles between rounds unless
    ``settings.ltn_singles`` is off) may only certify; ``decided_by`` is ``ltn`` when no single
    was filled on the way, ``singles`` when singles completed the board before any LTN round,
    and ``singles+ltn`` otherwise."""
    out: list[dict] = [{} for _ in puzzles]
    quiet = []
    for i, p in enumerate(puzzles):
        problem = gen.immediate_problem(p)
        if problem:
            out[i] = {"solvable": False, "decided_by": "rules", "reason": problem,
                      "solution": None}
        else:
            quiet.append(i)
    outcomes = ltn_solve([puzzles[i] for i in quiet], settings.solve_settings())
    for i, o in zip(quiet, outcomes, strict=True):
        ltn = {"ltn_seconds": o.seconds, "ltn_cpu_seconds": o.cpu_seconds,
               "ltn_rounds": o.rounds, "ltn_backtracks": o.backtracks}
        if o.board is not None:
            by = ("singles" if not o.rounds else "singles+ltn" if o.singles else "ltn")
            out[i] = {"solvable": True, "decided_by": by, "solution": o.board, **ltn}
            continue
        t1 = time.perf_counter()
        sol, stats = exact_solve(puzzles[i], max_nodes=settings.exact_max_nodes,
                                 **gen.search_options(puzzles[i]))
        out[i] = {"solvable": True if sol else (False if stats.complete else None),
                  "decided_by": "exact" if stats.complete or sol else "undecided",
                  "solution": sol, **ltn,
                  "exact_seconds": time.perf_counter() - t1, "exact_nodes": stats.nodes}
    return out


def _names(p: Puzzle, board: Sequence[int]) -> list[str]:
    return [p.cell_name(c) for c, v in enumerate(board) if not v]


def classify(
    puzzles: Sequence[tuple[int, Puzzle | None, str | None]],
    models_dir: Path | None,
    settings: ClassifySettings | None = None,
    memory: MoveMemory | None = None,
    models: dict[int, object] | None = None,
    model_problems: dict[int, str] | None = None,
) -> list[BoardReport]:
    """Decide every ``(index, puzzle or None, error)``; boards are batched per size.

    Q1 models come from ``models`` (with ``model_problems`` saying why a size has none, see
    :func:`try_load_models`) or are loaded from ``models_dir``. A closed board whose size has
    no usable model becomes an error record naming the model file; every other board is still
    decided."""
    import torch

    settings = settings or ClassifySettings()
    torch.set_num_threads(max(1, settings.threads))
    memory = memory if memory is not None else MoveMemory()
    reports: dict[int, BoardReport] = {}
    for index, p, err in puzzles:
        if p is None or err:
            reports[index] = BoardReport(index, None, "error", error=err or "unreadable board")
        elif p.layout.kind != "sudoku":
            reports[index] = BoardReport(index, p.size, "error",
                                         error=f"{p.layout.key} is not a Sudoku board")
        else:
            reports[index] = BoardReport(index, p.size, "closed" if p.is_closed else "open")
    by_index = {i: p for i, p, _ in puzzles}
    closed = [i for i, r in reports.items() if r.kind == "closed"]
    if closed:
        sizes = {reports[i].size for i in closed}
        if models is None:
            models, model_problems = try_load_models(Path(models_dir or "."), sizes)
        for size in sorted(sizes - set(models)):
            why = (model_problems or {}).get(size, f"no LTN model for {size}x{size} boards")
            for i in closed:
                if reports[i].size == size:
                    reports[i] = BoardReport(i, size, "error", error=why)
        closed = [i for i in closed if reports[i].kind == "closed"]
        for size in sorted({reports[i].size for i in closed}):
            idx = [i for i in closed if reports[i].size == size]
            t0 = time.perf_counter()
            valid, conf, _ = q1_predict(models[size], [by_index[i].givens for i in idx], size)
            each = (time.perf_counter() - t0) / len(idx)
            for i, v, c in zip(idx, valid, conf, strict=True):
                r, p = reports[i], by_index[i]
                r.valid, r.confidence = bool(v), round(float(c), 6)
                r.conflicts = p.conflicts()
                r.rule_valid = not r.conflicts
                r.solution = board_text(p.givens) if r.rule_valid else None
                r.seconds = each
    open_ = [i for i, r in reports.items() if r.kind == "open"]
    for size in sorted({reports[i].size for i in open_}):
        idx = [i for i in open_ if reports[i].size == size]
        t0 = time.perf_counter()
        q2 = decide_q2([by_index[i] for i in idx], settings)
        each = (time.perf_counter() - t0) / len(idx)
        formulas = SingleFormulas(by_index[idx[0]])
        for i, d in zip(idx, q2, strict=True):
            t1 = time.perf_counter()
            _solve_open(reports[i], by_index[i], d, formulas, settings, memory)
            reports[i].seconds = each + time.perf_counter() - t1
    return [reports[i] for i, _, _ in puzzles]


def _solve_open(r: BoardReport, p: Puzzle, q2: dict, formulas, settings: ClassifySettings,
                memory: MoveMemory) -> None:
    """Q3 moves and the solve for one open board (fills ``r`` in place)."""
    r.solvable, r.decided_by = q2["solvable"], q2["decided_by"]
    r.ltn_rounds, r.ltn_backtracks = q2.get("ltn_rounds", 0), q2.get("ltn_backtracks", 0)
    r.ltn_seconds = q2.get("ltn_seconds", 0.0)
    r.ltn_cpu_seconds = q2.get("ltn_cpu_seconds", 0.0)
    r.remaining = sum(1 for v in p.givens if not v)
    r.remaining_cells = _names(p, p.givens)
    if not r.solvable:
        if q2.get("reason"):
            r.conflicts = [q2["reason"]]
        return  # no moves on a board without solution: a single there proves nothing
    agree = [True]

    def truth(board):
        ltn_moves = {m.key(): m.truth for m in formulas.moves(board)}
        if set(ltn_moves) != {m.key() for m in find_singles(p, board)}:
            agree[0] = False
        return ltn_moves

    res = apply_singles(p, memory=memory, board_id=r.index, truth=truth)
    r.q3_agreement = agree[0]
    r.moves = [{"row": m.row + 1, "col": m.col + 1, "value": m.value,
                "heuristic": m.heuristic, "truth": m.truth, "round": m.round}
               for m in res.applied]
    board = res.board
    if res.contradiction:  # cannot happen on a solvable board; keep the givens then
        board = p.givens
    solution, by = None, None
    if 0 not in board:
        solution, by = board, "singles"
    if solution is None and q2.get("solution") is not None:
        # the board Q2 certified (or the exact search found) agrees with every single: singles
        # are forced in any solution
        solution, by = q2["solution"], q2["decided_by"]
    if solution is None:
        sol, _ = exact_solve(p, board, max_nodes=settings.exact_max_nodes,
                             **gen.search_options(p))
        if sol is not None:
            solution, by = sol, "singles+exact" if res.applied else "exact"
    if solution is not None and not p.check_solution(solution):
        r.solution, r.solved_by, r.remaining, r.remaining_cells = (
            board_text(solution), by, 0, [])
    else:  # partial result: only forced cells are filled, and we say which remain
        r.partial = board_text(board)
        r.remaining_cells = _names(p, board)
        r.remaining = len(r.remaining_cells)


def format_text(r: BoardReport) -> str:
    """Human-readable lines for one board (never shows a board that breaks a rule)."""
    size = f"{r.size}x{r.size}" if r.size else "?"
    head = f"board {r.index} ({size}, {r.kind})"
    if r.kind == "error":
        return f"{head}: ERROR {r.error}"
    lines = []
    if r.kind == "closed":
        verdict = "valid" if r.valid else "invalid"
        rules = "valid" if r.rule_valid else f"invalid ({'; '.join(r.conflicts[:3])})"
        lines.append(f"{head}: Q1 LTN says {verdict} (confidence {r.confidence:.3f}); "
                     f"rule check: {rules}")
        if r.solution:
            lines.append(_grid(r.solution, r.size))
        return "\n".join(lines)
    verdict = {True: "solvable", False: "unsolvable", None: "undecided"}[r.solvable]
    lines.append(f"{head}: Q2 {verdict} (decided by {r.decided_by})"
                 + (f": {r.conflicts[0]}" if r.conflicts else ""))
    if r.solvable:
        agree = "agrees" if r.q3_agreement else "DISAGREES"
        lines.append(f"  Q3 {len(r.moves)} single moves (LTN formulas {agree} with the "
                     f"symbolic engine):")
        for m in r.moves:
            lines.append(f"    r{m['row']}c{m['col']} = {m['value']}  {m['heuristic']}  "
                         f"truth {m['truth']:.3f}  (round {m['round']})")
    if r.solution:
        lines.append(f"  solved by {r.solved_by}:")
        lines.append(_grid(r.solution, r.size))
    elif r.solvable:
        lines.append(f"  partial result, {r.remaining} cells remain: "
                     f"{' '.join(r.remaining_cells)}")
        lines.append(_grid(r.partial or "", r.size))
    return "\n".join(lines)


def _grid(board: str, size: int | None) -> str:
    if not size or len(board) != size * size:
        return f"    {board}"
    rows = [" ".join("." if ch == "0" else ch for ch in board[r * size:(r + 1) * size])
            for r in range(size)]
    return "\n".join(f"    {row}" for row in rows)
