"""The fault suite of issue 10 (sections 1-3, and the format/reader parts of 9): every bad input
a user can feed the readers, each one a clear one-line error or INVALID records, with every
valid puzzle beside it still read. ``FAULT_COUNT`` is the number of bad inputs covered."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from satdoku.cnf.dimacs import DimacsError, read_dimacs
from satdoku.cnf.dimacs_fast import read_dimacs_arrays
from satdoku.formats import FormatError, read_records
from satdoku.size_limits import SizeLimits
from satdoku.sources import InputError, read_snapshot

INPUTS = Path(__file__).parent / "data" / "inputs"
P1 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
P2 = "52...6.........7.13...........4..8..6......5...........418.........3..2...87....."
P3 = "6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1...."
S1 = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
GRID4 = "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n"


def _json(*objs: str) -> bytes:
    return ("\n".join(objs) + "\n").encode()


# name -> (file name, content, expected records: True = a puzzle, str = INVALID containing it)
PUZZLE_FAULTS: dict[str, tuple[str, bytes, list[bool | str]]] = {
    # section 1: detection must not lose puzzles
    "title line before line puzzles": (
        "t.txt", f"My puzzles\n{P1}\n{P2}\n{P3}\n".encode(),
        ["not a puzzle line: 'My puzzles'", True, True, True]),
    "title line before ndigits lines": (
        "t.txt", b"Small ones\n2 0240100340020130\n2 1000000000000001\n",
        ["expected '<n> <n^4 digits>', got 'Small ones'", True, True]),
    "comma in the first puzzle's name": (
        "c.txt", f"{P1}\tpuzzle 1, hard\n{P2}\tpuzzle 2\n".encode(), [True, True]),
    "name after a no-break space": ("n.txt", f"{P1}\u00a0first\n{P2}\u2003second\n".encode(),
                                    [True, True]),
    "comma-separated name, no header": (
        "c.txt", f"{P1},puzzle 1\n{P2},puzzle 2\n".encode(), [True, True]),
    "UTF-8 BOM": ("b.txt", f"\ufeff{P1}\n{P2}\n".encode(), [True, True]),
    "BOM and CRLF": ("b.txt", f"\ufeff{P1}\r\n{P2}\r\n{P3}\r\n".encode(), [True, True, True]),
    "CR-only line ends": ("b.txt", f"{P1}\r{P2}\r".encode(), [True, True]),
    "UTF-16 with BOM": ("b.txt", f"{P1}\r\n{P2}\r\n".encode("utf-16"), [True, True]),
    "BOM before a grid": ("g.txt", ("\ufeff" + GRID4).encode(), [True]),
    "two BOM files joined by cat (a BOM starts line 2)": (
        "b.txt", f"\ufeff{P1}\n\ufeff{P2}\n{P3}\n".encode(), [True, True, True]),
    "a BOM starting a line of a file with a non-UTF-8 line": (
        "b.txt", f"{P1}\n".encode() + b"caf\xe9\n" + f"\ufeff{P2}\n".encode(),
        [True, "line 2 is not UTF-8 text (byte 0xe9 at byte offset 85)", True]),
    "a line puzzle in an ndigits file": (
        "n.txt", f"2 0240100340020130\n{P1}\n2 1000000000000001\n".encode(), [True] * 3),
    "a line puzzle among grids": (
        "g.txt", f"{P1}\nGrid 01\n{GRID4}Grid 02\n{GRID4}".encode(), [True, True, True]),
    "a JSON puzzle among line puzzles": (
        "j.txt", f'{P1}\n{{"kind": "latin", "size": 2, "givens": [1, 0, 0, 1]}}\n{P2}\n'.encode(),
        [True, True, True]),
    "futoshiki .dat without its count line": (
        "f.dat", b"2 1\n1 0\n0 0\n1 1 1 2\n", [True]),
    "futoshiki .dat with a broken 'd r' line": (
        "f.dat", b"3\n2 1\n1 0\n0 0\n1 1 1 2\nx y\n1 2 3\n2 0\n0 0\n0 0\n",
        ["file announces 3 puzzles but holds 2", True, "expected 'd r'", True]),
    # section 2: bytes
    "a Latin-1 line among UTF-8 ones": (
        "l.txt", P1.encode() + b"\tcaf\xe9\n" + P2.encode() + b"\n",
        ["line 1 is not UTF-8 text (byte 0xe9 at byte offset 85)", True]),
    "binary junk line": (
        "j.txt", P1.encode() + b"\n\x00\x9f\x92\x96\xff\xfe\n" + P2.encode() + b"\n",
        [True, "line 2 is not UTF-8 text (byte 0x9f at byte offset 83)", True]),
    "a non-UTF-8 line inside a grid": (
        "g.txt", b"1 2 3 4\n3 4 \xff 2\n2 1 4 3\n4 3 2 1\n\n" + GRID4.encode(),
        # blank lines do not end a grid: rows 3-6 make one (its validity is the solver's job)
        ["grid ends after 1 of 4 rows before line 2",
         "line 2 is not UTF-8 text (byte 0xff at byte offset 12)",
         True, "grid ends after 2 of 4"]),
    "a non-UTF-8 byte inside a JSON string": (
        "j.jsonl", b'{"kind": "latin", "size": 1, "givens": [0], "name": "caf\xe9"}\n'
                   b'{"kind": "latin", "size": 1, "givens": [1]}\n',
        ["line 1 is not UTF-8", True]),
    # issue 18 section 2/6: bytes never refuse the file
    "a line starting with a UTF-16 BOM between puzzles": (
        "u.txt", P1.encode() + b"\n\xff\xfeabc\n" + P2.encode() + b"\n",
        [True, "line 2 is not UTF-8 text (byte 0xff at byte offset 82)", True]),
    "a file starting with a stray UTF-16 BOM line": (
        "u.txt", b"\xff\xfeabc\n" + P1.encode() + b"\n" + P2.encode() + b"\n",
        ["line 1 is not UTF-8 text (byte 0xff at byte offset 0)", True, True]),
    "UTF-16 BE with BOM": ("b.txt", b"\xfe\xff" + f"{P1}\n{P2}\n".encode("utf-16-be"),
                           [True, True]),
    "UTF-16 LE with BOM, CRLF and a title": (
        "b.txt", f"Title, with a comma\r\n{P1}\r\n{P2}\r\n".encode("utf-16"),
        ["not a Sudoku size", True, True]),
    "a CP1252 title line": (
        "w.txt",
        "\u201cPuzzles\u201d \u2013 caf\u00e9\n".encode("cp1252") + f"{P1}\n{P2}\n".encode(),
        ["line 1 is not UTF-8 text (byte 0x93 at byte offset 0)", True, True]),
    "a CP1252 title before grids": (
        "g.txt", b"Grilles \x96 \xe9t\xe9\n" + GRID4.encode() + b"\n" + GRID4.encode(),
        ["line 1 is not UTF-8", True, True]),
    "a non-UTF-8 line between two grids": (
        "g.txt", GRID4.encode() + b"\x80\x81\n" + GRID4.encode(),
        [True, "line 5 is not UTF-8", True]),
    "a 'p cnf' line among puzzles (not DIMACS)": (
        "p.txt", f"{P1}\np cnf 3 1\n{P2}\n".encode(), [True, "not a Sudoku size", True]),
    "a 'p cnf' line before puzzles (not DIMACS)": (
        "p.txt", f"p cnf 3 1\n{P1}\n{P2}\n".encode(), ["not a Sudoku size", True, True]),
    "NUL bytes on a line of their own": (
        "z.txt", f"{P1}\n".encode() + b"\x00\x00\x00\n" + f"{P2}\n".encode(),
        [True, "not a puzzle line: '\\x00\\x00\\x00'", True]),
    "BOM, CRLF and a CR-only mix": (
        "m.txt", f"\ufeff{P1}\r\n{P2}\r\n{P3}\n".encode(), [True, True, True]),
    "CSV: an empty solution cell (no solution given)": (
        "c.csv", f"puzzle,solution\n{P1},\n{P2},,\n".encode(), [True, True]),
    "CSV: extra columns after the solution": (
        "c.csv", f"quizzes,solutions,difficulty\n{P1},{S1},3,x\n{P2},,hard\n".encode(),
        [True, True]),
    "CSV without header: an empty second field": ("c.csv", f"{P1},\n{P2},,\n".encode(),
                                                  [True, True]),
    "CSV without header: solution then extra fields": (
        "c.csv", f"{P1},{S1},extra,more\n".encode(), [True]),
    "CSV: a row without the solution column": ("c.csv", f"puzzle,solution\n{P1}\n".encode(),
                                               [True]),
    "CSV: a solution cell that is not a board": (
        "c.csv", f"puzzle,solution\n{P1},12345\n{P2}\n".encode(),
        ["bad solution column: wrong length", True]),
    "CSV: a comma in a quoted name column": (
        "c.csv", f'puzzle,name\n{P1},"hard, very"\n{P2},"x"\n'.encode(), [True, True]),
    # issue 18: our own hostile cases beyond the probe's
    "CR and CRLF mixed (each ends a line)": ("m.txt", f"{P1}\r{P2}\r\n{P3}\n".encode(),
                                             [True, True, True]),
    "BOM, CRLF, CR, CR-CR-LF": ("m.txt", f"\ufeff{P1}\r\n{P2}\r{P3}\r\r\n".encode(),
                                [True, True, True]),
    "names with commas, quotes and tabs": (
        "n.txt", f'{P1},name, with "commas"\n{P2}\tb,c\td\n'.encode(), [True, True]),
    "a CSV field quoted over two lines": (
        "c.csv", f'puzzle,name\n{P1},"two\nlines"\n{P2},x\n'.encode(),
        [True, "not a Sudoku size", True]),
    "a 10,000-digit number in a JSON puzzle": (
        "j.jsonl", _json('{"kind": "latin", "size": 3, "givens": [' + "9" * 10000
                         + ', 0, 0, 0, 0, 0, 0, 0, 0]}', '{"kind": "latin", "size": 1, '
                         '"givens": [1]}'), ["bad JSON", True]),
    "NaN in a JSON puzzle": ("j.jsonl", _json('{"kind": "latin", "size": NaN, "givens": []}',
                                              '{"kind": "latin", "size": 1, "givens": [1]}'),
                             ["size must be an integer", True]),
    "a 21-digit box order (ndigits)": (
        "n.txt", b"99999999999999999999 0123\n2 0240100340020130\n", ["", True]),
    "a 21-digit puzzle count (.dat)": ("f.dat", b"999999999999999999999\n2 0\n1 0\n0 0\n",
                                       ["announces", True]),
    "a 21-digit value in a grid": (
        "g.txt", b"1 2 3 999999999999999999999\n3 4 1 2\n2 1 4 3\n4 3 2 1\n", [""]),
    "a 5 MB line before a puzzle": ("l.txt", b"1" * 5_000_000 + f"\n{P2}\n".encode(),
                                    ["", True]),
    "a NUL byte inside a puzzle line": ("z.txt", f"{P1[:40]}\x00{P1[41:]}\n{P2}\n".encode(),
                                        ["", True]),
    "only NUL bytes": ("z.txt", b"\x00" * 1000, [""]),
    "100,000 blank lines before a puzzle": ("b.txt", b"\n" * 100_000 + f"{P1}\n".encode(),
                                            [True]),
    "an empty file": ("e.txt", b"", []),
    "only a BOM": ("e.txt", b"\xef\xbb\xbf", []),
    "only comments": ("e.txt", b"# a\n# b\n\n", []),
    "a 'p cnf' header with a 20-digit variable count (DIMACS, refused)": (
        "p.txt", b"p cnf 99999999999999999999 1\n1 0\n", ["above the limit"]),
    "gzip without .gz": ("p.txt", gzip.compress(f"{P1}\n{P2}\n".encode()), [True, True]),
    "xz without .xz": ("p.txt", lzma.compress(f"{P1}\n".encode()), [True]),
    "bz2 without .bz2": ("p.txt", bz2.compress(f"{P1}\n".encode()), [True]),
    "NUL bytes in a CSV line": (
        "c.csv", f"puzzle\n{P1}\n{P2[:5]}\x00{P2[6:]}\n".encode(), [True, "bad symbol '\\x00'"]),
    # section 3: fields and sizes
    "JSON less_than outside the grid": (
        "j.jsonl", _json('{"kind": "futoshiki", "size": 2, "givens": [0, 0, 0, 0], '
                         '"less_than": [[0, 99]]}',
                         '{"kind": "futoshiki", "size": 2, "givens": [0, 0, 0, 0], '
                         '"less_than": [[0, 1]]}'),
        ["less_than cell 99 outside 0..3", True]),
    "3-D less_than outside the cube": (
        "j.jsonl", _json('{"kind": "sudoku3d", "order": 2, "less_than": [[0, 64]]}'),
        ["less_than cell 64 outside 0..63"]),
    "less_than on a kind without relations": (
        "j.jsonl", _json('{"kind": "sudoku", "box": 2, "givens": "' + "." * 16 + '", '
                         '"less_than": [[0, 1]]}'), ["less_than is not a field of kind sudoku"]),
    "order 1e400": ("j.jsonl", _json('{"kind": "sudoku3d", "order": 1e400}'),
                    ["order must be an integer, got inf"]),
    "box 2.7": ("j.jsonl", _json('{"kind": "sudoku", "box": 2.7, "givens": ""}'),
                ["box must be an integer, got 2.7"]),
    "box true": ("j.jsonl", _json('{"kind": "sudoku", "box": true, "givens": ""}'),
                 ["box must be an integer, got True"]),
    "negative size": ("j.jsonl", _json('{"kind": "latin", "size": -3, "givens": []}'),
                      ["size -3 outside"]),
    "5000-digit number": ("j.jsonl", _json('{"kind": "latin", "size": ' + "9" * 5000 + "}"),
                          ["bad JSON"]),
    "huge integer size": ("j.jsonl", _json('{"kind": "latin", "size": ' + "9" * 40 + "}"),
                          ["size (a 133-bit number) outside 1..1000000"]),
    "deeply nested JSON": ("j.jsonl", _json('{"givens": ' + "[" * 5000 + "]" * 5000 + "}"),
                           ["nested too deep"]),
    "nested givens beyond a cube": (
        "j.jsonl", _json('{"kind": "latin", "size": 1, "givens": [[[[0]]]]}'),
        ["givens nested deeper than 3 levels"]),
    "givens of the wrong type": (
        "j.jsonl", _json('{"kind": "latin", "size": 1, "givens": {"a": 1}}'),
        ["givens must be a string of symbols or a list"]),
    "3-D fixed cell outside the cube": (
        "j.jsonl", _json('{"kind": "sudoku3d", "order": 2, "fixed": [[4, 0, 0, 1]]}'),
        ["fixed 4 outside 0..3"]),
    "3-D path box order": (
        "j.jsonl", _json('{"kind": "sudoku3d", "order": 2, "path_boxes": [{"start": [0, 0, 0], '
                         '"end": [0, 0, 1], "order": "up"}]}'), ["path box order must be"]),
    "custom group cell 1.5": (
        "j.jsonl", _json('{"kind": "custom", "shape": [2, 2], "domain": 2, '
                         '"groups": [[0, 1.5]]}'), ["group cell must be an integer, got 1.5"]),
    "3-D order 5 (size guard)": ("j.jsonl", _json('{"kind": "sudoku3d", "order": 5}'),
                                 ["too large: 15625 cells x domain 25"]),
    "shape 100000 x 100000 (size guard)": (
        "j.jsonl", _json('{"kind": "custom", "shape": [100000, 100000], "domain": 3, '
                         '"groups": []}'), ["too large: shape [100000, 100000]"]),
    "domain 1e8 (size guard)": (
        "j.jsonl", _json('{"kind": "custom", "shape": [3], "domain": 100000000, '
                         '"groups": []}'), ["too large: domain 100000000"]),
    "1600x1600 line (size guard)": ("l.txt", b"." * 40**4 + b"\n", ["too large"]),
    "144x144 grid (size guard)": ("g.txt", ("0 " * 144 + "\n").encode() * 144, ["too large"]),
    "200x200 Latin list (size guard)": (
        "l.txt", ("[" + ",".join(["[" + ",".join(["0"] * 200) + "]"] * 200) + "]\n").encode(),
        ["too large"]),
    "futoshiki .dat order 10^6 (size guard)": (
        "f.dat", b"1\n1000000 0\n", ["announces 1 puzzles but holds 0", "too large"]),
    "unicode digits in a grid": ("g.txt", "1 2 3 4\n3 4 1 2\n2 1 4 ³\n4 3 2 1\n".encode(),
                                 ["grid ends after 2 rows", "not a grid row", "grid ends"]),
}


@pytest.mark.parametrize("case", sorted(PUZZLE_FAULTS))
def test_puzzle_file_faults(tmp_path: Path, case: str) -> None:
    name, content, expected = PUZZLE_FAULTS[case]
    path = tmp_path / name
    path.write_bytes(content)
    recs = list(read_records(path))
    got = [r.valid if r.valid else (r.error or "") for r in recs]
    assert len(got) == len(expected), got
    for g, e in zip(got, expected, strict=True):
        assert g is True if e is True else (isinstance(g, str) and e in g), (got, expected)
    assert [r.index for r in recs] == list(range(1, len(recs) + 1))


def test_explicit_format_reads_what_detection_reads(tmp_path: Path) -> None:
    # "All of them work with --format line: detection must be as good as the user's choice"
    for case in ("title line before line puzzles", "comma in the first puzzle's name",
                 "UTF-8 BOM", "BOM and CRLF"):
        name, content, _ = PUZZLE_FAULTS[case]
        (tmp_path / name).write_bytes(content)
        auto = [(r.line, r.puzzle) for r in read_records(tmp_path / name)]
        assert auto == [(r.line, r.puzzle) for r in read_records(tmp_path / name, "line")]


# --- the committed inputs (tests/data/inputs) -----------------------------------------------
INPUT_FILES = {
    # file: (valid, invalid)
    "windows_title_comma.txt": (4, 1),
    "letters_16x16.txt": (2, 0),
    "letters_25x25.txt": (2, 0),
    "bad_bytes.txt": (2, 2),
    "bad_fields.jsonl": (3, 8),
    "futoshiki_bom.dat": (3, 0),
}


@pytest.mark.parametrize("name", sorted(INPUT_FILES))
def test_committed_inputs(name: str) -> None:
    recs = list(read_records(INPUTS / name))
    valid = [r for r in recs if r.valid]
    assert (len(valid), len(recs) - len(valid)) == INPUT_FILES[name], [r.error for r in recs]
    assert all(r.puzzle.conflicts() == [] for r in valid)  # type: ignore[union-attr]
    assert {r.puzzle.size for r in valid} <= {3, 4, 5, 6, 7, 8, 9, 16, 25, 2}  # type: ignore[union-attr]


def test_letters_keep_their_values() -> None:
    first = [r.puzzle.givens[0] for r in read_records(INPUTS / "letters_25x25.txt")]
    assert first == [16, 25]  # 'G', 'P'
    first = [r.puzzle.givens[0] for r in read_records(INPUTS / "letters_16x16.txt")]
    assert first == [11, 16]  # 'B', 'G'


# --- files that cannot be read: one line naming the file ----------------------------------------
def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


FILE_FAULTS = {
    "missing file": (lambda t: t / "nope.txt", "no such file"),
    "directory without DIMACS files": (lambda t: t, "is a directory without DIMACS files"),
    "/dev/zero": (lambda t: Path("/dev/zero"), "is not a regular file"),
    "a FIFO": (_fifo, "is not a regular file"),
    "truncated .gz": (lambda t: _write(t / "p.txt.gz", gzip.compress(P1.encode() * 40)[:50]),
                      "truncated or corrupt gzip data"),
    "corrupt .xz": (lambda t: _write(t / "p.xz", lzma.compress(P1.encode())[:20] + b"\0" * 30),
                    "truncated or corrupt xz data"),
    "corrupt .bz2": (lambda t: _write(t / "p", bz2.compress(P1.encode())[:30] + b"x" * 9),
                     "truncated or corrupt bz2 data"),
    "file over the size limit": (lambda t: _write(t / "big.txt", (P1 + "\n").encode() * 20),
                                 "larger than 1000 bytes"),
    "a symlink to /dev/zero": (lambda t: _link(t / "z.txt", "/dev/zero"),
                               "is not a regular file"),
    "a dangling symlink": (lambda t: _link(t / "d.txt", str(t / "gone")), "no such file"),
    "gzip bomb over the size limit": (
        lambda t: _write(t / "bomb.txt", gzip.compress(b"." * 100_000)), "larger than 1000 bytes"),
}


def _link(path: Path, target: str) -> Path:
    path.symlink_to(target)
    return path


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", sorted(FILE_FAULTS))
def test_unreadable_files_are_one_line_errors(tmp_path: Path, case: str) -> None:
    make, reason = FILE_FAULTS[case]
    path = make(tmp_path)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            read_records(path, limits=SizeLimits(max_input_bytes=1000))
        except InputError as exc:
            done.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(20)  # a FIFO or a device must not block the reader
    assert done, f"{case}: no InputError (hung or another exception)"
    message = str(done[0])
    assert message.startswith(str(path)) and reason in message and "\n" not in message


@pytest.mark.parametrize("case", ["missing file", "/dev/zero", "a FIFO", "truncated .gz"])
def test_sharding_refuses_what_reading_refuses(tmp_path: Path, case: str) -> None:
    from satdoku.set_plans import plan

    make, reason = FILE_FAULTS[case]
    with pytest.raises(InputError, match=reason):  # the workflow plans (counts, hashes) a set
        plan(make(tmp_path))


def test_unknown_format_lists_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text(P1 + "\n")
    with pytest.raises(FormatError, match=r"unknown format 'xml'; known: auto, line, .*dimacs"):
        read_records(tmp_path / "p.txt", "xml")
    with pytest.raises(InputError, match="only a CNF set"):
        read_records(tmp_path, "line")


# --- DIMACS -------------------------------------------------------------------------------------
DIMACS_FAULTS = {
    "p cnf 2000000000 1": (b"p cnf 2000000000 1\n1 0\n", 1, "above the limit"),
    "more variables than bytes": (b"p cnf 9000000 1\n1 0\n", 1, "file has only"),
    "more clauses than bytes": (b"p cnf 3 900000000\n1 0\n", 1, "hold at most 2"),
    "binary junk": (b"p cnf 3 1\n1 \x00\xff\x9f 0\n", 2, "not a literal"),
    "junk before the header": (b"\x89PNG\r\n\x1a\n", 1, "clause before the 'p cnf' header"),
}


@pytest.mark.parametrize("engine", ["c", "python"])
@pytest.mark.parametrize("case", sorted(DIMACS_FAULTS))
def test_dimacs_faults_name_file_and_line(tmp_path: Path, case: str, engine: str) -> None:
    data, line, reason = DIMACS_FAULTS[case]
    path = _write(tmp_path / "f.cnf", data)
    start = time.perf_counter()
    with pytest.raises(DimacsError) as err:
        read_dimacs_arrays(path, engine=engine)
    assert time.perf_counter() - start < 5  # refused from the header, nothing allocated
    assert str(err.value).startswith(f"{path}:{line}: ") and reason in str(err.value)


DIMACS_FILE_FAULTS = {
    "missing": (lambda t: t / "none.cnf", "no such file"),
    "directory": (lambda t: t, "is a directory"),
    "/dev/zero": (lambda t: Path("/dev/zero"), "is not a regular file"),
    "truncated .cnf.gz": (lambda t: _write(t / "f.cnf.gz", gzip.compress(b"p cnf 3 1\n1 0\n")[:12]),
                          "truncated or corrupt gzip data"),
    "corrupt .cnf.xz": (lambda t: _write(t / "f.cnf.xz", lzma.compress(b"p cnf 3 1\n1 0\n")[:-6]),
                        "truncated or corrupt xz data"),
}


@pytest.mark.parametrize("case", sorted(DIMACS_FILE_FAULTS))
def test_dimacs_file_faults(tmp_path: Path, case: str) -> None:
    make, reason = DIMACS_FILE_FAULTS[case]
    path = make(tmp_path)
    for read in (read_dimacs, read_dimacs_arrays):
        with pytest.raises(DimacsError) as err:
            read(path)
        assert str(err.value) == f"{path}: {err.value.reason}" and reason in err.value.reason
        assert isinstance(err.value, InputError)  # the one documented error of every reader


def test_a_single_dimacs_file_is_a_one_instance_cnf_set(public_data: Path) -> None:
    path = public_data / "satlib" / "uf20-91" / "uf20-01.cnf"
    (rec,) = read_records(path)
    assert rec.notation == "dimacs" and rec.puzzle is None and rec.valid
    assert rec.cnf is not None and (rec.cnf.num_vars, rec.cnf.num_clauses) == (20, 91)
    assert rec.cnf.sha256 == read_snapshot(path).sha256 and rec.name == "uf20-01.cnf"


def test_cnf_set_directory() -> None:
    recs = list(read_records(INPUTS / "cnfset"))
    assert [r.name for r in recs] == ["a_uf20-01.cnf", "b_uf20-02.cnf.gz", "c_uuf50-01.cnf.xz",
                                      "d_gzip_named_plain.cnf", "e_malformed.cnf"]
    assert [r.index for r in recs] == [1, 2, 3, 4, 5] and {r.line for r in recs} == {1}
    assert [(r.cnf.num_vars, r.cnf.num_clauses) for r in recs[:4]] == [  # type: ignore[union-attr]
        (20, 91), (20, 91), (50, 218), (50, 218)]
    assert recs[4].error == "line 4: literal 7 out of range for 3 variables"
    assert all(r.notation == "dimacs" and r.puzzle is None for r in recs)
    assert recs == list(read_records(INPUTS / "cnfset", "dimacs"))
    for r in recs[:4]:  # the file a solver reads again is the one checked
        assert read_dimacs(r.cnf.path).num_vars == r.cnf.num_vars  # type: ignore[union-attr]


#: bad inputs this suite covers (the README figure): the tables above, an unknown format name,
#: a directory read as a puzzle file, a malformed file in a CNF set
FAULT_COUNT = (len(PUZZLE_FAULTS) + len(FILE_FAULTS) + len(DIMACS_FAULTS)
               + len(DIMACS_FILE_FAULTS) + 3)


# --- issue 18: the command line and the workflow's planning read bad bytes line by line -------
def _solve_cli(*args: str, **kw) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    return subprocess.run([sys.executable, "-m", "satdoku", "solve", *args], capture_output=True,
                          text=True, timeout=120, **kw)


@pytest.mark.parametrize("case", ["a line starting with a UTF-16 BOM between puzzles",
                                  "a file starting with a stray UTF-16 BOM line",
                                  "a CP1252 title line", "UTF-16 BE with BOM",
                                  "a 'p cnf' line before puzzles (not DIMACS)"])
def test_solve_and_planning_keep_every_puzzle_beside_bad_bytes(tmp_path: Path, case: str) -> None:
    from satdoku.config import check
    from satdoku.set_plans import plan

    name, content, expected = PUZZLE_FAULTS[case]
    path = tmp_path / name
    path.write_bytes(content)
    proc = _solve_cli(str(path), "--solver", "cdcl")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert len(out) == len(expected)
    for line, e in zip(out, expected, strict=True):
        assert (len(line) == 81 and line.isdigit()) if e is True else line.startswith(
            "Instance Invalid: ")
    assert not plan(path).cnf  # the workflow plans it as a puzzle file, never refuses it
    schema = Path(__file__).parents[1] / "workflow" / "schemas" / "config.schema.yaml"
    check({"sets": {"s": str(path)}, "solvers": {"cdcl": {}}}, schema)


@pytest.mark.parametrize("solver", ["cdcl", "cpsat"])
def test_sigint_ends_solve_with_one_line_and_complete_output(tmp_path: Path, solver: str) -> None:
    """SIGINT (Ctrl-C) to `satdoku solve`: exit 130, one line on stderr, no traceback, and
    every line already printed complete (CP-SAT's own SIGINT handler, left at SIG_DFL after
    its first solve, used to kill the process silently: exit -2, no line)."""
    path = tmp_path / "many.txt"
    path.write_text(f"{P1}\n{P2}\n{P3}\n" * 2000)
    proc = subprocess.Popen([sys.executable, "-m", "satdoku", "solve", str(path), "--solver",
                             solver], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "SATDOKU_PROGRESS": "log"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    lines = (first + out).decode().split("\n")
    assert proc.returncode == 130, err
    assert lines[-1] == "" and len(lines) - 1 < 6000  # stopped early, last line ended
    assert all(len(ln) == 81 and ln.isdigit() for ln in lines[:-1])
    text = err.decode()
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert text.splitlines()[-1] == ("satdoku solve: interrupted (SIGINT); every line above is "
                                     "complete")
    assert f"solve {solver}: stopped at" in text and "done" not in text


def _pigeonhole(pigeons: int) -> str:
    """PHP(pigeons, pigeons - 1) in DIMACS: unsatisfiable, and minutes of search at 12."""
    holes = pigeons - 1
    var = lambda i, j: i * holes + j + 1  # noqa: E731
    clauses = [[var(i, j) for j in range(holes)] for i in range(pigeons)]
    clauses += [[-var(a, j), -var(b, j)] for j in range(holes)
                for a in range(pigeons) for b in range(a + 1, pigeons)]
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return f"p cnf {pigeons * holes} {len(clauses)}\n{body}"


@pytest.mark.parametrize("solver", ["minisat22", "cdcl"])
def test_sigint_stops_a_search_in_compiled_code(tmp_path: Path, solver: str) -> None:
    """Ctrl-C during a long search inside python-sat or our C kernel (both release the GIL, so
    Python's handler would run only when the search returns: at a 600 s limit) ends the
    process now: the signal relay interrupts the search (satdoku.solvers.interrupts)."""
    cnfs = tmp_path / "cnfs"
    cnfs.mkdir()
    (cnfs / "a_easy.cnf").write_text("p cnf 2 1\n1 2 0\n")
    (cnfs / "b_php12.cnf").write_text(_pigeonhole(12))
    proc = subprocess.Popen([sys.executable, "-m", "satdoku", "solve", str(cnfs), "--solver",
                             solver, "--time-limit", "600"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the easy file's line: the pigeonhole search is next
    assert first.startswith(b"a_easy.cnf")
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)  # without the relay: 600 s
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{solver}: SIGINT did not stop the search")
    assert proc.returncode == 130, err
    assert out == b""  # nothing half-written after the easy file's line
    assert err.decode().splitlines()[-1] == ("satdoku solve: interrupted (SIGINT); every line "
                                             "above is complete")


def test_a_given_solution_that_differs_is_in_the_detail_in_fixed_words(tmp_path: Path) -> None:
    """A CSV solution the verified board contradicts: SatSols detail is the fixed words
    (reports and checks match them); an UNSAT
    answer to a puzzle whose given solution solves it is a wrong answer."""
    from satdoku.solve import open_solver, solve, verify
    from satdoku.solvers.result import FAILED, UNSAT, Result
    from satdoku.stagefiles.tsv import GIVEN_DIFFERS, GIVEN_SOLUTION_REFUTES_UNSAT

    other = "14" + S1[2:]
    path = tmp_path / "c.csv"
    path.write_text(f"puzzle,solution\n{P1},{other}\n{P1},{S1}\n")
    differs, same = read_records(path)
    cdcl = open_solver("cdcl")
    row = solve(differs, cdcl, "extended", 10).sols_row(differs)
    assert row["verified"] == "yes" and row["solution"] == S1
    assert row["detail"] == GIVEN_DIFFERS  # exactly: the reports and the check match it
    assert solve(same, cdcl, "extended", 10).sols_row(same)["detail"] == ""
    wrong = verify(same, "extended", Result(UNSAT))
    assert (wrong.verified, wrong.detail) == (FAILED, GIVEN_SOLUTION_REFUTES_UNSAT)


@pytest.mark.parametrize("argv", [
    ["train", "--size", "4", "--epochs", "0"], ["train", "--size", "4", "--epochs", "-1"],
    ["train", "--size", "4", "--lr", "nan"], ["train", "--size", "5"],
    ["train", "--size", "4", "--batch", "0"], ["generate", "boards", "--size", "0"],
    ["generate", "boards", "--size", "99999999999999999999"],
    ["generate", "boards", "--size", "9", "--count", "-3"],
    ["generate", "dataset", "--size", "4", "--fractions", "2", "0", "0"],
    ["count", "x.txt", "--max", "0"], ["count", "x.txt", "--time-limit", "inf"],
    ["largest-n", "--n-max", "100000"], ["largest-n", "--holes", "1.5"],
    ["classify", "--ltn-steps", "-5"], ["dpll", "x.cnf", "--seed", "-1"],
    ["pipeline", "normalize", "x", "--shard-size", "0", "-o", "y"],
    ["solve", "x.txt", "--time-limit", "1e999"], ["solve", "x.txt", "--memory-limit", "1e30"],
])
def test_absurd_numbers_on_the_command_line_are_one_usage_line(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "satdoku", *argv], capture_output=True,
                          text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    command = " ".join(argv[:2]) if argv[0] == "pipeline" else argv[0]
    assert lines[-1].startswith(f"satdoku {command}: error: argument "), lines


# --- issue 18: orders 49 and 64 (the memory guard, and rules built inside the deadline) -----
def _empty_grid(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"g{n}.txt"
    path.write_text("".join(" ".join(["0"] * n) + "\n" for _ in range(n)))
    return path


@pytest.mark.parametrize(("layout_of", "encodings"), [
    ("sudoku 4", ("minimal", "efficient", "extended", "minimal_seq", "extended_seq")),
    ("sudoku 9", ("extended", "efficient_seq")),
    ("latin 5", ("extended", "extended_seq")),
])
def test_the_guard_counts_clauses_exactly(layout_of: str, encodings: tuple[str, ...]) -> None:
    from satdoku.cnf.encode import rules_clause_count, rules_clauses
    from satdoku.puzzle import latin, sudoku

    kind, size = layout_of.split()
    n = int(size)
    layout = (sudoku([0] * n**4, n) if kind == "sudoku" and n < 9 else
              sudoku([0] * n**2, 3) if kind == "sudoku" else latin([0] * n * n, n)).layout
    for enc in encodings:
        assert rules_clause_count(layout, enc) == len(rules_clauses(layout, enc)), enc


def test_solve_configfile_limits_hold_as_in_the_workflow(tmp_path: Path) -> None:
    """`satdoku solve --configfile` applies the file's `limits:` (it used to read only its
    solvers): a size guard below a 4x4's rules makes it INVALID naming the limit; a bad value
    or unknown key is one line, exit 2."""
    import yaml

    puzzles = tmp_path / "p.txt"
    puzzles.write_text("2 0240100340020130\n")
    cfg = tmp_path / "my.yaml"
    base = {"solvers": {"cdcl": {}}}
    cfg.write_text(yaml.safe_dump(base))
    plain = _solve_cli(str(puzzles), "--solver", "cdcl", "--configfile", str(cfg))
    assert plain.returncode == 0 and plain.stdout == "2 3241142343122134\n", plain.stderr
    cfg.write_text(yaml.safe_dump({**base, "size_limits": {"max_clauses": 10}}))
    guarded = _solve_cli(str(puzzles), "--solver", "cdcl", "--configfile", str(cfg))
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout.startswith("Instance Invalid: too large to encode")
    assert "the limit is 10 (size_limits.max_clauses" in guarded.stdout
    for bad, words in (({"max_clauses": 0}, "size_limits.max_clauses: 0 is not a whole number"),
                       ({"max_clauses": "10"}, "size_limits.max_clauses: '10' is not"),
                       ({"max_clause": 10}, "size_limits: unknown key(s) max_clause")):
        cfg.write_text(yaml.safe_dump({**base, "size_limits": bad}))
        refused = _solve_cli(str(puzzles), "--solver", "cdcl", "--configfile", str(cfg))
        assert refused.returncode == 2 and refused.stdout == ""
        assert len(refused.stderr.splitlines()) == 1 and words in refused.stderr, refused.stderr


@pytest.mark.parametrize("n", [49, 64])
def test_orders_49_and_64_are_refused_before_anything_is_built(tmp_path: Path, n: int) -> None:
    """Their extended rules (11.3 and 33 million clauses, 2.2 and 5.4 GB before the guard) are
    one INVALID row naming the limit, in `satdoku solve` and in the workflow's encode stage."""
    from satdoku.pipeline.stage_encode import encode_shard
    from satdoku.pipeline.stage_normalize import normalize
    from satdoku.stagefiles.bundles import read_bundle

    path = _empty_grid(tmp_path, n)
    proc = _solve_cli(str(path), "--solver", "cdcl", "--time-limit", "5", "--times")
    assert proc.returncode == 0, proc.stderr
    line, status, _ = proc.stdout.strip().split("\t")
    assert status == "INVALID" and line.startswith(
        f"Instance Invalid: too large to encode: sudoku-{n} under extended needs ")
    assert "the limit is 5000000 (size_limits.max_clauses" in line
    normalize(path, tmp_path / "i.jsonl", 0, 1000)
    encode_shard(tmp_path / "i.jsonl", tmp_path / "b.cnfs", "big", "extended")
    (entry,) = read_bundle(tmp_path / "b.cnfs")
    assert entry.invalid is not None and "too large to encode" in entry.invalid


def test_a_rules_build_stops_at_the_deadline_and_resumes(tmp_path: Path) -> None:
    """64x64 under extended_seq (3.1 million clauses) passes the guard: building its rules
    counts against the instance's limit and stops there (TIMEOUT naming how far it got); the
    next instance goes on from there."""
    from satdoku.cnf import encode
    from satdoku.solve import open_solver, solve

    (rec,) = read_records(_empty_grid(tmp_path, 64))
    solver = open_solver("minisat22")
    built = []
    for _ in range(2):
        answer = solve(rec, solver, "extended_seq", 0.05)
        assert answer.status == "TIMEOUT", answer.result.message
        message = answer.result.message
        assert message.startswith("time limit reached while building the shared rules of "
                                  "sudoku-64.extended_seq (") and "of 3096576 clauses" in message
        built.append(int(message.split("(")[1].split()[0]))
    assert 0 < built[0] < built[1] < 3096576
    encode._BUILDS.clear()  # free the half-built rules


def test_docs_state_the_fault_count() -> None:
    text = (Path(__file__).parents[1] / "docs" / "bad-input.md").read_text()
    assert f"covers {FAULT_COUNT} bad inputs" in text
