"""A DIMACS file read as a stream: one pass over its bytes does what its caller needs of it.

A competition file has hundreds of megabytes of text; holding it (and its decompressed copy,
and its clauses as Python lists) cost the harness several times the formula's size, and every
job (checking it, hashing it, reading it for a solver, checking a model) read it whole once
more. :func:`scan_dimacs` reads a file once, a chunk at a time (:func:`satdoku.sources.
open_content`: decompressed by magic bytes, at most the input limit), and in that one pass:

- computes the sha256 of the raw bytes (the file's identity in the stage files; a caller that
  recorded one gets :class:`FileChanged` when it differs);
- checks the header and every clause by the reader's rules (:mod:`satdoku.cnf.dimacs_fast`:
  the same :class:`~satdoku.cnf.dimacs_fast.DimacsError`, naming the same line, as the
  whole-file reader gives for the same bytes);
- on request: keeps the literals (one flat int32 buffer, each clause 0-terminated), hands them
  on chunk by chunk (``on_lits``: a copy written elsewhere), computes GBD's hash (the instance
  hash, :mod:`satdoku.identity`) and checks a model (the clauses it leaves unsatisfied);
- says whether the file is *standard* DIMACS that a solver binary reads as we do (no byte-order
  mark, ``p cnf V C`` written with single spaces, no SATLIB ``%`` trailer, the last clause
  ended by its 0): such a file can be handed to a binary as it is.

The passes are compiled (``BodyScanner`` and ``GbdTokens`` in ``satdoku/cnf/_dimacs.c``). GBD's
hash takes its tokens from ``BodyScanner``'s own, in the same pass over the bytes; only content
where the two could differ (a CR inside a comment line, which ends a line for GBD; clause
tokens in the header part) is hashed by ``GbdTokens``, GBD's own token pass, over the file
read again. Their readable forms are the whole-file ones: without the compiled module this
module reads the file whole and runs the Python reader
(:func:`~satdoku.cnf.dimacs_fast.parse_dimacs_buffer`), the Python hash
(:func:`satdoku.identity.cnf_hash_bytes`) and the Python model check; the tests compare both
on the same files, cut into chunks anywhere.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from satdoku.cnf.dimacs_fast import (
    DimacsError,
    Header,
    _body_python,
    check_header_size,
    header_complete,
    parse_dimacs_buffer,
    read_header,
)
from satdoku.cnf.formula import ModelCheck, model_values, split_lits, unsatisfied_python
from satdoku.cnf.native import dimacs_passes as _native
from satdoku.identity import cnf_hash_bytes, hashes_nothing_of
from satdoku.size_limits import SizeLimits, default_size_limits
from satdoku.sources import InputError, file_sha256, open_content, read_snapshot

ERR_HEADER, ERR_GARBAGE, ERR_RANGE = 1, 2, 3  # = _dimacs.c's


class FileChanged(InputError):
    """A file whose sha256 is not the one recorded when it was read."""

    def __init__(self, source: str) -> None:
        super().__init__(source, "changed since it was read (sha256 differs)")


@dataclass
class DimacsScan:
    """What one pass over a DIMACS file found (see :func:`scan_dimacs`)."""

    source: str
    num_vars: int
    num_clauses: int
    sha256: str
    comments: list[str] = field(default_factory=list)
    compression: str | None = None
    standard: bool = False  #: a solver binary reads it as it is, as we do
    lits: bytes | None = None  #: the literals, int32, each clause 0-terminated (``keep``)
    instance_hash: str = ""  #: GBD's hash (``gbd``)
    unsatisfied: int = 0  #: clauses the model leaves unsatisfied (``values``)
    first_unsatisfied: int = -1  #: index of the first of them


def has_stream_engine() -> bool:
    """Whether the compiled streaming passes are built (else files are read whole)."""
    return _native() is not None


def scan_dimacs(path: str | Path, *, keep: bool = False, gbd: bool = False,
                values: bytes | None = None, on_lits: Callable[[bytes], object] | None = None,
                expect_sha256: str | None = None, clause_tolerance: int = 0,
                limits: SizeLimits | None = None, engine: str = "auto",
                chunk: int = 1 << 20) -> DimacsScan:
    """Read the DIMACS file ``path`` once (see the module doc).

    ``keep``: the literals in :attr:`DimacsScan.lits`; ``on_lits``: called with each new
    piece of them (int32 bytes, clauses may span pieces) as the file is read; ``gbd``: GBD's
    hash; ``values``: a model's value table (:func:`~satdoku.cnf.formula.model_values`),
    whose unsatisfied clauses are counted; ``expect_sha256``: the sha256 recorded when the
    file was read before (a different one is :class:`FileChanged`, raised once the file is
    read to its end, before anything else is said about it). ``engine``: ``auto``
    (``stream`` when compiled, else ``whole``), ``stream`` or ``whole`` (the file read whole
    through the readable Python forms, the tests' oracle). ``chunk``: bytes read at a time (the
    tests cut files small). Errors: InputError (the file), DimacsError (its content), one line
    each."""
    lim = limits or default_size_limits()
    if engine == "auto":
        engine = "stream" if has_stream_engine() else "whole"
    if engine == "whole":
        return _scan_whole(path, keep, gbd, values, on_lits, expect_sha256, clause_tolerance,
                           lim)
    if engine != "stream":
        raise ValueError(f"unknown engine {engine!r}; choose from auto, stream, whole")
    native = _native()
    if native is None:
        raise ValueError("engine 'stream' needs the compiled DIMACS passes (run `make install`)")
    content = open_content(path, lim.max_input_bytes, chunk)
    scan = _Stream(native, str(path), keep or on_lits is not None, gbd, values, on_lits,
                   clause_tolerance, lim)
    scan.read(content)
    if expect_sha256 is not None and content.sha256 != expect_sha256:
        raise FileChanged(str(path))
    found = scan.result(content.sha256, content.compression, content.bom, content.size)
    if scan.gbd_unsure:
        found.instance_hash = _gbd_pass(native, path, content.sha256, lim, chunk)
    return found


def _gbd_pass(native, path: str | Path, sha256: str, limits: SizeLimits,  # type: ignore[no-untyped-def]
              chunk: int) -> str:
    """GBD's hash of ``path`` by GBD's own token pass (``GbdTokens``), read again (checked
    against the first read's ``sha256``): for the rare content whose tokens the body's pass
    cannot take for GBD's (a CR inside a comment line, tokens in the header part)."""
    content = open_content(path, limits.max_input_bytes, chunk)
    found = gbd_of_pieces(native, content)
    if content.sha256 != sha256:
        raise FileChanged(str(path))
    return found


def gbd_of_pieces(native, pieces: Iterable[bytes]) -> str:  # type: ignore[no-untyped-def]
    """GBD's hash of the content ``pieces`` by GBD's own compiled token pass."""
    md5 = hashlib.md5(usedforsecurity=False)
    tokens = native.GbdTokens(md5.update)
    for piece in pieces:
        tokens.feed(piece)
    tokens.finish()
    return md5.hexdigest()


class _Stream:
    """One streaming pass: the header part gathered until its ``p`` line is whole, then the
    body through the compiled scanner; the sha256 over everything. GBD's hashed tokens come
    from the scanner's own tokens (their md5 in a second thread, :class:`_Beside`); when the
    header part has any GBD would hash, or the scanner is unsure of them, ``gbd_unsure`` is
    set after the read and the hash is left to GBD's own pass."""

    def __init__(self, native, source: str, keep: bool, gbd: bool,  # type: ignore[no-untyped-def]
                 values: bytes | None, on_lits: Callable[[bytes], object] | None,
                 tolerance: int, limits: SizeLimits) -> None:
        self.native, self.source, self.keep, self.values = native, source, keep, values
        self.on_lits, self.tolerance, self.limits = on_lits, tolerance, limits
        self.md5 = hashlib.md5(usedforsecurity=False) if gbd else None
        self.beside: _Beside | None = None
        self.gbd_unsure = False
        self.head = b""
        self.header: Header | None = None
        self.scanner = None
        self.last = b""  # the content's last byte

    def read(self, chunks: Iterable[bytes]) -> None:
        look = 0
        beside = self.beside = _Beside(self.md5.update) if self.md5 is not None else None
        try:
            for chunk in chunks:
                self.last = chunk[-1:] or self.last
                if self.scanner is not None:
                    self._body(chunk)
                    continue
                self.head += chunk
                done, look = header_complete(self.head, look)
                if done:
                    self._start(self.head)
            if self.scanner is None:  # the content ended inside the header part
                self._start(self.head)
            self.scanner.finish()  # type: ignore[attr-defined]
        except BaseException:
            if beside is not None:
                beside.close(quietly=True)
            raise
        if beside is not None:
            beside.close()
        self._hand_on()

    def _start(self, head: bytes) -> None:
        self.header = h = read_header(head, self.source, self.limits)
        line = head.count(b"\n", 0, h.offset) + 1
        gbd = self.beside.put if self.beside is not None else None
        if gbd is not None and not hashes_nothing_of(head[:h.offset]):
            self.gbd_unsure, gbd = True, None
        self.scanner = self.native.BodyScanner(h.num_vars, line, self.keep, self.values, gbd)
        self.head = b""
        self._body(head[h.offset:])

    def _body(self, data: bytes) -> None:
        self.scanner.feed(data)  # type: ignore[attr-defined]
        self._hand_on()

    def _hand_on(self) -> None:
        if self.on_lits is not None:
            piece = self.scanner.take()  # type: ignore[attr-defined]
            if piece:
                self.on_lits(piece)

    def result(self, sha256: str, compression: str | None, bom: int, size: int) -> DimacsScan:
        """The scan's findings, or its first error in the whole-file reader's order: the
        header's sizes, the first bad token, the clause count."""
        h = self.header
        assert h is not None and self.scanner is not None
        check_header_size(h, size, self.source, self.tolerance)
        (clauses, err, err_line, token, ended, end_line, line, closed_last, unsat,
         first_unsat, unsure) = self.scanner.state()
        self.gbd_unsure = self.gbd_unsure or bool(unsure)
        if err:
            raise _error(self.source, h.num_vars, err, err_line, token)
        if abs(clauses - h.num_clauses) > self.tolerance:
            last = end_line if ended else max(1, line - 1 + (self.last not in (b"\n", b"")))
            raise DimacsError(self.source, last, f"header says {h.num_clauses} clauses, file "
                                                 f"has {clauses}")
        standard = (not bom and not ended and not closed_last
                    and h.line.rstrip(b" \t\r") == b"p cnf %d %d" % (h.num_vars, h.num_clauses))
        lits = self.scanner.take() if self.keep and self.on_lits is None else None
        return DimacsScan(self.source, h.num_vars, clauses, sha256, h.comments, compression,
                          standard, lits,
                          self.md5.hexdigest() if self.md5 and not self.gbd_unsure else "",
                          unsat, first_unsat)


class _Beside:
    """The md5 of GBD's tokens (``feed``) runs in a second thread, beside the body's pass in
    the caller's: hashlib lets go of the GIL for pieces of 2 KB and more, so with a core free
    the read takes about as long as the longer of the two, not as both. The CPU time is the
    same. The thread starts with the second piece (a file of one piece is fed here), pieces
    keep their order, and at most a few wait (bounded memory)."""

    def __init__(self, feed: Callable[[bytes], object]) -> None:
        self.feed = feed
        self.first: bytes | None = None
        self.queue: queue.Queue[bytes | None] = queue.Queue(maxsize=4)
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def put(self, chunk: bytes) -> None:
        if self.first is None and self.thread is None:
            self.first = chunk
            return
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="gbd-hash", daemon=True)
            self.thread.start()
            self.queue.put(self.first)
            self.first = None
        self.queue.put(chunk)

    def _run(self) -> None:
        while (chunk := self.queue.get()) is not None:
            if self.error is None:  # after an error, the rest is drained unread
                try:
                    self.feed(chunk)
                except BaseException as exc:  # (MemoryError): raised in the caller's thread
                    self.error = exc

    def close(self, quietly: bool = False) -> None:
        """Wait for every piece to be fed; its error, if any, raised here (``quietly``: the
        caller is raising one of its own)."""
        if self.thread is None:
            if self.first is not None and not quietly:
                self.feed(self.first)
            return
        self.queue.put(None)
        self.thread.join()
        if self.error is not None and not quietly:
            raise self.error


def _error(source: str, num_vars: int, err: int, line: int, token: bytes) -> DimacsError:
    """The DimacsError of a scanner's error code (the words of the whole-file reader)."""
    if err == ERR_HEADER:
        return DimacsError(source, line, "second 'p' header line")
    text = token.decode("utf-8", "replace")[:40]
    if err == ERR_GARBAGE:
        return DimacsError(source, line, f"not a literal: {text!r}")
    return DimacsError(source, line, f"literal {text} out of range for {num_vars} variables")


def _scan_whole(path: str | Path, keep: bool, gbd: bool, values: bytes | None,
                on_lits: Callable[[bytes], object] | None, expect_sha256: str | None,
                tolerance: int, limits: SizeLimits) -> DimacsScan:
    """:func:`scan_dimacs` of the file read whole, through the readable Python forms (the tests'
    oracle, and what runs without the compiled passes)."""
    snap = read_snapshot(path, limits.max_input_bytes)
    if expect_sha256 is not None and snap.sha256 != expect_sha256:
        raise FileChanged(str(path))
    buf = parse_dimacs_buffer(snap.data, str(path), tolerance, limits, engine="python")
    h = read_header(snap.data, str(path), limits)
    _, _, end = _body_python(snap.data, h.offset, h.num_vars, str(path))
    standard = (not snap.bom and end == len(snap.data) and not _open_end(snap.data[h.offset:])
                and h.line.rstrip(b" \t\r") == b"p cnf %d %d" % (h.num_vars, h.num_clauses))
    unsat, first = 0, -1
    if values is not None:
        missed = unsatisfied_python(buf.lits, h.num_vars, values)
        unsat, first = len(missed), (missed[0] if missed else -1)
    if on_lits is not None and buf.lits:
        on_lits(buf.lits)
    return DimacsScan(str(path), buf.num_vars, buf.num_clauses, snap.sha256, buf.comments,
                      snap.compression, standard, buf.lits if keep and on_lits is None else None,
                      cnf_hash_bytes(snap.data) if gbd else "", unsat, first)


def _open_end(body: bytes) -> bool:
    """Whether a DIMACS body the reader accepted (no trailer) ends with a clause without its
    0, which the reader closes and a binary would refuse."""
    for line in reversed(body.split(b"\n")):
        words = line.split()
        if words and line.strip()[:1] != b"c":
            return int(words[-1]) != 0
    return False


SUFFIXES = {"gzip": ".gz", "xz": ".xz", "bz2": ".bz2"}  #: what a binary goes by


def hand_over(scan: DimacsScan, reads: Iterable[str] = ()) -> bool:
    """Whether a solver binary can read the file ``scan`` read itself, given what the scan
    found (``standard``, ``compression``; a record of a scan made earlier does as well):
    standard DIMACS, plain, or compressed in a format it reads (``reads``: gzip, xz, bz2) and
    named by that format's suffix (binaries such as CaDiCaL choose their decompressor by the
    name)."""
    if not scan.standard:
        return False
    if scan.compression is None:
        return True
    return (scan.compression in set(reads)
            and scan.source.lower().endswith(SUFFIXES.get(scan.compression, "\0")))


def rewrite_dimacs(scan: DimacsScan, out: str | Path, limits: SizeLimits | None = None
                   ) -> None:
    """Write the file ``scan`` read as standard DIMACS to ``out`` (``p cnf V C``, one clause a
    line), a piece at a time from a second pass over it (checked against the first's sha256:
    :class:`FileChanged`). For files a binary cannot be handed as they are. Only ``source``,
    ``num_vars``, ``num_clauses`` and ``sha256`` of ``scan`` are used: a record of the scan
    made earlier does as well."""
    native = _native()
    with open(out, "wb") as fh:
        fh.write(b"p cnf %d %d\n" % (scan.num_vars, scan.num_clauses))
        if native is None:
            def write(piece: bytes) -> None:
                fh.write("".join(" ".join(map(str, c)) + " 0\n"
                                 for c in split_lits(piece)).encode())
        else:
            at_start = True

            def write(piece: bytes) -> None:
                nonlocal at_start
                text, at_start = native.format_clauses(piece, at_start)
                fh.write(text)

        scan_dimacs(scan.source, on_lits=write, expect_sha256=scan.sha256, limits=limits)


def check_unchanged(path: str | Path, sha256: str) -> None:
    """:class:`FileChanged` unless the raw bytes of ``path`` still have the ``sha256``
    recorded when it was read (one plain pass, hashed, not parsed: for a file a binary read
    whose answer checks nothing else of it)."""
    if file_sha256(path) != sha256:
        raise FileChanged(str(path))


def check_model_file(path: str | Path, sha256: str, num_vars: int, model: Sequence[int],
                     limits: SizeLimits | None = None) -> ModelCheck:
    """Check a model against the DIMACS file ``path`` in one streaming pass (checked against
    the recorded ``sha256``): the formula need not be held."""
    values, conflict = model_values(model, num_vars)
    scan = scan_dimacs(path, values=values, expect_sha256=sha256, limits=limits)
    return ModelCheck(scan.unsatisfied, scan.first_unsatisfied, conflict)
