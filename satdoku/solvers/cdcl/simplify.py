"""Preprocessing for our CDCL, written for people: MiniSat 2's SimpSolver in the spirit of
SatELite (Eén and Biere, SAT 2005), run once, at level 0, when the search has met
``simp_delay`` conflicts (0: before it starts; a formula decided sooner pays nothing for it).

The C kernel (``satdoku/solvers/cdcl/kernel.c``, functions ``simplify`` and ``s_*``) does the same
steps in the same order, so both kernels go on to the same search (tests compare their
statistics and proofs step for step). The pass, at decision level 0:

1. the kernel backtracks to level 0 and propagates its units over its watches; the long learnt
   clauses of the first conflicts are deleted (binary ones stay as clauses of the formula: they
   are implied); then every clause goes into a store of its own (binary clauses from the smaller
   literal's list, then the long ones in load order): satisfied clauses are deleted and false
   literals dropped;
2. **backward subsumption** (a first-in first-out queue, every clause at first): a queued
   clause deletes each clause it subsumes and strengthens each clause it subsumes with one of
   its literals negated (self-subsuming resolution drops that negated literal); candidates are
   the clauses of its variable with the fewest occurrences;
3. **bounded variable elimination**: variables leave a heap least ``(cost, variable)`` first,
   cost = clauses with ``v`` times clauses with ``-v``; ``v`` is eliminated when its
   non-tautological resolvents number at most its clauses (+ ``elim_grow``), none is longer
   than ``elim_clause_lim`` and together they hold at most ``elim_lits_pct`` (200) percent of
   the literals of its clauses (MiniSat counts clauses only: eliminating a pigeon of a
   pigeonhole formula turned its short at-most-one clauses into as many long ones, and the
   search took three times the conflicts); the resolvents replace its clauses, which are kept
   (one side, then a default unit: MiniSat's ``elimclauses``) to rebuild ``v``'s value in a
   model. After each elimination the queue is subsumption-checked again. A variable whose
   counts change goes back into the heap;
4. units found on the way go on the kernel's trail and through the store's occurrence lists;
   frozen variables (assumptions, the driver's ``frozen``) are never eliminated; the pass ends
   early once ``simp_effort`` steps (literals visited by resolution and subsumption checks) or
   the deadline are spent;
5. the surviving clauses are attached again in store order; the decision heap holds the
   variables still unassigned and not eliminated.

Proof: every step is a clause added or deleted through the kernel's ``log_add`` /
``log_delete`` (DRAT, or LRAT with clause ids and hints), each added clause RUP:

* a resolvent of ``p`` and ``q`` (added before they are deleted): hints ``p``, ``q``;
* a clause with literals false at level 0 dropped: the units of those literals, the clause;
* a clause strengthened by a unit ``u``: ``u``'s unit clause, the clause; by a clause ``c``
  (self-subsuming resolution): ``c``, the clause; the old clause is deleted after;
* the empty clause of a false unit: the literal's unit clause, the new unit.

Every stored clause keeps its id; a level-0 literal's unit clause id is ``unit_ids`` (the
kernel derives those of implied literals before the pass clears their reasons); the
survivors go back to the kernel with their ids. A satisfied or subsumed clause is a
deletion only.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from typing import Any

from satdoku.solvers.cdcl.params import (
    P_ELIM_CLAUSE_LIM,
    P_ELIM_GROW,
    P_ELIM_LITS_PCT,
    P_SIMP_EFFORT,
    P_SUBSUME_LIM,
    PROOFS,
)

TRUE, FALSE, UNASSIGNED = 1, -1, 0
#: simplifier steps between two looks at the clock
CLOCK_EVERY = 65536


class StoredClause:
    """A clause in the simplifier's store; its index in the store is its identity."""

    __slots__ = ("abstraction", "dead", "id", "lits", "queued")

    def __init__(self, lits: list[int], ident: int) -> None:
        self.lits = lits
        self.id = ident  # its clause id in the proof
        self.abstraction = abstraction(lits)
        self.dead = False  # deleted (its occurrences go lazily)
        self.queued = False  # in the subsumption queue


def abstraction(lits: Sequence[int]) -> int:
    """A 32-bit signature of the clause's variables: a subset's bits are a subset."""
    bits = 0
    for lit in lits:
        bits |= 1 << ((lit >> 1) & 31)
    return bits


class Simplifier:
    """One preprocessing pass over a kernel (:class:`satdoku.solvers.cdcl.readable.Kernel`)
    at level 0; :meth:`run` returns 0, or UNSAT (20) when the formula is refuted."""

    def __init__(self, kernel: Any) -> None:
        self.k = kernel
        n = kernel.num_vars
        self.store: list[StoredClause] = []
        self.occ: list[list[int]] = [[] for _ in range(n)]  # per variable: clause indices
        self.nocc = [0] * (2 * n)  # per literal: live clauses holding it
        self.queue: list[int] = []
        self.qhead = 0
        self.heap: list[tuple[int, int]] = []  # (cost, variable), lazily updated
        self.in_heap = [False] * n
        self.ticks = 0
        self.next_clock = CLOCK_EVERY
        self.stopped = False
        self.unsat = False
        self.thead = len(kernel.trail)  # trail entries propagated through the store

    # --- bookkeeping ----------------------------------------------------------------------------
    def spent(self) -> bool:
        """Out of effort (or time): no new work starts."""
        if self.stopped:
            return True
        if self.ticks > self.k.P[P_SIMP_EFFORT]:
            self.stopped = True
        if self.ticks >= self.next_clock:
            self.next_clock = self.ticks + CLOCK_EVERY
            deadline = self.k.deadline
            if deadline is not None and time.perf_counter() >= deadline:
                self.stopped = True
        return self.stopped

    def cost(self, v: int) -> int:
        return self.nocc[2 * v] * self.nocc[2 * v + 1]

    def eligible(self, v: int) -> bool:
        k = self.k
        return not k.frozen[v] and not k.eliminated[v] and k.value[2 * v] == UNASSIGNED

    def touch(self, v: int) -> None:
        """``v``'s counts changed: re-key it, or put it (back) into the heap when it may be
        eliminated (MiniSat's updateElimHeap)."""
        if self.in_heap[v] or self.eligible(v):
            self.in_heap[v] = True
            heapq.heappush(self.heap, (self.cost(v), v))

    def pop(self) -> int:
        """The variable of least (cost, index) in the heap (stale entries skipped)."""
        while True:
            cost, v = heapq.heappop(self.heap)
            if self.in_heap[v] and cost == self.cost(v):
                self.in_heap[v] = False
                return v

    def heap_empty(self) -> bool:
        while self.heap:
            cost, v = self.heap[0]
            if self.in_heap[v] and cost == self.cost(v):
                return False
            heapq.heappop(self.heap)
        return True

    def enqueue_clause(self, index: int) -> None:
        clause = self.store[index]
        if not clause.queued:
            clause.queued = True
            self.queue.append(index)

    def add(self, lits: list[int], ident: int) -> None:
        """Store a clause of two or more unassigned literals (in the proof already, as clause
        ``ident``), queued."""
        index = len(self.store)
        self.store.append(StoredClause(lits, ident))
        for lit in lits:
            self.occ[lit >> 1].append(index)
            self.nocc[lit] += 1
            self.touch(lit >> 1)
        self.enqueue_clause(index)

    def remove(self, index: int) -> None:
        clause = self.store[index]
        clause.dead = True
        self.k.log_delete(clause.id, clause.lits)
        for lit in clause.lits:
            self.nocc[lit] -= 1
            self.touch(lit >> 1)

    def unit(self, lit: int, ident: int) -> None:
        """A unit found here (in the proof already, as clause ``ident``): onto the trail, or
        the empty clause when ``lit`` is false."""
        k = self.k
        if k.value[lit] == FALSE:
            self.unsat = True
            k.log_add([], (k.unit_ids[lit >> 1], ident))
        elif k.value[lit] == UNASSIGNED:
            k.enqueue(lit, None)
            k.unit_ids[lit >> 1] = ident

    def strengthen(self, index: int, lit: int, by: int) -> None:
        """Drop ``lit``, false once clause ``by`` (a unit, or a subsuming clause with one
        literal negated) is unit: the shorter clause is added, then the old one deleted."""
        k = self.k
        clause = self.store[index]
        shorter = [x for x in clause.lits if x != lit]
        ident = k.log_add(shorter, (by, clause.id))
        k.log_delete(clause.id, clause.lits)
        k.counts["strengthened_clauses"] += 1
        clause.id = ident
        clause.lits = shorter
        clause.abstraction = abstraction(shorter)
        self.nocc[lit] -= 1
        self.occ[lit >> 1] = [i for i in self.occ[lit >> 1] if i != index]
        self.touch(lit >> 1)
        if len(shorter) == 1:
            clause.dead = True
            self.nocc[shorter[0]] -= 1
            self.touch(shorter[0] >> 1)
            self.unit(shorter[0], ident)
        else:
            self.enqueue_clause(index)

    def snapshot(self, v: int) -> list[int]:
        """The live clauses of ``v`` (dead ones dropped from its list now), as a copy."""
        live = [i for i in self.occ[v] if not self.store[i].dead]
        self.occ[v] = live
        return list(live)

    # --- the steps ------------------------------------------------------------------------------
    def propagate(self) -> None:
        """Level-0 units through the store: clauses they satisfy go, their false literals are
        dropped."""
        k = self.k
        while self.thead < len(k.trail) and not self.unsat:
            u = k.trail[self.thead]
            self.thead += 1
            for index in self.snapshot(u >> 1):
                if self.unsat:
                    break
                clause = self.store[index]
                if clause.dead:
                    continue
                self.ticks += len(clause.lits)
                if u in clause.lits:
                    self.remove(index)
                else:
                    self.strengthen(index, u ^ 1, k.unit_ids[u >> 1])
            self.occ[u >> 1] = []

    def subsumes(self, c: StoredClause, d: StoredClause) -> int:
        """-1: ``c`` subsumes ``d``; a literal ``l`` of ``c``: ``c`` with ``l`` negated
        subsumes ``d`` (so ``d`` may drop ``-l``); -2: neither."""
        self.ticks += len(d.lits)
        if len(c.lits) > len(d.lits) or c.abstraction & ~d.abstraction:
            return -2
        in_d = set(d.lits)
        found = -1
        for lit in c.lits:
            if lit in in_d:
                continue
            if found == -1 and lit ^ 1 in in_d:
                found = lit
                continue
            return -2
        return found

    def subsume(self) -> None:
        """Backward subsumption and self-subsuming strengthening from every queued clause."""
        k, store, nocc = self.k, self.store, self.nocc
        while self.qhead < len(self.queue) and not self.unsat:
            index = self.queue[self.qhead]
            self.qhead += 1
            c = store[index]
            c.queued = False
            if c.dead or self.spent():
                continue
            best = c.lits[0] >> 1
            for lit in c.lits[1:]:
                v = lit >> 1
                if nocc[2 * v] + nocc[2 * v + 1] < nocc[2 * best] + nocc[2 * best + 1]:
                    best = v
            for other in self.snapshot(best):
                if self.unsat or c.dead:
                    break
                d = store[other]
                if other == index or d.dead or len(d.lits) > k.P[P_SUBSUME_LIM]:
                    continue
                found = self.subsumes(c, d)
                if found == -1:
                    k.counts["subsumed_clauses"] += 1
                    self.remove(other)
                elif found >= 0:  # c with found negated subsumes d: d drops -found
                    self.strengthen(other, found ^ 1, c.id)
                    self.propagate()
            if self.qhead == len(self.queue):
                self.queue, self.qhead = [], 0
        if self.unsat:  # the rest of the queue is dropped
            for index in self.queue[self.qhead :]:
                store[index].queued = False
            self.queue, self.qhead = [], 0

    def resolvent(self, p: StoredClause, q: StoredClause, v: int) -> list[int] | None:
        """The resolvent on ``v`` (``p``'s literals but v, then ``q``'s new ones), None for a
        tautology."""
        self.ticks += len(p.lits) + len(q.lits)
        out = [lit for lit in p.lits if lit >> 1 != v]
        have = set(out)
        for lit in q.lits:
            if lit >> 1 == v or lit in have:
                continue
            if lit ^ 1 in have:
                return None
            out.append(lit)
        return out

    def keep(self, lits: Sequence[int], v: int) -> None:
        """MiniSat's elimclauses: the clause with ``v``'s literal first, then its size."""
        kept = list(lits)
        for i, lit in enumerate(kept):
            if lit >> 1 == v:
                kept[0], kept[i] = kept[i], kept[0]
                break
        self.k.elimclauses.extend((*kept, len(kept)))

    def eliminate(self, v: int) -> None:
        """Eliminate ``v`` by clause distribution when that does not grow the formula: no more
        clauses (+ ``elim_grow``), none longer than ``elim_clause_lim``, and at most
        ``elim_lits_pct`` percent of the literals they replace."""
        k, store = self.k, self.store
        pos, neg = [], []
        for index in self.snapshot(v):
            for lit in store[index].lits:
                if lit >> 1 == v:
                    (neg if lit & 1 else pos).append(index)
                    break
        count = lits = 0
        removed = sum(len(store[index].lits) for index in pos + neg)
        pct = k.P[P_ELIM_LITS_PCT]
        for p in pos:
            for q in neg:
                r = self.resolvent(store[p], store[q], v)
                if r is None:
                    continue
                count += 1
                lits += len(r)
                if count > len(pos) + len(neg) + k.P[P_ELIM_GROW] or \
                        len(r) > k.P[P_ELIM_CLAUSE_LIM] or \
                        (pct and lits * 100 > removed * pct):  # fmt: skip
                    return
        k.eliminated[v] = True
        k.counts["eliminated_vars"] += 1
        resolvents = []
        for p in pos:
            for q in neg:
                r = self.resolvent(store[p], store[q], v)
                if r is not None:
                    k.counts["resolvents"] += 1
                    resolvents.append((r, k.log_add(r, (store[p].id, store[q].id))))
        side, default = (neg, 2 * v) if len(pos) > len(neg) else (pos, 2 * v + 1)
        for index in side:
            self.keep(store[index].lits, v)
        self.keep([default], v)
        for index in pos + neg:
            self.remove(index)
        self.occ[v] = []
        for r, ident in resolvents:
            if self.unsat:
                break
            if self.settle(r, ident):
                self.propagate()
        self.subsume()

    def settle(self, lits: Sequence[int], ident: int) -> bool:
        """Clause ``ident`` (in the proof) into the store, under the level-0 assignment: deleted
        when satisfied; its false literals dropped (a shorter clause, hinted by their units and
        the clause, replaces it); empty: the formula is refuted; one literal: a unit on the
        trail (True: the caller propagates it)."""
        k = self.k
        value = k.value
        if any(value[lit] == TRUE for lit in lits):
            k.log_delete(ident, lits)
            return False
        free = [lit for lit in lits if value[lit] == UNASSIGNED]
        if len(free) < len(lits):
            hints = [k.unit_ids[lit >> 1] for lit in lits if value[lit] == FALSE]
            hints.append(ident)
            shorter = k.log_add(free, hints)
            if not free:
                self.unsat = True
                return False
            k.log_delete(ident, lits)
            ident = shorter
        if len(free) == 1:
            self.unit(free[0], ident)
            return True
        self.add(free, ident)
        return False

    def run(self) -> int:
        k = self.k
        lrat = k.proof_mode == PROOFS["lrat"]
        for lit in range(2 * k.num_vars):  # the binary clauses, each once
            met = set()
            for other in k.implied[lit]:
                if self.unsat:
                    break
                if other > lit and other not in met:
                    met.add(other)
                    self.settle([lit, other], k.binary_id(lit, other) if lrat else 0)
        for clause in k.originals:
            if self.unsat:
                break
            self.settle(clause.lits, clause.id)
        for v in range(k.num_vars):
            self.touch(v)
        self.propagate()
        self.subsume()
        while not self.unsat and not self.heap_empty():
            v = self.pop()
            if k.eliminated[v] or k.frozen[v] or k.value[2 * v] != UNASSIGNED or self.spent():
                continue
            self.eliminate(v)
        if self.unsat:
            return 20
        self.reattach()
        return 0

    def reattach(self) -> None:
        """The surviving clauses back into the kernel, in store order; the decision heap holds
        the variables still to assign."""
        k = self.k
        k.detach_all()
        for clause in self.store:
            if not clause.dead:
                k.attach(list(clause.lits), ident=clause.id)
        k.order.refill([v for v in range(k.num_vars)
                        if not k.eliminated[v] and k.value[2 * v] == UNASSIGNED])  # fmt: skip
        k.qhead = len(k.trail)


def extend_model(value: list[int], elimclauses: Sequence[int]) -> None:
    """Rebuild the eliminated variables' values in ``value`` (per variable 1, -1 or 0 unset;
    MiniSat's extendModel): walking the kept clauses from the last, a clause none of whose other
    literals is true makes its first literal, of the eliminated variable, true."""
    at = len(elimclauses)
    while at > 0:
        size = elimclauses[at - 1]
        start = at - 1 - size
        lits = elimclauses[start : at - 1]
        if not any(value[lit >> 1] == (FALSE if lit & 1 else TRUE) for lit in lits[1:]):
            value[lits[0] >> 1] = FALSE if lits[0] & 1 else TRUE
        at = start
