"""THE solve path: one instance + one solver + an encoding + a time limit -> one checked Answer.

Every caller (the workflow's solve stage, ``satdoku solve``, ``satdoku dpll``, the largest-n
experiment, scripts and benchmarks) goes through :func:`solve`, so limits and verification live
in one place:

1. the deadline starts when the instance's work starts: encoding (unless the formula comes
   ready from a SatInput bundle), solver construction and clause loading all count;
2. the solver works at its level: a puzzle-level solver (CP-SAT, CSP) gets the puzzle, a SAT
   solver the CNF (incrementally, rules loaded once, when its options say so);
3. an answer that arrives after the limit is a TIMEOUT, whichever solver gave it;
4. the run is measured here, once for every solver (the adapters only translate): wall and CPU
   seconds, peak memory, why the run ended (``termination``), which backend measured it
   (``measurement``) and its cores. A solver in a child process is measured by its backend
   (:mod:`satdoku.solvers.measurement`: BenchExec's cgroups, or the basic launcher: every
   descendant's CPU, the tree's peak memory, MEMOUT for memory used); an in-process solver by
   the solving thread's CPU clock and the process's peak, under a guard on its address space.
   An exception is an ERROR, an allocation refused by the memory limit a MEMOUT. Every limit
   comes in one :class:`~satdoku.solvers.base.RunLimits` value;
5. a SAT model is decoded with its encoding and verified against the puzzle (givens kept, every
   group a permutation, every relation holds) or, for a DIMACS instance, against every clause;
   an UNSAT answer of a solver that writes proofs counts only once its proof checks (DRAT, or
   LRAT: what our own solvers write by default, checked in linear time);
6. the solver's clock stops when it answers: the check of step 5 is timed apart
   (``check_seconds``), and a proof check is bounded by its own budget (``verify_time_limit``,
   default the time limit): one that runs out leaves UNSAT unchecked, never TIMEOUT or ERROR.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from satdoku.cnf.encodings import Unencodable
from satdoku.cnf.formula import Cnf, Formula
from satdoku.identity import record_hash
from satdoku.size_limits import TooLarge
from satdoku.solvers.base import CPU, WALL, Deadline, RunLimits
from satdoku.solvers.cores import describe as describe_cores
from satdoku.solvers.registry import CNF, FILE, PUZZLE, SOLVERS, SolverSpec, resolve
from satdoku.solvers.result import (
    ERROR,
    EXIT,
    FAILED,
    IN_PROCESS,
    INVALID,
    MEMLIMIT,
    MEMOUT,
    PROOF,
    SAT,
    TERM_ERROR,
    TIMELIMIT,
    TIMEOUT,
    UNCHECKED,
    UNSAT,
    YES,
    Result,
)
from satdoku.stagefiles.tsv import GIVEN_DIFFERS, GIVEN_SOLUTION_REFUTES_UNSAT, sols_row

if TYPE_CHECKING:  # formats are imported where used: `satdoku dpll` starts without them
    from satdoku.cnf.codec import Codec
    from satdoku.formats import Record
    from satdoku.formats.record import CnfFile

#: Grace past the time limit for a clean stop (interrupt latency, process teardown); an answer
#: later than limit + grace is a TIMEOUT.
LIMIT_GRACE = 0.05


@dataclass
class Answer:
    """A solver's result after the solve path checked it.

    ``result.status`` is final (a late answer is TIMEOUT, a rejected proof ERROR); ``verified``
    is ``yes`` (model or board checked), ``proof`` (UNSAT with a checked proof), ``FAILED`` (a
    wrong answer: ``detail`` says why) or ``-`` (nothing to check, or UNSAT without a proof,
    which the cross-solver check confirms by agreement)."""

    result: Result
    verified: str = UNCHECKED
    detail: str = ""
    board: tuple[int, ...] | None = None

    @property
    def status(self) -> str:
        return self.result.status

    def sols_row(self, record: Record) -> dict[str, object]:
        """The SatSols row of this answer to ``record``."""
        text = ""
        if self.board is not None and record.puzzle is not None and self.verified == YES:
            from satdoku.formats import format_board

            text = format_board(self.board, record.notation, record.puzzle.size)
        elif record.cnf is not None and self.result.model is not None and self.verified == YES:
            from satdoku.formats.cnfset import solution_text

            text = solution_text(self.result.model)  # a CNF's solution is its model
        return sols_row(record.id, record.line, self.status, self.verified, text, self.detail,
                        record_hash(record))


@dataclass
class ConfiguredSolver:
    """A solver made from its registry record and options: what the solve path needs to know
    about it (level, proofs, incremental) comes from the record, never from probing."""

    name: str
    spec: SolverSpec
    options: dict[str, Any]
    impl: Any
    variants: Mapping[str, Mapping[str, Any] | None] | None = None
    _baseline: int | None = None  # address space before the first guarded instance (bytes)

    @property
    def version(self) -> str:
        """What identifies the solver's behaviour (:func:`satdoku.solvers.registry.
        solver_version`): computed when asked, since it hashes the solver's source files."""
        from satdoku.solvers.registry import solver_version

        return solver_version(self.name, self.variants)

    @property
    def level(self) -> str:
        return self.spec.level

    @property
    def proofs(self) -> bool:
        """Writes a proof for every UNSAT answer: its record says so, or its options name a
        proof format (an external binary's ``proof: drat``)."""
        return self.spec.proofs or bool(self.options.get("proof"))

    @property
    def proof_format(self) -> str:
        """The format of its proofs, ``drat`` or ``lrat``: its adapter's (our solvers' option
        ``proof``; an external binary's ``proof``)."""
        return str(getattr(self.impl, "proof_format", "") or "drat")

    @property
    def in_child(self) -> bool:
        """Runs in a child process of its own (limits enforced on the process)."""
        return self.spec.limit == "process"

    @property
    def incremental(self) -> bool:
        return bool(self.options.get("incremental")) and self.spec.incremental


def open_solver(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                ) -> ConfiguredSolver:
    """Make the solver ``name`` (registered, or a configured variant); KeyError/ValueError name
    an unknown solver or bad option. A solver with a kernel to load does so here, outside
    every instance's time."""
    from satdoku.solvers.registry import make_solver

    base, options = resolve(name, variants)
    impl = make_solver(name, variants)
    warm_up = getattr(impl, "warm_up", None)  # optional (solvers/base.py: WarmUp)
    if warm_up is not None:
        warm_up()
    return ConfiguredSolver(name, SOLVERS[base], options, impl, variants)


def assign_cores(limits: RunLimits, count: int = 1) -> RunLimits:
    """``limits`` with cores of this process's own: ``count`` cores claimed for it
    (:func:`satdoku.solvers.cores.claim`: among those it may use, e.g. SLURM's) and every
    thread of it pinned to them, so in-process solvers and basic-launcher children run there
    and BenchExec gets them for its cpuset. Where none are free, the run is not pinned."""
    from dataclasses import replace

    from satdoku.solvers import cores

    claimed, own = cores.claim(count)
    if not own:
        return replace(limits, cores=None)
    cores.pin(claimed)
    return replace(limits, cores=claimed)


def encoding_of(encoding: str | Codec) -> Codec:
    """An encoding's record with its encoder and decoder (ValueError naming the known ones),
    resolved once per call of the solve path and handed down."""
    from satdoku.cnf.codec import codec

    return codec(encoding)


def formula_of(record: Record, encoding: str | Codec, deadline: Deadline | None = None
               ) -> Formula:
    """The formula of a valid record: a puzzle encoded (rules cached per layout; building them
    stops at ``deadline``), or a DIMACS instance read from its file in one streaming pass into
    a flat literal buffer (checked against the checksum recorded when it was read:
    :class:`~satdoku.cnf.dimacs_stream.FileChanged`)."""
    if record.puzzle is not None:
        return encoding_of(encoding).formula(record.puzzle, deadline)
    if record.cnf is not None:
        from satdoku.cnf.dimacs_stream import scan_dimacs

        scan = scan_dimacs(record.cnf.path, keep=True, expect_sha256=record.cnf.sha256)
        return Formula.of(Cnf(scan.num_vars, None, scan.comments, lits=scan.lits,
                              num_clauses=scan.num_clauses))
    raise ValueError(f"instance {record.id} is invalid: {record.error}")


def read_formula(data: bytes, source: str) -> Formula:
    """A DIMACS instance's formula from the file's bytes, as a flat literal buffer (the
    compiled reader when it is built: no numpy, no clause lists until someone needs them)."""
    from satdoku.cnf.dimacs_fast import parse_dimacs_buffer

    buf = parse_dimacs_buffer(data, source)
    return Formula.of(Cnf(buf.num_vars, None, list(buf.comments), lits=buf.lits,
                          num_clauses=buf.num_clauses))


def solve(record: Record, solver: ConfiguredSolver, encoding: str | Codec,
          limits: RunLimits | float | None,
          formula: Formula | None = None, workdir: str | None = None,
          proof_path: str | None = None) -> Answer:
    """Solve one instance within ``limits`` (a :class:`RunLimits`, or a bare time limit in
    seconds): the time limit read on its clock, the memory limit (default: the solver's
    ``memory_limit`` option), its cores and measurement backend; measure the run and check
    the answer.

    ``formula`` is the record's formula when the caller already has it (a SatInput bundle
    entry, a file already read); otherwise the record is encoded here, inside the time limit.
    Proofs of solvers that write them go to a temporary file in ``workdir`` (a directory the
    caller keeps for many instances; a temporary directory per call without it), or to
    ``proof_path``, which is kept.

    The solver's clock stops when it answers: checking the answer (an UNSAT proof, a model or
    board) is timed apart in ``check_seconds`` and never counts against the time limit. A
    proof check gets its own budget, ``limits.verify_time_limit`` seconds (default: the time
    limit); one that runs out leaves the answer UNSAT, unchecked (``-``), with a message
    saying so."""
    limits = RunLimits.of(limits)
    if not record.valid:
        return Answer(Result(INVALID, message=record.error or "invalid"), detail=record.error or "")
    if record.puzzle is not None and solver.level != PUZZLE:
        encoding = encoding_of(encoding)  # resolved once; the record goes down the path
        if formula is None:
            try:  # the memory guard, from the sizes alone, before anything is built
                encoding.check_size(record.puzzle)
            except (TooLarge, Unencodable) as exc:  # (augmented without boxes: one line)
                return Answer(Result(INVALID, message=str(exc)), detail=str(exc))
    if limits.memory_mb is None and solver.options.get("memory_limit") is not None:
        from dataclasses import replace

        limits = replace(limits, memory_mb=float(solver.options["memory_limit"]))
    memory_limit = limits.memory_mb
    run = _Run(solver, memory_limit)
    deadline = limits.deadline()
    with ExitStack() as stack:
        proof: str | None = None
        try:
            with run:
                if solver.level == PUZZLE:
                    result = _solve_puzzle(record, solver, deadline)
                else:
                    if formula is None and not _reads_user_file(record, solver):
                        formula = formula_of(record, encoding, deadline)  # inside the deadline
                    if solver.proofs:
                        proof = stack.enter_context(_proof_file(proof_path, workdir))
                    if deadline.expired():  # encoding (or the caller) used up the time
                        result = Result(TIMEOUT, message="time limit reached while encoding")
                    elif solver.spec.input == FILE:  # a binary: its DIMACS file, off the clock
                        if workdir is None:
                            workdir = stack.enter_context(tempfile.TemporaryDirectory())
                        result = _solve_file(solver, record, formula, deadline, proof, limits,
                                             run, workdir)
                    else:
                        assert formula is not None
                        result = _solve_cnf(solver, formula, deadline, proof, limits)
        except TimeoutError as exc:  # RulesTimeout: the rules build ran out of time
            result = Result(TIMEOUT, message=str(exc))
        except MemoryError:
            result = Result(MEMOUT, message=f"memory limit of {memory_limit:g} MB reached"
                            if memory_limit is not None else "out of memory")
        except Exception as exc:  # a solver or encoder bug must not take a whole shard down
            if memory_limit is not None and _allocation_failed(exc):  # under the guard
                result = Result(MEMOUT, message=f"memory limit of {memory_limit:g} MB reached: "
                                                f"{type(exc).__name__}: {_first_line(exc)}")
            else:
                result = Result(ERROR, message=f"{type(exc).__name__}: {exc}")
        run.measure(result)
        result.cores = describe_cores(limits.cores)
        _enforce_limit(result, limits.time_limit, limits.clock)
        checking = time.perf_counter()  # the solver's time ends here; the check's begins
        if result.status == UNSAT and proof is not None and formula is not None:
            _certify(formula, result, proof, proof_path is not None, limits.check_budget,
                     solver.proof_format)
        cnf = formula.whole() if record.cnf is not None and formula is not None else None
        answer = verify(record, encoding, result, cnf)
        result.check_seconds = time.perf_counter() - checking
    return answer


@dataclass
class _Pause:
    """Wall and CPU seconds of one pause of a run (start values until it ends)."""

    wall: float
    cpu: float


class _Run:
    """The measurement of one solver run, the one place it is made: wall seconds, CPU seconds,
    peak memory, the termination and which backend measured it.

    A run in a child process (``Result.child``) is measured by its backend: its CPU seconds
    (every descendant's), its peak memory and its wall seconds replace the adapter's span
    around it, so the harness's own cost (starting the backend, reading the output) is not the
    solver's. An in-process run is measured here: the solving thread's CPU clock
    (``time.thread_time``; the process's, ``time.process_time``, for a solver configured with
    several ``workers`` threads) and the solving process's peak resident memory so far (it
    never goes down: an upper bound of the instance's own). It is guarded: its address space
    may not grow past what the process held before its first instance plus ``memory_limit``
    MB (RLIMIT_AS, soft limit only, restored after the run), so an allocation beyond it raises
    MemoryError, which the solve path turns into MEMOUT instead of losing the shard."""

    __slots__ = ("c0", "clock", "limit", "paused_cpu", "paused_wall", "saved", "solver", "t0")

    def __init__(self, solver: ConfiguredSolver, memory_limit: float | None) -> None:
        self.solver, self.limit, self.saved = solver, memory_limit, None
        self.t0 = self.c0 = self.paused_wall = self.paused_cpu = 0.0
        threads = solver.options.get("workers", 1)
        self.clock = time.process_time if isinstance(threads, int) and threads > 1 \
            else time.thread_time

    @contextmanager
    def paused(self) -> Iterator[_Pause]:
        """Work inside the run that is not the solver's (writing a binary's input file):
        excluded from the run's wall and CPU seconds."""
        pause = _Pause(time.perf_counter(), self.clock())
        try:
            yield pause
        finally:
            pause.wall = time.perf_counter() - pause.wall
            pause.cpu = self.clock() - pause.cpu
            self.paused_wall += pause.wall
            self.paused_cpu += pause.cpu

    def __enter__(self) -> _Run:
        if self.limit is not None and not self.solver.in_child:
            if self.solver._baseline is None:
                from satdoku.solvers.process import address_space

                self.solver._baseline = address_space()
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            cap = self.solver._baseline + int(self.limit * 1024 * 1024)
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            self.saved = (soft, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        self.t0, self.c0 = time.perf_counter(), self.clock()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            resource.setrlimit(resource.RLIMIT_AS, self.saved)
            self.saved = None

    def measure(self, result: Result) -> None:
        """Set the result's times, resource figures, termination and measurement."""
        wall = time.perf_counter() - self.t0 - self.paused_wall
        cpu = self.clock() - self.c0 - self.paused_cpu
        child = result.child
        if child is not None:
            cpu, rss = child.cpu_seconds, child.max_rss_mb
            wall = max(0.0, wall - child.harness_seconds)  # the backend's cost is not the run's
            result.measurement = child.measurement
        else:
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            result.measurement = IN_PROCESS
        result.wall_seconds = result.total_seconds = wall
        result.cpu_seconds, result.max_rss_mb = cpu, rss
        if child is not None and child.termination != EXIT:
            result.termination = child.termination
        else:
            result.termination = {TIMEOUT: TIMELIMIT, MEMOUT: MEMLIMIT,
                                  ERROR: TERM_ERROR}.get(result.status, EXIT)


#: Words of an exception that mean an allocation or a mapping was refused (a lazy import or a
#: C extension under the memory guard fails with these rather than with MemoryError).
_ALLOCATION_WORDS = ("failed to map", "cannot allocate memory", "out of memory", "bad_alloc")


def _allocation_failed(exc: BaseException) -> bool:
    text = f"{exc}".lower()
    return any(w in text for w in _ALLOCATION_WORDS)


def _first_line(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    hit = [ln for ln in lines if any(w in ln.lower() for w in _ALLOCATION_WORDS)]
    return (hit or lines or [""])[0].strip()


def _reads_user_file(record: Record, solver: ConfiguredSolver) -> bool:
    """Whether the harness leaves a DIMACS instance unread: a binary reads the file (the
    user's own, or a rewrite of it) and its model is checked in a streaming pass; only a
    proof check needs the formula in memory."""
    return _on_file(record) and solver.spec.input == FILE and not solver.proofs


def _on_file(record: Record) -> bool:
    """Whether a record is a DIMACS file read with its checksum (a formula built in memory, as
    the fuzzer's, names none: it is written from the formula)."""
    return record.cnf is not None and bool(record.cnf.sha256)


def _solve_file(solver: ConfiguredSolver, record: Record, formula: Formula | None,
                deadline: Deadline, proof: str | None, limits: RunLimits, run: _Run,
                workdir: str) -> Result:
    """Solve with a solver that reads a DIMACS file: the file is prepared with the clock
    stopped (it is the harness's work, not the solver's), then the solver runs on it. A
    DIMACS instance's own file is handed over when the binary reads it as we do
    (:func:`~satdoku.cnf.dimacs_stream.hand_over`; the solver option ``reads`` lists the
    compressions it reads), else rewritten from a streaming pass; a puzzle's formula is
    written from its clauses."""
    path = os.path.join(workdir, "instance.cnf")
    with run.paused() as paused:
        if _on_file(record):
            assert record.cnf is not None
            path = _instance_file(record.cnf, solver.options.get("reads", ()), path)
        else:
            from satdoku.solvers.external import write_cnf

            assert formula is not None
            write_cnf(formula, path)
    deadline = deadline.shifted(paused.cpu if deadline.clock == CPU else paused.wall)
    return solver.impl.solve_file(path, deadline, proof, limits, workdir)


def _instance_file(cnf: CnfFile, reads: Any, out: str) -> str:
    """The DIMACS file a binary reads for a CNF-set instance: the user's own (as an absolute
    path, so a name starting with ``-`` is never an option) or its rewrite at ``out``."""
    from satdoku.cnf.dimacs_stream import hand_over, rewrite_dimacs, scan_dimacs

    scan = scan_dimacs(cnf.path, expect_sha256=cnf.sha256)
    if hand_over(scan, reads):
        return os.path.abspath(cnf.path)
    rewrite_dimacs(scan, out)
    return out


def _solve_puzzle(record: Record, solver: ConfiguredSolver, deadline: Deadline) -> Result:
    if record.puzzle is None:
        return Result(ERROR, message=f"{solver.name} is a puzzle-level solver: it cannot solve "
                                     "a DIMACS instance")
    return solver.impl.solve_puzzle(record.puzzle, deadline)


def _solve_cnf(solver: ConfiguredSolver, formula: Formula, deadline: Deadline,
               proof: str | None, limits: RunLimits) -> Result:
    """Solve at the CNF level (a solver that writes proofs writes one to ``proof``; one that
    runs in a child process gets the run's limits for it: solvers/base.py, ChildCnfSolver)."""
    if solver.incremental and formula.rules is not None:
        # an UNSAT under assumptions is solved again for its proof by solvers that write one
        return solver.impl.solve_incremental(formula.rules, formula.own, deadline, proof)
    if solver.in_child:
        return solver.impl.solve_cnf(formula.whole(), deadline, proof, limits)
    return solver.impl.solve_cnf(formula.whole(), deadline, proof)


@contextmanager
def _proof_file(keep: str | None, workdir: str | None) -> Iterator[str]:
    """Where a solver writes this instance's proof: ``keep`` (the caller's file), else a fresh
    name in ``workdir`` (a directory a whole shard reuses: no directory made per instance),
    else in a temporary directory of its own. A stale file never passes for a new proof."""
    if keep is not None:
        if os.path.exists(keep):
            os.remove(keep)
        yield keep
        return
    if workdir is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield os.path.join(tmp, "proof")
        return
    path = os.path.join(workdir, "proof")
    if os.path.exists(path):
        os.remove(path)
    try:
        yield path
    finally:
        if os.path.exists(path):
            os.remove(path)


def _certify(formula: Formula, result: Result, proof: str, keep: bool,
             time_limit: float | None, proof_format: str = "drat") -> None:
    """Check the proof of an UNSAT answer (``proof_format`` drat or lrat) within
    ``time_limit`` seconds: a missing or rejected proof makes it ERROR; a check that runs out
    of its budget leaves it UNSAT, unchecked."""
    from satdoku.cnf.drat import OUT_OF_BUDGET, check_proof

    if not os.path.exists(proof):
        result.status, result.message = ERROR, "UNSAT without the proof this solver must write"
        return
    if proof_format == "lrat":
        from satdoku.cnf.lrat import check_lrat

        check = check_lrat(formula, proof, time_limit=time_limit)
    else:
        check = check_proof(formula, proof, time_limit=time_limit)
    result.proof_checked = check.ok
    result.proof = proof if keep else None  # a temporary file is gone after the solve
    if check.status == OUT_OF_BUDGET:
        result.message = (result.message + "; " if result.message else "") + check.message
    elif not check.ok:
        result.status, result.message = ERROR, f"UNSAT proof rejected: {check.message}"


def _enforce_limit(result: Result, time_limit: float | None, clock: str = WALL) -> None:
    """An answer that arrived after the time limit (on its clock) is a TIMEOUT, whatever it
    said: every solver is held to the same limit. The late answer is kept in the message."""
    used = result.cpu_seconds if clock == CPU else result.wall_seconds
    if (time_limit is not None and result.status in (SAT, UNSAT)
            and used > time_limit + LIMIT_GRACE):
        result.message = (f"answered {result.status} after {used:.2f} {clock} s, "
                          f"past the {time_limit:g} s limit")
        result.status, result.model, result.board = TIMEOUT, None, None
        result.termination = TIMELIMIT


def verify(record: Record, encoding: str | Codec, result: Result, cnf: Cnf | None = None
           ) -> Answer:
    """Check a result against its instance: decode and verify a model or board, accept a
    checked proof. ``cnf`` is the whole formula (needed to verify a DIMACS instance's model)."""
    status = result.status
    if status == UNSAT:
        if (record.puzzle is not None and record.solution is not None
                and not record.puzzle.check_solution(record.solution)):
            return Answer(result, FAILED, GIVEN_SOLUTION_REFUTES_UNSAT)
        return Answer(result, PROOF if result.proof_checked else UNCHECKED, result.message)
    if status == INVALID:
        return Answer(result, UNCHECKED, record.error or result.message)
    if status != SAT:
        return Answer(result, UNCHECKED, result.message)
    if record.cnf is not None:
        return _verify_cnf_model(record, result, cnf)
    puzzle = record.puzzle
    if puzzle is None:
        return Answer(result, FAILED, "SAT answer for an instance without a puzzle")
    board = result.board
    if board is None:
        if result.model is None:
            return Answer(result, FAILED, "status SAT without a model")
        from satdoku.cnf.decode import DecodeError

        try:
            board = encoding_of(encoding).decode(result.model, puzzle)
        except DecodeError as exc:
            return Answer(result, FAILED, f"model does not decode: {exc}")
    problems = puzzle.check_solution(board)
    if problems:
        return Answer(result, FAILED, "; ".join(problems[:3]), board)
    detail = ""
    if record.solution is not None and tuple(board) != record.solution:
        detail = GIVEN_DIFFERS
    return Answer(result, YES, detail, tuple(board))


def _verify_cnf_model(record: Record, result: Result, cnf: Cnf | None) -> Answer:
    """A DIMACS instance's model against every clause (and no variable set both ways): in the
    formula held (a C pass over its flat buffer), else in a streaming pass over its file."""
    if result.model is None:
        return Answer(result, FAILED, "status SAT without a model")
    if cnf is not None:
        check = cnf.check_model(result.model)
    else:
        from satdoku.cnf.dimacs_fast import DimacsError
        from satdoku.cnf.dimacs_stream import check_model_file
        from satdoku.sources import InputError

        assert record.cnf is not None
        try:
            check = check_model_file(record.cnf.path, record.cnf.sha256, record.cnf.num_vars,
                                     result.model)
        except (InputError, DimacsError) as exc:  # changed or gone since it was read
            result.status, result.model, result.message = ERROR, None, f"model not checked: {exc}"
            return Answer(result, UNCHECKED, result.message)
    if not check.ok:
        return Answer(result, FAILED, check.problem())
    return Answer(result, YES, "")


__all__ = ["CNF", "PUZZLE", "Answer", "ConfiguredSolver", "RunLimits", "assign_cores",
           "encoding_of", "formula_of", "open_solver", "solve", "verify"]
