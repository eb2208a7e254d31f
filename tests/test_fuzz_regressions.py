"""Bugs the fuzzers found (issue 25), each as its shrunk reproducer: the case exactly as
``satdoku fuzz`` wrote it, checked against an oracle that is not the code under test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from satdoku.cnf.formula import Cnf, Formula
from satdoku.formats import CnfFile, Record
from satdoku.fuzz.oracles import brute_force, model_problem
from satdoku.solve import open_solver, solve
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.dpll import Dpll

#: (formula, assumptions of each call): the issue's minimal case, then what the cdcl-api and
#: cdcl-inc targets shrank their first findings to (seed 7 against the code before the fix)
INCREMENTAL = [
    ([[1, 3], [2]], [[], [-2], []]),
    ([[1, 2]], [[], [-1, -2], []]),
    ([[-1, 2]], [[], [1, -2], []]),
    ([[-1], [2, 3]], [[], [1], []]),
    ([[1], [2, -3]], [[], [3, -1], []]),
]


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("clauses, calls", INCREMENTAL)
def test_cdcl_model_after_an_unsat_call_under_assumptions(clauses: list[list[int]],
                                                          calls: list[list[int]],
                                                          backend: str) -> None:
    """The kernels' model() read the live assignment, which an UNSAT call under assumptions
    left mid-conflict; the driver then handed it out for a later call without assumptions."""
    solver = Cdcl(3, clauses, backend=backend)
    for assumptions in calls:
        status, model = solver.solve(assumptions=assumptions)
        expected = brute_force(clauses, assumptions, 3)
        assert status == ("SAT" if expected is not None else "UNSAT")
        if status == "SAT":
            assert model_problem(clauses, model, assumptions) is None


@pytest.mark.parametrize("clauses, calls", INCREMENTAL)
def test_cdcl_inc_model_after_an_unsat_call_under_assumptions(clauses: list[list[int]],
                                                              calls: list[list[int]]) -> None:
    """The same bug through the solve path's incremental use (cdcl-inc in the workflow): the
    wrong model came out as a failed verification of our own solver."""
    solver = open_solver("cdcl-inc", {"cdcl-inc": {"solver": "cdcl", "incremental": True}})
    rules = Cnf(3, clauses)
    record = Record("r.cnf", 1, 1, "dimacs", cnf=CnfFile("r.cnf", 3, len(clauses), ""))
    for assumptions in calls:
        formula = Formula(3, [[x] for x in assumptions], rules)
        answer = solve(record, solver, "extended", 10.0, formula=formula)
        expected = brute_force(clauses, assumptions, 3)
        assert answer.status == ("SAT" if expected is not None else "UNSAT")
        assert answer.verified in ("yes", "proof")


#: a formula whose search learns (LRAT steps logged) before it answers SAT
LEARNS = [[-7, 5, -7], [-8, -4, 5], [2, -3, -2], [6, -2, -7], [-4, -8, -1], [2, -1, -6],
          [6, 4, 4], [8, 2, -8], [5, -2, -4], [-8, 7, -4], [-3, 3, 5], [-2, 3, 1], [7, -4, 7],
          [-8, -6, 6], [8, -4, 1], [-2, 6, 6], [-1, 3, 1], [1, 4, 7], [6, 1, 4], [2, -4, 1],
          [-2, -2, 2], [-6, -3, 8], [2, -4, -6], [-3, 1, 3], [-5, 8, 1], [-7, -6, -5],
          [1, -2, -1], [-3, 8, -5], [-3, -7, -2], [4, -3, 4]]


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("clauses, search_first, added", [
    ([[]], False, [[-1]]),  # cdcl-api, seed 11: the formula refuted on loading, then a clause
    (LEARNS, True, [[1], [-1]]),  # clauses added after a search that logged LRAT steps
])
def test_cdcl_lrat_ids_with_clauses_added_between_calls(clauses: list[list[int]],
                                                         search_first: bool,
                                                         added: list[list[int]],
                                                         backend: str) -> None:
    """An LRAT clause id is fixed when the clause is made and the formula's come first: a
    clause added after the empty clause or learnt ones was logged (or numbered) behind them,
    and the proof of the later UNSAT reused an input clause's id (lrat check: 'its id is not
    above the last'). Checked by the LRAT checker against every clause given."""
    from satdoku.cnf.lrat import check_lrat

    solver = Cdcl(8, clauses, proof="lrat", backend=backend, simplify=False)
    if search_first:
        assert solver.solve()[0] == "SAT" and solver.proof_lines()
    solver.add_clauses(added)
    assert solver.solve() == ("UNSAT", None)
    check = check_lrat(Cnf(8, clauses + added), solver.proof_lines())
    assert check.ok, check.message


@pytest.mark.parametrize("engine, mode", [("python", "backward"), ("c", "forward"),
                                          ("c", "backward")])
def test_drat_deleting_a_unit_clause_is_ignored(engine: str, mode: str) -> None:
    """Deleting the unit clause [1] left its literal true but took the clause out of RAT
    checks, so '-1' passed as RAT and the top level conflicted: every engine "refuted" the
    satisfiable [[1]] (drat target, campaign seed 20261128, drat/random/2579; drat-trim
    rejects it). The case as the campaign made it: the proof of a stronger formula with an
    original clause deleted early."""
    from satdoku.cnf import drat

    proof = ["-1 -1 1 0", "d 1 0", "-1 -1 -1 0", "1 1 0", "1 0", "-1 -1 1 0", "1 1 -1 0", "0"]
    assert brute_force([[1]], [], 1) is not None  # satisfiable
    check = drat.check_proof(Cnf(1, [[1]]), proof, engine=engine,
                             **({"mode": mode} if engine == "c" else {}))
    assert check.status == drat.REJECTED, check.message


@pytest.mark.parametrize("heuristic", ["jw", "first", "vsids"])
def test_dpll_solved_again_after_a_refutation(heuristic: str) -> None:
    """A Dpll object asked again after UNSAT searched on from a trail left mid-conflict and
    answered SAT with a model breaking a clause (dpll-api target, shrunk)."""
    clauses = [[1], [-1, 2], [-2]]
    solver = Dpll(2, clauses, heuristic, pure_literals=True)
    assert [solver.solve(max_decisions=budget)[0] for budget in (None, 20, 26, None)] == \
        ["UNSAT"] * 4


@pytest.mark.parametrize("heuristic", ["first", "random"])
def test_dpll_never_branches_on_variables_of_no_clause(heuristic: str) -> None:
    """DPLL's first and random heuristics branched on the 39 variables no clause holds, and
    chronological backtracking flipped each of those decisions before the conflict's real
    cause: a 10-clause UNSAT formula timed out after 60 s where every other heuristic needs
    one decision (dpll target, seed 2025, edges/273, the case as written)."""
    clauses = [[-32, 47, -10], [-35, -2, -8], [-47, 35, -10], [-47, -45, -35], [-8, 47, -17],
               [10], [8, 45, -47], [2, -8, -10], [47, 32, 17], [-17, -10, 8]]
    solver = Dpll(47, clauses, heuristic, seed=11)
    assert solver.solve(max_decisions=200)[0] == "UNSAT"
    assert Dpll(50, [[3], [-3, 7]], heuristic).solve()[1] == [
        -1, -2, 3, *(-v for v in range(4, 7)), 7, *(-v for v in range(8, 51))]


def test_a_model_naming_a_variable_both_ways_fails_verification(tmp_path: Path) -> None:
    """The solve path checked a binary's model clause by clause only: ``v 1 -1 2 -2 0``
    satisfies every clause, and a lying binary passed (planted-bug test of satdoku fuzz,
    shrunk to one clause)."""
    path = tmp_path / "both_ways.py"
    path.write_text("print('s SATISFIABLE'); print('v 1 -1 2 -2 0'); raise SystemExit(10)\n")
    solver = open_solver("liar", {"liar": {"solver": "external",
                                           "command": f"{sys.executable} {path} {{cnf}}"}})
    cnf = Cnf(2, [[-1, -2]])
    record = Record("b.cnf", 1, 1, "dimacs", cnf=CnfFile("b.cnf", 2, 1, ""))
    answer = solve(record, solver, "extended", 10.0, formula=Formula.of(cnf))
    assert answer.verified == "FAILED"
    assert "both true and false" in answer.detail


def test_a_futoshiki_grid_without_relations_is_detected() -> None:
    """futoshiki_grid writes a Futoshiki without relations as rows of integers and '.'
    holes; detection took it for latin_grid, which cannot read '.', and every row was
    INVALID (readers target, shrunk to a 3x3 board)."""
    from satdoku.formats.format_registry import FORMATS
    from satdoku.fuzz.checks import read_text
    from satdoku.puzzle import futoshiki

    puzzle = futoshiki([2, 0, 3, 1, 3, 2, 3, 0, 0], 3)
    text = FORMATS["futoshiki_grid"].write([puzzle])  # type: ignore[misc]
    records = read_text(text, "auto")
    assert [r.puzzle for r in records] == [puzzle]
