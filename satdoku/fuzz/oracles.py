"""Oracles independent of the code under test: brute force, python-sat's MiniSat and CaDiCaL,
a model check written here, and drat-trim when it is there.

- :func:`brute_force`: every assignment of the variables that occur (up to
  :data:`BRUTE_VARS`), vectorised with numpy: exact, and sharing nothing with any solver;
- :class:`Reference`: a python-sat solver (``minisat22`` by default, or ``cadical195``, any
  python-sat name) holding the formula of an API sequence, clauses added as they come;
- :func:`answer`: the expected answer of a formula under assumptions: brute force where it
  can, cross-checked against the reference solver, else the reference alone;
- :func:`model_problem`: why a model is not a model of a formula under assumptions (a
  variable both true and false, a false assumption, a clause left unsatisfied), or None;
- :func:`drat_trim`: drat-trim's verdict on a proof, when a drat-trim binary is given (the
  ``--drat-trim`` option or ``SATDOKU_DRAT_TRIM``); tests and CI never need it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from typing import Any

from satdoku.cnf.dimacs import format_dimacs
from satdoku.cnf.formula import Cnf

#: brute force decides formulas with at most this many distinct variables (2^14 assignments)
BRUTE_VARS = 14
#: where the campaign finds drat-trim (a path), when no option names it
DRAT_TRIM_ENV = "SATDOKU_DRAT_TRIM"


class OracleError(RuntimeError):
    """The oracles disagree with each other: the harness, not the solver, is in doubt."""


def brute_force(clauses: Sequence[Sequence[int]], assumptions: Sequence[int] = (),
                num_vars: int | None = None) -> list[int] | None:
    """A model (DIMACS literals of variables ``1..num_vars``; variables that occur nowhere
    false) of the clauses under the assumptions, or None when there is none. At most
    :data:`BRUTE_VARS` distinct variables may occur (ValueError otherwise)."""
    import numpy as np

    used = sorted({abs(x) for c in clauses for x in c} | {abs(x) for x in assumptions})
    if len(used) > BRUTE_VARS:
        raise ValueError(f"{len(used)} variables: brute force stops at {BRUTE_VARS}")
    bit = {v: 1 << i for i, v in enumerate(used)}
    every = np.arange(1 << len(used), dtype=np.int64)
    alive = np.ones(len(every), dtype=bool)
    for clause in [*clauses, *([x] for x in assumptions)]:
        pos = sum({bit[x] for x in clause if x > 0})
        neg = sum({bit[-x] for x in clause if x < 0})
        alive &= ((every & pos) != 0) | ((~every & neg) != 0)
    hits = np.flatnonzero(alive)
    if not len(hits):
        return None
    chosen = int(every[hits[0]])
    top = max([num_vars or 0, *used])
    true = {v for v in used if chosen & bit[v]}
    return [v if v in true else -v for v in range(1, top + 1)]


class Reference:
    """A python-sat solver holding a formula that grows (an API sequence's reference)."""

    def __init__(self, clauses: Sequence[Sequence[int]] = (), backend: str = "minisat22"
                 ) -> None:
        from pysat.solvers import Solver

        self.backend = backend
        self.top = 0
        self._solver: Any = Solver(name=backend)
        self.add(clauses)

    def add(self, clauses: Sequence[Sequence[int]]) -> None:
        for c in clauses:
            self.top = max([self.top, *(abs(x) for x in c)])
            self._solver.add_clause([int(x) for x in c])

    def solve(self, assumptions: Sequence[int] = ()) -> bool:
        """Satisfiable under ``assumptions``? (Variables new to the solver are created.)"""
        top = max([0, *(abs(x) for x in assumptions)])
        if top > self.top:  # a variable no clause holds: make it known to the solver
            self._solver.add_clause([top, -top])
            self.top = top
        return bool(self._solver.solve(assumptions=[int(x) for x in assumptions]))

    def close(self) -> None:
        self._solver.delete()

    def __enter__(self) -> Reference:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def answer(clauses: Sequence[Sequence[int]], assumptions: Sequence[int] = (),
           reference: Reference | None = None, backend: str = "minisat22") -> bool:
    """Is the formula satisfiable under the assumptions? Brute force and the reference solver
    (``reference``, holding these clauses, or a fresh ``backend``) both answer where brute
    force can; :class:`OracleError` when they differ."""
    own = reference is None
    ref = Reference(clauses, backend) if reference is None else reference
    try:
        expected = ref.solve(assumptions)
    finally:
        if own:
            ref.close()
    used = {abs(x) for c in clauses for x in c} | {abs(x) for x in assumptions}
    if len(used) <= BRUTE_VARS:
        brute = brute_force(clauses, assumptions) is not None
        if brute != expected:
            raise OracleError(f"brute force says {'SAT' if brute else 'UNSAT'}, "
                              f"{ref.backend} the opposite")
    return expected


def unsat_core(clauses: Sequence[Sequence[int]], rounds: int = 3,
               backend: str = "minisat22") -> list[int] | None:
    """Indices of an unsatisfiable subset of the clauses (the reference's core, taken again of
    itself up to ``rounds`` times), or None when the clauses are satisfiable."""
    from pysat.solvers import Solver

    keep = list(range(len(clauses)))
    for _ in range(rounds):
        top = max([0, *(abs(x) for c in clauses for x in c)])
        with Solver(name=backend) as s:
            for k, i in enumerate(keep):
                s.add_clause([*clauses[i], -(top + 1 + k)])
            if s.solve(assumptions=[top + 1 + k for k in range(len(keep))]):
                return None
            core = sorted(keep[x - top - 1] for x in (s.get_core() or []))
        if len(core) == len(keep):
            break
        keep = core
    return keep


def model_problem(clauses: Sequence[Sequence[int]], model: Sequence[int] | None,
                  assumptions: Sequence[int] = (), num_vars: int | None = None) -> str | None:
    """Why ``model`` is not a model of the clauses under the assumptions, or None."""
    if model is None:
        return "SAT without a model"
    true: set[int] = set()
    for x in model:
        if not isinstance(x, int) or x == 0 or (num_vars is not None and abs(x) > num_vars):
            return f"model literal {x!r} is not a literal of variables 1..{num_vars}"
        if -x in true:
            return f"model sets variable {abs(x)} both true and false"
        true.add(x)
    missed = [x for x in assumptions if x not in true]
    if missed:
        return f"model does not keep assumption {missed[0]}"
    for i, clause in enumerate(clauses):
        if not any(x in true for x in clause):
            shown = " ".join(map(str, clause))
            return f"model leaves clause {i + 1} ({shown} 0) unsatisfied"
    return None


def drat_trim_path(given: str | None = None) -> str | None:
    """The drat-trim binary to use: ``given``, else ``$SATDOKU_DRAT_TRIM``, else None."""
    path = given or os.environ.get(DRAT_TRIM_ENV)
    return path if path and os.path.isfile(path) else None


def drat_trim(binary: str, cnf: Cnf, proof: str, workdir: str, seconds: float = 60.0
              ) -> bool | None:
    """drat-trim's verdict on ``proof`` (a file) for ``cnf``: True verified, False rejected,
    None when it could not decide (timeout, crash)."""
    path = os.path.join(workdir, "drat-trim-input.cnf")
    with open(path, "w", encoding="ascii") as fh:
        fh.write(format_dimacs(Cnf(cnf.num_vars, cnf.clauses)))
    try:
        done = subprocess.run([binary, path, proof, "-t", str(int(seconds) + 1)],
                              capture_output=True, text=True, timeout=seconds + 5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if "s VERIFIED" in done.stdout:
        return True
    if "s NOT VERIFIED" in done.stdout:
        return False
    return None
