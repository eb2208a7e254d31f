import pytest
from pysat.solvers import Solver

from satdoku.cnf.decode import DecodeError, decode_model
from satdoku.cnf.dimacs import format_dimacs, parse_dimacs
from satdoku.cnf.encode import ENCODINGS, encode, var
from satdoku.formats import read_records
from satdoku.pipeline.stage_encode import encode_shard
from satdoku.pipeline.stage_normalize import normalize
from satdoku.puzzle import sudoku
from satdoku.stagefiles.bundles import read_bundle, standalone

ROOT_TINY = __import__("pathlib").Path(__file__).parent / "data" / "tiny" / "mixed9.txt"

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _solve(cnf):
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
        return s.get_model() if s.solve() else None


def test_variable_numbering_is_documented_formula():
    assert var(0, 1, 9) == 1
    assert var(80, 9, 9) == 729
    r, c, d, n = 3, 7, 5, 9
    assert var(r * n + c, d, n) == (r * n + c) * n + d


def test_extended_clause_counts_9x9():
    p = sudoku([0] * 81)
    cnf = encode(p, "extended")
    # cells: 81 ALO + 81*36 AMO; units: 27*9 ALO + 27*9*36 AMO
    assert cnf.num_vars == 729
    assert cnf.num_clauses == 81 + 81 * 36 + 27 * 9 + 27 * 9 * 36
    assert encode(p, "minimal").num_clauses == 81 + 27 * 9 * 36
    assert encode(p, "efficient").num_clauses == 81 + 81 * 36 + 27 * 9 * 36


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_every_encoding_decodes_to_the_same_board(encoding):
    p = next(read_records_from_text(HARD)).puzzle
    model = _solve(encode(p, encoding))
    board = decode_model(model, p, encoding)
    assert p.check_solution(board) == []
    assert board == decode_model(_solve(encode(p, "extended")), p)  # unique puzzle


def _decode_minimal(model, p):
    # minimal has no cell-AMO: a cell may have extra true values; take the lowest one
    first = {}
    for lit in model:
        if 0 < lit <= p.ncells * p.domain:
            cell, d = divmod(lit - 1, p.domain)
            first.setdefault(cell, d + 1)
    return tuple(first[c] for c in range(p.ncells))


def read_records_from_text(text, tmp=None):
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    (d / "x.txt").write_text(text + "\n")
    return read_records(d / "x.txt")


def test_decode_rejects_bad_models():
    p = sudoku([0] * 16)
    with pytest.raises(DecodeError, match="two values"):
        decode_model([1, 2], p)
    with pytest.raises(DecodeError, match="no value"):
        decode_model([1], p)


def test_unsat_duplicate_given():
    p = sudoku([1, 1] + [0] * 14)
    assert _solve(encode(p)) is None


def test_dimacs_roundtrip():
    cnf = encode(sudoku([1] + [0] * 15))
    back = parse_dimacs(format_dimacs(cnf).splitlines())
    assert back.clauses == cnf.clauses and back.num_vars == cnf.num_vars


def test_bundle_roundtrip_and_standalone(tmp_path):
    src = tmp_path / "s.txt"
    src.write_text(HARD + "\nbad\n" + "2 0240100340020130\n".replace("2 ", "") + "\n")
    inst = tmp_path / "i.jsonl"
    normalize(src, inst, 0, 1000)
    bundle = tmp_path / "b.cnfs"
    assert encode_shard(inst, bundle, "s", "extended") == 3
    entries = list(read_bundle(bundle))
    assert [e.id for e in entries] == ["1", "2", "3"]
    assert entries[1].cnf is None and "cells" in entries[1].invalid
    recs = list(read_records(src))
    for e, r in zip(entries, recs, strict=True):
        if r.puzzle is not None:
            assert e.cnf.clauses == encode(r.puzzle).clauses
            assert e.header["size"] == str(r.puzzle.size)
    # the rules block is written once per layout, not per instance
    assert bundle.read_text().count("c rules ") == 2
    alone = standalone(bundle, "1")
    assert alone.num_clauses == len(entries[0].cnf.clauses)
    with pytest.raises(KeyError, match="invalid"):
        standalone(bundle, "2")


_MIXED = ("data/sudoku/malformed.txt", "data/sudoku/sudokusolver_4x4.txt",
          "data/sudoku/vu_16x16_10.txt", "data/futoshiki/futoshiki.dat",
          "data/latin/qwh_sample.txt", "tests/data/tiny/mixed9.txt",
          "data/public/kaggle_style_sample/sudoku_puzzle_solution_sample.csv")


@pytest.mark.parametrize("encoding", ["extended", "minimal", "simplified", "extended_seq"])
@pytest.mark.parametrize("src", _MIXED)
def test_encode_from_objects_writes_what_the_records_write(tmp_path, src, encoding):
    """The encoder's path for plain puzzles (their Instances objects, one record per layout)
    writes the bundle the record-by-record path writes: valid and invalid lines, several
    layouts, inequalities, given solutions."""
    from conftest import ROOT

    inst = tmp_path / "i.jsonl"
    normalize(ROOT / src, inst, 0, 60)
    encode_shard(inst, tmp_path / "fast.cnfs", "s", encoding)
    encode_shard(inst, tmp_path / "ref.cnfs", "s", encoding, fast=False)
    assert (tmp_path / "fast.cnfs").read_text() == (tmp_path / "ref.cnfs").read_text()


def test_encode_refuses_a_bad_object_either_way(tmp_path):
    """An Instances object the reader refuses (a given solution of the wrong size) is the same
    error on both paths, after the first puzzle of its layout."""
    from satdoku.stagefiles.instances import StageFileError

    inst = tmp_path / "i.jsonl"
    normalize(ROOT_TINY, inst, 0, 60)
    lines = inst.read_text().splitlines()
    lines[3] = lines[3][:-1] + ',"solution":"123"}'
    inst.write_text("\n".join(lines) + "\n")
    errors = []
    for fast in (True, False):
        with pytest.raises(StageFileError) as exc:
            encode_shard(inst, tmp_path / "b.cnfs", "s", "extended", fast=fast)
        errors.append(str(exc.value))
    assert errors[0] == errors[1] and "instance 3" in errors[0]


@pytest.mark.parametrize("swap", [(".", "0"), (".", "-"), (".", "\u00e9"), ("1", "a"), ("1", "")])
def test_encode_from_objects_reads_a_hand_edited_board_as_the_records_do(tmp_path, swap):
    """Givens edited by hand in an Instances object (other empty symbols, a character that
    is no symbol, a value above the domain, a cell too few): the path from objects writes or
    refuses exactly as the record-by-record path."""
    from satdoku.stagefiles.instances import StageFileError

    inst = tmp_path / "i.jsonl"
    normalize(ROOT_TINY, inst, 0, 60)
    lines = inst.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(swap[0], swap[1], 3) if '"givens"' in lines[3] else lines[3]
    inst.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = []
    for fast in (True, False):
        try:
            encode_shard(inst, tmp_path / f"{fast}.cnfs", "s", "extended", fast=fast)
            out.append((tmp_path / f"{fast}.cnfs").read_text())
        except StageFileError as exc:
            out.append(str(exc))
    assert out[0] == out[1]
