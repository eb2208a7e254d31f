"""Delta debugging: shrink a failing case to a small one that still fails the same way.

:func:`ddmin` is Zeller and Hildebrandt's algorithm (*Simplifying and isolating
failure-inducing input*, TSE 2002): test halves, then complements, then finer chunks, until
no single chunk can go; the result is 1-minimal (removing any one item makes the failure
disappear), found in O(n^2) tests at worst, O(log n) when one small part is to blame.

:func:`shrink_case` applies it the way ddsat shrinks CNF (Brummayer, Lonsing and Biere, SAT
2010): calls of an API sequence first, then whole clauses, then literals within each clause
and each call's assumptions, then the variables renumbered 1..k in order of appearance;
rounds repeat while one of them made progress. An UNSAT formula is first cut to an
unsatisfiable core (the reference solver's), tried in one test. Every step keeps a
candidate only when the caller's ``fails`` says it still fails (the caller compares the
failure's class, so a wrong answer never shrinks into a crash). A :class:`Budget` bounds
the tests and the time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from satdoku.fuzz.cases import Call, Case
from satdoku.fuzz.oracles import unsat_core

T = TypeVar("T")


@dataclass
class Budget:
    """How many tests a shrink may run and until when (``seconds`` None: no clock limit)."""

    tests: int = 5000
    seconds: float | None = 120.0
    used: int = 0
    start: float = field(default_factory=time.perf_counter)

    def spent(self) -> bool:
        if self.used >= self.tests:
            return True
        return self.seconds is not None and time.perf_counter() - self.start > self.seconds


def ddmin(items: Sequence[T], fails: Callable[[list[T]], bool],
          budget: Budget | None = None) -> list[T]:
    """A 1-minimal sublist of ``items`` (order kept) on which ``fails`` still holds; ``items``
    itself must fail. Stops early, with the smallest failing list so far, when the budget is
    spent."""
    budget = budget or Budget()
    current = list(items)

    def test(candidate: list[T]) -> bool:
        if budget.spent():
            return False
        budget.used += 1
        return fails(candidate)

    if current and test([]):
        return []
    n = 2
    while len(current) >= 2 and not budget.spent():
        size = -(-len(current) // n)
        chunks = [current[i:i + size] for i in range(0, len(current), size)]
        reduced = next((c for c in chunks if test(c)), None)  # one chunk alone fails
        if reduced is not None:
            current, n = reduced, 2
            continue
        if len(chunks) > 2:  # (with two chunks the complements are the chunks)
            rest = ([x for j, c in enumerate(chunks) if j != i for x in c]
                    for i in range(len(chunks)))
            reduced = next((r for r in rest if test(r)), None)  # it fails without one chunk
            if reduced is not None:
                current, n = reduced, max(n - 1, 2)
                continue
        if n >= len(current):
            break
        n = min(2 * n, len(current))
    return current


def renumbered(case: Case) -> Case:
    """The case with its variables renamed 1..k in order of first appearance (clauses, then
    calls), signs kept; ``num_vars`` becomes k."""
    names: dict[int, int] = {}

    def lit(x: int) -> int:
        v = names.setdefault(abs(x), len(names) + 1)
        return v if x > 0 else -v

    clauses = tuple(tuple(lit(x) for x in c) for c in case.clauses)
    calls = tuple(replace(call, assumptions=tuple(lit(x) for x in call.assumptions),
                          clauses=tuple(tuple(lit(x) for x in c) for c in call.clauses))
                  for call in case.calls)  # fmt: skip
    return replace(case, num_vars=len(names), clauses=clauses, calls=calls)


def shrink_case(case: Case, fails: Callable[[Case], bool], budget: Budget | None = None,
                rounds: int = 4) -> Case:
    """A smaller case on which ``fails`` still holds (``case`` must fail): calls, clauses,
    literals and assumptions removed by :func:`ddmin`, variables renumbered."""
    budget = budget or Budget()
    core = _core(case)
    if core is not None and core != case:  # an UNSAT formula: its core first, in one test
        budget.used += 1
        if fails(core):
            case = core
    for _ in range(rounds):
        before = case.size()
        if case.calls:
            now = case
            calls = ddmin(now.calls, lambda cs, now=now: fails(replace(now, calls=tuple(cs))),
                          budget)  # fmt: skip
            case = replace(case, calls=tuple(calls))
        case = _shrink_clauses(case, fails, budget)
        case = _shrink_calls(case, fails, budget)
        smaller = renumbered(case)
        if smaller != case and (smaller.num_vars < case.num_vars) and fails(smaller):
            case = smaller
        if case.size() >= before or budget.spent():
            break
    return case


def _core(case: Case) -> Case | None:
    """The case cut down to an unsatisfiable core of its clauses (a one-shot case whose
    formula is UNSAT), else None."""
    if case.calls:
        return None
    core = unsat_core(case.clauses)
    return None if core is None else replace(case, clauses=tuple(case.clauses[i] for i in core))


def _shrink_clauses(case: Case, fails: Callable[[Case], bool], budget: Budget) -> Case:
    """Whole clauses first, then the literals of each remaining clause."""
    base = case
    kept = ddmin(base.clauses, lambda cs: fails(replace(base, clauses=tuple(cs))), budget)
    case = replace(case, clauses=tuple(kept))
    for i in range(len(case.clauses)):
        if budget.spent():
            break
        now = case
        lits = ddmin(now.clauses[i],
                     lambda ls, i=i, now=now: fails(replace(now, clauses=_put(now.clauses, i,
                                                                              ls))),
                     budget)  # fmt: skip
        case = replace(case, clauses=_put(case.clauses, i, lits))
    return case


def _shrink_calls(case: Case, fails: Callable[[Case], bool], budget: Budget) -> Case:
    """Each call's added clauses (whole, then literals) and its assumptions."""
    for i in range(len(case.calls)):
        if budget.spent():
            break
        now, call = case, case.calls[i]
        if call.clauses:
            kept = ddmin(call.clauses,
                         lambda cs, i=i, now=now, call=call: fails(_with_call(
                             now, i, replace(call, clauses=tuple(cs)))),
                         budget)  # fmt: skip
            call = replace(call, clauses=tuple(kept))
            case = now = _with_call(case, i, call)
        if call.assumptions:
            lits = ddmin(call.assumptions,
                         lambda ls, i=i, now=now, call=call: fails(_with_call(
                             now, i, replace(call, assumptions=tuple(ls)))),
                         budget)  # fmt: skip
            case = _with_call(case, i, replace(call, assumptions=tuple(lits)))
    return case


def _with_call(case: Case, i: int, call: Call) -> Case:
    return replace(case, calls=(*case.calls[:i], call, *case.calls[i + 1:]))


def _put(clauses: tuple[tuple[int, ...], ...], i: int, lits: Sequence[int]
         ) -> tuple[tuple[int, ...], ...]:
    return (*clauses[:i], tuple(lits), *clauses[i + 1:])
