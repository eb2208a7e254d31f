from satdoku.pipeline.solve import enforce_limit
from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Result


def test_late_answers_are_timeouts():
    late = enforce_limit(Result(SAT, model=[1], total_seconds=3.9), 2.0)
    assert late.status == TIMEOUT and late.model is None
    assert "answered SAT after 3.90 s" in late.message
    on_time = enforce_limit(Result(UNSAT, total_seconds=1.99), 2.0)
    assert on_time.status == UNSAT
    assert enforce_limit(Result(SAT, total_seconds=50), None).status == SAT
