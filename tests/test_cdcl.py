"""The CDCL mode: correct on every SATLIB file and Sudoku set sample (models verified, UNSAT
proofs checked), agrees with MiniSat and with DPLL on random formulas, the C kernel makes the
decisions of its readable Python form (the oracle: same statistics, models and proofs, step for
step), budgets stop it cleanly, and the pipeline adapter fills a proper Result."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, minisat, php, satlib_files
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.dimacs_fast import clauses_to_array
from satdoku.cnf.drat import check_proof
from satdoku.cnf.encode import encode
from satdoku.cnf.formula import Cnf
from satdoku.cnf.lrat import check_lrat
from satdoku.solvers.base import Deadline
from satdoku.solvers.cdcl.adapter import make_cdcl
from satdoku.solvers.cdcl.driver import BACKENDS, Cdcl, choose_backend, native
from satdoku.solvers.cdcl.params import DEFAULTS, PARAM_NAMES
from satdoku.solvers.dpll import Dpll
from satdoku.solvers.own import make_dpll
from satdoku.solvers.registry import SOLVERS, solver_version

cnfs = st.integers(1, 10).flatmap(
    lambda n: st.builds(
        lambda clauses: Cnf(n, clauses),
        st.lists(st.lists(st.integers(1, n) | st.integers(-n, -1), max_size=4), max_size=45),
    )
)


def expired() -> Deadline:
    """A deadline that has already passed."""
    return Deadline(1.0, start=time.perf_counter() - 2.0)


def decide(cnf: Cnf, **options: object) -> tuple[str, list[int] | None, Cdcl]:
    """Solve with proof logging, then check the answer (model or proof)."""
    solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses), proof=True, **options)  # type: ignore[arg-type]
    status, model = solver.solve()
    if status == "SAT":
        assert model is not None and len(model) == cnf.num_vars
        assert cnf.satisfied_by(model) == []
    else:
        assert status == "UNSAT"
        check = check_proof(cnf, solver.proof_lines())
        assert check.ok, check.message
    return status, model, solver


def test_every_satlib_file_is_decided_correctly(public_data: Path) -> None:
    for path, expected in satlib_files(public_data):
        assert decide(read_dimacs(path))[0] == expected, path.name


@pytest.mark.parametrize("restarts", ["mixed", "glucose", "luby", "none"])
@pytest.mark.parametrize("phase", ["negative", "positive"])
def test_options_stay_correct(public_data: Path, restarts: str, phase: str) -> None:
    for path in sorted((public_data / "satlib" / "uuf50-218").glob("*.cnf"))[:4]:
        assert decide(read_dimacs(path), restarts=restarts, phase=phase)[0] == "UNSAT"
    assert decide(php(7, 6), restarts=restarts, phase=phase)[0] == "UNSAT"


def test_reduction_and_garbage_collection_keep_proofs_valid() -> None:
    status, _, solver = decide(php(7, 6), reduce_first=50, reduce_inc=20)
    assert status == "UNSAT"
    stats = solver.stats
    assert stats["reductions"] >= 3 and stats["deleted"] > 100 and stats["collections"] >= 1
    assert any(line.startswith("d ") for line in solver.proof_lines())


def _same_search(n: int, formula: object, proof: str = "drat", **options: object) -> tuple:  # type: ignore[type-arg]
    """Run the C kernel and the readable twin on one formula; both runs, which must be
    equal: (answer, statistics, proof)."""
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(n, formula, proof=proof, backend=backend, **options)  # type: ignore[arg-type]
        assert solver.backend == backend
        runs.append((solver.solve(), solver.stats, solver.proof_lines()))
    assert runs[0] == runs[1], [r[:2] for r in runs]
    return runs[0]


def test_every_backend_runs_the_same_search(public_data: Path) -> None:
    """The C kernel and its readable Python form make the same decisions: identical
    statistics, models and proofs, step for step."""
    assert set(BACKENDS) == {"auto", "c", "python"} and native() is not None
    sat = public_data / "satlib"
    cases = [read_dimacs(sat / "uf50-218" / "uf50-01.cnf"),
             read_dimacs(sat / "uuf50-218" / "uuf50-02.cnf"), php(6, 5)]  # fmt: skip
    for cnf in cases:
        for proof in ("drat", "lrat"):
            run = _same_search(cnf.num_vars, clauses_to_array(cnf.clauses), proof,
                               reduce_first=30, reduce_inc=10)  # fmt: skip
            assert run[1]["reductions"] > 0 or run[1]["conflicts"] < 30


def test_small_formulas_reduce_sooner_in_both_kernels() -> None:
    """reduce_per_var: on a formula of 42 variables (php(7, 6)) the first reduction comes
    after 420 conflicts, not reduce_first's 2000, the increment scaled alike, in both kernels
    step for step; 0 turns it off; 200 variables and more keep the plain schedule."""
    from satdoku.solvers.cdcl.readable import reduce_schedule

    assert reduce_schedule(DEFAULTS, 42) == (420, 63)
    assert reduce_schedule(DEFAULTS, 200) == reduce_schedule(DEFAULTS, 10**6) == (2000, 300)
    off = [0 if name == "reduce_per_var" else v for name, v in zip(PARAM_NAMES, DEFAULTS,
                                                                   strict=True)]
    assert reduce_schedule(off, 42) == (2000, 300)
    cnf = php(7, 6)
    scaled = _same_search(cnf.num_vars, cnf.clauses, "lrat")
    plain = _same_search(cnf.num_vars, cnf.clauses, "lrat", params={"reduce_per_var": 0})
    assert scaled[0][0] == plain[0][0] == "UNSAT"
    assert 420 < scaled[1]["conflicts"] < 2000 and scaled[1]["reductions"] >= 1
    assert plain[1]["conflicts"] < 2000 and plain[1]["reductions"] == 0
    assert check_lrat(cnf, scaled[2]).ok


@pytest.mark.slow
def test_c_and_reference_agree_on_long_searches() -> None:
    """Thousands of conflicts with reductions, garbage collections, blocked restarts and mode
    switches (Luby's own long runs are in the seeded test below): still the same search step
    for step (random 3-SAT at the threshold)."""
    rng = np.random.default_rng(11)
    n = 170
    for restarts in ("glucose", "mixed"):
        clauses = [[int(v) * int(s) for v, s in zip(rng.choice(np.arange(1, n + 1), 3, False),
                                                    rng.choice([-1, 1], 3), strict=True)]
                   for _ in range(int(4.26 * n))]  # fmt: skip
        run = _same_search(n, clauses, "lrat" if restarts == "mixed" else "drat",
                           restarts=restarts, reduce_first=200, reduce_inc=50,
                           params={"switch": 200, "block_min": 500, "trailq_len": 500})
        assert restarts != "mixed" or run[1]["mode_switches"] >= 3
        assert run[1]["conflicts"] > 2000 and run[1]["collections"] > 0
        assert run[1]["blocked_restarts"] > 0


policies = st.fixed_dictionaries({
    "restarts": st.sampled_from(["mixed", "glucose", "luby", "none"]),
    "phase": st.sampled_from(["negative", "positive"]),
    "params": st.fixed_dictionaries({
        "luby_unit": st.sampled_from([1, 3, 100]), "lbdq_len": st.sampled_from([3, 50]),
        "trailq_len": st.sampled_from([4, 5000]), "block_min": st.sampled_from([0, 10000]),
        "reduce_first": st.sampled_from([4, 30, 2000]), "reduce_inc": st.sampled_from([2, 300]),
        "keep_lbd": st.sampled_from([1, 2]), "switch": st.sampled_from([5, 40, 5000]),
        "reduce_per_var": st.sampled_from([0, 1, 10])}),
})  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(cnfs, policies, st.lists(st.integers(-10, 10).filter(bool), max_size=3),
       st.sampled_from(["drat", "lrat"]))
def test_reference_is_the_oracle_on_random_formulas(cnf: Cnf, policy: dict,  # type: ignore[type-arg]
                                                    assumptions: list[int], proof: str) -> None:
    """On any small formula, under any policy, the C kernel takes the readable twin's
    decisions: same answer, model, statistics and proof (DRAT or LRAT, which then checks);
    then the same again under assumptions (a second call on the same solvers)."""
    assumptions = [x for x in assumptions if abs(x) <= cnf.num_vars]
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(cnf.num_vars, cnf.clauses, proof=proof, backend=backend, **policy)
        first = solver.solve()
        lines = solver.proof_lines()
        runs.append((first, solver.solve(assumptions=assumptions), solver.stats,
                     solver.proof_lines()))
        if proof == "lrat" and first[0] == "UNSAT":
            assert check_lrat(cnf, lines).ok
    assert runs[0] == runs[1]


def test_reference_is_the_oracle_on_seeded_3sat() -> None:
    """Random 3-SAT at the threshold, 60-120 variables, with short windows and frequent
    reductions and mode switches: hundreds of conflicts each, the same search."""
    rng = np.random.default_rng(5)
    total = 0
    for k in range(12):
        n = int(rng.integers(60, 120))
        clauses = [[int(v) * int(s) for v, s in zip(rng.choice(np.arange(1, n + 1), 3, False),
                                                    rng.choice([-1, 1], 3), strict=True)]
                   for _ in range(int(4.26 * n))]  # fmt: skip
        restarts = ("mixed", "glucose", "luby", "none")[k % 4]
        run = _same_search(n, clauses, restarts=restarts, phase=("negative", "positive")[k % 2],
                           params={"reduce_first": 20, "reduce_inc": 5, "switch": 30,
                                   "luby_unit": 5, "lbdq_len": 10, "trailq_len": 20,
                                   "block_min": 50})  # fmt: skip
        total += run[1]["conflicts"]
    assert total > 2000


def test_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose_backend() == "c" and choose_backend(pure=True) == "python"
    monkeypatch.setenv("SATDOKU_CDCL_BACKEND", "python")
    assert choose_backend() == "python" and choose_backend("c") == "c"
    with pytest.raises(ValueError, match="unknown cdcl backend"):
        choose_backend("gpu")
    import satdoku.solvers.cdcl.driver as cdcl

    monkeypatch.delenv("SATDOKU_CDCL_BACKEND")
    monkeypatch.setattr(cdcl, "native", lambda: None)  # the extension was not built
    assert choose_backend() == "python"
    with pytest.raises(ValueError, match="not built"):
        choose_backend("c")
    solver = Cdcl(2, [[1, 2], [-1]])  # the fallback still solves
    assert solver.backend == "python" and solver.solve() == ("SAT", [-1, 2])


@settings(max_examples=200, deadline=None)
@given(cnfs)
def test_agrees_with_minisat_and_dpll_on_random_formulas(cnf: Cnf) -> None:
    expected = "SAT" if minisat(cnf) else "UNSAT"
    assert decide(cnf)[0] == expected
    assert Dpll(cnf.num_vars, cnf.clauses).solve()[0] == expected


@settings(max_examples=25, deadline=None)
@given(cnfs)
def test_pure_python_kernel_on_random_formulas(cnf: Cnf) -> None:
    assert decide(cnf, pure=True)[0] == ("SAT" if minisat(cnf) else "UNSAT")


def test_random_3sat_near_the_threshold_against_minisat() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = 60
        clauses = [
            [int(v) * int(s) for v, s in zip(rng.choice(np.arange(1, n + 1), 3, replace=False),
                                           rng.choice([-1, 1], 3), strict=True)]
            for _ in range(int(4.26 * n))
        ]  # fmt: skip
        cnf = Cnf(n, clauses)
        assert decide(cnf)[0] == ("SAT" if minisat(cnf) else "UNSAT")


def test_edge_cases() -> None:
    assert decide(Cnf(0, []))[0] == "SAT"
    assert decide(Cnf(3, [[]]))[0] == "UNSAT"
    assert decide(Cnf(2, [[1], [-1]]))[0] == "UNSAT"
    status, model, _ = decide(Cnf(3, [[1, -1], [2, 2], [-3]]))
    assert status == "SAT" and model is not None and model[1:] == [2, -3]


def test_budgets_stop_cleanly() -> None:
    hard = php(9, 8)
    solver = Cdcl(hard.num_vars, clauses_to_array(hard.clauses))
    assert solver.solve(max_conflicts=100) == ("TIMEOUT", None)
    assert 100 <= solver.stats["conflicts"] < 150  # checked before each decision
    assert solver.solve(expired()) == ("TIMEOUT", None)
    assert solver.stats["conflicts"] >= 100  # kept where it stopped, not restarted
    assert solver.solve(Deadline(0.05)) == ("TIMEOUT", None)
    assert solver.stats["conflicts"] > 150  # resumed where it stopped
    with pytest.raises(ValueError, match="restart"):
        Cdcl(1, clauses_to_array([[1]]), restarts="sometimes")
    late = Cdcl(hard.num_vars, hard.clauses, deadline=expired())  # loading stops at once
    assert late.status == "TIMEOUT" and late.solve() == ("TIMEOUT", None)


def test_every_formula_form_loads_the_same() -> None:
    """Clause lists, a flat int32 array and int32 bytes (with repeated literals, a tautology
    and units) build the same solver in both kernels: same answer, same search."""
    cnf = php(6, 5).extended([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], [-30], [7, -7],
                              [3, 3, -4]])  # fmt: skip
    flat = clauses_to_array(cnf.clauses)
    runs = [_same_search(cnf.num_vars, formula, deadline=Deadline(60))
            for formula in (cnf.clauses, flat, flat.tobytes())]
    assert runs[0][0][0] == "UNSAT" and all(run == runs[0] for run in runs)
    for backend in ("c", "python"):
        with pytest.raises(ValueError, match="out of range"):
            Cdcl(2, [[1, 3]], backend=backend)


def _sudoku_records(public_data: Path) -> list:  # type: ignore[type-arg]
    from satdoku.formats import read_records

    d = public_data
    records = list(read_records(d / "norvig" / "top95.txt"))[:10]
    records += list(read_records(d / "tdoku_benchmarks" / "puzzles6_forum_hardest_1106.txt"))[:10]
    records += list(read_records(d / "vu_kr_sudoku" / "16x16.txt"))[:3]
    return records


def test_sudoku_puzzles_solve_and_verify(public_data: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode

    solver = make_cdcl()
    for rec in _sudoku_records(public_data):
        assert rec.puzzle is not None, rec
        result = solver.solve_cnf(encode(rec.puzzle, "extended"), Deadline(None))
        assert result.status == "SAT"
        board = decode_model(result.model, rec.puzzle)  # type: ignore[arg-type]
        assert rec.puzzle.check_solution(board) == []


@pytest.mark.slow
def test_large_grid_25x25(public_data: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import encode
    from satdoku.formats import read_records

    rec = next(iter(read_records(public_data / "large_grids_bnguyen" / "25x25.txt")))
    assert rec.puzzle is not None and rec.puzzle.domain == 25
    result = make_cdcl().solve_cnf(encode(rec.puzzle, "extended"), Deadline(None))
    assert result.status == "SAT"
    assert rec.puzzle.check_solution(decode_model(result.model, rec.puzzle)) == []  # type: ignore[arg-type]


def test_adapter_result_proof_and_version(public_data: Path, tmp_path: Path) -> None:
    path = public_data / "satlib" / "uuf50-218" / "uuf50-05.cnf"
    cnf = read_dimacs(path)
    solver = make_cdcl()
    assert SOLVERS["cdcl"].proofs and solver.name == "cdcl"
    proof = tmp_path / "p.lrat"
    result = solver.solve_cnf(cnf, Deadline(10), proof_path=str(proof))
    assert result.status == "UNSAT" and result.proof == str(proof)
    assert solver.proof_format == "lrat" and check_lrat(cnf, proof).ok
    drat = make_cdcl(proof="drat").solve_cnf(cnf, Deadline(10), proof_path=str(proof))
    assert drat.stats == result.stats and check_proof(cnf, proof).ok  # the same search
    assert {"decisions", "conflicts", "propagations", "restarts", "learnt"} <= set(result.stats)
    assert result.solve_seconds > 0 and result.total_seconds == 0  # the total: the solve path's
    from satdoku.solve import read_formula  # the file as a flat buffer, as the solve path reads it

    again = solver.solve_cnf(read_formula(path.read_bytes(), str(path)).cnf, Deadline(None))
    assert again.status == "UNSAT" and again.stats == result.stats
    uf50 = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-03.cnf")
    sat = solver.solve_cnf(uf50, Deadline(None))
    assert sat.status == "SAT" and sat.proof is None
    timeout = make_cdcl(max_conflicts=5).solve_cnf(php(9, 8).extended([]), Deadline(None))
    assert timeout.status == "TIMEOUT" and timeout.model is None
    variants = {"luby": {"solver": "cdcl", "restarts": "luby"},
                "jw": {"solver": "dpll", "heuristic": "jw"}}
    versions = {solver_version(name, variants) for name in ("cdcl", "luby", "dpll", "jw")}
    assert len(versions) == 4 and solver_version("cdcl") == solver_version("cdcl")
    dres = make_dpll(heuristic="dlis").solve_cnf(cnf, Deadline(None), proof_path=str(proof))
    assert dres.status == "UNSAT" and check_lrat(cnf, proof).ok
    dres = make_dpll(heuristic="dlis", proof="drat").solve_cnf(cnf, Deadline(None),
                                                               proof_path=str(proof))
    assert dres.status == "UNSAT" and check_proof(cnf, proof).ok
    with pytest.raises(ValueError, match="proof format"):
        make_cdcl(proof="drup")


def test_cli_cdcl_mode(public_data: Path, tmp_path: Path) -> None:
    sat = public_data / "satlib"
    proof = tmp_path / "p.lrat"
    cmd = [sys.executable, "-m", "satdoku.cli", "dpll", "--mode", "cdcl"]
    res = subprocess.run([*cmd, str(sat / "uuf50-218" / "uuf50-07.cnf"), "--proof", str(proof),
                          "--restarts", "luby"], capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 20, res.stderr
    assert "s UNSATISFIABLE" in res.stdout and "c conflicts " in res.stdout
    assert "c verified proof" in res.stdout
    assert check_lrat(read_dimacs(sat / "uuf50-218" / "uuf50-07.cnf"), proof).ok
    res = subprocess.run([*cmd, str(sat / "flat50-115" / "flat50-3.cnf")], capture_output=True,
                         text=True)  # fmt: skip
    assert res.returncode == 10
    model = [
        int(t) for ln in res.stdout.splitlines() if ln.startswith("v ") for t in ln[2:].split()
    ]
    assert read_dimacs(sat / "flat50-115" / "flat50-3.cnf").satisfied_by(model[:-1]) == []
    res = subprocess.run([*cmd, str(sat / "uf20-91" / "uf20-01.cnf"), "--heuristic", "jw"],
                         capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 1 and "vsids only" in res.stderr
    default = subprocess.run([*cmd[:-2], str(sat / "uf20-91" / "uf20-01.cnf")],
                             capture_output=True, text=True)  # fmt: skip
    assert default.returncode == 10 and "c satdoku dpll (vsids)" in default.stdout  # the name


def test_cli_reports_phase_times_and_the_kernel(public_data: Path) -> None:
    """`satdoku dpll --mode cdcl` names the kernel and times each phase; the readable twin
    (SATDOKU_CDCL_BACKEND=python) prints the same answer and statistics."""
    import os

    path = public_data / "satlib" / "uf20-91" / "uf20-02.cnf"
    cmd = [sys.executable, "-m", "satdoku.cli", "dpll", "--mode", "cdcl", str(path)]
    outs = []
    for backend in ("c", "python"):
        env = os.environ | {"SATDOKU_CDCL_BACKEND": backend}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert res.returncode == 10, res.stderr
        assert f"c satdoku cdcl (vsids, {backend} kernel, preprocessing)" in res.stdout
        lines = res.stdout.splitlines()
        assert {ln.split()[1] for ln in lines if ln.endswith(tuple("0123456789"))} >= {
            "parse_seconds", "build_seconds", "solve_seconds", "total_seconds", "conflicts"}
        outs.append([ln for ln in lines if not ln.startswith("c satdoku")
                     and not ln.split()[1].endswith("_seconds")])
    assert outs[0] == outs[1]


def test_cli_batch_form(public_data: Path, tmp_path: Path) -> None:
    """Several files in one process: a block per file, a summary line, the exit code of the
    whole batch; proofs go to a folder."""
    sat = public_data / "satlib"
    a, b = sat / "uf20-91" / "uf20-01.cnf", sat / "uuf50-218" / "uuf50-03.cnf"
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 2 1\n1 x 0\n")
    cmd = [sys.executable, "-m", "satdoku.cli", "dpll", "--mode", "cdcl"]

    def run(*files: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *map(str, files), *extra], capture_output=True, text=True)

    res = run(a, b, extra=("--proof", str(tmp_path / "proofs")))
    assert res.returncode == 30, res.stderr  # both answers
    blocks = res.stdout.split("c file ")[1:]
    assert [blk.splitlines()[0] for blk in blocks] == [str(a), str(b)]
    assert "s SATISFIABLE" in blocks[0] and "s UNSATISFIABLE" in blocks[1]
    assert "v " in blocks[0] and "c summary 2 files: 1 SATISFIABLE, 1 UNSATISFIABLE" in blocks[1]
    assert check_lrat(read_dimacs(b), tmp_path / "proofs" / "uuf50-03.cnf.lrat").ok
    assert run(a, b, extra=("--proof", str(tmp_path / "d"), "--proof-format", "drat")
               ).returncode == 30
    assert check_proof(read_dimacs(b), tmp_path / "d" / "uuf50-03.cnf.drup").ok
    assert run(a, a).returncode == 10 and run(b, b, extra=("--no-model",)).returncode == 20
    res = run(a, bad, b)
    assert res.returncode == 1 and "bad.cnf:2: not a literal" in res.stderr
    assert "c summary 3 files: 1 SATISFIABLE, 1 UNSATISFIABLE, 0 UNKNOWN, 1 unreadable" in (
        res.stdout)
    hard = tmp_path / "php.cnf"
    with open(hard, "w") as fh:
        from satdoku.cnf.dimacs import write_dimacs

        write_dimacs(php(11, 10), fh)
    res = run(a, hard, extra=("--time-limit", "0.2"))
    assert res.returncode == 0 and "s UNKNOWN" in res.stdout  # one undecided: 0
    assert subprocess.run([*cmd, str(a), "--time-limit", "nan"]).returncode == 1


def test_one_shot_command_imports_no_numpy(public_data: Path) -> None:
    """The default mode reads the file with the C pass and solves with the C kernel."""
    path = public_data / "satlib" / "uf50-218" / "uf50-01.cnf"
    code = (
        "import sys, contextlib, io\n"
        "from satdoku.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main(['dpll', '--mode', 'cdcl', {str(path)!r}])\n"
        "assert code == 10 and 's SATISFIABLE' in out.getvalue(), out.getvalue()\n"
        "print(sorted({'numpy', 'numba'} & set(sys.modules)))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_c_kernel_takes_its_parameters_from_the_params_table() -> None:
    """cdcl/params.py is the one source of the policy values: the C kernel has no defaults of
    its own (it refuses to start without them) and agrees on their number."""
    from satdoku.solvers.cdcl.params import P_SIZE

    mod = native()
    assert mod is not None and mod.P_SIZE == P_SIZE == len(PARAM_NAMES) == len(DEFAULTS)
    assert not hasattr(mod, "DEFAULTS")
    with pytest.raises(ValueError, match="params required"):
        mod.Kernel(3)
    with pytest.raises(ValueError, match=f"hold {P_SIZE} ints"):
        mod.Kernel(3, 0, True, 0.95, False, DEFAULTS[:-1])
    mod.Kernel(3, 0, True, 0.95, False, DEFAULTS)


def test_c_kernel_source_agrees_with_the_params_table() -> None:
    """cdcl/params.py is the one home of the parameter order and the shared codes: the C
    kernel's header (kernel.h, shared by the kernel and its binding) has an enum of P_* names
    listing the table's names in its order, and its #define codes of restart policies, proof
    modes and answers equal the table's (read from the source, so the check holds whether or
    not the kernel was built)."""
    import re

    from satdoku.solvers.cdcl import params

    source = (ROOT / "satdoku" / "solvers" / "cdcl" / "kernel.h").read_text(encoding="utf-8")
    enum = re.search(r"enum\s*\{([^}]*P_SIZE[^}]*)\}", source)
    assert enum is not None
    names = [w.strip() for w in enum.group(1).split(",") if w.strip()]
    assert names == [f"P_{n.upper()}" for n in params.PARAM_NAMES] + ["P_SIZE"]
    defines = {m[0]: int(m[1]) for m in re.findall(r"#define (\w+) \(?(-?\d+)\)?", source)}
    expected = {**{f"RESTART_{k.upper()}": v for k, v in params.RESTARTS.items()},
                **{f"PROOF_{k.upper()}": v for k, v in params.PROOFS.items()},
                **params.STATUS_CODES}
    assert {k: defines.get(k) for k in expected} == expected
    assert [getattr(params, f"P_{n.upper()}") for n in params.PARAM_NAMES] == list(
        range(params.P_SIZE))


def test_parameters_outside_their_range_are_refused() -> None:
    from satdoku.solvers.cdcl.driver import policy

    with pytest.raises(ValueError, match=r"simplify=2 out of range \(0\.\.1\)"):
        policy({"simplify": 2})
    with pytest.raises(ValueError, match=r"luby_unit=0 out of range \(>= 1\)"):
        policy({"luby_unit": 0})
    assert policy({"luby_unit": 1})[0] == 1


def _pattern_sudoku(box: int, holes: float, seed: int):  # type: ignore[no-untyped-def]
    """A solvable Sudoku of box order ``box``: the pattern grid, a seeded share of cells erased."""
    import random

    from satdoku.puzzle import sudoku

    n = box * box
    grid = [(box * (r % box) + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    for cell in random.Random(seed).sample(range(n * n), int(holes * n * n)):
        grid[cell] = 0
    return sudoku(grid, box)


@pytest.fixture(scope="module")
def sudoku36() -> Cnf:
    """A 36x36 Sudoku with 60% holes, extended encoding: 3.3 million clauses."""
    from satdoku.cnf.encode import encode

    cnf = encode(_pattern_sudoku(6, 0.6, 3), "extended")
    assert cnf.num_clauses > 3_000_000
    return cnf



@contextmanager
def _cpu_spent() -> Iterator[list[float]]:
    """This thread's CPU seconds spent inside the block (in ``[0]`` after it). A deadline test
    bounds this, not wall time: on a loaded machine the wall clock runs on while the thread
    waits for a core, but the search work done after the deadline passed (how often the
    kernel reads its clock) shows in CPU time alone."""
    spent = [0.0]
    start = time.thread_time()
    try:
        yield spent
    finally:
        spent[0] = time.thread_time() - start

@pytest.mark.slow
@pytest.mark.parametrize("mode", ["cdcl", "cdcl-python", "dpll"])
def test_deadline_covers_loading_millions_of_clauses(
    sudoku36: Cnf, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a 0.3 s limit no mode can load and solve a 36x36 Sudoku (MiniSat needs over 1 s to
    load it): all answer TIMEOUT, having spent at most 1.1 x limit + 0.3 s of this thread's CPU
    time (:func:`_cpu_spent`)."""
    if mode == "cdcl-python":
        monkeypatch.setenv("SATDOKU_CDCL_BACKEND", "python")
    solver = make_cdcl() if mode.startswith("cdcl") else make_dpll()
    solver.solve_cnf(Cnf(2, [[1, 2], [-1]]), Deadline(10))  # load the kernel outside the limit
    deadline = Deadline(0.3)
    with _cpu_spent() as spent:
        result = solver.solve_cnf(sudoku36, deadline)
    assert result.status == "TIMEOUT", result
    assert spent[0] <= 1.1 * 0.3 + 0.3, spent


@pytest.mark.parametrize("mode", ["cdcl", "cdcl-python", "dpll"])
def test_deadline_during_search(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """php(11, 10) takes every mode far longer than 0.3 s (seconds of search for cdcl):
    TIMEOUT, reported within the bound (both kernels read the clock themselves)."""
    if mode == "cdcl-python":
        monkeypatch.setenv("SATDOKU_CDCL_BACKEND", "python")
    solver = make_cdcl() if mode.startswith("cdcl") else make_dpll()
    deadline = Deadline(0.3)
    with _cpu_spent() as spent:
        result = solver.solve_cnf(php(11, 10), deadline)
    assert result.status == "TIMEOUT", result
    assert spent[0] <= 1.1 * 0.3 + 0.3, spent
    assert result.stats["conflicts"] > 0  # it did search


@settings(max_examples=60, deadline=None)
@given(cnfs, st.lists(st.lists(st.integers(1, 10) | st.integers(-10, -1), max_size=4),
                      min_size=1, max_size=6))  # fmt: skip
def test_assumptions_agree_with_minisat_call_after_call(cnf: Cnf, calls: list[list[int]]) -> None:
    """One solver, many calls under different assumptions: each answer agrees with MiniSat's
    under the same assumptions, each model satisfies the formula and the assumptions (what
    was learnt in earlier calls stays valid)."""
    from pysat.solvers import Minisat22

    solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses))
    with Minisat22(bootstrap_with=cnf.clauses) as reference:
        for raw in calls:
            assumptions = [x for x in raw if abs(x) <= cnf.num_vars]
            status, model = solver.solve(assumptions=assumptions)
            expected = reference.solve(assumptions=assumptions)
            assert status == ("SAT" if expected else "UNSAT")
            if status == "SAT":
                assert model is not None and cnf.satisfied_by(model) == []
                assert set(assumptions) <= set(model)


def test_every_backend_same_search_in_budgeted_calls() -> None:
    """A search cut by a conflict budget and resumed, call after call, is the same search in
    both kernels (each call starts from level 0, keeping what was learnt)."""
    hard = php(6, 5)
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(hard.num_vars, hard.clauses, proof="lrat", backend=backend,
                      reduce_first=40, reduce_inc=10)  # fmt: skip
        calls = []
        while not calls or calls[-1][0][0] == "TIMEOUT":
            calls.append((solver.solve(max_conflicts=20), solver.stats))
        runs.append((calls, solver.proof_lines()))
    assert runs[0] == runs[1]
    assert len(runs[0][0]) > 5 and runs[0][0][-1][0] == ("UNSAT", None)
    assert check_lrat(hard, runs[0][1]).ok  # a proof written across calls


def test_every_backend_same_search_under_assumptions(public_data: Path) -> None:
    cnf = read_dimacs(public_data / "satlib" / "uf50-218" / "uf50-04.cnf")
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(cnf.num_vars, clauses_to_array(cnf.clauses), backend=backend,
                      reduce_first=30, reduce_inc=10)  # fmt: skip
        runs.append([(solver.solve(assumptions=a), solver.stats)
                     for a in ([1, -2, 3], [-1, 7], [4, -4], [], [-1, -2, -3, -5])])  # fmt: skip
    assert runs[0] == runs[1]
    assert {status for (status, _), _ in runs[0]} == {"SAT", "UNSAT"}


def test_incremental_adapter_matches_fresh_solving(public_data: Path, tmp_path: Path) -> None:
    from satdoku.cnf.decode import decode_model
    from satdoku.cnf.encode import instance_clauses, rules_clauses
    from satdoku.formats import read_records
    from satdoku.puzzle import sudoku
    from satdoku.solvers.registry import is_incremental, make_solver

    variants = {"cdcl-inc": {"solver": "cdcl", "incremental": True}}
    inc = make_solver("cdcl-inc", variants)
    assert is_incremental("cdcl-inc", variants) and inc.incremental
    fresh = make_cdcl()
    recs = list(read_records(public_data / "norvig" / "top95.txt"))[:15]
    rules = Cnf(729, rules_clauses(recs[0].puzzle.layout, "extended"))
    conflicts = []
    for rec in recs:
        a = inc.solve_incremental(rules, instance_clauses(rec.puzzle, "extended"), Deadline(10))
        b = fresh.solve_cnf(encode(rec.puzzle, "extended"), Deadline(10))
        assert a.status == b.status == "SAT"
        assert rec.puzzle.check_solution(decode_model(a.model, rec.puzzle)) == []
        assert set(a.model) == set(b.model[:729])  # unique solutions: the same model
        assert a.message == "incremental (rules loaded once per shard)"
        conflicts.append(a.stats["conflicts"])
    assert sum(conflicts) == inc._inc.stats["conflicts"]  # per-call statistics add up
    # an impossible puzzle: UNSAT under assumptions; with a proof path, solved again for a proof
    bad = sudoku([1, 1] + [0] * 79)
    own = instance_clauses(bad, "extended")
    assert inc.solve_incremental(rules, own, Deadline(10)).status == "UNSAT"
    proof = tmp_path / "p.lrat"
    res = inc.solve_incremental(rules, own, Deadline(10), proof_path=str(proof))
    assert res.status == "UNSAT" and res.proof == str(proof) and "proof" in res.message
    assert inc.proof_format == "lrat" and check_lrat(Cnf(729, rules.clauses + own), proof).ok
    again = inc.solve_incremental(rules, instance_clauses(recs[0].puzzle, "extended"), Deadline(10))
    assert again.status == "SAT"  # still usable after an UNSAT
    # other rules: loaded afresh; a non-unit own clause: a fresh solve (no incremental label)
    hard = php(10, 9)
    with _cpu_spent() as spent:
        res = inc.solve_incremental(hard, [], Deadline(0.3))
    assert res.status == "TIMEOUT" and spent[0] <= 1.1 * 0.3 + 0.3
    res = inc.solve_incremental(Cnf(3, [[1, 2], [-1, 3]]), [[-3, -2], [1]], Deadline(10))
    assert res.status == "SAT" and res.message == "" and {1, 3, -2} <= set(res.model)


def test_seeded_cross_check_against_minisat_with_proofs() -> None:
    """400 seeded random formulas (5-70 variables, k-SAT for k = 2..5 with a few shorter
    clauses, from well under to well over the threshold: about half SAT): every answer agrees with
    MiniSat's, every model satisfies the formula, every UNSAT has a DRUP proof the checker
    accepts; the first 40 also run through the readable twin, identically."""
    import random

    rng = random.Random(20261122)
    answers = {"SAT": 0, "UNSAT": 0}
    for k in range(400):
        n = rng.randint(5, 70)
        width = rng.choice([2, 3, 3, 3, 4, 5])
        ratio = {2: 1.0, 3: 4.26, 4: 9.9, 5: 21.1}[width] * rng.uniform(0.6, 1.3)
        sizes = [width if rng.random() < 0.95 else rng.randint(1, width)
                 for _ in range(max(1, int(ratio * n)))]  # a few shorter clauses too
        clauses = [[v if rng.random() < 0.5 else -v for v in rng.sample(range(1, n + 1), min(n, m))]
                   for m in sizes]  # fmt: skip
        cnf = Cnf(n, clauses)
        status, model, solver = decide(cnf)
        assert status == ("SAT" if minisat(cnf) else "UNSAT"), k
        answers[status] += 1
        if k < 40:
            twin = Cdcl(n, clauses, proof=True, backend="python")
            assert twin.solve() == (status, model)
            assert (twin.stats, twin.proof_lines()) == (solver.stats, solver.proof_lines())
    assert min(answers.values()) >= 100, answers


@pytest.mark.parametrize("seed", range(6))
def test_clauses_added_between_calls_enumerate_every_model(seed: int) -> None:
    """add_clauses between calls: blocking each model found enumerates exactly the models
    brute force counts; both kernels make the same search, and the proof of the final UNSAT
    refutes the formula with every blocking clause added."""
    import itertools
    import random

    rng = random.Random(seed)
    n = 10
    clauses = [[rng.choice((1, -1)) * v for v in rng.sample(range(1, n + 1), 3)]
               for _ in range(30)]
    models = sum(all(any((x > 0) == bits[abs(x) - 1] for x in c) for c in clauses)
                 for bits in itertools.product((False, True), repeat=n))
    runs = []
    for backend in ("c", "python"):
        solver = Cdcl(n, clauses, proof=True, backend=backend, reduce_first=5, reduce_inc=2)
        added: list[list[int]] = []
        while True:
            solver.solve(assumptions=[1 if len(added) % 2 else -1])  # a call between
            status, model = solver.solve()
            if status == "UNSAT":
                break
            assert model is not None and Cnf(n, clauses + added).satisfied_by(model) == []
            added.append([-x for x in model])
            solver.add_clauses([added[-1]])
        runs.append((len(added), solver.stats, solver.proof_lines()))
        assert check_proof(Cnf(n, clauses + added), solver.proof_lines()).ok
    assert runs[0] == runs[1]
    assert runs[0][0] == models


def test_version_hash_covers_the_whole_cdcl_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry names the package, not a hand list: a change to any module in it (here:
    the readable kernel's source as read) changes cdcl's version, and dpll's stays."""
    from satdoku.solvers import registry

    package = ROOT / "satdoku" / "solvers" / "cdcl"
    before = {name: solver_version(name) for name in ("cdcl", "dpll")}
    real = Path.read_bytes

    def edited(self: Path) -> bytes:
        data = real(self)
        return data + b"# edited\n" if self == package / "readable.py" else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert solver_version("cdcl") != before["cdcl"]
    assert solver_version("dpll") == before["dpll"]
    assert "satdoku.solvers.cdcl" in registry.SOLVERS["cdcl"].code
