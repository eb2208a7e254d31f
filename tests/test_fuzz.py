"""The fuzzer (satdoku/fuzz/, `satdoku fuzz`): its shrinker, generators and oracles; a
fixed-seed campaign over every target that must find nothing; planted bugs it must find
and shrink (in our kernel, in solver binaries); an honest binary it must leave alone."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT

from satdoku.fuzz import formulas
from satdoku.fuzz.campaign import Campaign, case_of, summary
from satdoku.fuzz.cases import (
    ADD,
    BAD_MODEL,
    CRASH,
    EXIT_CODE,
    LIMIT,
    MALFORMED,
    SOLVE,
    WRONG_ANSWER,
    Call,
    Case,
    case_text,
    read_case,
)
from satdoku.fuzz.checks import check_targets
from satdoku.fuzz.oracles import answer, brute_force, model_problem, unsat_core
from satdoku.fuzz.puzzles import brute_count
from satdoku.fuzz.shrink import Budget, ddmin, renumbered, shrink_case
from satdoku.fuzz.targets import draw_options, families, own_targets
from satdoku.solvers.registry import SOLVERS

LIAR = ROOT / "tests" / "data" / "fuzz" / "lying_solver.py"
needs_minisat = pytest.mark.skipif(shutil.which("minisat") is None,
                                   reason="minisat not installed (.ci/run installs it)")


# --- the shrinker --------------------------------------------------------------------------------
def test_ddmin_finds_the_one_minimal_culprits() -> None:
    tests = []

    def fails(items: list[int]) -> bool:
        tests.append(len(items))
        return {3, 47, 88} <= set(items)

    assert ddmin(range(100), fails) == [3, 47, 88]
    assert len(tests) < 200  # far fewer than the n^2 of the worst case
    assert ddmin([5], lambda xs: True) == []  # the empty list fails too: nothing is needed
    budget = Budget(tests=5)
    small = ddmin(range(100), fails, budget)
    assert fails(small) and budget.used <= 5  # a spent budget still returns a failing list


def test_shrink_case_removes_calls_clauses_literals_and_renumbers() -> None:
    rng = random.Random(3)
    noise = [[rng.choice((1, -1)) * rng.randint(1, 30) for _ in range(3)] for _ in range(60)]
    case = Case.of(40, [*noise, [-40, 17, 5]],
                   [Call(SOLVE, (1, 2)), Call(ADD, clauses=((3, 4), (40,))),
                    Call(LIMIT, (9,), budget=3), Call(SOLVE, (-17, 6))])

    def fails(c: Case) -> bool:  # "fails" while an added unit's negation is in a clause
        added = [u for call in c.calls for u in call.clauses if len(u) == 1]
        return any(-u[0] in x for u in added for x in c.clauses)

    small = shrink_case(case, fails)
    assert fails(small)
    assert small == Case.of(1, [[-1]], [Call(ADD, clauses=((1,),))]), small  # 40 became 1
    assert renumbered(Case.of(9, [[9, -4]], [Call(SOLVE, (4, 7))])) == \
        Case.of(3, [[1, -2]], [Call(SOLVE, (2, 3))])


def test_an_unsat_formula_is_cut_to_its_core_first() -> None:
    core = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    noise = [[3 + i, -(4 + i)] for i in range(40)]
    assert sorted(unsat_core(noise + core)) == list(range(40, 44))
    assert unsat_core(noise) is None
    calls = []

    def fails(c: Case) -> bool:
        calls.append(c)
        return not answer(c.clauses)

    small = shrink_case(Case.of(50, noise + core), fails)
    assert len(calls[0].clauses) == 4  # the first test is the core
    assert small.clauses == ((),)  # then down to the smallest UNSAT formula


def test_reproducer_files_round_trip(tmp_path: Path) -> None:
    case = Case.of(5, [[1, -2], [], [3, 3, -3]],
                   [Call(SOLVE, (1,)), Call(ADD, clauses=((2, 5), (-4,))),
                    Call(LIMIT, (-1, 2), budget=7), Call("interrupt", ()), Call(SOLVE, ())])
    path = tmp_path / "random-1.cnf"
    path.write_text(case_text(case, ["a comment"]))
    assert read_case(path) == case
    assert "c a comment" in path.read_text()
    assert read_case(path).cnf().clauses == [[1, -2], [], [3, 3, -3], [2, 5], [-4]]


# --- generators and oracles ----------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(formulas.KINDS))
def test_generators_are_seeded_and_mixed(kind: str) -> None:
    cases = [formulas.generate(kind, random.Random(f"s{i}")) for i in range(40)]
    assert cases == [formulas.generate(kind, random.Random(f"s{i}")) for i in range(40)]
    answers = {answer(c.clauses) for c in cases}
    assert answers == {True, False}  # SAT and UNSAT both
    seq = formulas.generate(kind, random.Random(1), sequence=True)
    assert seq.calls and seq.calls[-1] == Call(SOLVE, ())
    for c in cases:
        assert all(abs(x) <= c.num_vars for cl in c.clauses for x in cl)


def test_edge_formulas_hold_what_loaders_get_wrong() -> None:
    cases = [formulas.edges(random.Random(i)) for i in range(200)]
    clauses = [cl for c in cases for cl in c.clauses]
    assert any(not cl for cl in clauses)  # the empty clause
    assert any(len(set(cl)) < len(cl) for cl in clauses)  # a repeated literal
    assert any(-x in cl for cl in clauses for x in cl)  # a tautology
    used = [{abs(x) for cl in c.clauses for x in cl} for c in cases]
    assert any(len(u) < c.num_vars for u, c in zip(used, cases, strict=True))  # unused, gaps


def test_brute_force_and_the_model_check() -> None:
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 8)
        clauses = [[rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.randint(0, 3))]
                   for _ in range(rng.randint(0, 4 * n))]
        assumptions = [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.randint(0, 2))]
        model = brute_force(clauses, assumptions, n)
        assert (model is not None) == answer(clauses, assumptions)  # MiniSat agrees
        if model is not None:
            assert model_problem(clauses, model, assumptions) is None
    assert "both true and false" in model_problem([[1]], [1, -1, 2])
    assert "assumption -2" in model_problem([[1]], [1, 2], [-2])
    assert "clause 2 (-1 0)" in model_problem([[1], [-1]], [1])
    assert model_problem([[1]], None) == "SAT without a model"


def test_brute_force_puzzle_counts() -> None:
    from satdoku.generate import empty_puzzle

    assert brute_count(empty_puzzle("sudoku", 2), 1000) == 288
    assert brute_count(empty_puzzle("latin", 3), 1000) == 12
    assert brute_count(empty_puzzle("latin", 4), 1000) == 576


# --- targets from the registry -------------------------------------------------------------------
def test_targets_follow_the_registry() -> None:
    assert families()[:2] == ["minisat22", "glucose4"]
    ours = families("ours")
    assert "dpll" in ours and "cdcl" in ours and "dpll-jw" not in ours and "cdcl-luby" not in ours
    names = [t.name for t in own_targets("/tmp")]
    incremental = [n for n, s in SOLVERS.items() if s.incremental and n in families()]
    assert {f"{n}-inc" for n in incremental} <= set(names)
    rng = random.Random(0)
    drawn = [draw_options(SOLVERS["cdcl"].option_schema, rng) for _ in range(200)]
    for key, prop in SOLVERS["cdcl"].option_schema.items():  # every value of every choice
        if "enum" in prop:
            assert {d[key] for d in drawn} == set(prop["enum"]), key
        elif prop.get("type") == "boolean" and key != "incremental":
            assert {d[key] for d in drawn} == {False, True}, key
    assert "incremental" not in drawn[0]


def test_a_fixed_seed_campaign_over_every_target_finds_nothing(tmp_path: Path) -> None:
    """About a minute: every target, 100 cases each, seed 25. Any finding is a bug (or a
    harness error); the reproducer it wrote is in the failure message."""
    targets = own_targets(str(tmp_path)) + check_targets()
    campaign = Campaign(targets, seed=25, out=tmp_path / "out", shrink_seconds=30)
    runs = campaign.run(cases=100)
    found = [f.line for r in runs for f in r.findings]
    errors = [e for r in runs for e in r.harness_errors]
    assert not found and not errors, "\n".join(found + errors + summary(runs))
    assert {r.target.name for r in runs} == {t.name for t in targets}
    assert all(r.cases == 100 for r in runs)
    assert not (tmp_path / "out").exists()  # nothing written while nothing fails


# --- planted bugs --------------------------------------------------------------------------------
def _old_model(self):  # type: ignore[no-untyped-def]
    """The reference kernel's model() before the fix: the live assignment (eliminated
    variables rebuilt), not the last SAT answer's."""
    from satdoku.solvers.cdcl.simplify import extend_model

    value = [self.value[2 * v] for v in range(self.num_vars)]
    if self.elimclauses:
        extend_model(value, self.elimclauses)
    return [v + 1 if value[v] == 1 else -(v + 1) for v in range(self.num_vars)]


def test_the_kernel_bug_of_issue_25_is_found_and_shrunk(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    """With the reference kernel's old model() planted back (preprocessing off: a call
    assuming an eliminated variable starts a fresh kernel, which hides it), the cdcl-api
    target finds the wrong model within a few cases and shrinks it to a formula of at most
    two clauses and three calls, the last a plain solve after an UNSAT one under
    assumptions."""
    from satdoku.solvers.cdcl import readable as cdcl_reference

    monkeypatch.setattr(cdcl_reference.Kernel, "model", _old_model)
    monkeypatch.setenv("SATDOKU_CDCL_BACKEND", "python")
    target = next(t for t in own_targets(str(tmp_path)) if t.name == "cdcl-api")
    make = target.make

    def python_kernel(rng: random.Random, kind: str):  # type: ignore[no-untyped-def]
        drawn = make(rng, kind)
        return replace(drawn, options={**drawn.options, "backend": "python", "simplify": False})

    target.make = python_kernel
    campaign = Campaign([target], seed=7, kinds=["random"], out=tmp_path, max_failures=1)
    runs = campaign.run(cases=30)
    [finding] = runs[0].findings
    assert finding.failure.what == BAD_MODEL
    case = read_case(finding.files[0])
    assert len(case.clauses) <= 2 and len(case.calls) <= 3, case
    assert case.calls[-1].assumptions == ()


def test_a_bad_binary_proof_of_a_temporary_file_is_found(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    """The cdcl target solves an UNSAT case again with a proof nobody keeps (written binary,
    issue 29): a kernel whose binary proof loses its steps is found (REJECTED_PROOF), though
    its text proofs, the ones kept and given to drat-trim, are right."""
    from satdoku.fuzz.cases import REJECTED_PROOF
    from satdoku.solvers.cdcl.driver import Cdcl

    real = Cdcl.write_proof

    def lossy(self: Cdcl, path: str, binary: bool = False) -> None:
        real(self, path, binary)
        if binary:  # the last step cut off
            data = Path(path).read_bytes()
            Path(path).write_bytes(data[: len(data) // 2])

    monkeypatch.setattr(Cdcl, "write_proof", lossy)
    target = next(t for t in own_targets(str(tmp_path)) if t.name == "cdcl")
    campaign = Campaign([target], seed=3, kinds=["edges", "random"], out=tmp_path,
                        max_failures=1)
    [run] = campaign.run(cases=40)
    assert [f.failure.what for f in run.findings] == [REJECTED_PROOF]


def _fuzz(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "satdoku", "fuzz", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@needs_minisat
@pytest.mark.parametrize("mode, what", [("wide-unsat", WRONG_ANSWER), ("both", BAD_MODEL),
                                        ("crash", CRASH), ("garbage", MALFORMED),
                                        ("exit", EXIT_CODE)])
def test_a_lying_binary_is_caught_and_shrunk(mode: str, what: str, tmp_path: Path) -> None:
    """A wrapper around minisat that lies on one class of formulas: satdoku fuzz exits 1 and
    writes the failure shrunk to a few clauses, with a line naming what went wrong and the
    command that reproduces it (which does)."""
    out = tmp_path / "out"
    command = f"{sys.executable} {LIAR} {mode} {{cnf}}"
    done = _fuzz("--command", command, "--seconds", "120", "--max-failures", "1",
                 "--seed", "1", "--shrink-seconds", "10" if mode == "exit" else "60",
                 "--out", str(out))
    assert done.returncode == 1, done.stderr
    [cnf] = sorted(out.glob("*.cnf"))
    line = cnf.with_suffix(".txt").read_text()
    assert line.startswith(what), line
    case = read_case(cnf)
    if mode != "exit":  # (an UNSAT core keeping a unit: more tests than 10 s allow here)
        assert len(case.clauses) <= 3 and case.num_vars <= 3, case_text(case)
    reproduce = line.split("reproduce: ", 1)[1].split()
    assert reproduce[:2] == ["satdoku", "fuzz"] and reproduce[-1] == str(cnf)
    again = _fuzz("--command", command, "--replay", str(cnf))
    assert again.returncode == 1 and what in again.stdout


@needs_minisat
def test_an_honest_binary_passes_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = _fuzz("--command", "minisat -verb=0 {cnf} {result}", "--cases", "60", "--seed", "3",
                 "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert not out.exists()
    assert "60 cases" in done.stderr and "0 failures" in done.stderr


def test_time_outs_count_where_the_reference_was_quick() -> None:
    from satdoku.fuzz.targets import classify
    from satdoku.solve import Answer
    from satdoku.solvers.result import Result

    late = Answer(Result("TIMEOUT", message="time limit"))
    assert classify(late, True, 0.001).what == "timeout"
    assert classify(late, True, 5.0) is None  # the reference needed seconds too
    assert classify(late, True, 0.001, limited=True) is None  # a budget of its own
    wrong = Answer(Result("SAT", model=[1]), verified="yes")
    assert classify(wrong, False, 0.001).what == WRONG_ANSWER
    crash = Answer(Result("ERROR", message="killed by a signal: boom"))
    assert classify(crash, True, 0.001).what == CRASH


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    for args, words in ((["--solver", "cdcl", "--kinds", "random,nope", "--out", "x"],
                         "unknown kind 'nope'"),
                        (["--solver", "cdcl"], "--out DIR is needed"),
                        (["--solver", "no-such", "--out", "x"], "unknown solver"),
                        (["--solver", "dpll", "--incremental", "--out", "x"],
                         "no incremental use"),
                        (["--target", "nope", "--out", "x"], "unknown target 'nope'"),
                        (["--solver", "cdcl", "--against", "nope", "--out", "x"],
                         "not a python-sat solver")):
        done = _fuzz(*args, timeout=60)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr


def test_own_solver_by_name_and_incremental(tmp_path: Path) -> None:
    for extra in ([], ["--incremental"]):
        done = _fuzz("--solver", "cdcl", *extra, "--cases", "12", "--kinds", "random,puzzles",
                     "--out", str(tmp_path / "o"), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "12 cases" in done.stderr
    assert not (tmp_path / "o").exists()


def test_a_case_is_made_again_from_its_name() -> None:
    target = next(t for t in check_targets() if t.name == "encodings")
    assert case_of(target, 4, "puzzles", 9) == case_of(target, 4, "puzzles", 9)
    assert case_of(target, 4, "puzzles", 9) != case_of(target, 4, "puzzles", 10)
