"""instance_hash: GBD's CNF hash (hand-computed values; GBD's own algorithm as the reference) and
the canonical puzzle hash."""

from __future__ import annotations

import gzip
import hashlib
import lzma
from pathlib import Path

from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.formats import read_records
from satdoku.identity import cnf_hash, cnf_hash_bytes, is_instance_hash, puzzle_hash
from satdoku.puzzle import futoshiki, sudoku

CNFSET = ROOT / "tests" / "data" / "inputs" / "cnfset"


def md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def gbd_reference(data: bytes) -> str:
    """GBD's pure-Python ``cnf_hash`` (gbd_init/gbdhash.py), transcribed byte for byte: the
    readable form our fast one must equal on every file without a SATLIB trailer."""
    h = hashlib.md5()
    space = skip = False
    start = cldelim = True
    for b in data:
        if not skip and (48 <= b <= 57 or b == 45):  # a digit or '-'
            cldelim = b == 48 and (space or start)
            start = False
            if space:
                space = False
                h.update(b" ")
            h.update(bytes([b]))
        elif b <= 32:
            space = not start
            skip = skip and b not in (10, 13)
        else:
            skip = True
    if not cldelim:
        h.update(b" 0")
    return h.hexdigest()


def test_hand_computed_values(tmp_path: Path) -> None:
    # comments, header, tabs, CR LF, a clause over two lines, leading blanks
    odd = tmp_path / "odd.cnf"
    odd.write_bytes(b"c a comment 1 2 0\r\np cnf 3 3\r\n  1\t-2 \r\n 0\nc mid 5 0\n"
                    b"3 -1 0\n\n-3 0\n")
    assert cnf_hash(odd) == md5("1 -2 0 3 -1 0 -3 0")
    # a last clause without its 0: GBD adds it
    (tmp_path / "open.cnf").write_bytes(b"p cnf 2 2\n1 -2 0\n2")
    assert cnf_hash(tmp_path / "open.cnf") == md5("1 -2 0 2 0")
    # compression is transparent (and found by magic bytes, not the name)
    (tmp_path / "odd.cnf.gz").write_bytes(gzip.compress(odd.read_bytes()))
    (tmp_path / "odd_named_plain.cnf").write_bytes(lzma.compress(odd.read_bytes()))
    assert cnf_hash(tmp_path / "odd.cnf.gz") == cnf_hash(tmp_path / "odd_named_plain.cnf") \
        == cnf_hash(odd)
    # the tokens, not the integers: a changed literal changes the hash
    assert cnf_hash_bytes(b"1 -2 0\n") != cnf_hash_bytes(b"1 2 0\n")
    assert cnf_hash_bytes(b"") == md5("")


def test_satlib_files() -> None:
    """SATLIB files (uf20-01 plain, uf20-02 gzip, uuf50-01 xz, one gzip named .cnf), each with
    its ``%`` trailer, which ends the formula. The values are `gbd hash` (gbdc 0.4.3) of each
    file with its trailer cut, and what the definition gives by hand (the shell pipeline
    ``grep -v '^[cp]' | sed '/^%/,$d' | tr -s ' \\t\\n' '\\n' | paste -sd' ' | md5sum``)."""
    expect = {
        "a_uf20-01.cnf": "a3bb204106ff82752cf7941f7b2265fc",
        "b_uf20-02.cnf.gz": "a057591b525378a78b0bb7b8464c6109",
        "c_uuf50-01.cnf.xz": "b07f979d1db856ccc361c0e28ab3e61c",
        "d_gzip_named_plain.cnf": "3dd32516507bd550f59d0156353ceaf2",
    }
    for name, value in expect.items():
        assert cnf_hash(CNFSET / name) == value, name
    # by the definition: the clause tokens before the trailer, joined by single spaces
    text = (CNFSET / "a_uf20-01.cnf").read_text()
    body = text[: text.index("\n%")]
    tokens = [t for line in body.splitlines() if line.strip()[:1] not in ("c", "p")
              for t in line.split()]
    assert cnf_hash(CNFSET / "a_uf20-01.cnf") == md5(" ".join(tokens))
    # GBD's Python fallback would hash the 0 after '%' as one more (empty) clause: we do not
    raw = (CNFSET / "a_uf20-01.cnf").read_bytes()
    assert gbd_reference(raw) == md5(" ".join([*tokens, "0"]))
    assert gbd_reference(raw[: raw.index(b"\n%") + 1]) == expect["a_uf20-01.cnf"]


_LIT = st.integers(-30, 30).filter(bool).map(str)
_WS = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", " \n "])
_LINE = st.one_of(st.text("abc 1-", max_size=8).map(lambda t: "c" + t), st.just("p cnf 30 9"))


@st.composite
def dimacs_texts(draw: st.DrawFn) -> bytes:
    """DIMACS text with comments and headers anywhere between clauses, and odd whitespace."""
    out = [draw(st.sampled_from(["", " ", "\n"]))]
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            out.append(draw(_LINE) + "\n")
        for lit in draw(st.lists(_LIT, max_size=4)):
            out.append(lit + draw(_WS))
        out.append("0" + draw(_WS))
    if draw(st.booleans()):
        out.append(draw(_LIT))  # a last clause without its 0
    return "".join(out).encode()


@settings(max_examples=300, deadline=None)
@given(dimacs_texts())
def test_fast_hash_equals_gbd_reference(data: bytes) -> None:
    assert cnf_hash_bytes(data) == gbd_reference(data)


def test_cnf_set_records_carry_the_hash() -> None:
    recs = list(read_records(CNFSET))
    hashes = {r.name: r.instance_hash for r in recs}
    assert hashes["a_uf20-01.cnf"] == "a3bb204106ff82752cf7941f7b2265fc"
    assert hashes["e_malformed.cnf"] == ""  # INVALID: no hash


def test_puzzle_hash_is_canonical() -> None:
    g = [0] * 16
    g[0], g[5] = 1, 2
    a = sudoku(g)
    assert is_instance_hash(puzzle_hash(a))
    assert puzzle_hash(a) == puzzle_hash(sudoku(list(g)))
    g2 = list(g)
    g2[5] = 3
    assert puzzle_hash(sudoku(g2)) != puzzle_hash(a)
    # a Latin square with the same givens is another instance
    from satdoku.puzzle import latin

    assert puzzle_hash(latin(g)) != puzzle_hash(a)
    # relations: listed order does not matter, their content does
    f1 = futoshiki([0] * 16, 4, [(0, 1), (5, 9)])
    f2 = futoshiki([0] * 16, 4, [(5, 9), (0, 1)])
    f3 = futoshiki([0] * 16, 4, [(1, 0), (5, 9)])
    assert puzzle_hash(f1) == puzzle_hash(f2) != puzzle_hash(f3)


def test_puzzle_hash_ignores_notation(tmp_path: Path) -> None:
    """The same puzzle written with '.' or '0' for empty cells, with a name, on another line."""
    board = "1...2...........".replace(".", "0")
    (tmp_path / "a.txt").write_text(board.replace("0", ".") + "\n")
    (tmp_path / "b.txt").write_text("\n" + board + " some name\n")
    ra = next(iter(read_records(tmp_path / "a.txt")))
    rb = next(iter(read_records(tmp_path / "b.txt")))
    from satdoku.identity import record_hash

    assert record_hash(ra) == record_hash(rb) == puzzle_hash(ra.puzzle)
