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
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from satdoku.cnf.codec import Codec, codec
from satdoku.cnf.decode import DecodeError
from satdoku.cnf.dimacs_fast import DimacsError
from satdoku.cnf.dimacs_stream import (
    DimacsScan,
    check_model_file,
    check_unchanged,
    hand_over,
    rewrite_dimacs,
    scan_dimacs,
)
from satdoku.cnf.encodings import Unencodable
from satdoku.cnf.formula import Cnf, Formula
from satdoku.formats import Record, format_board
from satdoku.formats.cnfset import solution_text
from satdoku.formats.record import CnfFile
from satdoku.identity import record_hash
from satdoku.size_limits import TooLarge
from satdoku.solver_run import (
    LIMIT_GRACE,
    ConfiguredSolver,
    Run,
    assign_cores,
    certify,
    formula_verdict,
    open_solver,
    out_of_time,
    proof_file,
    read_formula,
    run_measured,
    solve_cnf,
    with_memory_option,
)
from satdoku.solvers.base import CPU, Deadline, RunLimits
from satdoku.solvers.external import write_cnf
from satdoku.solvers.registry import CNF, FILE, PUZZLE
from satdoku.solvers.result import (
    ERROR,
    FAILED,
    INVALID,
    PROOF,
    SAT,
    UNCHECKED,
    UNSAT,
    YES,
    Result,
)
from satdoku.sources import InputError
from satdoku.stagefiles.tsv import GIVEN_DIFFERS, GIVEN_SOLUTION_REFUTES_UNSAT, sols_row


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
            text = format_board(self.board, record.notation, record.puzzle.size)
        elif record.cnf is not None and self.result.model is not None and self.verified == YES:
            text = solution_text(self.result.model)  # a CNF's solution is its model
        return sols_row(record.id, record.line, self.status, self.verified, text, self.detail,
                        record_hash(record))


def formula_of(record: Record, encoding: str | Codec, deadline: Deadline | None = None
               ) -> Formula:
    """The formula of a valid record: a puzzle encoded (rules cached per layout; building them
    stops at ``deadline``), or a DIMACS instance read from its file in one streaming pass into
    a flat literal buffer (checked against the checksum recorded when it was read:
    :class:`~satdoku.cnf.dimacs_stream.FileChanged`)."""
    if record.puzzle is not None:
        return codec(encoding).formula(record.puzzle, deadline)
    if record.cnf is not None:
        scan = scan_dimacs(record.cnf.path, keep=True, expect_sha256=record.cnf.sha256)
        return Formula.of(Cnf(scan.num_vars, None, scan.comments, lits=scan.lits,
                              num_clauses=scan.num_clauses))
    raise ValueError(f"instance {record.id} is invalid: {record.error}")


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
        encoding = codec(encoding)  # resolved once; the record goes down the path
        if formula is None:
            try:  # the memory guard, from the sizes alone, before anything is built
                encoding.check_size(record.puzzle)
            except (TooLarge, Unencodable) as exc:  # (augmented without boxes: one line)
                return Answer(Result(INVALID, message=str(exc)), detail=str(exc))
    limits = with_memory_option(limits, solver)
    with ExitStack() as stack:
        proof: str | None = None

        def attempt(deadline: Deadline, run: Run) -> Result:
            nonlocal formula, proof, workdir
            if solver.level == PUZZLE:
                return _solve_puzzle(record, solver, deadline)
            if formula is None and not _reads_user_file(record, solver):
                formula = formula_of(record, encoding, deadline)  # inside the deadline
            if solver.proofs:
                proof = stack.enter_context(proof_file(proof_path, workdir))
            if (late := out_of_time(deadline)) is not None:  # encoding (or the caller) used it
                return late
            if solver.spec.input == FILE:  # a binary: its DIMACS file, off the clock
                if workdir is None:
                    workdir = stack.enter_context(tempfile.TemporaryDirectory())
                return _solve_file(solver, record, formula, deadline, proof, limits, run,
                                   workdir)
            assert formula is not None
            return solve_cnf(solver, formula, deadline, proof, limits,
                             kept=proof_path is not None)

        result = run_measured(solver, limits, attempt)
        checking = time.perf_counter()  # the solver's time ends here; the check's begins
        if result.status == UNSAT and proof is not None and formula is not None:
            certify(formula, result, proof, proof_path is not None, limits.check_budget,
                    solver.proof_format)
        cnf = formula.whole() if record.cnf is not None and formula is not None else None
        answer = verify(record, encoding, result, cnf)
        result.check_seconds = time.perf_counter() - checking
    return answer


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
                deadline: Deadline, proof: str | None, limits: RunLimits, run: Run,
                workdir: str) -> Result:
    """Solve with a solver that reads a DIMACS file: the file is prepared with the clock
    stopped (it is the harness's work, not the solver's), then the solver runs on it. A
    DIMACS instance's own file is handed over when the binary reads it as we do
    (:func:`~satdoku.cnf.dimacs_stream.hand_over`; the solver option ``reads`` lists the
    compressions it reads), else rewritten from a streaming pass; a puzzle's formula is
    written from its clauses."""
    path = os.path.join(workdir, "instance.cnf")
    handed = False
    with run.paused() as paused:
        if _on_file(record):
            assert record.cnf is not None
            path, handed = _instance_file(record.cnf, solver.options.get("reads", ()), path)
        else:
            assert formula is not None
            write_cnf(formula, path)
    deadline = deadline.shifted(paused.cpu if deadline.clock == CPU else paused.wall)
    result = solver.impl.solve_file(path, deadline, proof, limits, workdir)
    if handed and result.status == UNSAT:  # a SAT answer's model check reads the file anyway
        assert record.cnf is not None
        with run.paused():
            _unsat_of_file_read(record.cnf, result)
    return result


def _instance_file(cnf: CnfFile, reads: Any, out: str) -> tuple[str, bool]:
    """(the DIMACS file a binary reads for a CNF-set instance, whether it is the user's own):
    the user's own (as an absolute path, so a name starting with ``-`` is never an option),
    handed over as the set's read found it (no pass over it here; a record without its form
    gets one, checked against the sha256), or its rewrite at ``out`` (a pass checked against
    the sha256)."""
    if cnf.standard is None:  # not recorded: found out here
        scan = scan_dimacs(cnf.path, expect_sha256=cnf.sha256)
    else:
        scan = DimacsScan(cnf.path, cnf.num_vars, cnf.num_clauses, cnf.sha256,
                          compression=cnf.compression, standard=cnf.standard)
    if hand_over(scan, reads):
        return os.path.abspath(cnf.path), True
    rewrite_dimacs(scan, out)
    return out, False


def _unsat_of_file_read(cnf: CnfFile, result: Result) -> None:
    """An UNSAT answer on a file handed over as it was read: an ERROR unless the file is
    still the one read (its sha256), as a SAT answer's model check makes sure."""
    try:
        check_unchanged(cnf.path, cnf.sha256)
    except InputError as exc:
        result.status, result.message = ERROR, f"UNSAT not accepted: {exc}"


def _solve_puzzle(record: Record, solver: ConfiguredSolver, deadline: Deadline) -> Result:
    if record.puzzle is None:
        return Result(ERROR, message=f"{solver.name} is a puzzle-level solver: it cannot solve "
                                     "a DIMACS instance")
    return solver.impl.solve_puzzle(record.puzzle, deadline)


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
        try:
            board = codec(encoding).decode(result.model, puzzle)
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
    if cnf is not None or result.model is None:
        return Answer(result, *formula_verdict(result, cnf))
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


#: the solve path's names, with those of its core (solver_run.py) its callers use through it
__all__ = ["CNF", "LIMIT_GRACE", "PUZZLE", "Answer", "ConfiguredSolver", "RunLimits",
           "assign_cores", "formula_of", "open_solver", "read_formula", "solve",
           "verify"]
