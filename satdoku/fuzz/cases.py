"""What the fuzzer runs: a formula and, for incremental use, a sequence of API calls; and the
reproducer file a failure is written to (DIMACS with the calls and the verdict in ``c`` lines,
so any solver reads it and ``satdoku fuzz --replay FILE`` runs it again).

A :class:`Case` with no calls is one solve of the formula. Its calls, in order, are:

- ``solve``: solve under ``assumptions`` (DIMACS literals; they hold for this call only);
- ``add``: add ``clauses`` for every later call;
- ``limit``: solve under ``assumptions`` with a budget of ``budget`` conflicts (an answer or
  TIMEOUT; a later call resumes);
- ``interrupt``: solve under ``assumptions`` while another thread interrupts it (an answer or
  TIMEOUT).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from satdoku.cnf.dimacs import format_dimacs, read_dimacs
from satdoku.cnf.formula import Cnf

SOLVE, ADD, LIMIT, INTERRUPT = "solve", "add", "limit", "interrupt"
OPS = (SOLVE, ADD, LIMIT, INTERRUPT)
#: the comment prefix of a call in a reproducer file
CALL_TAG = "call"

Clauses = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Call:
    """One call of an API sequence (see the module docstring)."""

    op: str = SOLVE
    assumptions: tuple[int, ...] = ()
    clauses: Clauses = ()
    budget: int = 0

    def text(self) -> str:
        """The call as one line: ``solve 1 -3``, ``limit 5 : 1 -3``, ``add 1 2 0 -3 0``."""
        if self.op == ADD:
            return " ".join([ADD, *(f"{' '.join(map(str, c))} 0".strip() for c in self.clauses)])
        head = [self.op, str(self.budget), ":"] if self.op == LIMIT else [self.op]
        return " ".join([*head, *map(str, self.assumptions)])

    @classmethod
    def parse(cls, text: str) -> Call:
        """The inverse of :meth:`text` (ValueError for anything else)."""
        words = text.split()
        if not words or words[0] not in OPS:
            raise ValueError(f"not a call: {text!r} (calls: {', '.join(OPS)})")
        op, rest = words[0], words[1:]
        if op == ADD:
            clauses, clause = [], []
            for w in rest:
                if int(w) == 0:
                    clauses.append(tuple(clause))
                    clause = []
                else:
                    clause.append(int(w))
            if clause:
                raise ValueError(f"call {text!r}: the last added clause has no 0")
            return cls(ADD, clauses=tuple(clauses))
        if op == LIMIT:
            if len(rest) < 2 or rest[1] != ":":
                raise ValueError(f"call {text!r}: expected 'limit CONFLICTS : LITERALS'")
            return cls(LIMIT, tuple(int(w) for w in rest[2:]), budget=int(rest[0]))
        return cls(op, tuple(int(w) for w in rest))


@dataclass(frozen=True)
class Case:
    """A formula over ``1..num_vars`` (clauses as tuples of DIMACS literals) and the calls made
    on it (none: one plain solve)."""

    num_vars: int
    clauses: Clauses
    calls: tuple[Call, ...] = ()

    @classmethod
    def of(cls, num_vars: int, clauses: Iterable[Sequence[int]],
           calls: Iterable[Call] = ()) -> Case:
        return cls(num_vars, tuple(tuple(c) for c in clauses), tuple(calls))

    def cnf(self, upto: int | None = None) -> Cnf:
        """The formula the solver holds after the first ``upto`` calls (None: all of them):
        the clauses plus every clause added so far."""
        clauses = [list(c) for c in self.clauses]
        for call in self.calls[:upto]:
            clauses.extend(list(c) for c in call.clauses)
        return Cnf(self.num_vars, clauses)

    def size(self) -> int:
        """What shrinking makes smaller: calls, clauses, literals and assumptions."""
        return (len(self.calls) + len(self.clauses) + sum(map(len, self.clauses))
                + sum(len(c.assumptions) + len(c.clauses) + sum(map(len, c.clauses))
                      for c in self.calls))  # fmt: skip

    def fitted(self) -> Case:
        """The case with ``num_vars`` covering every literal it holds (after renumbering or
        when a generator adds variables in calls)."""
        top = max([0, *(abs(x) for c in self.clauses for x in c),
                   *(abs(x) for call in self.calls for x in call.assumptions),
                   *(abs(x) for call in self.calls for c in call.clauses for x in c)])
        return self if top <= self.num_vars else Case(top, self.clauses, self.calls)


def case_text(case: Case, comments: Sequence[str] = ()) -> str:
    """A reproducer file's text: ``c`` comments, one ``c call ...`` line per call, then the
    formula in DIMACS (any solver reads it; the calls are comments)."""
    cnf = case.cnf(0)
    cnf.comments = [*comments, *(f"{CALL_TAG} {call.text()}" for call in case.calls)]
    return format_dimacs(cnf)


def write_case(path: str | Path, case: Case, comments: Sequence[str] = ()) -> None:
    Path(path).write_text(case_text(case, comments), encoding="ascii")


def read_case(path: str | Path) -> Case:
    """A reproducer file (or any DIMACS file: a case without calls). Errors are ValueErrors
    naming the file (the DIMACS reader's, or a bad call line)."""
    cnf = read_dimacs(path)
    calls = []
    for line in cnf.comments:
        words = line.split(maxsplit=1)
        if words and words[0] == CALL_TAG:
            try:
                calls.append(Call.parse(words[1] if len(words) > 1 else ""))
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from None
    return Case.of(cnf.num_vars, cnf.clauses, calls).fitted()


def quoted(argv: Sequence[str]) -> str:
    """An argument list as one shell-safe command line (for the reproducer line)."""
    return shlex.join(argv)


#: What went wrong (a failure's class; shrinking keeps the class)
WRONG_ANSWER = "wrong answer"  # SAT where the oracles say UNSAT, or the reverse
BAD_MODEL = "bad model"  # a model that breaks a clause or an assumption, or is inconsistent
REJECTED_PROOF = "rejected proof"  # an UNSAT proof the checker (or drat-trim) rejects, or none
CRASH = "crash"  # an exception, a signal, a binary that died
MALFORMED = "malformed output"  # no answer, garbage, UNKNOWN before the limit
EXIT_CODE = "exit code"  # an exit code that contradicts the answer
#: a status word of its own run (TIMEOUT, MEMOUT: satdoku.solvers.result) where the reference
#: decided the formula in milliseconds
SLOW_TIMEOUT = "timeout"  # no answer in time
SLOW_MEMOUT = "memout"  # the memory limit
DISAGREEMENT = "disagreement"  # two parts that must agree (checker engines, counters) differ


@dataclass(frozen=True)
class Failure:
    """One failure of one case: its class (``what``), what happened (``detail``) and the call
    of the sequence where it happened (None: a one-shot solve)."""

    what: str
    detail: str
    call: int | None = None

    def line(self) -> str:
        where = f" (call {self.call + 1})" if self.call is not None else ""
        return f"{self.what}{where}: {self.detail}"
