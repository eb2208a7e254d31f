from satdoku.pipeline.solve import enforce_limit
from satdoku.solvers.base import SAT, TIMEOUT, UNSAT, Result


def test_late_answers_are_timeouts():
    late = enforce_limit(Result(SAT, model=[1], total_seconds=3.9), 2.0)
    assert late.status == TIMEOUT and late.model is None
    assert "answered SAT after 3.90 s" in late.message
    on_time = enforce_limit(Result(UNSAT, total_seconds=1.99), 2.0)
    assert on_time.status == UNSAT
    assert enforce_limit(Result(SAT, total_seconds=50), None).status == SAT


def test_big_sets_report_details_for_the_head_and_the_problems():
    from satdoku.formats.record import Record
    from satdoku.puzzle import sudoku
    from satdoku.report import text

    n = text.DETAIL_LIMIT + 50
    recs = [Record("f", i, i, "line", puzzle=sudoku((0,) * 16)) for i in range(1, n + 1)]
    sols = {"m/extended": [{"id": str(i), "line": str(i), "status": "SAT", "verified": "yes",
                            "solution": "1234341221434321", "detail": ""} for i in range(1, n + 1)]}
    sols["m/extended"][n - 1].update(status="TIMEOUT", verified="-", solution="Instance Timeout")
    times = {"m/extended": [{"id": str(i), "status": "SAT", "total_seconds": "0.001"}
                            for i in range(1, n + 1)]}
    report = text.build_report("big", recs, sols, times)
    assert f"Instance {text.DETAIL_HEAD} (line" in report
    assert f"Instance {text.DETAIL_HEAD + 1} (line" not in report
    assert f"Instance {n} (line" in report  # the timeout is listed
