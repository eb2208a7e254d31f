"""OR-tools CP-SAT as a puzzle-level solver: one integer variable per cell, AllDifferent per
group, ``<`` for Futoshiki relations, givens as fixed domains.

``workers`` defaults to 1: on the 2-core reference machine one worker beat the default worker
count (and times stay comparable with the single-threaded SAT solvers); the rule's ``threads``
should match it. ortools is imported only when a puzzle is solved.
"""

from __future__ import annotations

from typing import Any

from satdoku.puzzle import Puzzle
from satdoku.solvers.base import Deadline
from satdoku.solvers.result import SAT, TIMEOUT, UNSAT, Result


def build_model(puzzle: Puzzle) -> tuple[Any, list[Any]]:
    """(CpModel, cell variables) of a puzzle."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    xs = [
        m.new_int_var(g, g, f"c{c}") if g else m.new_int_var(1, puzzle.domain, f"c{c}")
        for c, g in enumerate(puzzle.givens)
    ]
    for cells in puzzle.groups:
        m.add_all_different([xs[c] for c in cells])
    for a, b in puzzle.less_than:
        m.add(xs[a] < xs[b])
    return m, xs


class CpSatSolver:
    """CP-SAT with a time limit and a fixed number of workers."""

    def __init__(self, workers: int = 1, seed: int = 0, name: str = "cpsat") -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"solver {name}: workers must be an integer >= 1, got {workers!r}")
        self.workers, self.seed, self.name = workers, int(seed), name

    def solve_puzzle(self, puzzle: Puzzle, deadline: Deadline) -> Result:
        from ortools.sat.python import cp_model

        model, xs = build_model(puzzle)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = self.workers
        solver.parameters.random_seed = self.seed
        # CP-SAT's own SIGINT handler leaves SIGINT at SIG_DFL after a solve: Ctrl-C then
        # killed the process silently instead of ending `satdoku solve` with its one line
        solver.parameters.catch_sigint_signal = False
        left = deadline.remaining()
        if left is not None:  # building the model counted: CP-SAT gets what is left
            if left <= 0:
                return Result(TIMEOUT, message="time limit reached while building the model")
            solver.parameters.max_time_in_seconds = max(0.001, left)
        code = solver.solve(model)
        stats = {"decisions": int(solver.num_branches), "conflicts": int(solver.num_conflicts)}
        board = None
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            status = SAT
            board = tuple(int(solver.value(x)) for x in xs)
        elif code == cp_model.INFEASIBLE:
            status = UNSAT
        elif code == cp_model.UNKNOWN:
            status = TIMEOUT
        else:
            raise RuntimeError(f"CP-SAT status {solver.status_name(code)}")
        return Result(status, board=board, stats=stats, solve_seconds=float(solver.wall_time))


def make_cpsat(name: str = "cpsat", **options: Any) -> CpSatSolver:
    return CpSatSolver(name=name, **options)
