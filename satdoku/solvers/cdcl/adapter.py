"""Our CDCL behind the pipeline's CnfSolver protocol (DPLL's adapter is
:mod:`satdoku.solvers.own`).

The registry maps names such as ``cdcl``, ``cdcl-luby`` or ``cdcl-nosimp`` to
:func:`make_cdcl` plus options; the registry also holds their capabilities (proofs,
incremental) and versions. The adapter translates only: the solve path times the instance,
measures its resources and turns exceptions into ERROR.
"""

from __future__ import annotations

import time

from satdoku.cnf.formula import Cnf
from satdoku.solvers.base import STAT_KEYS, Deadline, require_choice
from satdoku.solvers.cdcl.driver import PHASES, PROOF_FORMATS, RESTARTS, Cdcl, warm_up
from satdoku.solvers.result import UNSAT, Result

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any

#: Incremental cdcl keeps its learnt-clause database small: what it learns under one puzzle's
#: givens seldom helps the next puzzle, and every stale clause slows propagation (measured on
#: forum_hardest / top1465 9x9: 1.1 / 0.32 ms per puzzle with these, 1.8 / 0.44 ms with the
#: one-shot schedule of 2000 + 300k conflicts).
INCREMENTAL_PARAMS = {"reduce_first": 200, "reduce_inc": 50}


class CdclSolver:
    """Our CDCL (:mod:`satdoku.solvers.cdcl.driver`) as a CnfSolver: the C kernel built at install
    time, else its readable Python form (slow; ``pure=True`` asks for it). With
    ``incremental=True`` the solve path calls :meth:`solve_incremental`: a shard's rules are
    loaded once and each puzzle's givens are assumptions. ``simplify`` (default on) runs the
    kernel's preprocessing (after the search's first 2000 conflicts); in incremental mode every
    variable of the rules is frozen (a given may name any of them), so there it only subsumes
    and strengthens.
    """

    def __init__(
        self,
        restarts: str = "mixed",
        phase: str = "negative",
        decay: float = 0.95,
        pure: bool = False,
        max_conflicts: int | None = None,
        incremental: bool = False,
        simplify: bool = True,
        name: str | None = None,
        proof: str = "lrat",
    ) -> None:
        require_choice("restart policy", restarts, RESTARTS)
        require_choice("phase", phase, PHASES)
        require_choice("proof format", proof, PROOF_FORMATS)
        #: the format of the proofs it writes (the solve path checks them in it)
        self.proof_format = proof
        self.options = {
            "restarts": restarts,
            "phase": phase,
            "decay": decay,
            "pure": pure,
            "max_conflicts": max_conflicts,
            "incremental": incremental,
            "simplify": simplify,
        }
        self.name = name or "cdcl"
        self._warm = False
        self._inc: Any = None  # the Cdcl holding the current shard's rules
        self._inc_rules: Cnf | None = None

    #: writes a proof that nobody keeps in the binary format when asked (``binary_proof``):
    #: the solve path's checkers read it without decimal parsing (protocols.py)
    binary_proofs = True

    @property
    def incremental(self) -> bool:
        return bool(self.options["incremental"])

    def solve_incremental(
        self,
        rules: Cnf,
        own: list[list[int]],
        deadline: Deadline,
        proof_path: str | None = None,
        binary_proof: bool = False,
    ) -> Result:
        """Decide rules + own clauses; the rules (the same object for every puzzle of a shard)
        stay loaded across calls and unit own clauses are assumptions, so clauses learnt for
        one puzzle help the next. Statistics are this call's. Other own clauses (or units on
        variables the rules do not have) get a fresh solve, as without incremental mode.

        An UNSAT answer under assumptions has no refutation of its own (its learnt clauses
        are valid, but the empty clause follows only with the assumptions): when
        ``proof_path`` is given the instance is solved again from scratch with proof logging
        (UNSAT puzzles are rare, and the proof is then checked like any other)."""
        if any(len(c) != 1 or abs(c[0]) > rules.num_vars for c in own):
            cnf = Cnf(max([rules.num_vars, *(abs(x) for c in own for x in c)]),
                      rules.clauses + own)  # fmt: skip
            return self.solve_cnf(cnf, deadline, proof_path, binary_proof)
        deadline = self._start(deadline)
        message = "incremental (rules loaded once per shard)"
        try:
            if self._inc_rules is not rules:
                self._inc, self._inc_rules = None, None
                solver = Cdcl(rules.num_vars, rules.clauses, deadline=deadline,
                              params=INCREMENTAL_PARAMS,
                              frozen=range(1, rules.num_vars + 1),
                              **self._kernel_options())  # fmt: skip
                if solver.status == "TIMEOUT":
                    return Result("TIMEOUT", message="stopped while loading the rules")
                self._inc, self._inc_rules = solver, rules
            solver = self._inc
            before = solver.stats
            built = time.perf_counter()
            status, model = solver.solve(deadline, self.options["max_conflicts"],
                                         [c[0] for c in own])  # fmt: skip
            end = time.perf_counter()
        except BaseException:  # a half-used solver is not kept for the next puzzle
            self._inc, self._inc_rules = None, None
            raise
        stats = {key: value - before.get(key, 0) for key, value in solver.stats.items()}
        stats["max_level"] = solver.stats["max_level"]  # a maximum, not a count
        if status == UNSAT and proof_path is not None:
            cnf = Cnf(rules.num_vars, rules.clauses + own)
            again = self.solve_cnf(cnf, deadline, proof_path, binary_proof)
            again.message = "UNSAT under assumptions; solved again from scratch for its proof"
            return again
        return Result(
            status,
            model=model,
            stats=stats,
            solve_seconds=end - built,
            message=message,
        )

    def batch_driver(self, rules: Cnf) -> tuple[Any, ...] | None:
        """What the compiled per-puzzle loop needs to do :meth:`solve_incremental`'s search for
        many puzzles over ``rules``: the compiled kernel holding them, the conflict budget, the
        rules' variables (assumptions must lie within) and the statistics a times row reports.
        None when no kernel holds ``rules`` (or the kernel is the Python one, or the rules alone
        were decided)."""
        solver = self._inc
        if solver is None or self._inc_rules is not rules or solver.backend != "c" or solver.status:
            return None
        budget = self.options["max_conflicts"]
        return ("cdcl", solver.kernel, -1 if budget is None else int(budget), solver.n, STAT_KEYS)

    def searching_target(self) -> Any:
        """The object whose ``interrupt()`` stops the incremental search (Ctrl-C)."""
        return None if self._inc is None else self._inc.kernel

    def _kernel_options(self) -> dict[str, Any]:
        opts = self.options
        return {k: opts[k] for k in ("restarts", "phase", "decay", "pure", "simplify")}

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None,
        binary_proof: bool = False,
    ) -> Result:
        """Decide ``cnf`` before ``deadline`` (converting and loading the clauses included); a
        formula read as a flat literal buffer goes to the kernel as it is. The proof of an
        UNSAT answer goes to ``proof_path``: as text, or with ``binary_proof`` in the binary
        format of the same steps."""
        formula = cnf.lits if cnf.lits is not None else cnf.clauses
        return self._solve(cnf.num_vars, formula, deadline, proof_path, binary_proof)

    def _start(self, deadline: Deadline) -> Deadline:
        """The deadline of an instance: loading the kernel (once per process) is not the
        instance's time, so it moves past
        it (:func:`satdoku.solve.open_solver` calls :meth:`warm_up` before the first instance,
        so no instance pays it there)."""
        if self.options["pure"] or self._warm:
            return deadline
        start = deadline.now()
        self.warm_up()
        return deadline.shifted(deadline.now() - start)

    def warm_up(self) -> None:
        """Load the kernel now, outside every instance's time."""
        if not (self.options["pure"] or self._warm):
            warm_up()
        self._warm = True

    def _solve(
        self,
        num_vars: int,
        formula: Any,
        deadline: Deadline,
        proof_path: str | None,
        binary_proof: bool = False,
    ) -> Result:
        deadline = self._start(deadline)
        solver = Cdcl(num_vars, formula, proof=proof_path is not None and self.proof_format,
                      deadline=deadline, **self._kernel_options())  # fmt: skip
        built = time.perf_counter()
        status, model = solver.solve(deadline, self.options["max_conflicts"])
        end = time.perf_counter()
        if proof_path is not None and status == UNSAT:
            solver.write_proof(proof_path, binary_proof)
        return Result(
            status,
            model=model,
            stats=solver.stats,
            solve_seconds=end - built,
            message="stopped while loading clauses" if solver.status == "TIMEOUT" else "",
            proof=proof_path if (status == UNSAT and proof_path) else None,
        )


def make_cdcl(**options: Any) -> CdclSolver:
    """Factory used by the registry: ``make_cdcl(restarts="luby")`` etc."""
    return CdclSolver(**options)
