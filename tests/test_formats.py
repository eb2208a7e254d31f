from collections import Counter

import pytest

from satdoku.formats import format_board, read_records
from satdoku.formats.record import Record

SUDOKU_FILES = {
    # file: (reader, count, side)
    "ci5437_murillo/20_instancias_de_sudoku.txt": ("line", 20, 9),
    "ci5437_sudokusolver/InstanciasSudoku.txt": ("ndigits", 46, 9),
    "ci5437_sudokusolver/InstanciasSudoku1.txt": ("ndigits", 1, 9),
    "ci5437_sudokusolver/sudoku2x2.txt": ("ndigits", 7, 4),
    "norvig/top95.txt": ("line", 95, 9),
    "norvig/hardest.txt": ("line", 11, 9),
    "norvig/easy50.txt": ("line", 50, 9),
    "norvig/sudoku_grids_euler96_style.txt": ("grid", 50, 9),
    "tdoku_benchmarks/puzzles3_magictour_top1465.txt": ("line", 1465, 9),
    "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt": ("line", 375, 9),
    "vu_kr_sudoku/4x4.txt": ("line", 100, 4),
    "vu_kr_sudoku/9x9.txt": ("line", 100, 9),
    "vu_kr_sudoku/16x16.txt": ("line", 100, 16),
    "vu_kr_sudoku/top100.txt": ("line", 100, 9),
    "vu_kr_sudoku/hard.txt": ("line", 35, 9),
    "large_grids_bnguyen/4x4.txt": ("grid", 1, 4),
    "large_grids_bnguyen/16x16.txt": ("grid", 1, 16),
    "large_grids_bnguyen/25x25.txt": ("grid", 1, 25),
    "large_grids_bnguyen/25x25s.txt": ("grid", 1, 25),
    "kaggle_style_sample/sudoku_puzzle_solution_sample.csv": ("csv", 1000, 9),
    "ltn_sudoku_torch/sudokus/exemplo_9x9_aberto_valido.csv": ("csv", 1, 9),
    "ltn_sudoku_torch/data/4x4/sudoku_4x4_open_solvable.csv": ("csv", 500, 4),
}


@pytest.mark.parametrize("name", sorted(SUDOKU_FILES))
def test_every_public_sudoku_file_reads(public_data, name):
    reader, count, side = SUDOKU_FILES[name]
    recs = list(read_records(public_data / name))
    assert len(recs) == count
    assert {r.notation for r in recs} == {reader}
    assert all(r.puzzle is not None and r.puzzle.size == side for r in recs), [
        r.error for r in recs if r.error
    ][:3]
    assert [r.index for r in recs] == list(range(1, count + 1))


def test_names_lines_and_solutions(public_data):
    recs = list(read_records(public_data / "ci5437_murillo/20_instancias_de_sudoku.txt"))
    assert recs[0].name == "near worst case for brute-force solver (wiki)"
    tdoku = list(read_records(public_data / "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt"))
    assert tdoku[0].line == 3  # two comment lines come first
    kag = next(read_records(public_data / "kaggle_style_sample/sudoku_puzzle_solution_sample.csv"))
    assert kag.line == 2 and kag.solution is not None
    assert kag.puzzle.check_solution(kag.solution) == []


def test_16x16_letters(public_data):
    rec = next(read_records(public_data / "vu_kr_sudoku/16x16.txt"))
    assert rec.puzzle.givens[0] == 1 and rec.puzzle.givens[2] == 13  # 'D' = 13
    assert max(rec.puzzle.givens) <= 16


def test_malformed_lines_become_invalid_rows(tmp_path):
    f = tmp_path / "bad.txt"
    good = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    f.write_text("\n".join([
        "# comment", good, good[:-1], good[:-1] + "X", "", good + "1", "0 0 0", good + "\tnamed",
    ]) + "\n")
    recs = list(read_records(f))
    assert [r.line for r in recs] == [2, 3, 4, 6, 7, 8]
    assert [r.valid for r in recs] == [True, False, False, False, False, True]
    assert "80 cells" in recs[1].error
    assert "'X'" in recs[2].error
    assert "82 cells" in recs[3].error
    assert recs[5].name == "named"
    with pytest.raises(ValueError, match=r"bad.txt:3: 80 cells"):
        list(read_records(f, strict=True))


def test_ndigits_and_grid_errors(tmp_path):
    f = tmp_path / "n.txt"
    f.write_text("2 0240100340020130\n2 024010034002013\n3 0240100340020130\n")
    recs = list(read_records(f))
    assert recs[0].valid and recs[0].puzzle.size == 4
    assert "needs 16 digits" in recs[1].error
    assert "needs 81 digits" in recs[2].error
    g = tmp_path / "g.txt"
    g.write_text("1 2 3 4\n3 4 1 2\n\n2 1 4 3\n4 3 2\n")
    grec = list(read_records(g))
    assert len(grec) == 1 and "different lengths" in grec[0].error


def test_shard_reading_matches_whole_file(public_data):
    path = public_data / "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt"
    whole = list(read_records(path))
    parts = [list(read_records(path, start_line=s, stop_line=s + 100)) for s in range(1, 400, 100)]
    flat = [r for p in parts for r in p]
    assert [(r.index, r.line, r.puzzle.givens) for r in flat] == [
        (r.index, r.line, r.puzzle.givens) for r in whole
    ]
    csvp = public_data / "kaggle_style_sample/sudoku_puzzle_solution_sample.csv"
    part = list(read_records(csvp, start_line=101, stop_line=201))
    assert part[0].index == 100 and part[0].solution is not None and len(part) == 100


def test_format_board_roundtrip():
    board = tuple(range(1, 17)) * 16
    assert format_board(board[:16], "line", 4).startswith("123456789ABCDEFG")
    assert format_board((1, 2, 3, 4) * 4, "ndigits", 4) == "2 1234123412341234"
    assert format_board((10, 25) * 2, "grid", 25) == "10 25 10 25"


def test_counter_of_invalid_ltn_rows(public_data):
    # the original LTN 'closed invalid' 9x9 file has lines of 82 symbols: reported, not dropped
    recs = list(read_records(public_data / "ltn_sudoku_torch/data/9x9/sudoku_closed_invalid.csv"))
    c = Counter(r.valid for r in recs)
    assert c[True] + c[False] == 500 and c[False] > 0
    assert all(isinstance(r, Record) for r in recs)


# --- the Format registry ------------------------------------------------------------------------
def _semi_read(lines, source, limits=None):  # type: ignore[no-untyped-def]
    from satdoku.formats.lines import sudoku_from_symbols

    for lineno, text in lines:
        puzzle, reason = sudoku_from_symbols(text.strip().replace(";", ""), limits=limits)
        yield Record(source, lineno, 0, "semi", puzzle=puzzle, error=reason or None)


def _semi_parse(text: str, side: int):  # type: ignore[no-untyped-def]
    from satdoku.formats.symbols import parse_board_chars

    cells = text.split(";")
    values, _ = parse_board_chars("".join(cells), side)
    return values if all(len(c) == 1 for c in cells) else None


def test_a_toy_format_is_one_record_away(tmp_path):
    """Registering one Format record makes a format readable, detected, listed, written back
    in SatSols and read back by the reports."""
    from satdoku.formats import (
        FORMATS,
        LINE_FORMATS,
        Format,
        format_names,
        parse_board,
        register,
        unregister,
    )
    from satdoku.formats.symbols import board_chars
    from satdoku.report.text import build_report
    from satdoku.solve import verify
    from satdoku.solvers.result import Result

    toy = Format("semi", "symbols separated by ';'",
                 lambda board, side, empty=".": ";".join(board_chars(board, empty)),
                 _semi_parse, read=_semi_read,
                 detect=lambda path, head: bool(head) and ";" in head[0][1], priority=5,
                 one_line=True)
    solution = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)
    givens = ";".join(board_chars(solution[:12]) + "....")
    (tmp_path / "toy.txt").write_text(givens + "\n" + givens.replace("1", "X") + "\n")
    register(toy)
    try:
        assert "semi" in FORMATS and "semi" in LINE_FORMATS and "semi" in format_names()
        recs = list(read_records(tmp_path / "toy.txt"))
        assert [r.notation for r in recs] == ["semi", "semi"]
        assert recs[0].valid and "'X' at position 1 means 33" in recs[1].error
        row = verify(recs[0], "direct", Result("SAT", board=solution)).sols_row(recs[0])
        assert row["solution"] == "1;2;3;4;3;4;1;2;2;1;4;3;4;3;2;1"
        assert parse_board(row["solution"], "semi", 4) == solution
        times = {"run": [{"id": "1", "status": "SAT", "total_seconds": "0.001"}]}
        report = build_report("toy", recs[:1], {"run": [row]}, times)
        assert report.rstrip().endswith("2 1 | 4 3\n    4 3 | 2 1")  # the solved board, read back
    finally:
        unregister("semi")
    assert "semi" not in FORMATS and "semi" not in LINE_FORMATS


def test_registry_refuses_bad_records_and_names():
    from satdoku.formats import Format, FormatError, get_format, register
    from satdoku.formats.symbols import format_ints, parse_ints

    with pytest.raises(FormatError, match="already registered"):
        register(get_format("line"))
    with pytest.raises(FormatError, match="exactly one of read and read_file"):
        Format("nothing", "reads nothing", format_ints, parse_ints)
    with pytest.raises(FormatError, match="bad format name"):
        Format("Bad Name", "x", format_ints, parse_ints, read=_semi_read)
    with pytest.raises(FormatError, match="unknown format 'xml'; known: auto, line"):
        format_board((1,), "xml", 1)


def test_detection_prefers_the_format_that_reads_the_file(tmp_path):
    from satdoku.formats import detect_format

    p1 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    cases = {
        "title.txt": (f"Hard ones\n{p1}\n{p1}\n", "line"),
        "comma.txt": (f"{p1}\tpuzzle 1, hard\n{p1}\n", "line"),
        "kaggle.csv": (f"quizzes,solutions\n{p1},{p1}\n", "csv"),
        "g.txt": ("Grid 01\n" + "003020600\n" * 9, "grid"),
        "l.txt": ("G" + "." * 255 + "\n" + "." * 256 + "\n", "line"),
        "n.txt": ("2 0240100340020130\n", "ndigits"),
        "x.cnf": ("c\np cnf 1 1\n1 0\n", "dimacs"),
        "f.txt": ("1 < 2\n2   1\n", "futoshiki_grid"),
    }
    for name, (text, fmt) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        head = [(i, t) for i, t in enumerate(text.splitlines(), 1)]
        assert detect_format(path, head) == fmt, name


# --- snapshots: one read serves detection, shards and parsing ----------------------------------
def test_snapshot_serves_every_read(public_data, tmp_path):
    import gzip
    import hashlib

    from satdoku.sources import file_sha256, read_snapshot

    src = public_data / "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt"
    path = tmp_path / "p.txt"  # gzip content under a plain name: magic bytes decide
    path.write_bytes(gzip.compress(src.read_bytes()))
    snap = read_snapshot(path)
    assert snap.compression == "gzip" and snap.data == src.read_bytes()
    assert snap.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() == file_sha256(path)
    assert snap.num_lines == len(src.read_text().splitlines())
    whole = list(read_records(path, snapshot=snap))
    step = 97
    parts = [r for s in range(1, snap.num_lines + 1, step)
             for r in read_records(path, start_line=s, stop_line=s + step, snapshot=snap)]
    assert [(r.index, r.line, r.puzzle) for r in parts] == [
        (r.index, r.line, r.puzzle) for r in whole] and len(whole) == 375
    path.write_bytes(src.read_bytes())  # the file changed under the run: the checksum tells
    assert file_sha256(path) != snap.sha256


def test_open_text_streams_compressed_files_and_names_errors(tmp_path):
    import lzma

    from satdoku.sources import InputError, open_text

    path = tmp_path / "proof"
    path.write_bytes(lzma.compress("\ufeffa\r\nb\n".encode()))
    with open_text(path) as fh:
        assert list(fh) == ["a\n", "b\n"]
    path.write_bytes(b"ok\n\xff\n")
    with pytest.raises(InputError, match=r"proof: not UTF-8 text"), open_text(path) as fh:
        list(fh)


def test_an_absurd_ndigits_order_is_named_as_the_file_writes_it() -> None:
    """The reason names the file's number, not a capped one (10^18 was shown for 10^23-1)."""
    from satdoku.formats.lines import read_ndigit_lines

    (rec,) = read_ndigit_lines([(1, "99999999999999999999999 0240100340020130")], "f.txt")
    assert rec.error == ("order 99999999999999999999999 needs more digits than any file "
                         "holds, line has 16")


def test_domain_symbols_and_value_table_read_as_parse_board_chars() -> None:
    """The one home of the symbol tables (encode's and normalize's fast paths, the compiled
    solve loop): a character is in domain_symbols(d) exactly when parse_board_chars takes it
    for domain d, and the value table gives the value it reads."""
    from satdoku.formats.symbols import domain_symbols, parse_board_chars, value_table

    for domain in (1, 4, 9, 16, 25, 35):
        symbols = domain_symbols(domain)
        for b in range(256):
            values, _ = parse_board_chars(chr(b), domain)
            assert (chr(b) in symbols) == (values is not None), (domain, b)
            if values is not None:
                assert value_table(255)[b] == value_table()[b] == values[0]
            elif chr(b) not in domain_symbols(35):
                assert value_table(255)[b] == 255 and value_table()[b] == 0
