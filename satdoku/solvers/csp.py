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

import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from satdoku.records import record
from satdoku.solvers.base import Deadline
from satdoku.solvers.choices import INFERENCES, ORDERINGS
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT, Result

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only: the engine reads a puzzle's attributes
    from typing import Any

    from satdoku.puzzle import Layout, Puzzle

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


@record
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
        self.groups_of = self.net.groups_of
        self.inference, self.mrv, self.lcv, self.rng = inference, ordering == "mrv", lcv, rng
        self.degree = degree
        self.max_nodes = max_nodes
        self.deadline_at = deadline.at if deadline is not None else None
        # read the clock every 64 cheap bt nodes, at every (costly) fc/mac node
        self.clock_every = 64 if inference == "bt" else 1
        self.stats = SearchStats()
        self._next_check = 1  # the node count at which budget and clock are next checked
        # search state, set by solutions(): values, domains (bt: full, never pruned), the
        # values each group uses (bt), the parents' domains (fc/mac), the mode's hooks
        self.assign: list[int] = []
        self.dom: list[int] = []
        self.used: list[int] = []
        self._saved: list[list[int]] = []
        self._masks: Callable[[list[int]], list[int]] = self._masks_bt
        self._place: Callable[[int, int], bool] = self._place_bt
        self._unplace: Callable[[int, int], None] = self._unplace_bt

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
    def _masks_bt(self, free: list[int]) -> list[int]:
        """bt: the legal values of the cells of ``free`` in order (no group of the cell uses
        the value, the inequalities with assigned cells hold), up to the first cell with at
        most one (MRV takes that one at once)."""
        used, assign, groups_of = self.used, self.assign, self.groups_of
        ordered, full = self.net.ordered, self.net.full
        out = []
        for c in free:
            m = full
            for g in groups_of[c]:
                m &= ~used[g]
            if ordered and c in ordered:
                m = self._bounds(c, m, assign)
            out.append(m)
            if m & (m - 1) == 0:
                break
        return out

    def _masks_dom(self, free: list[int]) -> list[int]:
        """fc / mac: the kept domains of the cells of ``free``, up to the first singleton."""
        dom = self.dom
        out = []
        for c in free:
            m = dom[c]
            out.append(m)
            if m & (m - 1) == 0:
                break
        return out

    def _choose(self, free: list[int], masks: list[int]) -> int:
        """MRV over the ``masks`` of the first cells of ``free``: the fewest values; a tie
        between cells with two or more goes to the most unassigned neighbours (``degree``),
        then to the first cell."""
        counts = [m.bit_count() for m in masks]
        best = min(counts)
        first = counts.index(best)
        if best <= 1 or not self.degree:
            return first
        ties = [i for i in range(first, len(counts)) if counts[i] == best]
        if len(ties) == 1:
            return first
        neigh, assign = self.net.neigh, self.assign
        return max(ties, key=lambda i: (sum(1 for o in neigh[free[i]] if not assign[o]),
                                        -free[i]))

    def _order_values(self, c: int, mask: int) -> list[int]:
        vals = bit_values(mask)
        if self.rng is not None:
            self.rng.shuffle(vals)
        if not self.lcv or len(vals) < 2:
            return vals
        net, dom, assign = self.net, self.dom, self.assign

        def ruled_out(v: int) -> int:
            bit = 1 << (v - 1)
            k = sum(1 for o in net.neq[c] if not assign[o] and dom[o] & bit)
            k += sum(((dom[o] & ((1 << v) - 1)).bit_count())
                     for o in net.less[c] if not assign[o])  # o must exceed v
            k += sum(((dom[o] & ~((1 << (v - 1)) - 1)).bit_count())
                     for o in net.more[c] if not assign[o])  # o must stay below v
            return k

        return sorted(vals, key=ruled_out)

    # --- placing a value ---------------------------------------------------------------------
    def _place_bt(self, c: int, v: int) -> bool:
        self.assign[c] = v
        bit = 1 << (v - 1)
        used = self.used
        for g in self.groups_of[c]:
            used[g] |= bit
        return True

    def _unplace_bt(self, c: int, v: int) -> None:
        keep = ~(1 << (v - 1))
        used = self.used
        for g in self.groups_of[c]:
            used[g] &= keep
        self.assign[c] = 0

    def _place_dom(self, c: int, v: int) -> bool:
        """Assign, then prune a copy of the domains (the parent's is restored by
        :meth:`_unplace_dom`); False on a wipe-out."""
        self.assign[c] = v
        child = self.dom[:]
        child[c] = 1 << (v - 1)
        self._saved.append(self.dom)
        self.dom = child
        if self.inference == "mac":
            return self._ac3(child, [c])
        return self._revise_from(c, child, self.assign, None)

    def _unplace_dom(self, c: int, v: int) -> None:
        self.dom = self._saved.pop()
        self.assign[c] = 0

    # --- search ------------------------------------------------------------------------------
    def solutions(self) -> Iterator[tuple[int, ...]]:
        """Every solution, lazily, in search order. Raises :class:`SearchLimit` at a limit."""
        p, net, start = self.p, self.net, self.start
        if len(start) != p.ncells or p.conflicts(start):
            return
        full = net.full
        self.assign = assign = list(start)
        free = [c for c, v in enumerate(start) if not v]
        if self.inference == "bt":  # domains stay full (LCV reads them); groups' used values
            self.dom = [full] * p.ncells
            self.used = used = [0] * net.ngroups
            for c, v in enumerate(start):
                if v:
                    for g in net.groups_of[c]:
                        used[g] |= 1 << (v - 1)
            self._masks, self._place, self._unplace = (self._masks_bt, self._place_bt,
                                                       self._unplace_bt)
        else:
            self.dom = dom = [(1 << (v - 1)) if v else full for v in start]
            if self.inference == "mac":
                if not self._ac3(dom, list(range(p.ncells))):
                    return
            else:
                for c, v in enumerate(start):
                    if v and not self._revise_from(c, dom, assign, None):
                        return
            if any(not dom[c] for c in free):
                return
            self._masks, self._place, self._unplace = (self._masks_dom, self._place_dom,
                                                       self._unplace_dom)
        # one generator frame per assigned cell: raise the recursion limit while this search
        # runs (or waits between solutions), and give the process its own limit back after
        before, need = sys.getrecursionlimit(), 4 * p.ncells + 1000
        if before < need:
            sys.setrecursionlimit(need)
        try:
            yield from self._search(free)
        finally:
            if before < need:
                sys.setrecursionlimit(before)

    def _search(self, free: list[int]) -> Iterator[tuple[int, ...]]:
        """Choose a cell, try its values in order, recurse; ``free`` is restored on return."""
        if not free:
            yield tuple(self.assign)
            return
        st = self.stats
        if self.mrv:
            masks = self._masks(free)
            mask = masks[-1]
            if mask & (mask - 1) == 0:  # the scan stopped at a cell with at most one value
                i = len(masks) - 1
            else:
                i = self._choose(free, masks)
                mask = masks[i]
        else:
            i = min(range(len(free)), key=free.__getitem__)
            mask = self._masks([free[i]])[0]
        c = free[i]
        free[i] = free[-1]
        free.pop()
        place, unplace = self._place, self._unplace
        for v in (bit_values(mask) if not self.lcv and self.rng is None
                  else self._order_values(c, mask)):
            st.nodes += 1
            if st.nodes >= self._next_check:
                self._check()
            if place(c, v):
                yield from self._search(free)
            unplace(c, v)
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
        return Result(status, board=board, stats=stats, solve_seconds=t1 - t0, message=message)


def make_csp(name: str = "", **options: Any) -> CspSolver:
    return CspSolver(name=name, **options)
