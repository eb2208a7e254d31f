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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Deadline

RESTARTS = {"none": 0, "luby": 1, "glucose": 2}
PHASES = ("negative", "positive")
_PURE_KERNEL: ModuleType | None = None
_WARM = False
_NEVER = 2**62
#: Loading works in chunks of about this many literals (a few ms each), the clock read between.
_LOAD_CHUNK = 1 << 18
#: Search runs in slices between two looks at the clock; each slice's propagation budget is
#: rescaled from the last slice's measured duration to last about _SLICE_SECONDS.
_SLICE_SECONDS = 0.01
_FIRST_SLICE_PROPS = 20_000


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


def _chunks(formula: np.ndarray | Sequence[Sequence[int]]) -> Iterator[np.ndarray]:
    """Flat 0-terminated int32 chunks of whole clauses, about ``_LOAD_CHUNK`` literals each,
    from a flat array or from a list of clauses (converted chunk by chunk)."""
    from satdoku.cnf.dimacs_fast import clauses_to_array

    if isinstance(formula, np.ndarray):
        lits = np.ascontiguousarray(formula, dtype=np.int32)
        if lits.shape[0] <= _LOAD_CHUNK:
            yield lits
            return
        ends = np.flatnonzero(lits == 0) + 1  # one past each clause's terminating 0
        start = 0
        while start < lits.shape[0]:
            k = int(np.searchsorted(ends, start + _LOAD_CHUNK, side="right"))
            stop = int(ends[k - 1]) if k > 0 and ends[k - 1] > start else int(ends[k])
            yield lits[start:stop]
            start = stop
        return
    step = max(1, _LOAD_CHUNK // 8)  # clauses per chunk (Sudoku clauses are short)
    for first in range(0, len(formula), step):
        yield clauses_to_array(list(formula[first : first + step]))


class Cdcl:
    """One CDCL search over a formula: a flat 0-terminated int32 array of DIMACS literals, or a
    list of clauses.

    Loading works in chunks; with a ``deadline`` the clock is read between chunks and, once it
    has passed, loading stops and :meth:`solve` answers TIMEOUT (millions of clauses take a
    noticeable fraction of a second even compiled)."""

    def __init__(
        self,
        num_vars: int,
        formula: np.ndarray | Sequence[Sequence[int]],
        restarts: str = "glucose",
        phase: str = "negative",
        decay: float = 0.95,
        proof: bool = False,
        pure: bool = False,
        reduce_first: int | None = None,
        reduce_inc: int | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        if restarts not in RESTARTS:
            raise ValueError(f"unknown restart policy {restarts!r}; choose from {list(RESTARTS)}")
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; choose from {PHASES}")
        k = self.k = load_kernel(pure)
        n = self.n = num_vars
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
        self.status = ""
        self._load(formula, deadline)

    def _load(
        self, formula: np.ndarray | Sequence[Sequence[int]], deadline: Deadline | None
    ) -> None:
        k, S, n = self.k, self.S, self.n
        size = formula.shape[0] if isinstance(formula, np.ndarray) else 3 * len(formula)
        arena = np.zeros(size + size // 2 + 1024, dtype=np.int32)
        mark = np.zeros(n, dtype=np.int64)
        count = np.zeros(2 * n, dtype=np.int64)
        tmp = np.zeros(n + 1, dtype=np.int32)
        for chunk in _chunks(formula):
            if deadline is not None and deadline.expired():
                self.status = TIMEOUT
                return
            arena = k.load_clauses(
                chunk, arena, self.lval, self.level, self.reason, self.trail, S, mark, count, tmp
            )
        wpool = k.layout_watches(count, self.woff, self.wlen, self.wcap, np.zeros(16, np.int32), S)
        cref = 0
        while cref < S[k.S_ATOP]:
            if deadline is not None and deadline.expired():
                self.status = TIMEOUT
                return
            cref, wpool = k.attach_clauses(
                arena, cref, cref + 2 * _LOAD_CHUNK, wpool, self.woff, self.wlen, self.wcap, S
            )
        self.arena, self.wpool = arena, wpool
        if S[k.S_STATUS] == k.UNSAT:  # the empty clause follows from the input by propagation
            self.status = UNSAT
            if S[k.S_PROOF]:
                self.proof = k.proof_log(self.proof, S, 1, tmp, 0)

    def solve(
        self,
        deadline: Deadline | None = None,
        max_conflicts: int | None = None,
        assumptions: Sequence[int] = (),
    ) -> tuple[str, list[int] | None]:
        """(SAT, model) / (UNSAT, None) / (TIMEOUT, None); the model lists every variable.

        ``assumptions`` (DIMACS literals) hold for this call only: they are the first
        decisions, so UNSAT means the formula implies their negation, and everything learnt
        stays valid for later calls under other assumptions. ``max_conflicts`` counts this
        call's conflicts. With a deadline the search runs in slices of about
        ``_SLICE_SECONDS`` (each slice's propagation budget rescaled from the last one's
        measured time), the clock read in between."""
        if self.status == TIMEOUT:  # loading was cut short: the formula is incomplete
            return TIMEOUT, None
        if self.status == UNSAT or (self.status == SAT and not assumptions):
            return self.status, self._model() if self.status == SAT else None
        k, S = self.k, self.S
        assumps = self._assumptions(assumptions)
        if assumps is None:  # an assumption and its negation
            return UNSAT, None
        if deadline is not None and deadline.at is None:
            deadline = None
        k.backtrack(0, self.lval, self.reason, self.trail, self.trail_lim, self.phase,
                    self.heap, self.hpos, self.act, S)  # fmt: skip
        first_conflict = int(S[k.S_CONFLICTS])
        budget = _FIRST_SLICE_PROPS if deadline is not None else _NEVER
        while True:
            conflicts = _NEVER
            if max_conflicts is not None:
                conflicts = max_conflicts - (int(S[k.S_CONFLICTS]) - first_conflict)
                if conflicts <= 0:
                    return TIMEOUT, None
            if deadline is not None and deadline.expired():
                return TIMEOUT, None
            began = time.perf_counter()
            status, self.arena, self.wpool, self.learnts, self.proof = k.search(
                self.arena, self.wpool, self.woff, self.wlen, self.wcap, self.lval, self.level,
                self.reason, self.trail, self.trail_lim, self.phase, self.act, self.heap,
                self.hpos, self.seen, self.learnts, self.proof, self.lbdq, self.out, self.stack,
                self.toclear, self.stamp, S, self.F, assumps, assumps.shape[0], conflicts, budget,
            )  # fmt: skip
            if status == k.SAT:
                if not assumptions:
                    self.status = SAT
                return SAT, self._model()
            if status == k.UNSAT:
                self.status = UNSAT
                return UNSAT, None
            if status == k.UNSAT_ASSUMED:
                return UNSAT, None
            if deadline is not None:
                took = time.perf_counter() - began
                scale = 4.0 if took <= 0 else min(4.0, max(0.25, _SLICE_SECONDS / took))
                budget = max(1000, int(budget * scale))

    def _assumptions(self, assumptions: Sequence[int]) -> np.ndarray | None:
        """Internal literals of the distinct assumptions; None if two contradict."""
        seen: dict[int, int] = {}
        for d in assumptions:
            if not 0 < abs(d) <= self.n:
                raise ValueError(f"assumption {d} outside variables 1..{self.n}")
            if seen.setdefault(abs(d), d) != d:
                return None
        return np.array([2 * (abs(d) - 1) + (d < 0) for d in seen.values()], dtype=np.int32)

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
    deadline = Deadline(time_limit, start=t0)
    arrays = read_dimacs_arrays(path)
    t1 = time.perf_counter()
    solver = Cdcl(arrays.num_vars, arrays.lits, proof=proof_path is not None, deadline=deadline,
                  **options)  # fmt: skip
    t2 = time.perf_counter()
    status, model = solver.solve(deadline)
    t3 = time.perf_counter()
    if proof_path is not None and status == UNSAT:
        solver.write_proof(proof_path)
    times = {"kernel_load": t0 - tw, "parse": t1 - t0, "build": t2 - t1, "solve": t3 - t2}
    return FileResult(status, model, solver.stats, times)
