"""What the fuzzer tests: one :class:`Target` per thing under test, made from the solver
registry so that a new solver, a new option or a new option value is fuzzed without an edit
here.

- :func:`solver_target`: any solver by name (registered, or a configured variant such as an
  external binary) through the solve path, :func:`satdoku.solve.solve`: the limits, output
  parsing, model verification and proof checking it is measured with. Formulas for CNF
  solvers, small puzzles for puzzle-level ones; with ``incremental`` an API sequence through
  its incremental use (:class:`~satdoku.fuzz.sequences.PathSession`);
- :func:`own_targets`: every family of our own solvers with each case under options drawn from
  the family's option schema (every ``enum`` value, both sides of every boolean, limits such
  as ``max_conflicts`` set or not: :func:`draw_options`), the incremental use of every solver
  whose record says ``incremental``, and the object APIs of the CDCL and DPLL kernels
  (:mod:`satdoku.fuzz.sequences`);
- the checker, encoding, counting and reader targets live in :mod:`satdoku.fuzz.checks`.

A family is a registered solver that is not a preset of an earlier one (``dpll-jw`` only
fixes an option of ``dpll``; ``cdcl-luby`` one of ``cdcl``).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from satdoku.cnf.encodings import DEFAULT_ENCODING
from satdoku.cnf.formula import Formula
from satdoku.formats import CnfFile, Record
from satdoku.fuzz import cases as fc
from satdoku.fuzz.cases import Case, Failure
from satdoku.fuzz.formulas import KINDS, calls, generate
from satdoku.fuzz.oracles import BRUTE_VARS, answer, drat_trim, model_problem
from satdoku.fuzz.puzzles import brute_count, puzzle_make, shrink_puzzle, small_puzzle, write_puzzle
from satdoku.fuzz.sequences import CdclSession, DpllSession, PathSession, fit, run_sequence
from satdoku.fuzz.shrink import Budget, shrink_case
from satdoku.solve import open_solver, solve
from satdoku.solvers.base import RunLimits
from satdoku.solvers.cdcl.driver import BACKENDS, PHASES, RESTARTS
from satdoku.solvers.choices import HEURISTICS
from satdoku.solvers.registry import CNF, OURS, PUZZLE, SOLVERS, level
from satdoku.solvers.result import FAILED

#: variables of the formulas the pure-Python DPLL object gets (it has no learning)
SMALL_VARS = 40
#: a TIMEOUT counts as a failure when the reference decided the formula in under this many s
FAST = 0.1


@dataclass
class Target:
    """One thing under test: ``make(rng, kind)`` draws a case, ``run(case)`` returns its first
    failure (or None), ``shrink(case, fails, budget)`` a smaller failing case, ``write(prefix,
    case, comments)`` its reproducer files, ``replay`` the argument list that reruns a
    written case (``{file}`` stands for the reproducer)."""

    name: str
    description: str
    kinds: tuple[str, ...]
    make: Callable[[random.Random, str], Any]
    run: Callable[[Any], Failure | None]
    shrink: Callable[[Any, Callable[[Any], bool], Budget], Any] = shrink_case
    write: Callable[[str, Any, list[str]], list[str]] | None = None
    replay: tuple[str, ...] = ()


def write_cnf_case(prefix: str, case: Case, comments: list[str]) -> list[str]:
    path = prefix + ".cnf"
    fc.write_case(path, case, comments)
    return [path]


# --- the registry: families and their options -------------------------------------------------
def _preset_of(spec: Any, base: Any) -> bool:
    """Does ``spec`` only fix options of ``base`` (same factory and option schema)?"""
    return (spec.factory == base.factory and spec.option_schema == base.option_schema
            and set(spec.options) <= set(spec.option_schema))  # fmt: skip


def families(origin: str | None = None) -> list[str]:
    """Registered solvers that are not presets of an earlier one (``origin``: only ours or
    only references), external binaries aside (they need a command)."""
    out: list[str] = []
    for name, spec in SOLVERS.items():
        if spec.required or (origin is not None and spec.origin != origin):
            continue
        if not any(_preset_of(spec, SOLVERS[base]) for base in out):
            out.append(name)
    return out


def draw_options(schema: Mapping[str, Any], rng: random.Random,
                 skip: tuple[str, ...] = ("incremental",)) -> dict[str, Any]:
    """Options drawn from a JSON schema of options: any ``enum`` value, either boolean, a
    nullable integer (a limit) unset or small, an integer near its minimum, a number inside
    its bounds; options in ``skip`` (and strings) keep their defaults."""
    out: dict[str, Any] = {}
    for key, prop in schema.items():
        if key in skip:
            continue
        kinds = prop.get("type", [])
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if "enum" in prop:
            out[key] = rng.choice(prop["enum"])
        elif "boolean" in kinds:
            out[key] = rng.random() < 0.5
        elif "integer" in kinds:
            low = int(prop.get("minimum", 0))
            if "null" in kinds and rng.random() < 0.6:
                continue
            out[key] = rng.randint(low, min(int(prop.get("maximum", low + 30)), low + 30))
        elif "number" in kinds:
            low = float(prop.get("minimum", prop.get("exclusiveMinimum", 0.0)))
            high = float(prop.get("maximum", prop.get("exclusiveMaximum", low + 1.0)))
            out[key] = low + (high - low) * rng.uniform(0.05, 0.95)
    return out


def is_limit(prop: Mapping[str, Any]) -> bool:
    """Is an option a budget of the solver's own (a nullable integer: ``max_conflicts``,
    ``max_decisions``), under which a TIMEOUT is an answer, not a failure?"""
    kinds = prop.get("type", [])
    return isinstance(kinds, list) and "integer" in kinds and "null" in kinds


class _Solvers:
    """Configured solvers by (name, options), opened once each (opening hashes sources)."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], Any] = {}

    def get(self, name: str, options: Mapping[str, Any], variants: Mapping[str, Any]) -> Any:
        key = (name, repr(sorted(options.items())))
        found = self._open.get(key)
        if found is None:
            if options:
                entry = {**variants.get(name, {"solver": name}), **options}
                variants = {**variants, name: entry}
            found = self._open[key] = open_solver(name, variants)
        return found


# --- one solve through the solve path --------------------------------------------------------
def classify(answer_: Any, expected: bool, ref_seconds: float, fast: float = FAST,
             limited: bool = False) -> Failure | None:
    """The failure of a checked answer of the solve path (:class:`satdoku.solve.Answer`) to
    a formula whose answer is ``expected``, or None. ``limited``: the solver ran under a
    budget of its own (conflicts, decisions), so a TIMEOUT is no failure."""
    result = answer_.result
    status, message = result.status, result.message
    if answer_.verified == FAILED:
        return Failure(fc.BAD_MODEL, answer_.detail or message)
    if status == "ERROR":
        if "proof" in message:
            return Failure(fc.REJECTED_PROOF, message)
        if "exit code" in message and "answered" in message:
            return Failure(fc.EXIT_CODE, message)
        if any(w in message for w in ("killed by a signal", "cannot run")):
            return Failure(fc.CRASH, message)
        if any(w in message for w in ("garbage", "no answer", "bad s line", "bad result",
                                      "UNKNOWN", "without a model")):  # fmt: skip
            return Failure(fc.MALFORMED, message)
        return Failure(fc.CRASH, message)
    if status in ("TIMEOUT", "MEMOUT"):
        if ref_seconds < fast and not (limited and status == "TIMEOUT"):
            what = fc.SLOW_TIMEOUT if status == "TIMEOUT" else fc.SLOW_MEMOUT
            return Failure(what, f"{status} ({message or 'no answer'}) where the reference "
                                 f"decided in {ref_seconds * 1000:.1f} ms")
        return None
    want = "SAT" if expected else "UNSAT"
    if status != want:
        return Failure(fc.WRONG_ANSWER, f"answered {status}, expected {want}")
    return None


@dataclass
class SolvePath:
    """Runs cases through the solve path for one solver (a registered name or a variant)."""

    name: str
    variants: Mapping[str, Any]
    workdir: str
    against: str = "minisat22"
    time_limit: float = 10.0
    drat_trim: str | None = None
    solvers: _Solvers = field(default_factory=_Solvers)

    def one_shot(self, case: Case, options: Mapping[str, Any] | None = None,
                 limited: bool = False, time_limit: float | None = None) -> Failure | None:
        """Solve the case's formula once (within ``time_limit``, default the path's); its
        answer checked against the oracles."""
        solver = self.solvers.get(self.name, options or {}, self.variants)
        cnf = case.cnf()
        start = time.perf_counter()
        expected = answer(cnf.clauses, backend=self.against)
        ref_seconds = time.perf_counter() - start
        proof = os.path.join(self.workdir, "proof") if solver.proofs else None
        record = Record("fuzz.cnf", 1, 1, "dimacs",
                        cnf=CnfFile("fuzz.cnf", cnf.num_vars, cnf.num_clauses, ""))
        limits = RunLimits(time_limit=time_limit or self.time_limit, verify_time_limit=60.0)
        done = solve(record, solver, DEFAULT_ENCODING, limits, formula=Formula.of(cnf),
                     workdir=self.workdir, proof_path=proof)
        failure = classify(done, expected, ref_seconds, limited=limited)
        if failure is None and done.status == "SAT":
            bad = model_problem(cnf.clauses, done.result.model, num_vars=cnf.num_vars)
            if bad is not None:  # the solve path let it through: our own check did not
                failure = Failure(fc.BAD_MODEL, f"{bad} (the solve path verified it)")
        drat = str(solver.options.get("proof", "drat")).lower() in ("drat", "drup")
        if (failure is None and done.status == "UNSAT" and proof is not None and drat
                and self.drat_trim is not None and os.path.exists(proof)
                and drat_trim(self.drat_trim, cnf, proof, self.workdir) is False):
            failure = Failure(fc.REJECTED_PROOF, "drat-trim rejects the proof our checker "
                                                 "accepted")
        if (failure is None and done.status == "UNSAT" and proof is not None
                and solver.binary_proofs):
            # again with a proof nobody keeps: written in the binary format (in a directory of
            # its own, so the kept proof stays for a failing case), checked, removed
            again = solve(record, solver, DEFAULT_ENCODING, limits, formula=Formula.of(cnf))
            failure = classify(again, expected, ref_seconds, limited=limited)
        return failure

    def puzzle(self, puzzle: Any, options: Mapping[str, Any] | None = None,
               limited: bool = False, time_limit: float | None = None) -> Failure | None:
        """Solve a puzzle with a puzzle-level solver; brute force knows the answer."""
        solver = self.solvers.get(self.name, options or {}, self.variants)
        start = time.perf_counter()
        expected = brute_count(puzzle, 1) > 0
        ref_seconds = time.perf_counter() - start
        done = solve(Record("fuzz.json", 1, 1, "json", puzzle=puzzle), solver, DEFAULT_ENCODING,
                     time_limit or self.time_limit)
        return classify(done, expected, ref_seconds, limited=limited)

    def sequence(self, case: Case, seed: int = 0) -> Failure | None:
        session = PathSession(case, self.name, self.variants, self.workdir, seed)
        try:
            return run_sequence(case, session, self.against)
        finally:
            session.close()


def solver_target(name: str, variants: Mapping[str, Any] | None, workdir: str,
                  kinds: tuple[str, ...] = tuple(KINDS), incremental: bool = False,
                  against: str = "minisat22", time_limit: float = 10.0,
                  drat_trim: str | None = None, replay: tuple[str, ...] = ()) -> Target:
    """The target of one configured solver through the solve path (see the module doc);
    ``replay`` is the command line that reruns a reproducer (``{file}`` stands for it)."""
    variants = dict(variants or {})
    if incremental:
        entry = dict(variants.get(name) or {"solver": name})
        variants[name] = {**entry, "incremental": True}
    path = SolvePath(name, variants, workdir, against, time_limit, drat_trim)
    if level(name, variants) == PUZZLE:
        return Target(name, f"{name} on small puzzles (solve path)", ("puzzles",),
                      puzzle_make, path.puzzle, shrink_puzzle, write_puzzle, replay)
    if incremental:
        return Target(name, f"{name}: API sequences through its incremental use", kinds,
                      lambda rng, kind: generate(kind, rng, sequence=True), path.sequence,
                      write=write_cnf_case, replay=replay)
    return Target(name, f"{name} through the solve path", kinds,
                  lambda rng, kind: generate(kind, rng), path.one_shot,
                  write=write_cnf_case, replay=replay)


# --- our own solvers, every option --------------------------------------------------------------
@dataclass(frozen=True)
class Drawn:
    """A case (a :class:`Case` or a puzzle) with what it runs under: options, a seed (of an
    interrupt's timing), a time limit (None: the target's)."""

    case: Any
    options: Mapping[str, Any]
    seed: int = 0
    time_limit: float | None = None


def shrink_drawn(drawn: Drawn, fails: Callable[[Any], bool], budget: Budget) -> Drawn:
    """Shrink the case of a drawn one, what it runs under kept."""
    shrink = shrink_case if isinstance(drawn.case, Case) else shrink_puzzle
    return replace(drawn, case=shrink(drawn.case, lambda c: fails(replace(drawn, case=c)),
                                      budget))


def write_drawn(prefix: str, drawn: Drawn, comments: list[str]) -> list[str]:
    more = [f"options {dict(drawn.options)}"]
    if drawn.time_limit is not None:
        more.append(f"time limit {drawn.time_limit:g} s")
    write = write_cnf_case if isinstance(drawn.case, Case) else write_puzzle
    return write(prefix, drawn.case, [*comments, *more])


#: time limits a family's case may get instead of its target's (TIMEOUT then no failure)
SHORT_LIMITS = (0.002, 0.02)
#: families that search without learning (chronological backtracking): exponential on some
#: formulas MiniSat decides in milliseconds by design, so their TIMEOUT counts as a failure
#: only where at most BRUTE_VARS variables occur (a complete search has 2^14 leaves at most)
NO_LEARNING = ("dpll",)


@dataclass
class _Family:
    """One solver family: each case drawn under random options of its schema, sometimes a
    short time limit (a formula for a CNF solver, a small puzzle for a puzzle-level one)."""

    name: str
    path: SolvePath
    puzzles: bool = False

    def make(self, rng: random.Random, kind: str) -> Drawn:
        options = draw_options(SOLVERS[self.name].option_schema, rng)
        limit = rng.choice(SHORT_LIMITS) if rng.random() < 0.1 else None
        case = small_puzzle(rng) if self.puzzles else generate(kind, rng)
        return Drawn(case, options, time_limit=limit)

    def run(self, drawn: Drawn) -> Failure | None:
        schema = SOLVERS[self.name].option_schema
        limited = drawn.time_limit is not None or any(is_limit(schema[k])
                                                      for k in drawn.options)  # fmt: skip
        if self.name in NO_LEARNING and isinstance(drawn.case, Case):
            used = {abs(x) for clause in drawn.case.clauses for x in clause}
            limited = limited or len(used) > BRUTE_VARS
        run = self.path.puzzle if self.puzzles else self.path.one_shot
        return run(drawn.case, drawn.options, limited, drawn.time_limit)


def family_targets(workdir: str, against: str = "minisat22", drat_trim: str | None = None
                   ) -> list[Target]:
    """Every solver family through the solve path under options of its schema: our CNF
    solvers on formulas, the puzzle-level solvers (ours and CP-SAT) on small puzzles."""
    out = []
    for name in families():
        spec = SOLVERS[name]
        path = SolvePath(name, {}, workdir, against, 60.0, drat_trim)
        if spec.level == CNF and spec.origin == OURS:
            fam = _Family(name, path)
            out.append(Target(name, f"{name}, every option of its schema, through the solve "
                              "path", tuple(KINDS), fam.make, fam.run, shrink_drawn,
                              write_drawn))  # fmt: skip
        elif spec.level == PUZZLE:
            fam = _Family(name, path, puzzles=True)
            label = name.split("-")[0]
            out.append(Target(label, f"{label} solvers, every option of their schema, on small "
                              "puzzles through the solve path", ("puzzles",), fam.make,
                              fam.run, shrink_drawn, write_drawn))
    return out


def own_targets(workdir: str, against: str = "minisat22", drat_trim: str | None = None
                ) -> list[Target]:
    """Every solver family (:func:`family_targets`), the incremental use of every solver
    that has one, and the kernels' object APIs (see the module docstring)."""
    out = family_targets(workdir, against, drat_trim)
    for name in families():
        if SOLVERS[name].incremental and SOLVERS[name].level == CNF:
            target = solver_target(name, None, workdir, incremental=True, against=against)
            target.name = f"{name}-inc"
            out.append(target)
    out.append(cdcl_api_target(against))
    out.append(dpll_api_target(against))
    return out


# --- the kernels' object APIs --------------------------------------------------------------------
def cdcl_api_target(against: str = "minisat22") -> Target:
    """Our Cdcl object under API sequences: both kernels (the Python one on small formulas),
    every restart policy and phase, no proof, DRAT or LRAT, small clause-database schedules so that
    reductions happen within a few conflicts, preprocessing off, before the search or after
    its first conflicts."""
    def make(rng: random.Random, kind: str) -> Drawn:
        case = generate(kind, rng, sequence=True)
        backends = [b for b in BACKENDS if b != "auto"] if case.num_vars <= 60 else ["c"]
        options = {"backend": rng.choice(backends), "restarts": rng.choice(list(RESTARTS)),
                   "phase": rng.choice(PHASES), "proof": rng.choice((False, "drat", "lrat")),
                   "decay": rng.choice((0.8, 0.95)), "reduce_first": rng.choice((None, 3, 20)),
                   "reduce_inc": rng.choice((None, 2)), "simplify": rng.random() < 0.7,
                   "params": {"simp_delay": rng.choice((0, 0, 3, 2000))}}  # fmt: skip
        return Drawn(case, options, rng.randrange(1 << 30))

    def run(drawn: Drawn) -> Failure | None:
        try:
            session = CdclSession(drawn.case, drawn.options, drawn.seed)
        except Exception as exc:
            return Failure(fc.CRASH, f"{type(exc).__name__}: {exc}")
        return run_sequence(drawn.case, session, against)

    return Target("cdcl-api", "the Cdcl object: add, solve under assumptions, budgets, "
                  "interrupts; both kernels", tuple(KINDS), make, run, shrink_drawn,
                  write_drawn)


def dpll_api_target(against: str = "minisat22") -> Target:
    """Our Dpll object solved again and again (decision budgets between), every heuristic,
    pure literals on or off, proofs on or off."""
    def make(rng: random.Random, kind: str) -> Drawn:
        small = KINDS[kind](rng, SMALL_VARS)  # type: ignore[call-arg]
        case = fit(calls(rng, small), DpllSession.ops, False)
        options = {"heuristic": rng.choice(HEURISTICS), "pure_literals": rng.random() < 0.5,
                   "seed": rng.randrange(100), "proof": rng.random() < 0.5}
        return Drawn(case, options)

    def run(drawn: Drawn) -> Failure | None:
        return run_sequence(drawn.case, DpllSession(drawn.case, drawn.options), against)

    return Target("dpll-api", "the Dpll object solved again and again, under budgets",
                  ("random", "layered", "edges"), make, run, shrink_drawn, write_drawn)


def replay_line(argv: tuple[str, ...], path: str | Path) -> str:
    """The command that reruns a reproducer, as one shell-safe line."""
    return fc.quoted([str(path) if a == "{file}" else a for a in argv])
