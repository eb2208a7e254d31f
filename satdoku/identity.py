"""Instance identity: ``instance_hash``, a name for an instance that survives renames, machines
and re-runs, so results join across runs (``satdoku compare``) and other tools.

- A DIMACS formula: GBD's CNF hash (the Global Benchmark Database, `gbd hash`): the MD5 of its
  clause tokens, comments and the ``p`` line skipped, each run of whitespace written as one
  space, no leading or trailing space, and a final ``0`` added when the last clause lacks its
  terminator. Compression is transparent (the hash is of the decompressed content). So
  ``c x\\np cnf 2 2\\n1  -2 0\\n\\t-1 0\\n`` hashes the bytes ``1 -2 0 -1 0``. Source: GBD's
  ``gbd_init/gbdhash.py`` (its pure-Python ``cnf_hash``) and gbdc's ``src/identify/GBDHash.h``
  (``CNF::gbdhash``, what ``gbd hash`` runs when gbdc is installed); both agree on every file
  our DIMACS reader accepts. One case differs between them and we follow neither: a SATLIB
  ``%`` trailer (``%\\n0\\n``) ends the formula here, as it does for our reader and for
  SATLIB. gbdc rejects such a file ("unexpected character: %"), GBD's Python fallback hashes
  the ``0`` after the ``%`` as one more (empty) clause. Our hash of such a file is
  therefore `gbd hash` of the same file with its trailer removed.
- A puzzle: the MD5 of its canonical text (:func:`puzzle_text`): kind, grid shape, domain,
  Sudoku box order, the givens (0 = empty), then its instance-specific all-different groups
  and ``<`` relations, each sorted, so input notation, empty-cell symbol, line, name and the
  order relations were listed in do not change it.

Both are 32 lowercase hex digits. An INVALID instance has none (empty).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from satdoku.puzzle import Puzzle
from satdoku.sources import read_snapshot

HASH_LENGTH = 32
_HASH = re.compile(r"[0-9a-f]{32}")
#: from any character that is neither part of a literal nor whitespace to the end of its line:
#: a comment or ``p`` line, or text after a clause (GBD skips all of it)
_NON_CLAUSE_TEXT = re.compile(rb"[^-0-9 \t\n\v\f][^\n]*")
_TRAILER = re.compile(rb"(?m)^[ \t\v\f]*%")


def is_instance_hash(text: str) -> bool:
    """Whether ``text`` has the form of an instance hash (32 lowercase hex digits)."""
    return _HASH.fullmatch(text) is not None


def cnf_hash_bytes(data: bytes) -> str:
    """GBD's hash of decompressed DIMACS content (see the module doc)."""
    tokens, _ = _clause_tokens(data)
    if tokens and not (tokens == b"0" or tokens.endswith(b" 0")):
        tokens += b" 0"
    return hashlib.md5(tokens, usedforsecurity=False).hexdigest()


def _clause_tokens(data: bytes) -> tuple[bytes, bool]:
    """(the clause tokens GBD hashes in ``data``, one space between them, without the final
    ``0`` it may add; whether a ``%`` trailer ends it)."""
    data = data.replace(b"\r", b"\n")  # GBD ends a skipped line at CR as at LF
    trailer = _TRAILER.search(data)
    if trailer is not None:
        data = data[: trailer.start()]
    return b" ".join(_NON_CLAUSE_TEXT.sub(b"", data).split()), trailer is not None


def hashes_nothing_of(data: bytes) -> bool:
    """Whether GBD's hash takes nothing from ``data``, the start of some content: no clause
    token and no trailer (so the rest of the content hashes as if it came alone, given that
    ``data`` ends at a line's end). The streaming reader asks it of a file's header part."""
    tokens, ended = _clause_tokens(data)
    return not tokens and not ended


def cnf_hash(path: str | Path) -> str:
    """GBD's hash of a DIMACS file (plain, gzip, xz or bzip2: recognised by magic bytes)."""
    return cnf_hash_bytes(read_snapshot(path).data)


def puzzle_text(p: Puzzle) -> str:
    """The canonical text of a puzzle whose MD5 is its instance hash: one ``key values`` line
    per field, integers separated by single spaces, groups and relations sorted."""
    groups = sorted(tuple(sorted(g)) for g in p.extra_groups)
    less = sorted(tuple(x) for x in p.less_than)
    lines = [
        _layout_lines(p.kind, p.layout.shape, p.domain, p.layout.box),
        "givens " + _values_text(p.givens),
        "groups " + ";".join(" ".join(map(str, g)) for g in groups),
        "less_than " + ";".join(f"{a} {b}" for a, b in less),
    ]
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=256)
def _layout_lines(kind: str, shape: tuple[int, ...], domain: int, box: int | None) -> str:
    """The lines of :func:`puzzle_text` before the givens (the same for a whole layout)."""
    return "\n".join(["satdoku-puzzle 1", f"kind {kind}", "shape " + " ".join(map(str, shape)),
                      f"domain {domain}", f"box {box if box is not None else '-'}"])


#: bytes.translate table: a value 0..9 (a byte) -> its digit
_DIGITS = bytes(range(48, 58)).ljust(256, b"\0")


def _values_text(values: tuple[int, ...]) -> str:
    """``" ".join(map(str, values))``; one C pass for boards of values 0..9."""
    try:
        digits = bytes(values).translate(_DIGITS)
    except (ValueError, TypeError):
        digits = b"\0"
    if b"\0" in digits:
        return " ".join(map(str, values))
    return " ".join(digits.decode("ascii"))


def puzzle_hash(p: Puzzle) -> str:
    """The instance hash of a puzzle: MD5 of :func:`puzzle_text`."""
    return hashlib.md5(puzzle_text(p).encode("ascii"), usedforsecurity=False).hexdigest()


class LayoutHash:
    """:func:`puzzle_hash` of the puzzles of one layout (no extra groups or relations) from
    their givens alone, without building them: the text of :func:`puzzle_text` around the
    givens is taken once from ``template`` (normalize's fast path for plain files)."""

    def __init__(self, template: Puzzle) -> None:
        text = puzzle_text(template)
        marker = "\ngivens " + _values_text(template.givens) + "\n"
        before, found, after = text.partition(marker)
        if not found or template.extra_groups or template.less_than:
            raise ValueError("a layout hash needs a puzzle without groups or relations")
        self._before = (before + "\ngivens ").encode("ascii")
        self._after = ("\n" + after).encode("ascii")

    def __call__(self, values_text: str) -> str:
        """The hash of the layout's puzzle whose givens are ``values_text`` (the values,
        0 = empty, separated by single spaces: :func:`puzzle_text`'s givens line)."""
        return hashlib.md5(self._before + values_text.encode("ascii") + self._after,
                           usedforsecurity=False).hexdigest()


def record_hash(rec: object) -> str:
    """The instance hash of a record (:class:`satdoku.formats.Record`): the one it carries (a
    CNF file's, hashed when it was read; any read back from an Instances file), else its
    puzzle's, computed once and kept on the record; empty for an INVALID record."""
    known: str = getattr(rec, "instance_hash", "")
    if known:
        return known
    puzzle = getattr(rec, "puzzle", None)
    if puzzle is None or getattr(rec, "error", None) is not None:
        return ""
    value = puzzle_hash(puzzle)
    rec.instance_hash = value  # type: ignore[attr-defined]
    return value
