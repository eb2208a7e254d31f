"""CDCL, the fast mode of our SAT solver: the Python driver around its kernel.

The kernel (1-UIP learning with recursive minimisation, backjumping, EVSIDS, Luby, glucose or
mixed restarts, phase saving, LBD-based clause-database reduction, assumptions) exists
in one readable source, :mod:`satdoku.solvers.cdcl_kernel` (plain Python over flat integer
arrays), and three runnable forms that make the same decisions in the same order:

* ``c`` — ``satdoku/solvers/_cdcl.c``, a line-by-line C translation built at install time
  (``setup.py``; module :mod:`satdoku.solvers._cdcl`): no numba or numpy to import, reads
  Python clause lists directly, reads the clock itself, releases the GIL while searching;
* ``numba`` — the reference source compiled by numba (``cache=True``: once per machine); the
  driver runs it in time slices so the clock can be read between them;
* ``python`` — the reference source run as plain Python (slow; cross-checks, and machines with
  neither compiler nor numba).

``backend="auto"`` takes the first available (environment variable ``SATDOKU_CDCL_BACKEND``
overrides). This driver loads the clauses, runs the kernel before a :class:`Deadline`, and
turns the result into a status, a DIMACS model, statistics and a DRUP proof.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Deadline
from satdoku.solvers.cdcl_params import P_LBDQ_LEN, P_REDUCE_FIRST, P_SWITCH, P_TRAILQ_LEN

if TYPE_CHECKING:
    import numpy as np

#: Restart policies: none; Luby (unit 100 conflicts); glucose (recent LBDs against the
#: average, with blocking); mixed (default): focused glucose phases and stable Luby phases
#: alternating, each phase longer than the last (robust on random and on structured formulas)
RESTARTS = {"none": 0, "luby": 1, "glucose": 2, "mixed": 3}
PHASES = ("negative", "positive")
BACKENDS = ("auto", "c", "numba", "python")
_PURE_KERNEL: ModuleType | None = None
_WARM: set[str] = set()
_NEVER = 2**62
#: Loading works in chunks of about this many literals (a few ms each), the clock read between.
_LOAD_CHUNK = 1 << 18
#: Search runs in slices between two looks at the clock; each slice's propagation budget is
#: rescaled from the last slice's measured duration to last about _SLICE_SECONDS.
_SLICE_SECONDS = 0.01
_FIRST_SLICE_PROPS = 20_000


def native() -> ModuleType | None:
    """The compiled C kernel module, or None when it was not built."""
    try:
        from satdoku.solvers import _cdcl  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _cdcl


def numba_available() -> bool:
    return importlib.util.find_spec("numba") is not None


def choose_backend(backend: str = "auto", pure: bool = False) -> str:
    """The backend that will run: ``pure`` forces ``python``; ``auto`` picks c, else numba,
    else python (``SATDOKU_CDCL_BACKEND`` overrides ``auto``). An explicit backend that is
    not available is an error, not a silent substitute."""
    if pure:
        return "python"
    if backend == "auto":
        backend = os.environ.get("SATDOKU_CDCL_BACKEND", "auto")
    if backend not in BACKENDS:
        raise ValueError(f"unknown cdcl backend {backend!r}; choose from {BACKENDS}")
    if backend == "auto":
        if native() is not None:
            return "c"
        return "numba" if numba_available() else "python"
    if backend == "c" and native() is None:
        raise ValueError("the compiled cdcl kernel is not built (run `make install`)")
    if backend == "numba" and not numba_available():
        raise ValueError("numba is not installed")
    return backend


def load_kernel(pure: bool = False) -> ModuleType:
    """The reference kernel module: numba-compiled (unless numba is missing or
    ``SATDOKU_PURE_PYTHON=1``) or, with ``pure=True``, a plain-Python copy of the same source."""
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


def warm_up(backend: str = "auto") -> None:
    """Load the kernel of ``backend`` (for numba: compile it, the first time on a machine)
    outside any timing."""
    chosen = choose_backend(backend)
    if chosen in _WARM:
        return
    if chosen == "c":  # nothing to compile: importing the module was all
        _WARM.add(chosen)
        return
    for formula, num_vars in (([[1, 2], [-1, 2], [1, -2], [-1, -2, 3], [-3, 1]], 3),
                              ([[1, 2], [-1, 2], [1, -2], [-1, -2]], 2)):  # fmt: skip
        Cdcl(num_vars, formula, proof=True, backend=chosen).solve(assumptions=[1])
    _WARM.add(chosen)


def _chunks(formula: np.ndarray | Sequence[Sequence[int]]) -> Iterator[np.ndarray]:
    """Flat 0-terminated int32 chunks of whole clauses, about ``_LOAD_CHUNK`` literals each,
    from a flat array or from a list of clauses (converted chunk by chunk)."""
    import numpy as np

    from satdoku.cnf.dimacs_fast import clauses_to_array

    if not isinstance(formula, (list, tuple)):
        lits = np.ascontiguousarray(np.asarray(formula), dtype=np.int32)
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


def policy(
    params: Mapping[str, int] | None = None,
    reduce_first: int | None = None,
    reduce_inc: int | None = None,
) -> list[int]:
    """The kernel's policy parameters (``cdcl_kernel.P_*`` order): the defaults, overridden by
    ``params`` (names are the ``P_*`` constants in lower case, e.g. ``luby_unit``)."""
    from satdoku.solvers.cdcl_params import DEFAULTS, PARAM_NAMES

    values = list(DEFAULTS)
    given = dict(params or {})
    if reduce_first is not None:
        given["reduce_first"] = reduce_first
    if reduce_inc is not None:
        given["reduce_inc"] = reduce_inc
    for name, value in given.items():
        if name not in PARAM_NAMES:
            raise ValueError(f"unknown cdcl parameter {name!r}; known: {', '.join(PARAM_NAMES)}")
        values[PARAM_NAMES.index(name)] = int(value)
    return values


def _remaining(deadline: Deadline | None) -> float | None:
    return None if deadline is None else deadline.remaining()


class Cdcl:
    """One CDCL search over a formula: a list of clauses (DIMACS literals), or flat
    0-terminated int32 literals (a numpy array, any int32 buffer, or int32 bytes).

    With a ``deadline`` loading reads the clock between chunks of clauses and, once it has
    passed, stops: :attr:`status` is then TIMEOUT and :meth:`solve` answers TIMEOUT (millions
    of clauses take a noticeable fraction of a second even compiled)."""

    def __init__(
        self,
        num_vars: int,
        formula: np.ndarray | Sequence[Sequence[int]],
        restarts: str = "mixed",
        phase: str = "negative",
        decay: float = 0.95,
        proof: bool = False,
        pure: bool = False,
        reduce_first: int | None = None,
        reduce_inc: int | None = None,
        deadline: Deadline | None = None,
        backend: str = "auto",
        params: Mapping[str, int] | None = None,
    ) -> None:
        if restarts not in RESTARTS:
            raise ValueError(f"unknown restart policy {restarts!r}; choose from {list(RESTARTS)}")
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; choose from {PHASES}")
        if deadline is not None and deadline.at is None:
            deadline = None
        self.backend = choose_backend(backend, pure)
        self.n = num_vars
        self.status = ""
        values = policy(params, reduce_first, reduce_inc)
        if isinstance(formula, (bytes, bytearray)):  # int32 bytes, as the C reader gives
            formula = memoryview(formula).cast("i")
        if self.backend == "c":
            mod = native()
            assert mod is not None
            self._native = mod.Kernel(num_vars, RESTARTS[restarts], phase == "negative", decay,
                                      proof, values)  # fmt: skip
            if self._native.load(formula, _remaining(deadline)):
                self.status = TIMEOUT
            elif self._native.status == mod.UNSAT:
                self.status = UNSAT
            return
        import numpy as np

        k = self.k = load_kernel(self.backend == "python")
        n = num_vars
        self.S = S = np.zeros(k.S_SIZE, dtype=np.int64)
        self.P = P = np.array(values, dtype=np.int64)
        self.F = F = np.zeros(k.F_SIZE, dtype=np.float64)
        S[k.S_N] = n
        S[k.S_NEXT_REDUCE] = P[P_REDUCE_FIRST]
        S[k.S_SWITCH_AT] = P[P_SWITCH]
        S[k.S_RESTART_MODE] = RESTARTS[restarts]
        S[k.S_PROOF] = int(proof)
        F[k.F_VARINC] = 1.0
        F[k.F_DECAY] = decay
        self.lval = np.zeros(2 * n, dtype=np.int8)
        self.level = np.zeros(n, dtype=np.int32)
        self.reason = np.full(n, k.NO_REASON, dtype=np.int32)
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
        self.lbdq = np.zeros(P[P_LBDQ_LEN], dtype=np.int64)
        self.trailq = np.zeros(P[P_TRAILQ_LEN], dtype=np.int64)
        self.out = np.zeros(n + 1, dtype=np.int32)
        self.stack = np.zeros(n + 1, dtype=np.int32)
        self.toclear = np.zeros(n + 1, dtype=np.int32)
        self.stamp = np.zeros(n + 2, dtype=np.int64)
        self.pair = np.zeros(2, dtype=np.int32)
        self.woff = np.zeros(2 * n, dtype=np.int64)
        self.wlen = np.zeros(2 * n, dtype=np.int32)
        self.wcap = np.zeros(2 * n, dtype=np.int32)
        self.boff = np.zeros(2 * n, dtype=np.int64)
        self.blen = np.zeros(2 * n, dtype=np.int32)
        self.bcap = np.zeros(2 * n, dtype=np.int32)
        self._load(formula, deadline)

    def _load(
        self, formula: np.ndarray | Sequence[Sequence[int]], deadline: Deadline | None
    ) -> None:
        """Twin backends: normalise chunk by chunk, then attach chunk by chunk, the clock
        read in between."""
        import numpy as np

        k, S, n = self.k, self.S, self.n
        arena = np.zeros(1024, dtype=np.int32)
        pairs = np.zeros(1024, dtype=np.int32)
        mark = np.zeros(n, dtype=np.int64)
        wcount = np.zeros(2 * n, dtype=np.int64)
        bcount = np.zeros(2 * n, dtype=np.int64)
        tmp = np.zeros(n + 1, dtype=np.int32)
        for chunk in _chunks(formula):
            if deadline is not None and deadline.expired():
                self.status = TIMEOUT
                return
            arena, pairs = k.load_clauses(chunk, arena, pairs, self.lval, self.level,
                                          self.reason, self.trail, S, mark, wcount, bcount, tmp)
        wpool = k.layout(wcount, self.woff, self.wlen, self.wcap, 2, S, k.S_WTOP)
        bpool = k.layout(bcount, self.boff, self.blen, self.bcap, 1, S, k.S_BTOP)
        done, cref = 0, 0
        while done < S[k.S_NPAIRS] or cref < S[k.S_ATOP]:
            if deadline is not None and deadline.expired():
                self.status = TIMEOUT
                return
            done = k.attach_pairs(pairs, done, min(done + _LOAD_CHUNK, int(S[k.S_NPAIRS])),
                                  bpool, self.boff, self.blen)  # fmt: skip
            cref = k.attach_clauses(arena, cref, min(cref + 2 * _LOAD_CHUNK, int(S[k.S_ATOP])),
                                    wpool, self.woff, self.wlen)  # fmt: skip
        self.arena, self.wpool, self.bpool = arena, wpool, bpool
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
        lits = self._assumptions(assumptions)
        if lits is None:  # an assumption and its negation
            return UNSAT, None
        if deadline is not None and deadline.at is None:
            deadline = None
        if self.backend == "c":
            if deadline is not None and deadline.expired():
                return TIMEOUT, None
            code = self._native.solve(lits, _remaining(deadline),
                                      -1 if max_conflicts is None else max_conflicts)  # fmt: skip
            status = {10: SAT, 20: UNSAT, 30: "UNSAT_ASSUMED"}.get(code, TIMEOUT)
        else:
            status = self._solve_twin(lits, deadline, max_conflicts)
        if status == "UNSAT_ASSUMED":
            return UNSAT, None
        if status in (SAT, UNSAT) and not (status == SAT and assumptions):
            self.status = status
        return status, self._model() if status == SAT else None

    def _solve_twin(
        self, lits: list[int], deadline: Deadline | None, max_conflicts: int | None
    ) -> str:
        """numba / Python backends: the search in slices, the clock read in between."""
        import numpy as np

        k, S = self.k, self.S
        assumps = np.array(lits, dtype=np.int32)
        k.backtrack(0, self.lval, self.reason, self.trail, self.trail_lim, self.phase,
                    self.heap, self.hpos, self.act, S)  # fmt: skip
        first_conflict = int(S[k.S_CONFLICTS])
        budget = _FIRST_SLICE_PROPS if deadline is not None else _NEVER
        while True:
            conflicts = _NEVER
            if max_conflicts is not None:
                conflicts = max_conflicts - (int(S[k.S_CONFLICTS]) - first_conflict)
                if conflicts <= 0:
                    return TIMEOUT
            if deadline is not None and deadline.expired():
                return TIMEOUT
            began = time.perf_counter()
            status, self.arena, self.wpool, self.bpool, self.learnts, self.proof = k.search(
                self.arena, self.wpool, self.woff, self.wlen, self.wcap, self.bpool, self.boff,
                self.blen, self.bcap, self.lval, self.level, self.reason, self.trail,
                self.trail_lim, self.phase, self.act, self.heap, self.hpos, self.seen,
                self.learnts, self.proof, self.lbdq, self.trailq, self.out, self.stack,
                self.toclear, self.stamp, self.pair, S, self.P, self.F, assumps,
                assumps.shape[0], conflicts, budget,
            )  # fmt: skip
            if status == k.SAT:
                return SAT
            if status == k.UNSAT:
                return UNSAT
            if status == k.UNSAT_ASSUMED:
                return "UNSAT_ASSUMED"
            if deadline is not None:
                took = time.perf_counter() - began
                scale = 4.0 if took <= 0 else min(4.0, max(0.25, _SLICE_SECONDS / took))
                budget = max(1000, int(budget * scale))

    def _assumptions(self, assumptions: Sequence[int]) -> list[int] | None:
        """Internal literals (2 * var + sign) of the distinct assumptions; None if two
        contradict."""
        seen: dict[int, int] = {}
        for d in assumptions:
            if not 0 < abs(d) <= self.n:
                raise ValueError(f"assumption {d} outside variables 1..{self.n}")
            if seen.setdefault(abs(d), d) != d:
                return None
        return [2 * (abs(d) - 1) + (d < 0) for d in seen.values()]

    def _model(self) -> list[int]:
        if self.backend == "c":
            return self._native.model()
        import numpy as np

        positive = self.lval[0::2] == 1
        signs = np.where(positive, 1, -1)
        return (signs * np.arange(1, self.n + 1)).tolist()

    @property
    def stats(self) -> dict[str, int]:
        if self.backend == "c":
            return self._native.stats()
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
            "blocked_restarts": int(S[k.S_BLOCKED]),
            "mode_switches": int(S[k.S_SWITCHES]),
        }

    def _proof_log(self) -> list[int]:
        """The proof log: tag (1 add, 2 delete), size, DIMACS literals, ... ."""
        if self.backend == "c":
            from array import array

            buf = array("i")
            buf.frombytes(self._native.proof_buffer())
            return buf.tolist()
        return self.proof[: int(self.S[self.k.S_PTOP])].tolist()

    def proof_lines(self) -> list[str]:
        """The DRUP proof logged so far, as drat-trim text lines (with newlines)."""
        buf = self._proof_log()
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
        """Write the DRUP proof (drat-trim text format)."""
        if self.backend == "c":
            self._native.write_proof(str(path))
            return
        with open(path, "w", encoding="ascii") as fh:
            fh.writelines(self.proof_lines())


@dataclass
class FileResult:
    """What :func:`solve_file` found, with the time of each phase."""

    status: str
    model: list[int] | None
    stats: dict[str, int]
    times: dict[str, float] = field(default_factory=dict)
    backend: str = ""


def solve_file(
    path: str | Path,
    deadline: Deadline | None = None,
    proof_path: str | None = None,
    backend: str = "auto",
    **options: Any,
) -> FileResult:
    """Read a DIMACS file and decide it with CDCL before ``deadline`` (reading included).

    With the compiled kernel the file is parsed by its C pass into plain int32 bytes, so
    neither numpy nor numba is imported (a one-shot command starts in milliseconds); otherwise
    the numba / numpy reader feeds the twin kernel, loaded (or compiled) first, outside the
    deadline."""
    chosen = choose_backend(backend, bool(options.pop("pure", False)))
    tw = time.perf_counter()
    warm_up(chosen)
    t0 = time.perf_counter()
    if deadline is not None and deadline.limit is not None:  # loading code is not the file's
        deadline = Deadline(deadline.limit, start=deadline.start + (t0 - tw))
    from satdoku.cnf import dimacs_fast

    if chosen == "c" and dimacs_fast.has_c_engine():
        formula = dimacs_fast.read_dimacs_buffer(path)
    else:
        formula = dimacs_fast.read_dimacs_arrays(path)  # type: ignore[assignment]
    t1 = time.perf_counter()
    solver = Cdcl(formula.num_vars, formula.lits, proof=proof_path is not None,
                  deadline=deadline, backend=chosen, **options)  # fmt: skip
    t2 = time.perf_counter()
    status, model = solver.solve(deadline)
    t3 = time.perf_counter()
    if proof_path is not None and status == UNSAT:
        solver.write_proof(proof_path)
    times = {"kernel_load": t0 - tw, "parse": t1 - t0, "build": t2 - t1, "solve": t3 - t2}
    return FileResult(status, model, solver.stats, times, chosen)
