import pytest

from satdoku.cnf.encode import encode
from satdoku.formats import read_records
from satdoku.puzzle import sudoku
from satdoku.solvers.base import Deadline
from satdoku.solvers.registry import make_solver, resolve, solver_version
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT

REFERENCES = ["minisat22", "glucose4", "cadical195"]


@pytest.mark.parametrize("name", REFERENCES)
def test_reference_solvers_solve_and_verify(public_data, name):
    solver = make_solver(name)
    recs = list(read_records(public_data / "norvig/hardest.txt"))[:3]
    for rec in recs:
        res = solver.solve_cnf(encode(rec.puzzle), Deadline(10))
        assert res.status == SAT
        from satdoku.cnf.decode import decode_model

        assert rec.puzzle.check_solution(decode_model(res.model, rec.puzzle)) == []
        assert res.solve_seconds >= 0 and res.total_seconds == 0  # the total: the solve path's
    assert solver.solve_cnf(encode(sudoku([1, 1] + [0] * 14)), Deadline(10)).status == UNSAT


def _hard_cnf():
    # pigeonhole 10 into 9: hard for resolution-based solvers, far beyond a 0.2 s limit
    from pysat.examples.genhard import PHP

    return PHP(9).clauses


@pytest.mark.parametrize("name", REFERENCES)
def test_time_limit_reports_timeout(name):
    from satdoku.cnf.formula import Cnf

    clauses = _hard_cnf()
    cnf = Cnf(max(abs(x) for c in clauses for x in c), clauses)
    deadline = Deadline(0.3)
    res = make_solver(name).solve_cnf(cnf, deadline)
    spent = deadline.elapsed()
    assert res.status == TIMEOUT
    assert spent < 5  # the deadline was enforced (CaDiCaL by killing its process)


def test_registry_variants_and_versions():
    variants = {"fast": {"solver": "minisat22"}, "minisat22": {}}
    assert resolve("fast", variants)[0] == "minisat22"
    with pytest.raises(KeyError, match="unknown solver"):
        resolve("nosuch", {})
    assert "python-sat" in solver_version("minisat22")
    assert solver_version("minisat22") != solver_version("glucose4")


def test_incremental_mode_matches_fresh_solving_and_times_out(public_data):
    from satdoku.cnf.encode import instance_clauses, rules_clauses
    from satdoku.cnf.formula import Cnf

    inc = make_solver("inc", {"inc": {"solver": "minisat22", "incremental": True}})
    fresh = make_solver("minisat22")
    recs = list(read_records(public_data / "norvig/top95.txt"))[:20]
    rules = Cnf(729, rules_clauses(recs[0].puzzle.layout, "extended"))
    for rec in recs:
        a = inc.solve_incremental(rules, instance_clauses(rec.puzzle, "extended"), Deadline(10))
        b = fresh.solve_cnf(encode(rec.puzzle), Deadline(10))
        assert a.status == b.status == SAT
        assert set(a.model) == set(b.model)  # unique solutions: the same model
        assert "incremental" in a.message
    unsat = instance_clauses(sudoku([1, 1] + [0] * 79), "extended")
    assert inc.solve_incremental(rules, unsat, Deadline(10)).status == UNSAT
    again = inc.solve_incremental(rules, instance_clauses(recs[0].puzzle, "extended"),
                                  Deadline(10))
    assert again.status == SAT  # still usable after an UNSAT
    php = _hard_cnf()
    hard = Cnf(max(abs(x) for c in php for x in c), php)
    deadline = Deadline(0.3)
    res = inc.solve_incremental(hard, [], deadline)
    assert res.status == TIMEOUT and deadline.elapsed() < 5


def test_unknown_solver_options_are_rejected():
    with pytest.raises(ValueError, match="unknown option"):
        make_solver("x", {"x": {"solver": "minisat22", "heuristic": "jw"}})
    with pytest.raises(ValueError, match=r"incremental mode needs a backend that honours "
                       r"interrupt\(\)"):
        make_solver("x", {"x": {"solver": "cadical195", "incremental": True}})


def test_watchdog_honours_an_earlier_deadline_after_a_later_one() -> None:
    """Re-arming does not wake the thread unless it must wake earlier than planned."""
    import threading
    import time as _time

    from satdoku.solvers.pysat_backends import Watchdog

    class Target:
        def __init__(self) -> None:
            self.hit = threading.Event()

        def interrupt(self) -> None:
            self.hit.set()

    dog = Watchdog()
    slow, quick = Target(), Target()
    dog.arm(slow, 30.0)
    dog.disarm()
    t0 = _time.monotonic()
    dog.arm(quick, 0.2)
    assert quick.hit.wait(10.0)  # not 30 s later
    assert not slow.hit.is_set()
    assert _time.monotonic() - t0 >= 0.2
    dog.arm(slow, 0.5)  # (0.5 s: a loaded machine may pause this thread between the two calls)
    dog.disarm()  # disarmed in time: no interrupt
    assert not slow.hit.wait(0.8)
