"""The DIMACS reader: its two engines (the C pass, the Python reader) agree, through bytes and
text lines alike, accept real files and their quirks, and reject malformed input naming the
line."""

from __future__ import annotations

import bz2
import gzip
import lzma
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from satdoku.cnf.dimacs import DimacsError, parse_dimacs, read_dimacs
from satdoku.cnf.dimacs_fast import (
    buffer_to_clauses,
    clauses_to_array,
    parse_dimacs_bytes,
    read_dimacs_arrays,
)
from satdoku.cnf.formula import Cnf

ENGINES = ("c", "python")


def test_every_satlib_file_reads_the_same_with_every_engine(public_data: Path) -> None:
    files = sorted((public_data / "satlib").glob("*/*.cnf"))
    assert len(files) >= 60
    for path in files:
        text = path.read_text()
        ref = parse_dimacs(text.splitlines(), str(path))
        assert ref.num_vars in (20, 50, 150)
        for engine in ENGINES:
            arrays = read_dimacs_arrays(path, engine=engine)
            assert arrays.num_vars == ref.num_vars
            assert arrays.num_clauses == len(ref.clauses)
            assert arrays.lits.dtype == np.int32
            assert buffer_to_clauses(arrays.lits) == ref.clauses
            assert arrays.comments == ref.comments
        assert read_dimacs(path).clauses == ref.clauses


def test_satlib_quirks_double_spaces_and_percent_trailer(public_data: Path) -> None:
    path = public_data / "satlib" / "uf20-91" / "uf20-01.cnf"
    assert "p cnf 20  91" in path.read_text() and "%" in path.read_text()
    for engine in ENGINES:
        arrays = read_dimacs_arrays(path, engine=engine)
        assert (arrays.num_vars, arrays.num_clauses) == (20, 91)
        assert arrays.lits[-1] == 0 and np.count_nonzero(arrays.lits == 0) == 91


def test_compressed_and_stdin(tmp_path: Path, public_data: Path) -> None:
    src = public_data / "satlib" / "uf50-218" / "uf50-01.cnf"
    data = src.read_bytes()
    (tmp_path / "a.cnf.gz").write_bytes(gzip.compress(data))
    (tmp_path / "a.cnf.xz").write_bytes(lzma.compress(data))
    (tmp_path / "a.cnf.bz2").write_bytes(bz2.compress(data))
    (tmp_path / "gzip_named_plain.cnf").write_bytes(gzip.compress(data))
    expected = read_dimacs_arrays(src).lits
    for name in ("a.cnf.gz", "a.cnf.xz", "a.cnf.bz2", "gzip_named_plain.cnf"):
        assert np.array_equal(read_dimacs_arrays(tmp_path / name).lits, expected)
        assert read_dimacs(tmp_path / name).clauses == buffer_to_clauses(expected)
    code = (
        "import sys; from satdoku.cnf.dimacs_fast import read_dimacs_arrays as r; "
        "a = r('-', engine='python'); print(a.num_vars, a.num_clauses, int(a.lits.sum()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=data, capture_output=True, check=True
    ).stdout.split()
    assert out == [b"50", b"218", str(int(expected.sum())).encode()]


GOOD = {
    "comment in body": (b"p cnf 3 2\n1 2 0\nc note\n  3 0\n", [[1, 2], [3]]),
    "clause over lines": (b"p cnf 3 1\n1\n-2\n3 0\n", [[1, -2, 3]]),
    "no final zero": (b"p cnf 3 2\n1 2 0\n3", [[1, 2], [3]]),
    "tabs and CRLF": (b"p cnf 3 2\r\n1\t2 0\r\n-3 0\r\n", [[1, 2], [-3]]),
    "trailer": (b"p  cnf 3  2\n1 2 0\n3 0\n%\n0\n", [[1, 2], [3]]),
    "empty formula": (b"c nothing\np cnf 0 0\n", []),
    "blank body": (b"p cnf 2 0\n \n\t\n", []),
    "byte-order mark": (b"\xef\xbb\xbfc bom\np cnf 2 1\n-2 0\n", [[-2]]),
    "comments after the trailer": (b"p cnf 2 1\n1 0\n%\nc x\n0 junk\n", [[1]]),
    # the trailer closes an open clause (found by the dimacs_files fuzz target: the compiled
    # body dropped it)
    "open clause before the trailer": (b"p cnf 9 2\n1 0\n-5 7 \n%\n7 0\n", [[1], [-5, 7]]),
}

BAD = {
    "literal out of range": (b"p cnf 3 2\n1 2 0\n1 4 0\n", 3, "literal 4 out of range"),
    "negative out of range": (b"p cnf 3 2\n1 2 0\n-9 1 0\n", 3, "literal -9 out of range"),
    "huge number": (b"p cnf 3 1\n1 99999999999999999999 0\n", 2, "out of range"),
    "garbage token": (b"p cnf 3 2\n1 2 0\n1 x 0\n", 3, "not a literal: 'x'"),
    "double minus": (b"p cnf 3 2\n1 2 0\n\n1 --2 0\n", 4, "not a literal: '--2'"),
    "minus inside": (b"p cnf 3 2\n1 2-3 0\n1 0\n", 2, "not a literal: '2-3'"),
    "lone minus": (b"p cnf 3 1\n1 - 0\n", 2, "not a literal: '-'"),
    "float": (b"p cnf 3 1\n1 2.5 0\n", 2, "not a literal: '2.5'"),
    "second header": (b"p cnf 3 2\n1 2 0\np cnf 3 2\n", 3, "second 'p' header"),
    "too few clauses": (b"p cnf 3 3\n1 2 0\n1 3 0\n", 3, "header says 3 clauses, file has 2"),
    "too many clauses": (b"p cnf 3 1\n1 2 0\n3 0\n%\n", 4, "header says 1 clauses, file has 2"),
    "no header": (b"c only comments\n", 1, "no 'p cnf' header"),
    "clause first": (b"1 2 0\np cnf 3 1\n", 1, "clause before the 'p cnf' header"),
    "bad header": (b"p cnf 3\n1 2 0\n", 1, "bad header"),
    "not cnf": (b"p dnf 3 1\n1 2 0\n", 1, "bad header"),
    "header words": (b"p cnf three 1\n1 2 0\n", 1, "bad header numbers"),
    "negative count": (b"p cnf -3 1\n1 0\n", 1, "negative count"),
    "variables over the cap": (b"p cnf 2000000000 1\n1 0\n", 1, "above the limit of 16777216"),
    "plus sign": (b"p cnf 3 1\n+1 0\n", 2, "not a literal: '+1'"),
    "underscore": (b"p cnf 30 1\n1_0 0\n", 2, "not a literal: '1_0'"),
    "earliest error wins": (b"p cnf 3 2\n1 7 0\n1 x 0\n", 2, "literal 7 out of range"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(GOOD))
def test_accepts(engine: str, case: str) -> None:
    data, clauses = GOOD[case]
    arrays = parse_dimacs_bytes(data, "x.cnf", engine=engine)
    assert buffer_to_clauses(arrays.lits) == clauses
    assert arrays.num_clauses == len(clauses)
    assert parse_dimacs(data.decode().splitlines(), "x.cnf", engine=engine).clauses == clauses


@pytest.mark.parametrize("engine", [*ENGINES, "lines"])  # lines: parse_dimacs, text lines
@pytest.mark.parametrize("case", sorted(BAD))
def test_rejects_naming_the_line(engine: str, case: str) -> None:
    data, line, reason = BAD[case]
    with pytest.raises(DimacsError) as err:
        if engine == "lines":
            parse_dimacs(data.decode().splitlines(), "x.cnf")
        else:
            parse_dimacs_bytes(data, "x.cnf", engine=engine)
    assert err.value.source == "x.cnf"
    assert err.value.line == line, str(err.value)
    assert reason in err.value.reason
    assert str(err.value).startswith(f"x.cnf:{line}: ")


def test_clause_tolerance_allows_a_declared_slack() -> None:
    data = b"p cnf 3 3\n1 2 0\n1 3 0\n"
    for engine in ENGINES:
        assert parse_dimacs_bytes(data, engine=engine, clause_tolerance=1).num_clauses == 2


def test_read_dimacs_reports_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.cnf"
    path.write_text("p cnf 2 1\n1 3 0\n")
    with pytest.raises(DimacsError, match=r"bad\.cnf:2: literal 3 out of range"):
        read_dimacs(path)
    with pytest.raises(DimacsError, match=r"bad\.cnf:2: literal 3"):
        read_dimacs_arrays(path)


def test_clauses_to_array_round_trip() -> None:
    clauses = [[1, -2], [3], [-1, 2, -3, 4], []]
    flat = clauses_to_array(clauses)
    assert flat.tolist() == [1, -2, 0, 3, 0, -1, 2, -3, 4, 0, 0]
    assert buffer_to_clauses(flat) == clauses
    assert Cnf(4, clauses).num_clauses == 4
