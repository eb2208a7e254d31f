"""Checking DRUP proofs (drat-trim text format) by reverse unit propagation.

A proof is a sequence of lines ``l1 l2 ... 0`` (add a lemma) and ``d l1 l2 ... 0`` (delete a
clause), ``c`` comment lines allowed. Each added lemma must follow from the formula plus the
earlier lemmas by *reverse unit propagation* (RUP): assigning the negation of every literal of
the lemma and propagating units must produce a conflict. The proof refutes the formula when the
empty clause is derived (or unit propagation alone already fails at the top level).

The checker works forward with two watched literals: top-level units stay assigned, each
lemma is checked by temporarily assigning its negation. Deletions only speed things up: a
deleted clause stops being used, except that literals it already implied at the top level stay
(they are implied by the formula, so keeping them is sound, as drat-trim does for units).
RAT steps (new variables, blocked clauses) are not accepted: our solvers only write RUP steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from satdoku.cnf.formula import Cnf

TRUE, FALSE, UNSET = 1, -1, 0


class _Checker:
    """Clause database with watches, a persistent top-level trail and temporary RUP checks."""

    def __init__(self, num_vars: int) -> None:
        self.n = num_vars
        self.value = [UNSET] * (2 * num_vars + 1)  # value[lit], lit in ±1..±n (negative index)
        self.trail: list[int] = []
        self.qhead = 0
        self.clauses: list[list[int]] = []
        self.alive: list[bool] = []
        self.watches: list[list[int]] = [[] for _ in range(2 * num_vars + 1)]
        self.index: dict[tuple[int, ...], list[int]] = {}
        self.inconsistent = False  # top-level propagation found a conflict

    def assign(self, lit: int) -> None:
        self.value[lit] = TRUE
        self.value[-lit] = FALSE
        self.trail.append(lit)

    def propagate(self) -> bool:
        """Unit propagation from ``qhead``; True when a conflict is found."""
        value, watches, clauses, alive, trail = (
            self.value,
            self.watches,
            self.clauses,
            self.alive,
            self.trail,
        )
        while self.qhead < len(trail):
            false_lit = -trail[self.qhead]
            self.qhead += 1
            watching = watches[false_lit]
            watches[false_lit] = keep = []
            for k, ci in enumerate(watching):
                if not alive[ci]:
                    continue  # deleted clause: drop the watch lazily
                clause = clauses[ci]
                if clause[0] == false_lit:
                    clause[0], clause[1] = clause[1], false_lit
                other = clause[0]
                if value[other] == TRUE:
                    keep.append(ci)
                    continue
                for pos in range(2, len(clause)):
                    lit = clause[pos]
                    if value[lit] != FALSE:
                        clause[1], clause[pos] = lit, false_lit
                        watches[lit].append(ci)
                        break
                else:
                    keep.append(ci)
                    if value[other] == FALSE:
                        keep.extend(watching[k + 1 :])
                        return True
                    self.assign(other)
        return False

    def add(self, lits: list[int]) -> None:
        """Add a clause (formula clause or checked lemma) and propagate at the top level."""
        clause = list(dict.fromkeys(lits))
        if any(-lit in clause for lit in clause):
            return
        value = self.value
        # watch non-false literals first so the watch invariant holds at the top level
        clause.sort(key=lambda lit: value[lit] == FALSE)
        ci = len(self.clauses)
        self.clauses.append(clause)
        self.alive.append(True)
        self.index.setdefault(tuple(sorted(clause)), []).append(ci)
        if self.inconsistent:
            return
        if not clause or value[clause[0]] == FALSE:
            self.inconsistent = True
            return
        if len(clause) == 1 or value[clause[1]] == FALSE:
            if value[clause[0]] == UNSET:
                self.assign(clause[0])
                if self.propagate():
                    self.inconsistent = True
            if len(clause) == 1:
                return
        self.watches[clause[0]].append(ci)
        self.watches[clause[1]].append(ci)

    def delete(self, lits: list[int]) -> bool:
        """Forget one copy of a clause; False when no such clause is present."""
        key = tuple(sorted(dict.fromkeys(lits)))
        ids = self.index.get(key)
        if not ids:
            return False
        self.alive[ids.pop()] = False
        return True

    def is_rup(self, lits: list[int]) -> bool:
        """Does assigning the negation of ``lits`` lead to a conflict by unit propagation?"""
        if self.inconsistent:
            return True
        value = self.value
        mark = len(self.trail)
        conflict = False
        for lit in lits:
            if value[lit] == TRUE:
                conflict = True
                break
            if value[lit] == UNSET:
                self.assign(-lit)
        if not conflict:
            conflict = self.propagate()
        for lit in self.trail[mark:]:
            value[lit] = value[-lit] = UNSET
        del self.trail[mark:]
        self.qhead = mark
        return conflict


def _proof_lines(proof: str | Path | Iterable[str]) -> Iterator[str]:
    if isinstance(proof, str | Path):
        from satdoku.cnf.dimacs import open_text

        with open_text(proof) as fh:
            yield from fh
    else:
        yield from proof


def check_proof(cnf: Cnf, proof: str | Path | Iterable[str]) -> tuple[bool, str]:
    """Check that ``proof`` (a DRUP file path or its lines) refutes ``cnf``: (ok, message)."""
    checker = _Checker(cnf.num_vars)
    n = cnf.num_vars
    for clause in cnf.clauses:
        checker.add(list(clause))
    lemmas = deletions = 0
    for lineno, raw in enumerate(_proof_lines(proof), 1):
        line = raw.strip()
        if not line or line[0] == "c":
            continue
        deleting = line[0] == "d"
        try:
            nums = [int(t) for t in (line[1:] if deleting else line).split()]
        except ValueError:
            return False, f"proof line {lineno}: not a clause: {line[:60]!r}"
        if not nums or nums[-1] != 0 or 0 in nums[:-1]:
            return False, f"proof line {lineno}: clause must end with a single 0"
        lits = nums[:-1]
        if any(not 0 < abs(lit) <= n for lit in lits):
            return False, f"proof line {lineno}: literal outside 1..{n} (RAT steps unsupported)"
        if deleting:
            deletions += checker.delete(lits)
            continue
        if not checker.is_rup(lits):
            return False, f"proof line {lineno}: lemma {line[:60]!r} is not RUP"
        lemmas += 1
        checker.add(lits)
        if not lits or checker.inconsistent:
            return True, f"refutation verified: {lemmas} lemmas, {deletions} deletions"
    if checker.inconsistent or checker.propagate():
        return True, f"refutation verified (no empty clause line): {lemmas} lemmas"
    return False, f"proof does not derive the empty clause ({lemmas} lemmas checked)"
