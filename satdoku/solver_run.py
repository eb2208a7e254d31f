"""One solver run, measured and checked against its formula: the core of the solve path that
knows no puzzle, encoding, input format or stage file.

:func:`satdoku.solve.solve` adds records, puzzles and encodings around it; ``satdoku dpll``
runs a DIMACS file's formula through it directly (:func:`solve_formula`), so a one-shot
command loads the solver it runs and the checks it needs, not the puzzle world. Here live:
the solver made from its registry record (:class:`ConfiguredSolver`), the measurement of one
run (:class:`Run`: wall and CPU seconds, peak memory, termination; the memory guard of an
in-process run), errors turned into statuses (:func:`run_measured`), the time limit enforced
on every answer (:func:`enforce_limit`), and the checks that need only the formula: an UNSAT
proof (:func:`certify`) and a model against every clause (:func:`formula_verdict`).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress

from satdoku.cnf.dimacs_fast import parse_dimacs_buffer
from satdoku.cnf.formula import Cnf, Formula
from satdoku.records import record, replace
from satdoku.solvers import cores
from satdoku.solvers.base import CPU, WALL, Deadline, RunLimits
from satdoku.solvers.registry import SOLVERS, SolverSpec, make_solver, resolve, solver_version
from satdoku.solvers.result import (
    ERROR,
    EXIT,
    FAILED,
    IN_PROCESS,
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

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any

#: Grace past the time limit for a clean stop (interrupt latency, process teardown); an answer
#: later than limit + grace is a TIMEOUT.
LIMIT_GRACE = 0.05


@record
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
    def binary_proofs(self) -> bool:
        """Its adapter can write a proof in the binary format as well (our cdcl:
        ``binary_proofs``, solvers/protocols.py), asked for when nobody keeps the proof."""
        return bool(getattr(self.impl, "binary_proofs", False))

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
    claimed, own = cores.claim(count)
    if not own:
        return replace(limits, cores=None)
    cores.pin(claimed)
    return replace(limits, cores=claimed)


def read_formula(data: bytes, source: str) -> Formula:
    """A DIMACS instance's formula from the file's bytes, as a flat literal buffer (the
    compiled reader when it is built: no numpy, no clause lists until someone needs them)."""
    buf = parse_dimacs_buffer(data, source)
    return Formula.of(Cnf(buf.num_vars, None, list(buf.comments), lits=buf.lits,
                          num_clauses=buf.num_clauses))


@record
class Pause:
    """Wall and CPU seconds of one pause of a run (start values until it ends)."""

    wall: float
    cpu: float


class Run:
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
    def paused(self) -> Iterator[Pause]:
        """Work inside the run that is not the solver's (writing a binary's input file):
        excluded from the run's wall and CPU seconds."""
        pause = Pause(time.perf_counter(), self.clock())
        try:
            yield pause
        finally:
            pause.wall = time.perf_counter() - pause.wall
            pause.cpu = self.clock() - pause.cpu
            self.paused_wall += pause.wall
            self.paused_cpu += pause.cpu

    def __enter__(self) -> Run:
        if self.limit is not None and not self.solver.in_child:
            if self.solver._baseline is None:
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
ALLOCATION_WORDS = ("failed to map", "cannot allocate memory", "out of memory", "bad_alloc")


def allocation_failed(exc: BaseException) -> bool:
    text = f"{exc}".lower()
    return any(w in text for w in ALLOCATION_WORDS)


def first_line(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    hit = [ln for ln in lines if any(w in ln.lower() for w in ALLOCATION_WORDS)]
    return (hit or lines or [""])[0].strip()


def address_space() -> int:
    """This process's virtual memory size in bytes (what RLIMIT_AS bounds)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def with_memory_option(limits: RunLimits, solver: ConfiguredSolver) -> RunLimits:
    """``limits`` with the solver's ``memory_limit`` option where the caller set none."""
    if limits.memory_mb is None and solver.options.get("memory_limit") is not None:
        return replace(limits, memory_mb=float(solver.options["memory_limit"]))
    return limits


def run_measured(solver: ConfiguredSolver, limits: RunLimits,
                 attempt: Callable[[Deadline, Run], Result]) -> Result:
    """Run ``attempt`` once as the solver's run: its deadline starts now, the run is measured
    (:class:`Run`, under the memory guard of ``limits.memory_mb``), an exception becomes ERROR
    (a refused allocation MEMOUT, a rules build out of time TIMEOUT) and an answer past the
    time limit TIMEOUT."""
    memory_limit = limits.memory_mb
    run = Run(solver, memory_limit)
    deadline = limits.deadline()
    try:
        with run:
            result = attempt(deadline, run)
    except TimeoutError as exc:  # RulesTimeout: the rules build ran out of time
        result = Result(TIMEOUT, message=str(exc))
    except MemoryError:
        result = Result(MEMOUT, message=f"memory limit of {memory_limit:g} MB reached"
                        if memory_limit is not None else "out of memory")
    except Exception as exc:  # a solver or encoder bug must not take a whole shard down
        if memory_limit is not None and allocation_failed(exc):  # under the guard
            result = Result(MEMOUT, message=f"memory limit of {memory_limit:g} MB reached: "
                                            f"{type(exc).__name__}: {first_line(exc)}")
        else:
            result = Result(ERROR, message=f"{type(exc).__name__}: {exc}")
    run.measure(result)
    result.cores = cores.describe(limits.cores)
    enforce_limit(result, limits.time_limit, limits.clock)
    return result


def out_of_time(deadline: Deadline) -> Result | None:
    """TIMEOUT when the time ran out before the solver started (reading or encoding, counted
    in the limit, used it up), else None."""
    if deadline.expired():
        return Result(TIMEOUT, message="time limit reached while encoding")
    return None


class Verdict(namedtuple("Verdict", "verified detail", defaults=("",))):
    """What the check of an answer found: ``verified`` (``yes``, ``proof``, ``FAILED`` or
    ``-``) and a ``detail`` (why it failed, or the solver's message; default empty). A
    ``collections.namedtuple``: ``typing.NamedTuple`` would cost a one-shot command the import
    of :mod:`typing`."""

    __slots__ = ()


def formula_verdict(result: Result, cnf: Cnf | None) -> Verdict:
    """The check of an answer that needs only its formula: UNSAT counts as checked once its
    proof was (:func:`certify`); a model must satisfy every clause of ``cnf`` (a C pass over
    its flat buffer). ``cnf`` None: a SAT model is left to the caller (a file checked in a
    streaming pass)."""
    status = result.status
    if status == UNSAT:
        return Verdict(PROOF if result.proof_checked else UNCHECKED, result.message)
    if status != SAT:
        return Verdict(UNCHECKED, result.message)
    if result.model is None:
        return Verdict(FAILED, "status SAT without a model")
    assert cnf is not None
    check = cnf.check_model(result.model)
    if not check.ok:
        return Verdict(FAILED, check.problem())
    return Verdict(YES, "")


def solve_formula(solver: ConfiguredSolver, formula: Formula, limits: RunLimits | float | None,
                  proof_path: str | None = None) -> tuple[Result, Verdict]:
    """Solve a formula held in memory with a CNF-level solver within ``limits``, measured, and
    check its answer: the proof of an UNSAT (kept at ``proof_path`` if given) within
    ``limits.check_budget``, a model against every clause; the check is timed apart
    (``check_seconds``)."""
    limits = with_memory_option(RunLimits.of(limits), solver)
    with ExitStack() as stack:
        proof: str | None = None

        def attempt(deadline: Deadline, run: Run) -> Result:
            nonlocal proof
            if solver.proofs:
                proof = stack.enter_context(proof_file(proof_path, None))
            return out_of_time(deadline) or solve_cnf(solver, formula, deadline, proof, limits,
                                                      kept=proof_path is not None)

        result = run_measured(solver, limits, attempt)
        checking = time.perf_counter()  # the solver's time ends here; the check's begins
        if result.status == UNSAT and proof is not None:
            certify(formula, result, proof, proof_path is not None, limits.check_budget,
                    solver.proof_format)
        verdict = formula_verdict(result, formula.whole())
        result.check_seconds = time.perf_counter() - checking
    return result, verdict


def solve_cnf(solver: ConfiguredSolver, formula: Formula, deadline: Deadline,
              proof: str | None, limits: RunLimits, kept: bool = True) -> Result:
    """Solve at the CNF level (a solver that writes proofs writes one to ``proof``; one that
    runs in a child process gets the run's limits for it: solvers/base.py, ChildCnfSolver).
    A proof that is not ``kept`` (a temporary file, checked and removed) is asked for in the
    binary format from a solver that can write it (``binary_proofs``, solvers/protocols.py):
    the checkers read either, and the binary one costs less to write and to read (issue 29:
    the text cost a one-shot UNSAT run as much as a sixth of its process)."""
    binary = proof is not None and not kept and solver.binary_proofs
    extra = {"binary_proof": True} if binary else {}
    if solver.incremental and formula.rules is not None:
        # an UNSAT under assumptions is solved again for its proof by solvers that write one
        return solver.impl.solve_incremental(formula.rules, formula.own, deadline, proof,
                                             **extra)
    if solver.in_child:
        return solver.impl.solve_cnf(formula.whole(), deadline, proof, limits, **extra)
    return solver.impl.solve_cnf(formula.whole(), deadline, proof, **extra)


@contextmanager
def proof_file(keep: str | None, workdir: str | None) -> Iterator[str]:
    """Where a solver writes this instance's proof: ``keep`` (the caller's file), else a fresh
    name in ``workdir`` (a directory a whole shard reuses: no directory made per instance),
    else in a temporary directory of its own. A stale file never passes for a new proof."""
    if keep is not None:
        if os.path.exists(keep):
            os.remove(keep)
        yield keep
        return
    if workdir is None:
        with scratch_dir() as tmp:
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


@contextmanager
def scratch_dir() -> Iterator[str]:
    """A fresh directory of this user's alone (mode 0700), removed with its contents afterwards:
    what ``tempfile.TemporaryDirectory()`` gives, made without importing :mod:`tempfile` where
    a one-shot process can. Importing tempfile loads shutil, random and weakref, about 13
    million instructions, an eighth of a one-shot ``satdoku dpll``'s own start-up (issue 29),
    which makes one directory for the proof of every run.

    On POSIX, when tempfile is not loaded yet, the directory is made with a random name where
    tempfile would look first (``$TMPDIR``, ``$TEMP`` or ``$TMP``, the first one set, else
    ``/tmp``). When that fails, when tempfile is already loaded (a longer process, whose
    ``tempfile.tempdir`` may be set) or elsewhere, tempfile itself makes it (``mkdtemp``, which
    tries its other candidates). Clean-up removes the files a solver wrote there; anything else
    (a directory) goes through ``shutil.rmtree``; a directory already gone is no error."""
    path = None
    if os.name == "posix" and "tempfile" not in sys.modules:
        root = next((os.environ[key] for key in ("TMPDIR", "TEMP", "TMP")
                     if os.environ.get(key)), "/tmp")  # fmt: skip
        try:
            path = os.path.join(os.path.abspath(root), f"tmp{os.urandom(6).hex()}")
            os.mkdir(path, 0o700)
        except OSError:
            path = None
    if path is None:
        import tempfile

        path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    with suppress(FileNotFoundError):  # a file the solver removed itself
                        os.remove(entry.path)
            os.rmdir(path)
        except FileNotFoundError:  # removed already (TemporaryDirectory ignores it too)
            pass
        except OSError:
            import shutil

            shutil.rmtree(path)


def certify(formula: Formula, result: Result, proof: str, keep: bool,
            time_limit: float | None, proof_format: str = "drat") -> None:
    """Check the proof of an UNSAT answer (``proof_format`` drat or lrat) within
    ``time_limit`` seconds: a missing or rejected proof makes it ERROR; a check that runs out
    of its budget leaves it UNSAT, unchecked. The checkers are imported here, on the first
    UNSAT answer: a run that finds a model never needs them."""
    from satdoku.cnf.drat import OUT_OF_BUDGET, check_proof
    from satdoku.cnf.lrat import check_lrat

    if not os.path.exists(proof):
        result.status, result.message = ERROR, "UNSAT without the proof this solver must write"
        return
    if proof_format == "lrat":
        check = check_lrat(formula, proof, time_limit=time_limit)
    else:
        check = check_proof(formula, proof, time_limit=time_limit)
    result.proof_checked = check.ok
    result.proof = proof if keep else None  # a temporary file is gone after the solve
    if check.status == OUT_OF_BUDGET:
        result.message = (result.message + "; " if result.message else "") + check.message
    elif not check.ok:
        result.status, result.message = ERROR, f"UNSAT proof rejected: {check.message}"


def enforce_limit(result: Result, time_limit: float | None, clock: str = WALL) -> None:
    """An answer that arrived after the time limit (on its clock) is a TIMEOUT, whatever it
    said: every solver is held to the same limit. The late answer is kept in the message."""
    used = result.cpu_seconds if clock == CPU else result.wall_seconds
    if (time_limit is not None and result.status in (SAT, UNSAT)
            and used > time_limit + LIMIT_GRACE):
        result.message = (f"answered {result.status} after {used:.2f} {clock} s, "
                          f"past the {time_limit:g} s limit")
        result.status, result.model, result.board = TIMEOUT, None, None
        result.termination = TIMELIMIT
