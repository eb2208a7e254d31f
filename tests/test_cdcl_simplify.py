"""Preprocessing in our CDCL (bounded variable elimination, subsumption, self-subsuming
strengthening; satdoku.solvers.cdcl.simplify and the C kernel's simplify): both kernels take
the same steps and write the same LRAT proof, models of formulas with eliminated variables
satisfy the original formula, UNSAT proofs with the preprocessing steps check (LRAT, every step
with hints, and DRAT), a preprocessing step without one of its hints does not, frozen and
assumed variables are kept, ``simplify: false`` is the search alone."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import php

from satdoku.cnf.drat import check_proof, check_proof_python
from satdoku.cnf.formula import Cnf
from satdoku.cnf.lrat import check_lrat
from satdoku.solvers.cdcl.adapter import make_cdcl
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.registry import SOLVERS, make_solver

#: preprocessing before the search (by default it waits for the search's first 2000 conflicts)
NOW = {"simp_delay": 0}
PREPROCESSING = ("eliminated_vars", "subsumed_clauses", "strengthened_clauses", "resolvents")


def xor_chain(k: int) -> Cnf:
    """x1 ^ ... ^ xk computed left to right and right to left, asserted different: UNSAT,
    and every gate variable can be eliminated."""
    clauses: list[list[int]] = []
    top = k

    def xor(a: int, b: int) -> int:
        nonlocal top
        top += 1
        clauses.extend([[-top, a, b], [-top, -a, -b], [top, -a, b], [top, a, -b]])
        return top

    left, right = 1, k
    for i in range(2, k + 1):
        left = xor(left, i)
    for i in range(k - 1, 0, -1):
        right = xor(right, i)
    return Cnf(top, [*clauses, [left], [-right]])


def random_cnf(rng: random.Random, n: int, m: int, width: tuple[int, int] = (1, 4)) -> Cnf:
    return Cnf(n, [[rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(rng.randint(*width))]
                   for _ in range(m)])  # fmt: skip


def minisat_says(cnf: Cnf, assumptions: list[int] | None = None) -> str:
    from pysat.solvers import Minisat22

    with Minisat22(bootstrap_with=cnf.clauses) as m:
        return "SAT" if m.solve(assumptions=assumptions or []) else "UNSAT"


def both(cnf: Cnf, proof: str = "lrat", **options: object) -> tuple:  # type: ignore[type-arg]
    """The C kernel and the readable twin on one formula (``proof`` logged): equal answers,
    statistics and proofs, which are returned. Preprocessing runs before the search unless
    ``params`` say otherwise (by default it waits for 2000 conflicts)."""
    options.setdefault("params", NOW)
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(cnf.num_vars, cnf.clauses, proof=proof, backend=backend, **options)  # type: ignore[arg-type]
        runs.append((solver.solve(), solver.stats, solver.proof_lines()))
    assert runs[0] == runs[1], [r[:2] for r in runs]
    return runs[0]


def checked(cnf: Cnf, run: tuple, proof: str = "lrat") -> str:  # type: ignore[type-arg]
    """The answer of a run, its model checked against the original formula or its proof (in
    ``proof``'s format) by both engines, and MiniSat's answer agreeing."""
    (status, model), _, lines = run
    assert status == minisat_says(cnf)
    if status == "SAT":
        assert model is not None and len(model) == cnf.num_vars
        assert cnf.satisfied_by(model) == []
    elif proof == "lrat":
        for engine in ("auto", "python"):
            check = check_lrat(cnf, lines, engine=engine)
            assert check.ok, check.message
    else:
        for check in (check_proof(cnf, lines), check_proof_python(cnf, "".join(lines).encode())):
            assert check.ok, check.message
    return status


def test_both_kernels_take_the_same_preprocessing_steps(public_data: Path) -> None:
    """Elimination, subsumption and strengthening happen, identically in both kernels, and
    every answer checks (a Sudoku with its givens as units included)."""
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    path = public_data / "tdoku_benchmarks" / "puzzles6_forum_hardest_1106.txt"
    record = next(iter(read_records(path)))
    cases = [php(5, 4), xor_chain(10), encode(record.puzzle),
             random_cnf(random.Random(3), 40, 150, (2, 4))]  # fmt: skip
    totals = dict.fromkeys(PREPROCESSING, 0)
    for cnf in cases:
        run = both(cnf, reduce_first=30, reduce_inc=10)
        checked(cnf, run)
        for key in PREPROCESSING:
            totals[key] += run[1][key]
    assert all(totals.values()), totals
    assert both(xor_chain(10))[1]["conflicts"] == 0  # eliminated down to a contradiction


def test_random_formulas_agree_with_minisat_with_checked_models_and_proofs() -> None:
    """Seeded small formulas of every shape (units, duplicates, tautologies, long clauses):
    both kernels agree step for step, models satisfy the original formula, proofs check, LRAT
    and DRAT proofs of the same search (the proof format does not change it)."""
    rng = random.Random(29)
    seen = set()
    for k in range(250):
        cnf = random_cnf(rng, rng.randint(1, 14), rng.randint(0, 60), (1, 5))
        run = both(cnf, params={"simp_delay": k % 3})
        seen.add(checked(cnf, run))
        if k % 5 == 0:
            drat = both(cnf, "drat", params={"simp_delay": k % 3})
            assert drat[:2] == run[:2]
            checked(cnf, drat, "drat")
    assert seen == {"SAT", "UNSAT"}


def test_every_hint_of_a_preprocessing_step_is_needed() -> None:
    """The XOR chain is refuted by preprocessing alone, so every step of its LRAT proof is one
    of the pass's (resolvents, strengthened clauses, clauses without their false literals,
    level-0 units, the empty clause): each checks, and without any one of its hints it does
    not (both engines, one verdict)."""
    cnf = xor_chain(10)
    (status, _), stats, lines = both(cnf)
    assert status == "UNSAT" and stats["conflicts"] == 0
    assert stats["resolvents"] and stats["strengthened_clauses"]
    steps = [ln.split() for ln in lines]
    assert any(s[1] == "d" for s in steps)  # deletions by id
    dropped = 0
    for i, step in enumerate(steps):
        if step[1] == "d":
            continue
        zero = step.index("0", 1)
        hints = step[zero + 1 : -1]
        assert hints, step
        for j in range(len(hints)):
            fewer = " ".join([*step[: zero + 1], *hints[:j], *hints[j + 1 :], "0"])
            proof = [*lines[:i], fewer + "\n", *lines[i + 1 :]]
            verdicts = {check_lrat(cnf, proof, engine=e).ok for e in ("auto", "python")}
            assert verdicts == {False}, (step, j)
            dropped += 1
    assert dropped > 20


def test_preprocessing_after_the_first_conflicts() -> None:
    """With a delay, preprocessing starts at level 0 in the middle of the search: the long
    learnt clauses are deleted (in the proof too), the binary ones kept as clauses, and both
    kernels go on to the same search; the answers check."""
    for cnf, delay in ((php(7, 6), 150), (random_cnf(random.Random(4), 90, 385, (3, 3)), 20)):
        # (MiniSat's bounds alone on the pigeons: the literal bound keeps every one of them)
        run = both(cnf, reduce_first=60, reduce_inc=20,
                   params={"simp_delay": delay, "elim_lits_pct": 0})
        checked(cnf, run)
        assert run[1]["conflicts"] > delay and run[1]["eliminated_vars"] > 0
    assert both(php(5, 4), params={"simp_delay": 10**6})[1]["eliminated_vars"] == 0


def test_bounds_change_what_is_eliminated_not_the_answers() -> None:
    rng = random.Random(5)
    cnf = random_cnf(rng, 60, 230, (3, 3))
    full = both(cnf)[1]["eliminated_vars"]
    for params in ({"elim_grow": 4}, {"elim_clause_lim": 3}, {"subsume_lim": 3},
                   {"simp_effort": 50}):  # fmt: skip
        run = both(cnf, params={"simp_delay": 0, **params})
        checked(cnf, run)
        if "simp_effort" in params:
            assert run[1]["eliminated_vars"] < full


def test_elimination_may_not_turn_short_clauses_into_long_ones() -> None:
    """elim_lits_pct: a variable stays when its resolvents would hold more than that percentage
    of the literals of its clauses. A pigeon of php(7, 6) has one clause of 6 literals and 6
    binary ones (18 literals); its 6 resolvents have 6 literals each (36): kept at 150%,
    eliminated at 200% (the default) and with MiniSat's bounds alone (0: no literal bound). With
    7 holes (php(8, 7): 21 literals, resolvents 49) the default keeps every pigeon. An XOR
    gate's resolvents hold 4/3 of its literals: the chain is still eliminated at 150%. Both
    kernels alike; the answers check."""
    cnf = php(7, 6)
    runs = {pct: both(cnf, params={"simp_delay": 0, "elim_lits_pct": pct})
            for pct in (0, 150, 200)}
    assert runs[150][1]["eliminated_vars"] == 0
    assert runs[0][1]["eliminated_vars"] > 0 and runs[200][1]["eliminated_vars"] > 0
    for run in runs.values():
        checked(cnf, run)
    wide = php(8, 7)
    for pct, eliminates in ((None, False), (0, True)):
        params = {"simp_delay": 0} if pct is None else {"simp_delay": 0, "elim_lits_pct": pct}
        solver = Cdcl(wide.num_vars, wide.clauses, params=params)
        solver.solve(max_conflicts=1)  # preprocessing first, then one conflict
        assert (solver.stats["eliminated_vars"] > 0) == eliminates
    chain = xor_chain(10)
    for pct in (150, 200):
        assert both(chain, params={"simp_delay": 0, "elim_lits_pct": pct})[1]["eliminated_vars"]


def test_simplify_false_is_the_search_alone() -> None:
    """cdcl-nosimp: no preprocessing step, no deletion before the search, and the search of
    ``params={'simplify': 0}`` (one switch)."""
    cnf = php(6, 5)
    run = both(cnf, simplify=False)
    assert all(run[1][key] == 0 for key in PREPROCESSING)
    assert run == both(cnf, params={"simplify": 0, "simp_delay": 0})
    assert run[2][0] != both(cnf)[2][0]  # preprocessing's first step is not the first lemma
    checked(cnf, run)


def test_frozen_variables_are_kept_and_assumed_ones_frozen() -> None:
    """A frozen variable is never eliminated, so later calls may assume it without reloading
    (the learnt clauses stay: conflicts accumulate); the first call's assumptions are frozen by
    themselves."""
    cnf = xor_chain(8)
    cnf = Cnf(cnf.num_vars, cnf.clauses[:-2])  # the two chains, not asserted: SAT
    gates = list(range(9, cnf.num_vars + 1))
    for backend in ("c", "python"):
        solver = Cdcl(cnf.num_vars, cnf.clauses, backend=backend, frozen=gates, params=NOW)
        assert solver.solve()[0] == "SAT"
        assert solver.stats["eliminated_vars"] > 0
        kernel = solver._kernel
        assert kernel.first_eliminated([2 * (v - 1) for v in gates]) == -1
        status, model = solver.solve(assumptions=[gates[6], -gates[-1]])
        assert status == "UNSAT" and solver._kernel is kernel  # no reload
        status, model = solver.solve(assumptions=[gates[6], gates[-1]])
        assert status == "SAT" and model is not None and cnf.satisfied_by(model) == []
        first = Cdcl(cnf.num_vars, cnf.clauses, backend=backend, params=NOW)
        assert first.solve(assumptions=[3, -5])[0] == "SAT"
        assert first._kernel.first_eliminated([4, 9]) == -1


def test_assuming_an_eliminated_variable_reloads_and_answers_right() -> None:
    """Calls under assumptions the first call did not name: each answer agrees with MiniSat's
    (a variable eliminated at the first call gets a fresh kernel with it frozen)."""
    rng = random.Random(8)
    reloads = 0
    for _ in range(60):
        cnf = random_cnf(rng, 12, rng.randint(10, 45), (2, 4))
        solver = Cdcl(cnf.num_vars, cnf.clauses, params=NOW)
        solver.solve()
        for _ in range(4):
            assumptions = sorted({rng.choice((-1, 1)) * rng.randint(1, 12) for _ in range(3)},
                                 key=abs)  # fmt: skip
            if len({abs(a) for a in assumptions}) < len(assumptions):
                continue
            before = solver._kernel
            status, model = solver.solve(assumptions=assumptions)
            reloads += solver._kernel is not before
            assert status == minisat_says(cnf, assumptions)
            if status == "SAT":
                assert cnf.satisfied_by(model) == [] and set(assumptions) <= set(model)
    assert reloads > 0


def test_kernel_refuses_bad_use_after_elimination() -> None:
    for backend in ("c", "python"):
        solver = Cdcl(4, [[1, 2], [-1, 3], [2, 4]], backend=backend, params=NOW)
        solver.solve()
        kernel = solver._kernel
        eliminated = kernel.first_eliminated([0, 2, 4, 6])
        assert eliminated >= 0
        with pytest.raises(RuntimeError, match="eliminated"):
            kernel.load([[1, 2]])
        with pytest.raises(ValueError, match="eliminated"):
            kernel.freeze([eliminated])
        with pytest.raises(ValueError, match="eliminated"):
            kernel.solve([2 * eliminated])


def test_a_deadline_at_the_first_call_then_a_later_call_finishes() -> None:
    cnf = php(6, 5)
    for backend in ("c", "python"):
        solver = Cdcl(cnf.num_vars, cnf.clauses, backend=backend, proof="lrat",
                      params={"simp_delay": 0})
        assert solver._kernel.solve([], 0.0) == 0  # preprocessing ran, then the clock stopped it
        assert solver.stats["eliminated_vars"] > 0 and solver.stats["conflicts"] == 0
        assert solver.solve()[0] == "UNSAT"
        assert check_lrat(cnf, solver.proof_lines()).ok


def test_registry_variant_and_adapter_options(public_data: Path, tmp_path: Path) -> None:
    assert SOLVERS["cdcl-nosimp"].options == {"simplify": False}
    nosimp, default = make_solver("cdcl-nosimp"), make_cdcl()
    assert nosimp.options["simplify"] is False and default.options["simplify"] is True
    from satdoku.solvers.base import Deadline

    cnf = xor_chain(400)  # past the default delay of 2000 conflicts
    for solver in (nosimp, default):
        result = solver.solve_cnf(cnf, Deadline(None), str(tmp_path / f"{solver.name}.lrat"))
        assert result.status == "UNSAT"
        assert (result.stats["eliminated_vars"] == 0) == (solver is nosimp)
        assert solver.proof_format == "lrat"  # with preprocessing too: every step has hints
        assert check_lrat(cnf, Path(result.proof).read_text().splitlines(True)).ok


def test_cli_no_simplify(tmp_path: Path) -> None:
    path = tmp_path / "php.cnf"
    cnf = php(5, 4)
    path.write_text(f"p cnf {cnf.num_vars} {len(cnf.clauses)}\n"
                    + "".join(" ".join(map(str, c)) + " 0\n" for c in cnf.clauses))
    outs = {}
    for flag in ([], ["--no-simplify"]):
        res = subprocess.run([sys.executable, "-m", "satdoku.cli", "dpll", "--mode", "cdcl",
                              *flag, str(path)], capture_output=True, text=True)  # fmt: skip
        assert res.returncode == 20, res.stderr
        outs[bool(flag)] = res.stdout
    assert "kernel, preprocessing)" in outs[False] and "kernel)" in outs[True]
    assert all("c eliminated_vars " in out and "c resolvents " in out for out in outs.values())
