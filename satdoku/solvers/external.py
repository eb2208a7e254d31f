"""Any SAT solver binary as a solver: ``{solver: external, command: "cadical -q {cnf} {proof}"}``.

The command is split like a shell word list (:func:`shlex.split`) once, when the solver is made,
and never run through a shell: ``{cnf}`` (the instance's DIMACS file, written by the solve path
outside the clock), ``{proof}`` (where the binary writes its proof: with ``proof: drat`` DRAT,
with ``proof: lrat`` LRAT such as ``cadical --lrat`` writes, text or binary) and ``{result}``
(a MiniSat-style result file: ``SAT``/``UNSAT`` and the model) are replaced inside each word,
so a path with spaces, quotes or ``$(...)`` stays one argument and runs nothing. The binary
runs in its own process group under the limits (:mod:`satdoku.solvers.process`).

Output contract (SAT competition): ``s SATISFIABLE|UNSATISFIABLE|UNKNOWN`` and ``v`` lines on
stdout, exit code 10 (SAT) or 20 (UNSAT); 0 is accepted with an ``s`` line or a result file.
Anything else (a crash, garbage, ``s UNKNOWN`` before the limit, an exit code that contradicts
the answer) is an ERROR whose message ends with the binary's last stderr line. The solve path
verifies every model and checks every proof like any other solver's. Its stdout is read as a
stream (:class:`~satdoku.solvers.output.AnswerStream`): the ``s`` line, the ``v`` literals and
the last lines are kept, whatever else it prints is counted and dropped. It runs under the
measurement backend its :class:`~satdoku.solvers.base.RunLimits` name
(:mod:`satdoku.solvers.measurement`: BenchExec's cgroups, or the basic launcher).

Identity: :func:`identity` joins the ``version_command`` output and the sha256 of the binary
(resolved on PATH) into the registry's solver version, so a new binary reruns only its jobs.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from satdoku.cnf.formula import Cnf, Formula
from satdoku.solvers.base import Deadline, RunLimits
from satdoku.solvers.measurement import run_command
from satdoku.solvers.output import AnswerStream, parse_output, v_literal_bytes
from satdoku.solvers.process import last_line, limit_result
from satdoku.solvers.result import ERROR, SAT, UNSAT, Result

PLACEHOLDERS = ("{cnf}", "{proof}", "{result}")
PROOF_FORMATS = ("drat", "lrat")
#: Exit codes of the SAT competition.
EXIT_SAT, EXIT_UNSAT = 10, 20
#: Seconds a ``version_command`` may take.
VERSION_TIMEOUT = 10.0


class ExternalError(ValueError):
    """A bad external solver entry (one line naming what is wrong)."""


__all__ = ["ExternalError", "ExternalSolver", "parse_output", "parse_result_file",
           "split_command", "write_cnf"]


def split_command(command: str, proof: str | None = None) -> list[str]:
    """The argument list of a command template, checked: ``{cnf}`` present, ``{proof}`` iff a
    proof format is set, no other ``{...}`` placeholder."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ExternalError(f"command {command!r}: {exc}") from None
    if not argv:
        raise ExternalError("command is empty")
    text = " ".join(argv)
    if "{cnf}" not in text:
        raise ExternalError(f"command {command!r} has no {{cnf}} (where the instance goes)")
    if ("{proof}" in text) != (proof is not None):
        raise ExternalError(f"command {command!r}: {{proof}} and 'proof: drat' (or lrat) go "
                            "together")
    if proof is not None and proof not in PROOF_FORMATS:
        raise ExternalError(f"proof {proof!r}: known formats {', '.join(PROOF_FORMATS)}")
    stray = text
    for p in PLACEHOLDERS:
        stray = stray.replace(p, "")
    if "{" in stray and "}" in stray[stray.index("{"):]:
        raise ExternalError(f"command {command!r}: unknown placeholder (known: "
                            f"{', '.join(PLACEHOLDERS)})")
    return argv


def fill(argv: Sequence[str], paths: Mapping[str, str]) -> list[str]:
    """The argument list with each placeholder replaced inside its word (never re-split)."""
    out = []
    for word in argv:
        for key, value in paths.items():
            word = word.replace("{" + key + "}", value)
        out.append(word)
    return out


def binary_path(argv0: str) -> str | None:
    """The file a command's first word runs: a path as given, else the PATH lookup."""
    if os.sep in argv0:
        return argv0 if os.path.isfile(argv0) else None
    return shutil.which(argv0)


@functools.lru_cache(maxsize=64)
def identity(command: str, version_command: str | None = None, proof: str | None = None
             ) -> str:
    """What identifies the binary behind a command: the ``version_command`` output (first
    line) and the sha256 of the binary resolved on PATH (or 'not found')."""
    argv = split_command(command, proof)
    parts = []
    if version_command:
        parts.append("version " + _version_output(version_command))
    path = binary_path(argv[0])
    if path is None:
        parts.append(f"binary {argv[0]} not found")
    else:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        parts.append(f"sha256 {digest.hexdigest()[:16]}")
    return " ".join(parts)


def _version_output(version_command: str) -> str:
    try:
        argv = shlex.split(version_command)
        done = subprocess.run(argv, capture_output=True, timeout=VERSION_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return f"({type(exc).__name__}: {exc})"
    text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
    return " ".join(text.splitlines()[:1]) or f"(exit {done.returncode}, no output)"


def parse_result_file(text: str | bytes) -> tuple[str | None, array[int] | None]:
    """A MiniSat-style result file: ``SAT`` + model line (the model as an ``array('i')``, read
    in one compiled pass: no list of millions of Python ints), ``UNSAT``, or ``INDET``;
    ValueError for a model token that is not a literal."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    words = data.split(None, 1)
    if not words:
        return None, None
    head = words[0].upper()
    if head == b"SAT":
        raw, bad = v_literal_bytes(words[1] if len(words) > 1 else b"")
        if bad:
            raise ValueError(f"not a literal: {bad[:40].decode('utf-8', 'replace')!r}")
        return SAT, array("i", raw)
    if head == b"UNSAT":
        return UNSAT, None
    if head in (b"INDET", b"UNKNOWN"):
        return "UNKNOWN", None
    return f"bad result file {data[:60].decode('utf-8', 'replace')!r}", None


class ExternalSolver:
    """A solver binary behind the CnfSolver interface: the solve path writes ``{cnf}`` (outside
    the clock) and calls :meth:`solve_file`."""

    def __init__(self, command: str, proof: str | None = None,
                 version_command: str | None = None, origin: str | None = None,
                 colour: str | None = None, name: str = "external",
                 reads: Sequence[str] = ()) -> None:
        self.name, self.command, self.proof = name, command, proof
        self.proof_format = proof or ""  # what the solve path checks its proofs as
        self.argv = split_command(command, proof)
        self.uses_result = any("{result}" in w for w in self.argv)
        self.version_command = version_command
        self.reads = tuple(reads)  # compressions the binary reads (the solve path's business)

    def solve_cnf(self, cnf: Cnf, deadline: Deadline, proof_path: str | None = None,
                  limits: RunLimits | None = None) -> Result:
        """Write ``cnf`` to a temporary file (inside the clock: the solve path uses
        :meth:`solve_file` with a file it wrote outside the clock) and solve it."""
        with tempfile.TemporaryDirectory(prefix="satdoku-ext-") as tmp:
            path = os.path.join(tmp, "instance.cnf")
            write_cnf(Formula.of(cnf), path)
            return self.solve_file(path, deadline, proof_path, limits or RunLimits(), tmp)

    def solve_file(self, cnf_path: str, deadline: Deadline, proof_path: str | None,
                   limits: RunLimits, workdir: str) -> Result:
        """Run the binary on a DIMACS file under ``limits`` and read its answer as it
        streams."""
        paths = {"cnf": cnf_path, "result": os.path.join(workdir, "result.txt")}
        if proof_path is not None:
            paths["proof"] = proof_path
        err = os.path.join(workdir, "stderr.txt")
        if os.path.exists(paths["result"]):
            os.remove(paths["result"])
        stream = AnswerStream()
        start = time.perf_counter()
        try:
            done = run_command(fill(self.argv, paths), deadline, limits, stream.feed, err)
        except OSError as exc:  # not found, not executable
            return Result(ERROR, message=f"cannot run {self.argv[0]}: {exc}")
        stream.close()
        seconds = done.usage.wall_seconds or time.perf_counter() - start
        limited = limit_result(done, deadline, limits.memory_mb, err)
        if limited is not None:
            limited.solve_seconds = seconds
            return limited
        result = self._answer(done.returncode, stream, paths["result"], err)
        result.solve_seconds, result.child = seconds, done.usage
        return result

    def _answer(self, code: int | None, stream: AnswerStream, result_file: str, err: str
                ) -> Result:
        """The answer of a finished run, or ERROR with the reason and the last stderr line
        (else the last line of other output)."""
        def error(why: str) -> Result:
            tail = last_line(err) or stream.last_lines()
            return Result(ERROR, message=why + (f": {tail}" if tail else ""))

        if code is None:
            return error("killed by a signal")
        if stream.garbage:
            return error(f"garbage in the output (exit code {code})")
        status, model = stream.answer()
        try:
            if status is None and self.uses_result and os.path.exists(result_file):
                with open(result_file, "rb") as fh:
                    status, model = parse_result_file(fh.read())
        except ValueError:
            return error(f"garbage in the result file (exit code {code})")
        if status is None:
            return error(f"no answer (exit code {code})")
        if status == "UNKNOWN":
            return error(f"answered UNKNOWN before the limit (exit code {code})")
        if status not in (SAT, UNSAT):
            return error(status)
        expected = EXIT_SAT if status == SAT else EXIT_UNSAT
        if code not in (expected, 0):
            return error(f"answered {status} with exit code {code}")
        if status == SAT and model is None:
            return error("SAT without a model")
        return Result(status, model=model)


_RULES_TEXT: dict[int, tuple[Cnf, str]] = {}


def write_cnf(formula: Formula, path: str) -> None:
    """Write a formula as DIMACS; the shared rules' text is made once per rules block (a whole
    shard of puzzles writes only each puzzle's own clauses)."""
    if formula.rules is None:
        cnf = formula.whole()
        body = _clauses_text(cnf.clauses)
        nvars, nclauses = cnf.num_vars, cnf.num_clauses
    else:
        key = id(formula.rules)
        cached = _RULES_TEXT.get(key)
        if cached is None or cached[0] is not formula.rules:
            _RULES_TEXT.clear()  # one rules block at a time (a shard's)
            cached = _RULES_TEXT[key] = (formula.rules, _clauses_text(formula.rules.clauses))
        body = cached[1] + _clauses_text(formula.own)
        nvars = formula.num_vars
        nclauses = len(formula.rules.clauses) + len(formula.own)
    with open(path, "w", encoding="ascii") as fh:
        fh.write(f"p cnf {nvars} {nclauses}\n")
        fh.write(body)


def _clauses_text(clauses: Sequence[Sequence[int]]) -> str:
    return "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)


def identity_of(options: Mapping[str, Any]) -> str:
    """The registry's identity hook: :func:`identity` of a configured external solver."""
    return identity(str(options.get("command", "")), options.get("version_command"),
                    options.get("proof"))


def check_options(options: Mapping[str, Any]) -> None:
    """The registry's check of a configured external solver (ExternalError, a ValueError)."""
    split_command(str(options.get("command", "")), options.get("proof"))
    if options.get("version_command"):
        try:
            shlex.split(str(options["version_command"]))
        except ValueError as exc:
            raise ExternalError(f"version_command: {exc}") from None


def make_external(name: str = "external", **options: Any) -> ExternalSolver:
    """Factory used by the registry (options: command, proof, version_command, reads, origin,
    colour)."""
    if "command" not in options:
        raise ExternalError(f"solver {name}: an external solver needs a command")
    return ExternalSolver(name=name, **options)
