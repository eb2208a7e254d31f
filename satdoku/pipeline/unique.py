"""Uniqueness stage: does each puzzle of a shard have exactly one solution?

MiniSat with the shard's rules loaded once: solve under the givens (as assumptions), then solve
again with the found solution blocked by a clause guarded by a fresh activation literal, so the
block applies to this puzzle only and is retired afterwards. Output TSV: id, line, solutions
(0, 1 or 2 meaning "two or more"), verdict (none / unique / several / unknown / invalid), seconds.
"""

from __future__ import annotations

import time
from pathlib import Path

from satdoku.solvers.reference import Watchdog
from satdoku.stagefiles.bundles import read_bundle
from satdoku.stagefiles.tables import UNIQUE_COLUMNS, write_tsv

VERDICT = {0: "none", 1: "unique", 2: "several"}


class _Counter:
    """Counts solutions of rules + givens up to two, one MiniSat per rules block."""

    def __init__(self, time_limit: float | None) -> None:
        self.time_limit = time_limit
        self.solver = None
        self.rules = None
        self.next_var = 0
        self.watchdog: Watchdog | None = None  # one deadline thread, re-armed per solve

    def _load(self, rules) -> None:
        from pysat.solvers import Solver

        if self.solver is not None:
            self.solver.delete()
        self.solver = Solver(name="minisat22", bootstrap_with=rules.clauses)
        self.rules, self.next_var = rules, rules.num_vars

    def _solve(self, assumptions: list[int]) -> bool | None:
        assert self.solver is not None
        if self.time_limit is not None:
            self.watchdog = self.watchdog or Watchdog()
            self.watchdog.arm(self.solver, self.time_limit)
        answer = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        if self.watchdog is not None:
            self.watchdog.disarm()
            self.solver.clear_interrupt()
        return answer

    def count(self, rules, own: list[list[int]]) -> int | None:
        """0, 1 or 2 (two or more) solutions; None when the time limit stopped the search."""
        if rules is not self.rules:
            self._load(rules)
        assert self.solver is not None
        units = [c[0] for c in own if len(c) == 1]
        guard = self.next_var = self.next_var + 1
        for clause in own:  # non-unit instance clauses (e.g. Futoshiki signs): guarded too
            if len(clause) > 1:
                self.solver.add_clause([-guard, *clause])
        first = self._solve([*units, guard])
        if first is not True:
            self.solver.add_clause([-guard])
            return None if first is None else 0
        given = {abs(u) for u in units}
        model = self.solver.get_model()
        block = [-v for v in model if v > 0 and v not in given]
        self.solver.add_clause([-guard, *block])
        second = self._solve([*units, guard])
        self.solver.add_clause([-guard])  # retire this puzzle's clauses
        if second is None:
            return None
        return 2 if second else 1


def unique_shard(bundle: str | Path, out: str | Path,
                 time_limit: float | None = 10.0) -> dict[str, int]:
    """Write the uniqueness TSV of one shard; returns verdict counts."""
    counter = _Counter(time_limit)
    rows, counts = [], {}
    for entry in read_bundle(bundle):
        t0 = time.perf_counter()
        line = entry.header.get("line", "")
        if entry.invalid is not None:
            n, verdict = None, "invalid"
        elif entry.rules is None:  # no shared rules (e.g. simplified): a private block
            n = counter.count(entry.cnf, [])
            verdict = "unknown" if n is None else VERDICT[n]
        else:
            n = counter.count(entry.rules, entry.own)
            verdict = "unknown" if n is None else VERDICT[n]
        rows.append({"id": entry.id, "line": line, "solutions": "" if n is None else n,
                     "verdict": verdict, "seconds": f"{time.perf_counter() - t0:.6f}"})
        counts[verdict] = counts.get(verdict, 0) + 1
    write_tsv(rows, out, UNIQUE_COLUMNS)
    return counts
