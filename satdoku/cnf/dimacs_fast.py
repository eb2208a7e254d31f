"""Vectorised DIMACS reading: a whole file to one flat ``int32`` array of 0-terminated clauses.

Solvers with compiled inner loops want the formula as flat integers, and parsing 10 MB of
literals one Python ``int()`` at a time costs more than solving a 25x25 Sudoku. Two engines
give identical results and identical errors:

* ``c`` — a single pass compiled in C (``satdoku/cnf/_dimacs.c``, built at install time;
  used when present);
* ``numpy`` — validation by byte masks, then numpy's C number parser.

numpy is imported only where an engine or a caller needs it: :func:`parse_dimacs_buffer` (the
``c`` engine) gives the literals as plain int32 bytes, so a one-shot command reads and solves a
file without importing numpy.

All accept what :func:`satdoku.cnf.dimacs.parse_dimacs` accepts (comments anywhere, SATLIB's
double spaces in ``p cnf`` and ``%`` trailer, a last clause without its 0) and raise the same
:class:`DimacsError` (defined here, re-exported by :mod:`satdoku.cnf.dimacs`) naming the line
for malformed input. Files are read through :mod:`satdoku.sources` (regular files only, any
compression by magic bytes, a size cap); the header is checked against the file's size and the
variable cap of :mod:`satdoku.limits` before anything is allocated for it.
"""

from __future__ import annotations

import gc
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from satdoku.limits import Limits, default_limits
from satdoku.sources import UTF8_BOM, InputError, read_snapshot

if TYPE_CHECKING:
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


class DimacsArrays(NamedTuple):
    """A formula as arrays: ``lits`` holds every clause followed by a 0."""

    num_vars: int
    num_clauses: int
    lits: np.ndarray  # int32, flat, each clause terminated by 0
    comments: list[str]


def read_dimacs_arrays(
    path: str | Path, clause_tolerance: int = 0, engine: str = "auto",
    limits: Limits | None = None,
) -> DimacsArrays:
    """Read a DIMACS file (``-`` is stdin; gzip/xz/bz2 by magic bytes) into flat arrays (see
    :func:`parse_dimacs_bytes`). Every problem, the file's own included, is a DimacsError."""
    lim = limits or default_limits()
    return parse_dimacs_bytes(_read(path, lim), str(path), clause_tolerance, engine, lim)


def _read(path: str | Path, limits: Limits) -> bytes:
    """A file's bytes through :mod:`satdoku.sources`; its problems as DimacsError."""
    try:
        return read_snapshot(path, limits.max_input_bytes).data
    except DimacsError:
        raise
    except InputError as exc:
        raise DimacsError(exc.source, 0, exc.reason) from None


class DimacsBuffer(NamedTuple):
    """A formula as plain int32 bytes (native byte order, each clause followed by a 0)."""

    num_vars: int
    num_clauses: int
    lits: bytes
    comments: list[str]


def read_dimacs_buffer(
    path: str | Path, clause_tolerance: int = 0, limits: Limits | None = None
) -> DimacsBuffer:
    """Read a DIMACS file with the compiled ``c`` engine (see :func:`parse_dimacs_buffer`)."""
    lim = limits or default_limits()
    return parse_dimacs_buffer(_read(path, lim), str(path), clause_tolerance, lim)


def parse_dimacs_buffer(
    data: bytes, source: str = "<cnf>", clause_tolerance: int = 0, limits: Limits | None = None
) -> DimacsBuffer:
    """Parse DIMACS bytes with the compiled ``c`` engine, without importing numpy."""
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    num_vars, num_clauses, offset, _, comments = _header(data, source, clause_tolerance, limits)
    lits, clauses, end_pos = _body_c(data, offset, num_vars, source)
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
                      limits: Limits | None = None) -> tuple[int, int]:
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
    cap = min((limits or default_limits()).max_cnf_vars, 2**31 - 2)
    if num_vars > cap:
        raise DimacsError(source, lineno, f"header declares {num_vars} variables, above the "
                                          f"limit of {cap} (satdoku.limits.Limits.max_cnf_vars)")
    return num_vars, num_clauses


def _header(data: bytes, source: str, clause_tolerance: int = 0,
            limits: Limits | None = None) -> tuple[int, int, int, int, list[str]]:
    """Scan comment lines up to ``p cnf``: (num_vars, num_clauses, body offset, line, comments).

    The header is checked against the file: a file of B bytes cannot hold more than (B + 1) / 2
    clauses, and a header declaring far more variables than the file has bytes (and more than
    :data:`VAR_FLOOR`) is refused before any solver allocates per-variable arrays for it."""
    comments: list[str] = []
    pos, lineno = 0, 0
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        lineno += 1
        line = data[pos:end].strip()
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
        if num_vars > max(VAR_FLOOR, size):
            raise DimacsError(source, lineno, f"header declares {num_vars} variables but the "
                                              f"file has only {size} bytes")
        body = max(size - pos, 0)
        if num_clauses > (body + 1) // 2 + clause_tolerance:
            raise DimacsError(source, lineno, f"header declares {num_clauses} clauses but the "
                                              f"{body} bytes after it hold at most "
                                              f"{(body + 1) // 2}")
        return num_vars, num_clauses, min(pos, size), lineno, comments
    raise DimacsError(source, max(lineno, 1), "no 'p cnf' header")


def _native():  # type: ignore[no-untyped-def]
    """The compiled body pass (satdoku/cnf/_dimacs.c), or None when it was not built."""
    try:
        from satdoku.cnf import _dimacs  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _dimacs


def has_c_engine() -> bool:
    """Whether the ``c`` engine (and :func:`read_dimacs_buffer`) is available."""
    return _native() is not None


def parse_dimacs_bytes(
    data: bytes, source: str = "<cnf>", clause_tolerance: int = 0, engine: str = "auto",
    limits: Limits | None = None,
) -> DimacsArrays:
    """Parse DIMACS bytes into flat arrays. ``engine`` is ``auto`` (``c`` when built, else
    ``numpy``), ``c`` or ``numpy``."""
    import numpy as np

    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    num_vars, num_clauses, offset, _, comments = _header(data, source, clause_tolerance, limits)
    if engine == "auto":
        engine = "c" if _native() is not None else "numpy"
    if engine == "c":
        raw, clauses, end_pos = _body_c(data, offset, num_vars, source)
        lits = np.frombuffer(raw, dtype=np.int32)
    elif engine == "numpy":
        lits, clauses, end_pos = _body_numpy(data, offset, num_vars, source)
    else:
        raise ValueError(f"unknown DIMACS engine {engine!r}")
    _check_count(data, source, num_clauses, clauses, end_pos, clause_tolerance)
    return DimacsArrays(num_vars, clauses, lits, comments)


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


# --- numpy engine -------------------------------------------------------------------------------
@cache
def _masks() -> tuple[np.ndarray, np.ndarray]:
    """Byte tables: allowed in a clause body, white space."""
    import numpy as np

    allowed = np.zeros(256, dtype=bool)
    allowed[[ord(ch) for ch in "0123456789- \t\r\n"]] = True
    white = np.zeros(256, dtype=bool)
    white[[ord(ch) for ch in " \t\r\n"]] = True
    return allowed, white


def _line_starters(arr: np.ndarray, char: str) -> list[int]:
    """Positions of ``char`` where it is the first non-blank byte of its line."""
    import numpy as np

    found = []
    for pos in np.flatnonzero(arr == ord(char)).tolist():
        k = pos - 1
        while k >= 0 and arr[k] in (32, 9, 13):
            k -= 1
        if k < 0 or arr[k] == 10:
            found.append(pos)
    return found


def _body_numpy(
    data: bytes, offset: int, num_vars: int, source: str
) -> tuple[np.ndarray, int, int]:
    import numpy as np

    _ALLOWED, _WHITE = _masks()
    arr = np.frombuffer(data, dtype=np.uint8)[offset:]
    end_pos = len(data)
    trailer = _line_starters(arr, "%")
    if trailer:
        end_pos = offset + trailer[0]
        arr = arr[: trailer[0]]
    comments = _line_starters(arr, "c")
    if comments:  # blank out comment lines, keeping every byte position (and line number)
        arr = arr.copy()
        for pos in comments:
            stop = np.flatnonzero(arr[pos:] == 10)
            arr[pos : pos + (int(stop[0]) if stop.size else arr.size)] = 32
    # structural errors (first one in file order): a second header, garbage bytes, stray '-'
    errors: list[tuple[int, str]] = []
    second = _line_starters(arr, "p")
    if second:
        errors.append((second[0], "a-header"))
    ok = _ALLOWED[arr]
    if not ok.all():
        errors.append((int(np.argmin(ok)), "garbage"))
    white = _WHITE[arr]
    minus = np.flatnonzero(arr == 45)
    if minus.size:
        before_ok = np.ones(minus.size, dtype=bool)
        has_before = minus > 0
        before_ok[has_before] = white[minus[has_before] - 1]
        after = minus + 1
        after_ok = np.zeros(minus.size, dtype=bool)
        inside = after < arr.size
        after_ok[inside] = (arr[after[inside]] >= 48) & (arr[after[inside]] <= 57)
        bad = ~(before_ok & after_ok)
        if bad.any():
            errors.append((int(minus[np.argmax(bad)]), "garbage"))
    limit = arr.size
    if errors:
        first, kind = min(errors)
        limit = first  # the tokens before the one holding the error are well formed
        while limit > 0 and not white[limit - 1]:
            limit -= 1
    # numbers of more than 10 digits cannot be literals (and would overflow the parser)
    digit = (arr[:limit] >= 48) & (arr[:limit] <= 57)
    edges = np.flatnonzero(np.diff(np.concatenate(([False], digit, [False])).view(np.int8)))
    runs = edges[1::2] - edges[::2]
    long_number = int(edges[::2][np.argmax(runs > 10)]) if (runs > 10).any() else -1
    if long_number >= 0:
        limit = long_number
    if white[:limit].all():  # numpy parses a blank string as [0]: no literal is no literal
        values = np.empty(0, dtype=np.int64)
    else:
        values = np.fromstring(arr[:limit].tobytes().decode("ascii"), dtype=np.int64, sep=" ")
    big = np.flatnonzero(np.abs(values) > num_vars) if values.size else values
    if big.size or long_number >= 0:
        if big.size:
            starts = np.flatnonzero(~white[:limit] & np.concatenate(([True], white[: limit - 1])))
            pos = offset + int(starts[big[0]])
        else:
            pos = offset + long_number
        token = _token_at(data, pos)
        raise DimacsError(
            source, _line_of(data, pos), f"literal {token} out of range for {num_vars} variables"
        )
    if errors:
        pos = offset + first
        if kind == "a-header":
            raise DimacsError(source, _line_of(data, pos), "second 'p' header line")
        raise DimacsError(source, _line_of(data, pos), f"not a literal: {_token_at(data, pos)!r}")
    lits = values.astype(np.int32)
    clauses = int(np.count_nonzero(lits == 0))
    if lits.size and lits[-1] != 0:  # last clause without its terminating 0
        lits = np.append(lits, np.int32(0))
        clauses += 1
    return lits, clauses, end_pos


def arrays_to_clauses(lits: np.ndarray) -> list[list[int]]:
    """Split a flat 0-terminated literal array into a list of clauses."""
    import numpy as np

    flat = lits.tolist()
    clauses: list[list[int]] = []
    start = 0
    was_enabled = gc.isenabled()
    gc.disable()  # thousands of small lists, none cyclic: collections here are pure waste
    try:
        for end in np.flatnonzero(lits == 0).tolist():
            clauses.append(flat[start:end])
            start = end + 1
    finally:
        if was_enabled:
            gc.enable()
    return clauses


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
