"""DIMACS reading: a whole file to one flat ``int32`` buffer of 0-terminated clauses.

Solvers with compiled inner loops want the formula as flat integers, and parsing 10 MB of
literals one Python ``int()`` at a time costs more than solving a 25x25 Sudoku. The header
(comments, ``p cnf V C``, checked against the file's size) is read here in Python; the clause
body by one of two engines with identical results and identical errors:

* ``c`` — one pass over the bytes compiled in C (``satdoku/cnf/_dimacs.c``, built at install
  time): what runs;
* ``python`` — :func:`_body_python`, the same rules a line at a time: the readable form, the
  tests' oracle for the C pass, and the fallback where it was not built.

:func:`parse_dimacs_buffer` gives plain int32 bytes (no numpy imported, so a one-shot command
reads and solves a file without it), :func:`parse_dimacs_bytes` a numpy array, and
:func:`satdoku.cnf.dimacs.parse_dimacs` / :func:`~satdoku.cnf.dimacs.read_dimacs` clause
lists, all through the same engines. The rules: comments anywhere, SATLIB's double spaces in
``p cnf`` and ``%`` trailer, a last clause without its 0; anything else is a
:class:`DimacsError` (defined here, re-exported by :mod:`satdoku.cnf.dimacs`) naming the line.
Files are read through :mod:`satdoku.sources` (regular files only, any compression by magic
bytes, a size cap); the header is checked against the file's size and the variable cap of
:mod:`satdoku.size_limits` before anything is allocated for it.
"""

from __future__ import annotations

from array import array
from collections import namedtuple

from satdoku.cnf.formula import split_lits
from satdoku.cnf.native import dimacs_passes as _native
from satdoku.size_limits import SizeLimits, default_size_limits
from satdoku.sources import UTF8_BOM, InputError, read_snapshot

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

#: a header may always declare this many variables, whatever the file's size
VAR_FLOOR = 1 << 20


class DimacsError(InputError):
    """A malformed DIMACS file; the message names the source and line (``line`` 0: the file
    as a whole, e.g. missing or a directory)."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(source, reason)
        if line:
            self.args = (f"{source}:{line}: {reason}",)
        self.line = line

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (DimacsError, (self.source, self.line, self.reason))


class DimacsArrays(namedtuple("DimacsArrays", "num_vars num_clauses lits comments")):
    """A formula as arrays: ``num_vars``, ``num_clauses`` (int), ``lits`` (an int32 numpy
    array holding every clause followed by a 0) and ``comments`` (list[str]). A
    ``collections.namedtuple``, as are :class:`DimacsBuffer` and :class:`Header`:
    ``typing.NamedTuple`` would cost a one-shot command the import of :mod:`typing`."""

    __slots__ = ()


def read_dimacs_arrays(
    path: str | Path, clause_tolerance: int = 0, engine: str = "auto",
    limits: SizeLimits | None = None,
) -> DimacsArrays:
    """Read a DIMACS file (``-`` is stdin; gzip/xz/bz2 by magic bytes) into flat arrays (see
    :func:`parse_dimacs_bytes`). Every problem, the file's own included, is a DimacsError."""
    lim = limits or default_size_limits()
    return parse_dimacs_bytes(_read(path, lim), str(path), clause_tolerance, engine, lim)


def _read(path: str | Path, limits: SizeLimits) -> bytes:
    """A file's bytes through :mod:`satdoku.sources`; its problems as DimacsError."""
    try:
        return read_snapshot(path, limits.max_input_bytes).data
    except DimacsError:
        raise
    except InputError as exc:
        raise DimacsError(exc.source, 0, exc.reason) from None


class DimacsBuffer(namedtuple("DimacsBuffer", "num_vars num_clauses lits comments")):
    """A formula as plain int32 bytes: ``num_vars``, ``num_clauses`` (int), ``lits`` (bytes:
    int32 in native byte order, each clause followed by a 0) and ``comments`` (list[str])."""

    __slots__ = ()


def read_dimacs_buffer(
    path: str | Path, clause_tolerance: int = 0, limits: SizeLimits | None = None,
    engine: str = "auto",
) -> DimacsBuffer:
    """Read a DIMACS file into int32 bytes (see :func:`parse_dimacs_buffer`)."""
    lim = limits or default_size_limits()
    return parse_dimacs_buffer(_read(path, lim), str(path), clause_tolerance, lim, engine)


def parse_dimacs_buffer(
    data: bytes, source: str = "<cnf>", clause_tolerance: int = 0, limits: SizeLimits | None = None,
    engine: str = "auto",
) -> DimacsBuffer:
    """Parse DIMACS bytes into int32 bytes, without importing numpy. ``engine`` is ``auto``
    (``c`` when built, else ``python``), ``c`` or ``python``."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    num_vars, num_clauses, offset, _, comments = _header(data, source, clause_tolerance, limits)
    if engine == "auto":
        engine = "c" if _native() is not None else "python"
    if engine == "c":
        lits, clauses, end_pos = _body_c(data, offset, num_vars, source)
    elif engine == "python":
        lits, clauses, end_pos = _body_python(data, offset, num_vars, source)
    else:
        raise ValueError(f"unknown DIMACS engine {engine!r}; choose from auto, c, python")
    _check_count(data, source, num_clauses, clauses, end_pos, clause_tolerance)
    return DimacsBuffer(num_vars, clauses, lits, comments)


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos) + 1


def _token_at(data: bytes, pos: int) -> str:
    """The whitespace-delimited token covering byte ``pos`` (for error messages)."""
    start = pos
    while start > 0 and data[start - 1 : start] not in (b" ", b"\t", b"\n", b"\r"):
        start -= 1
    end = pos
    while end < len(data) and data[end : end + 1] not in (b" ", b"\t", b"\n", b"\r"):
        end += 1
    return data[start:end].decode("utf-8", "replace")[:40]


def parse_header_line(text: str, source: str, lineno: int,
                      limits: SizeLimits | None = None) -> tuple[int, int]:
    """(variables, clauses) of a ``p cnf V C`` line; DimacsError when malformed, negative or
    declaring more variables than ``limits.max_cnf_vars``."""
    parts = text.split()
    if len(parts) != 4 or parts[1] != "cnf":
        raise DimacsError(source, lineno, f"bad header {text[:60]!r}, expected 'p cnf V C'")
    try:
        num_vars, num_clauses = int(parts[2]), int(parts[3])
    except ValueError:
        raise DimacsError(source, lineno, f"bad header numbers in {text[:60]!r}") from None
    if num_vars < 0 or num_clauses < 0:
        raise DimacsError(source, lineno, "negative count in header")
    cap = min((limits or default_size_limits()).max_cnf_vars, 2**31 - 2)
    if num_vars > cap:
        raise DimacsError(source, lineno, f"header declares {num_vars} variables, above the "
                                          f"limit of {cap} "
                                          "(satdoku.size_limits.SizeLimits.max_cnf_vars)")
    return num_vars, num_clauses


class Header(namedtuple("Header", "num_vars num_clauses offset lineno comments line")):
    """What precedes a DIMACS body: the ``p cnf`` line's counts ``num_vars`` and
    ``num_clauses``, where the body starts (byte ``offset`` and line ``lineno``), the
    ``comments`` before it (list[str]) and the ``p`` ``line`` as written (bytes)."""

    __slots__ = ()


def _header(data: bytes, source: str, clause_tolerance: int = 0,
            limits: SizeLimits | None = None) -> tuple[int, int, int, int, list[str]]:
    """Scan comment lines up to ``p cnf``: (num_vars, num_clauses, body offset, line, comments).

    The header is checked against the file: a file of B bytes cannot hold more than (B + 1) / 2
    clauses, and a header declaring far more variables than the file has bytes (and more than
    :data:`VAR_FLOOR`) is refused before any solver allocates per-variable arrays for it."""
    head = read_header(data, source, limits)
    check_header_size(head, len(data), source, clause_tolerance)
    return head.num_vars, head.num_clauses, head.offset, head.lineno, head.comments


def header_complete(data: bytes, start: int = 0) -> tuple[bool, int]:
    """(whether ``data`` holds the line that ends the header part: the first line that is
    neither blank nor a ``c`` comment, with its line end; where to look again when it does
    not): what a reader of a stream asks before :func:`read_header`."""
    pos = start
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return False, pos
        line = data[pos:end].strip()
        if line and line[:1] != b"c":
            return True, pos
        pos = end + 1


def read_header(data: bytes, source: str, limits: SizeLimits | None = None) -> Header:
    """The header part of DIMACS content (comment lines, then ``p cnf V C``): DimacsError for
    a clause before it, a malformed one or none."""
    comments: list[str] = []
    pos, lineno = 0, 0
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        lineno += 1
        raw = data[pos:end]
        line = raw.strip()
        pos = end + 1
        if not line:
            continue
        head = line[:1]
        if head == b"c":
            comments.append(line[1:].strip().decode("utf-8", "replace"))
            continue
        if head == b"%":
            break
        if head != b"p":
            raise DimacsError(source, lineno, "clause before the 'p cnf' header")
        num_vars, num_clauses = parse_header_line(line.decode("utf-8", "replace"), source,
                                                  lineno, limits)
        return Header(num_vars, num_clauses, min(pos, size), lineno, comments, raw)
    raise DimacsError(source, max(lineno, 1), "no 'p cnf' header")


def check_header_size(head: Header, size: int, source: str, clause_tolerance: int = 0) -> None:
    """The header's counts against the content's ``size`` in bytes (see :func:`_header`)."""
    if head.num_vars > max(VAR_FLOOR, size):
        raise DimacsError(source, head.lineno, f"header declares {head.num_vars} variables but "
                                               f"the file has only {size} bytes")
    body = max(size - head.offset, 0)
    if head.num_clauses > (body + 1) // 2 + clause_tolerance:
        raise DimacsError(source, head.lineno, f"header declares {head.num_clauses} clauses but "
                                               f"the {body} bytes after it hold at most "
                                               f"{(body + 1) // 2}")


def has_c_engine() -> bool:
    """Whether the ``c`` engine is built."""
    return _native() is not None


def parse_dimacs_bytes(
    data: bytes, source: str = "<cnf>", clause_tolerance: int = 0, engine: str = "auto",
    limits: SizeLimits | None = None,
) -> DimacsArrays:
    """Parse DIMACS bytes into a numpy array (see :func:`parse_dimacs_buffer`)."""
    import numpy as np

    buf = parse_dimacs_buffer(data, source, clause_tolerance, limits, engine)
    return DimacsArrays(buf.num_vars, buf.num_clauses, np.frombuffer(buf.lits, dtype=np.int32),
                        buf.comments)


def _check_count(
    data: bytes, source: str, num_clauses: int, clauses: int, end_pos: int, tolerance: int
) -> None:
    """The clause count of the body against the header's."""
    if abs(clauses - num_clauses) > tolerance:
        # the line of the trailer, or the last line of the file, as parse_dimacs reports it
        last = _line_of(data, end_pos) if end_pos < len(data) else max(1, _count_lines(data))
        raise DimacsError(source, last, f"header says {num_clauses} clauses, file has {clauses}")


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


# --- the compiled engine ---------------------------------------------------------------------
ERR_NONE, ERR_HEADER, ERR_GARBAGE, ERR_RANGE = 0, 1, 2, 3  # = _dimacs.c's


def _body_c(data: bytes, offset: int, num_vars: int, source: str) -> tuple[bytes, int, int]:
    native = _native()
    if native is None:
        raise ValueError("DIMACS engine 'c' needs the compiled pass (run `make install`)")
    lits, clauses, err, err_pos, end_pos = native.parse_dimacs_body(data, offset, num_vars)
    _raise_for(data, source, num_vars, err, err_pos)
    return lits, int(clauses), int(end_pos)


def _raise_for(data: bytes, source: str, num_vars: int, err: int, err_pos: int) -> None:
    """The DimacsError of a compiled pass's error code (none for ERR_NONE)."""
    if err == ERR_HEADER:
        raise DimacsError(source, _line_of(data, err_pos), "second 'p' header line")
    if err == ERR_GARBAGE:
        token = _token_at(data, err_pos)
        raise DimacsError(source, _line_of(data, err_pos), f"not a literal: {token!r}")
    if err == ERR_RANGE:
        token = _token_at(data, err_pos)
        raise DimacsError(
            source,
            _line_of(data, err_pos),
            f"literal {token} out of range for {num_vars} variables",
        )


# --- the Python engine ------------------------------------------------------------------
#: the Python engine's patterns, compiled on its first call (re caches them), not at import: the
#: compiled engine is what runs, and a one-shot command pays for no regex it does not use
_TOKEN = rb"[^ \t\r]+"  # blanks are space, tab and CR; lines end at LF
_LITERAL = rb"-?[0-9]+"


def _body_python(data: bytes, offset: int, num_vars: int, source: str) -> tuple[bytes, int, int]:
    """The clause body ``data[offset:]`` a line at a time, by the C pass's rules: a line whose
    first token starts with ``c`` is a comment, with ``%`` ends the formula (SATLIB's
    trailer), with ``p`` is a second header (an error); every other token must be a decimal
    integer within +-``num_vars``; 0 ends a clause. Returns (int32 bytes, clauses, position
    where the formula ends)."""
    import re  # here: the compiled pass, a one-shot command's path, needs no re (issue 29)

    token_re, literal_re = re.compile(_TOKEN), re.compile(_LITERAL)
    lits = array("i")
    clauses, end_pos = 0, len(data)
    lineno, pos = _line_of(data, offset), offset
    for line in data[offset:].split(b"\n"):
        first = token_re.search(line)
        head = line[first.start()] if first else None
        if head == ord("%"):
            end_pos = pos + first.start()  # type: ignore[union-attr]
            break
        if head == ord("p"):
            raise DimacsError(source, lineno, "second 'p' header line")
        if head is not None and head != ord("c"):
            for token in token_re.findall(line):
                text = token.decode("utf-8", "replace")[:40]
                if not literal_re.fullmatch(token):
                    raise DimacsError(source, lineno, f"not a literal: {text!r}")
                value = int(token)
                if abs(value) > num_vars:
                    raise DimacsError(source, lineno,
                                      f"literal {text} out of range for {num_vars} variables")
                lits.append(value)
                clauses += value == 0
        pos += len(line) + 1
        lineno += 1
    if lits and lits[-1] != 0:  # the last clause without its 0
        lits.append(0)
        clauses += 1
    return lits.tobytes(), clauses, end_pos


#: the clauses of flat 0-terminated int32 literals (bytes, a numpy array, any buffer): the one
#: splitter, :func:`satdoku.cnf.formula.split_lits`, under the name DIMACS callers know
buffer_to_clauses = split_lits


def clauses_to_array(clauses: list[list[int]]) -> np.ndarray:
    """A flat 0-terminated ``int32`` array from a list of clauses."""
    import numpy as np

    total = sum(map(len, clauses)) + len(clauses)
    out = np.zeros(total, dtype=np.int32)
    lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    ends = np.cumsum(lengths + 1) - 1  # positions of the terminating zeros
    mask = np.ones(total, dtype=bool)
    mask[ends] = False
    out[mask] = np.fromiter(
        (lit for clause in clauses for lit in clause), dtype=np.int32, count=int(lengths.sum())
    )
    return out
