"""CSP backtracking over the puzzle model: the ``csp-<inference>-<ordering>[-lcv]`` family.

Variables are cells with domains 1..D (bitmasks, bit v-1 for value v); constraints are binary:
``!=`` between cells sharing a group, ``<`` for Futoshiki relations. Choices, after the classic
textbook (Russell & Norvig ch. 6) the original experiment followed:

- inference ``bt``: none (each value is only checked against the assigned neighbours);
  ``fc``: forward checking (an assignment prunes its neighbours' domains);
  ``mac``: maintaining arc consistency with AC-3 after every assignment (and at the root);
- variable ordering ``first`` (lowest empty cell) or ``mrv`` (fewest remaining values, ties
  broken by the most unassigned neighbours: the degree heuristic);
- value ordering ascending, or ``lcv`` (least constraining value first).

Statistics: ``decisions`` = assignments tried (nodes), ``conflicts`` = dead ends (a value
rejected or its subtree exhausted), ``propagations`` = domain values removed by inference.
"""

from __future__ import annotations

import hashlib
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from satdoku.exact import bit_values
from satdoku.puzzle import Puzzle
from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Deadline, Result

INFERENCES = ("bt", "fc", "mac")
ORDERINGS = ("first", "mrv")


class SearchTimeout(Exception):
    """The time limit (or node budget) ran out."""


class _Csp:
    """The constraint network of one puzzle and the search state of one run."""

    def __init__(
        self,
        puzzle: Puzzle,
        inference: str,
        ordering: str,
        lcv: bool,
        deadline: float | None,
        max_nodes: int | None,
        rng: random.Random | None = None,
    ) -> None:
        self.p = puzzle
        self.rng = rng
        self.inference, self.ordering, self.lcv = inference, ordering, lcv
        self.deadline, self.max_nodes = deadline, max_nodes
        n = puzzle.ncells
        peers: list[set[int]] = [set() for _ in range(n)]
        for cells in puzzle.groups:
            for c in cells:
                peers[c].update(cells)
        for c in range(n):
            peers[c].discard(c)
        self.neq = [tuple(sorted(s)) for s in peers]
        less: list[list[int]] = [[] for _ in range(n)]  # c < other
        more: list[list[int]] = [[] for _ in range(n)]  # c > other
        for a, b in puzzle.less_than:
            less[a].append(b)
            more[b].append(a)
        self.less = [tuple(x) for x in less]
        self.more = [tuple(x) for x in more]
        self.neigh = [tuple(sorted(peers[c] | set(less[c]) | set(more[c]))) for c in range(n)]
        self.full = (1 << puzzle.domain) - 1
        self.perm_groups = tuple(g for g in puzzle.groups if len(g) == puzzle.domain)
        self.nodes = self.fails = self.pruned = 0
        # read the clock every 64 cheap bt nodes, at every (costly) fc/mac node
        self.clock_mask = 63 if inference == "bt" else 0

    # --- budget ------------------------------------------------------------------------------
    def _tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchTimeout(f"node budget {self.max_nodes} exhausted")
        if (
            self.deadline is not None
            and self.nodes & self.clock_mask == 0
            and time.perf_counter() > self.deadline
        ):
            raise SearchTimeout("time limit")

    # --- consistency -------------------------------------------------------------------------
    def _legal(self, c: int, dom: list[int], assign: list[int]) -> int:
        """Values of ``c`` consistent with the assigned neighbours (used by ``bt``)."""
        m = dom[c]
        for o in self.neq[c]:
            v = assign[o]
            if v:
                m &= ~(1 << (v - 1))
        for o in self.less[c]:
            v = assign[o]
            if v:
                m &= (1 << (v - 1)) - 1
        for o in self.more[c]:
            v = assign[o]
            if v:
                m &= ~((1 << v) - 1)
        return m

    def _revise_from(
        self, x: int, dom: list[int], assign: list[int] | None, queue: list[int] | None
    ) -> bool:
        """Prune the neighbours of ``x`` against ``x``'s domain. With ``assign`` only the
        unassigned neighbours (forward checking); with ``queue`` changed cells are queued (AC-3).
        False on a wiped-out domain."""
        dx = dom[x]
        if dx & (dx - 1) == 0:  # singleton: its value leaves every != neighbour
            notbit = ~dx
            for y in self.neq[x]:
                if assign is not None and assign[y]:
                    continue
                dy = dom[y]
                if dy & dx:
                    dy &= notbit
                    self.pruned += 1
                    if not dy:
                        return False
                    dom[y] = dy
                    if queue is not None:
                        queue.append(y)
        if self.less[x]:  # x < y: y above min(x)
            keep = ~((1 << (dx & -dx).bit_length()) - 1)
            if not self._restrict(self.less[x], keep, dom, assign, queue):
                return False
        if self.more[x]:  # x > y: y below max(x)
            keep = (1 << (dx.bit_length() - 1)) - 1
            if not self._restrict(self.more[x], keep, dom, assign, queue):
                return False
        return True

    def _restrict(self, ys: list[int], keep: int, dom: list[int], assign: list[int] | None,
                  queue: list[int] | None) -> bool:
        """Keep only the ``keep`` bits in the domains of the unassigned cells ``ys`` (an
        inequality's bound); False when a domain empties."""
        for y in ys:
            if assign is not None and assign[y]:
                continue
            dy = dom[y]
            ny = dy & keep
            if ny != dy:
                self.pruned += (dy ^ ny).bit_count()
                if not ny:
                    return False
                dom[y] = ny
                if queue is not None:
                    queue.append(y)
        return True

    def _ac3(self, dom: list[int], queue: list[int]) -> bool:
        """AC-3 to a fixpoint; then each permutation group (D cells) must place every value:
        a value left in no cell is a wipe-out, a value left in one cell fixes that cell (the
        arc consistency of the group's at-least-once side), and AC-3 runs again."""
        while True:
            while queue:
                x = queue.pop()
                if not self._revise_from(x, dom, None, queue):
                    return False
            for cells in self.perm_groups:
                once = twice = 0
                for c in cells:
                    d = dom[c]
                    twice |= once & d
                    once |= d
                if once != self.full:
                    return False
                single = once & ~twice
                while single:
                    bit = single & -single
                    single ^= bit
                    for c in cells:
                        if dom[c] & bit:
                            if dom[c] != bit:
                                self.pruned += 1
                                dom[c] = bit
                                queue.append(c)
                            break
            if not queue:
                return True

    def _infer(self, c: int, dom: list[int], assign: list[int]) -> bool:
        if self.inference == "fc":
            return self._revise_from(c, dom, assign, None)
        if self.inference == "mac":
            return self._ac3(dom, [c])
        return True

    # --- ordering ----------------------------------------------------------------------------
    def _select(self, free: list[int], dom: list[int], assign: list[int]) -> int:
        """Index in ``free`` of the next cell to assign."""
        if self.ordering == "first":
            return min(range(len(free)), key=free.__getitem__)
        best: list[int] = []
        best_n = 1 << 30
        bt = self.inference == "bt"
        for i, c in enumerate(free):
            k = (self._legal(c, dom, assign) if bt else dom[c]).bit_count()
            if k < best_n:
                best_n, best = k, [i]
                if k == 0:
                    break
            elif k == best_n:
                best.append(i)
        if len(best) == 1:
            return best[0]
        return max(
            best, key=lambda i: (sum(1 for o in self.neigh[free[i]] if not assign[o]), -free[i])
        )

    def _order_values(self, c: int, mask: int, dom: list[int], assign: list[int]) -> list[int]:
        vals = bit_values(mask)
        if self.rng is not None:
            self.rng.shuffle(vals)  # random solutions (generators); LCV then sorts stably
        if not self.lcv or len(vals) < 2:
            return vals

        def ruled_out(v: int) -> int:
            bit = 1 << (v - 1)
            k = sum(1 for o in self.neq[c] if not assign[o] and dom[o] & bit)
            k += sum(
                ((dom[o] & ((1 << v) - 1)).bit_count()) for o in self.less[c] if not assign[o]
            )  # o must exceed v
            k += sum(
                ((dom[o] & ~((1 << (v - 1)) - 1)).bit_count())
                for o in self.more[c]
                if not assign[o]
            )  # o must stay below v
            return k

        return sorted(vals, key=ruled_out)

    # --- search ------------------------------------------------------------------------------
    def solutions(self) -> Iterator[tuple[int, ...]]:
        p = self.p
        if p.conflicts():
            return
        dom = [(1 << (g - 1)) if g else self.full for g in p.givens]
        assign = list(p.givens)
        if self.inference == "mac":
            if not self._ac3(dom, list(range(p.ncells))):
                return
        elif self.inference == "fc":
            for c, g in enumerate(p.givens):
                if g and not self._revise_from(c, dom, assign, None):
                    return
        free = [c for c, g in enumerate(p.givens) if not g]
        if self.inference != "bt" and any(not dom[c] for c in free):
            return
        yield from self._search(dom, assign, free)

    def _search(
        self, dom: list[int], assign: list[int], free: list[int]
    ) -> Iterator[tuple[int, ...]]:
        if not free:
            yield tuple(assign)
            return
        i = self._select(free, dom, assign)
        c = free[i]
        free[i] = free[-1]
        free.pop()
        bt = self.inference == "bt"
        mask = self._legal(c, dom, assign) if bt else dom[c]
        for v in self._order_values(c, mask, dom, assign):
            self._tick()
            assign[c] = v
            if bt:
                yield from self._search(dom, assign, free)
            else:
                child = dom[:]
                child[c] = 1 << (v - 1)
                if self._infer(c, child, assign):
                    yield from self._search(child, assign, free)
            assign[c] = 0
            self.fails += 1
        if not mask:
            self.fails += 1
        free.append(c)
        last = len(free) - 1
        free[i], free[last] = free[last], free[i]


def _code_version() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


class CspSolver:
    """A puzzle-level solver: backtracking with the chosen inference and orderings."""

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

    def _csp(self, puzzle: Puzzle, time_limit: float | None,
             rng: random.Random | None = None) -> _Csp:
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * puzzle.ncells + 1000))
        return _Csp(puzzle, self.inference, self.ordering, self.lcv, deadline, self.max_nodes,
                    rng)

    def iter_solutions(self, puzzle: Puzzle, time_limit: float | None = None,
                       rng: random.Random | None = None) -> Iterator[tuple[int, ...]]:
        """Every solution in search order (values shuffled by ``rng`` if given); raises
        :class:`SearchTimeout` at the limit."""
        yield from self._csp(puzzle, time_limit, rng).solutions()

    def solve_puzzle(self, puzzle: Puzzle, deadline: Deadline) -> Result:
        time_limit = deadline.remaining()
        t0 = time.perf_counter()
        csp = self._csp(puzzle, time_limit)
        board: tuple[int, ...] | None = None
        status, message = UNSAT, ""
        try:
            board = next(iter(csp.solutions()), None)
            status = SAT if board is not None else UNSAT
        except SearchTimeout as exc:
            status, message = TIMEOUT, str(exc)
        t1 = time.perf_counter()
        stats = {"decisions": csp.nodes, "conflicts": csp.fails, "propagations": csp.pruned}
        return Result(
            status,
            board=board,
            stats=stats,
            solve_seconds=t1 - t0,
            total_seconds=t1 - t0,
            message=message,
        )


def make_csp(name: str = "", **options: Any) -> CspSolver:
    return CspSolver(name=name, **options)
