"""Hypothesis fuzzing of every reader and of the DIMACS parser: any bytes give records (each
valid or INVALID with a reason) or the documented error, never another exception; shards agree
with the whole file; every format's board text and writer round-trip."""

from __future__ import annotations

import gzip
import itertools
import os
import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from satdoku.cnf.dimacs import parse_dimacs
from satdoku.cnf.dimacs_fast import DimacsError, parse_dimacs_bytes
from satdoku.formats import FORMATS, format_board, parse_board, read_records
from satdoku.puzzle import futoshiki, latin, sudoku, sudoku3d
from satdoku.size_limits import SizeLimits
from satdoku.sources import InputError, count_lines, read_snapshot, snapshot_from_bytes

#: examples per fuzz test; SATDOKU_FUZZ_EXAMPLES=5000 fuzzes deeper (minutes)
EXAMPLES = int(os.environ.get("SATDOKU_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALL_FORMATS = sorted(FORMATS)
#: small limits, so that random sizes hit the guard instead of building huge layouts
SMALL = SizeLimits(max_input_bytes=1 << 20, max_cells=2_000, max_domain=64, max_values=20_000,
               max_cnf_vars=1_000)

# text made of what the readers look for: digits, symbols, signs, brackets, separators
_PUZZLE_CHARS = "0123456789.-ABCDGZavx^<>[]{},:\" \t\n\n\n\r#pc%\ufeff\u00e9\xff"


def _puzzleish() -> st.SearchStrategy[bytes]:
    text = st.text(alphabet=_PUZZLE_CHARS, max_size=400)
    return st.one_of(
        st.binary(max_size=400),
        text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        text.map(lambda t: t.encode("latin-1", "replace")),
    )


def _check_records(recs: list) -> None:
    for r in recs:
        assert r.line >= 1 and r.index >= 1
        assert r.valid != bool(r.error), r  # exactly one of: an instance, a reason
        if r.puzzle is not None:
            assert len(r.puzzle.givens) == r.puzzle.ncells
            assert all(0 <= v <= r.puzzle.domain for v in r.puzzle.givens)
            assert all(0 <= a < r.puzzle.ncells and 0 <= b < r.puzzle.ncells
                       for a, b in r.puzzle.less_than)
    assert [r.index for r in recs] == list(range(1, len(recs) + 1))


def _read(data: bytes, fmt: str, name: str = "fuzz.txt", **kw) -> list:
    snap = snapshot_from_bytes(data, name, SMALL.max_input_bytes)
    return list(read_records(name, fmt, snapshot=snap, limits=SMALL, **kw))


@FUZZ
@given(data=_puzzleish())
@pytest.mark.parametrize("fmt", ["auto", *ALL_FORMATS])
def test_any_bytes_give_records(fmt: str, data: bytes) -> None:
    try:
        recs = _read(data, fmt)
    except InputError:  # only a corrupt archive (random bytes that start like gzip/xz/bz2)
        assert data[:2] == b"\x1f\x8b" or data[:3] in (b"\xfd7z", b"BZh")
        return
    _check_records(recs)


@FUZZ
@given(data=_puzzleish(), cut=st.integers(1, 12))
@pytest.mark.parametrize("fmt", ["auto", *ALL_FORMATS])
def test_shards_agree_with_the_whole_file(fmt: str, data: bytes, cut: int) -> None:
    try:
        whole = _read(data, fmt)
    except InputError:
        return
    snap = snapshot_from_bytes(data, "fuzz.txt")
    lines = max(1, snap.num_lines)  # as num_shards: a set has at least one shard
    bounds = [*range(1, lines + 1, cut), lines + 1]
    parts = [r for a, b in itertools.pairwise(bounds)
             for r in _read(data, fmt, start_line=a, stop_line=b)]
    key = [(r.index, r.line, r.notation, r.error, r.puzzle) for r in whole]
    assert [(r.index, r.line, r.notation, r.error, r.puzzle) for r in parts] == key


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_puzzleish(), packed=st.booleans())
def test_streamed_line_count_is_the_snapshots(tmp_path, data: bytes, packed: bool) -> None:
    assume(not data.startswith((b"\x1f\x8b", b"\xfd7z", b"BZh")))
    path = tmp_path / "f.txt"
    path.write_bytes(gzip.compress(data) if packed else data)
    assert count_lines(path) == read_snapshot(path).num_lines


def test_a_file_that_cannot_be_opened_is_one_line(tmp_path, monkeypatch) -> None:
    """count_lines and head_lines open files the same way: an open that fails (a file made
    unreadable after the check) is an InputError naming the file, not a crash."""
    from satdoku import sources

    path = tmp_path / "f.txt"
    path.write_bytes(b"1 2 0\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(sources, "open", refuse, raising=False)
    for read in (sources.count_lines, sources.head_lines):
        with pytest.raises(InputError, match=r"f\.txt: Permission denied"):
            read(path)


@FUZZ
@given(data=_puzzleish())
def test_compressed_bytes_read_like_plain_ones(data: bytes) -> None:
    assume(not data.startswith((b"\x1f\x8b", b"\xfd7z", b"BZh")))
    plain = [(r.line, r.error, r.puzzle) for r in _read(data, "auto")]
    packed = [(r.line, r.error, r.puzzle) for r in _read(gzip.compress(data), "auto")]
    assert packed == plain


# --- DIMACS -------------------------------------------------------------------------------------
_DIMACS_CHARS = "0123456789 -\n\n\t\rcp%x"


def _dimacsish() -> st.SearchStrategy[bytes]:
    header = st.builds(lambda v, c: f"p cnf {v} {c}\n", st.integers(0, 12), st.integers(0, 12))
    body = st.text(alphabet=_DIMACS_CHARS, max_size=200)
    return st.one_of(
        st.binary(max_size=300),
        st.builds(lambda h, b: (h + b).encode(), header, body),
        st.builds(lambda c, h, b: (c + h + b).encode(), st.sampled_from(["", "c x\n", "c\n\n"]),
                  header, st.lists(st.integers(-13, 13), max_size=40).map(
                      lambda ls: " ".join(map(str, ls)))),
    )


def _outcome(data: bytes, engine: str) -> object:
    try:
        a = parse_dimacs_bytes(data, "f.cnf", engine=engine, limits=SMALL)
    except DimacsError as exc:
        assert str(exc).startswith("f.cnf:")
        return ("error", str(exc))
    assert a.lits.dtype == np.int32 and (a.lits.size == 0 or a.lits[-1] == 0)
    assert np.count_nonzero(a.lits == 0) == a.num_clauses
    assert np.abs(a.lits).max(initial=0) <= a.num_vars
    return (a.num_vars, a.num_clauses, a.lits.tolist(), a.comments)


@settings(max_examples=5 * EXAMPLES, deadline=None)
@given(data=_dimacsish())
def test_dimacs_engines_agree_on_any_bytes(data: bytes) -> None:
    assert _outcome(data, "python") == _outcome(data, "c")


@settings(max_examples=5 * EXAMPLES, deadline=None)
@given(data=_dimacsish())
def test_text_lines_read_like_the_bytes(data: bytes) -> None:
    """parse_dimacs (text lines, as bundles hold them) gives what the byte reader gives."""
    assume(data.isascii() and b"\r" not in data)
    fast = _outcome(data, "python")
    try:
        cnf = parse_dimacs(data.decode().split("\n"), "f.cnf", limits=SMALL)
    except DimacsError as exc:
        assert fast == ("error", str(exc))
        return
    flat = [x for c in cnf.clauses for x in [*c, 0]]
    assert (cnf.num_vars, len(cnf.clauses), flat, cnf.comments) == fast


# --- board text and writers -------------------------------------------------------------------
def _board(rng: random.Random, side: int, ncells: int, full: bool) -> tuple[int, ...]:
    return tuple(rng.randint(1 if full else 0, side) for _ in range(ncells))


SIDES = {"line": (4, 9, 16, 25, 36), "ndigits": (4, 9, 16, 25), "csv": (4, 9, 16, 25, 36),
         "grid": (4, 9, 16, 25, 36), "futoshiki": (2, 5, 12), "futoshiki_grid": (2, 5, 12),
         "latin": (1, 7, 40), "latin_grid": (1, 7, 40), "json": (4, 9, 40),
         "dimacs": (3, 20)}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), full=st.booleans())
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_format_board_round_trips(fmt: str, seed: int, full: bool) -> None:
    assert set(SIDES) == set(FORMATS)  # a new format needs its sizes here
    rng = random.Random(seed)
    for side in SIDES[fmt]:
        if fmt == "dimacs":
            board = tuple(rng.choice((-1, 1)) * v for v in range(1, side + 1))
        else:
            board = _board(rng, side, side * side, full)
        text = format_board(board, fmt, side, rng.choice(".0-"))
        assert "\n" not in text
        assert parse_board(text, fmt, side) == board, (fmt, side, text)


def _puzzles(fmt: str, rng: random.Random) -> list:
    if fmt in ("line", "ndigits", "csv", "grid"):
        return [sudoku(_board(rng, b * b, b**4, False), b) for b in (2, 3, 4)]
    if fmt in ("latin", "latin_grid"):
        return [latin(_board(rng, n, n * n, False), n) for n in (1, 3, 6)]
    if fmt in ("futoshiki", "futoshiki_grid"):
        out = []
        for n in (2, 4, 5):
            pairs = {(c, c + 1) if rng.random() < 0.5 else (c + 1, c)
                     for c in range(n * n - 1) if (c + 1) % n and rng.random() < 0.4}
            pairs |= {(c, c + n) for c in range(n * n - n) if rng.random() < 0.2}
            out.append(futoshiki(_board(rng, n, n * n, False), n, sorted(pairs)))
        return out
    return [sudoku(_board(rng, 4, 16, False), 2), latin(_board(rng, 3, 9, False), 3),
            sudoku3d(2, _board(rng, 4, 64, False), path_boxes=[((0, 0, 0), (0, 1, 1), "asc")])]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
@pytest.mark.parametrize("fmt", sorted(n for n, f in FORMATS.items() if f.write is not None))
def test_writers_round_trip(fmt: str, seed: int) -> None:
    puzzles = _puzzles(fmt, random.Random(seed))
    text = FORMATS[fmt].write(puzzles)  # type: ignore[misc]
    back = _read(text.encode(), fmt, "w.txt")
    assert [r.error for r in back] == [None] * len(puzzles)
    assert [_key(r.puzzle) for r in back] == [_key(p) for p in puzzles]
    auto = _read(text.encode(), "auto", "w.txt")
    assert [_key(r.puzzle) for r in auto] == [_key(p) for p in puzzles]  # detected again


def _key(p) -> tuple:  # type: ignore[no-untyped-def]
    """A puzzle up to the order of its relations (text grids list them row by row)."""
    return (p.kind, p.layout, p.givens, sorted(p.less_than), p.extra_groups)


# --- stray bytes never cost a puzzle --------------------------------------------------------
#: blobs the issue found (a UTF-16 BOM starting a line, a Latin-1 letter, a CP1252 title, NUL,
#: a UTF-8 BOM, a lone CR, a DIMACS header) besides hypothesis' own bytes
_STRAY = [b"\xff\xfe", b"\xfe\xff", b"\xff\xfeabc", b"caf\xe9", b"\x93Title\x94 \x96 1",
          b"\x00", b"\xef\xbb\xbf", b"\r", b"p cnf 3 1", b"\x80\x81", b"\xed\xa0\x80"]


def _clean_file(fmt: str) -> bytes:
    rng = random.Random(7)
    return FORMATS[fmt].write(_puzzles(fmt, rng)).encode()  # type: ignore[misc]


def _name(fmt: str) -> str:
    """The fuzzed file's name: futoshiki_usp files are .dat (detected by name), others .txt."""
    return "w.dat" if fmt == "futoshiki" else "w.txt"


def _record_starts(data: bytes, fmt: str) -> list[int]:
    """Byte offsets where a record's first line starts, and the end of the file."""
    offsets = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    lines = {r.line for r in _read(data, fmt, _name(fmt))}
    return [offsets[n - 1] for n in sorted(lines)] + [len(data)]


_SIGNS = re.compile(rb"[\s^v]*[v^][\s^v]*")


def _undecodable(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _is_subsequence(small: list, big: list) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


@FUZZ
@given(blob=st.one_of(st.binary(max_size=40), st.sampled_from(_STRAY)), where=st.integers(0),
       again=st.booleans())
@pytest.mark.parametrize("fmt", sorted(n for n, f in FORMATS.items() if f.write is not None))
def test_stray_bytes_anywhere_lose_no_puzzle(fmt: str, blob: bytes, where: int,
                                             again: bool) -> None:
    """Any bytes, as lines of their own at any record boundary of a file of valid puzzles
    (twice with ``again``), lose none of its puzzles: read with its format, auto-detected,
    and planned by the workflow (which must not take it for DIMACS nor refuse it)."""
    import tempfile
    from pathlib import Path

    from satdoku.formats.cnfset import looks_like_dimacs
    from satdoku.set_plans import is_cnf_set, plan

    clean = _clean_file(fmt)
    name = _name(fmt)
    want = [_key(r.puzzle) for r in _read(clean, fmt, name)]
    starts = _record_starts(clean, fmt)
    cuts = {starts[where % len(starts)]}
    if again:
        cuts.add(starts[(where // 7) % len(starts)])
    data = clean
    for cut in sorted(cuts, reverse=True):
        data = data[:cut] + blob + b"\n" + data[cut:]
    assume(not data.startswith((b"\x1f\x8b", b"\xfd7z", b"BZh")))  # an archive by its magic
    # documented exceptions (docs/bad-input.md, "Not covered"): a line of only v/^ signs makes
    # integer grids read as Futoshiki text grids
    assume(not any(_SIGNS.fullmatch(ln) for ln in re.split(rb"\r\n|\r|\n", blob)))
    # a first line 'p cnf V C' followed by integers within +-V is a DIMACS file (documented)
    assume(not looks_like_dimacs(Path(name), snapshot_from_bytes(data).text_head(20)))
    for how in (fmt, "auto"):
        recs = _read(data, how, name)
        _check_records(recs)
        got = [_key(r.puzzle) for r in recs if r.puzzle is not None]
        assert _is_subsequence(want, got), (how, [r.error for r in recs])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        assert not is_cnf_set(path) and plan(path).units >= len(want)
