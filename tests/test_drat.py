"""The DRAT checker accepts real refutations (from both solver modes) and rejects wrong ones;
the compiled checker (backward and forward) and the readable twin agree, text and binary,
on real, random and corrupted proofs; it stops at its budget; without the extension the
reference runs."""

from __future__ import annotations

import gzip
import io
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import php
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import satdoku.cnf.drat as drat
from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.dimacs_fast import clauses_to_array
from satdoku.cnf.drat import OUT_OF_BUDGET, REJECTED, VERIFIED, check_proof
from satdoku.cnf.formula import Cnf
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.dpll import Dpll

# every sign combination of (x1, x2) forbidden; CUBE: the same for (x1, x2, x3)
SQUARE = Cnf(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]])
CUBE = Cnf(3, [[a * 1, b * 2, c * 3] for a in (1, -1) for b in (1, -1) for c in (1, -1)])

needs_c = pytest.mark.skipif(not drat.has_c_checker(), reason="compiled checker not built")
#: (engine, mode) of every checker; the compiled ones only when built
ENGINES = [("python", "backward"),
           pytest.param("c", "forward", marks=needs_c),
           pytest.param("c", "backward", marks=needs_c)]  # fmt: skip
FORWARD = ENGINES[:2]  # the checkers that check every lemma


@pytest.mark.parametrize("engine, mode", ENGINES)
def test_small_refutations(engine: str, mode: str) -> None:
    def ok(cnf: Cnf, proof: list[str]) -> bool:
        return check_proof(cnf, proof, engine=engine, mode=mode).ok

    assert ok(SQUARE, ["2 0", "0"])
    assert ok(SQUARE, ["c a comment", "", "2 0", "-2 0"])  # no explicit empty clause
    assert ok(Cnf(1, [[1], [-1]]), [])  # already refuted by unit propagation
    assert ok(CUBE, ["1 2 0", "1 0", "2 0", "0"])
    assert not ok(CUBE, ["1 2 0", "1 0", "0"])
    check = check_proof(CUBE, ["1 2 0", "1 -2 0"], engine=engine, mode=mode)
    assert not check.ok and "does not derive the empty clause" in check.message
    assert ok(SQUARE, ["2 0", "d 1 2 0", "d -1 2 0", "0"])
    assert not ok(SQUARE, ["d 1 2 0", "2 0", "0"])  # a deleted clause is not used


@pytest.mark.parametrize("engine, mode", FORWARD)
def test_the_lemma_at_fault_is_named(engine: str, mode: str) -> None:
    sat = Cnf(3, [[1, 2], [-1, 3]])
    check = check_proof(sat, ["0"], engine=engine, mode=mode)
    assert not check.ok and "step 1" in check.message and "neither RUP nor RAT" in check.message
    check = check_proof(sat, ["-3 0"], engine=engine, mode=mode)
    assert not check.ok and "neither RUP nor RAT" in check.message
    check = check_proof(SQUARE, ["d 1 2 0", "2 0", "0"], engine=engine, mode=mode)
    assert not check.ok and "step 2" in check.message


@pytest.mark.parametrize("engine, mode", ENGINES)
def test_rat_lemmas_on_their_first_literal(engine: str, mode: str) -> None:
    # x4 is new: "4 1" is RAT on 4 (no clause holds -4), then -4 1 is RAT on -4 (its resolvent
    # with "4 1" is the tautology-free "1 1" -> RUP?), and the rest refutes by RUP
    cnf = Cnf(2, [[1, 2], [1, -2], [-1, 2], [-1, -2]])
    assert check_proof(cnf, ["4 1 0", "-4 1 0", "1 0", "0"], engine=engine, mode=mode).ok
    # blocked on its first literal only: "-1 4" is not RAT on -1 (resolvents with "1 2" ...)
    tiny = Cnf(3, [[1, 2], [1, -2, 3], [-3, -1], [-3, 1]])
    check = check_proof(tiny, ["-1 5 0", "3 0", "0"], engine=engine, mode=mode)
    if mode == "forward" or engine == "python":
        assert not check.ok


@pytest.mark.parametrize(
    "line, reason",
    [("1 x 0", "line 2: unexpected 'x'"), ("1 2", "ends inside a step"),
     ("1 c 0", "line 2: unexpected 'c'"), ("1 d 2 0", "line 2: unexpected 'd'"),
     ("999999999 0", "line 2: literal 999999999 out of range"),
     ("- 1 0", "line 2: unexpected '-'"), ("70 0", "past the formula's 3")],
)  # fmt: skip
@pytest.mark.parametrize("engine, mode", ENGINES)
def test_malformed_proof_lines(line: str, reason: str, engine: str, mode: str) -> None:
    check = check_proof(CUBE, ["1 2 0", line], engine=engine, mode=mode)
    assert check.status == REJECTED and reason in check.message


@pytest.mark.parametrize("engine, mode", ENGINES)
def test_binary_proofs(engine: str, mode: str, tmp_path: Path) -> None:
    lines = ["1 2 0", "d 1 2 3 0", "1 0", "2 0", "0"]
    data = drat.to_binary(lines)
    assert data.startswith(b"a\x02\x04\x00d")
    assert check_proof(CUBE, data, engine=engine, mode=mode).ok
    (tmp_path / "p.bin").write_bytes(data)
    assert check_proof(CUBE, tmp_path / "p.bin", engine=engine, mode=mode).ok
    for bad, reason in [(data[:-3], "truncated"), (b"x" + data, "not 'a' or 'd'"),
                        (b"a\xff\xff\xff\xff\x7f\x00", "out of range"), (b"a\x01\x00", "range")]:
        check = check_proof(CUBE, bad, engine=engine, mode=mode)
        assert check.status == REJECTED and reason in check.message, check.message
    big = drat.to_binary(["300 0"])  # a literal over several bytes: 600 = 0xd8 0x04
    assert big == b"a\xd8\x04\x00"


def _dpll_proof(cnf: Cnf, heuristic: str = "vsids") -> list[str]:
    buf = io.StringIO()
    status, _ = Dpll(cnf.num_vars, cnf.clauses, heuristic, proof=buf).solve()
    assert status == "UNSAT"
    return buf.getvalue().splitlines()


def _cdcl_proof(cnf: Cnf) -> list[str] | None:
    solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses), proof=True)
    status, _ = solver.solve()
    return [ln.rstrip("\n") for ln in solver.proof_lines()] if status == "UNSAT" else None


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
        assert check_proof(cnf, drat.to_binary(lines)).ok
        assert not check_proof(cnf, lines[: len(lines) // 2]).ok  # half a proof refutes nothing
    # a proof on disk, gzipped
    cnf = read_dimacs(files[0])
    proof = tmp_path / "p.drup.gz"
    proof.write_bytes(gzip.compress("\n".join(_dpll_proof(cnf)).encode() + b"\n"))
    assert check_proof(cnf, proof).ok
    assert check_proof(cnf, str(proof)).ok
    proof.write_bytes(gzip.compress(b"1 2 0\n")[:-6])
    assert check_proof(cnf, proof).status == REJECTED


def test_a_proof_for_another_formula_is_rejected(public_data: Path) -> None:
    a = read_dimacs(public_data / "satlib" / "uuf50-218" / "uuf50-01.cnf")
    sat = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-01.cnf")
    assert not check_proof(sat, _dpll_proof(a)).ok


@needs_c
def test_the_backward_checker_checks_only_the_core() -> None:
    cnf = php(5, 4)
    lines = _cdcl_proof(cnf)
    assert lines is not None
    back = check_proof(cnf, lines, engine="c")
    fwd = check_proof(cnf, lines, engine="c", mode="forward")
    assert back.ok and fwd.ok and back.engine == "c"
    assert 0 < back.checked <= fwd.checked == fwd.lemmas
    # a lemma nothing needs may be wrong ("-3" is neither RUP nor RAT): backward accepts, as
    # drat-trim does; forward and the reference reject
    square = Cnf(4, [*SQUARE.clauses, [3, 4]])
    proof = ["-3 0", "2 0", "0"]
    back = check_proof(square, proof, engine="c")
    assert back.ok and back.checked == 1 < back.lemmas == 2
    assert not check_proof(square, proof, engine="c", mode="forward").ok
    assert not check_proof(square, proof, engine="python").ok


@pytest.mark.parametrize("engine", ["python", pytest.param("c", marks=needs_c)])
def test_the_budget_stops_the_check(engine: str) -> None:
    cnf = php(7, 6)
    lines = _dpll_proof(cnf)
    check = check_proof(cnf, lines, time_limit=1e-9, engine=engine)
    assert check.status == OUT_OF_BUDGET and "ran out of its" in check.message
    assert check_proof(cnf, lines, time_limit=60, engine=engine).status == VERIFIED
    long = ("1 0\n" * 300_000).encode()  # reading a long proof is bounded too
    assert check_proof(cnf, long, time_limit=1e-3, engine=engine).status == OUT_OF_BUDGET


def test_without_the_extension_the_reference_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drat, "has_c_checker", lambda: False)
    check = check_proof(SQUARE, ["2 0", "0"])
    assert check.ok and check.engine == "python"
    with pytest.raises(ValueError, match="engine"):
        check_proof(SQUARE, [], engine="fortran")


# --- the engines agree: random formulas, their real proofs and corruptions of them -----------

formulas = st.integers(2, 6).flatmap(
    lambda n: st.lists(
        st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1,
                 max_size=3),
        min_size=4, max_size=40,
    ).map(lambda clauses: Cnf(n, clauses))
)
steps = st.lists(st.tuples(st.booleans(), st.lists(st.integers(-7, 7).filter(bool), max_size=3)),
                 max_size=12)


def _corrupt(lines: list[str], how: str, k: int) -> list[str]:
    """A proof with one change: a lemma dropped, a literal flipped, a deletion added, the text
    cut anywhere, or a lemma moved."""
    if not lines:
        return lines
    i = k % len(lines)
    if how == "drop":
        return lines[:i] + lines[i + 1:]
    if how == "flip":
        tokens = lines[i].split()
        j = next((t for t in range(len(tokens)) if tokens[t] not in ("d", "0")), None)
        if j is not None:
            tokens[j] = str(-int(tokens[j]))
        return [*lines[:i], " ".join(tokens), *lines[i + 1:]]
    if how == "delete":
        return [*lines[:i], "d " + lines[i].removeprefix("d "), *lines[i:]]
    if how == "cut":
        text = "\n".join(lines)
        return [text[: k % (len(text) + 1)]]
    return [*lines[:i], *lines[i + 1:], lines[i]]  # "move" to the end


def _agree(cnf: Cnf, lines: list[str]) -> str:
    """The verdicts agree: reference == compiled forward (text and binary alike); reference
    accepts -> backward accepts; backward rejects -> reference rejects."""
    ref = check_proof(cnf, lines, engine="python").status
    fwd = check_proof(cnf, lines, engine="c", mode="forward").status
    back = check_proof(cnf, lines, engine="c").status
    assert ref == fwd, (cnf.clauses, lines)
    if ref == VERIFIED:
        assert back == VERIFIED, (cnf.clauses, lines)
    if "\n" not in "".join(lines):  # every step on its line: the binary twin exists
        data = drat.to_binary(lines)
        assert check_proof(cnf, data, engine="python").status == ref
        assert check_proof(cnf, data, engine="c", mode="forward").status == ref
        assert check_proof(cnf, data, engine="c").status == back
    return ref


@needs_c
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, st.sampled_from(["none", "drop", "flip", "delete", "cut", "move"]),
       st.integers(0, 10_000), st.booleans())
def test_engines_agree_on_real_and_corrupted_proofs(cnf: Cnf, how: str, k: int,
                                                    dpll: bool) -> None:
    sat = _sat(cnf)
    proof = ["1 0", "0"] if sat else _dpll_proof(cnf) if dpll else _cdcl_proof(cnf)
    assert proof is not None
    lines = [ln for ln in proof if ln.strip()]
    if how != "none":
        lines = _corrupt(lines, how, k)
    verdict = _agree(cnf, lines)
    if sat:
        assert verdict == REJECTED  # nothing refutes a satisfiable formula
    elif how == "none":
        assert verdict == VERIFIED


@needs_c
@settings(max_examples=150, deadline=None)
@given(formulas, steps)
def test_engines_agree_on_random_proofs(cnf: Cnf, proof: list[tuple[bool, list[int]]]) -> None:
    lines = [("d " if d else "") + " ".join(map(str, [*lits, 0])) for d, lits in proof]
    _agree(cnf, lines)


def _sat(cnf: Cnf) -> bool:
    status, _ = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses)).solve()
    return status == "SAT"


@pytest.mark.parametrize("engine", ["python", pytest.param("c", marks=needs_c)])
def test_a_formula_of_shared_rules_checks_as_its_whole(engine: str) -> None:
    from satdoku.cnf.formula import Formula

    rules = Cnf(3, [[1, 2, 3], [-1, 2], [1, -2]])
    for own, proof, ok in ([[[-3], [-2]], ["0"], True], [[[3]], ["0"], False]):
        f = Formula(3, own, rules)
        assert check_proof(f, proof, engine=engine).ok == ok
        assert check_proof(f.whole(), proof, engine=engine).ok == ok
    assert drat.flat_literals(Formula(3, [[3]], rules)).endswith(bytes([3, 0, 0, 0, 0, 0, 0, 0]))


@pytest.mark.skipif(shutil.which("cadical") is None, reason="cadical not installed")
def test_cadical_binary_proofs_check(tmp_path: Path) -> None:
    """CaDiCaL's own (binary) DRAT proofs check with every engine; a corrupted one does not."""
    from satdoku.cnf.dimacs import write_dimacs

    cnf = php(6, 5)
    path, proof = tmp_path / "php.cnf", tmp_path / "php.drat"
    with open(path, "w", encoding="utf-8") as fh:
        write_dimacs(cnf, fh)
    run = subprocess.run(["cadical", "-q", str(path), str(proof)], capture_output=True, timeout=60)
    assert run.returncode == 20
    data = proof.read_bytes()
    assert drat.is_binary(data)
    for engine, mode in (("c", "backward"), ("c", "forward"), ("python", "backward")):
        if engine == "c" and not drat.has_c_checker():
            continue
        assert check_proof(cnf, proof, engine=engine, mode=mode).ok
        assert not check_proof(cnf, data[: len(data) // 2], engine=engine, mode=mode).ok
