"""Cross-solver checks of one set: failed verifications and SAT/UNSAT disagreements."""

from __future__ import annotations

from collections.abc import Mapping


def find_problems(set_name: str, runs: Mapping[str, list[dict[str, str]]]) -> list[str]:
    """Readable problems: every FAILED verification, and every instance that one solver
    calls SAT and another UNSAT. ``runs`` maps a run name (solver/encoding) to its SatSols rows."""
    problems: list[str] = []
    by_id: dict[str, dict[str, str]] = {}
    for run, rows in runs.items():
        for row in rows:
            if row["verified"] == "FAILED":
                problems.append(f"set {set_name} instance {row['id']} (line {row['line']}): "
                                f"{run} answer failed verification: {row['detail']}")
            if row["status"] in ("SAT", "UNSAT"):
                by_id.setdefault(row["id"], {})[run] = row["status"]
    for ident, answers in by_id.items():
        if len(set(answers.values())) > 1:
            sat = sorted(r for r, s in answers.items() if s == "SAT")
            unsat = sorted(r for r, s in answers.items() if s == "UNSAT")
            problems.append(f"set {set_name} instance {ident}: solvers disagree: "
                            f"SAT by {', '.join(sat)}; UNSAT by {', '.join(unsat)}")
    return problems


def unsat_support(runs: Mapping[str, list[dict[str, str]]]) -> dict[str, str]:
    """How each UNSAT answer is backed: 'proof' when a checked proof exists, else 'agreement'
    when at least two solvers say UNSAT, else 'single solver'."""
    votes: dict[str, list[str]] = {}
    for rows in runs.values():
        for row in rows:
            if row["status"] == "UNSAT":
                votes.setdefault(row["id"], []).append(row["verified"])
    return {i: "proof" if "proof" in v else "agreement" if len(v) > 1 else "single solver"
            for i, v in votes.items()}
