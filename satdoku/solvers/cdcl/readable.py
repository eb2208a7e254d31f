"""Our CDCL written for people: the same search as the C kernel, in plain Python.

The C kernel (``kernel.c`` beside it, module :mod:`satdoku.solvers.cdcl._cdcl`) is what runs; this
module is its readable form and the tests' oracle: on the same formula, with the same
parameters, both make the same decisions in the same order, so their statistics and proofs are
equal step for step (tests/test_cdcl.py). Read this file to learn the algorithm; read the C
file for how it is made fast (flat arrays, a clause arena, growable watch vectors).

The methods follow MiniSat's order: :meth:`Kernel.enqueue`, :meth:`~Kernel.propagate`,
:meth:`~Kernel.analyze` (with :meth:`~Kernel.lit_redundant`), :meth:`~Kernel.backtrack`,
:meth:`~Kernel.pick_branch`, :meth:`~Kernel.reduce_db`, then the restart policies and
:meth:`~Kernel.search`. :class:`Kernel` has the C type's interface (``load``, ``solve``,
``model``, ``stats``, ``proof_buffer``, ``write_proof``, ``status``, and
``propagate_units``: propagation and failed-literal probing alone, for ``satdoku analyze``),
so the driver
(:mod:`satdoku.solvers.cdcl.driver`) runs either without asking which.

Conventions (MiniSat's):

* variable ``v`` is 0-based; literal ``2*v + s`` with sign ``s`` = 1 for the negation, so
  ``lit ^ 1`` negates and ``lit >> 1`` is the variable. DIMACS ``d`` is ``2*(|d|-1) + (d<0)``.
* ``value[lit]`` is TRUE, FALSE or UNASSIGNED, kept for both literals of a variable.
* a clause of three or more literals is a :class:`Clause`; its first two literals are watched,
  and a clause that implied a literal holds that literal first.
* a binary clause ``(a or b)`` is never a Clause: ``implied[a]`` lists ``b`` (``b`` must become
  true once ``a`` is false) and ``implied[b]`` lists ``a``. The reason of a literal implied by
  one is the int ``other``: the clause's other, false, literal.
* every clause has an id: the formula's are 1..m in loading order, each learnt (or, in LRAT,
  derived) clause the next. Proofs are DRAT (``proof`` 1: the clauses) or LRAT (``proof`` 2:
  ids and hints too, :meth:`Kernel.log_add`); an LRAT hint chain lists the unit clauses of the
  level-0 literals it uses (derived from their reasons when first needed,
  :meth:`Kernel.unit_id_of`), then every reason the derivation resolved, antecedents first
  (:meth:`Kernel.learnt_hints`), then the conflict.
"""

from __future__ import annotations

import gc
import time
from array import array
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path

from satdoku.cnf import drat, lrat
from satdoku.cnf.drat import drup_lines
from satdoku.cnf.lrat import lrat_lines
from satdoku.solvers.cdcl.params import (
    DEFAULTS,
    P_BLOCK_MIN,
    P_BLOCK_R_PCT,
    P_GLUCOSE_K_PCT,
    P_KEEP_LBD,
    P_LBDQ_LEN,
    P_LUBY_UNIT,
    P_REDUCE_FIRST,
    P_REDUCE_INC,
    P_REDUCE_PER_VAR,
    P_SIMP_DELAY,
    P_SIMPLIFY,
    P_SWITCH,
    P_TRAILQ_LEN,
    PROOFS,
    RESTARTS,
    STATUS_CODES,
)
from satdoku.solvers.cdcl.simplify import Simplifier, extend_model

#: status codes, as both kernels return them (their home: cdcl/params.py)
UNKNOWN, SAT, UNSAT, UNSAT_ASSUMED = (STATUS_CODES[k] for k in
                                      ("UNKNOWN", "SAT", "UNSAT", "UNSAT_ASSUMED"))
#: proof modes (the kernels' ``proof`` argument)
PROOF_NONE, PROOF_DRAT, PROOF_LRAT = (PROOFS[k] for k in ("none", "drat", "lrat"))
RESTART_NONE, RESTART_LUBY, RESTART_GLUCOSE, RESTART_MIXED = (RESTARTS[k] for k in
                                                              ("none", "luby", "glucose", "mixed"))
TRUE, FALSE, UNASSIGNED = 1, -1, 0
#: clause header words in the C arena (size, flags, LBD): counted only so that both kernels
#: report the same ``collections`` statistic
_HEADER_WORDS = 3
#: propagated literals between two looks at the clock (a few ms of Python)
_CLOCK_EVERY = 2000
#: clauses loaded between two looks at the clock (a few ms of Python)
_LOAD_CHUNK = 1024

class Clause:
    """A clause of three or more literals: watched on ``lits[0]`` and ``lits[1]``."""

    __slots__ = ("deleted", "id", "lbd", "learnt", "lits")

    def __init__(self, lits: list[int], learnt: bool = False, lbd: int = 0,
                 ident: int = 0) -> None:  # fmt: skip
        self.lits = lits
        self.id = ident  # the clause id of proofs
        self.learnt = learnt
        self.lbd = lbd  # literal block distance at learning time: distinct decision levels
        self.deleted = False  # deleted clauses are dropped from watch lists when next met


class Window:
    """The last ``size`` values pushed and their sum (glucose's bounded queues)."""

    def __init__(self, size: int) -> None:
        self.values: deque[int] = deque(maxlen=size)
        self.sum = 0

    def push(self, x: int) -> None:
        if self.full():
            self.sum -= self.values[0]
        self.values.append(x)
        self.sum += x

    def full(self) -> bool:
        return len(self.values) == self.values.maxlen

    def clear(self) -> None:
        self.values.clear()
        self.sum = 0


class VarOrder:
    """EVSIDS: variable activities, bumped by an increment that grows by 1/decay at every
    conflict, and a binary max-heap of the variables by activity (MiniSat's ``order_heap``;
    ties keep heap order, exactly as the C kernel)."""

    def __init__(self, num_vars: int, decay: float) -> None:
        self.activity = [0.0] * num_vars
        self.inc, self.decay = 1.0, decay
        self.heap = list(range(num_vars))  # all activities 0: already a heap
        self.pos = list(range(num_vars))  # index in heap, -1 when not in it

    def _place(self, v: int, i: int) -> None:
        self.heap[i] = v
        self.pos[v] = i

    def _up(self, i: int) -> None:
        """Sift the variable at ``i`` towards the root past every less active parent."""
        heap, act = self.heap, self.activity
        v = heap[i]
        while i > 0 and act[heap[(i - 1) >> 1]] < act[v]:
            parent = (i - 1) >> 1
            self._place(heap[parent], i)
            i = parent
        self._place(v, i)

    def _down(self, i: int) -> None:
        """Sift the variable at ``i`` towards the leaves past every more active child."""
        heap, act = self.heap, self.activity
        v, size = heap[i], len(heap)
        while (child := 2 * i + 1) < size:
            if child + 1 < size and act[heap[child + 1]] > act[heap[child]]:
                child += 1
            if act[heap[child]] <= act[v]:
                break
            self._place(heap[child], i)
            i = child
        self._place(v, i)

    def refill(self, variables: list[int]) -> None:
        """The heap holds exactly ``variables``, inserted in this order."""
        self.pos = [-1] * len(self.pos)
        self.heap = []
        for v in variables:
            self.insert(v)

    def insert(self, v: int) -> None:
        """Put ``v`` back (after backtracking unassigned it); no-op if it is in the heap."""
        if self.pos[v] >= 0:
            return
        self.heap.append(v)
        self.pos[v] = len(self.heap) - 1
        self._up(len(self.heap) - 1)

    def pop(self) -> int:
        """The most active variable, removed. Requires a non-empty heap."""
        top, last = self.heap[0], self.heap.pop()
        self.pos[top] = -1
        if self.heap:
            self.heap[0] = last
            self.pos[last] = 0
            self._down(0)
        return top

    def bump(self, v: int) -> None:
        """Add the increment to ``v``'s activity (all activities and the increment are scaled
        by 1e-100 before they overflow)."""
        self.activity[v] += self.inc
        if self.activity[v] > 1e100:
            self.activity = [a * 1e-100 for a in self.activity]
            self.inc *= 1e-100
        if self.pos[v] >= 0:
            self._up(self.pos[v])

    def decay_all(self) -> None:
        """Older bumps count less: the next ones weigh 1/decay times more."""
        self.inc /= self.decay


def luby(i: int) -> int:
    """The Luby sequence 1 1 2 1 1 2 4 1 1 2 ... at 0-based index ``i``."""
    size, seq = 1, 0
    while size < i + 1:
        seq += 1
        size = 2 * size + 1
    while size - 1 != i:
        size = (size - 1) >> 1
        seq -= 1
        i = i % size
    return 1 << seq


def reduce_schedule(P: Sequence[int], num_vars: int) -> tuple[int, int]:
    """The clause-database reduction schedule (first, increment) of a formula over
    ``num_vars`` variables: reduce_first and reduce_inc, but on a small formula the first
    reduction comes after at most reduce_per_var conflicts per variable and the increment
    shrinks in proportion. A few dozen variables (a pigeonhole formula) with thousands of
    learnt clauses made each conflict cost twice MiniSat's, whose learnt clauses are bounded
    by the formula's size; formulas of 200 variables and more keep the glucose schedule."""
    first, inc, per_var = P[P_REDUCE_FIRST], P[P_REDUCE_INC], P[P_REDUCE_PER_VAR]
    if per_var > 0 and per_var * num_vars < first:
        scaled = max(1, per_var * num_vars)
        return scaled, inc * scaled // first
    return first, inc


def to_dimacs(lit: int) -> int:
    return -((lit >> 1) + 1) if lit & 1 else (lit >> 1) + 1


class Kernel:
    """The state of one CDCL search; the interface of the C type ``_cdcl.Kernel``.

    ``restart_mode`` is one of the RESTART_* codes; ``negative_phase`` the initial saved phase
    of every variable; ``decay`` the EVSIDS decay; ``proof`` the proof to log (PROOF_NONE,
    PROOF_DRAT or PROOF_LRAT); ``params`` the policy parameters in
    :mod:`satdoku.solvers.cdcl.params` order (None: the defaults)."""

    def __init__(self, num_vars: int, restart_mode: int = RESTART_GLUCOSE,
                 negative_phase: bool = True, decay: float = 0.95, proof: int = PROOF_NONE,
                 params: Sequence[int] | None = None) -> None:  # fmt: skip
        if proof not in (PROOF_NONE, PROOF_DRAT, PROOF_LRAT):
            raise ValueError("unknown proof mode")
        if not 0 <= num_vars <= 1 << 29:
            raise ValueError("num_vars out of range")
        self.P = list(DEFAULTS if params is None else params)
        if len(self.P) != len(DEFAULTS):
            raise ValueError(f"params must hold {len(DEFAULTS)} ints")
        if not (1 <= self.P[P_LBDQ_LEN] <= 65536 and 1 <= self.P[P_TRAILQ_LEN] <= 65536
                and self.P[P_LUBY_UNIT] >= 1):  # fmt: skip
            raise ValueError("bad window or restart parameter")
        if self.P[P_SWITCH] < 1:
            raise ValueError("the mode switch interval must be positive")
        n = self.num_vars = num_vars
        self.status = UNKNOWN  # UNSAT once the formula is refuted at level 0
        # assignment
        self.value = [UNASSIGNED] * (2 * n)
        self.level = [0] * n
        self.reason: list[Clause | int | None] = [None] * n
        self.trail: list[int] = []  # assigned literals, in order
        self.trail_lim: list[int] = []  # trail length when each decision level began
        self.qhead = 0  # trail[:qhead] has been propagated
        self.phase = [1 if negative_phase else 0] * n  # saved sign of each variable
        self.last_model: list[int] = []  # the model of the last SAT answer (DIMACS literals)
        # clauses
        self.watches: list[list[tuple[Clause, int]]] = [[] for _ in range(2 * n)]
        self.implied: list[list[int]] = [[] for _ in range(2 * n)]
        self.originals: list[Clause] = []  # the long clauses of the formula, in load order
        self.learnts: list[Clause] = []
        # preprocessing (cdcl/simplify.py): once, after P_SIMP_DELAY conflicts, when P_SIMPLIFY
        self.simplified = False
        self.frozen = [False] * n  # never eliminated (assumptions)
        self.eliminated = [False] * n
        self.elimclauses: list[int] = []  # MiniSat's: clause (eliminated literal first), size
        # heuristics
        self.order = VarOrder(n, decay)
        self.restart_mode = restart_mode
        self.stable = False  # mixed restarts: in a stable (Luby) phase
        self.since_restart = 0
        self.luby_index = 0
        self.lbd_sum = 0
        self.recent_lbds = Window(self.P[P_LBDQ_LEN])
        self.recent_trails = Window(self.P[P_TRAILQ_LEN])
        self.reduce_first, self.reduce_inc = reduce_schedule(self.P, n)
        self.next_reduce = self.reduce_first
        self.switch_at = self.P[P_SWITCH]
        # proof: DRAT: tag (1 add, 2 delete), size, DIMACS literals, ...; LRAT: 1, id, size,
        # literals, hint count, hints ... (add) or 2, id, size, literals ... (delete)
        self.proof_mode = int(proof)
        self.proof = array("i")
        self.empty_logged = False
        self.last_id = 0  # the id of the last clause loaded, learnt or derived
        self.loaded = 0  # clauses loaded (the formula's ids are 1..loaded)
        self.refutation: list[int] = []  # LRAT hints of an empty clause found while loading
        self.unit_ids = [0] * n  # LRAT: id of a unit clause of each level-0 literal, 0: none
        self.binary_ids: dict[tuple[int, int], int] = {}  # LRAT: (a, b), a < b -> its id
        self.conflict_clause: Clause | None = None  # the long clause of the last conflict
        self.mark = [0] * n  # LRAT hint chains: variables met (stamps above mark_base)
        self.mark_base = 0
        self.arena_words = self.wasted_words = 0
        # the deadline (perf_counter seconds; None: no limit) and the clock's rhythm
        self.deadline: float | None = None
        self.props_at_check = 0
        self.counts = dict.fromkeys(
            ("decisions", "conflicts", "propagations", "restarts", "learnt", "max_level",
             "deleted", "reductions", "collections", "minimised_literals", "blocked_restarts",
             "mode_switches", "eliminated_vars", "subsumed_clauses", "strengthened_clauses",
             "resolvents"), 0)  # fmt: skip

    # --- assignment -----------------------------------------------------------------------------
    @property
    def decision_level(self) -> int:
        return len(self.trail_lim)

    def enqueue(self, lit: int, reason: Clause | int | None) -> None:
        """Make ``lit`` true at the current level. Requires: ``lit`` unassigned."""
        self.value[lit], self.value[lit ^ 1] = TRUE, FALSE
        v = lit >> 1
        self.level[v] = self.decision_level
        self.reason[v] = reason
        self.trail.append(lit)

    def propagate(self) -> list[int] | None:
        """Unit propagation of every literal on the trail not propagated yet: for each, first
        the binary clauses it falsifies (in the order they were added), then the long clauses
        watching its negation. Returns the literals of a conflicting clause (all false), or
        None when the trail is closed under propagation."""
        value, counts = self.value, self.counts
        conflict = None
        while self.qhead < len(self.trail):
            false_lit = self.trail[self.qhead] ^ 1  # the literal that just became false
            self.qhead += 1
            counts["propagations"] += 1
            for other in self.implied[false_lit]:  # binary clauses (false_lit or other)
                if value[other] == FALSE:
                    conflict = [false_lit, other]
                    break
                if value[other] == UNASSIGNED:
                    self.enqueue(other, false_lit)
            if conflict is None:
                conflict = self._propagate_watches(false_lit)
            if conflict is not None:
                self.qhead = len(self.trail)
                break
        return conflict

    def _propagate_watches(self, false_lit: int) -> list[int] | None:
        """Visit the long clauses watching ``false_lit``: each finds another watch, implies its
        other watched literal, or is the conflict. Contract: afterwards every clause in the
        list that is not satisfied by its blocker still watches ``false_lit``, in order."""
        value = self.value
        watchers = self.watches[false_lit]
        kept = 0  # watchers[:kept] stay in this list
        for i, (clause, blocker) in enumerate(watchers):
            if value[blocker] == TRUE:  # satisfied: the clause itself is not read
                watchers[kept] = (clause, blocker)
                kept += 1
                continue
            if clause.deleted:  # removed by reduce_db: its watches go lazily, here
                continue
            lits = clause.lits
            if lits[0] == false_lit:  # keep the false watched literal second
                lits[0], lits[1] = lits[1], false_lit
            first = lits[0]
            if first != blocker and value[first] == TRUE:
                watchers[kept] = (clause, first)
                kept += 1
                continue
            for k in range(2, len(lits)):  # a new literal to watch instead of false_lit?
                if value[lits[k]] != FALSE:
                    lits[1], lits[k] = lits[k], false_lit
                    self.watches[lits[1]].append((clause, first))
                    break
            else:  # no: the clause is unit (first is implied) or conflicting
                watchers[kept] = (clause, first)
                kept += 1
                if value[first] == FALSE:
                    watchers[kept : kept + len(watchers) - i - 1] = watchers[i + 1 :]
                    kept += len(watchers) - i - 1
                    del watchers[kept:]
                    self.conflict_clause = clause
                    return lits
                self.enqueue(first, clause)
        del watchers[kept:]
        return None

    # --- conflict analysis ----------------------------------------------------------------------
    def _reason_lits(self, reason: Clause | int, implied: int) -> list[int]:
        """The literals of the clause that implied ``implied``."""
        return reason.lits if isinstance(reason, Clause) else [implied, reason]

    def analyze(self, conflict: list[int], seen: list[bool]) -> tuple[list[int], int, int]:
        """1-UIP learning with recursive minimisation. Returns (learnt clause, backjump level,
        LBD): the clause's first literal is the negation of the first UIP (it becomes unit after
        the backjump), its second one of the highest level below the conflict level. Every
        variable met is bumped. Contract: ``seen`` is all False before and after."""
        level = self.level
        learnt = [-1]  # out[0]: the asserting literal, filled last
        open_paths = 0  # literals of the conflict level still to resolve away
        p = -1
        index = len(self.trail) - 1
        lits = conflict
        while True:
            for q in lits:
                v = q >> 1
                if p >= 0 and v == p >> 1:
                    continue
                if not seen[v] and level[v] > 0:
                    self.order.bump(v)
                    seen[v] = True
                    if level[v] >= self.decision_level:
                        open_paths += 1
                    else:
                        learnt.append(q)
            while not seen[self.trail[index] >> 1]:  # the next literal of the clause, newest
                index -= 1
            p = self.trail[index]
            index -= 1
            seen[p >> 1] = False
            open_paths -= 1
            if open_paths <= 0:
                break
            lits = self._reason_lits(self.reason[p >> 1], p)  # type: ignore[arg-type]
        learnt[0] = p ^ 1
        # minimisation: drop literals implied by the others (MiniSat's "abstract levels" first)
        abstract = 0
        for q in learnt[1:]:
            abstract |= 1 << (level[q >> 1] & 31)
        to_clear = learnt[1:]
        kept = [learnt[0]]
        for q in learnt[1:]:
            if self.reason[q >> 1] is None or not self.lit_redundant(q, abstract, seen, to_clear):
                kept.append(q)
        self.counts["minimised_literals"] += len(learnt) - len(kept)
        for q in to_clear:
            seen[q >> 1] = False
        # backjump level: the highest level below the conflict's, its literal second
        back = 0
        if len(kept) > 1:
            best = 1
            for k in range(2, len(kept)):
                if level[kept[k] >> 1] > level[kept[best] >> 1]:
                    best = k
            kept[1], kept[best] = kept[best], kept[1]
            back = level[kept[1] >> 1]
        lbd = len({level[q >> 1] for q in kept})
        return kept, back, lbd

    def lit_redundant(self, p: int, abstract: int, seen: list[bool], to_clear: list[int]) -> bool:
        """Is ``p`` implied by the other literals of the learnt clause (all marked ``seen``)?
        Depth-first through reasons; a literal marked on the way stays marked (and in
        ``to_clear``) when ``p`` is redundant, and is unmarked again when it is not."""
        level, reason = self.level, self.reason
        top = len(to_clear)
        stack = [p]
        while stack:
            q = stack.pop()
            for lit in self._reason_lits(reason[q >> 1], q ^ 1):  # type: ignore[arg-type]
                v = lit >> 1
                if v == q >> 1 or seen[v] or level[v] == 0:
                    continue
                if reason[v] is not None and abstract & (1 << (level[v] & 31)):
                    seen[v] = True
                    stack.append(lit)
                    to_clear.append(lit)
                else:  # a decision, or a level not in the clause: p is needed
                    for q2 in to_clear[top:]:
                        seen[q2 >> 1] = False
                    del to_clear[top:]
                    return False
        return True

    def backtrack(self, to_level: int) -> None:
        """Undo every assignment above ``to_level``, newest first, saving each variable's sign
        (phase saving) and putting it back into the order heap."""
        if self.decision_level <= to_level:
            return
        stop = self.trail_lim[to_level]
        for lit in reversed(self.trail[stop:]):
            v = lit >> 1
            self.value[lit] = self.value[lit ^ 1] = UNASSIGNED
            self.reason[v] = None
            self.phase[v] = lit & 1
            self.order.insert(v)
        del self.trail[stop:]
        del self.trail_lim[to_level:]
        self.qhead = stop

    def pick_branch(self) -> int:
        """The next decision: the most active unassigned variable in its saved phase; -1 when
        every variable is assigned."""
        while self.order.heap:
            v = self.order.pop()
            if self.value[2 * v] == UNASSIGNED:
                return 2 * v + self.phase[v]
        return -1

    # --- clause database ------------------------------------------------------------------------
    def log_add(self, lits: Sequence[int], hints: Sequence[int] = ()) -> int:
        """A clause added: its new id, and the proof step (with its hints in LRAT). Every
        clause step goes through here (preprocessing passes the ids a resolvent comes from)."""
        self.last_id += 1
        if self.proof_mode == PROOF_DRAT:
            self.proof.extend((1, len(lits), *map(to_dimacs, lits)))
        elif self.proof_mode == PROOF_LRAT:
            self.proof.extend((1, self.last_id, len(lits), *map(to_dimacs, lits), len(hints),
                               *hints))
        return self.last_id

    def log_delete(self, ident: int, lits: Sequence[int]) -> None:
        """A clause deleted: the proof step (by id in LRAT)."""
        if self.proof_mode == PROOF_DRAT:
            self.proof.extend((2, len(lits), *map(to_dimacs, lits)))
        elif self.proof_mode == PROOF_LRAT:
            self.proof.extend((2, ident, len(lits), *map(to_dimacs, lits)))

    # --- LRAT hints -----------------------------------------------------------------------------
    def binary_id(self, a: int, b: int) -> int:
        return self.binary_ids[(min(a, b), max(a, b))]

    def clause_id(self, conflict: list[int]) -> int:
        """The id of the conflict clause ``propagate`` just returned."""
        if len(conflict) == 2:  # long clauses have three literals or more
            return self.binary_id(*conflict)
        return self.conflict_clause.id  # type: ignore[union-attr]

    def true_lit(self, v: int) -> int:
        return 2 * v + (self.value[2 * v] == FALSE)

    def reason_id(self, v: int) -> int:
        """The id of the clause that implied variable ``v``."""
        reason = self.reason[v]
        if isinstance(reason, Clause):
            return reason.id
        return self.binary_id(self.true_lit(v), reason)  # type: ignore[arg-type]

    def log_refutation(self, conflict: list[int]) -> None:
        """The empty clause of a conflict at level 0: in LRAT its hints are the units of the
        conflict's literals, then the conflict clause."""
        hints: list[int] = []
        if self.proof_mode == PROOF_LRAT:
            hints = [self.unit_id_of(q >> 1) for q in conflict]
            hints.append(self.clause_id(conflict))
        self.log_add([], hints)

    def unit_id_of(self, v: int) -> int:
        """The id of a unit clause of level-0 variable ``v``'s literal. One that was implied
        at level 0 gets it when first asked: its reason's other literals' units first (depth
        first, iteratively), then the unit clause, logged with those units and the reason as
        hints."""
        units = self.unit_ids
        stack = [v]
        while stack:
            u = stack.pop()
            if u < 0:  # every antecedent has its unit: derive u's
                u = ~u
                if not units[u]:
                    lit = self.true_lit(u)
                    lits = self._reason_lits(self.reason[u], lit)  # type: ignore[arg-type]
                    hints = [units[w >> 1] for w in lits if w >> 1 != u]
                    hints.append(self.reason_id(u))
                    units[u] = self.log_add([lit], hints)
                continue
            if units[u]:
                continue
            stack.append(~u)
            lits = self._reason_lits(self.reason[u], self.true_lit(u))  # type: ignore[arg-type]
            stack.extend(w >> 1 for w in lits if w >> 1 != u and not units[w >> 1])
        return units[v]

    def learnt_hints(self, conflict: list[int], learnt: list[int]) -> list[int]:
        """The LRAT hints of ``learnt``, the clause analyze() made of ``conflict`` (before the
        backjump: reasons and levels are those of the conflict). Under the negation of the
        learnt clause, the units of the level-0 literals, then the reasons of every literal
        the derivation resolved away (conflict-level resolution and minimisation alike), each
        after its own antecedents (depth first from the conflict, iteratively), then the
        conflict clause itself, leave each one unit and the last one false."""
        mark, level = self.mark, self.level
        base = self.mark_base = self.mark_base + 4  # > base: met; base+1 in the clause,
        for q in learnt:  # base+2 open, base+3 done
            mark[q >> 1] = base + 1
        units: list[int] = []
        chain: list[int] = []
        stack = [q >> 1 for q in conflict]
        while stack:
            e = stack.pop()
            if e < 0:  # every antecedent of ~e is in the chain
                chain.append(self.reason_id(~e))
                mark[~e] = base + 3
                continue
            if mark[e] > base:
                continue
            if level[e] == 0:
                units.append(self.unit_id_of(e))
                mark[e] = base + 3
                continue
            mark[e] = base + 2
            stack.append(~e)
            lits = self._reason_lits(self.reason[e], self.true_lit(e))  # type: ignore[arg-type]
            stack.extend(w >> 1 for w in lits if mark[w >> 1] <= base)
        chain.append(self.clause_id(conflict))
        return units + chain

    def attach(self, lits: list[int], learnt: bool = False, lbd: int = 0,
               ident: int = 0) -> Clause | int:  # fmt: skip
        """Store a clause of two or more literals (clause id ``ident``) and watch it; returns
        what a literal it implies has as reason (the Clause, or for a binary clause the other
        literal)."""
        if len(lits) == 2:
            a, b = lits
            self.implied[a].append(b)
            self.implied[b].append(a)
            if self.proof_mode == PROOF_LRAT:  # the first of equal binary clauses stands
                self.binary_ids.setdefault((min(a, b), max(a, b)), ident)
            return b
        clause = Clause(lits, learnt, lbd, ident)
        self.watches[lits[0]].append((clause, lits[1]))
        self.watches[lits[1]].append((clause, lits[0]))
        self.arena_words += _HEADER_WORDS + len(lits)
        (self.learnts if learnt else self.originals).append(clause)
        return clause

    def detach_all(self) -> None:
        """Forget every clause (preprocessing attaches the simplified formula again)."""
        n = self.num_vars
        self.watches = [[] for _ in range(2 * n)]
        self.implied = [[] for _ in range(2 * n)]
        self.originals, self.learnts = [], []
        self.binary_ids = {}
        self.arena_words = self.wasted_words = 0

    def reduce_db(self) -> None:
        """Delete half of the learnt clauses, the worst first (highest LBD, then longest; ties
        in learning order), but never glue clauses (LBD <= keep_lbd) nor a clause that is the
        reason of a current assignment."""
        order = sorted(self.learnts, key=lambda c: (-c.lbd, -len(c.lits)))  # stable
        limit, removed = len(self.learnts) // 2, 0
        for clause in order:
            if removed >= limit:
                break
            if clause.lbd <= self.P[P_KEEP_LBD]:
                continue
            first = clause.lits[0]
            if self.value[first] == TRUE and self.reason[first >> 1] is clause:
                continue  # locked
            clause.deleted = True
            self.wasted_words += _HEADER_WORDS + len(clause.lits)
            self.counts["deleted"] += 1
            removed += 1
            self.log_delete(clause.id, clause.lits)
        self.learnts = [c for c in self.learnts if not c.deleted]
        self.counts["reductions"] += 1
        if self.wasted_words * 2 > self.arena_words:  # the C kernel compacts its arena here
            self.arena_words -= self.wasted_words
            self.wasted_words = 0
            self.counts["collections"] += 1

    # --- restarts -------------------------------------------------------------------------------
    def focused(self) -> bool:
        """Glucose restarts now: the glucose policy, or a focused phase of the mixed one."""
        mode = self.restart_mode
        return mode == RESTART_GLUCOSE or (mode == RESTART_MIXED and not self.stable)

    def block_restart(self) -> None:
        """At a conflict, in glucose mode: while the trail is much longer than its recent
        average (the search may be close to a model), forget the recent LBDs, which postpones
        the next restart."""
        P, trails = self.P, self.recent_trails
        trails.push(len(self.trail))
        long_trail = 100 * len(self.trail) * P[P_TRAILQ_LEN] > P[P_BLOCK_R_PCT] * trails.sum
        if (self.counts["conflicts"] > P[P_BLOCK_MIN] and self.recent_lbds.full()
                and trails.full() and long_trail):  # fmt: skip
            self.recent_lbds.clear()
            self.counts["blocked_restarts"] += 1

    def switch_phase(self) -> None:
        """Mixed restarts: focused (glucose) and stable (Luby) phases alternate; the k-th phase
        lasts k * switch conflicts."""
        counts = self.counts
        if self.restart_mode == RESTART_MIXED and counts["conflicts"] >= self.switch_at:
            self.stable = not self.stable
            counts["mode_switches"] += 1
            self.switch_at = counts["conflicts"] + self.P[P_SWITCH] * (counts["mode_switches"] + 1)
            self.since_restart = 0
            self.recent_lbds.clear()

    def restart_due(self) -> bool:
        """Luby: after luby_unit * luby(i) conflicts. Glucose: when the recent LBDs, times
        K percent, exceed the average of all (in integers)."""
        P, counts = self.P, self.counts
        if self.restart_mode == RESTART_LUBY or (self.restart_mode == RESTART_MIXED
                                                 and self.stable):  # fmt: skip
            return self.since_restart >= P[P_LUBY_UNIT] * luby(self.luby_index)
        if self.restart_mode == RESTART_NONE:
            return False
        return self.recent_lbds.full() and (
            self.recent_lbds.sum * P[P_GLUCOSE_K_PCT] * counts["conflicts"]
            > 100 * self.lbd_sum * P[P_LBDQ_LEN])

    # --- the search -----------------------------------------------------------------------------
    def learn(self, conflict: list[int], seen: list[bool]) -> None:
        """Analyze a conflict, backjump, add the learnt clause and assert its first literal."""
        learnt, back, lbd = self.analyze(conflict, seen)
        hints = self.learnt_hints(conflict, learnt) if self.proof_mode == PROOF_LRAT else ()
        self.backtrack(back)
        ident = self.log_add(learnt, hints)
        self.counts["learnt"] += 1
        if len(learnt) == 1:
            self.unit_ids[learnt[0] >> 1] = ident
        reason = None if len(learnt) == 1 else self.attach(learnt, True, lbd, ident)
        self.enqueue(learnt[0], reason)
        self.order.decay_all()
        self.lbd_sum += lbd
        self.recent_lbds.push(lbd)

    def search(self, assumptions: Sequence[int], max_conflicts: int) -> int:
        """CDCL until SAT, UNSAT, UNSAT_ASSUMED (the assumptions, all made on decision level 1,
        contradict the formula; what was learnt stays valid without them), or UNKNOWN (the
        conflict budget of this call or the deadline is spent; a later call resumes)."""
        counts = self.counts
        seen = [False] * self.num_vars
        conflicts_at_start = counts["conflicts"]
        while True:
            conflict = self.propagate()
            if conflict is not None:
                counts["conflicts"] += 1
                self.since_restart += 1
                if self.decision_level == 0:
                    self.log_refutation(conflict)
                    self.status = UNSAT
                    return UNSAT
                if self.decision_level == 1 and assumptions:
                    return UNSAT_ASSUMED
                if self.focused():
                    self.block_restart()
                self.learn(conflict, seen)
                continue
            if (self.P[P_SIMPLIFY] and not self.simplified
                    and counts["conflicts"] >= self.P[P_SIMP_DELAY]):  # fmt: skip
                if self.simplify() == UNSAT:
                    return UNSAT
                continue  # at level 0: the assumptions are placed again below
            self.switch_phase()
            if self.restart_due():
                self.backtrack(1 if assumptions else 0)  # keep the assumptions' level
                counts["restarts"] += 1
                self.luby_index += 1
                self.since_restart = 0
                self.recent_lbds.clear()
            if counts["conflicts"] >= self.next_reduce:
                self.next_reduce = (counts["conflicts"] + self.reduce_first
                                    + (counts["reductions"] + 1) * self.reduce_inc)
                self.reduce_db()
            if counts["conflicts"] - conflicts_at_start >= max_conflicts or self.expired():
                return UNKNOWN
            if self.decision_level == 0 and assumptions:  # all of them, on level 1
                self.trail_lim.append(len(self.trail))
                for p in assumptions:
                    if self.value[p] == FALSE:
                        return UNSAT_ASSUMED
                    if self.value[p] == UNASSIGNED:
                        self.enqueue(p, None)
                continue
            lit = self.pick_branch()
            if lit < 0:
                return SAT
            counts["decisions"] += 1
            self.trail_lim.append(len(self.trail))
            counts["max_level"] = max(counts["max_level"], self.decision_level)
            self.enqueue(lit, None)

    def expired(self) -> bool:
        """Past the deadline (the clock read every _CLOCK_EVERY propagations)."""
        props = self.counts["propagations"]
        if self.deadline is None or props < self.props_at_check:
            return False
        self.props_at_check = props + _CLOCK_EVERY
        return time.perf_counter() >= self.deadline

    def _set_deadline(self, seconds: float | None) -> None:
        self.deadline = None if seconds is None else time.perf_counter() + max(0.0, seconds)
        self.props_at_check = self.counts["propagations"]

    # --- the C type's interface -----------------------------------------------------------------
    def load(self, clauses: object, seconds: float | None = None) -> int:
        """Add the formula: a sequence of clauses of DIMACS literals, or a buffer of int32
        0-terminated clauses. Repeated literals are dropped, tautologies skipped, units queued
        on level 0 (not propagated yet); an empty clause, or two opposite units, refute the
        formula. Returns 1 when the deadline passed before the end (the formula is
        incomplete), else 0.

        After a search it adds clauses for the later calls (incremental use): the search goes
        back to level 0, and every literal there is propagated again (``qhead`` 0), so that a
        new clause whose watched literals are already false there is seen. Once preprocessing
        has eliminated variables no clause can be added (the driver loads afresh instead)."""
        if self.counts["eliminated_vars"]:
            raise RuntimeError("no clauses can be added once preprocessing has eliminated "
                               "variables")
        self._set_deadline(seconds)
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return 1
        self.backtrack(0)
        self.qhead = 0
        paused = gc.isenabled()
        gc.disable()  # many small acyclic objects: a collection here would walk them all
        try:
            for number, clause in enumerate(_clauses(clauses), 1):
                self._load_clause(clause)
                if number % _LOAD_CHUNK == 0 and self.deadline is not None \
                        and time.perf_counter() >= self.deadline:  # fmt: skip
                    return 1
        finally:
            if paused:
                gc.enable()
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return 1
        if self.status == UNSAT and not self.empty_logged:  # the proof's only step
            self.log_add([], self.refutation)
            self.empty_logged = True
        return 0

    def _load_clause(self, dimacs: Sequence[int]) -> None:
        self.loaded += 1
        ident = self.last_id = self.last_id + 1
        lits: list[int] = []
        for d in dimacs:
            if d == 0 or not -self.num_vars <= d <= self.num_vars:
                raise ValueError(f"literal {d} out of range for {self.num_vars} variables")
            lit = 2 * (abs(d) - 1) + (d < 0)
            if lit ^ 1 in lits:
                return  # a tautology
            if lit not in lits:
                lits.append(lit)
        if not lits:
            self.refute([ident])
        elif len(lits) == 1:
            if self.value[lits[0]] == FALSE:
                self.refute([self.unit_ids[lits[0] >> 1], ident])
            elif self.value[lits[0]] == UNASSIGNED:
                self.enqueue(lits[0], None)
                self.unit_ids[lits[0] >> 1] = ident
        else:
            self.attach(lits, ident=ident)

    def refute(self, hints: list[int]) -> None:
        """The formula is refuted while loading; the first refutation's hints are kept."""
        if self.status != UNSAT:
            self.status = UNSAT
            self.refutation = hints

    def solve(self, assumptions: Sequence[int], seconds: float | None = None,
              max_conflicts: int = -1) -> int:  # fmt: skip
        """Search under ``assumptions`` (internal literals of distinct variables), at most
        ``max_conflicts`` conflicts (-1: no bound) and ``seconds``. Returns a status code."""
        if self.status == UNSAT:
            return UNSAT
        for lit in assumptions:
            if not 0 <= lit < 2 * self.num_vars:
                raise ValueError("assumption out of range")
        for lit in assumptions:  # assumed variables are never eliminated
            if not self.simplified:
                self.frozen[lit >> 1] = True
            elif self.eliminated[lit >> 1]:
                raise ValueError(f"assumption on variable {(lit >> 1) + 1}, which preprocessing "
                                 "eliminated (freeze it before the search starts)")
        self._set_deadline(seconds)
        self.backtrack(0)
        code = self.search(list(assumptions), max_conflicts if max_conflicts >= 0 else 1 << 62)
        if code == SAT:  # kept: later calls change the assignment, not this answer
            value = [self.value[2 * v] for v in range(self.num_vars)]
            if self.elimclauses:  # eliminated variables get their values back
                extend_model(value, self.elimclauses)
            self.last_model = [v + 1 if value[v] == TRUE else -(v + 1)
                               for v in range(self.num_vars)]  # fmt: skip
        return code

    def simplify(self) -> int:
        """The preprocessing pass (:mod:`satdoku.solvers.cdcl.simplify`) at level 0, after
        propagating the level-0 units; the long learnt clauses go first (binary ones stay, as
        clauses of the formula: they are implied). UNSAT when it refutes the formula, else
        UNKNOWN."""
        self.simplified = True
        self.backtrack(0)
        conflict = self.propagate()
        if conflict is not None:
            self.log_refutation(conflict)
            self.status = UNSAT
            return UNSAT
        if self.proof_mode == PROOF_LRAT:  # every level-0 literal's unit clause, while its
            for lit in self.trail:  # reason is still there (the pass's hints name them)
                self.unit_id_of(lit >> 1)
        for clause in self.learnts:
            self.log_delete(clause.id, clause.lits)
            clause.deleted = True
        self.learnts = []
        for lit in self.trail:  # level 0 needs no reasons (and they name dropped clauses)
            self.reason[lit >> 1] = None
        if Simplifier(self).run() == UNSAT:
            self.status = UNSAT
            return UNSAT
        return UNKNOWN

    def first_eliminated(self, lits: Sequence[int]) -> int:
        """The first variable of these internal literals that preprocessing eliminated, or
        -1."""
        return next((lit >> 1 for lit in lits if self.eliminated[lit >> 1]), -1)

    def freeze(self, variables: Sequence[int]) -> None:
        """0-based variables preprocessing must not eliminate (later assumptions)."""
        for v in variables:
            if not 0 <= v < self.num_vars:
                raise ValueError("variable out of range")
            if self.eliminated[v]:
                raise ValueError(f"variable {v + 1} was eliminated by preprocessing")
            self.frozen[v] = True

    # --- propagation alone (satdoku analyze) --------------------------------------------------
    def propagate_units(self, groups: object, report: int, probe: bool = False
                        ) -> tuple[bytes, bytes]:
        """What propagation alone decides from the loaded formula plus each group of literals,
        with no search. ``groups``: a buffer of int32 DIMACS literals, each group ended by 0.
        Each group is asserted on decision level 1 and propagated; with ``probe``, failed
        literals are probed to a fixpoint (:meth:`probe_failed_literals`); the values of
        variables 1..``report`` are read, and everything is undone, so the loaded clauses
        serve every group. Returns (outcomes, values): int32 bytes, per group -1 refuted (a
        conflict: no model extends the group) or the number of failed literals found; int8
        bytes, per group and variable 1 true, -1 false, 0 open (all 0 when refuted)."""
        if not 0 <= report <= self.num_vars:
            raise ValueError(f"report {report} outside 0..{self.num_vars} variables")
        view = memoryview(groups)  # type: ignore[arg-type]
        if view.itemsize != 4:
            raise ValueError("expected a buffer of int32 literals")
        flat = view.cast("B").cast("i").tolist()
        if flat and flat[-1] != 0:
            raise ValueError("each group of literals must end with 0")
        if any(not -self.num_vars <= d <= self.num_vars for d in flat):
            raise ValueError("literal out of range")
        outcomes, values = array("i"), array("b")
        self.backtrack(0)
        if self.status != UNSAT and self.propagate() is not None:
            self.status = UNSAT  # the formula alone is refuted: so is every group
        stamp = [0] * (2 * self.num_vars)
        epoch = 1
        start = 0
        for end, d in enumerate(flat):
            if d:
                continue
            refuted = self.status == UNSAT
            failed = 0
            if not refuted:
                self.trail_lim.append(len(self.trail))
                for x in flat[start:end]:
                    lit = 2 * (abs(x) - 1) + (x < 0)
                    if self.value[lit] == FALSE:
                        refuted = True
                        break
                    if self.value[lit] == UNASSIGNED:
                        self.enqueue(lit, None)
            if not refuted:
                refuted = self.propagate() is not None
            if not refuted and probe:
                epoch += 1
                refuted, failed, epoch = self.probe_failed_literals(stamp, epoch)
            values.extend([0] * report if refuted
                          else (self.value[2 * v] for v in range(report)))
            outcomes.append(-1 if refuted else failed)
            self.backtrack(0)
            start = end + 1
        return outcomes.tobytes(), values.tobytes()

    def probe_failed_literals(self, stamp: list[int], epoch: int) -> tuple[bool, int, int]:
        """Failed-literal probing on decision level 1 to a fixpoint: the literals are visited
        in a cycle (positive ones by variable, then negative ones); each open one is tried on
        level 2, and one whose propagation conflicts is negated on level 1 and propagated,
        until a whole cycle finds no failed literal. A literal that a probe since the last
        failure implied without a conflict is skipped (``stamp[lit] == epoch``): it cannot
        fail, since unit propagation is monotone. Returns (level 1 refuted, failed literals
        found, epoch)."""
        n = self.num_vars
        failed = pos = since = 0  # since: literals visited since the last failure
        while since < 2 * n:
            lit = 2 * pos if pos < n else 2 * (pos - n) + 1
            pos = (pos + 1) % (2 * n)
            since += 1
            if self.value[lit] != UNASSIGNED or stamp[lit] == epoch:
                continue
            self.trail_lim.append(len(self.trail))
            self.enqueue(lit, None)
            conflict = self.propagate()
            if conflict is None:
                for implied in self.trail[self.trail_lim[1] + 1:]:
                    stamp[implied] = epoch
            self.backtrack(1)
            if conflict is None:
                continue
            failed += 1
            epoch += 1
            since = 0
            self.enqueue(lit ^ 1, None)
            if self.propagate() is not None:
                return True, failed, epoch
        return False, failed, epoch

    def interrupt(self) -> None:
        """End the search in progress at its next look at the clock, as the C type does (a
        signal already stops this pure-Python search in the main thread: KeyboardInterrupt)."""
        self.deadline = float("-inf")
        self.props_at_check = 0

    def model(self) -> list[int]:
        """The model of the last SAT answer as DIMACS literals, every variable, eliminated
        ones' values rebuilt ([] before one). Not the current assignment: a later call (an
        UNSAT under assumptions, a budget spent) leaves the trail somewhere else."""
        return list(self.last_model)

    def stats(self) -> dict[str, int]:
        return dict(self.counts)

    def proof_buffer(self) -> bytes:
        return self.proof.tobytes()

    def write_proof(self, path: str | Path, binary: bool = False) -> None:
        """The proof as text: DRUP (drat-trim's format) or LRAT; with ``binary`` the same
        steps in the binary format (drat-trim's binary DRAT, or binary LRAT)."""
        lines, to_binary = ((lrat_lines(self.proof, self.loaded), lrat.to_binary)
                            if self.proof_mode == PROOF_LRAT
                            else (drup_lines(self.proof), drat.to_binary))
        if binary:
            with open(path, "wb") as out:
                out.write(to_binary(lines))
            return
        with open(path, "w", encoding="ascii") as fh:
            fh.writelines(lines)


def _clauses(formula: object) -> Iterator[Sequence[int]]:
    """The clauses of a formula given as clauses, or as flat 0-terminated int32 literals."""
    if isinstance(formula, (list, tuple)):
        yield from formula
        return
    view = memoryview(formula)  # type: ignore[arg-type]
    if view.itemsize != 4:
        raise TypeError("expected a buffer of int32 literals")
    flat = view.cast("B").cast("i")
    clause: list[int] = []
    for d in flat:
        if d:
            clause.append(d)
        else:
            yield clause
            clause = []
    if clause:  # the last clause without its 0
        yield clause
