"""The one search engine over the puzzle model: CSP backtracking with options.

Every search of the project runs here: the ``csp-<inference>-<ordering>[-lcv]`` puzzle-level
solvers, the exact solution counts behind the generator's labels, random complete grids (values
in a seeded random order), and the exact fallback of ``satdoku classify``.

Variables are cells with domains 1..D (bitmasks, bit v-1 for value v); constraints are binary:
``!=`` between peers (cells sharing a group, :attr:`Puzzle.peers`), ``<`` for Futoshiki
relations. Options, after the classic textbook (Russell & Norvig ch. 6) the original experiment
followed:

- inference ``bt``: none (each value is only checked against the assigned neighbours, kept as
  one "used values" bitmask per group); ``fc``: forward checking (an assignment prunes its
  neighbours' domains); ``mac``: maintaining arc consistency with AC-3 after every assignment
  (and at the root), plus "a value left in one cell of a full group goes there";
- variable ordering ``first`` (lowest empty cell) or ``mrv`` (fewest remaining values; a cell
  with at most one value is taken at once, other ties go to the most unassigned neighbours: the
  degree heuristic, unless ``degree=False``: then to the first cell found, which is cheaper per
  node and what the generator's counts use);
- value ordering ascending, or ``lcv`` (least constraining value first); ``rng`` shuffles the
  values first (random solutions for the generator; LCV then sorts stably);
- limits: ``max_nodes`` (a node budget, deterministic) and ``deadline`` (a
  :class:`~satdoku.solvers.base.Deadline`, read on the clock). Either raises the one
  :class:`SearchLimit`, whose ``reason`` says which.

Solutions are enumerated lazily, so counting up to K, "is it unique?" and "first solution" are
all :func:`iter_solutions` stopped early. Statistics: ``nodes`` = assignments tried (reported
as decisions), ``fails`` = dead ends (a value rejected or its subtree exhausted), ``pruned`` =
domain values removed by inference (reported as propagations).
"""

from __future__ import annotations

import hashlib
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satdoku.puzzle import Layout, Puzzle
from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Deadline, Result

INFERENCES = ("bt", "fc", "mac")
ORDERINGS = ("first", "mrv")
NODES, TIME = "nodes", "time"  # why a search stopped early: SearchLimit.reason


class SearchLimit(Exception):
    """A search or count stopped before it was complete: ``reason`` is :data:`NODES` (the node
    budget ran out) or :data:`TIME` (the deadline passed). The one "limit reached" exception of
    the project: CSP search, exact counting and SAT counting all raise it."""

    def __init__(self, reason: str, detail: str = "") -> None:
        if reason not in (NODES, TIME):
            raise ValueError(f"reason must be {NODES!r} or {TIME!r}, got {reason!r}")
        self.reason = reason
        super().__init__(detail or ("node budget exhausted" if reason == NODES
                                    else "time limit"))


def bit_values(mask: int) -> list[int]:
    """The values whose bits (1 << (v - 1)) are set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length())
        mask ^= low
    return out


class _Network:
    """The constraint structure of a puzzle (independent of its givens): shared by every search
    on puzzles with the same layout, instance groups and relations."""

    def __init__(self, puzzle: Puzzle) -> None:
        n = puzzle.ncells
        self.neq = tuple(tuple(sorted(ps)) for ps in puzzle.peers)
        less: list[list[int]] = [[] for _ in range(n)]  # c < other
        more: list[list[int]] = [[] for _ in range(n)]  # c > other
        for a, b in puzzle.less_than:
            less[a].append(b)
            more[b].append(a)
        self.less = tuple(tuple(x) for x in less)
        self.more = tuple(tuple(x) for x in more)
        self.ordered = frozenset(c for c in range(n) if less[c] or more[c])
        self.neigh = tuple(
            tuple(sorted(set(self.neq[c]) | set(less[c]) | set(more[c]))) if c in self.ordered
            else self.neq[c] for c in range(n))
        groups = puzzle.groups
        member: list[list[int]] = [[] for _ in range(n)]
        for g, cells in enumerate(groups):
            for c in cells:
                member[c].append(g)
        self.groups_of = tuple(tuple(m) for m in member)
        self.ngroups = len(groups)
        self.full = (1 << puzzle.domain) - 1
        self.perm_groups = tuple(g for g in groups if len(g) == puzzle.domain)


_NETWORKS: dict[tuple[Layout, tuple, tuple], _Network] = {}


def _network(puzzle: Puzzle) -> _Network:
    """The (cached) constraint network of ``puzzle``'s structure."""
    key = (puzzle.layout, puzzle.extra_groups, puzzle.less_than)
    net = _NETWORKS.get(key)
    if net is None:
        if len(_NETWORKS) >= 64:
            _NETWORKS.clear()
        net = _NETWORKS[key] = _Network(puzzle)
    return net


@dataclass
class SearchStats:
    """Counters of one search: nodes (assignments tried), fails (dead ends), pruned (domain
    values removed by inference) and whether the search ran to its end."""

    nodes: int = 0
    fails: int = 0
    pruned: int = 0
    complete: bool = True


class Search:
    """One search over one puzzle (from its givens, or from ``board``): see the module
    docstring for the options. :meth:`solutions` enumerates; the counters stay readable after
    a :class:`SearchLimit`."""

    def __init__(
        self,
        puzzle: Puzzle,
        board: Sequence[int] | None = None,
        *,
        inference: str = "bt",
        ordering: str = "mrv",
        lcv: bool = False,
        rng: random.Random | None = None,
        max_nodes: int | None = None,
        deadline: Deadline | None = None,
        degree: bool = True,
    ) -> None:
        if inference not in INFERENCES:
            raise ValueError(f"inference must be one of {INFERENCES}, got {inference!r}")
        if ordering not in ORDERINGS:
            raise ValueError(f"ordering must be one of {ORDERINGS}, got {ordering!r}")
        self.p = puzzle
        self.start = tuple(puzzle.givens if board is None else board)
        self.net = _network(puzzle)
        self.inference, self.mrv, self.lcv, self.rng = inference, ordering == "mrv", lcv, rng
        self.degree = degree
        self.max_nodes = max_nodes
        self.deadline_at = deadline.at if deadline is not None else None
        # read the clock every 64 cheap bt nodes, at every (costly) fc/mac node
        self.clock_every = 64 if inference == "bt" else 1
        self.stats = SearchStats()
        self._next_check = 1  # the node count at which budget and clock are next checked
        self._full_dom: list[int] = []  # bt with LCV: the (never pruned) domains LCV reads

    @property
    def nodes(self) -> int:
        return self.stats.nodes

    # --- limits ------------------------------------------------------------------------------
    def _check(self) -> None:
        """Raise SearchLimit when the node budget or the deadline is exhausted."""
        st = self.stats
        if self.max_nodes is not None and st.nodes > self.max_nodes:
            st.complete = False
            raise SearchLimit(NODES, f"node budget {self.max_nodes} exhausted")
        if self.deadline_at is not None and time.perf_counter() >= self.deadline_at:
            st.complete = False
            raise SearchLimit(TIME)
        nxt = st.nodes + self.clock_every if self.deadline_at is not None else 1 << 62
        if self.max_nodes is not None:
            nxt = min(nxt, self.max_nodes + 1)
        self._next_check = nxt

    # --- consistency -------------------------------------------------------------------------
    def _bounds(self, c: int, m: int, assign: list[int]) -> int:
        """``m`` restricted by the inequalities of ``c`` with assigned cells."""
        for o in self.net.less[c]:
            v = assign[o]
            if v:
                m &= (1 << (v - 1)) - 1  # values < v
        for o in self.net.more[c]:
            v = assign[o]
            if v:
                m &= ~((1 << v) - 1)  # values > v
        return m

    def _revise_from(
        self, x: int, dom: list[int], assign: list[int] | None, queue: list[int] | None
    ) -> bool:
        """Prune the neighbours of ``x`` against ``x``'s domain. With ``assign`` only the
        unassigned neighbours (forward checking); with ``queue`` changed cells are queued (AC-3).
        False on a wiped-out domain."""
        net = self.net
        dx = dom[x]
        if dx & (dx - 1) == 0:  # singleton: its value leaves every != neighbour
            notbit = ~dx
            for y in net.neq[x]:
                if assign is not None and assign[y]:
                    continue
                dy = dom[y]
                if dy & dx:
                    dy &= notbit
                    self.stats.pruned += 1
                    if not dy:
                        return False
                    dom[y] = dy
                    if queue is not None:
                        queue.append(y)
        if net.less[x]:  # x < y: y above min(x)
            keep = ~((1 << (dx & -dx).bit_length()) - 1)
            if not self._restrict(net.less[x], keep, dom, assign, queue):
                return False
        if net.more[x]:  # x > y: y below max(x)
            keep = (1 << (dx.bit_length() - 1)) - 1
            if not self._restrict(net.more[x], keep, dom, assign, queue):
                return False
        return True

    def _restrict(self, ys: Sequence[int], keep: int, dom: list[int],
                  assign: list[int] | None, queue: list[int] | None) -> bool:
        """Keep only the ``keep`` bits in the domains of the unassigned cells ``ys`` (an
        inequality's bound); False when a domain empties."""
        for y in ys:
            if assign is not None and assign[y]:
                continue
            dy = dom[y]
            ny = dy & keep
            if ny != dy:
                self.stats.pruned += (dy ^ ny).bit_count()
                if not ny:
                    return False
                dom[y] = ny
                if queue is not None:
                    queue.append(y)
        return True

    def _ac3(self, dom: list[int], queue: list[int]) -> bool:
        """AC-3 to a fixpoint; then each permutation group (D cells) must place every value:
        a value left in no cell is a wipe-out, a value left in one cell fixes that cell (the
        arc consistency of the group's at-least-once side), and AC-3 runs again. The clock is
        read every 1024 revisions (the root of a 36x36 revises thousands of cells)."""
        full = self.net.full
        revisions = 0
        while True:
            while queue:
                x = queue.pop()
                revisions += 1
                if not revisions & 1023 and self.deadline_at is not None \
                        and time.perf_counter() >= self.deadline_at:
                    self.stats.complete = False
                    raise SearchLimit(TIME)
                if not self._revise_from(x, dom, None, queue):
                    return False
            for cells in self.net.perm_groups:
                once = twice = 0
                for c in cells:
                    d = dom[c]
                    twice |= once & d
                    once |= d
                if once != full:
                    return False
                single = once & ~twice
                while single:
                    bit = single & -single
                    single ^= bit
                    for c in cells:
                        if dom[c] & bit:
                            if dom[c] != bit:
                                self.stats.pruned += 1
                                dom[c] = bit
                                queue.append(c)
                            break
            if not queue:
                return True

    # --- ordering ----------------------------------------------------------------------------
    def _degree_choice(self, best: list[int], free: list[int], assign: list[int]) -> int:
        """Among tied indices of ``free``, the cell with most unassigned neighbours (then the
        lowest cell)."""
        neigh = self.net.neigh
        return max(best, key=lambda i: (sum(1 for o in neigh[free[i]] if not assign[o]),
                                        -free[i]))

    def _order_values(self, c: int, mask: int, dom: list[int], assign: list[int]) -> list[int]:
        vals = bit_values(mask)
        if self.rng is not None:
            self.rng.shuffle(vals)
        if not self.lcv or len(vals) < 2:
            return vals
        net = self.net

        def ruled_out(v: int) -> int:
            bit = 1 << (v - 1)
            k = sum(1 for o in net.neq[c] if not assign[o] and dom[o] & bit)
            k += sum(((dom[o] & ((1 << v) - 1)).bit_count())
                     for o in net.less[c] if not assign[o])  # o must exceed v
            k += sum(((dom[o] & ~((1 << (v - 1)) - 1)).bit_count())
                     for o in net.more[c] if not assign[o])  # o must stay below v
            return k

        return sorted(vals, key=ruled_out)

    # --- search ------------------------------------------------------------------------------
    def solutions(self) -> Iterator[tuple[int, ...]]:
        """Every solution, lazily, in search order. Raises :class:`SearchLimit` at a limit."""
        p, net, start = self.p, self.net, self.start
        if len(start) != p.ncells or p.conflicts(start):
            return
        if sys.getrecursionlimit() < 4 * p.ncells + 1000:
            sys.setrecursionlimit(4 * p.ncells + 1000)
        full = net.full
        assign = list(start)
        free = [c for c, v in enumerate(start) if not v]
        if self.inference == "bt":
            if self.lcv:
                self._full_dom = [full] * p.ncells  # bt keeps no domains: LCV sees full ones
            used = [0] * net.ngroups
            for c, v in enumerate(start):
                if v:
                    for g in net.groups_of[c]:
                        used[g] |= 1 << (v - 1)
            yield from self._bt(assign, used, free)
            return
        dom = [(1 << (v - 1)) if v else full for v in start]
        if self.inference == "mac":
            if not self._ac3(dom, list(range(p.ncells))):
                return
        else:
            for c, v in enumerate(start):
                if v and not self._revise_from(c, dom, assign, None):
                    return
        if any(not dom[c] for c in free):
            return
        yield from self._propagating(dom, assign, free)

    def _bt(self, assign: list[int], used: list[int], free: list[int]
            ) -> Iterator[tuple[int, ...]]:
        """Plain backtracking; a value is legal when no group of the cell uses it yet and the
        inequalities with assigned cells hold."""
        if not free:
            yield tuple(assign)
            return
        net, st = self.net, self.stats
        groups_of, full, ordered = net.groups_of, net.full, net.ordered
        if self.mrv:
            best_i, best_m, best_n = -1, 0, 1 << 30
            degree = self.degree
            ties: list[int] = []
            for i, c in enumerate(free):
                m = full
                for g in groups_of[c]:
                    m &= ~used[g]
                if ordered and c in ordered:
                    m = self._bounds(c, m, assign)
                k = m.bit_count()
                if k < best_n:
                    best_i, best_m, best_n = i, m, k
                    if k <= 1:
                        break
                    if degree:
                        ties = [i]
                elif degree and k == best_n:
                    ties.append(i)
            if best_n > 1 and len(ties) > 1:
                best_i = self._degree_choice(ties, free, assign)
                c = free[best_i]
                best_m = full
                for g in groups_of[c]:
                    best_m &= ~used[g]
                if ordered and c in ordered:
                    best_m = self._bounds(c, best_m, assign)
        else:
            best_i = min(range(len(free)), key=free.__getitem__)
            c = free[best_i]
            best_m = full
            for g in groups_of[c]:
                best_m &= ~used[g]
            if ordered and c in ordered:
                best_m = self._bounds(c, best_m, assign)
        i = best_i
        c = free[i]
        free[i] = free[-1]
        free.pop()
        gs = groups_of[c]
        values = (bit_values(best_m) if not self.lcv and self.rng is None
                  else self._order_values(c, best_m, self._full_dom, assign))
        for v in values:
            st.nodes += 1
            if st.nodes >= self._next_check:
                self._check()
            bit = 1 << (v - 1)
            assign[c] = v
            for g in gs:
                used[g] |= bit
            yield from self._bt(assign, used, free)
            for g in gs:
                used[g] &= ~bit
            assign[c] = 0
            st.fails += 1
        if not best_m:
            st.fails += 1
        free.append(c)
        last = len(free) - 1
        free[i], free[last] = free[last], free[i]

    def _propagating(self, dom: list[int], assign: list[int], free: list[int]
                     ) -> Iterator[tuple[int, ...]]:
        """Backtracking over domains kept by forward checking or MAC."""
        if not free:
            yield tuple(assign)
            return
        st = self.stats
        if self.mrv:
            best_i, best_n = -1, 1 << 30
            degree = self.degree
            ties: list[int] = []
            for j, c in enumerate(free):
                k = dom[c].bit_count()
                if k < best_n:
                    best_i, best_n = j, k
                    if k <= 1:
                        break
                    if degree:
                        ties = [j]
                elif degree and k == best_n:
                    ties.append(j)
            if best_n > 1 and len(ties) > 1:
                best_i = self._degree_choice(ties, free, assign)
        else:
            best_i = min(range(len(free)), key=free.__getitem__)
        i = best_i
        c = free[i]
        free[i] = free[-1]
        free.pop()
        mask = dom[c]
        mac = self.inference == "mac"
        for v in self._order_values(c, mask, dom, assign):
            st.nodes += 1
            if st.nodes >= self._next_check:
                self._check()
            assign[c] = v
            child = dom[:]
            child[c] = 1 << (v - 1)
            if (self._ac3(child, [c]) if mac else self._revise_from(c, child, assign, None)):
                yield from self._propagating(child, assign, free)
            assign[c] = 0
            st.fails += 1
        if not mask:
            st.fails += 1
        free.append(c)
        last = len(free) - 1
        free[i], free[last] = free[last], free[i]


# --- the engine's plain functions -------------------------------------------------------------
def iter_solutions(puzzle: Puzzle, board: Sequence[int] | None = None, **options: Any
                   ) -> Iterator[tuple[int, ...]]:
    """Every solution of ``puzzle`` (from ``board`` if given), lazily; ``options`` are those of
    :class:`Search` (inference, ordering, lcv, rng, max_nodes, deadline)."""
    yield from Search(puzzle, board, **options).solutions()


def count_solutions(puzzle: Puzzle, limit: int = 2, board: Sequence[int] | None = None,
                    **options: Any) -> int:
    """Number of solutions, counting stops at ``limit`` (``limit=2`` answers "unique?"): exact
    unless a limit raises :class:`SearchLimit`."""
    n = 0
    if limit < 1:
        return 0
    for _ in Search(puzzle, board, **options).solutions():
        n += 1
        if n >= limit:
            break
    return n


def solve(puzzle: Puzzle, board: Sequence[int] | None = None, **options: Any
          ) -> tuple[tuple[int, ...] | None, SearchStats]:
    """(one solution checked against the puzzle, or None when there is none; the statistics).
    A limit does not raise here: the board is None and ``stats.complete`` is False."""
    search = Search(puzzle, board, **options)
    try:
        sol = next(search.solutions(), None)
    except SearchLimit:
        return None, search.stats
    if sol is not None:
        problems = puzzle.check_solution(sol)
        if problems:  # cannot happen unless the search is broken; never return a bad board
            raise AssertionError(f"search produced an invalid board: {problems[:3]}")
    return sol, search.stats


# --- the puzzle-level solver adapter ----------------------------------------------------------
def _code_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


class CspSolver:
    """A puzzle-level solver (``csp-*`` in the registry): the engine with fixed options, its
    deadline enforced by the clock."""

    def __init__(
        self,
        inference: str = "mac",
        ordering: str = "mrv",
        lcv: bool = False,
        name: str = "",
        max_nodes: int | None = None,
    ) -> None:
        if inference not in INFERENCES:
            raise ValueError(f"inference must be one of {INFERENCES}, got {inference!r}")
        if ordering not in ORDERINGS:
            raise ValueError(f"ordering must be one of {ORDERINGS}, got {ordering!r}")
        self.inference, self.ordering, self.lcv = inference, ordering, bool(lcv)
        self.max_nodes = max_nodes
        self.name = name or f"csp-{inference}-{ordering}" + ("-lcv" if lcv else "")

    @property
    def version(self) -> str:
        return f"csp {_code_version()}"

    def solve_puzzle(self, puzzle: Puzzle, deadline: Deadline) -> Result:
        """Solve before ``deadline`` (read on the clock during search and during MAC's
        propagation): SAT with the board, UNSAT, or TIMEOUT (the node budget, if set, also ends
        in TIMEOUT; the message says which)."""
        t0 = time.perf_counter()
        search = Search(puzzle, inference=self.inference, ordering=self.ordering, lcv=self.lcv,
                        max_nodes=self.max_nodes, deadline=deadline)
        board: tuple[int, ...] | None = None
        status, message = UNSAT, ""
        try:
            board = next(search.solutions(), None)
            status = SAT if board is not None else UNSAT
        except SearchLimit as exc:
            status, message = TIMEOUT, str(exc)
        t1 = time.perf_counter()
        st = search.stats
        stats = {"decisions": st.nodes, "conflicts": st.fails, "propagations": st.pruned}
        return Result(status, board=board, stats=stats, solve_seconds=t1 - t0,
                      total_seconds=t1 - t0, message=message)


def make_csp(name: str = "", **options: Any) -> CspSolver:
    return CspSolver(name=name, **options)
