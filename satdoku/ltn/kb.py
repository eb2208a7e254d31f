"""The knowledge bases of the LTN branch, written with LTNtorch's own objects.

Q1 (learned): predicate ``Ok(board, unit)`` and the axioms
    ∀b∈Valid ∀u Ok(b, u)            (pMeanError)
    ∀b∈Invalid ∃u ¬Ok(b, u)         (pMeanError over boards, pMean over units)
trained by maximising SatAgg of both. A board is judged valid when ∀u Ok(b, u) under the Gödel
(min) aggregator is at least 0.5.

Q2 (per-board solving): a fixed-structure predicate ``HasValue(b, c, v)`` grounded as a softmax
over each cell's candidates (givens clamped), optimised to satisfy
    ∀b ∀(c,d)∈Peers ∀v ¬(HasValue(b,c,v) ∧ HasValue(b,d,v))      (all different)
with IsPossible (the candidates) as a mask; :mod:`satdoku.ltn.board_solver` runs these rounds
inside a confidence-ordered search. The argmax board is checked symbolically; only a checked board
certifies solvability.

Q3 (fixed predicates, Gödel semantics): ``IsPossible(c, v)``, ``NakedSingle(c, v)`` and
``HiddenSingle(c, v, g)`` as formulas over ``Filled``, ``Empty``, ``Peer`` and ``InUnit``; with
crisp predicates their truth values are 0/1 and must agree exactly with
:mod:`satdoku.heuristics`.
"""

from __future__ import annotations

from collections.abc import Sequence

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
def optimise(mask, pairs, logits, steps: int, lr: float, p_forall: int = 2):
    """Ground ``HasValue(b, c, v)`` as a softmax over each cell's allowed values (``mask``:
    boards x cells x values, IsPossible) from ``logits`` and run ``steps`` Adam steps
    maximising SatAgg of

        ∀b ∀(c,d)∈Peers ∀v ¬(HasValue(b, c, v) ∧ HasValue(b, d, v))     (all different)

    (product t-norm, pMeanError quantifiers). The cover axiom (every value somewhere in every
    unit) follows from all-different by pigeonhole with one softmax per cell, so it is left
    out. ``pairs``: every peer pair once, ``(pairs, 2)``. Returns the final probabilities, each
    board's satisfaction and the final logits (to warm-start the next round)."""
    import ltn
    import torch

    nb, _, n = mask.shape
    And = ltn.Connective(ltn.fuzzy_ops.AndProd())
    Not = ltn.Connective(ltn.fuzzy_ops.NotStandard())
    Forall = ltn.Quantifier(ltn.fuzzy_ops.AggregPMeanError(p=p_forall), quantifier="f")
    SatAgg = ltn.fuzzy_ops.SatAgg()
    b = ltn.Variable("b", torch.arange(nb), add_batch_dim=False)
    pr = ltn.Variable("pr", torch.arange(len(pairs)), add_batch_dim=False)
    v = ltn.Variable("v", torch.arange(n), add_batch_dim=False)
    logits = logits.detach().clone().requires_grad_()
    opt = torch.optim.Adam([logits], lr=lr)

    def alldiff():
        probs = torch.softmax(logits.masked_fill(~mask, -1e9), dim=-1)
        # HasValue grounded on both ends of every peer pair: (b, pr, v) truth values
        first = ltn.LTNObject(probs[:, pairs[:, 0], :], ["b", "pr", "v"])
        second = ltn.LTNObject(probs[:, pairs[:, 1], :], ["b", "pr", "v"])
        return probs, Forall([pr, v], Not(And(first, second)))

    for _ in range(steps):
        opt.zero_grad()
        _, axiom = alldiff()
        (1.0 - SatAgg(Forall(b, axiom))).backward()
        opt.step()
    with torch.no_grad():
        probs, axiom = alldiff()
    return probs, axiom.value, logits.detach()


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
