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

from satdoku.cnf.native import dimacs_passes as _native
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
                raw, bad, end = v_run(data, start)  # whole v lines: their literals at once
                if end > start:
                    self.has_v = True
                    self._take(raw, bad)
                    start = end
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

    def _literals(self, data: bytes) -> None:
        self._take(*v_literal_bytes(data))

    def _take(self, raw: bytes, bad: bytes) -> None:
        """Keep (or hand on) literals read as int32 bytes; remember the first bad token."""
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


def v_literal_bytes(data: bytes) -> tuple[bytes, bytes]:
    """(the nonzero literals of ``v`` line text as int32 bytes, its first token that is not
    one: empty when none). A literal is ``[+-]?[0-9]+`` within +-(2**31 - 1) (a DIMACS
    variable's range); tokens are separated by ASCII whitespace. One pass in C when it is
    built (``parse_ints`` in satdoku/cnf/_dimacs.c; a model line may hold millions of
    literals), else :func:`v_literals_python`."""
    native = _native()
    if native is None:
        lits, bad = v_literals_python(data)
        return array("i", lits).tobytes(), bad
    raw, start, end = native.parse_ints(data)
    return raw, (data[start:end] if start >= 0 else b"")


def v_run(data: bytes, start: int) -> tuple[bytes, bytes, int]:
    """(the literals of the run of whole ``v`` lines at ``data[start:]``, a line start, as
    :func:`v_literal_bytes` reads them; its first bad token; where the run ends: ``start``
    when no v line is there). A line of the run is ``v`` alone or ``v``, a space and the rest,
    ended by its LF (:data:`_V_LINES`); a last line without its LF is left out. One pass in C
    when it is built (``v_run`` in satdoku/cnf/_dimacs.c: a model of millions of variables has
    10^5 lines), else the regex and :func:`v_literals_python` over the run's text."""
    native = _native()
    if native is None:
        block = _V_LINES.match(data, start)
        if block is None:
            return b"", b"", start
        text = data[start + 1:block.end() - 1].replace(b"\nv", b"\n")  # each line's v, off
        lits, bad = v_literals_python(text)
        return array("i", lits).tobytes(), bad, block.end()
    raw, bad_start, bad_end, end = native.v_run(data, start)
    return raw, (data[bad_start:bad_end] if bad_start >= 0 else b""), end


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
