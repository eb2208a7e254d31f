"""Opening users' files: every reader (puzzle formats and DIMACS) reads through this module.

- Only regular files are read: a missing file, a directory, a device such as ``/dev/zero`` or a
  FIFO is refused with a one-line :class:`InputError` naming the file (nothing hangs).
- Compression is recognised by its magic bytes (gzip, xz, bz2), whatever the file is called;
  a truncated or corrupt archive is an :class:`InputError` naming the file.
- At most :attr:`satdoku.size_limits.SizeLimits.max_input_bytes` are read (after decompression).
- A UTF-8 byte-order mark is dropped; UTF-16 text with its BOM is converted; LF, CRLF and
  old CR-only line ends, and any mix of them, each end a line.
- Text is decoded line by line: a line that is not UTF-8 is named (line and byte offset) in
  :attr:`Snapshot.bad_lines`, which the readers turn into one INVALID record; the other lines
  read normally.

A :class:`Snapshot` is one read of a file: its content and the sha256 of its raw bytes, so
detection, sharding and parsing share one read and a run can tell when the file changed under it
(compare :attr:`Snapshot.sha256` with :func:`file_sha256` later). This module imports nothing
of ours but :mod:`satdoku.size_limits`.
"""

from __future__ import annotations

import bisect
import contextlib
import io
import itertools
import os
import stat
import sys
from collections.abc import Iterator
from functools import cached_property

from satdoku.records import record
from satdoku.size_limits import default_size_limits

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only: pathlib costs a one-shot command ~15 M instructions
    from pathlib import Path
    from typing import IO, BinaryIO

STDIN = "-"
UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_BZ2_BLOCK_MAGIC = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
_CHUNK = 1 << 20
#: every line end: LF, CRLF, CR (and any mix of them); compiled on first use (re caches it), not
#: at import: a one-shot ``satdoku dpll`` reads no text lines (issue 29)
_LINE_END = rb"\r\n|\r|\n"


class InputError(ValueError):
    """A file that cannot be read as input; the message is one line naming the file."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source, self.reason = source, reason

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.source, self.reason))


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``xz`` or ``bz2`` from a file's first bytes (its magic number), else None."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[3:4] != b"0" \
            and head[4:10] in _BZ2_BLOCK_MAGIC:
        return "bz2"
    return None


def check_file(path: str | Path, limit: int | None = None) -> os.stat_result:
    """The status of ``path`` (its size) if it is a regular file of at most ``limit`` bytes
    (None: any size); else a one-line InputError."""
    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except PermissionError:
        raise InputError(name, "permission denied") from None
    except (OSError, ValueError) as exc:
        raise InputError(name, getattr(exc, "strerror", None) or str(exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(name, "is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(name, "is not a regular file (a device, FIFO or socket); give a file")
    if limit is not None and st.st_size > limit:
        raise _too_big(name, limit)
    return st


def _decompressor(kind: str, raw: BinaryIO) -> BinaryIO:
    """A reader of ``kind``'s decompressed stream; its module is imported here, on the first
    compressed file, so a plain file's read (a one-shot ``satdoku dpll``) loads none of them."""
    if kind == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw, "rb")  # type: ignore[return-value]
    import bz2

    return bz2.BZ2File(raw, "rb")  # type: ignore[return-value]


def _decompress_errors() -> tuple[type[BaseException], ...]:
    """What a decompressor raises on a truncated or corrupt archive. lzma's and zlib's own
    errors are taken from their modules only once loaded (by :func:`_decompressor`): an
    exception whose module was never imported cannot have been raised."""
    found: list[type[BaseException]] = [EOFError, OSError, ValueError]
    for module, name in (("lzma", "LZMAError"), ("zlib", "error")):
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)


def _too_big(name: str, limit: int) -> InputError:
    return InputError(name, f"larger than {limit} bytes (the input limit, "
                            "satdoku.size_limits.SizeLimits.max_input_bytes)")


def _decompress(raw: bytes, kind: str, name: str, limit: int) -> bytes:
    """The decompressed content of ``raw``, at most ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    try:
        with _decompressor(kind, io.BytesIO(raw)) as fh:
            while chunk := fh.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise _too_big(name, limit)
                chunks.append(chunk)
    except InputError:
        raise
    except _decompress_errors() as exc:
        raise InputError(name, f"truncated or corrupt {kind} data ({exc})") from None
    return b"".join(chunks)


def decompress(raw: bytes, source: str = "<bytes>", max_bytes: int | None = None) -> bytes:
    """``raw`` decompressed when its magic bytes say gzip, xz or bz2 (else ``raw`` itself), at
    most ``max_bytes`` (None: no cap); a truncated or corrupt archive is an InputError naming
    ``source``. For files of our own read as bytes (proofs); users' input goes through
    :func:`read_snapshot`."""
    kind = compression_of(raw[:10])
    if kind is None:
        return raw
    return _decompress(raw, kind, source, sys.maxsize if max_bytes is None else max_bytes)


@record(frozen=True, eq=False)
class Snapshot:
    """One read of an input file: raw bytes (for the checksum) and content (decompressed, BOM
    dropped). Lines are numbered from 1; ``lines[i - 1]`` is line i without its line end."""

    source: str
    raw: bytes
    data: bytes
    compression: str | None = None
    bom: int = 0  #: bytes of byte-order mark dropped from the start of ``data``

    @cached_property
    def sha256(self) -> str:
        """Hex sha256 of the file's raw bytes (as stored, compressed or not)."""
        import hashlib  # OpenSSL loads with it (~5 ms): only what hashes pays for it

        return hashlib.sha256(self.raw).hexdigest()

    @cached_property
    def _decoded(self) -> tuple[list[str], dict[int, str]]:
        data = self.data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._decode_per_line()
        if "\r" in text:  # CRLF, CR-only, or a mix of them with LF: each ends one line
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()
        if "\ufeff" in text:  # files joined by `cat`: each one's BOM starts a line
            lines = [ln.removeprefix("\ufeff") for ln in lines]
        return lines, {}

    def _decode_per_line(self) -> tuple[list[str], dict[int, str]]:
        import re  # here: only text that is not valid UTF-8 is read line by line

        lines: list[str] = []
        bad: dict[int, str] = {}
        data, start = self.data, 0
        for lineno, m in enumerate(itertools.chain(re.finditer(_LINE_END, data), [None]), 1):
            end = m.start() if m is not None else len(data)
            if m is None and start == len(data):
                break
            body = data[start:end]
            try:
                lines.append(body.decode("utf-8").removeprefix("\ufeff"))
            except UnicodeDecodeError as exc:
                bad[lineno] = (f"line {lineno} is not UTF-8 text (byte 0x{body[exc.start]:02x} "
                               f"at byte offset {self.bom + start + exc.start})")
                lines.append(body.decode("utf-8", "replace"))
            if m is not None:
                start = m.end()
        return lines, bad

    @property
    def lines(self) -> list[str]:
        """Every line, decoded (a non-UTF-8 line with U+FFFD for its bad bytes)."""
        return self._decoded[0]

    @property
    def bad_lines(self) -> dict[int, str]:
        """Line number -> why that line is not text (not UTF-8), for the lines that are not."""
        return self._decoded[1]

    @property
    def num_lines(self) -> int:
        """Number of lines (a last line without its line end counts), as sharding counts."""
        return len(self.lines)

    @cached_property
    def content_linenos(self) -> list[int]:
        """Numbers of the content lines: neither blank nor ``#`` comments."""
        return [i for i, ln in enumerate(self.lines, 1) if is_content(ln)]

    def content_lines(self, start: int = 1, stop: int | None = None) -> Iterator[tuple[int, str]]:
        """(line number, text) of the content lines with start <= number < stop."""
        nums = self.content_linenos
        lo = bisect.bisect_left(nums, start)
        hi = len(nums) if stop is None else bisect.bisect_left(nums, stop)
        lines = self.lines
        for i in range(lo, hi):
            n = nums[i]
            yield n, lines[n - 1]

    def count_content_before(self, line: int) -> int:
        """How many content lines come before ``line``."""
        return bisect.bisect_left(self.content_linenos, line)

    def head(self, n: int) -> list[tuple[int, str]]:
        """The first ``n`` content lines (for format detection)."""
        lines = self.lines
        return [(i, lines[i - 1]) for i in self.content_linenos[:n]]

    def text_head(self, n: int) -> list[tuple[int, str]]:
        """The first ``n`` content lines that are text (format detection: a line that is not
        UTF-8 is one bad line and never decides how the others are read)."""
        bad, lines = self.bad_lines, self.lines
        return list(itertools.islice(((i, lines[i - 1]) for i in self.content_linenos
                                      if i not in bad), n))


def is_content(line: str) -> bool:
    """True for a line that is neither blank nor a ``#`` comment."""
    text = line.strip()
    return bool(text) and text[0] != "#"


def _read_capped(fh: BinaryIO, name: str, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while chunk := fh.read(_CHUNK):
        total += len(chunk)
        if total > limit:
            raise _too_big(name, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _read_raw(path: str | Path, limit: int) -> bytes:
    name = str(path)
    if name == STDIN:
        return _read_capped(sys.stdin.buffer, name, limit)
    check_file(path, limit)
    try:
        with open(path, "rb") as fh:
            return _read_capped(fh, name, limit)  # type: ignore[arg-type]
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None


def read_snapshot(path: str | Path, max_bytes: int | None = None) -> Snapshot:
    """Read a file once (``-`` is stdin): decompressed by magic bytes, at most ``max_bytes``
    (default: the input limit of :mod:`satdoku.size_limits`), BOM dropped."""
    limit = default_size_limits().max_input_bytes if max_bytes is None else max_bytes
    return snapshot_from_bytes(_read_raw(path, limit), str(path), limit)


def snapshot_from_bytes(raw: bytes, source: str = "<bytes>",
                        max_bytes: int | None = None) -> Snapshot:
    """A snapshot of bytes already in memory (same rules as :func:`read_snapshot`)."""
    limit = default_size_limits().max_input_bytes if max_bytes is None else max_bytes
    if len(raw) > limit:
        raise _too_big(source, limit)
    kind = compression_of(raw[:10])
    data = _decompress(raw, kind, source, limit) if kind else raw
    data, bom = _as_utf8(data)
    return Snapshot(source, raw, data, kind, bom)


def _as_utf8(data: bytes) -> tuple[bytes, int]:
    """(content without its byte-order mark, bytes of mark dropped): a UTF-8 BOM is dropped,
    UTF-16 text (LE or BE, with its BOM) is converted to UTF-8 (its undecodable units become
    U+FFFD: one bad line, never a refused file)."""
    if data.startswith(UTF8_BOM):
        return data[len(UTF8_BOM):], len(UTF8_BOM)
    if data[:2] in _UTF16_BOMS and _is_utf16(data):
        return data.decode("utf-16", "replace").encode("utf-8"), 2
    return data, 0


def _is_utf16(data: bytes) -> bool:
    """Whether ``data`` (starting with a UTF-16 BOM) is UTF-16 text: at least 90% of its
    first 4,096 characters are in the Latin-1 range, as in any puzzle or DIMACS file. UTF-8
    text read as UTF-16 pairs its ASCII bytes into CJK characters, so a stray line that starts
    ``\\xff\\xfe`` before UTF-8 puzzles stays one bad line, not the file's encoding."""
    sample = data[: 2 + 8192].decode("utf-16", "replace")[:4096]
    return sum(c < "\u0100" for c in sample) >= 0.9 * len(sample)


def head_lines(path: str | Path, n: int = 20, max_bytes: int = 1 << 16) -> list[tuple[int, str]]:
    """The first ``n`` content lines of a file, from at most its first ``max_bytes`` of
    content (decompressed, BOM dropped, UTF-16 converted), each line decoded on its own with
    U+FFFD for bytes that are not UTF-8: what deciding a file's kind needs (a stray byte on
    one line never refuses the file), without reading a large file whole. The errors of
    :func:`read_snapshot` (missing file, directory, device, corrupt archive)."""
    with _content(path) as (fh, kind):
        data = fh.read(max_bytes)
    data, bom = _as_utf8(data)
    if len(data) >= max_bytes and b"\n" in data:  # the last line may be cut: leave it out
        data = data[: data.rindex(b"\n") + 1]
    return Snapshot(str(path), b"", data, kind, bom).text_head(n)


@contextlib.contextmanager
def _content(path: str | Path) -> Iterator[tuple[BinaryIO, str | None]]:
    """(a file's content as a binary stream, decompressed by magic bytes; its compression):
    a missing or unreadable file, and a truncated or corrupt archive met while reading, are
    InputErrors naming the file (the errors of :func:`read_snapshot`)."""
    name = str(path)
    check_file(path)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None
    kind = None
    try:
        with raw:
            kind = compression_of(raw.read(10))
            raw.seek(0)
            yield (_decompressor(kind, raw) if kind else raw), kind
    except InputError:
        raise
    except _decompress_errors() as exc:
        what = f"{kind} data" if kind else "file"
        raise InputError(name, f"truncated or corrupt {what} ({exc})") from None


class _HashingReader:
    """A binary file whose bytes are hashed (sha256) and counted as they are read."""

    def __init__(self, fh: BinaryIO, name: str, limit: int) -> None:
        import hashlib  # (lazily, as in Snapshot.sha256)

        self.fh, self.name, self.limit = fh, name, limit
        self.digest = hashlib.sha256()
        self.size = 0

    def read(self, n: int = -1) -> bytes:
        block = self.fh.read(n)
        self.size += len(block)
        if self.size > self.limit:
            raise _too_big(self.name, self.limit)
        self.digest.update(block)
        return block

    def readable(self) -> bool:
        return True


class ContentStream:
    """A file's content a chunk at a time, by the rules of :func:`read_snapshot`
    (decompressed by magic bytes, BOM dropped, UTF-16 converted, at most ``limit`` bytes, the
    same errors), for files too large to hold: iterating yields the chunks (the first one at
    least 8 KB, or all there is); once they are read to the end, :attr:`sha256` is the hex
    sha256 of the raw bytes and :attr:`size` the content's length. UTF-16 text is read whole
    and converted (such files are small)."""

    def __init__(self, path: str | Path, limit: int, chunk: int = _CHUNK) -> None:
        self.source, self.limit, self.chunk = str(path), limit, chunk
        self.compression: str | None = None
        self.bom = 0
        self.size = 0
        self._total = 0  # decompressed bytes read (the limit holds for them)
        self._raw: _HashingReader | None = None
        self._done = False

    @property
    def sha256(self) -> str:
        """Hex sha256 of the raw bytes (the chunks must have been read to the end)."""
        if not self._done or self._raw is None:
            raise RuntimeError(f"{self.source}: the content was not read to its end")
        return self._raw.digest.hexdigest()

    def __iter__(self) -> Iterator[bytes]:
        name = self.source
        check_file(self.source, self.limit)
        try:
            fh = open(self.source, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise InputError(name, exc.strerror or str(exc)) from None
        with fh:
            raw = self._raw = _HashingReader(fh, name, self.limit)  # type: ignore[arg-type]
            try:
                yield from self._chunks(raw, fh)
                while raw.read(self.chunk):  # what a decompressor left unread, hashed too
                    pass
            except InputError:
                raise
            except _decompress_errors() as exc:
                if self.compression is None:
                    raise InputError(name, getattr(exc, "strerror", None) or str(exc)) \
                        from None
                raise InputError(name, f"truncated or corrupt {self.compression} data "
                                       f"({exc})") from None
        self._done = True

    def _chunks(self, raw: _HashingReader, fh: BinaryIO) -> Iterator[bytes]:
        head = fh.read(10)
        fh.seek(0)
        self.compression = compression_of(head)
        stream: BinaryIO = (_decompressor(self.compression, raw)  # type: ignore[arg-type]
                            if self.compression else raw)
        first = b""
        while len(first) < 8194 and (block := stream.read(self.chunk)):  # a BOM, whole
            first += block
            self._count(len(block))
        if first[:2] in _UTF16_BOMS and _is_utf16(first):
            rest = [first]
            while block := stream.read(self.chunk):
                self._count(len(block))
                rest.append(block)
            data, self.bom = _as_utf8(b"".join(rest))
            self.size = len(data)
            yield data
            return
        if first.startswith(UTF8_BOM):
            first, self.bom = first[len(UTF8_BOM):], len(UTF8_BOM)
        if first:
            yield first
        while block := stream.read(self.chunk):
            self._count(len(block))
            yield block
        self.size = self._total - self.bom

    def _count(self, n: int) -> None:
        self._total += n
        if self._total > self.limit:
            raise _too_big(self.source, self.limit)


def open_content(path: str | Path, max_bytes: int | None = None, chunk: int = _CHUNK
                 ) -> ContentStream:
    """A file's content as a :class:`ContentStream` (at most ``max_bytes``, default the input
    limit of :mod:`satdoku.size_limits`; ``chunk`` bytes read at a time)."""
    limit = default_size_limits().max_input_bytes if max_bytes is None else max_bytes
    return ContentStream(path, limit, chunk)


def read_bytes(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The content of a file as bytes (see :func:`read_snapshot`)."""
    return read_snapshot(path, max_bytes).data


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's raw bytes, read in blocks (to compare with a Snapshot's)."""
    import hashlib  # (lazily, as in Snapshot.sha256)

    check_file(path)
    digest = hashlib.sha256()
    block = bytearray(_CHUNK)  # one buffer, read into: no new block (and its pages) each time
    view = memoryview(block)
    try:
        with open(path, "rb", buffering=0) as fh:
            while size := fh.readinto(block):
                digest.update(view[:size])
    except OSError as exc:
        raise InputError(str(path), exc.strerror or str(exc)) from None
    return digest.hexdigest()


def count_lines(path: str | Path, max_bytes: int | None = None) -> int:
    """Number of lines of a file's content, exactly as :attr:`Snapshot.num_lines` counts them
    (decompressed, BOM dropped, CR-only line ends), streamed in blocks: what sharding needs,
    without holding the file. The same errors as :func:`read_snapshot`."""
    limit = default_size_limits().max_input_bytes if max_bytes is None else max_bytes
    name = str(path)
    check_file(path, limit)
    newlines = returns = pairs = total = 0
    first, last = b"", b""
    with _content(path) as (fh, _):
        while block := fh.read(_CHUNK):
            if not first:
                first = block[:3]
                if first[:2] in _UTF16_BOMS:  # transcoded by the snapshot: count there
                    return read_snapshot(path, limit).num_lines
            total += len(block)
            if total > limit:
                raise _too_big(name, limit)
            newlines += block.count(b"\n")
            returns += block.count(b"\r")
            pairs += block.count(b"\r\n") + (last == b"\r" and block[:1] == b"\n")
            last = block[-1:]
    if total == 0 or (first == UTF8_BOM and total == len(UTF8_BOM)):
        return 0
    return newlines + returns - pairs + (last not in (b"\n", b"\r"))


# --- streaming text (large files of our own: bundles, proofs) ---------------------------------
class _GuardedText(io.TextIOBase):
    """A text stream whose decoding and decompression errors are InputErrors naming the file."""

    def __init__(self, inner: io.TextIOWrapper, source: str, kind: str | None) -> None:
        super().__init__()
        self._inner, self._source, self._kind = inner, source, kind

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except UnicodeDecodeError as exc:
            raise InputError(self._source, f"not UTF-8 text ({exc.reason})") from None
        except _decompress_errors() as exc:
            what = f"{self._kind} data" if self._kind else "file"
            raise InputError(self._source, f"truncated or corrupt {what} ({exc})") from None

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        with self._guard():
            return self._inner.read(size)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        with self._guard():
            return self._inner.readline(-1 if size is None else size)

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        with self._guard():  # one guard for the whole loop: no cost per line
            yield from self._inner

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        self._inner.close()
        super().close()


def open_text(path: str | Path) -> IO[str]:
    """A text stream over a file (``-`` is stdin), decompressed by magic bytes, BOM dropped,
    universal line ends; errors are InputErrors naming the file. For large files read once
    front to back; users' puzzle files go through :func:`read_snapshot` instead."""
    name = str(path)
    if name == STDIN:
        return sys.stdin
    check_file(path)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the returned stream
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None
    kind = compression_of(raw.read(10))
    raw.seek(0)
    binary: BinaryIO = _decompressor(kind, raw) if kind else raw  # type: ignore[assignment]
    inner = io.TextIOWrapper(binary, encoding="utf-8-sig")  # type: ignore[arg-type]
    return _GuardedText(inner, name, kind)  # type: ignore[return-value]
