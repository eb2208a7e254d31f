"""Solution counting by SAT, up to K: the one SAT counter (uniqueness stage, generator,
``satdoku count``).

MiniSat 2.2 (python-sat) holds one rules block, loaded once and kept while the following
formulas share it (a shard of the uniqueness stage, every count of one layout in the
generator). Each count takes a fresh activation literal ``a``: the formula's own unit clauses
become assumptions, its other own clauses are added as ``-a ∨ clause``, and every solution found
is blocked by ``-a ∨ ¬solution`` (the solution's assignment of the projection variables), so
the next solve must find another one. Afterwards the unit ``-a`` retires all of them and the
rules are clean for the next formula. The deadline of a count covers all its solves; the
process's one :func:`~satdoku.solvers.pysat_backends.watchdog` interrupts MiniSat at it, and
the count raises :class:`~satdoku.solvers.csp.SearchLimit` (reason ``time``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from satdoku.cnf.decode import decode_model
from satdoku.cnf.encode import instance_clauses, rules_clauses, rules_num_vars
from satdoku.cnf.formula import Cnf
from satdoku.puzzle import Layout, Puzzle
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import TIME, SearchLimit
from satdoku.solvers.pysat_backends import watchdog


def encoding_for(layout: Layout) -> str:
    """The encoding puzzles of ``layout`` are counted under: the direct encoding with every
    clause family, its at-most-one constraints pairwise up to 16 values and by Sinz's
    sequential counter above (a 36x36 holds 3.3 million pairwise clauses, 0.6 million
    sequential ones; solutions are told apart on the direct variables only)."""
    return "extended" if layout.domain <= 16 else "extended_seq"


class SatCounter:
    """One MiniSat and the rules block it holds; :meth:`models` / :meth:`count` per formula,
    one formula at a time (finish or close a :meth:`models` iteration before the next)."""

    def __init__(self, backend: str = "minisat22") -> None:
        self.backend = backend
        self._solver: Any = None
        self._rules: Cnf | None = None
        self._top = 0  # highest variable in use (rules, own clauses, activation literals)

    def _load(self, rules: Cnf) -> None:
        from pysat.solvers import Solver

        self.close()
        self._solver = Solver(name=self.backend, bootstrap_with=rules.clauses)
        self._rules, self._top = rules, rules.num_vars

    def _solve(self, assumptions: list[int], deadline: Deadline | None) -> bool:
        """One solve under ``assumptions``; SearchLimit when the deadline interrupts it."""
        s = self._solver
        remaining = None if deadline is None else deadline.remaining()
        if remaining is None:
            return bool(s.solve(assumptions=assumptions))
        if remaining <= 0:
            raise SearchLimit(TIME)
        dog = watchdog()
        dog.arm(s, remaining)
        answer = s.solve_limited(assumptions=assumptions, expect_interrupt=True)
        dog.disarm()
        s.clear_interrupt()
        if answer is None:
            raise SearchLimit(TIME)
        return answer

    def models(self, rules: Cnf, own: Sequence[Sequence[int]] = (),
               deadline: Deadline | None = None, project: int | None = None
               ) -> Iterator[list[int]]:
        """Every model of ``rules`` + ``own``, lazily, each differing from the ones before on
        the variables 1..``project`` (default: the rules' variables). Raises
        :class:`SearchLimit` when the deadline stops a solve."""
        if rules is not self._rules or self._solver is None:
            self._load(rules)
        s = self._solver
        top_own = max((abs(lit) for clause in own for lit in clause), default=0)
        guard = self._top = max(self._top, top_own) + 1
        units = [c[0] for c in own if len(c) == 1]
        fixed = {abs(u) for u in units}
        project = rules.num_vars if project is None else project
        try:
            for clause in own:
                if len(clause) > 1:
                    s.add_clause([-guard, *clause])
            assumptions = [*units, guard]
            while self._solve(assumptions, deadline):
                model = s.get_model()
                yield model
                block = [-lit for lit in model[:project] if abs(lit) not in fixed]
                if not block:
                    return  # every projected variable is fixed: no other solution
                s.add_clause([-guard, *block])
        finally:
            s.add_clause([-guard])  # retire this formula's clauses

    def count(self, rules: Cnf, own: Sequence[Sequence[int]] = (), limit: int = 2,
              deadline: Deadline | None = None, project: int | None = None) -> int:
        """Solutions of ``rules`` + ``own`` up to ``limit`` (``limit`` means "at least")."""
        n = 0
        if limit < 1:
            return 0
        for _ in self.models(rules, own, deadline, project):
            n += 1
            if n >= limit:
                break
        return n

    def close(self) -> None:
        if self._solver is not None:
            self._solver.delete()
        self._solver, self._rules = None, None

    def __enter__(self) -> SatCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@lru_cache(maxsize=8)
def layout_rules(layout: Layout) -> Cnf:
    """The layout's rules under :func:`encoding_for`, one object per layout (so a counter
    keeps them loaded across puzzles)."""
    encoding = encoding_for(layout)
    return Cnf(rules_num_vars(layout, encoding), rules_clauses(layout, encoding))


def puzzle_solutions(counter: SatCounter, puzzle: Puzzle, deadline: Deadline | None = None
                     ) -> Iterator[tuple[int, ...]]:
    """The solutions of a puzzle by SAT, as boards (each decoded and checked), lazily."""
    encoding = encoding_for(puzzle.layout)
    own = instance_clauses(puzzle, encoding)
    project = puzzle.ncells * puzzle.domain
    for model in counter.models(layout_rules(puzzle.layout), own, deadline, project):
        board = decode_model(model, puzzle, encoding)
        problems = puzzle.check_solution(board)
        if problems:  # never count a board that is not a solution
            raise AssertionError(f"SAT counting decoded a non-solution: {problems[:3]}")
        yield board
