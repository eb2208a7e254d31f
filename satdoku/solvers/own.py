"""Our teaching DPLL behind the pipeline's CnfSolver protocol (the CDCL's adapter is
:mod:`satdoku.solvers.cdcl.adapter`).

The registry maps names such as ``dpll`` or ``dpll-jw`` to :func:`make_dpll` plus options; the
registry also holds their capabilities (proofs) and versions. The adapter translates only: the
solve path times the instance, measures its resources and turns exceptions into ERROR.
"""

from __future__ import annotations

import time

from satdoku.cnf.formula import Cnf
from satdoku.solvers.base import Deadline, require_choice
from satdoku.solvers.choices import HEURISTICS
from satdoku.solvers.dpll import PROOF_FORMATS, Dpll, gc_paused
from satdoku.solvers.result import UNSAT, Result

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any


class DpllSolver:
    """The pure-Python teaching DPLL (:mod:`satdoku.solvers.dpll`) as a CnfSolver."""

    def __init__(
        self,
        heuristic: str = "vsids",
        pure_literals: bool = False,
        seed: int = 0,
        max_decisions: int | None = None,
        name: str | None = None,
        proof: str = "lrat",
    ) -> None:
        require_choice("heuristic", heuristic, HEURISTICS)
        require_choice("proof format", proof, PROOF_FORMATS)
        #: the format of the proofs it writes (the solve path checks them in it)
        self.proof_format = proof
        self.options = {
            "heuristic": heuristic,
            "pure_literals": pure_literals,
            "seed": seed,
            "max_decisions": max_decisions,
        }
        self.name = name or ("dpll" if heuristic == "vsids" else f"dpll-{heuristic}")

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result:
        """Decide ``cnf`` before ``deadline`` (loading the clauses included)."""
        opts = self.options
        proof = open(proof_path, "w", encoding="ascii") if proof_path else None  # noqa: SIM115
        try:
            with gc_paused():  # no collection between loading and search either
                solver = Dpll(
                    cnf.num_vars,
                    cnf.clauses,
                    opts["heuristic"],
                    pure_literals=opts["pure_literals"],
                    seed=opts["seed"],
                    proof=proof,
                    deadline=deadline,
                    proof_format=self.proof_format,
                )
                built = time.perf_counter()
                status, model = solver.solve(deadline, opts["max_decisions"])
        finally:
            if proof is not None:
                proof.close()
        return Result(
            status,
            model=model,
            stats=solver.stats.as_dict(),
            solve_seconds=time.perf_counter() - built,
            message="stopped while loading clauses" if solver.timed_out else "",
            proof=proof_path if (status == UNSAT and proof_path) else None,
        )


def make_dpll(**options: Any) -> DpllSolver:
    """Factory used by the registry: ``make_dpll(heuristic="jw")`` etc."""
    return DpllSolver(**options)
