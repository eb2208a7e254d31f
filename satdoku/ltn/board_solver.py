"""Q2 solving: LTN rounds inside a confidence-ordered search, batched over boards, certified
symbolically.

One *round* grounds ``HasValue(b, c, v)`` for a batch of boards and maximises the satisfaction
of the all-different axiom (see :func:`satdoku.ltn.kb.optimise`), restricted by
``IsPossible``. After a round a board is certified when its argmax assignment passes
``puzzle.check_solution`` and keeps the givens; nothing else ever certifies it. Otherwise the
most confident empty cell is fixed to its most likely value (decimation) and the next round
starts warm from the board's last logits. A decision that empties some cell's candidates (or,
with singles, a unit's places for a value) is undone and its value banned in that cell
(backtracking, at most ``backtracks`` times per board; at most ``rounds`` rounds per board).

``singles=False`` is *LTN alone*: between rounds only ``IsPossible`` is recomputed from the
filled cells (and the bans). ``singles=True`` also fills naked and hidden singles until none
applies before each round (the moves of :mod:`satdoku.heuristics`, on candidate masks so that
bans count); a board that singles complete is checked like any other.

No exact search is involved: the work per board is bounded by ``rounds`` optimisations, and a
board that is not certified within it stays uncertified (the caller then asks the exact
solver). Boards are generators that yield their ``IsPossible`` mask and receive the round's
probabilities, so every round optimises all boards still searching in one batch.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from satdoku.ltn.kb import optimise
from satdoku.puzzle import Puzzle

if TYPE_CHECKING:  # numpy (with torch) loads where the LTN search runs, as DESIGN.md asks
    import numpy as np


@dataclass
class SolveSettings:
    steps: int = 60  # Adam steps of a board's first round
    warm_steps: int = 20  # steps of each later round (warm-started)
    lr: float = 0.1
    rounds: int = 35  # LTN rounds per board at most
    backtracks: int = 20  # decisions undone per board at most
    singles: bool = False  # fill naked / hidden singles between rounds
    seed: int = 0


@dataclass
class SolveOutcome:
    """One board's result: the certified board (None: not certified), the satisfaction of the
    all-different axiom in its last round, rounds run, decisions undone, cells filled by
    singles, and its share of the batched wall time and of this process's CPU time."""

    board: tuple[int, ...] | None
    satisfaction: float
    rounds: int
    backtracks: int
    singles: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class _Tables:
    units: np.ndarray  # (units, n) cell indices of the full-size groups
    peers: np.ndarray  # (cells, cells) 0/1 float
    pairs: object  # torch (pairs, 2): every peer pair once


@lru_cache(maxsize=8)
def _tables(puzzle_layout) -> _Tables:
    import numpy as np
    import torch

    n, cells = puzzle_layout.domain, puzzle_layout.ncells
    units = np.array([g for g in puzzle_layout.groups if len(g) == n], dtype=np.int64)
    peers = np.zeros((cells, cells), dtype=np.float32)
    for g in puzzle_layout.groups:
        for c in g:
            peers[c, list(g)] = 1.0
    np.fill_diagonal(peers, 0.0)
    pairs = torch.tensor(np.argwhere(np.triu(peers) > 0), dtype=torch.long)
    return _Tables(units, peers, pairs)


def propagate(board: np.ndarray, banned: np.ndarray, singles: bool, t: _Tables
              ) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """(board, IsPossible mask (cells x values), dead, cells filled by singles).

    ``dead``: two equal values in a unit, an empty cell without a possible value, or (with
    singles) a missing value that fits nowhere in its unit, or a cell forced to two values."""
    import numpy as np

    board = board.copy()
    filled_by_singles = 0
    while True:
        filled = board > 0
        onehot = np.zeros_like(banned)
        onehot[filled, board[filled] - 1] = True
        placed = onehot[t.units].sum(axis=1)  # (units, values)
        if (placed > 1).any():
            return board, onehot, True, filled_by_singles
        seen = (t.peers @ onehot.astype(np.float32)) > 0
        allowed = ~seen & ~banned & ~filled[:, None]
        allowed[filled] = onehot[filled]
        if (allowed.sum(axis=1) == 0).any():
            return board, allowed, True, filled_by_singles
        if not singles:
            return board, allowed, False, filled_by_singles
        places = allowed[t.units].sum(axis=1)  # (units, values), a filled cell counts once
        if (places == 0).any():
            return board, allowed, True, filled_by_singles
        moves: dict[int, int] = {}
        for c in np.flatnonzero(~filled & (allowed.sum(axis=1) == 1)):
            moves[int(c)] = int(allowed[c].argmax()) + 1
        for u, v in np.argwhere((places == 1) & (placed == 0)):
            cells = t.units[u]
            c = int(cells[allowed[cells, v].argmax()])
            if moves.setdefault(c, int(v) + 1) != v + 1:
                return board, allowed, True, filled_by_singles
        if not moves:
            return board, allowed, False, filled_by_singles
        for c, v in moves.items():
            board[c] = v
        filled_by_singles += len(moves)


def _search(puzzle: Puzzle, start: Sequence[int], s: SolveSettings, t: _Tables
            ) -> Generator[np.ndarray, tuple[np.ndarray, float], SolveOutcome]:
    """One board's search; yields IsPossible masks, receives (probabilities, satisfaction)."""
    import numpy as np

    board = np.array(start, dtype=np.int64)
    banned = np.zeros((puzzle.ncells, puzzle.domain), dtype=bool)
    stack: list[tuple[np.ndarray, np.ndarray]] = []
    rounds = backtracks = by_singles = 0
    sat = 0.0

    def certified(b) -> tuple[int, ...] | None:
        cand = tuple(int(x) for x in b)
        if puzzle.check_solution(cand) or any(
                g and g != v for g, v in zip(start, cand, strict=True)):
            return None
        return cand

    while True:
        board, allowed, dead, filled = propagate(board, banned, s.singles, t)
        by_singles += filled
        if not dead and board.all():
            done = certified(board)
            if done is not None:
                return SolveOutcome(done, sat, rounds, backtracks, by_singles)
            dead = True
        if not dead:
            if rounds >= s.rounds:
                break
            rounds += 1
            probs, sat = yield allowed
            done = certified(probs.argmax(axis=1) + 1)
            if done is not None:
                return SolveOutcome(done, sat, rounds, backtracks, by_singles)
            conf = np.where(board == 0, probs.max(axis=1), -1.0)
            c = int(conf.argmax())
            v = int(probs[c].argmax())
            alt = banned.copy()  # the alternative: the same board with that value banned there
            alt[c, v] = True
            stack.append((board.copy(), alt))
            board = board.copy()
            board[c] = v + 1
            continue
        if not stack or backtracks >= s.backtracks:
            break
        backtracks += 1
        board, banned = stack.pop()
    return SolveOutcome(None, sat, rounds, backtracks, by_singles)


def ltn_solve(puzzles: Sequence[Puzzle], settings: SolveSettings | None = None,
              boards: Sequence[Sequence[int]] | None = None) -> list[SolveOutcome]:
    """Solve same-layout plain puzzles (from ``boards``, default their givens) by LTN rounds
    in a bounded search; one outcome per puzzle, certified boards only."""
    import numpy as np
    import torch

    s = settings or SolveSettings()
    if not puzzles:
        return []
    layout = puzzles[0].layout
    if any(p.layout is not layout or p.less_than or p.extra_groups for p in puzzles):
        raise ValueError("ltn_solve needs puzzles of one plain layout")
    t = _tables(layout)
    start = [p.givens for p in puzzles] if boards is None else list(boards)
    gen = torch.Generator().manual_seed(s.seed)
    results: list[SolveOutcome | None] = [None] * len(puzzles)
    searches = {}
    pending: dict[int, np.ndarray] = {}
    logits: dict[int, torch.Tensor] = {}
    t0, c0 = time.perf_counter(), time.process_time()
    for i, p in enumerate(puzzles):
        searches[i] = _search(p, start[i], s, t)
        try:
            pending[i] = next(searches[i])
        except StopIteration as stop:
            results[i] = stop.value
    start_share = [(time.perf_counter() - t0) / len(puzzles),
                   (time.process_time() - c0) / len(puzzles)]
    spent = [list(start_share) for _ in puzzles]  # wall, CPU: an equal share of the start
    while pending:
        for warm in (False, True):
            batch = [i for i in sorted(pending) if (i in logits) == warm]
            if not batch:
                continue
            t1, c1 = time.perf_counter(), time.process_time()
            mask = torch.from_numpy(np.stack([pending[i] for i in batch]))
            init = (torch.stack([logits[i] for i in batch]) if warm
                    else 0.01 * torch.randn(mask.shape, generator=gen))
            probs, sat, last = optimise(mask, t.pairs, init, s.warm_steps if warm else s.steps,
                                        s.lr)
            probs_np = probs.numpy()
            for j, i in enumerate(batch):
                logits[i] = last[j]
                try:
                    pending[i] = searches[i].send((probs_np[j], float(sat[j])))
                except StopIteration as stop:
                    results[i] = stop.value
                    del pending[i]
            wall = (time.perf_counter() - t1) / len(batch)
            cpu = (time.process_time() - c1) / len(batch)
            for i in batch:
                spent[i][0] += wall
                spent[i][1] += cpu
    for i, r in enumerate(results):
        r.seconds, r.cpu_seconds = round(spent[i][0], 6), round(spent[i][1], 6)
    return results  # type: ignore[return-value]
