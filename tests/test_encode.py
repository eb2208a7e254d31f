import pytest
from pysat.solvers import Solver

from satdoku.cnf.decode import DecodeError, decode_model
from satdoku.cnf.dimacs import format_dimacs, parse_dimacs
from satdoku.cnf.encode import ENCODINGS, encode, var
from satdoku.formats import read_records
from satdoku.pipeline.encode import encode_shard
from satdoku.pipeline.instances import normalize
from satdoku.puzzle import sudoku
from satdoku.stagefiles.bundles import read_bundle, standalone

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
