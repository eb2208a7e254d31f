"""The numba-compiled pass of the DIMACS reader (imported only when numba is available).

``_dimacs.c`` has the same pass in C: same results, same error codes (= dimacs_fast's ERR_*).
"""

from __future__ import annotations

import numba
import numpy as np

ERR_NONE, ERR_HEADER, ERR_GARBAGE, ERR_RANGE = 0, 1, 2, 3
_NL, _SP, _TAB, _CR = 10, 32, 9, 13
_MINUS, _ZERO, _NINE = 45, 48, 57
_C, _P, _PERCENT = 99, 112, 37


@numba.njit(cache=True, nogil=True)
def parse_body(buf: np.ndarray, offset: int, num_vars: int, out: np.ndarray):  # type: ignore[no-untyped-def]
    """Literals of ``buf[offset:]`` into ``out``; returns
    (count, clauses, error code, error byte position, end position)."""
    n = buf.shape[0]
    i = offset
    count = 0
    clauses = 0
    line_start = True
    end_pos = n
    while i < n:
        ch = buf[i]
        if ch == _NL:
            line_start = True
            i += 1
            continue
        if ch == _SP or ch == _TAB or ch == _CR:  # noqa: SIM109 - plain compares compile best
            i += 1
            continue
        if line_start:
            if ch == _C:  # comment line
                while i < n and buf[i] != _NL:
                    i += 1
                continue
            if ch == _PERCENT:  # SATLIB trailer: the formula ends here
                end_pos = i
                break
            if ch == _P:
                return count, clauses, ERR_HEADER, i, end_pos
            line_start = False
        start = i
        neg = False
        if ch == _MINUS:
            neg = True
            i += 1
        if i >= n or buf[i] < _ZERO or buf[i] > _NINE:
            return count, clauses, ERR_GARBAGE, start, end_pos
        value = 0
        while i < n and _ZERO <= buf[i] <= _NINE:
            if value <= 4294967296:
                value = value * 10 + (buf[i] - _ZERO)
            i += 1
        if i < n:
            ch = buf[i]
            if not (ch == _SP or ch == _NL or ch == _TAB or ch == _CR):  # noqa: SIM109
                return count, clauses, ERR_GARBAGE, start, end_pos
        if value > num_vars:
            return count, clauses, ERR_RANGE, start, end_pos
        if value == 0:
            clauses += 1
        out[count] = -value if neg else value
        count += 1
    if count > 0 and out[count - 1] != 0:  # last clause without its terminating 0
        out[count] = 0
        count += 1
        clauses += 1
    return count, clauses, ERR_NONE, 0, end_pos
