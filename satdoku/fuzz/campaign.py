"""A fuzz campaign: targets take turns on seeded cases until a time or case budget is spent;
every failure is shrunk and written as a reproducer.

Case ``i`` of kind ``k`` for target ``t`` under campaign seed ``s`` comes from
``random.Random("s/t/k/i")`` alone, so a campaign with the same seed and targets makes the
same cases in the same order (a time budget only decides how far it gets), and one case is
made again from its name (:func:`case_of`). A failure is shrunk (:mod:`satdoku.fuzz.shrink`)
while it fails the same way, then written as ``OUT/<kind>-<n>`` plus its target's file
extension (``.cnf``, ``.json``, ...) and ``OUT/<kind>-<n>.txt``: one line saying what went
wrong, the case's seed and the command that reproduces it. Nothing is written while nothing
fails.
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from satdoku.fuzz import cases as fc
from satdoku.fuzz.cases import Failure
from satdoku.fuzz.oracles import OracleError
from satdoku.fuzz.shrink import Budget
from satdoku.fuzz.targets import Target, replay_line


def case_seed(seed: int, target: str, kind: str, index: int) -> str:
    return f"{seed}/{target}/{kind}/{index}"


def case_of(target: Target, seed: int, kind: str, index: int) -> Any:
    """Case ``index`` of ``kind`` that a campaign with ``seed`` gives ``target``."""
    return target.make(random.Random(case_seed(seed, target.name, kind, index)), kind)


@dataclass
class Finding:
    """One failure: the case's name, the failure before and after shrinking, the sizes and
    the files written."""

    target: str
    kind: str
    index: int
    seed: int
    first: Failure
    failure: Failure
    files: list[str] = field(default_factory=list)
    line: str = ""


@dataclass
class TargetRun:
    """What one target did in a campaign: cases run, seconds spent running them (shrinking
    apart), findings, harness errors (oracles that disagree) and cases per kind."""

    target: Target
    cases: int = 0
    seconds: float = 0.0
    shrink_seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    harness_errors: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def rate(self) -> float:
        """Cases per second of running them."""
        return self.cases / self.seconds if self.seconds > 0 else 0.0


def safe_run(target: Target, case: Any) -> Failure | None:
    """``target.run``, an exception escaping it counted as a crash of the code under test
    (:class:`OracleError`, a doubt about the harness itself, is raised on)."""
    try:
        return target.run(case)
    except OracleError:
        raise
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return Failure(fc.CRASH, f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:"
                                 f"{where.lineno})")


@dataclass
class Campaign:
    """Targets, the campaign seed, the kinds to draw (None: each target's own), where
    findings go (None: nowhere), how long one shrink may take, the progress stream and how
    often it gets a line, how to name the command that makes a case again (targets without
    a replay of their own), and after how many failures to stop (None: never)."""

    targets: Sequence[Target]
    seed: int = 0
    kinds: Sequence[str] | None = None
    out: Path | None = None
    shrink_seconds: float = 60.0
    progress: IO[str] | None = None
    progress_every: float = 2.0
    replay_hint: Callable[[Target, str, int], str] | None = None
    max_failures: int | None = None
    runs: list[TargetRun] = field(default_factory=list)
    _numbers: Counter[str] = field(default_factory=Counter)

    def run(self, seconds: float | None = None, cases: int | None = None) -> list[TargetRun]:
        """Run until ``seconds`` have passed or every target ran ``cases`` cases (at least one
        of the two must be given); the targets take turns, one case each."""
        if seconds is None and cases is None:
            raise ValueError("a campaign needs a time or a case budget")
        self.runs = [TargetRun(t) for t in self.targets if self._kinds(t)]
        start = last = time.perf_counter()
        index = 0
        while True:
            active = [r for r in self.runs if cases is None or r.cases < cases]
            if not active or (seconds is not None and time.perf_counter() - start >= seconds):
                break
            if self.max_failures is not None and self.failures() >= self.max_failures:
                break
            for run in active:
                kinds = self._kinds(run.target)
                self._one(run, kinds[index % len(kinds)], index // len(kinds))
                if (seconds is not None and time.perf_counter() - start >= seconds) or (
                        self.max_failures is not None and self.failures() >= self.max_failures):
                    break
            index += 1
            if self.progress is not None and time.perf_counter() - last >= self.progress_every:
                last = time.perf_counter()
                self._report(last - start)
        if self.progress is not None:
            self._report(time.perf_counter() - start, final=True)
        return self.runs

    def failures(self) -> int:
        return sum(len(r.findings) for r in self.runs)

    def run_case(self, kind: str, index: int) -> list[TargetRun]:
        """Run case ``index`` of ``kind`` alone, on every target that takes the kind."""
        self.runs = [TargetRun(t) for t in self.targets if kind in t.kinds]
        for run in self.runs:
            self._one(run, kind, index)
        return self.runs

    def _kinds(self, target: Target) -> list[str]:
        return [k for k in target.kinds if self.kinds is None or k in self.kinds]

    def _one(self, run: TargetRun, kind: str, index: int) -> None:
        target = run.target
        began = time.perf_counter()
        try:
            case = case_of(target, self.seed, kind, index)
            failure = safe_run(target, case)
        except OracleError as exc:
            run.harness_errors.append(f"{case_seed(self.seed, target.name, kind, index)}: {exc}")
            failure = None
        run.seconds += time.perf_counter() - began
        run.cases += 1
        run.kinds[kind] += 1
        if failure is not None:
            began = time.perf_counter()
            run.findings.append(self._shrunk(target, kind, index, case, failure))
            run.shrink_seconds += time.perf_counter() - began

    def _shrunk(self, target: Target, kind: str, index: int, case: Any, first: Failure
                ) -> Finding:
        def fails(candidate: Any) -> bool:
            try:
                again = safe_run(target, candidate)
            except OracleError:
                return False
            return again is not None and again.what == first.what

        small = target.shrink(case, fails, Budget(seconds=self.shrink_seconds))
        failure = safe_run(target, small) or first  # (a flaky failure keeps the first words)
        finding = Finding(target.name, kind, index, self.seed, first, failure)
        self._write(target, finding, small)
        return finding

    def _write(self, target: Target, finding: Finding, case: Any) -> None:
        self._numbers[finding.kind] += 1
        name = f"{finding.kind}-{self._numbers[finding.kind]}"
        seed = case_seed(self.seed, target.name, finding.kind, finding.index)
        if self.out is not None and target.write is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            prefix = str(self.out / name)
            comments = [f"satdoku fuzz: {finding.failure.line()}",
                        f"target {target.name}, case seed {seed}"]
            finding.files = target.write(prefix, case, comments)
        hint = ""
        if target.replay and finding.files:
            hint = replay_line(target.replay, finding.files[0])
        elif self.replay_hint is not None:
            hint = self.replay_hint(target, finding.kind, finding.index)
        finding.line = (f"{finding.failure.line()} | target {target.name}, case seed {seed}"
                        + (f" | reproduce: {hint}" if hint else ""))
        if self.out is not None and target.write is not None:
            (self.out / f"{name}.txt").write_text(finding.line + "\n", encoding="utf-8")
            finding.files.append(str(self.out / f"{name}.txt"))

    def _report(self, elapsed: float, final: bool = False) -> None:
        total = sum(r.cases for r in self.runs)
        failed = self.failures()
        rates = ", ".join(f"{r.target.name} {r.rate:.1f}/s" for r in self.runs)
        line = (f"fuzz: {total} cases in {elapsed:.0f} s, {total / max(elapsed, 1e-9):.1f}/s, "
                f"{failed} failures ({rates})")
        stream = self.progress
        assert stream is not None
        if stream.isatty() and not final:
            stream.write("\r" + line[:200] + "\x1b[K")
        else:
            stream.write(("\r\x1b[K" if stream.isatty() else "") + line + "\n")
        stream.flush()


def summary(runs: Sequence[TargetRun]) -> list[str]:
    """One line per target: cases, seconds, cases per second, findings, harness errors."""
    out = []
    for r in runs:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.kinds.items()))
        out.append(f"{r.target.name}: {r.cases} cases in {r.seconds:.1f} s ({r.rate:.1f}/s; "
                   f"{kinds}), {len(r.findings)} failures"
                   + (f", {len(r.harness_errors)} oracle disagreements" if r.harness_errors
                      else ""))  # fmt: skip
    return out


def print_findings(runs: Sequence[TargetRun], stream: IO[str] = sys.stderr) -> None:
    for r in runs:
        for f in r.findings:
            stream.write(f.line + "\n")
        for e in r.harness_errors:
            stream.write(f"oracle disagreement: {e}\n")
