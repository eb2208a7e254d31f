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

from satdoku.solvers.base import ERROR, UNSAT, Deadline, Result

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

    writes_proofs = True  # the pipeline passes proof_path and checks the proof of every UNSAT

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
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result:
        from satdoku.solvers.dpll import Dpll

        time_limit = deadline.remaining()
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


class CdclSolver:
    """The numba-compiled CDCL (:mod:`satdoku.solvers.cdcl`) as a CnfSolver.

    The kernel is loaded (compiled the first time on a machine) when the solver is made, so
    no instance pays for it. ``pure=True`` runs the same kernel as plain Python (slow).
    """

    writes_proofs = True

    def __init__(
        self,
        restarts: str = "glucose",
        phase: str = "negative",
        decay: float = 0.95,
        pure: bool = False,
        max_conflicts: int | None = None,
        name: str | None = None,
    ) -> None:
        from satdoku.solvers.cdcl import PHASES, RESTARTS

        if restarts not in RESTARTS:
            raise ValueError(f"unknown restart policy {restarts!r}; choose from {list(RESTARTS)}")
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; choose from {PHASES}")
        self.options = {
            "restarts": restarts,
            "phase": phase,
            "decay": decay,
            "pure": pure,
            "max_conflicts": max_conflicts,
        }
        self.name = name or "cdcl"
        self.version = code_version("cdcl", self.options)
        self._warm = False

    def _kernel_options(self) -> dict[str, Any]:
        opts = self.options
        return {k: opts[k] for k in ("restarts", "phase", "decay", "pure")}

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result:
        from satdoku.cnf.dimacs_fast import clauses_to_array

        time_limit = deadline.remaining()
        start = time.perf_counter()
        lits = clauses_to_array(cnf.clauses)
        return self._solve(cnf.num_vars, lits, time_limit, proof_path, start)

    def solve_dimacs(
        self, path: str, time_limit: float | None = None, proof_path: str | None = None
    ) -> Result:
        """Decide a DIMACS file directly (vectorised reader; no Python clause lists)."""
        from satdoku.cnf.dimacs_fast import read_dimacs_arrays

        start = time.perf_counter()
        arrays = read_dimacs_arrays(path)
        return self._solve(arrays.num_vars, arrays.lits, time_limit, proof_path, start)

    def _solve(
        self,
        num_vars: int,
        lits: Any,
        time_limit: float | None,
        proof_path: str | None,
        start: float,
    ) -> Result:
        from satdoku.solvers.cdcl import Cdcl, warm_up

        if not self.options["pure"] and not self._warm:
            load_start = time.perf_counter()
            warm_up()
            start += time.perf_counter() - load_start  # compiling is not the instance's time
            self._warm = True
        built = start
        try:
            solver = Cdcl(num_vars, lits, proof=proof_path is not None, **self._kernel_options())
            built = time.perf_counter()
            remaining = None if time_limit is None else max(0.0, time_limit - (built - start))
            status, model = solver.solve(remaining, self.options["max_conflicts"])
            end = time.perf_counter()
            if proof_path is not None and status == UNSAT:
                solver.write_proof(proof_path)
        except Exception as exc:  # a solver bug must not take the whole shard down
            return Result(
                ERROR,
                message=f"{type(exc).__name__}: {exc}",
                total_seconds=time.perf_counter() - start,
            )
        return Result(
            status,
            model=model,
            stats=solver.stats,
            solve_seconds=end - built,
            total_seconds=end - start,
            proof=proof_path if (status == UNSAT and proof_path) else None,
        )


def make_cdcl(**options: Any) -> CdclSolver:
    """Factory used by the registry: ``make_cdcl(restarts="luby")`` etc."""
    return CdclSolver(**options)
