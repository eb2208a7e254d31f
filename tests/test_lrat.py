"""LRAT: our solvers' proofs (DPLL, both CDCL kernels) check, and both checkers (compiled and
the readable twin) give one verdict and one message on real, corrupted, cut and random
proofs, text and binary; the check stops at its budget; lrat-check, when it is there, agrees."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest
from conftest import php, random_3sat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import satdoku.cnf.lrat as lrat
from satdoku.cnf.dimacs import read_dimacs, write_dimacs
from satdoku.cnf.drat import OUT_OF_BUDGET, REJECTED, VERIFIED
from satdoku.cnf.formula import Cnf, Formula
from satdoku.cnf.lrat import check_lrat
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.dpll import Dpll

SQUARE = Cnf(2, [[1, 2], [-1, 2], [1, -2], [-1, -2]])
needs_c = pytest.mark.skipif(not lrat.has_c_checker(), reason="compiled checker not built")
ENGINES = ["python", pytest.param("c", marks=needs_c)]
#: lrat-check of drat-trim's repository, when a benchmark machine has it (tests never need it)
LRAT_CHECK = os.environ.get("LRAT_CHECK", "/work/ref/drat-trim/lrat-check")
DRAT_TRIM = os.environ.get("DRAT_TRIM", "/work/ref/drat-trim/drat-trim")


def both(cnf: Cnf, proof: list[str] | bytes) -> tuple[str, str]:
    """The verdict and message of the reference; the compiled checker must say the same."""
    ref = check_lrat(cnf, proof, engine="python")
    if lrat.has_c_checker():
        fast = check_lrat(cnf, proof, engine="c")
        assert (fast.status, fast.message) == (ref.status, ref.message), proof
        assert fast.lemmas == ref.lemmas
    return ref.status, ref.message


def test_small_proofs() -> None:
    # SQUARE: 1: 1 2, 2: -1 2, 3: 1 -2, 4: -1 -2
    assert both(SQUARE, ["5 2 0 1 2 0", "6 0 5 3 4 0"])[0] == VERIFIED
    assert both(SQUARE, ["c comment", "5 2 0 1 2 0", "5 d 1 2 0", "6 -2 0 3 4 0",
                         "7 0 5 6 0"])[0] == VERIFIED  # fmt: skip
    assert both(SQUARE, ["5 0 1 2 3 4 0"])[0] == REJECTED  # 2 is not unit: 1 and 2 free
    cases = [
        (["5 2 0 1 0"], "proof step 1 (clause 5): its hints end without a conflict"),
        (["5 2 0 1 3 0"], "hint 3 is not unit (two literals not false)"),
        (["5 2 0 1 9 0"], "hint 9 is not a live clause"),
        (["5 d 1 0", "6 2 0 1 2 0"], "proof step 2 (clause 6): hint 1 is not a live clause"),
        (["5 2 0 -1 0"], "RAT hints (negative ids) are not supported"),
        (["4 2 0 1 2 0"], "its id is not above the last, 4"),
        (["5 2 0 1 2 0", "5 0 5 3 4 0"], "proof step 2 (clause 5): its id is not above"),
        ([f"{5 + (1 << 24)} 2 0 1 2 0"], "its id jumps more than 16777216 past 4"),
        (["5 3 0 1 0"], "literal 3 is not a variable of the formula (1..2)"),
        (["5 2 0 1 2 0"], "proof does not derive the empty clause (1 lemmas checked)"),
        ([], "proof does not derive the empty clause (0 lemmas checked)"),
    ]
    for proof, message in cases:
        status, said = both(SQUARE, proof)
        assert status == REJECTED and message in said, (proof, said)
    # a clause with a literal and its negation needs no hint; repeated literals count once
    assert both(SQUARE, ["5 1 -1 0 0", "6 2 2 0 1 2 0", "7 0 6 3 4 0"])[0] == VERIFIED
    # a hint already satisfied by an earlier one's unit is accepted, as lrat-check does
    assert both(SQUARE, ["5 2 0 1 1 2 0", "6 0 5 3 4 0"])[0] == VERIFIED
    # deleting what is not live is ignored; the check ends at the empty clause
    assert both(SQUARE, ["5 d 9 0", "5 2 0 1 2 0", "6 0 5 3 4 0", "garbage"])[0] == VERIFIED
    status, message = both(SQUARE, ["4 d 2 -1 0", "5 2 0 1 2 0", "6 0 5 3 4 0"])
    assert status == REJECTED and message == "proof step 1: deletes -1, not a clause id"
    assert both(Cnf(1, [[1], [-1]]), ["3 0 1 2 0"])[0] == VERIFIED
    assert both(Cnf(1, [[1], []]), ["3 0 2 0"])[0] == VERIFIED


@pytest.mark.parametrize(
    "text, reason",
    [("5 x 0", "line 1: unexpected 'x'"), ("5 2 0 1 2", "ends inside a step"),
     ("5 2 c 0", "line 1: unexpected 'c'"), ("5 2 d 0", "line 1: unexpected 'd'"),
     ("5 d 1 d 0", "line 1: unexpected 'd'"), ("- 1 0", "line 1: unexpected '-'"),
     ("5 2 0\n1 2 99999999999 0", "line 2: number 99999999999 out of range"),
     ("5 2 0 1 \xe9 0", "unexpected byte 0xc3")],
)  # fmt: skip
def test_malformed_text(text: str, reason: str) -> None:
    status, message = both(SQUARE, text.encode())
    assert status == REJECTED and reason in message, message


def test_binary_proofs(tmp_path: Path) -> None:
    lines = ["5 2 0 1 2 0", "5 d 1 2 0", "6 -2 0 3 4 0", "7 0 5 6 0"]
    data = lrat.to_binary(lines)
    assert data.startswith(b"a\x0a\x04\x00\x02\x04\x00d\x02\x04\x00") and lrat.is_binary(data)
    assert both(SQUARE, data)[0] == VERIFIED
    (tmp_path / "p.lrat").write_bytes(data)
    assert check_lrat(SQUARE, tmp_path / "p.lrat").ok
    for bad, reason in [(data[:-3], "truncated"), (b"x" + data, "not 'a' or 'd'"),
                        (b"a\xff\xff\xff\xff\x7f\x00", "out of range"),
                        (b"a\x0a\xff\xff\xff\xff\x1f\x00", "out of range")]:
        status, message = both(SQUARE, bad)
        assert status == REJECTED and reason in message, message
    assert lrat.to_binary(["300 0 0"]) == b"a\xd8\x04\x00\x00"  # 600 = 0xd8 0x04


def _dpll_lrat(cnf: Cnf) -> list[str] | None:
    buf = io.StringIO()
    status, _ = Dpll(cnf.num_vars, cnf.clauses, proof=buf, proof_format="lrat").solve()
    return buf.getvalue().splitlines() if status == "UNSAT" else None


def _cdcl_lrat(cnf: Cnf, backend: str = "c", **options: object) -> list[str] | None:
    solver = Cdcl(cnf.num_vars, cnf.clauses, proof="lrat", backend=backend, **options)  # type: ignore[arg-type]
    status, _ = solver.solve()
    return [ln.rstrip("\n") for ln in solver.proof_lines()] if status == "UNSAT" else None


def test_dpll_proofs_of_uuf50(public_data: Path) -> None:
    files = sorted((public_data / "satlib" / "uuf50-218").glob("*.cnf"))
    for path in files:
        cnf = read_dimacs(path)
        lines = _dpll_lrat(cnf)
        assert lines is not None
        assert both(cnf, lines)[0] == VERIFIED
        assert both(cnf, lrat.to_binary(lines))[0] == VERIFIED
        assert both(cnf, lines[: len(lines) // 2])[0] == REJECTED
    sat = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-01.cnf")
    assert both(sat, _dpll_lrat(read_dimacs(files[0])) or [])[0] == REJECTED


def test_dpll_refutations_without_search() -> None:
    for cnf in (Cnf(2, [[1], [-1, 2], [-2]]), Cnf(2, [[1, 2], []]), Cnf(2, [[1], [2], [-1]]),
                Cnf(3, [[1, 2, 3], [1], [-1, 2], [-2, 3], [-3, -1]])):
        lines = _dpll_lrat(cnf)
        assert lines is not None and both(cnf, lines)[0] == VERIFIED, lines


@pytest.mark.parametrize("backend", ["c", "python"])
def test_cdcl_proofs_with_reductions_units_and_collections(backend: str) -> None:
    """Thousands of conflicts, clause-database reductions (deletions by id), garbage
    collections (ids move with their clauses) and level-0 units derived from their reasons."""
    cnf = Cnf(120, random_3sat(120, 3, 4.6))
    solver = Cdcl(cnf.num_vars, cnf.clauses, proof="lrat", backend=backend, reduce_first=100,
                  reduce_inc=20)  # fmt: skip
    assert solver.solve()[0] == "UNSAT"
    stats = solver.stats
    lines = solver.proof_lines()
    assert stats["reductions"] >= 3 and stats["collections"] >= 1
    assert any(" d " in ln for ln in lines)
    status, message = both(cnf, lines)
    assert status == VERIFIED, message
    units = [ln for ln in lines if len(ln.split(" 0 ")[0].split()) == 2]
    assert units  # unit clauses: learnt, or derived for a level-0 literal


def test_both_kernels_write_the_same_lrat() -> None:
    for cnf in (php(6, 5), Cnf(90, random_3sat(90, 2, 4.5)), Cnf(3, [[1], [-1, 2], [-2, 3],
                                                                  [-3, -1, 2], [-2, -3]])):
        runs = [_cdcl_lrat(cnf, backend, reduce_first=30, reduce_inc=10)
                for backend in ("c", "python")]
        assert runs[0] is not None and runs[0] == runs[1]
        assert both(cnf, runs[0])[0] == VERIFIED


def test_sudoku_without_solution(public_data: Path) -> None:
    """Givens are unit clauses: their level-0 consequences enter the hints as units. A
    wrong extra given that breaks no rule directly needs search."""
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    puzzle = next(iter(read_records(public_data / "norvig" / "top95.txt"))).puzzle
    assert puzzle is not None
    cnf = encode(puzzle, "extended")
    solution = decode_model(Cdcl(cnf.num_vars, cnf.clauses).solve()[1], puzzle)  # type: ignore[arg-type]
    cell = puzzle.givens.index(0)
    wrong = next(d for d in puzzle.candidates()[cell] if d != solution[cell])
    cnf = cnf.extended([[cell * puzzle.domain + wrong]])
    for lines in (_dpll_lrat(cnf), _cdcl_lrat(cnf), _cdcl_lrat(cnf, "python")):
        assert lines is not None and both(cnf, lines)[0] == VERIFIED


@pytest.mark.parametrize("engine", ENGINES)
def test_the_budget_stops_the_check(engine: str) -> None:
    cnf = php(7, 6)
    lines = _cdcl_lrat(cnf)
    assert lines is not None
    check = check_lrat(cnf, lines, time_limit=1e-9, engine=engine)
    assert check.status == OUT_OF_BUDGET and "ran out of its" in check.message
    assert check_lrat(cnf, lines, time_limit=60, engine=engine).ok


def test_without_the_extension_the_reference_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lrat, "has_c_checker", lambda: False)
    check = check_lrat(SQUARE, ["5 2 0 1 2 0", "6 0 5 3 4 0"])
    assert check.ok and check.engine == "python"
    with pytest.raises(ValueError, match="engine"):
        check_lrat(SQUARE, [], engine="fortran")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_formula_of_shared_rules_checks_as_its_whole(engine: str) -> None:
    rules = Cnf(3, [[1, 2, 3], [-1, 2], [1, -2]])
    f = Formula(3, [[-3], [-2]], rules)  # ids 4: -3, 5: -2
    proof = ["6 -1 0 2 5 0", "7 0 6 5 1 4 0"]
    assert check_lrat(f, proof, engine=engine).ok
    assert check_lrat(f.whole(), proof, engine=engine).ok


# --- the engines agree: random formulas, their real proofs and corruptions of them -----------

formulas = st.integers(2, 6).flatmap(
    lambda n: st.lists(
        st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1,
                 max_size=3),
        min_size=4, max_size=40,
    ).map(lambda clauses: Cnf(n, clauses))
)


def _corrupt(lines: list[str], how: str, k: int) -> list[str]:
    """One change: a step dropped, a literal or a hint changed, a hint dropped, two hints
    swapped, an early deletion of a clause a later step uses, or the text cut anywhere."""
    if not lines:
        return lines
    i = k % len(lines)
    tokens = lines[i].split()
    if how == "drop":
        return lines[:i] + lines[i + 1:]
    if how == "cut":
        text = "\n".join(lines)
        return [text[: k % (len(text) + 1)]]
    if how == "delete":
        used = [t for ln in lines[i:] for t in ln.split()[1:] if t not in ("0", "d")]
        return [*lines[:i], f"{tokens[0]} d {used[k % len(used)] if used else 1} 0", *lines[i:]]
    if tokens[1:2] == ["d"]:
        return lines
    zero = tokens.index("0", 1)
    lits, hints = tokens[1:zero], tokens[zero + 1: -1]
    if how == "literal" and lits:
        j = k % len(lits)
        lits[j] = str(-int(lits[j]))
    elif how == "hint" and hints:
        j = k % len(hints)
        hints[j] = str(int(hints[j]) + (1 if k % 2 else -1))
    elif how == "drop-hint" and hints:
        del hints[k % len(hints)]
    elif how == "swap" and len(hints) > 1:
        j = k % (len(hints) - 1)
        hints[j], hints[j + 1] = hints[j + 1], hints[j]
    return [*lines[:i], " ".join([tokens[0], *lits, "0", *hints, "0"]), *lines[i + 1:]]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, st.sampled_from(["none", "drop", "cut", "delete", "literal", "hint",
                                  "drop-hint", "swap"]),
       st.integers(0, 10_000), st.sampled_from(["dpll", "c", "python", "c-simp", "python-simp"]))
def test_engines_agree_on_real_and_corrupted_proofs(cnf: Cnf, how: str, k: int,
                                                    solver: str) -> None:
    """(``-simp``: the CDCL kernel preprocesses before its search, its steps in the proof.)"""
    if solver == "dpll":
        proof = _dpll_lrat(cnf)
    else:
        backend, _, simp = solver.partition("-")
        proof = _cdcl_lrat(cnf, backend, **({"params": {"simp_delay": 0}} if simp else {}))
    if proof is None:  # satisfiable: nothing refutes it
        proof = [f"{cnf.num_clauses + 1} 0 1 0"]
        assert both(cnf, proof)[0] == REJECTED
        return
    lines = _corrupt([ln for ln in proof if ln.strip()], how, k)
    status, _ = both(cnf, lines)
    if how == "none":
        assert status == VERIFIED
    if "\n" not in "".join(lines):  # every step on its line: the binary twin exists
        assert both(cnf, lrat.to_binary(lines))[0] == status


steps = st.lists(st.one_of(
    st.tuples(st.just("a"), st.lists(st.integers(-7, 7).filter(bool), max_size=3),
              st.lists(st.integers(-3, 50).filter(bool), max_size=6)),
    st.tuples(st.just("d"), st.just([]), st.lists(st.integers(1, 50), max_size=3))),
    max_size=12)


@settings(max_examples=200, deadline=None)
@given(formulas, steps, st.integers(0, 3))
def test_engines_agree_on_random_proofs(cnf: Cnf, proof: list, gap: int) -> None:  # type: ignore[type-arg]
    lines, ident = [], cnf.num_clauses
    for kind, lits, hints in proof:
        if kind == "d":
            lines.append(" ".join(map(str, [ident, "d", *hints, 0])))
        else:
            ident += 1 + (gap if len(lines) == 2 else 0)
            lines.append(" ".join(map(str, [ident, *lits, 0, *hints, 0])))
    status, _ = both(cnf, lines)
    assert both(cnf, lrat.to_binary(lines))[0] == status


# --- lrat-check (drat-trim's repository), where a machine has it -------------------------------

@pytest.mark.skipif(not os.access(LRAT_CHECK, os.X_OK), reason="lrat-check not available")
def test_lrat_check_agrees(tmp_path: Path) -> None:
    cases = [php(6, 5), Cnf(100, random_3sat(100, 2, 4.6)), Cnf(60, random_3sat(60, 4, 5.0))]
    for n, cnf in enumerate(cases):
        path = tmp_path / f"f{n}.cnf"
        with open(path, "w", encoding="utf-8") as fh:
            write_dimacs(cnf, fh)
        for lines in (_cdcl_lrat(cnf), _dpll_lrat(cnf),  # preprocessing first, then the search
                      _cdcl_lrat(cnf, params={"simp_delay": 0}, reduce_first=50)):
            assert lines is not None
            good = tmp_path / "good.lrat"
            good.write_text("\n".join(lines) + "\n")
            # the first lemma's last hint (its conflict) dropped: not an empty clause, whose
            # check lrat-check skips when its hints end without a conflict ("2 0 0" refutes
            # the satisfiable "1 2 0" for lrat-check of commit effa1dc)
            i = next(i for i, ln in enumerate(lines) if " d " not in ln)
            tokens = lines[i].split()
            bad = tmp_path / "bad.lrat"
            bad.write_text("\n".join([*lines[:i], " ".join([*tokens[:-2], "0"]),
                                      *lines[i + 1:]]) + "\n")
            for proof, verdict in ((good, VERIFIED), (bad, REJECTED)):
                assert check_lrat(cnf, proof).status == verdict
                out = subprocess.run([LRAT_CHECK, str(path), str(proof)], capture_output=True,
                                     text=True, timeout=60).stdout
                assert ("c VERIFIED" in out) == (verdict == VERIFIED), out[-500:]


@pytest.mark.skipif(not os.access(DRAT_TRIM, os.X_OK), reason="drat-trim not available")
def test_drat_trims_lrat_output_checks(tmp_path: Path) -> None:
    """drat-trim turns a DRAT proof it verified into LRAT (-L): LRAT written by another tool
    checks with ours; the same proof with a hint changed does not."""
    for n, cnf in enumerate((php(6, 5), Cnf(100, random_3sat(100, 2, 4.6)))):
        path, drup, out = tmp_path / f"f{n}.cnf", tmp_path / "p.drat", tmp_path / "p.lrat"
        with open(path, "w", encoding="utf-8") as fh:
            write_dimacs(cnf, fh)
        solver = Cdcl(cnf.num_vars, cnf.clauses, proof="drat")
        assert solver.solve()[0] == "UNSAT"
        solver.write_proof(drup)
        run = subprocess.run([DRAT_TRIM, str(path), str(drup), "-L", str(out)],
                             capture_output=True, text=True, timeout=60)
        assert "s VERIFIED" in run.stdout
        lines = out.read_text().splitlines()
        assert both(cnf, lines)[0] == VERIFIED
        i = next(i for i, ln in enumerate(lines) if " d " not in ln)
        tokens = lines[i].split()  # its last hint, the conflict, dropped
        cut = [*lines[:i], " ".join([*tokens[:-2], "0"]), *lines[i + 1:]]
        assert both(cnf, cut)[0] == REJECTED


@pytest.mark.parametrize("proof", ["lrat", "drat"])
@pytest.mark.parametrize("backend", ["c", "python"])
def test_a_kernel_writes_its_proof_in_binary_as_the_same_steps(tmp_path: Path, backend: str,
                                                               proof: str) -> None:
    """``write_proof(path, binary=True)`` (what the solve path asks for a proof nobody keeps,
    issue 29) writes the steps of the text proof in the binary format, byte for byte what
    ``to_binary`` makes of the text, for both kernels; the binary proof checks, and with a
    step cut it does not."""
    import satdoku.cnf.drat as drat
    from satdoku.solvers.cdcl.driver import native

    if backend == "c" and native() is None:
        pytest.skip("compiled kernel not built")
    cases = [php(5, 4), Cnf(60, random_3sat(60, 7, 5.0)), SQUARE]
    for n, cnf in enumerate(cases):  # preprocessing at once on the first: deletions early
        solver = Cdcl(cnf.num_vars, cnf.clauses, proof=proof, backend=backend,
                      params={"simp_delay": 0} if n == 0 else None)
        assert solver.solve()[0] == "UNSAT"
        text, binary = tmp_path / f"{n}.txt", tmp_path / f"{n}.bin"
        solver.write_proof(text)
        solver.write_proof(binary, binary=True)
        to_binary = lrat.to_binary if proof == "lrat" else drat.to_binary
        data = binary.read_bytes()
        assert data == to_binary(text.read_text().splitlines())
        assert data[:1] in (b"a", b"d") and lrat.is_binary(data)
        keyword = tmp_path / f"{n}.kw"  # each kernel itself takes binary by keyword, as the twin
        solver._kernel.write_proof(str(keyword), binary=True)
        assert keyword.read_bytes() == data
        check = check_lrat if proof == "lrat" else drat.check_proof
        assert check(cnf, str(binary)).status == VERIFIED
        # LRAT: the last addition (the empty clause) cut; DRAT (whose checker derives the
        # empty clause itself once the lemmas propagate to a conflict): the lemmas cut
        lines = text.read_text().splitlines()
        i = max(i for i, ln in enumerate(lines) if " d " not in ln) if proof == "lrat" else 0
        cut = tmp_path / f"{n}.cut"
        cut.write_bytes(to_binary(lines[:i]))
        assert check(cnf, str(cut)).status != VERIFIED


@pytest.mark.parametrize("fmt", ["lrat", "drat"])
def test_the_solve_path_asks_for_a_binary_proof_only_when_nobody_keeps_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    """solver_run.solve_formula: the temporary proof of an UNSAT answer is written in the
    binary format (and checked: verified ``proof``); a proof the caller keeps stays text."""
    from satdoku.solver_run import open_solver, solve_formula

    written: list[bool] = []
    real = Cdcl.write_proof

    def spy(self: Cdcl, path: str, binary: bool = False) -> None:
        written.append(binary)
        real(self, path, binary)

    monkeypatch.setattr(Cdcl, "write_proof", spy)
    solver = open_solver("cli", {"cli": {"solver": "cdcl", "proof": fmt}})
    formula = Formula.of(php(5, 4))
    result, verdict = solve_formula(solver, formula, None)
    assert (result.status, verdict.verified, written) == ("UNSAT", "proof", [True])
    kept = tmp_path / "p.txt"
    result, verdict = solve_formula(solver, formula, None, proof_path=str(kept))
    assert (result.status, verdict.verified, written) == ("UNSAT", "proof", [True, False])
    assert not lrat.is_binary(kept.read_bytes())
