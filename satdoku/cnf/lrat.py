"""LRAT proofs: every added clause names the clauses that make it follow, so a check only
follows them and runs in linear time.

An LRAT proof (what CaDiCaL writes with ``--lrat``; checked by lrat-check, lrat-trim and
cake_lpr) numbers clauses: the formula's are 1..m in file order (empty clauses and tautologies
count too), and each added clause takes a new id above every id before it. A step adds a
clause with its *hints*, the ids of the clauses that, taken in order under the negation of the
new clause, each become unit (and set their last literal) until the last one is falsified; or
it deletes clauses by id.

* text: ``id l1 .. lk 0 h1 .. hn 0`` adds clause ``id``; ``id d i1 .. in 0`` deletes clauses
  ``i1 .. in`` (its leading id, by convention the last added one, is read and ignored);
  ``c`` lines are comments; line breaks are whitespace like any other;
* binary (CaDiCaL's ``--lrat --binary``): ``a`` id literals 0 hints 0, ``d`` ids 0, each number
  ``x`` as the variable-byte (7 bits per byte, low first) ``2|x| + (x < 0)``. A file whose
  first byte is ``a`` or ``d``, or with a NUL byte, is binary.

The check, the same in both engines (one verdict, one message):

* a step is checked as soon as it is read; the first empty clause that checks ends the check
  (what follows it is not read), and a proof that ends without one is rejected;
* an added clause: its id is above the last (at most 2^24 above: ids are dense in practice and
  the checker indexes them), its literals are variables of the formula, and its hints, under
  the negation of its literals, are each unit (exactly one literal not false, which is then
  set true) until one has every literal false. A clause holding a literal and its negation
  needs no hint. A negative hint (a RAT step) is rejected: no solver we check writes one;
* a deletion forgets live clauses; deleting an id that is not live is ignored (lrat-check
  warns), a negative id rejects the proof;
* a formula clause's repeated literals count once.

Two engines: the compiled one (``satdoku.cnf._lrat``, built by setup.py beside the DRAT
checker) and the readable pure-Python checker below, the tests' oracle and the fallback. The solve
path calls :func:`check_lrat`; :func:`lrat_lines` writes a CDCL kernel's LRAT log as text and
:func:`to_binary` turns text steps into the binary format.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Sequence

from satdoku.cnf.drat import (
    OUT_OF_BUDGET,
    REJECTED,
    VERIFIED,
    OutOfBudget,
    ProofCheck,
    ProofError,
    flat_literals,
    proof_line,
    proof_tokens,
    read_proof_file,
    read_varint,
    write_varint,
)
from satdoku.cnf.formula import Cnf, Formula
from satdoku.cnf.watches import FALSE, TRUE, UNSET

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only (pathlib costs a one-shot command ~15 M instructions)
    from pathlib import Path

#: the largest absolute value of a number in a proof (ids, literals, hints)
MAX_NUMBER = (1 << 31) - 1
#: how far past the last id a new clause id may jump
MAX_ID_JUMP = 1 << 24
#: kernel log tags (satdoku/solvers/cdcl/kernel.c, cdcl/readable.py): add, delete
LOG_ADD, LOG_DELETE = 1, 2


def has_c_checker() -> bool:
    """Is the compiled LRAT checker built?"""
    try:
        from satdoku.cnf import _lrat  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:
        return False
    return True


def is_binary(data: bytes) -> bool:
    """CaDiCaL's binary LRAT? (A text proof starts with a number or a comment.)"""
    return data[:1] in (b"a", b"d") or b"\0" in data


# --- reading ---------------------------------------------------------------------------------

#: one parsed step: (deleting, id, literals, hints); a deletion's ids are in ``hints``
Step = tuple[bool, int, list[int], list[int]]

def parse_steps(data: bytes) -> Iterator[Step]:
    """The steps of a text or binary LRAT proof, in order; ProofError names the first bad
    place (read lazily: a check stops reading at the refutation)."""
    yield from (_parse_binary(data) if is_binary(data) else _parse_text(data))


def _parse_text(data: bytes) -> Iterator[Step]:
    # state: 0 between steps, 1 after the id, 2 literals, 3 hints, 4 deleted ids
    state, ident, lits, hints = 0, 0, [], []
    for m in proof_tokens(data):
        _, d, num, other = m.groups()
        if num is not None:
            digits = num.lstrip(b"-").lstrip(b"0")
            if len(digits) > 10 or int(digits or b"0") > MAX_NUMBER:
                shown = num[:40].decode()
                raise ProofError(f"proof line {proof_line(data, m.start(3))}: number {shown} "
                                 "out of range")
            value = int(num)
            if state == 0:
                state, ident, lits, hints = 1, value, [], []
            elif state in (1, 2):
                if value == 0:
                    state = 3
                else:
                    state = 2
                    lits.append(value)
            elif value == 0:
                yield state == 4, ident, lits, hints
                state = 0
            else:
                hints.append(value)
        elif d is not None and state == 1:
            state = 4
        elif other is not None or d is not None or state != 0:
            group = 4 if other is not None else 2 if d is not None else 1
            what = m.group(group).decode("latin-1")
            where = proof_line(data, m.start(group))
            if 32 <= ord(what) < 127:
                raise ProofError(f"proof line {where}: unexpected '{what}'")
            raise ProofError(f"proof line {where}: unexpected byte 0x{ord(what):02x}")
    if state != 0:
        raise ProofError("proof ends inside a step (truncated?)")


def _parse_binary(data: bytes) -> Iterator[Step]:
    i, n = 0, len(data)

    def number() -> int:
        nonlocal i
        value, i = read_varint(data, i, "number")
        if value >> 1 > MAX_NUMBER:
            raise ProofError(f"binary proof byte {i}: number out of range")
        return -(value >> 1) if value & 1 else value >> 1

    def until_zero() -> list[int]:
        out = []
        while (x := number()) != 0:
            out.append(x)
        return out

    while i < n:
        kind = data[i]
        if kind not in (0x61, 0x64):  # 'a', 'd'
            raise ProofError(f"binary proof byte {i}: step starts with {kind:#04x}, "
                             "not 'a' or 'd'")
        i += 1
        if kind == 0x64:
            yield True, 0, [], until_zero()
        else:
            ident = number()
            yield False, ident, until_zero(), until_zero()


# --- writing ---------------------------------------------------------------------------------

def lrat_lines(log: Sequence[int], num_clauses: int) -> list[str]:
    """A kernel's LRAT log as text lines (each with its newline). The log holds, per step,
    ``1, id, size, literals..., count, hints...`` (add) or ``2, id, size, literals...``
    (delete; consecutive deletions become one line, led by the last added id, or
    ``num_clauses`` before any)."""
    lines: list[str] = []
    last, deleted, pos = num_clauses, [], 0

    def flush() -> None:
        if deleted:
            lines.append(f"{last} d {' '.join(deleted)} 0\n")
            deleted.clear()

    while pos < len(log):
        tag, ident, size = log[pos], log[pos + 1], log[pos + 2]
        pos += 3
        if tag == LOG_DELETE:
            deleted.append(str(ident))
            pos += size
            continue
        flush()
        lits = "".join(f"{x} " for x in log[pos: pos + size])
        pos += size
        count = log[pos]
        hints = "".join(f"{x} " for x in log[pos + 1: pos + 1 + count])
        pos += 1 + count
        lines.append(f"{ident} {lits}0 {hints}0\n")
        last = ident
    flush()
    return lines


def to_binary(lines: Iterable[str]) -> bytes:
    """Text LRAT steps, one a line, in the binary format (the inverse of the binary reader)."""
    out = bytearray()
    for line in lines:
        tokens = line.split()
        if not tokens or tokens[0] == "c":
            continue
        if len(tokens) > 1 and tokens[1] == "d":
            out += b"d"
            for tok in tokens[2:]:
                write_varint(out, int(tok))
                if tok == "0":
                    break
            continue
        out += b"a"
        zeros = 0
        for tok in tokens:
            write_varint(out, int(tok))
            if tok == "0":
                zeros += 1
                if zeros == 2:
                    break
    return bytes(out)


# --- the readable checker --------------------------------------------------------------------

def _formula_vars(cnf: Cnf) -> int:
    return max([cnf.num_vars, *(abs(lit) for clause in cnf.clauses for lit in clause)])


def check_lrat_python(cnf: Cnf, data: bytes, time_limit: float | None = None) -> ProofCheck:
    """The readable checker on a proof's bytes (pure Python, slow; see the module
    docstring). :func:`check_lrat` reads files and text lines."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    try:
        status, message, lemmas = _check(cnf, data, deadline)
    except OutOfBudget:
        status, message, lemmas = OUT_OF_BUDGET, "", 0
    return ProofCheck(status, message, time.perf_counter() - start, "python", lemmas, lemmas)


def _check(cnf: Cnf, data: bytes, deadline: float | None) -> tuple[str, str, int]:
    n = _formula_vars(cnf)
    value = [UNSET] * (2 * n + 1)  # value[lit] for lit in ±1..±n (negative index)
    # clause id -> its distinct literals, None when deleted (index 0 unused)
    clauses: list[list[int] | None] = [None]
    for i, clause in enumerate(cnf.clauses):
        if deadline is not None and not i & 8191 and time.perf_counter() > deadline:
            raise OutOfBudget
        clauses.append(list(dict.fromkeys(clause)))
    last = len(clauses) - 1
    lemmas = deletions = ticks = 0
    steps = parse_steps(data)
    number = 0
    while True:
        try:
            step = next(steps, None)
        except ProofError as exc:
            return REJECTED, str(exc), lemmas
        if step is None:
            break
        number += 1
        if deadline is not None and not number & 255 and time.perf_counter() > deadline:
            raise OutOfBudget
        deleting, ident, lits, hints = step
        if deleting:
            bad = next((x for x in hints if x < 0), None)
            if bad is not None:
                return REJECTED, f"proof step {number}: deletes {bad}, not a clause id", lemmas
            for x in hints:
                if x < len(clauses) and clauses[x] is not None:
                    clauses[x] = None
                    deletions += 1
            continue
        where = f"proof step {number} (clause {ident})"
        if ident <= last:
            return REJECTED, f"{where}: its id is not above the last, {last}", lemmas
        if ident - last > MAX_ID_JUMP:
            return REJECTED, f"{where}: its id jumps more than {MAX_ID_JUMP} past {last}", \
                lemmas
        bad = next((lit for lit in lits if abs(lit) > n), None)
        if bad is not None:
            return REJECTED, f"{where}: literal {bad} is not a variable of the formula " \
                             f"(1..{n})", lemmas
        lemma = list(dict.fromkeys(lits))
        ticks += len(hints)
        if deadline is not None and ticks > 4096:
            ticks = 0
            if time.perf_counter() > deadline:
                raise OutOfBudget
        problem = _follow(lemma, hints, clauses, value)
        if problem:
            return REJECTED, f"{where}: {problem}", lemmas
        lemmas += 1
        clauses.extend([None] * (ident - len(clauses)))
        clauses.append(lemma)
        last = ident
        if not lemma:
            return VERIFIED, f"refutation verified: {lemmas} lemmas, {deletions} deletions " \
                             "(LRAT)", lemmas
    return REJECTED, f"proof does not derive the empty clause ({lemmas} lemmas checked)", lemmas


def _follow(lemma: list[int], hints: list[int], clauses: list[list[int] | None],
            value: list[int]) -> str:
    """Check one added clause by its hints; '' when they refute its negation, else why not.
    ``value`` is all UNSET before and after."""
    assigned: list[int] = []
    try:
        for lit in lemma:
            if value[lit] == TRUE:  # the clause holds lit and -lit: true without hints
                return ""
            value[lit], value[-lit] = FALSE, TRUE
            assigned.append(lit)
        for h in hints:
            if h < 0:
                return "RAT hints (negative ids) are not supported"
            clause = clauses[h] if h < len(clauses) else None
            if clause is None:
                return f"hint {h} is not a live clause"
            unit = 0
            for lit in clause:
                if value[lit] != FALSE:
                    if unit:
                        return f"hint {h} is not unit (two literals not false)"
                    unit = lit
            if unit == 0:
                return ""  # all false: a conflict, the clause follows
            if value[unit] == UNSET:
                value[unit], value[-unit] = TRUE, FALSE
                assigned.append(-unit)
        return "its hints end without a conflict"
    finally:
        for lit in assigned:
            value[lit] = value[-lit] = UNSET


# --- the entry point -------------------------------------------------------------------------

def check_lrat(cnf: Cnf | Formula, proof: str | Path | bytes | Iterable[str],
               time_limit: float | None = None, engine: str = "auto") -> ProofCheck:
    """Check that the LRAT ``proof`` refutes ``cnf`` within ``time_limit`` seconds (None: no
    limit), as :func:`satdoku.cnf.drat.check_proof` does for DRAT: ``proof`` is a file's path
    (text or binary, gzip / xz / bz2 by magic bytes), its bytes or its text lines; ``engine``
    ``c``, ``python`` or ``auto`` (``c`` when built). Returns a :class:`ProofCheck`; never
    raises on a bad proof (an unreadable file raises OSError)."""
    start = time.perf_counter()
    if isinstance(proof, str | os.PathLike):
        try:
            data = read_proof_file(proof)
        except ProofError as exc:
            return ProofCheck(REJECTED, str(exc), time.perf_counter() - start)
    elif isinstance(proof, bytes | bytearray | memoryview):
        data = bytes(proof)
    else:
        data = "\n".join(line.rstrip("\n") for line in proof).encode()
    if engine not in ("auto", "c", "python"):
        raise ValueError(f"unknown checker engine {engine!r}")
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    if engine == "python" or (engine == "auto" and not has_c_checker()):
        result = check_lrat_python(cnf.whole() if isinstance(cnf, Formula) else cnf, data, left)
    else:
        from satdoku.cnf import _lrat  # type: ignore[attr-defined]

        code, message, lemmas = _lrat.check(flat_literals(cnf), cnf.num_vars, data,
                                            -1.0 if left is None else left)
        status = {0: VERIFIED, 1: REJECTED, 2: OUT_OF_BUDGET}[code]
        result = ProofCheck(status, message, 0.0, "c", lemmas, lemmas)
    result.seconds = time.perf_counter() - start
    if result.status == OUT_OF_BUDGET:
        result.message = (f"proof check ran out of its {time_limit:g} s budget after "
                          f"{result.seconds:.2f} s: the UNSAT answer is unchecked")
    return result
