"""The ``dimacs_files`` target: DIMACS files and solver answers read as streams, against their
readable forms.

A case is the bytes of a DIMACS file (most of them well formed, others with what users' files
have: comments with CR line ends, tabs, CRLF, blank lines, ``-0`` and ``00``, a SATLIB ``%``
trailer, a last clause without its 0, a byte-order mark; and what must be refused: a token that
is not a literal, one out of range, a second ``p`` line, a wrong clause count), a model to check
against it, a chunk size, and a solver's answer text for that model (``s`` and ``v`` lines,
``c`` lines between them, lines that only look like ``v`` lines). It must hold that:

- :func:`~satdoku.cnf.dimacs_stream.scan_dimacs` read as a stream (the compiled
  ``BodyScanner``, the file cut into pieces of the chunk size) finds what the whole-file
  readable forms find (the Python reader, :func:`satdoku.identity.cnf_hash_bytes` for GBD's
  hash, the Python model check): the same sizes, comments, literals, standard-ness, GBD hash
  and unsatisfied clauses, or the same error line;
- :class:`~satdoku.solvers.output.AnswerStream` fed the answer in pieces of the chunk size
  keeps the literals and first bad token that the ``v`` lines hold, read line by line in
  plain Python.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from satdoku.cnf.dimacs_stream import scan_dimacs
from satdoku.cnf.formula import model_values
from satdoku.fuzz import cases as fc
from satdoku.fuzz.cases import Failure
from satdoku.fuzz.shrink import Budget, ddmin
from satdoku.fuzz.targets import Target
from satdoku.solvers.output import AnswerStream, v_literals_python

#: what a mutation may put into a body line
_NOISE = (b" ", b"\t", b"\r", b"\r\n", b"-", b"0", b"00", b"-0", b"x", b"c", b"%", b"p",
          b"\x0b", b"99999999999", b"\n", b"c\rx 1", b"+1")


@dataclass(frozen=True)
class DimacsFileCase:
    """A DIMACS file (its lines), a model to check against it, a chunk size and a solver's
    answer text for the model."""

    lines: tuple[bytes, ...]
    model: tuple[int, ...]
    chunk: int
    answer: bytes

    @property
    def data(self) -> bytes:
        return b"\n".join(self.lines)


def _clause(rng: random.Random, num_vars: int) -> bytes:
    lits = [rng.choice((-1, 1)) * rng.randint(1, max(1, num_vars))
            for _ in range(rng.randint(0, 4))]
    sep = rng.choice((b" ", b" ", b" ", b"  ", b"\t"))
    return sep.join(b"%d" % x for x in lits) + sep + b"0"


def _mutated(rng: random.Random, line: bytes) -> bytes:
    k = rng.randrange(len(line) + 1)
    how = rng.randrange(4)
    if how == 0:
        return line[:k] + rng.choice(_NOISE) + line[k + 1:]
    if how == 1:
        return line[:k] + line[k + 1:]
    if how == 2:
        return line[:k] + rng.choice(_NOISE) + line[k:]
    return rng.choice((b"", b"c a comment", b"c with\ra CR", b"%", b"0", b"   "))


def _answer(rng: random.Random, model: list[int]) -> bytes:
    """A solver's output for ``model``: ``s`` and ``v`` lines of random widths, ``c`` lines
    and lines that only look like ``v`` lines between them, now and then a bad token."""
    out = [b"c banner", b"s SATISFIABLE"]
    lits, at = [*model, 0], 0
    while at < len(lits):
        width = rng.randint(0, 6)
        words = [b"%d" % x for x in lits[at:at + width]]
        at += width
        if rng.random() < 0.05:
            words.insert(rng.randrange(len(words) + 1), rng.choice((b"x1", b"+3", b"-", b"2x")))
        sep = rng.choice((b" ", b" ", b"  ", b"\t"))
        out.append(b"v" + (b" " + sep.join(words) if words or rng.random() < 0.5 else b""))
        if rng.random() < 0.1:
            out.append(rng.choice((b"c between", b"vx 7", b"v\r", b"", b"v\t5")))
    end = rng.choice((b"\n", b"\r\n", b""))
    return b"\n".join(out).replace(b"\n", end if end else b"\n") + end


def make(rng: random.Random, kind: str) -> DimacsFileCase:
    """A file of up to 40 clauses over up to 30 variables: ``good`` ones well formed,
    ``mutated`` ones with some lines changed."""
    num_vars = rng.randint(0, 30)
    clauses = [_clause(rng, num_vars) for _ in range(rng.randint(0, 40))]
    count = len(clauses) + (rng.choice((-1, 1)) if rng.random() < 0.05 else 0)
    head = [rng.choice((b"c a comment", b"c", b"c with\ra CR", b""))
            for _ in range(rng.randint(0, 2))]
    header = rng.choice((b"p cnf %d %d", b"p cnf %d %d", b"p  cnf %d\t%d ", b"p cnf %d %d\r"))
    body = clauses
    if kind == "mutated":
        body = [_mutated(rng, c) if rng.random() < 0.15 else c for c in clauses]
        if rng.random() < 0.2:
            body.append(rng.choice((b"%", b"%\n0", b"c end\r", b"1 2", b"-0")))
    lines = [*head, header % (num_vars, max(0, count)), *body]
    if rng.random() < 0.05:
        lines[0] = b"\xef\xbb\xbf" + lines[0]
    if rng.random() < 0.7:
        lines.append(b"")  # the last line's end
    model = [v if rng.random() < 0.5 else -v for v in range(1, num_vars + 1)]
    chunk = rng.choice((1, 2, 3, 5, 8, 17, 64, 4096, 1 << 20))
    return DimacsFileCase(tuple(lines), tuple(model), chunk, _answer(rng, model))


def _scan(path: str, case: DimacsFileCase, engine: str) -> tuple[Any, ...]:
    """What one engine finds in the file: its findings, or its error's type and words."""
    values, _ = model_values(list(case.model), len(case.model))
    try:
        s = scan_dimacs(path, keep=True, gbd=True, engine=engine, chunk=case.chunk)
        checked = scan_dimacs(path, values=values, engine=engine, chunk=case.chunk) \
            if s.num_vars == len(case.model) else None
    except (ValueError, OSError) as exc:
        return (type(exc).__name__, str(exc))
    return (s.num_vars, s.num_clauses, s.sha256, s.comments, s.compression, s.standard, s.lits,
            s.instance_hash, checked and (checked.unsatisfied, checked.first_unsatisfied))


def _v_lines_python(text: bytes) -> tuple[list[int], str]:
    """The literals and first bad token of the v lines of a solver's output, line by line in
    plain Python (the oracle of the answer's stream)."""
    lits: list[int] = []
    bad = b""
    for line in text.split(b"\n"):
        if line[:2] == b"v " or line == b"v":
            got, wrong = v_literals_python(line[1:])
            lits += got
            bad = bad or wrong
    return lits, bad[:40].decode("utf-8", "replace")


def _answer_stream(case: DimacsFileCase) -> tuple[list[int], str]:
    stream = AnswerStream()
    for at in range(0, len(case.answer), case.chunk):
        stream.feed(case.answer[at:at + case.chunk])
    stream.close()
    _, model = stream.answer()
    return (model.tolist() if model is not None else []), stream.garbage


def dimacs_files_target(workdir: str | None = None) -> Target:
    folder = workdir or tempfile.mkdtemp(prefix="satdoku-fuzz-dimacs-")

    def run(case: DimacsFileCase) -> Failure | None:
        path = os.path.join(folder, "fuzz-dimacs.cnf")
        with open(path, "wb") as fh:
            fh.write(case.data)
        got, want = _scan(path, case, "stream"), _scan(path, case, "whole")
        if got != want:
            return Failure(fc.DISAGREEMENT, f"the stream's scan {str(got)[:300]} differs from "
                                            f"the whole-file reader's {str(want)[:300]}")
        got_answer, want_answer = _answer_stream(case), _v_lines_python(case.answer)
        if got_answer != want_answer:
            return Failure(fc.DISAGREEMENT, f"the answer's stream {str(got_answer)[:200]} "
                                            f"differs from its v lines read line by line "
                                            f"{str(want_answer)[:200]}")
        return None

    def shrink(case: DimacsFileCase, fails: Callable[[Any], bool], budget: Budget
               ) -> DimacsFileCase:
        lines = ddmin(list(case.lines), lambda ls: fails(replace(case, lines=tuple(ls))), budget)
        case = replace(case, lines=tuple(lines))
        answer = ddmin(case.answer.split(b"\n"),
                       lambda ls: fails(replace(case, answer=b"\n".join(ls))), budget)
        return replace(case, answer=b"\n".join(answer))

    def write(prefix: str, case: DimacsFileCase, comments: list[str]) -> list[str]:
        with open(prefix + ".cnf", "wb") as fh:
            fh.write(case.data)
        with open(prefix + ".out", "wb") as fh:
            fh.write(case.answer)
        with open(prefix + ".txt", "w", encoding="utf-8") as fh:
            fh.write("\n".join([*comments, f"chunk {case.chunk}",
                                f"model {list(case.model)}"]) + "\n")
        return [prefix + ".cnf", prefix + ".out", prefix + ".txt"]

    return Target("dimacs_files", "DIMACS files and solver answers read as streams (compiled) "
                  "against the whole-file readable forms", ("good", "mutated"), make, run,
                  shrink, write)
