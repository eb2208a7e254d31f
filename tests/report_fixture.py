"""A small results directory in the documented stage-file formats, for the report tests.

Two sets: ``nine`` (six 9x9 Sudoku lines, the last one INVALID) and ``futo`` (three 5x5
Futoshiki). Runs: minisat22, cadical195, dpll, cdcl on the extended encoding, minisat22 on the
minimal one. Planted on purpose: a dpll TIMEOUT (nine #3), a cdcl answer that failed verification
(nine #2), and a SAT/UNSAT disagreement (futo #3: cadical195 says UNSAT). Times are fixed
numbers, so every figure of the tables can be checked by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

from satdoku.stagefiles.tables import SOLS_COLUMNS, TIMES_COLUMNS, write_tsv

TIME_LIMIT = 10.0
SETS = ("nine", "futo")
RUNS = ("minisat22/extended", "cadical195/extended", "dpll/extended", "cdcl/extended",
        "minisat22/minimal")

#: (set, run) -> per instance (status, seconds, decisions); '' decisions = not reported
TIMES: dict[tuple[str, str], list[tuple[str, float, str]]] = {
    ("nine", "minisat22/extended"): [("SAT", 0.01, "30"), ("SAT", 0.02, "40"),
                                     ("SAT", 0.04, "50"), ("SAT", 0.03, "20"),
                                     ("UNSAT", 0.05, "10")],
    ("nine", "minisat22/minimal"): [("SAT", 0.02, "60"), ("SAT", 0.03, "70"),
                                    ("SAT", 0.09, "90"), ("SAT", 0.05, "40"),
                                    ("UNSAT", 0.08, "20")],
    ("nine", "cadical195/extended"): [("SAT", 0.02, ""), ("SAT", 0.02, ""), ("SAT", 0.03, ""),
                                      ("SAT", 0.02, ""), ("UNSAT", 0.04, "")],
    ("nine", "dpll/extended"): [("SAT", 0.5, "5"), ("SAT", 1.5, "15"), ("TIMEOUT", 10.0, "99"),
                                ("SAT", 2.0, "20"), ("UNSAT", 0.25, "2")],
    ("nine", "cdcl/extended"): [("SAT", 0.1, "8"), ("SAT", 0.2, "9"), ("SAT", 0.4, "12"),
                                ("SAT", 0.3, "10"), ("UNSAT", 0.2, "3")],
    ("futo", "minisat22/extended"): [("SAT", 0.01, "3"), ("SAT", 0.01, "4"), ("SAT", 0.02, "5")],
    ("futo", "minisat22/minimal"): [("SAT", 0.01, "3"), ("SAT", 0.02, "4"), ("SAT", 0.02, "6")],
    ("futo", "cadical195/extended"): [("SAT", 0.01, ""), ("SAT", 0.01, ""), ("UNSAT", 0.02, "")],
    ("futo", "dpll/extended"): [("SAT", 0.05, "3"), ("SAT", 0.06, "3"), ("SAT", 0.07, "4")],
    ("futo", "cdcl/extended"): [("SAT", 0.03, "2"), ("SAT", 0.02, "2"), ("SAT", 0.04, "3")],
}
FAILED = {("nine", "cdcl/extended", "2")}


def _instances(set_name: str) -> list[dict]:
    if set_name == "nine":
        rows: list[dict] = [{"id": str(i), "line": i, "source": "nine.txt", "notation": "line",
                             "empty": ".", "kind": "sudoku", "box": 3, "givens": "." * 81}
                            for i in range(1, 6)]
        rows.append({"id": "6", "line": 6, "source": "nine.txt", "notation": "line",
                     "empty": ".", "error": "80 cells is not a Sudoku size"})
        return rows
    return [{"id": str(i), "line": 1 + 7 * (i - 1), "source": "futo.dat", "notation": "futoshiki",
             "empty": "0", "kind": "futoshiki", "size": 5, "givens": "." * 25}
            for i in range(1, 4)]


def files(results: Path) -> list[str]:
    """Every gathered stage file under ``results`` (what the cross-set report rules pass)."""
    found = [*results.glob("Instances/*/*.jsonl"), *results.glob("SatSols/*/*/*.tsv"),
             *results.glob("SatOutputTimes/*/*/*.tsv")]
    return [str(p) for p in sorted(found)]


def build(root: Path, runs: tuple[str, ...] = RUNS) -> Path:
    """Write results/ under ``root``; returns the results directory."""
    results = root / "results"
    for name in SETS:
        d = results / "Instances" / name
        d.mkdir(parents=True, exist_ok=True)
        insts = _instances(name)
        (d / "00000.jsonl").write_text("".join(json.dumps(r) + "\n" for r in insts))
        for run in runs:
            times, sols = [], []
            answers = iter(TIMES[(name, run)])
            for inst in insts:
                status, secs, dec = ("INVALID", 0.0, "") if "error" in inst else next(answers)
                failed = (name, run, inst["id"]) in FAILED
                times.append({"id": inst["id"], "line": inst["line"], "status": status,
                              "solve_seconds": f"{secs * 0.8:.6f}",
                              "total_seconds": f"{secs:.6f}", "decisions": dec,
                              "conflicts": dec and str(int(dec) // 2), "propagations": "",
                              "restarts": "", "learnt": "", "load1": "0.5", "message": "",
                              "measurement": "in-process", "cores": "0"})
                sols.append({"id": inst["id"], "line": inst["line"], "status": status,
                             "verified": "FAILED" if failed else "yes" if status == "SAT" else "-",
                             "solution": "Instance Wrong Answer" if failed else status,
                             "detail": "row 1 repeats 5" if failed else ""})
            for sub, rows, columns in (("SatOutputTimes", times, TIMES_COLUMNS),
                                       ("SatSols", sols, SOLS_COLUMNS)):
                p = results / sub / run / f"{name}.tsv"
                p.parent.mkdir(parents=True, exist_ok=True)
                write_tsv(rows, p, columns)
    return results
