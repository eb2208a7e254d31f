"""The solver protocols: every method the solve path calls on a solver, whether it is required
or optional, and in which order (:class:`CnfSolver` and the others below).

They describe the contract for readers and type checkers; nothing checks them at run time
(what a solver can do is its registry record's, :mod:`satdoku.solvers.registry`). They live
apart from :mod:`satdoku.solvers.base` because ``typing.Protocol`` costs a one-shot ``satdoku
dpll`` the import of :mod:`typing` (about 16 million instructions, issue 29 goal 1), and no
module on the solve path imports this one at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from satdoku.cnf.formula import Cnf
    from satdoku.puzzle import Puzzle
    from satdoku.solvers.base import Deadline, RunLimits
    from satdoku.solvers.result import Result

# --- the solver contract --------------------------------------------------------------------
# What the solve path (satdoku/solve.py) calls, in this order:
#
# 1. the registry's factory, once per solver and process: ``factory(name=NAME, **options)``
#    (a factory with a ``limit`` parameter also gets its record's limit kind);
# 2. ``warm_up()`` once, if the solver has it (optional: load a kernel, import a backend;
#    outside every instance's time);
# 3. per instance, exactly one of, by the registry record:
#    - level ``puzzle``:                         ``solve_puzzle(puzzle, deadline)``
#    - ``incremental`` and its options say so:   ``solve_incremental(rules, own, deadline,
#                                                proof_path)`` (shared rules; else step 3's
#                                                next line)
#    - input ``file`` (a binary):                ``solve_file(cnf_path, deadline, proof_path,
#                                                limits, workdir)``
#    - limit ``process`` (a forked backend):     ``solve_cnf(cnf, deadline, proof_path,
#                                                limits)``
#    - otherwise:                                ``solve_cnf(cnf, deadline, proof_path)``
#    An adapter whose ``binary_proofs`` is True also takes ``binary_proof=True`` in the calls
#    above that name a ``proof_path``: the proof is a temporary file nobody keeps, to be
#    written in the binary format (DRAT or LRAT; the solve path's checkers read both).
# 4. ``interrupt()`` (optional, from another thread): a Ctrl-C or a watchdog stops the
#    search in progress (satdoku/solvers/interrupts.py); the call returns TIMEOUT or raises
#    KeyboardInterrupt.
#
# Every call returns a Result: the answer, ``solve_seconds`` (search only, the adapter's
# measurement), ``stats``, and for a child process ``child`` (its usage as its backend
# measured it). Everything else (total time, resource figures, termination, the check of the
# answer, errors) is the solve path's.


class CnfSolver(Protocol):
    """A SAT solver: decides a CNF before a deadline (construction and loading included).

    Solvers whose registry record says ``proofs=True`` write a proof to ``proof_path`` for an
    UNSAT answer, in the format their ``proof_format`` attribute names (``drat`` or ``lrat``;
    the solve path checks it); others ignore the argument. An adapter only
    translates: it measures its search (``solve_seconds``) and lets exceptions through; timing
    of the whole instance, resource figures and error capture are the solve path's. Its version
    and capabilities are its registry record's."""

    name: str

    def solve_cnf(
        self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None
    ) -> Result: ...


class WarmUp(Protocol):
    """Optional: work done once per process before the first instance (outside its time)."""

    def warm_up(self) -> None: ...


class Interruptible(Protocol):
    """Optional: stop the search in progress (called from another thread)."""

    def interrupt(self) -> None: ...


class ChildCnfSolver(Protocol):
    """A SAT solver that runs each instance in a child process (registry record ``limit:
    process``): it gets the run's limits (memory, cores, measurement backend) and reports the
    child's usage in ``Result.child``."""

    name: str

    def solve_cnf(self, cnf: Cnf, deadline: Deadline, proof_path: str | None,
                  limits: RunLimits) -> Result: ...


class FileCnfSolver(Protocol):
    """A solver binary (registry record ``input: file``): the solve path writes the instance
    to ``cnf_path`` with the clock stopped and hands it the run's limits and a working
    directory it keeps for a whole shard."""

    name: str

    def solve_file(self, cnf_path: str, deadline: Deadline, proof_path: str | None,
                   limits: RunLimits, workdir: str) -> Result: ...


class IncrementalCnfSolver(CnfSolver, Protocol):
    """A SAT solver that keeps shared rules loaded across instances (registry record
    ``incremental=True``, used when its options say ``incremental: true``): each instance adds
    only its own clauses, unit clauses as assumptions. Times exclude loading the rules."""

    def solve_incremental(
        self, rules: Cnf, own: list[list[int]], deadline: Deadline,
        proof_path: str | None = None,
    ) -> Result: ...


class PuzzleSolver(Protocol):
    """A puzzle-level solver (CP-SAT, CSP): solves a Puzzle directly, no CNF involved."""

    name: str

    def solve_puzzle(self, puzzle: Puzzle, deadline: Deadline) -> Result: ...
