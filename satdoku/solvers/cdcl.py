"""CDCL, the fast mode of our SAT solver: the Python driver around :mod:`cdcl_kernel`.

The kernel (1-UIP learning with recursive minimisation, backjumping, EVSIDS, Luby or
glucose-style restarts, phase saving, LBD-based clause-database reduction) runs over flat int32
arrays compiled with numba. This driver allocates the arrays, loads the clauses, runs the kernel
in slices (so the clock can be checked between them: numba code cannot read it), and turns the
result into a status, a DIMACS model, statistics and a DRUP proof.

``pure=True`` runs the very same kernel source as plain Python (slow, for cross-checks and for
machines without numba). numba compiles once per machine (``cache=True``); :func:`warm_up`
loads the compiled code so the first instance of a process does not pay for it.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from satdoku.solvers.base import SAT, TIMEOUT, UNSAT

RESTARTS = {"none": 0, "luby": 1, "glucose": 2}
PHASES = ("negative", "positive")
_PURE_KERNEL: ModuleType | None = None
_WARM = False
_SLICE_CONFLICTS = 5000
_SLICE_PROPAGATIONS = 2_000_000
_NEVER = 2**62


def load_kernel(pure: bool = False) -> ModuleType:
    """The kernel module: numba-compiled (default) or a pure-Python copy of the same source."""
    global _PURE_KERNEL
    if not pure:
        from satdoku.solvers import cdcl_kernel

        return cdcl_kernel
    if _PURE_KERNEL is None:
        path = Path(__file__).with_name("cdcl_kernel.py")
        spec = importlib.util.spec_from_file_location("satdoku.solvers._cdcl_kernel_pure", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        module.__dict__["_PURE"] = True
        spec.loader.exec_module(module)
        _PURE_KERNEL = module
    return _PURE_KERNEL


def warm_up() -> None:
    """Load (or compile, the first time on a machine) the numba kernel, outside any timing."""
    global _WARM
    if _WARM:
        return
    lits = np.array([1, 2, 0, -1, 2, 0, 1, -2, 0, -1, -2, 3, 0, -3, 1, 0], dtype=np.int32)
    Cdcl(3, lits, proof=True).solve()
    unsat = np.array([1, 2, 0, -1, 2, 0, 1, -2, 0, -1, -2, 0], dtype=np.int32)
    Cdcl(2, unsat, proof=True).solve()
    _WARM = True


class Cdcl:
    """One CDCL search over a formula given as flat 0-terminated int32 DIMACS literals."""

    def __init__(
        self,
        num_vars: int,
        lits: np.ndarray,
        restarts: str = "glucose",
        phase: str = "negative",
        decay: float = 0.95,
        proof: bool = False,
        pure: bool = False,
        reduce_first: int | None = None,
        reduce_inc: int | None = None,
    ) -> None:
        if restarts not in RESTARTS:
            raise ValueError(f"unknown restart policy {restarts!r}; choose from {list(RESTARTS)}")
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; choose from {PHASES}")
        k = self.k = load_kernel(pure)
        n = self.n = num_vars
        lits = np.ascontiguousarray(lits, dtype=np.int32)
        self.S = S = np.zeros(k.S_SIZE, dtype=np.int64)
        self.F = F = np.zeros(k.F_SIZE, dtype=np.float64)
        S[k.S_N] = n
        S[k.S_REDUCE_FIRST] = k.REDUCE_FIRST if reduce_first is None else reduce_first
        S[k.S_REDUCE_INC] = k.REDUCE_INC if reduce_inc is None else reduce_inc
        S[k.S_NEXT_REDUCE] = S[k.S_REDUCE_FIRST]
        S[k.S_RESTART_MODE] = RESTARTS[restarts]
        S[k.S_PROOF] = int(proof)
        F[k.F_VARINC] = 1.0
        F[k.F_DECAY] = decay
        self.lval = np.zeros(2 * n, dtype=np.int8)
        self.level = np.zeros(n, dtype=np.int32)
        self.reason = np.full(n, -1, dtype=np.int32)
        self.trail = np.zeros(n + 1, dtype=np.int32)
        self.trail_lim = np.zeros(n + 1, dtype=np.int32)
        self.phase = np.full(n, 1 if phase == "negative" else 0, dtype=np.int8)
        self.act = np.zeros(n, dtype=np.float64)
        self.heap = np.arange(n, dtype=np.int32)
        self.hpos = np.arange(n, dtype=np.int32)
        S[k.S_HEAPSIZE] = n
        self.seen = np.zeros(n, dtype=np.int8)
        self.learnts = np.zeros(1024, dtype=np.int32)
        self.proof = np.zeros(4096 if proof else 16, dtype=np.int32)
        self.lbdq = np.zeros(k.LBDQ_LEN, dtype=np.float64)
        self.out = np.zeros(n + 1, dtype=np.int32)
        self.stack = np.zeros(n + 1, dtype=np.int32)
        self.toclear = np.zeros(n + 1, dtype=np.int32)
        self.stamp = np.zeros(n + 2, dtype=np.int64)
        self.woff = np.zeros(2 * n, dtype=np.int64)
        self.wlen = np.zeros(2 * n, dtype=np.int32)
        self.wcap = np.zeros(2 * n, dtype=np.int32)
        arena = np.zeros(lits.shape[0] + 3 * (lits.shape[0] // 2 + 1) + 1024, dtype=np.int32)
        wpool = np.zeros(16, dtype=np.int32)
        mark = np.zeros(n, dtype=np.int64)
        tmp = np.zeros(n + 1, dtype=np.int32)
        self.arena, self.wpool, ok = k.load(
            lits, n, arena, wpool, self.woff, self.wlen, self.wcap, self.lval, self.level,
            self.reason, self.trail, S, mark, tmp,
        )  # fmt: skip
        self.status = "" if ok else UNSAT
        if not ok and proof:  # the empty clause follows from the input by unit propagation
            self.proof = k.proof_log(self.proof, S, 1, tmp, 0)

    def solve(
        self, time_limit: float | None = None, max_conflicts: int | None = None
    ) -> tuple[str, list[int] | None]:
        """(SAT, model) / (UNSAT, None) / (TIMEOUT, None); the model lists every variable."""
        if self.status:
            return self.status, self._model() if self.status == SAT else None
        k, S = self.k, self.S
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        sliced = deadline is not None
        while True:
            budget = _SLICE_CONFLICTS if sliced else _NEVER
            if max_conflicts is not None:
                budget = min(budget, max_conflicts - int(S[k.S_CONFLICTS]))
                if budget <= 0:
                    return TIMEOUT, None
            status, self.arena, self.wpool, self.learnts, self.proof = k.search(
                self.arena, self.wpool, self.woff, self.wlen, self.wcap, self.lval, self.level,
                self.reason, self.trail, self.trail_lim, self.phase, self.act, self.heap,
                self.hpos, self.seen, self.learnts, self.proof, self.lbdq, self.out, self.stack,
                self.toclear, self.stamp, S, self.F, budget,
                _SLICE_PROPAGATIONS if sliced else _NEVER,
            )  # fmt: skip
            if status == k.SAT:
                self.status = SAT
                return SAT, self._model()
            if status == k.UNSAT:
                self.status = UNSAT
                return UNSAT, None
            if deadline is not None and time.perf_counter() > deadline:
                return TIMEOUT, None

    def _model(self) -> list[int]:
        positive = self.lval[0::2] == 1
        signs = np.where(positive, 1, -1)
        return (signs * np.arange(1, self.n + 1)).tolist()

    @property
    def stats(self) -> dict[str, int]:
        k, S = self.k, self.S
        return {
            "decisions": int(S[k.S_DECISIONS]),
            "conflicts": int(S[k.S_CONFLICTS]),
            "propagations": int(S[k.S_PROPS]),
            "restarts": int(S[k.S_RESTARTS]),
            "learnt": int(S[k.S_LEARNT]),
            "max_level": int(S[k.S_MAXLEVEL]),
            "deleted": int(S[k.S_DELETED]),
            "reductions": int(S[k.S_REDUCES]),
            "collections": int(S[k.S_COLLECTS]),
            "minimised_literals": int(S[k.S_MINIMISED]),
        }

    def proof_lines(self) -> list[str]:
        """The DRUP proof logged so far, as drat-trim text lines (with newlines)."""
        buf = self.proof[: int(self.S[self.k.S_PTOP])].tolist()
        lines = []
        pos = 0
        while pos < len(buf):
            tag, size = buf[pos], buf[pos + 1]
            lits = " ".join(map(str, buf[pos + 2 : pos + 2 + size]))
            prefix = "d " if tag == 2 else ""
            lines.append(f"{prefix}{lits} 0\n" if lits else f"{prefix}0\n")
            pos += 2 + size
        return lines

    def write_proof(self, path: str | Path) -> None:
        with open(path, "w", encoding="ascii") as fh:
            fh.writelines(self.proof_lines())


@dataclass
class FileResult:
    """What :func:`solve_file` found, with the time of each phase."""

    status: str
    model: list[int] | None
    stats: dict[str, int]
    times: dict[str, float] = field(default_factory=dict)


def solve_file(
    path: str | Path,
    time_limit: float | None = None,
    proof_path: str | None = None,
    **options: Any,
) -> FileResult:
    """Read a DIMACS file with the vectorised reader and decide it with CDCL."""
    from satdoku.cnf.dimacs_fast import read_dimacs_arrays

    tw = time.perf_counter()
    warm_up()
    t0 = time.perf_counter()
    arrays = read_dimacs_arrays(path)
    t1 = time.perf_counter()
    solver = Cdcl(arrays.num_vars, arrays.lits, proof=proof_path is not None, **options)
    t2 = time.perf_counter()
    status, model = solver.solve(time_limit)
    t3 = time.perf_counter()
    if proof_path is not None and status == UNSAT:
        solver.write_proof(proof_path)
    times = {"kernel_load": t0 - tw, "parse": t1 - t0, "build": t2 - t1, "solve": t3 - t2}
    return FileResult(status, model, solver.stats, times)
