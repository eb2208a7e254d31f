"""CDCL, the fast mode of our SAT solver: the driver around its kernel.

The kernel (1-UIP learning with recursive minimisation, backjumping, EVSIDS, Luby, glucose or
mixed restarts, phase saving, LBD-based clause-database reduction, assumptions) has two forms
that make the same decisions in the same order, behind one interface (``Kernel``: ``load``,
``solve``, ``model``, ``stats``, ``proof_buffer``, ``write_proof``, ``status``):

* ``c`` — ``kernel.c`` and its binding ``_cdcl.c`` in this package (module
  :mod:`satdoku.solvers.cdcl._cdcl`), built at install time (``setup.py``): what runs. It
  reads Python clause lists or int32 buffers directly, reads the clock itself and releases
  the GIL while searching;
* ``python`` — :mod:`satdoku.solvers.cdcl.readable`, the same search written for people: the
  tests' oracle, and the fallback where the C kernel was not built (slow).

Both kernels preprocess the formula once the search has met a few conflicts (``simp_delay``,
default 2000), unless ``simplify=False`` (MiniSat 2's SimpSolver in the spirit of SatELite:
bounded variable elimination, subsumption and self-subsuming strengthening, logged in the proof;
:mod:`satdoku.solvers.cdcl.simplify`): a model gets the eliminated variables' values rebuilt,
and a variable that later calls may assume should be frozen (``frozen``; the assumptions of the
calls before it are frozen by themselves).

``backend="auto"`` takes ``c`` when built (environment variable ``SATDOKU_CDCL_BACKEND``
overrides). This driver picks the kernel, loads the clauses and runs it before a
:class:`Deadline`, and turns its answers into a status, a DIMACS model, statistics and a
proof: DRUP (drat-trim's text format) or LRAT (every learnt clause with the ids of the
clauses its derivation used: satdoku/cnf/lrat.py checks it in linear time).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType

from satdoku.cnf.formula import split_lits
from satdoku.solvers.base import CPU, Deadline, require_choice
from satdoku.solvers.cdcl.params import (
    DEFAULTS,
    PARAM_NAMES,
    PHASES,
    PROOFS,
    RESTARTS,
    STATUS_CODES,
    check_values,
)
from satdoku.solvers.interrupts import searching
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only (pathlib costs a one-shot command ~15 M instructions)
    from pathlib import Path
    from typing import Any

BACKENDS = ("auto", "c", "python")
#: proof formats the kernels write, and their ``proof`` codes (0: none)
PROOF_FORMATS = {name: code for name, code in PROOFS.items() if code}
#: the kernels' status codes (UNKNOWN: no answer, the deadline's status applies)
_CODES = {code: name for name, code in STATUS_CODES.items() if name != "UNKNOWN"}


def native() -> ModuleType | None:
    """The compiled C kernel module, or None when it was not built."""
    try:
        from satdoku.solvers.cdcl import _cdcl  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _cdcl


def choose_backend(backend: str = "auto", pure: bool = False) -> str:
    """The backend that will run: ``pure`` forces ``python``; ``auto`` picks c when built,
    else python (``SATDOKU_CDCL_BACKEND`` overrides ``auto``). An explicit backend that is not
    available is an error, not a silent substitute."""
    if pure:
        return "python"
    if backend == "auto":
        backend = os.environ.get("SATDOKU_CDCL_BACKEND", "auto")
    require_choice("cdcl backend", backend, BACKENDS)
    if backend == "auto":
        return "c" if native() is not None else "python"
    if backend == "c" and native() is None:
        raise ValueError("the compiled cdcl kernel is not built (run `make install`)")
    return backend


def kernel_type(backend: str) -> Any:
    """The Kernel class of a chosen backend (``c`` or ``python``)."""
    if backend == "c":
        return native().Kernel  # type: ignore[union-attr]
    # the readable twin is loaded only when chosen: a one-shot `satdoku dpll` on the C kernel
    # does not pay for it (tests/test_startup.py)
    from satdoku.solvers.cdcl.readable import Kernel

    return Kernel


def warm_up(backend: str = "auto") -> None:
    """Import the kernel of ``backend`` outside any timing (nothing is compiled at run time)."""
    kernel_type(choose_backend(backend))


def policy(
    params: Mapping[str, int] | None = None,
    reduce_first: int | None = None,
    reduce_inc: int | None = None,
    simplify: bool | None = None,
) -> list[int]:
    """The kernel's policy parameters (``params.P_*`` order): the defaults, overridden by
    ``params`` (names are the ``P_*`` constants in lower case, e.g. ``luby_unit``), then by the
    named arguments given; ValueError for an unknown name or a value outside its range."""
    values = list(DEFAULTS)
    given = dict(params or {})
    if reduce_first is not None:
        given["reduce_first"] = reduce_first
    if reduce_inc is not None:
        given["reduce_inc"] = reduce_inc
    if simplify is not None:
        given["simplify"] = int(simplify)
    for name, value in given.items():
        if name not in PARAM_NAMES:
            raise ValueError(f"unknown cdcl parameter {name!r}; known: {', '.join(PARAM_NAMES)}")
        values[PARAM_NAMES.index(name)] = int(value)
    check_values(values)
    return values


def _remaining(deadline: Deadline | None) -> float | None:
    """Seconds the kernel may run before it looks again. The kernel reads the wall clock
    (CLOCK_MONOTONIC); CPU seconds left are at most as many wall seconds for one thread, so
    on the CPU clock the kernel stops no later than the limit and :meth:`Cdcl.solve` resumes
    it while CPU time is left."""
    return None if deadline is None else deadline.remaining()


class Cdcl:
    """One CDCL search over a formula: a list of clauses (DIMACS literals), or flat
    0-terminated int32 literals (a numpy array, any int32 buffer, or int32 bytes).

    With a ``deadline`` loading reads the clock between chunks of clauses and, once it has
    passed, stops: :attr:`status` is then TIMEOUT and :meth:`solve` answers TIMEOUT (millions
    of clauses take a noticeable fraction of a second even compiled).

    ``simplify`` (default: ``params``' ``simplify``, on) preprocesses once the search has met
    ``simp_delay`` conflicts; ``frozen`` (DIMACS variables) are kept by it, and so are the
    assumptions of the calls before it. A later call that assumes a variable preprocessing
    eliminated gets a fresh kernel: the formula is loaded again with every variable assumed so
    far frozen (what was learnt is lost; freeze such variables up front to keep it). The
    formula is kept for that, not copied: do not change it afterwards (add_clauses adds)."""

    def __init__(
        self,
        num_vars: int,
        formula: Any,
        restarts: str = "mixed",
        phase: str = "negative",
        decay: float = 0.95,
        proof: bool | str = False,
        pure: bool = False,
        reduce_first: int | None = None,
        reduce_inc: int | None = None,
        deadline: Deadline | None = None,
        backend: str = "auto",
        params: Mapping[str, int] | None = None,
        simplify: bool | None = None,
        frozen: Iterable[int] | None = None,
    ) -> None:
        require_choice("restart policy", restarts, RESTARTS)
        require_choice("phase", phase, PHASES)
        if deadline is not None and deadline.at is None:
            deadline = None
        if proof is True:
            proof = "drat"
        if proof:
            require_choice("proof format", proof, PROOF_FORMATS)
        #: the proof format logged ("" none, "drat" or "lrat")
        self.proof_format = str(proof or "")
        self.backend = choose_backend(backend, pure)
        self.n = num_vars
        self.status = ""
        if isinstance(formula, (bytes, bytearray)):  # int32 bytes, as the C reader gives
            formula = memoryview(formula).cast("i")
        self._formula = formula
        self._settings = (num_vars, RESTARTS[restarts], phase == "negative", decay,
                          PROOF_FORMATS.get(self.proof_format, 0),
                          policy(params, reduce_first, reduce_inc, simplify))  # fmt: skip
        self._frozen: set[int] = set()  # 0-based: given, or assumed in some call
        self._added: list[list[int]] = []  # clauses added between calls
        if frozen is not None:
            for v in frozen:
                if not 0 < v <= num_vars:
                    raise ValueError(f"frozen variable {v} outside variables 1..{num_vars}")
                self._frozen.add(v - 1)
        self._load(deadline)

    def _load(self, deadline: Deadline | None) -> None:
        """A new kernel with the formula (and the clauses added since) loaded and the frozen
        variables frozen; it knows no answer yet."""
        self.status = ""
        self._searched = False  # whether this kernel has searched (and may have logged steps)
        self._kernel = kernel_type(self.backend)(*self._settings)
        self._kernel.freeze(sorted(self._frozen))
        cpu_clock = deadline is not None and deadline.clock == CPU
        formula = self._formula
        if self._added:  # in one load: a formula refuted on loading logs its empty clause then,
            # and an LRAT id must come after every clause the proof's formula holds
            given = formula if isinstance(formula, list | tuple) else split_lits(formula)
            formula = [*given, *self._added]
        if self._kernel.load(formula, None if cpu_clock else _remaining(deadline)):
            self.status = TIMEOUT  # (on the CPU clock loading runs whole: solve() then looks)
            return
        if _CODES.get(self._kernel.status) == UNSAT:
            self.status = UNSAT

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
        call's conflicts; the kernel reads the clock of ``deadline`` itself, and a later call
        resumes where a budget stopped it."""
        if self.status == TIMEOUT:  # loading was cut short: the formula is incomplete
            return TIMEOUT, None
        if self.status == UNSAT or (self.status == SAT and not assumptions):
            # the kernel's model is its last SAT answer's, whatever came after it
            return self.status, self._kernel.model() if self.status == SAT else None
        lits = self._assumptions(assumptions)
        if lits is None:  # an assumption and its negation
            return UNSAT, None
        if deadline is not None and deadline.at is None:
            deadline = None
        if deadline is not None and deadline.expired():
            return TIMEOUT, None
        self._frozen.update(lit >> 1 for lit in lits)
        if lits and self._kernel.first_eliminated(lits) >= 0:
            self._load(deadline)  # preprocessing removed an assumed variable: start afresh
            if self.status == TIMEOUT:
                return TIMEOUT, None
        self._searched = True
        while True:
            with searching(self._kernel):  # Ctrl-C stops the search (solvers.interrupts)
                code = self._kernel.solve(lits, _remaining(deadline),
                                          -1 if max_conflicts is None else max_conflicts)
            status = _CODES.get(code, TIMEOUT)
            if (status != TIMEOUT or deadline is None or deadline.clock != CPU
                    or max_conflicts is not None or deadline.expired()):
                break  # a CPU-clock deadline not yet reached: resume the search
        if status == "UNSAT_ASSUMED":
            return UNSAT, None
        if status in (SAT, UNSAT) and not (status == SAT and assumptions):
            self.status = status
        return status, self._kernel.model() if status == SAT else None

    def add_clauses(self, clauses: Iterable[Sequence[int]]) -> None:
        """Add clauses (DIMACS literals of variables 1..n) for every later call: what was
        learnt stays valid, a SAT answer is asked again. Once preprocessing has eliminated
        variables the formula and every added clause go into a fresh kernel (as for an
        assumption on an eliminated variable); so they do once an LRAT proof has steps: an
        LRAT clause id is fixed when the clause is made, the formula's clauses come first, and
        a clause added after learnt ones could take no id the proof has not used (the fresh
        kernel's proof refutes the formula with the added clauses on its own)."""
        if self.status == TIMEOUT:
            raise ValueError("loading stopped at the deadline: this formula is incomplete")
        new = [list(c) for c in clauses]
        self._added.extend(new)
        if self._kernel.stats().get("eliminated_vars") or (
            self.proof_format == "lrat" and (self._searched or self.status == UNSAT)
        ):  # (a formula refuted on loading has its empty clause logged already)
            self._load(None)
            return
        self._kernel.load(new, None)
        if _CODES.get(self._kernel.status) == UNSAT:
            self.status = UNSAT
        elif self.status == SAT:
            self.status = ""

    def interrupt(self) -> None:
        """End the search in progress (in another thread) at its next look at the clock: that
        call answers TIMEOUT, a later one resumes."""
        self._kernel.interrupt()

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

    @property
    def kernel(self) -> Any:
        """The kernel object (``c``: satdoku.solvers.cdcl._cdcl.Kernel), for callers that drive its
        ``solve`` / ``model`` / ``stats`` themselves (satdoku/pipeline/_batch.c)."""
        return self._kernel

    @property
    def stats(self) -> dict[str, int]:
        """Search counters: decisions, conflicts, propagations, restarts, learnt, max_level,
        deleted, reductions, collections, minimised_literals, blocked_restarts,
        mode_switches; preprocessing's eliminated_vars, subsumed_clauses,
        strengthened_clauses, resolvents."""
        return self._kernel.stats()

    def _proof_log(self) -> list[int]:
        """The proof log: DRAT: tag (1 add, 2 delete), size, DIMACS literals, ...; LRAT: 1, id,
        size, literals, hint count, hints, ... or 2, id, size, literals, ... ."""
        buf = array("i")
        buf.frombytes(self._kernel.proof_buffer())
        return buf.tolist()

    def proof_lines(self) -> list[str]:
        """The proof logged so far as text lines (with newlines): DRUP as drat-trim reads it,
        or LRAT (the proof modules imported here: a solve that writes its proof goes through
        the kernel's own writer, :meth:`write_proof`)."""
        from satdoku.cnf.drat import drup_lines
        from satdoku.cnf.lrat import lrat_lines

        if self.proof_format == "lrat":
            return lrat_lines(self._proof_log(), self._kernel.loaded)
        return drup_lines(self._proof_log())

    def write_proof(self, path: str | Path, binary: bool = False) -> None:
        """Write the proof as text (DRUP or LRAT, as logged), or with ``binary`` the same steps
        in the binary format (drat-trim's binary DRAT; binary LRAT, as ``cadical --lrat
        --binary``): what the solve path checks when nobody keeps the proof (shorter, and
        read without decimal parsing)."""
        self._kernel.write_proof(str(path), binary)
