"""DPLL, the teaching mode of our SAT solver: pure Python, every step easy to follow.

The algorithm is the classic Davis-Putnam-Logemann-Loveland search, done properly:

* **Unit propagation with two watched literals.** A binary clause ``a or b`` is an implication
  both ways (``a`` false makes ``b`` true and vice versa) and is kept as such. Each longer
  clause watches two of its literals (kept in positions 0 and 1) and only needs attention when
  a watched literal becomes false: then we look for another non-false literal to watch; if
  there is none, the clause is unit (the other watch is implied) or, if the other watch is
  false too, in conflict.
* **Optional pure-literal elimination.** A literal whose negation occurs in no open clause can
  be set true without losing solutions.
* **Chronological backtracking**, iteratively (an explicit stack of decision levels, no
  recursion): on a conflict the most recent decision not yet flipped is flipped.
* **Branching heuristics** chosen by name (see :data:`satdoku.solvers.choices.HEURISTICS`).

For an UNSAT answer the solver can write a proof: every time the current stack of branch
literals ``b1..bk`` is refuted (a conflict, or both branches of ``bk`` refuted) the clause
``-b1 .. -bk`` follows by unit propagation from the formula and the clauses written before it,
and the final refutation of the empty stack is the empty clause. As DRUP (``proof_format``
``drat``) each such clause is a line; as LRAT (``lrat``) it also names the clauses that
derive it: after a conflict, the reason of every implied literal on the trail, in trail order
(each is unit once the branch literals and the literals before it are set), then the
conflicting clause; after both branches of ``bk`` failed, the two refutations (which are then
deleted: nothing needs them again). The formula's clauses are ids 1..m in their order, each
written clause the next id. Pure-literal steps are not unit-implied, so they are switched off
while a proof is written.

Literals are DIMACS integers throughout. ``value[lit]`` holds +1 (true), -1 (false) or 0
(unassigned) for ``lit`` in ``±1..±n``: the list has ``2n + 1`` slots and Python's negative
indexing puts ``-v`` at slot ``2n + 1 - v``, so both polarities live in one list without any
index arithmetic in the hot loop.
"""

from __future__ import annotations

import gc
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain, islice

from satdoku.cnf.watches import FALSE, TRUE, UNSET, visit
from satdoku.records import as_dict, record
from satdoku.solvers.base import Deadline, require_choice
from satdoku.solvers.choices import HEURISTICS  # branching heuristics by name
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import ClassVar, TextIO

_CHUNK = 8192  # clauses loaded or scanned between two looks at the clock (~5 ms of work)
#: proof formats DPLL writes
PROOF_FORMATS = ("drat", "lrat")


class _Expired(Exception):
    """Raised inside a long scan of the formula when the deadline has passed."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a while. Loading creates many objects (none
    cyclic); a collection meanwhile would walk all of them, and every object of the caller
    too (a pause of a second beside a 36x36 Sudoku's clause lists). On the way out the objects
    made meanwhile are frozen (``gc.freeze``: left to reference counting, which frees them all)
    so that the first allocation after re-enabling does not pay a collection over millions of
    young lists (0.3 s inside the next clock reading, past a time limit)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()


@record
class DpllStats:
    """Search counters (DPLL never restarts and learns no clauses: those stay 0)."""

    decisions: int = 0
    propagations: int = 0
    conflicts: int = 0
    restarts: int = 0
    learnt: int = 0
    max_level: int = 0

    def as_dict(self) -> dict[str, int]:
        return as_dict(self)


class Dpll:
    """One DPLL search over a fixed formula (variables ``1..num_vars``, DIMACS clauses)."""

    def __init__(
        self,
        num_vars: int,
        clauses: Iterable[Iterable[int]],
        heuristic: str = "vsids",
        pure_literals: bool = False,
        seed: int = 0,
        proof: TextIO | None = None,
        deadline: Deadline | None = None,
        proof_format: str = "drat",
    ) -> None:
        """Load the clauses. With a ``deadline`` the clock is read every few thousand clauses;
        if it passes, loading stops and :attr:`timed_out` is set (:meth:`solve` then answers
        TIMEOUT at once): millions of clauses take seconds in pure Python. ``proof`` receives
        the proof of an UNSAT answer, in ``proof_format`` (``drat`` or ``lrat``)."""
        require_choice("heuristic", heuristic, HEURISTICS)
        require_choice("proof format", proof_format, PROOF_FORMATS)
        self.n = num_vars
        self.heuristic = heuristic
        self.pure_literals = pure_literals and proof is None
        self.rng = random.Random(seed)
        self.proof = proof
        self.stats = DpllStats()
        self.value = [UNSET] * (2 * num_vars + 1)
        self.trail: list[int] = []  # assigned literals in assignment order
        self.qhead = 0  # trail[qhead:] are assigned but not yet propagated
        # (branch literal, flipped?, trail length, LRAT: id of the refutation of the branch's
        # first side when flipped, else 0)
        self.levels: list[tuple[int, bool, int, int]] = []
        # proof text of the stack below each level, made once per level: the negated branch
        # literals, and the LRAT hints of the trail before the level's branch literal
        self.stack_text: list[tuple[str, str]] = []
        # LRAT: the formula's clause ids as text: of each long clause (by index), of each
        # binary clause ((a, b), a < b), of each long clause by id() of its list; of each
        # trail literal the id of its reason ('' for a branch literal); each id is followed
        # by a space, so that a chain is one join
        self.lrat = proof is not None and proof_format == "lrat"
        self.clause_hint: list[str] = []
        self.binary_hint: dict[tuple[int, int], str] = {}
        self.hint_of_list: dict[int, str] = {}
        self.trail_hints: list[str] = []
        self.unit_hints: list[str] = []  # of each unit in ``units``
        self.empty_hint = ""  # the formula's first empty clause
        self.loaded = 0  # clauses read (the next clause written has id loaded + 1)
        if self.lrat:
            self.assign = self._lrat_assign()  # type: ignore[method-assign]
        self.watches: list[list[int]] = [[] for _ in range(2 * num_vars + 1)]
        self.clauses: list[list[int]] = []  # clauses of three or more literals (watched)
        # two-literal clauses, flat (a1, b1, a2, b2, ...): one list, not one object per clause
        # (a Sudoku's millions of binary clauses would cost seconds of allocation and garbage
        # collection); propagation uses them as implications
        self.binaries: list[int] = []
        # implied[lit]: literals that become true as soon as ``lit`` is false (binary clauses)
        self.implied: list[list[int]] = [[] for _ in range(2 * num_vars + 1)]
        self.activity = [0.0] * (num_vars + 1)
        self.bump = 1.0
        self.empty_clause = False
        self.refuted = False  # an UNSAT answer is final: a later solve() answers it again
        self.timed_out = False
        self._deadline: Deadline | None = None  # read by long scans during solve()
        units: list[int] = []
        kept = self.clauses
        occurrences: Counter[int] = Counter()
        with gc_paused():
            source = iter(clauses)
            while chunk := list(islice(source, _CHUNK)):
                if deadline is not None and deadline.expired():
                    self.timed_out = True
                    break
                first_long, first_binary = len(kept), len(self.binaries)
                self._load_chunk(chunk, units)
                # initial VSIDS scores: how often each variable occurs
                occurrences.update(map(abs, chain(*kept[first_long:])))
                occurrences.update(map(abs, self.binaries[first_binary:]))
            activity = self.activity
            for var, count in occurrences.items():
                activity[var] += count
            for lit in units:
                activity[abs(lit)] += 1.0
        # the variables some clause holds: only these are branched on by first and random (a
        # decision on a variable of no clause is pointless, and chronological backtracking
        # would flip every such decision before a conflict's real cause: 2^k times)
        self.occurring = sorted(set(occurrences) | {abs(lit) for lit in units})
        self.units = units
        self.next_id = self.loaded + 1

    def _load_chunk(self, chunk: list[Iterable[int]], units: list[int]) -> None:
        """Normalise and store some clauses: tautologies dropped, repeated literals merged,
        binary clauses as implications, longer ones watched, units collected."""
        watches, kept, lrat = self.watches, self.clauses, self.lrat
        for raw in chunk:
            clause = list(raw)  # our own copy: propagation reorders the literals
            size = len(clause)
            self.loaded += 1
            if size == 2:  # most clauses of a Sudoku: check them the cheap way
                if clause[0] == -clause[1]:
                    continue  # a tautology constrains nothing
                if clause[0] == clause[1]:
                    clause, size = clause[:1], 1
            elif size > 2:
                distinct = set(clause)
                if len(distinct) != size:  # drop repeated literals, keep order
                    clause = list(dict.fromkeys(clause))
                    size = len(clause)
                if any(-lit in distinct for lit in clause):
                    continue
            if size == 2:
                self.implied[clause[0]].append(clause[1])
                self.implied[clause[1]].append(clause[0])
                self.binaries += clause
                if lrat:  # the first of equal binary clauses stands
                    a, b = clause
                    self.binary_hint.setdefault((a, b) if a < b else (b, a), f"{self.loaded} ")
            elif size > 2:
                watches[clause[0]].append(len(kept))
                watches[clause[1]].append(len(kept))
                kept.append(clause)
                if lrat:
                    self.clause_hint.append(f"{self.loaded} ")
                    self.hint_of_list[id(clause)] = self.clause_hint[-1]
            elif size == 1:
                units.append(clause[0])
                self.unit_hints.append(f"{self.loaded} ")
            elif not self.empty_clause:
                self.empty_clause = True
                self.empty_hint = f"{self.loaded} "

    # --- assignment and unit propagation ----------------------------------------------------
    def assign(self, lit: int, reason: int = -1) -> None:
        """Make ``lit`` true (and ``-lit`` false) and queue it for propagation; ``reason``
        is the index of the long clause that implied it, -1 for a binary clause."""
        self.value[lit] = TRUE
        self.value[-lit] = FALSE
        self.trail.append(lit)

    def _lrat_assign(self) -> Callable[[int, int], None]:
        """:meth:`assign` for a search writing LRAT: the reason's id goes beside the literal
        (a binary reason is the clause of the literal being propagated now, false, and
        ``lit``). A closure over the lists it touches: it runs once per implied literal."""
        value, trail, qhead_of = self.value, self.trail, self
        clause_hint, binary_hint = self.clause_hint, self.binary_hint
        push, add = self.trail_hints.append, trail.append

        def assign(lit: int, reason: int = -1) -> None:
            value[lit] = TRUE
            value[-lit] = FALSE
            if reason >= 0:
                push(clause_hint[reason])
            else:
                a = -trail[qhead_of.qhead - 1]
                push(binary_hint[(a, lit) if a < lit else (lit, a)])
            add(lit)

        return assign

    def place(self, lit: int, hint: str = "") -> None:
        """Make ``lit`` true without a reason clause: a branch literal (decided or flipped),
        or a unit clause of the formula (``hint``: its id)."""
        self.value[lit] = TRUE
        self.value[-lit] = FALSE
        self.trail.append(lit)
        if self.lrat:
            self.trail_hints.append(hint)

    def propagate(self) -> list[int] | None:
        """Unit propagation over the watched literals; returns a conflicting clause or None."""
        value, watches, clauses, trail = self.value, self.watches, self.clauses, self.trail
        implied, assign = self.implied, self.assign
        while self.qhead < len(trail):
            false_lit = -trail[self.qhead]
            self.qhead += 1
            self.stats.propagations += 1
            for other in implied[false_lit]:  # binary clauses (false_lit or other)
                if value[other] == FALSE:
                    return [false_lit, other]
                if value[other] == UNSET:
                    assign(other)
            conflict = visit(false_lit, value, watches, clauses, assign)
            if conflict is not None:
                return conflict
        return None

    def backtrack(self, trail_length: int) -> None:
        """Undo every assignment made after the trail had ``trail_length`` literals."""
        value, trail = self.value, self.trail
        for lit in trail[trail_length:]:
            value[lit] = value[-lit] = UNSET
        del trail[trail_length:]
        del self.trail_hints[trail_length:]
        self.qhead = trail_length

    # --- proof --------------------------------------------------------------------------------
    def refute_stack(self, hints: str = "") -> int:
        """Write the clause saying the current branch literals cannot all hold, with its LRAT
        ``hints`` (ids, each followed by a space); returns its id."""
        ident = self.next_id
        self.next_id += 1
        if self.proof is not None:
            lits = self.stack_text[-1][0] if self.stack_text else ""
            self.proof.write(f"{ident} {lits}0 {hints}0\n" if self.lrat else f"{lits}0\n")
        return ident

    def push_level(self, lit: int, flipped: bool, trail_length: int, first: int) -> None:
        """Open a decision level (branch literal ``lit``, not assigned yet) and, while a proof
        is written, its text: the stack's negated literals, the hints of the trail so far."""
        self.levels.append((lit, flipped, trail_length, first))
        if self.proof is not None:
            lits, hints = self.stack_text[-1] if self.stack_text else ("", "")
            if self.lrat:
                below = self.levels[-2][2] if len(self.levels) > 1 else 0
                hints += "".join(self.trail_hints[below:trail_length])
            self.stack_text.append((f"{lits}{-lit} ", hints))

    def pop_level(self) -> tuple[int, bool, int, int]:
        if self.proof is not None:
            self.stack_text.pop()
        return self.levels.pop()

    def refute_conflict(self, conflict: list[int] | str) -> int:
        """Write the refutation of the current branch literals by propagation into
        ``conflict`` (a clause propagate() returned, or the id of a formula clause); returns
        its id. LRAT hints: the reason of every implied literal on the trail, in trail order,
        then the conflict."""
        if not self.lrat:
            return self.refute_stack()
        if isinstance(conflict, str):
            last = conflict
        elif len(conflict) == 2:  # binary clauses (a, b) are lists only in conflicts
            a, b = conflict
            last = self.binary_hint[(a, b) if a < b else (b, a)]
        else:
            last = self.hint_of_list[id(conflict)]
        hints = ""
        if self.levels:  # the trail below the last branch literal, made at its level's start
            hints = self.stack_text[-1][1]
            start = self.levels[-1][2]
        else:
            start = 0
        return self.refute_stack(hints + "".join(self.trail_hints[start:]) + last)

    def refute_both(self, first: int, second: int) -> int:
        """Write the refutation of the branch literals below a level both of whose sides
        were refuted (clauses ``first`` and ``second``), then delete those two."""
        ident = self.refute_stack(f"{first} {second} ")
        if self.lrat:
            self.proof.write(f"{ident} d {first} {second} 0\n")  # type: ignore[union-attr]
        return ident

    # --- heuristics ---------------------------------------------------------------------------
    def open_clauses(self) -> Iterable[list[int]]:
        """The unassigned literals of every clause not yet satisfied (one scan of the formula;
        the clock is read between chunks, :class:`_Expired` raised once the deadline passed)."""
        value, deadline = self.value, self._deadline
        pairs = self.binaries
        source = chain((pairs[i : i + 2] for i in range(0, len(pairs), 2)), self.clauses)
        while chunk := list(islice(source, _CHUNK)):
            if deadline is not None and deadline.expired():
                raise _Expired
            for clause in chunk:
                free = []
                for lit in clause:
                    v = value[lit]
                    if v == TRUE:
                        break
                    if v == UNSET:
                        free.append(lit)
                else:
                    if free:
                        yield free

    def choose(self) -> int | None:
        """The next decision literal, or None when every variable is assigned."""
        return self._choosers[self.heuristic](self)

    def _first(self) -> int | None:
        value = self.value
        for var in self.occurring:
            if value[var] == UNSET:
                return var
        return None

    def _random(self) -> int | None:
        free = [var for var in self.occurring if self.value[var] == UNSET]
        if not free:
            return None
        var = self.rng.choice(free)
        return var if self.rng.random() < 0.5 else -var

    def _scores(self, weight: Callable[[int], float]) -> dict[int, float]:
        """Sum of ``weight(len(open clause))`` per literal over the open clauses."""
        score: dict[int, float] = {}
        for free in self.open_clauses():
            w = weight(len(free))
            for lit in free:
                score[lit] = score.get(lit, 0.0) + w
        return score

    def _dlis(self) -> int | None:
        score = self._scores(lambda size: 1.0)
        if not score:
            return self._first()  # no open clause left: any free variable completes a model
        return max(score, key=score.__getitem__)

    def _jw(self) -> int | None:
        score = self._scores(lambda size: 2.0**-size)
        if not score:
            return self._first()
        best = max(range(1, self.n + 1), key=lambda v: score.get(v, 0.0) + score.get(-v, 0.0))
        return best if score.get(best, 0.0) >= score.get(-best, 0.0) else -best

    def _moms(self) -> int | None:
        shortest: list[list[int]] = []
        size = self.n + 1
        for free in self.open_clauses():
            if len(free) < size:
                size, shortest = len(free), [free]
            elif len(free) == size:
                shortest.append(free)
        if not shortest:
            return self._first()
        count: dict[int, int] = {}
        for free in shortest:
            for lit in free:
                count[lit] = count.get(lit, 0) + 1
        k = 4  # Freeman's MOMS weighting: f(x) + f(-x) scaled, plus f(x) * f(-x)

        def moms(v: int) -> int:
            a, b = count.get(v, 0), count.get(-v, 0)
            return (a + b) * 2**k + a * b

        best = max({abs(lit) for lit in count}, key=moms)
        return best if count.get(best, 0) >= count.get(-best, 0) else -best

    def _vsids(self) -> int | None:
        value, activity = self.value, self.activity
        best, best_score = None, -1.0
        for var in range(1, self.n + 1):
            if value[var] == UNSET and activity[var] > best_score:
                best, best_score = var, activity[var]
        return best

    def bump_conflict(self, clause: list[int]) -> None:
        """VSIDS: bump the variables of a conflict clause, then decay all (by growing the bump)."""
        for lit in clause:
            self.activity[abs(lit)] += self.bump
        self.bump /= 0.95
        if self.bump > 1e100:  # rescale before floats overflow
            self.activity = [a * 1e-100 for a in self.activity]
            self.bump *= 1e-100

    _choosers: ClassVar[dict[str, Callable[[Dpll], int | None]]] = {
        "first": _first,
        "random": _random,
        "dlis": _dlis,
        "moms": _moms,
        "jw": _jw,
        "vsids": _vsids,
    }

    def assign_pure_literals(self) -> bool:
        """Set every pure literal of the open clauses true; whether any was set."""
        seen: set[int] = set()
        for free in self.open_clauses():
            seen.update(free)
        pure = [lit for lit in seen if -lit not in seen]
        for lit in pure:
            self.place(lit)
        return bool(pure)

    # --- the search ---------------------------------------------------------------------------
    def solve(
        self, deadline: Deadline | None = None, max_decisions: int | None = None
    ) -> tuple[str, list[int] | None]:
        """Decide the formula: (SAT, model) / (UNSAT, None) / (TIMEOUT, None).

        ``model`` has one signed literal per variable, in variable order. The clock is read
        before every search step and between chunks of a heuristic's scan of the formula, so
        a TIMEOUT comes within milliseconds of the deadline even on millions of clauses.
        """
        if deadline is not None and deadline.at is None:
            deadline = None
        if self.timed_out or (deadline is not None and deadline.expired()):
            return TIMEOUT, None
        self._deadline = deadline
        try:
            with gc_paused():
                return self._search(deadline, max_decisions)
        except _Expired:
            return TIMEOUT, None
        finally:
            self._deadline = None

    def _search(
        self, deadline: Deadline | None, max_decisions: int | None
    ) -> tuple[str, list[int] | None]:
        stats = self.stats
        if self.refuted:  # the trail of a refutation is left mid-conflict: never search it
            return UNSAT, None
        if self.empty_clause:
            self.refute_conflict(self.empty_hint)
            return self._unsat()
        for lit, hint in zip(self.units, self.unit_hints, strict=True):
            if self.value[lit] == FALSE:  # the unit clauses [-lit] and [lit]
                self.refute_conflict(hint)
                return self._unsat()
            if self.value[lit] == UNSET:
                self.place(lit, hint)
        while True:
            if deadline is not None and deadline.expired():
                return TIMEOUT, None
            conflict = self.propagate()
            if conflict is not None:
                stats.conflicts += 1
                if self.heuristic == "vsids":
                    self.bump_conflict(conflict)
                if not self.resolve_conflict(conflict):
                    return self._unsat()
                continue
            if self.pure_literals and self.assign_pure_literals():
                continue
            lit = self.choose()
            if lit is None:
                return SAT, [v if self.value[v] == TRUE else -v for v in range(1, self.n + 1)]
            stats.decisions += 1
            if max_decisions is not None and stats.decisions > max_decisions:
                return TIMEOUT, None
            self.push_level(lit, False, len(self.trail), 0)
            stats.max_level = max(stats.max_level, len(self.levels))
            self.place(lit)

    def resolve_conflict(self, conflict: list[int]) -> bool:
        """Chronological backtracking: flip the latest unflipped decision; False if none is left.

        Each refuted stack of branch literals is written to the proof before it is popped.
        """
        refuted = self.refute_conflict(conflict)
        while self.levels:
            lit, flipped, trail_length, first = self.pop_level()
            self.backtrack(trail_length)
            if flipped:  # both branches of this level failed: the smaller stack is refuted too
                refuted = self.refute_both(first, refuted)
                continue
            self.push_level(-lit, True, trail_length, refuted)
            self.place(-lit)
            return True
        return False

    def _unsat(self) -> tuple[str, None]:
        """UNSAT, final: the proof already holds the refutation, and a later solve() on the
        trail a refutation leaves mid-conflict would search from a broken state."""
        self.refuted = True
        return UNSAT, None


def solve(
    num_vars: int,
    clauses: Iterable[Iterable[int]],
    heuristic: str = "vsids",
    time_limit: float | None = None,
    **options: object,
) -> tuple[str, list[int] | None, dict[str, int]]:
    """Convenience wrapper: (status, model, stats) for one formula; the time limit covers
    loading the clauses and the search."""
    deadline = Deadline(time_limit)
    solver = Dpll(num_vars, clauses, heuristic, deadline=deadline, **options)  # type: ignore[arg-type]
    status, model = solver.solve(deadline)
    return status, model, solver.stats.as_dict()
