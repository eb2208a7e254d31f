"""The DRAT checker accepts real refutations (from both solver modes) and rejects wrong ones."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.drat import REJECTED, check_proof
from satdoku.cnf.formula import Cnf
from satdoku.solvers.dpll import Dpll

# every sign combination of (x1, x2) forbidden; CUBE: the same for (x1, x2, x3)
SQUARE = Cnf(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]])
CUBE = Cnf(3, [[a * 1, b * 2, c * 3] for a in (1, -1) for b in (1, -1) for c in (1, -1)])


def test_small_refutations() -> None:
    assert check_proof(SQUARE, ["2 0", "0"]).ok
    assert check_proof(SQUARE, ["c a comment", "", "2 0", "-2 0"]).ok  # no explicit empty clause
    assert check_proof(Cnf(1, [[1], [-1]]), []).ok  # already refuted by unit propagation


def test_rejects_non_rup_lemmas_and_incomplete_proofs() -> None:
    sat = Cnf(3, [[1, 2], [-1, 3]])
    check = check_proof(sat, ["0"])
    assert not check.ok and "step 1" in check.message and "neither RUP nor RAT" in check.message
    check = check_proof(sat, ["-3 0"])
    assert not check.ok and "neither RUP nor RAT" in check.message
    assert check_proof(CUBE, ["1 2 0", "1 0", "2 0", "0"]).ok
    assert not check_proof(CUBE, ["1 2 0", "1 0", "0"]).ok
    check = check_proof(CUBE, ["1 2 0", "1 -2 0"])
    assert not check.ok and "does not derive the empty clause" in check.message


def test_deleted_clauses_are_not_used() -> None:
    check = check_proof(SQUARE, ["d 1 2 0", "2 0", "0"])
    assert not check.ok and "step 2" in check.message
    assert check_proof(SQUARE, ["2 0", "d 1 2 0", "d -1 2 0", "0"]).ok


@pytest.mark.parametrize(
    "line, reason",
    [("1 x 0", "line 2: unexpected 'x'"), ("1 2", "ends inside a step"),
     ("1 c 0", "line 2: unexpected 'c'"), ("1 d 2 0", "line 2: unexpected 'd'"),
     ("999999999 0", "line 2: literal 999999999 out of range")],
)  # fmt: skip
def test_malformed_proof_lines(line: str, reason: str) -> None:
    check = check_proof(CUBE, ["1 2 0", line])
    assert check.status == REJECTED and reason in check.message


def _dpll_proof(cnf: Cnf, heuristic: str = "vsids") -> list[str]:
    buf = io.StringIO()
    status, _ = Dpll(cnf.num_vars, cnf.clauses, heuristic, proof=buf).solve()
    assert status == "UNSAT"
    return buf.getvalue().splitlines()


def test_dpll_proofs_of_uuf50_check_and_tampering_is_caught(
    public_data: Path, tmp_path: Path
) -> None:
    files = sorted((public_data / "satlib" / "uuf50-218").glob("*.cnf"))
    assert len(files) == 12
    for path in files:
        cnf = read_dimacs(path)
        lines = _dpll_proof(cnf)
        check = check_proof(cnf, lines)
        assert check.ok, (path.name, check.message)
        assert not check_proof(cnf, lines[: len(lines) // 2]).ok  # half a proof refutes nothing
    # a proof on disk, gzipped
    cnf = read_dimacs(files[0])
    proof = tmp_path / "p.drup.gz"
    proof.write_bytes(gzip.compress("\n".join(_dpll_proof(cnf)).encode() + b"\n"))
    assert check_proof(cnf, proof).ok
    assert check_proof(cnf, str(proof)).ok


def test_a_proof_for_another_formula_is_rejected(public_data: Path) -> None:
    a = read_dimacs(public_data / "satlib" / "uuf50-218" / "uuf50-01.cnf")
    sat = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-01.cnf")
    assert not check_proof(sat, _dpll_proof(a)).ok
