"""The knowledge bases of the LTN branch, written with LTNtorch's own objects.

Q1 (learned): predicate ``Ok(board, unit)`` and the axioms
    ∀b∈Valid ∀u Ok(b, u)            (pMeanError)
    ∀b∈Invalid ∃u ¬Ok(b, u)         (pMeanError over boards, pMean over units)
trained by maximising SatAgg of both. A board is judged valid when ∀u Ok(b, u) under the Gödel
(min) aggregator is at least 0.5.

Q2 (per-board solving): a fixed-structure predicate ``HasValue(b, c, v)`` grounded as a softmax
over each cell's candidates (givens clamped), optimised to satisfy
    ∀b ∀(c,d)∈Peers ∀v ¬(HasValue(b,c,v) ∧ HasValue(b,d,v))      (all different)
    ∀b ∀g ∀v ∃k HasValue(b, g_k, v)                              (cover; optional, see below)
with IsPossible (the candidates) as a mask; confident cells are fixed between rounds
(decimation). The argmax board is then checked symbolically; only a checked board certifies
solvability.

Q3 (fixed predicates, Gödel semantics): ``IsPossible(c, v)``, ``NakedSingle(c, v)`` and
``HiddenSingle(c, v, g)`` as formulas over ``Filled``, ``Empty``, ``Peer`` and ``InUnit``; with
crisp predicates their truth values are 0/1 and must agree exactly with
:mod:`satdoku.heuristics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from satdoku.heuristics import HIDDEN, NAKED, Move, group_kind
from satdoku.puzzle import Puzzle


# --- Q1 --------------------------------------------------------------------------------------
class Q1Axioms:
    """Connectives, quantifiers and SatAgg of the Q1 knowledge base."""

    def __init__(self, p_forall: int = 2, p_exists: int = 6) -> None:
        import ltn

        self.Not = ltn.Connective(ltn.fuzzy_ops.NotStandard())
        self.Forall = ltn.Quantifier(ltn.fuzzy_ops.AggregPMeanError(p=p_forall), quantifier="f")
        self.Exists = ltn.Quantifier(ltn.fuzzy_ops.AggregPMean(p=p_exists), quantifier="e")
        self.ForallMin = ltn.Quantifier(ltn.fuzzy_ops.AggregMin(), quantifier="f")
        self.SatAgg = ltn.fuzzy_ops.SatAgg()

    def satisfaction(self, ok, valid, invalid, size: int):
        """SatAgg of both axioms for a batch of valid and of invalid boards (long tensors)."""
        import ltn
        import torch

        u = ltn.Variable("u", torch.arange(3 * size), add_batch_dim=False)
        axioms = []
        if valid is not None and len(valid):
            bv = ltn.Variable("bv", valid)
            axioms.append(self.Forall([bv, u], ok(bv, u)))
        if invalid is not None and len(invalid):
            bi = ltn.Variable("bi", invalid)
            axioms.append(self.Forall(bi, self.Exists(u, self.Not(ok(bi, u)))))
        return self.SatAgg(*axioms)

    def board_truth(self, ok, boards, size: int):
        """Truth of ∀u Ok(b, u) (Gödel ∀ = min) per board: a ``(batch,)`` tensor."""
        import ltn
        import torch

        u = ltn.Variable("u", torch.arange(3 * size), add_batch_dim=False)
        b = ltn.Variable("b", boards)
        return self.ForallMin(u, ok(b, u)).value.view(-1)


def q1_predict(ok, boards: Sequence[Sequence[int]], size: int, batch: int = 512):
    """(valid, confidence, truth) lists for closed boards, using a trained ``Ok`` predicate."""
    import torch

    ax = Q1Axioms()
    truths: list[float] = []
    with torch.no_grad():
        for i in range(0, len(boards), batch):
            t = torch.tensor([list(b) for b in boards[i:i + batch]], dtype=torch.long)
            truths.extend(ax.board_truth(ok, t, size).tolist())
    valid = [t >= 0.5 for t in truths]
    conf = [t if v else 1.0 - t for t, v in zip(truths, valid, strict=True)]
    return valid, conf, truths


# --- Q2 --------------------------------------------------------------------------------------
@dataclass
class SolveOutcome:
    """One board's LTN solving result: the checked board (None if not certified) and the
    board's final satisfaction, plus the hasValue probabilities (cells x values)."""

    board: tuple[int, ...] | None
    satisfaction: float
    restarts: int
    probs: list[list[float]]


def _peer_pairs(puzzle: Puzzle) -> list[tuple[int, int]]:
    return sorted({(min(c, d), max(c, d)) for c in range(puzzle.ncells)
                   for d in puzzle.peers[c]})


def ltn_solve(
    puzzles: Sequence[Puzzle],
    steps: int = 100,
    lr: float = 0.1,
    restarts: int = 0,
    seed: int = 0,
    boards: Sequence[Sequence[int]] | None = None,
    rounds: int = 2,
    threshold: float = 0.9,
) -> list[SolveOutcome]:
    """Per-board LTN solving for same-layout puzzles, batched; certification is symbolic.

    ``boards`` (default: the givens) are the partial boards to complete. Each round optimises
    HasValue (``steps`` Adam steps) and certifies a board only when its argmax assignment
    passes ``puzzle.check_solution``. Between rounds, uncertified boards are *decimated*: the
    empty cells whose HasValue exceeds ``threshold`` are fixed (most confident first, skipping
    values that clash with cells already fixed) and IsPossible is recomputed, for up to
    ``rounds`` rounds; then up to ``restarts`` fresh rounds from the start board follow. No
    exact search is involved: a failed board simply stays uncertified."""
    import torch

    if not puzzles:
        return []
    layout = puzzles[0].layout
    if any(p.layout is not layout or p.less_than or p.extra_groups for p in puzzles):
        raise ValueError("ltn_solve needs puzzles of one plain layout")
    n = layout.domain
    start = [list(p.givens) for p in puzzles] if boards is None else [list(b) for b in boards]
    pairs = torch.tensor(_peer_pairs(puzzles[0]), dtype=torch.long)
    groups = torch.tensor([g for g in layout.groups if len(g) == n], dtype=torch.long)

    gen = torch.Generator().manual_seed(seed)
    results: list[SolveOutcome | None] = [None] * len(puzzles)
    todo = list(range(len(puzzles)))
    current = [list(b) for b in start]
    last_probs: dict[int, torch.Tensor] = {}
    last_sat: dict[int, float] = {}
    attempt = 0
    for rnd in range(max(1, rounds) + restarts):
        if not todo:
            break
        if rnd >= max(1, rounds):  # decimation exhausted: restart from the start boards
            attempt += 1
            current = [list(b) for b in start]
        m = torch.stack([_mask(puzzles[i], current[i]) for i in todo])
        final, sat_b = _optimise(m, pairs, groups, steps, lr, gen)
        still = []
        for j, i in enumerate(todo):
            board = tuple(int(x) + 1 for x in final[j].argmax(dim=-1).tolist())
            last_probs[i] = final[j]
            last_sat[i] = float(sat_b[j])
            if not puzzles[i].check_solution(board) and all(
                    not s or s == v for s, v in zip(start[i], board, strict=True)):
                results[i] = SolveOutcome(board, float(sat_b[j]), attempt, final[j].tolist())
            else:
                _decimate(puzzles[i], current[i], final[j], threshold)
                still.append(i)
        todo = still
    for i in todo:
        results[i] = SolveOutcome(None, last_sat[i], restarts, last_probs[i].tolist())
    return [r for r in results if r is not None]


def _mask(puzzle: Puzzle, board: Sequence[int]):
    """IsPossible as a boolean (cells x values) tensor: a filled cell allows its value, an
    empty cell its candidates."""
    import torch

    m = torch.zeros(puzzle.ncells, puzzle.domain, dtype=torch.bool)
    for c, cand in enumerate(puzzle.candidates(board)):
        for v in cand:
            m[c, v - 1] = True
    return m


def _decimate(puzzle: Puzzle, board: list[int], probs, threshold: float) -> None:
    """Fix confident empty cells of ``board`` in place (at least the most confident one),
    never creating a visible conflict."""
    conf, arg = probs.max(dim=-1)
    order = sorted((c for c in range(puzzle.ncells) if not board[c]),
                   key=lambda c: -float(conf[c]))
    peers = puzzle.peers
    fixed = 0
    for c in order:
        if fixed and float(conf[c]) < threshold:
            break
        v = int(arg[c]) + 1
        if any(board[d] == v for d in peers[c]):
            continue
        board[c] = v
        fixed += 1


def _optimise(mask, pairs, groups, steps: int, lr: float, gen, p_forall: int = 2,
              p_exists: int = 0):
    """Optimise HasValue for a batch of boards (``mask``: boards x cells x values of allowed
    values) towards the all-different axiom (plus the cover axiom when ``p_exists`` > 0: with
    one softmax per cell, cover follows from all-different by pigeonhole, and its pMean
    existential — at most (1/N)^(1/p) for a perfect board — pulls towards spreading values, so
    it is off by default); returns the final probabilities and each board's satisfaction."""
    import ltn
    import torch

    nb, cells, n = mask.shape
    And = ltn.Connective(ltn.fuzzy_ops.AndProd())
    Not = ltn.Connective(ltn.fuzzy_ops.NotStandard())
    Forall = ltn.Quantifier(ltn.fuzzy_ops.AggregPMeanError(p=p_forall), quantifier="f")
    Exists = ltn.Quantifier(ltn.fuzzy_ops.AggregPMean(p=p_exists or 1), quantifier="e")
    SatAgg = ltn.fuzzy_ops.SatAgg()
    logits = (0.01 * torch.randn(nb, cells, n, generator=gen)).requires_grad_()
    opt = torch.optim.Adam([logits], lr=lr)
    state: dict[str, torch.Tensor] = {}
    HasA = ltn.Predicate(func=lambda b, pr, v: state["P"][b, pairs[pr, 0], v])
    HasB = ltn.Predicate(func=lambda b, pr, v: state["P"][b, pairs[pr, 1], v])
    HasG = ltn.Predicate(func=lambda b, g, k, v: state["P"][b, groups[g, k], v])
    b = ltn.Variable("b", torch.arange(nb), add_batch_dim=False)
    pr = ltn.Variable("pr", torch.arange(len(pairs)), add_batch_dim=False)
    g = ltn.Variable("g", torch.arange(len(groups)), add_batch_dim=False)
    k = ltn.Variable("k", torch.arange(n), add_batch_dim=False)
    v = ltn.Variable("v", torch.arange(n), add_batch_dim=False)

    def axioms():
        state["P"] = torch.softmax(logits.masked_fill(~mask, -1e9), dim=-1).clamp(0.0, 1.0)
        alldiff = Forall([pr, v], Not(And(HasA(b, pr, v), HasB(b, pr, v))))
        cover = Forall([g, v], Exists(k, HasG(b, g, k, v))) if p_exists else None
        return alldiff, cover

    for _ in range(steps):
        opt.zero_grad()
        alldiff, cover = axioms()
        sat = (SatAgg(Forall(b, alldiff), Forall(b, cover)) if p_exists
               else SatAgg(Forall(b, alldiff)))
        (1.0 - sat).backward()
        opt.step()
    with torch.no_grad():
        alldiff, cover = axioms()
        return state["P"], (torch.minimum(alldiff.value, cover.value) if cover is not None
                            else alldiff.value)


# --- Q3 --------------------------------------------------------------------------------------
class SingleFormulas:
    """Naked and hidden single as LTN formulas over crisp fixed predicates (Gödel semantics)."""

    def __init__(self, puzzle: Puzzle) -> None:
        import ltn
        import torch

        self.puzzle = puzzle
        n, cells = puzzle.domain, puzzle.ncells
        self.full_groups = [g for g, cs in enumerate(puzzle.groups) if len(cs) == n]
        peer = torch.zeros(cells, cells)
        for c in range(cells):
            for d in puzzle.peers[c]:
                peer[c, d] = 1.0
        in_unit = torch.zeros(cells, len(self.full_groups))
        for j, g in enumerate(self.full_groups):
            for c in puzzle.groups[g]:
                in_unit[c, j] = 1.0
        self.peer, self.in_unit = peer, in_unit
        self.And = ltn.Connective(ltn.fuzzy_ops.AndMin())
        self.Not = ltn.Connective(ltn.fuzzy_ops.NotStandard())
        self.Implies = ltn.Connective(ltn.fuzzy_ops.ImpliesGodel())
        self.Forall = ltn.Quantifier(ltn.fuzzy_ops.AggregMin(), quantifier="f")
        self.c = ltn.Variable("c", torch.arange(cells), add_batch_dim=False)
        self.d = ltn.Variable("d", torch.arange(cells), add_batch_dim=False)
        self.v = ltn.Variable("v", torch.arange(n), add_batch_dim=False)
        self.w = ltn.Variable("w", torch.arange(n), add_batch_dim=False)
        self.g = ltn.Variable("g", torch.arange(len(self.full_groups)), add_batch_dim=False)
        self.Peer = ltn.Predicate(func=lambda c, d: peer[c, d])
        self.InUnit = ltn.Predicate(func=lambda c, g: in_unit[c, g])
        self.Differ = ltn.Predicate(func=lambda a, b: (a != b).float())

    def evaluate(self, board: Sequence[int]):
        """Truth tables: naked ``(cells, values)``, hidden ``(cells, values, groups)``."""
        import ltn
        import torch

        n, cells = self.puzzle.domain, self.puzzle.ncells
        b = torch.tensor(list(board), dtype=torch.long)
        filled = torch.zeros(cells, n)
        for c, val in enumerate(board):
            if val:
                filled[c, val - 1] = 1.0
        empty = (b == 0).float()
        Filled = ltn.Predicate(func=lambda c, v: filled[c, v])
        Empty = ltn.Predicate(func=lambda c: empty[c])
        c, d, v, w, g = self.c, self.d, self.v, self.w, self.g
        And, Not, Implies, Forall = self.And, self.Not, self.Implies, self.Forall

        # IsPossible(c, v) = Empty(c) ∧ ∀d (Peer(c, d) → ¬Filled(d, v))
        possible = And(Empty(c), Forall(d, Implies(self.Peer(c, d), Not(Filled(d, v)))))
        poss = possible.value  # (cells, values), axes c, v
        IsPossible = ltn.Predicate(func=lambda c, v: poss[c, v])
        # NakedSingle(c, v) = IsPossible(c, v) ∧ ∀w (Differ(v, w) → ¬IsPossible(c, w))
        naked = And(IsPossible(c, v),
                    Forall(w, Implies(self.Differ(v, w), Not(IsPossible(c, w)))))
        # HiddenSingle(c, v, g) = InUnit(c, g) ∧ IsPossible(c, v)
        #                         ∧ ∀d ((InUnit(d, g) ∧ Differ(c, d)) → ¬IsPossible(d, v))
        hidden = And(And(self.InUnit(c, g), IsPossible(c, v)),
                     Forall(d, Implies(And(self.InUnit(d, g), self.Differ(c, d)),
                                       Not(IsPossible(d, v)))))
        return _ordered(naked, ["c", "v"]), _ordered(hidden, ["c", "v", "g"])

    def moves(self, board: Sequence[int], threshold: float = 0.5) -> list[Move]:
        """Every single whose formula is true (≥ threshold), with its truth value."""
        naked, hidden = self.evaluate(board)
        out: list[Move] = []
        for c, v in (naked >= threshold).nonzero().tolist():
            m = Move.at(self.puzzle, c, v + 1, NAKED)
            out.append(_with_truth(m, float(naked[c, v])))
        seen = set()
        for c, v, j in (hidden >= threshold).nonzero().tolist():
            name = f"{HIDDEN}_{group_kind(self.puzzle, self.full_groups[j])}"
            if (c, v, name) in seen:
                continue
            seen.add((c, v, name))
            out.append(_with_truth(Move.at(self.puzzle, c, v + 1, name), float(hidden[c, v, j])))
        return out


def _ordered(obj, order: list[str]):
    """An LTNObject's value with its axes permuted into ``order`` of variable labels."""
    return obj.value.permute(*[obj.free_vars.index(x) for x in order])


def _with_truth(m: Move, truth: float) -> Move:
    return Move(m.cell, m.value, m.heuristic, m.row, m.col, round(truth, 6), m.round)
