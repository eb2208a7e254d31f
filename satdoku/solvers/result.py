"""What a run produced, and the one home of the words the stage files and reports use for it
(as BenchExec's result.py): the status of an answer, why a run ended (``termination``), how
SatSols says it was checked (``verified``), which backend measured it (``measurement``), and
the :class:`Result` and :class:`ChildUsage` records. Every other module imports these words
from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from satdoku.records import factory, record

SAT, UNSAT, TIMEOUT, INVALID, ERROR = "SAT", "UNSAT", "TIMEOUT", "INVALID", "ERROR"
MEMOUT = "MEMOUT"  # the memory limit ended the run (distinct from ERROR and TIMEOUT)
STATUSES = (SAT, UNSAT, TIMEOUT, MEMOUT, INVALID, ERROR)
#: Statuses that count as unsolved with a limit's penalty (PAR-2): the run ended at a limit.
LIMIT_STATUSES = (TIMEOUT, MEMOUT)

#: Why a run ended (SatOutputTimes ``termination``): it exited by itself, a limit stopped it,
#: a signal (``signal N``) ended its process, or it failed (``error``).
EXIT, TIMELIMIT, MEMLIMIT, TERM_ERROR = "exit", "timelimit", "memlimit", "error"
#: ``verified`` words of SatSols: checked model or board, checked proof, a wrong answer, not
#: checked (no answer to check).
YES, PROOF, FAILED, UNCHECKED = "yes", "proof", "FAILED", "-"
WRONG = "WRONG"  # key of the SatSols text of a SAT answer that failed verification (not a status)
#: How solver processes are limited and measured (config ``measurement``, ``--measurement``):
#: BenchExec's cgroups, satdoku's own launcher, or BenchExec where the host allows it.
BENCHEXEC, BASIC, AUTO = "benchexec", "basic", "auto"
MEASUREMENTS = (AUTO, BENCHEXEC, BASIC)
#: ``measurement`` of a run that stayed in the solve job's own process (no child to measure).
IN_PROCESS = "in-process"


@record
class Result:
    """What one solver run on one instance produced.

    ``solve_seconds`` is search only (what the adapter measured around its search);
    ``total_seconds`` covers the whole instance (building the solver, loading clauses, search)
    and is what the time limit holds; it is set, like the resource figures (``wall_seconds``,
    ``cpu_seconds``, ``max_rss_mb``, ``termination``), by the solve path
    (:func:`satdoku.solve.solve`), never by an adapter. ``check_seconds`` is the check of the
    answer after the solver stopped (an UNSAT proof check, bounded by its own budget, or the
    model / board check of a SAT answer), never part of the others. ``model`` is the DIMACS
    literals of a SAT answer: a list of ints, or an ``array('i')`` as a binary's output is
    read (4 bytes a literal); ``board`` a row-major tuple of values (puzzle-level
    solvers, or after decoding). ``child`` is the resource use of a child process the adapter
    ran the solver in (a binary, a forked backend), which the solve path adds to the
    in-process figures. ``proof_checked`` is True once the solve path's checker accepted the
    UNSAT proof.
    """

    status: str
    model: Sequence[int] | None = None
    board: tuple[int, ...] | None = None
    stats: dict[str, int] = factory(dict)
    solve_seconds: float = 0.0
    total_seconds: float = 0.0
    check_seconds: float = 0.0
    message: str = ""
    proof: str | None = None  # path of a DRUP/DRAT proof written for an UNSAT answer
    proof_checked: bool = False
    child: ChildUsage | None = None
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    max_rss_mb: float = 0.0
    termination: str = EXIT
    measurement: str = IN_PROCESS  # which backend measured the run (SatOutputTimes column)
    cores: str = ""  # the CPU cores the run was pinned to, e.g. "1" or "0,1" ("" unknown)


@record
class ChildUsage:
    """What a child process and all its descendants used, as its measurement backend saw it:
    user + system CPU seconds, peak memory in MB, why it ended (``exit``, ``timelimit``,
    ``memlimit``, ``signal N``), which backend measured it (``benchexec 3.35``, ``basic``) and
    its wall seconds (from its start to the end of its last process; 0 where the backend has
    none and the solve path's clock stands), and ``harness_seconds``: the rest of the call
    that ran it (starting the backend, cgroups, reading the output), which is not the
    solver's time."""

    cpu_seconds: float
    max_rss_mb: float
    termination: str = EXIT
    measurement: str = BASIC
    wall_seconds: float = 0.0
    harness_seconds: float = 0.0
