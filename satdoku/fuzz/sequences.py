"""Model-based testing of incremental use, in the spirit of CaDiCaL's mobical: one solver
object takes a sequence of calls (:mod:`satdoku.fuzz.cases`: solve under assumptions, add
clauses, solve under a conflict budget, solve while interrupted) and after every call its
answer is held against a model of what it must be: a reference solver holding the same
clauses (:class:`~satdoku.fuzz.oracles.Reference`, cross-checked by brute force on small
formulas).

A :class:`Session` is the thing under test, one per interface:

- :class:`CdclSession`: our :class:`~satdoku.solvers.cdcl.driver.Cdcl` object (either kernel, any
  restart policy and phase, proof logging, small clause-database schedules): every call,
  UNSAT proofs checked against the clauses so far;
- :class:`DpllSession`: our :class:`~satdoku.solvers.dpll.Dpll` object, solved again and
  again, under decision budgets (it takes no assumptions and no new clauses);
- :class:`PathSession`: a configured solver's incremental use through the solve path, as
  the workflow runs ``cdcl-inc`` or ``minisat22-inc``: the clauses are the shard's shared
  rules (loaded once), each call's assumptions the instance's unit clauses, models verified
  and proofs checked by :func:`satdoku.solve.solve` itself; added clauses start new rules (a
  new shard).

:func:`run_sequence` plays a case on a session and returns the first :class:`Failure`.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from satdoku.cnf.drat import check_proof
from satdoku.cnf.encodings import DEFAULT_ENCODING
from satdoku.cnf.formula import Cnf, Formula
from satdoku.cnf.lrat import check_lrat
from satdoku.formats import CnfFile, Record
from satdoku.fuzz.cases import (
    ADD,
    BAD_MODEL,
    CRASH,
    INTERRUPT,
    LIMIT,
    REJECTED_PROOF,
    SOLVE,
    WRONG_ANSWER,
    Call,
    Case,
    Failure,
)
from satdoku.fuzz.oracles import Reference, answer, model_problem
from satdoku.solve import open_solver, solve
from satdoku.solvers.base import Deadline, RunLimits
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.dpll import Dpll
from satdoku.solvers.result import FAILED, SAT, TIMEOUT, UNSAT

#: the time limit of a plain solve through the solve path (small formulas: never reached)
PATH_LIMIT = 60.0


@dataclass
class Reply:
    """A session's answer to one call; ``problem`` is a failure the session itself saw (a
    rejected proof, a failed verification), as (class, detail)."""

    status: str
    model: list[int] | None = None
    problem: tuple[str, str] | None = None


class Session(Protocol):
    """One solver object under a sequence of calls."""

    #: the calls it takes (others are skipped by :func:`fit`)
    ops: frozenset[str]
    #: whether its solve calls take assumptions
    assumptions: bool
    #: seconds a plain solve may take before it answers TIMEOUT (None: it must answer)
    seconds: float | None

    def add(self, clauses: Sequence[Sequence[int]]) -> None: ...

    def solve(self, call: Call) -> Reply: ...

    def close(self) -> None: ...


def fit(case: Case, ops: frozenset[str], assumptions: bool) -> Case:
    """The case with only the calls a session takes (and no assumptions if it takes none)."""
    calls = tuple(c if assumptions else Call(c.op, (), c.clauses, c.budget)
                  for c in case.calls if c.op in ops)  # fmt: skip
    return Case(case.num_vars, case.clauses, calls)


class CdclSession:
    """Our Cdcl object; ``options``: backend, restarts, phase, decay, proof (False, ``drat``
    or ``lrat``), params."""

    ops = frozenset((SOLVE, ADD, LIMIT, INTERRUPT))
    assumptions = True
    seconds = None

    def __init__(self, case: Case, options: Mapping[str, Any], seed: int = 0) -> None:
        self.options = dict(options)
        self.rng = random.Random(seed)
        self.clauses = [list(c) for c in case.clauses]  # grows; the solver keeps its own
        self.solver = Cdcl(case.num_vars, [list(c) for c in case.clauses], **self.options)

    def add(self, clauses: Sequence[Sequence[int]]) -> None:
        self.clauses.extend(list(c) for c in clauses)
        self.solver.add_clauses([list(c) for c in clauses])

    def solve(self, call: Call) -> Reply:
        budget = call.budget if call.op == LIMIT else None
        timer = None
        if call.op == INTERRUPT:  # another thread interrupts the search soon after it starts
            timer = threading.Timer(self.rng.uniform(0.0, 0.002), self.solver.interrupt)
            timer.start()
        try:
            status, model = self.solver.solve(max_conflicts=budget,
                                              assumptions=list(call.assumptions))
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
        problem = None
        if status == UNSAT and self.solver.status == UNSAT and self.options.get("proof"):
            problem = _proof_problem(Cnf(self.solver.n, self.clauses), self.solver.proof_lines(),
                                     self.solver.proof_format)
        return Reply(status, model, problem)

    def close(self) -> None:
        self.solver = None  # type: ignore[assignment]


class DpllSession:
    """Our Dpll object, solved again and again; ``options``: heuristic, pure_literals, seed,
    proof (a proof file is checked after an UNSAT answer). Pure Python and without learning:
    each solve gets ``seconds`` (a TIMEOUT is no failure)."""

    ops = frozenset((SOLVE, LIMIT))
    assumptions = False

    def __init__(self, case: Case, options: Mapping[str, Any], seed: int = 0,
                 seconds: float = 5.0) -> None:
        import io

        opts = dict(options)
        self.proof = io.StringIO() if opts.pop("proof", False) else None
        self.seconds = seconds
        self.cnf = case.cnf(0)
        self.solver = Dpll(case.num_vars, self.cnf.clauses, proof=self.proof, **opts)

    def add(self, clauses: Sequence[Sequence[int]]) -> None:
        raise NotImplementedError("Dpll takes no clauses after construction")

    def solve(self, call: Call) -> Reply:
        budget = call.budget if call.op == LIMIT else None
        status, model = self.solver.solve(Deadline(self.seconds), max_decisions=budget)
        problem = None
        if status == UNSAT and self.proof is not None:
            problem = _proof_problem(self.cnf, self.proof.getvalue().splitlines())
        return Reply(status, model, problem)

    def close(self) -> None:
        self.solver = None  # type: ignore[assignment]


class PathSession:
    """A configured incremental solver through :func:`satdoku.solve.solve`."""

    ops = frozenset((SOLVE, ADD, LIMIT, INTERRUPT))
    assumptions = True

    seconds = None  # it must answer a plain solve (within :data:`PATH_LIMIT`)

    def __init__(self, case: Case, name: str, variants: Mapping[str, Any], workdir: str,
                 seed: int = 0) -> None:
        self.solver = open_solver(name, variants)
        self.rng = random.Random(seed)
        self.workdir = workdir
        self.num_vars = case.num_vars
        self.rules = Cnf(case.num_vars, [list(c) for c in case.clauses])

    def add(self, clauses: Sequence[Sequence[int]]) -> None:  # a new rules object: reloaded
        self.rules = Cnf(self.num_vars, self.rules.clauses + [list(c) for c in clauses])

    def solve(self, call: Call) -> Reply:
        own = [[x] for x in call.assumptions]
        formula = Formula(self.num_vars, own, self.rules)
        record = Record("fuzz", 1, 1, "dimacs",
                        cnf=CnfFile("fuzz.cnf", self.num_vars, len(self.rules.clauses), ""))
        limit = PATH_LIMIT if call.op == SOLVE else self.rng.uniform(1e-4, 5e-3)  # short
        done = solve(record, self.solver, DEFAULT_ENCODING,
                     RunLimits(time_limit=limit, verify_time_limit=PATH_LIMIT), formula=formula,
                     workdir=self.workdir)
        result = done.result
        if done.verified == FAILED:
            return Reply(result.status, result.model, (BAD_MODEL, done.detail))
        if result.status == "ERROR":
            what = REJECTED_PROOF if "proof" in result.message else CRASH
            return Reply(result.status, None, (what, result.message))
        return Reply(result.status, result.model)

    def close(self) -> None:
        self.solver = None  # type: ignore[assignment]


def _proof_problem(cnf: Cnf, lines: list[str], proof_format: str = "drat"
                   ) -> tuple[str, str] | None:
    """A rejected proof's (class, message), or None: LRAT by the LRAT checker (clause ids in
    the order the clauses were given and added), anything else as DRAT."""
    check = check_lrat(cnf, lines) if proof_format == "lrat" else check_proof(cnf, lines)
    return None if check.ok else (REJECTED_PROOF, check.message)


def run_sequence(case: Case, session: Session, backend: str = "minisat22") -> Failure | None:
    """Play ``case`` (its calls; none: one plain solve) on ``session`` and hold every answer
    against the reference: the first failure, or None. A call that raises is a crash."""
    clauses = [list(c) for c in case.clauses]
    with Reference(clauses, backend) as ref:
        for i, call in enumerate(case.calls or (Call(),)):
            try:
                if call.op == ADD:
                    session.add(call.clauses)
                    ref.add(call.clauses)
                    clauses.extend(list(c) for c in call.clauses)
                    continue
                reply = session.solve(call)
            except Exception as exc:  # a solver bug, not a harness one: report it
                return Failure(CRASH, f"{type(exc).__name__}: {exc}", i)
            if reply.problem is not None:
                return Failure(*reply.problem, i)
            if reply.status == TIMEOUT and (call.op in (LIMIT, INTERRUPT) or session.seconds):
                continue  # a budget, an interrupt or the time limit stopped it: nothing to say
            expected = SAT if answer(clauses, call.assumptions, ref) else UNSAT
            if reply.status != expected:
                return Failure(WRONG_ANSWER, f"answered {reply.status}, expected {expected} "
                                             f"under assumptions {list(call.assumptions)}", i)
            if reply.status == SAT:
                bad = model_problem(clauses, reply.model, call.assumptions)
                if bad is not None:
                    return Failure(BAD_MODEL, bad, i)
    return None
