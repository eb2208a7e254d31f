"""Problems of one set: failed verifications, SAT/UNSAT disagreements, solver errors, runs that
hit their limit on every instance, and given solutions that differ from the verified answer.

The one place problems are found: the set's text report, its ``.check`` file, the summary, the
problems page and the explorer all list these, in red."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from satdoku.solvers.result import LIMIT_STATUSES
from satdoku.stagefiles.tsv import GIVEN_DIFFERS

#: Problem kinds, in the order they are listed. The first two are wrong evidence: the check
#: fails the workflow on them; the others are failures the reports and the check name in red.
KINDS = ("failed", "disagree", "error", "limit", "given")
WRONG_KINDS = ("failed", "disagree")
#: Instances named on an error line (the count and the SatSols rows give the rest).
SHOWN_IDS = 5
#: Instances whose given solution differs, named one per line; more are counted on one line (a
#: file of puzzles with several solutions must not bury the other problems).
SHOWN_GIVEN = 20


def problem_headline(n: int) -> str:
    return (f"{n} PROBLEM(S): wrong answers, solver disagreements, solver errors, runs that "
            "hit their limit on every instance, or given solutions that differ")


@dataclass
class _Run:
    """What one run's rows said so far (counts, first error)."""

    valid: int = 0
    limited: dict[str, int] = field(default_factory=dict)
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # id, line, detail
    error_count: int = 0


@dataclass
class Problems:
    """The problems of one set, fed its SatSols rows a shard (or the whole set) at a time:
    every FAILED verification, every instance one solver calls SAT and another UNSAT, every
    run with ERROR answers, every run stopped by its limit on every valid instance, and every
    instance whose verified board differs from the solution the input gives. All rows of one
    instance must come in the same :meth:`add` call."""

    set_name: str
    _found: list[tuple[str, str, str]] = field(default_factory=list)  # kind, run(s), text
    _runs: dict[str, _Run] = field(default_factory=dict)
    _given_shown: int = 0
    _given_more: list[str] = field(default_factory=list)  # ids past SHOWN_GIVEN

    def add(self, runs: Mapping[str, list[dict[str, str]]]) -> Problems:
        name = self.set_name
        by_id: dict[str, dict[str, str]] = {}
        given: dict[str, tuple[str, list[str]]] = {}
        for run, rows in runs.items():
            seen = self._runs.setdefault(run, _Run())
            for row in rows:
                status = row["status"]
                if row["verified"] == "FAILED":
                    self._found.append(("failed", run, f"set {name} instance {row['id']} (line "
                                        f"{row['line']}): {run} answer failed verification: "
                                        f"{row['detail']}"))
                if status in ("SAT", "UNSAT"):
                    by_id.setdefault(row["id"], {})[run] = status
                if status != "INVALID":
                    seen.valid += 1
                if status in LIMIT_STATUSES:
                    seen.limited[status] = seen.limited.get(status, 0) + 1
                elif status == "ERROR":
                    seen.error_count += 1
                    if len(seen.errors) < SHOWN_IDS:
                        seen.errors.append((row["id"], row["line"], row.get("detail", "")))
                if row.get("detail") == GIVEN_DIFFERS and row["verified"] != "FAILED":
                    given.setdefault(row["id"], (row["line"], []))[1].append(run)
        for ident, answers in by_id.items():
            if len(set(answers.values())) > 1:
                sat = sorted(r for r, s in answers.items() if s == "SAT")
                unsat = sorted(r for r, s in answers.items() if s == "UNSAT")
                self._found.append(("disagree", " ".join(sorted(answers)),
                                    f"set {name} instance {ident}: solvers disagree: "
                                    f"SAT by {', '.join(sat)}; UNSAT by {', '.join(unsat)}"))
        for ident, (line, named) in given.items():
            if self._given_shown >= SHOWN_GIVEN:
                self._given_more.append(ident)
                continue
            self._given_shown += 1
            self._found.append(("given", " ".join(named),
                                f"set {name} instance {ident} (line {line}): the solution given "
                                f"in the input differs from the verified answer of "
                                f"{', '.join(named)} (the puzzle has several solutions, or the "
                                "given one is wrong)"))
        return self

    def _run_problems(self) -> list[tuple[str, str, str]]:
        out = []
        name = self.set_name
        for run, seen in self._runs.items():
            if seen.error_count:
                ids = ", ".join(i for i, _, _ in seen.errors)
                more = ", ..." if seen.error_count > len(seen.errors) else ""
                ident, line, detail = seen.errors[0]
                out.append(("error", run, f"set {name}: {run} returned ERROR on "
                            f"{seen.error_count} instance(s) ({ids}{more}); instance {ident} "
                            f"(line {line}): {detail or 'no message'}"))
            limited = sum(seen.limited.values())
            if seen.valid and limited == seen.valid:
                counts = ", ".join(f"{n} {s}" for s, n in sorted(seen.limited.items()))
                out.append(("limit", run, f"set {name}: {run} solved none of its {seen.valid} "
                            f"instance(s): it hit its limit on every one ({counts})"))
        if self._given_more:
            more = self._given_more
            out.append(("given", "", f"set {name}: and {len(more)} more instance(s) whose given "
                        f"solution differs from the verified answer ({', '.join(more[:SHOWN_IDS])}"
                        f"{', ...' if len(more) > SHOWN_IDS else ''}; SatSols detail)"))
        return out

    def _all(self) -> list[tuple[str, str, str]]:
        found = self._found + self._run_problems()
        return sorted(found, key=lambda p: KINDS.index(p[0]))  # stable: input order kept

    def texts(self, kinds: Sequence[str] = KINDS) -> list[str]:
        """The readable problems (of the given kinds), wrong evidence first."""
        return [text for kind, _, text in self._all() if kind in kinds]

    def runs(self) -> set[str]:
        """The runs a problem is about (red in the explorer's solver table): not those whose
        verified answer only differs from a given solution (the input is in question)."""
        return {run for kind, named, _ in self._all() if kind != "given"
                for run in named.split(" ")}


def find_problems(set_name: str, runs: Mapping[str, list[dict[str, str]]]) -> list[str]:
    """Readable problems of one set (see :class:`Problems`); ``runs`` maps a run name
    (solver/encoding) to its SatSols rows."""
    return Problems(set_name).add(runs).texts()


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
