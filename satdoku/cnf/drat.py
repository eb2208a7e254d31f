"""Checking DRAT proofs (drat-trim's text and binary formats) of UNSAT answers, within a budget.

A proof is a sequence of steps: add a lemma (``l1 l2 ... 0``) or delete a clause
(``d l1 l2 ... 0``); text proofs may hold ``c`` comment lines. The binary format (what CaDiCaL
and kissat write with ``--binary``) has a byte ``a`` or ``d`` per step, then each literal as
the variable-byte (7 bits per byte, low first) number ``2*v`` (positive) or ``2*v+1``
(negative), then a 0 byte. A file with a NUL byte, or whose first byte is ``a``, is binary.

Each needed lemma must be RUP (assigning the negation of its literals and propagating units
conflicts) or RAT on its first literal ``p`` (every resolvent with an active clause holding
``-p`` is RUP). The proof refutes the formula once unit propagation on the formula and the
lemmas so far conflicts. Deleting a clause that is unit at the top level (every literal
assigned, one true: it may be the reason of that literal) is ignored whole, as drat-trim
ignores deletions of unit clauses: the clause stays for propagation and for RAT checks (were
it left out of RAT checks while its literal stays true, ``[[1]]`` with ``d 1 0`` then ``-1 0``
would "refute" a satisfiable formula); deleting a clause that is not there is ignored.

Two engines, one verdict:

- the compiled checker (``satdoku.cnf._drat``, built by setup.py beside the CDCL kernel):
  a first pass adds every lemma until propagation conflicts, then it walks the proof
  backwards and checks only the lemmas the conflict depends on (core-first propagation with
  watched literals, as drat-trim does). ``mode="forward"`` checks every lemma instead;
- the readable pure-Python checker below: forward, every lemma checked. It is the tests' oracle
  (its verdict equals the compiled forward mode; a proof it accepts the backward mode
  accepts) and the fallback when the extension is not built.

:func:`check_proof` is the entry point (the solve path and the external solvers' adapters call
it): it reads the proof, runs the fastest engine within ``time_limit`` and says verified,
rejected or out of budget.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Sequence

from satdoku.cnf.formula import Cnf, Formula
from satdoku.cnf.watches import FALSE, TRUE, UNSET, visit
from satdoku.records import record
from satdoku.sources import InputError, decompress

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only (pathlib costs a one-shot command ~15 M instructions)
    import re
    from pathlib import Path

VERIFIED, REJECTED, OUT_OF_BUDGET = "verified", "rejected", "out of budget"
#: the largest variable a proof may name (RAT lemmas may add variables past the formula's)
MAX_VAR = 1 << 27


@record
class ProofCheck:
    """The outcome of one proof check: ``status`` is VERIFIED, REJECTED or OUT_OF_BUDGET,
    ``message`` says why (the step at fault for a rejection), ``seconds`` is the check's wall
    time (reading the proof included), ``engine`` which checker ran (``c`` or ``python``)."""

    status: str
    message: str
    seconds: float = 0.0
    engine: str = "python"
    lemmas: int = 0  # lemmas in the proof (up to the refutation)
    checked: int = 0  # lemmas actually checked (the core, for the backward checker)

    @property
    def ok(self) -> bool:
        return self.status == VERIFIED


class ProofError(ValueError):
    """A proof that is not a sequence of well-formed steps (the message names where)."""


class OutOfBudget(Exception):
    """A check's time budget ran out (raised inside the readable checkers, DRAT and LRAT)."""


def is_binary(data: bytes) -> bool:
    """drat-trim's binary format? (Text proofs never hold a NUL byte nor start with ``a``.)"""
    return data[:1] == b"a" or b"\0" in data


#: one token of a text proof (DRAT or LRAT): a comment, ``d``, a number, or anything else
PROOF_TOKEN = rb"\s*(?:(c)[^\n]*|(d)|(-?[0-9]+)|(\S))"


def proof_tokens(data: bytes) -> Iterator[re.Match[bytes]]:
    """The :data:`PROOF_TOKEN` matches of a text proof, in order, for the Python parsers. The
    pattern is compiled on first use (re's cache): a one-shot ``satdoku dpll`` whose proof the
    compiled checker reads does not import re at all (about 25 million instructions, a
    quarter of its start-up; issue 29)."""
    import re

    return re.finditer(PROOF_TOKEN, data)


def parse_proof(data: bytes) -> Iterator[tuple[bool, list[int]]]:
    """The steps (deleting, literals) of a text or binary proof; ProofError names a bad one."""
    yield from (_parse_binary(data) if is_binary(data) else _parse_text(data))


def _parse_text(data: bytes) -> Iterator[tuple[bool, list[int]]]:
    lits: list[int] | None = None  # literals of the open step, None between steps
    deleting = False
    for m in proof_tokens(data):
        comment, d, num, other = m.groups()
        if num is not None:
            value = int(num)
            if abs(value) > MAX_VAR:
                raise ProofError(f"proof line {proof_line(data, m.start(3))}: literal {value} "
                                 "out of range")
            if lits is None:
                lits, deleting = [], False
            if value == 0:
                yield deleting, lits
                lits = None
            else:
                lits.append(value)
        elif other is not None or lits is not None:
            group = 4 if other is not None else 1 if comment is not None else 2
            what = m.group(group).decode("latin-1")
            where = proof_line(data, m.start(group))
            if 32 <= ord(what) < 127:
                raise ProofError(f"proof line {where}: unexpected '{what}'")
            raise ProofError(f"proof line {where}: unexpected byte 0x{ord(what):02x}")
        elif d is not None:
            lits, deleting = [], True
    if lits is not None:
        raise ProofError("proof ends inside a step (truncated?)")


def to_binary(lines: Iterable[str]) -> bytes:
    """Text DRAT steps, one a line, in drat-trim's binary format (the inverse of the binary
    reader): ``a``/``d``, each literal ``2*|l| + (l < 0)`` in 7-bit groups, a 0 byte per step."""
    out = bytearray()
    for line in lines:
        tokens = line.split()
        if not tokens or tokens[0] == "c":
            continue
        deleting = tokens[0] == "d"
        out += b"d" if deleting else b"a"
        for tok in tokens[1:] if deleting else tokens:
            lit = int(tok)
            if lit == 0:
                break
            write_varint(out, lit)
        out.append(0)
    return bytes(out)


def write_varint(out: bytearray, x: int) -> None:
    """``x`` in the binary proof formats (DRAT and LRAT): ``2*|x| + (x < 0)`` in 7-bit groups,
    low first, the high bit set on every group but the last."""
    u = 2 * abs(x) + (x < 0)
    while u >= 0x80:
        out.append(u & 0x7F | 0x80)
        u >>= 7
    out.append(u)


def read_varint(data: bytes, i: int, what: str) -> tuple[int, int]:
    """The raw number (``2*|x| + sign``) of a binary proof at byte ``i`` and the byte after it;
    ProofError when the data end inside it or it runs past 35 bits (``what`` is named)."""
    n = len(data)
    value = shift = 0
    while True:
        if i >= n:
            raise ProofError("binary proof ends inside a step (truncated?)")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i
        if shift > 28:
            raise ProofError(f"binary proof byte {i}: {what} out of range")


def proof_line(data: bytes, offset: int) -> int:
    """The line number of byte ``offset`` of a text proof."""
    return data.count(b"\n", 0, offset) + 1


def _parse_binary(data: bytes) -> Iterator[tuple[bool, list[int]]]:
    i, n = 0, len(data)
    while i < n:
        kind = data[i]
        if kind not in (0x61, 0x64):  # 'a', 'd'
            raise ProofError(f"binary proof byte {i}: step starts with {kind:#04x}, "
                             "not 'a' or 'd'")
        i += 1
        lits: list[int] = []
        while True:
            value, i = read_varint(data, i, "literal")
            if value == 0:
                break
            var = value >> 1
            if var == 0 or var > MAX_VAR:
                raise ProofError(f"binary proof byte {i}: literal out of range")
            lits.append(-var if value & 1 else var)
        yield kind == 0x64, lits


class _Checker:
    """Clause database with watches, a persistent top-level trail and temporary RUP checks."""

    def __init__(self, num_vars: int, deadline: float | None = None) -> None:
        self.n = num_vars
        self.value = [UNSET] * (2 * num_vars + 1)  # value[lit], lit in ±1..±n (negative index)
        self.trail: list[int] = []
        self.qhead = 0
        self.clauses: list[list[int]] = []
        self.alive: list[bool] = []
        self.watches: list[list[int]] = [[] for _ in range(2 * num_vars + 1)]
        self.index: dict[tuple[int, ...], list[int]] = {}
        self.inconsistent = False  # top-level propagation found a conflict
        self.deadline = deadline
        self.ticks = 0

    def assign(self, lit: int, reason: int = -1) -> None:
        """Make ``lit`` true (its reason, a clause index, is not needed here)."""
        self.value[lit] = TRUE
        self.value[-lit] = FALSE
        self.trail.append(lit)

    def propagate(self) -> bool:
        """Unit propagation from ``qhead``; True when a conflict is found."""
        value, watches, clauses, alive, trail = (
            self.value,
            self.watches,
            self.clauses,
            self.alive,
            self.trail,
        )
        assign = self.assign
        while self.qhead < len(trail):
            self.ticks += 1
            if self.deadline is not None and not self.ticks & 1023 \
                    and time.perf_counter() > self.deadline:
                raise OutOfBudget
            false_lit = -trail[self.qhead]
            self.qhead += 1
            if visit(false_lit, value, watches, clauses, assign, alive) is not None:
                return True
        return False

    def add(self, lits: list[int]) -> None:
        """Add a clause (formula clause or checked lemma) and propagate at the top level."""
        clause = list(dict.fromkeys(lits))
        if any(-lit in clause for lit in clause):
            return
        value = self.value
        # watch non-false literals first so the watch invariant holds at the top level
        clause.sort(key=lambda lit: value[lit] == FALSE)
        ci = len(self.clauses)
        self.clauses.append(clause)
        self.alive.append(True)
        self.index.setdefault(tuple(sorted(clause)), []).append(ci)
        if self.inconsistent:
            return
        if not clause or value[clause[0]] == FALSE:
            self.inconsistent = True
            return
        if len(clause) == 1 or value[clause[1]] == FALSE:
            if value[clause[0]] == UNSET:
                self.assign(clause[0])
                if self.propagate():
                    self.inconsistent = True
            if len(clause) == 1:
                return
        self.watches[clause[0]].append(ci)
        self.watches[clause[1]].append(ci)

    def delete(self, lits: list[int]) -> bool:
        """Forget one copy of a clause; False when no such clause is present or when it is
        unit at the top level (the deletion is ignored: see the module docstring)."""
        key = tuple(sorted(dict.fromkeys(lits)))
        ids = self.index.get(key)
        if not ids or self.unit_at_top(self.clauses[ids[-1]]):
            return False
        self.alive[ids.pop()] = False
        return True

    def unit_at_top(self, clause: list[int]) -> bool:
        """Every literal of ``clause`` assigned and exactly one true (a reason is such)."""
        value = self.value
        if any(value[lit] == UNSET for lit in clause):
            return False
        return sum(value[lit] == TRUE for lit in clause) == 1

    def is_rup(self, lits: list[int]) -> bool:
        """Does assigning the negation of ``lits`` lead to a conflict by unit propagation?"""
        if self.inconsistent:
            return True
        value = self.value
        mark = len(self.trail)
        conflict = False
        for lit in lits:
            if value[lit] == TRUE:
                conflict = True
                break
            if value[lit] == UNSET:
                self.assign(-lit)
        try:
            if not conflict:
                conflict = self.propagate()
        finally:
            for lit in self.trail[mark:]:
                value[lit] = value[-lit] = UNSET
            del self.trail[mark:]
            self.qhead = mark
        return conflict

    def is_rat(self, lits: list[int]) -> bool:
        """RAT on the first literal ``p``: every resolvent with a live clause holding ``-p`` is
        RUP (no such clause: ``p`` is pure and the lemma is blocked)."""
        if not lits:
            return False
        pivot = lits[0]
        for ci, clause in enumerate(self.clauses):
            if self.alive[ci] and -pivot in clause \
                    and not self.is_rup(lits + [lit for lit in clause if lit != -pivot]):
                return False
        return True


def check_proof_python(cnf: Cnf, data: bytes, time_limit: float | None = None) -> ProofCheck:
    """The readable checker: forward, every lemma RUP or RAT (pure Python, slow; see the
    module docstring), on a proof's bytes (:func:`check_proof` reads files and text lines)."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    try:
        status, message, lemmas = _forward(cnf, data, deadline)
    except OutOfBudget:
        status, message, lemmas = OUT_OF_BUDGET, "", 0
    return ProofCheck(status, message, time.perf_counter() - start, "python", lemmas, lemmas)


def _forward(cnf: Cnf, data: bytes, deadline: float | None) -> tuple[str, str, int]:
    try:
        steps = list(parse_proof(data))
    except ProofError as exc:
        return REJECTED, str(exc), 0
    formula_vars = max([cnf.num_vars, *(abs(lit) for clause in cnf.clauses for lit in clause)])
    n = max([formula_vars, *(abs(lit) for _, lits in steps for lit in lits)])
    if n > formula_vars + len(steps):
        return REJECTED, (f"proof variable {n} is past the formula's {formula_vars} by more "
                          "than its steps could introduce"), 0
    checker = _Checker(n, deadline)
    for i, clause in enumerate(cnf.clauses):
        if deadline is not None and not i & 8191 and time.perf_counter() > deadline:
            raise OutOfBudget
        checker.add(list(clause))
    lemmas = deletions = 0
    for number, (deleting, lits) in enumerate(steps, 1):
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfBudget
        if deleting:
            deletions += checker.delete(lits)
            continue
        if not checker.is_rup(lits) and not checker.is_rat(lits):
            shown = " ".join(map(str, lits[:12])) + (" ..." if len(lits) > 12 else "")
            return REJECTED, f"proof step {number}: lemma '{shown} 0' is neither RUP nor RAT", \
                lemmas
        lemmas += 1
        checker.add(lits)
        if not lits or checker.inconsistent:
            return VERIFIED, f"refutation verified: {lemmas} lemmas, {deletions} deletions", \
                lemmas
    if checker.inconsistent or checker.propagate():
        return VERIFIED, f"refutation verified (no empty clause step): {lemmas} lemmas", lemmas
    return REJECTED, f"proof does not derive the empty clause ({lemmas} lemmas checked)", lemmas


def has_c_checker() -> bool:
    """Is the compiled checker built?"""
    try:
        from satdoku.cnf import _drat  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:
        return False
    return True


def check_proof(cnf: Cnf | Formula, proof: str | Path | bytes | Iterable[str],
                time_limit: float | None = None, engine: str = "auto",
                mode: str = "backward") -> ProofCheck:
    """Check that ``proof`` refutes ``cnf`` within ``time_limit`` seconds (None: no limit).

    ``cnf`` is the whole formula, or a :class:`Formula` (shared rules + own clauses: the
    compiled checker then reuses the rules' flat buffer from one instance to the next).

    ``proof`` is a proof file's path (text or binary DRAT, told apart by its bytes), its bytes,
    or its text lines. ``engine`` is ``c`` (the compiled backward checker), ``python`` (the
    forward readable checker) or ``auto`` (``c`` when built, else ``python``); ``mode`` is
    ``backward`` (check only the lemmas the refutation needs) or ``forward`` (every lemma;
    compiled engine only: the readable checker is always forward).

    Returns a :class:`ProofCheck`: ``status`` VERIFIED (``ok``), REJECTED (a bad or missing
    step: the answer it backs is wrong or unproven) or OUT_OF_BUDGET (the check stopped at
    ``time_limit``: nothing is known), with a message and the seconds it took (reading the
    proof included). It never raises on a bad proof; an unreadable file raises OSError."""
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
    if engine not in ("auto", "c", "python") or mode not in ("backward", "forward"):
        raise ValueError(f"unknown checker engine {engine!r} or mode {mode!r}")
    if engine == "python" or (engine == "auto" and not has_c_checker()):
        left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
        whole = cnf.whole() if isinstance(cnf, Formula) else cnf
        result = check_proof_python(whole, data, left)
    else:
        result = _check_c(cnf, data, time_limit, mode, start)
    result.seconds = time.perf_counter() - start
    if result.status == OUT_OF_BUDGET:
        result.message = (f"proof check ran out of its {time_limit:g} s budget after "
                          f"{result.seconds:.2f} s: the UNSAT answer is unchecked")
    return result


def read_proof_file(path: str | Path) -> bytes:
    """A proof file's bytes, decompressed when it is gzip, xz or bz2 (told by magic bytes);
    a truncated or corrupt archive is a ProofError naming the file."""
    try:
        with open(path, "rb") as fh:
            return decompress(fh.read(), str(path))
    except InputError as exc:
        raise ProofError(str(exc)) from None


def _check_c(cnf: Cnf | Formula, data: bytes, time_limit: float | None, mode: str,
             start: float) -> ProofCheck:
    from satdoku.cnf import _drat  # type: ignore[attr-defined]

    flat = flat_literals(cnf)
    left = -1.0 if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    code, message, lemmas, checked = _drat.check(flat, cnf.num_vars, data, left,
                                                 1 if mode == "forward" else 0)
    status = {0: VERIFIED, 1: REJECTED, 2: OUT_OF_BUDGET}[code]
    return ProofCheck(status, message, 0.0, "c", lemmas, checked)


#: id(rules) -> (rules, their flat buffer): the shared rules of the layouts in use (a 36x36
#: Sudoku's 3.3 million rule clauses take seconds to flatten; every instance shares them)
_FLAT_RULES: dict[int, tuple[Cnf, bytes]] = {}


def flat_literals(cnf: Cnf | Formula) -> bytes:
    """The formula as a flat buffer of int32 literals, a 0 after each clause (the compiled
    checker's input): the formula's own buffer when it was read from DIMACS; a Formula's
    shared rules flattened once."""
    if isinstance(cnf, Formula):
        if cnf.cnf is not None:
            return flat_literals(cnf.cnf)
        rules = b""
        if cnf.rules is not None:
            hit = _FLAT_RULES.get(id(cnf.rules))
            if hit is None or hit[0] is not cnf.rules:
                if len(_FLAT_RULES) >= 4:
                    _FLAT_RULES.clear()
                hit = _FLAT_RULES[id(cnf.rules)] = (cnf.rules, flat_literals(cnf.rules))
            rules = hit[1]
        return rules + _flat_clauses(cnf.own)
    lits = cnf.lits
    if lits is not None:
        if isinstance(lits, bytes):
            return lits
        if hasattr(lits, "astype"):
            return bytes(lits.astype("int32").tobytes())
        return memoryview(lits).tobytes()
    return _flat_clauses(cnf.clauses)


def _flat_clauses(clauses: list[list[int]]) -> bytes:
    from array import array

    flat = array("i")
    for clause in clauses:
        flat.extend(clause)
        flat.append(0)
    return flat.tobytes()


def drup_lines(log: Sequence[int]) -> list[str]:
    """A proof log (tag 1 add / 2 delete, size, DIMACS literals, ...) as drat-trim text
    lines, each with its newline."""
    lines, pos = [], 0
    while pos < len(log):
        tag, size = log[pos], log[pos + 1]
        text = "".join(f"{x} " for x in log[pos + 2 : pos + 2 + size])
        lines.append(("d " if tag == 2 else "") + text + "0\n")
        pos += 2 + size
    return lines
