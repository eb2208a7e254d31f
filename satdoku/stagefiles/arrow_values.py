"""pyarrow arrays and scalars of Python values, built from buffers.

``pa.array`` of a Python list (or of a numpy or ``array`` buffer), ``pa.scalar``, and every
compute call or ``fill_null`` given a plain Python value convert through pyarrow's Python
layer, which imports pandas on first use: about 0.4 s of CPU for a job that only builds a
table (the run record). The constructors here make the same arrays from buffers
(``Array.from_buffers``), which pyarrow takes as they are; a scalar is an element of such an
array. pyarrow is imported inside the functions (heavy).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any


def _bitmap(flags: Sequence[bool]) -> Any:
    """Arrow's bitmap of ``flags`` (bit i, least significant first, set when flags[i] is
    true) as a pyarrow buffer. One base-2 text read as a whole: linear, where adding the bits
    one at a time to a big integer is quadratic (17 s for a million flags)."""
    import pyarrow as pa

    bits = int("".join("1" if f else "0" for f in reversed(flags)) or "0", 2)
    return pa.py_buffer(bits.to_bytes((len(flags) + 7) // 8 or 1, "little"))


def _validity(values: Sequence[object]) -> Any:
    """The validity bitmap of ``values`` (None: null) as a pyarrow buffer, or None when no
    value is null."""
    if all(v is not None for v in values):
        return None
    return _bitmap([v is not None for v in values])


def text_array(values: Sequence[str | None]) -> Any:
    """A pyarrow string array of ``values`` (None: null), as ``pa.array(values,
    type=pa.string())`` makes it."""
    import pyarrow as pa

    data = [b"" if v is None else v.encode("utf-8") for v in values]
    offsets = array("i", [0])
    end = 0
    for d in data:
        end += len(d)
        offsets.append(end)
    if end >= 2**31:
        raise ValueError("text column of 2 GB or more")
    return pa.StringArray.from_buffers(len(values), pa.py_buffer(offsets),
                                       pa.py_buffer(b"".join(data)), _validity(values))


def repeat_text(value: str, n: int) -> Any:
    """A pyarrow string array of ``value`` ``n`` times."""
    import pyarrow as pa

    raw = value.encode("utf-8")
    if len(raw) * n >= 2**31:
        raise ValueError("text column of 2 GB or more")
    offsets = array("i", range(0, (n + 1) * len(raw), len(raw))) if raw else \
        array("i", bytes(4 * (n + 1)))
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(raw * n))


def int_array(values: Sequence[int | None]) -> Any:
    """A pyarrow int64 array of ``values`` (None: null)."""
    import pyarrow as pa

    buf = array("q", [0 if v is None else v for v in values])
    return pa.Array.from_buffers(pa.int64(), len(values), [_validity(values), pa.py_buffer(buf)])


def bool_array(values: Sequence[bool]) -> Any:
    """A pyarrow boolean array of ``values`` (no nulls)."""
    import pyarrow as pa

    return pa.Array.from_buffers(pa.bool_(), len(values), [None, _bitmap(values)])


def text(value: str) -> Any:
    """``value`` as a pyarrow string scalar (for compute calls and ``fill_null``)."""
    return text_array([value])[0]


def null(kind: Any) -> Any:
    """A null scalar of pyarrow type ``kind``."""
    import pyarrow as pa

    return pa.nulls(1, kind)[0]
