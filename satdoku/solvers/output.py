"""A solver binary's stdout read as a stream: only what the answer needs is kept.

A binary may print hundreds of megabytes of ``c`` lines before its answer; reading that whole
into memory cost 1.2 GB and lost the answer. :class:`AnswerStream` takes the output in chunks
of any size (a pipe's reads, or a file read piece by piece) and keeps the ``s`` line, the
literals of the ``v`` lines, and the last :data:`TAIL_LINES` other lines (cut to
:data:`LINE_CHARS` characters each) for error messages; a line longer than
:data:`MAX_LINE_BYTES` that is not a ``v`` line is skipped without being held. Everything else
is counted and dropped. ``v`` literals go to a consumer (by default a list, the model); a
consumer that checks literals as they come (a model checked clause by clause while it streams)
plugs in there without holding the model at all.
"""

from __future__ import annotations

import re
from array import array
from collections import deque
from collections.abc import Callable

from satdoku.solvers.result import SAT, UNSAT

#: Lines of other output kept for error messages.
TAIL_LINES = 8
#: Characters kept of each such line.
LINE_CHARS = 200
#: Bytes of a pending line (not a ``v`` line) held before it is dropped to its end.
MAX_LINE_BYTES = 1 << 16
#: Bytes read at a time from a file.
CHUNK = 1 << 20
#: a run of whole ``v`` lines (``v`` alone, or ``v`` and a space and the rest of the line):
#: read as one text, not line by line (a model of millions of variables has 10^5 lines)
_V_LINES = re.compile(rb"(?:v(?: [^\n]*)?\n)+")


class AnswerStream:
    """An incremental reader of SAT-competition output (``s`` / ``v`` lines)."""

    def __init__(self, on_literals: Callable[[list[int]], None] | None = None) -> None:
        self.status: str | None = None
        self.model: array[int] | None = None  # the v literals (int32), when no consumer takes them
        self.has_v = False
        self.garbage = ""  # the first v token that is not an integer, if any
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.bytes = 0  # bytes seen
        self._pending = b""
        self._skipping = False  # inside an overlong line, dropping to its end
        self._v_line = False  # the pending bytes are the rest of a v line
        self._on_literals = on_literals

    # -- feeding ---------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Take the next piece of output (any size, lines may be split anywhere)."""
        self.bytes += len(data)
        start = 0
        while True:
            if not (self._pending or self._v_line or self._skipping):
                block = _V_LINES.match(data, start)  # whole v lines: their literals at once
                if block is not None:
                    self.has_v = True
                    self._literals(data[start + 1:block.end() - 1], v_lines=True)
                    start = block.end()
                    continue
            end = data.find(b"\n", start)
            if end < 0:
                self._hold(data[start:])
                return
            self._line_end(data[start:end])
            start = end + 1

    def close(self) -> None:
        """The output ended: a last line without a newline counts too."""
        if self._pending or self._v_line:
            self._line_end(b"")

    def read_file(self, path: str) -> None:
        """Feed a whole file, :data:`CHUNK` bytes at a time, and close."""
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                self.feed(chunk)
        self.close()

    def _hold(self, part: bytes) -> None:
        if self._skipping:
            return
        held = self._pending + part
        if self._v_line or (len(held) >= 2 and self._is_v(held)):
            self._pending = b""
            self._v_part(held, final=False)
            return
        self._pending = held
        if len(self._pending) > MAX_LINE_BYTES:
            self._remember(self._pending[:LINE_CHARS])
            self._pending, self._skipping = b"", True

    def _line_end(self, part: bytes) -> None:
        if self._skipping:
            self._skipping = False
            return
        line = self._pending + part
        self._pending = b""
        if self._v_line or self._is_v(line):
            self._v_part(line, final=True)
            return
        self._line(line)

    @staticmethod
    def _is_v(line: bytes) -> bool:
        return line[:2] == b"v " or line == b"v"

    def _v_part(self, data: bytes, final: bool) -> None:
        """Literals of a v line as its bytes come (a model line may be gigabytes long)."""
        if not self._v_line:
            self.has_v, self._v_line = True, True
            data = data[1:]
        if not final:  # keep an unfinished number for the next piece
            cut = max(data.rfind(b" "), data.rfind(b"\t"))
            data, self._pending = (data[:cut], data[cut:]) if cut >= 0 else (b"", data)
        else:
            self._v_line = False
        self._literals(data)

    def _literals(self, data: bytes, v_lines: bool = False) -> None:
        raw, bad = v_literal_bytes(data, v_lines)
        if bad and not self.garbage:
            self.garbage = bad[:40].decode("utf-8", "replace")
        if not raw:
            return
        if self._on_literals is not None:
            self._on_literals(array("i", raw).tolist())
            return
        if self.model is None:
            self.model = array("i")
        self.model.frombytes(raw)

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if text.startswith("s "):
            word = text[2:].strip().upper()
            self.status = {"SATISFIABLE": SAT, "UNSATISFIABLE": UNSAT,
                           "UNKNOWN": "UNKNOWN"}.get(word, f"bad s line {text[:60]!r}")
        elif text.strip():
            self._remember(raw[:LINE_CHARS])

    def _remember(self, raw: bytes) -> None:
        self.tail.append(raw.decode("utf-8", "replace").strip())

    # -- reading ---------------------------------------------------------------------------
    def answer(self) -> tuple[str | None, array[int] | None]:
        """(the ``s`` line's answer or None, the ``v`` literals or None without v lines): an
        ``array('i')``, 4 bytes a literal (a model of millions of variables as a list of
        Python ints would cost 9 times that)."""
        if self.has_v and self.model is None and self._on_literals is None:
            return self.status, array("i")
        return self.status, self.model if self.has_v else None

    def last_lines(self, n: int = 1) -> str:
        """The last ``n`` kept lines of other output, as one line."""
        return " | ".join(list(self.tail)[-n:])


def parse_output(stdout: str) -> tuple[str | None, list[int] | None]:
    """(answer from the ``s`` line or None, the ``v`` literals as a list or None) of a whole
    output; ValueError for a ``v`` token that is not an integer."""
    stream = AnswerStream()
    stream.feed(stdout.encode("utf-8"))
    stream.close()
    if stream.garbage:
        raise ValueError(f"not a literal: {stream.garbage!r}")
    status, model = stream.answer()
    return status, (model.tolist() if model is not None else None)


_INT = re.compile(rb"[+-]?[0-9]+")
_INT32_MAX = 2**31 - 1


def v_literal_bytes(data: bytes, v_lines: bool = False) -> tuple[bytes, bytes]:
    """(the nonzero literals of ``v`` line text as int32 bytes, its first token that is not
    one: empty when none). A literal is ``[+-]?[0-9]+`` within +-(2**31 - 1) (a DIMACS
    variable's range); tokens are separated by ASCII whitespace. ``v_lines``: ``data`` is a
    run of whole v lines, the first one's ``v`` left off, and the ``v`` after each line end is
    skipped. One pass in C when it is built (``parse_ints`` in satdoku/cnf/_dimacs.c; a model
    line may hold millions of literals), else :func:`v_literals_python`."""
    try:
        from satdoku.cnf import _dimacs  # type: ignore[attr-defined]
    except ImportError:
        lits, bad = v_literals_python(data.replace(b"\nv", b"\n") if v_lines else data)
        return array("i", lits).tobytes(), bad
    raw, start, end = _dimacs.parse_ints(data, v_lines)
    return raw, (data[start:end] if start >= 0 else b"")


def v_literals_python(data: bytes) -> tuple[list[int], bytes]:
    """:func:`v_literal_bytes` in plain Python, as a list (the readable form; the tests'
    oracle)."""
    lits: list[int] = []
    bad = b""
    for token in data.split():
        if _INT.fullmatch(token) and abs(int(token)) <= _INT32_MAX:
            if int(token):
                lits.append(int(token))
        elif not bad:
            bad = token
    return lits, bad
