"""Our own SAT solver behind the pipeline's CnfSolver protocol (both modes: dpll and cdcl).

The registry maps names such as ``dpll``, ``dpll-jw`` or ``cdcl`` to :func:`make_dpll` /
:func:`make_cdcl` plus options. ``version`` hashes the solver's source files and its options, so
editing the solver (or choosing other options) reruns exactly the jobs that used it.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satdoku.solvers.base import ERROR, UNSAT, Result

if TYPE_CHECKING:
    from satdoku.cnf.formula import Cnf

_HERE = Path(__file__).resolve().parent
_SOURCES = {
    "dpll": ("dpll.py",),
    "cdcl": ("cdcl.py", "cdcl_kernel.py"),
}


def code_version(mode: str, options: dict[str, Any]) -> str:
    """A short hash of the mode's source files plus its options."""
    digest = hashlib.sha256(mode.encode())
    for name in _SOURCES[mode]:
        path = _HERE / name
        if path.exists():
            digest.update(path.read_bytes())
    digest.update(json.dumps(options, sort_keys=True, default=str).encode())
    return f"{mode}-{digest.hexdigest()[:12]}"


class DpllSolver:
    """The pure-Python teaching DPLL (:mod:`satdoku.solvers.dpll`) as a CnfSolver."""

    def __init__(
        self,
        heuristic: str = "vsids",
        pure_literals: bool = False,
        seed: int = 0,
        max_decisions: int | None = None,
        name: str | None = None,
    ) -> None:
        from satdoku.solvers.dpll import HEURISTICS

        if heuristic not in HEURISTICS:
            raise ValueError(
                f"unknown heuristic {heuristic!r}; choose from {', '.join(HEURISTICS)}"
            )
        self.options = {
            "heuristic": heuristic,
            "pure_literals": pure_literals,
            "seed": seed,
            "max_decisions": max_decisions,
        }
        self.name = name or ("dpll" if heuristic == "vsids" else f"dpll-{heuristic}")
        self.version = code_version("dpll", self.options)

    def solve_cnf(
        self, cnf: Cnf, time_limit: float | None = None, proof_path: str | None = None
    ) -> Result:
        from satdoku.solvers.dpll import Dpll

        opts = self.options
        start = time.perf_counter()
        proof = open(proof_path, "w", encoding="ascii") if proof_path else None  # noqa: SIM115
        try:
            solver = Dpll(
                cnf.num_vars,
                cnf.clauses,
                opts["heuristic"],
                pure_literals=opts["pure_literals"],
                seed=opts["seed"],
                proof=proof,
            )
            built = time.perf_counter()
            remaining = None if time_limit is None else max(0.0, time_limit - (built - start))
            status, model = solver.solve(remaining, opts["max_decisions"])
        except Exception as exc:  # a solver bug must not take the whole shard down
            return Result(
                ERROR,
                message=f"{type(exc).__name__}: {exc}",
                total_seconds=time.perf_counter() - start,
            )
        finally:
            if proof is not None:
                proof.close()
        end = time.perf_counter()
        stats = solver.stats.as_dict()
        return Result(
            status,
            model=model,
            stats=stats,
            solve_seconds=end - built,
            total_seconds=end - start,
            proof=proof_path if (status == UNSAT and proof_path) else None,
        )


def make_dpll(**options: Any) -> DpllSolver:
    """Factory used by the registry: ``make_dpll(heuristic="jw")`` etc."""
    return DpllSolver(**options)
