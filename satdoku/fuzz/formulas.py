"""Formula generators of the fuzzer, one per kind, each a function of a seeded
``random.Random`` (a case is reproduced from its seed alone):

- ``random``: random k-CNF with mixed clause widths (mostly 3, some 1, 2, 4, 5), from well
  under to well over the satisfiability threshold, so about as many SAT as UNSAT answers;
- ``layered``: cnfuzz-style layers (Brummayer, Lonsing and Biere, SAT 2010): overlapping
  windows of variables, each with its own clauses, a few clauses reaching into earlier layers,
  which gives formulas with structure (and long implication chains) instead of uniform noise;
- ``edges``: what parsers and loaders get wrong: repeated literals, tautologies, the empty
  clause, repeated clauses, unit clauses, variables that occur nowhere, sparse variable
  numbers (gaps), one long clause;
- ``puzzles``: a small puzzle (:mod:`satdoku.fuzz.puzzles`, solvable or not) under a random
  registered encoding; for API sequences the shared rules are the formula and each call
  solves another puzzle of the layout under its givens (as ``cdcl-inc`` is used).

:func:`calls` draws an API sequence for a formula: solves under random assumptions, added
clauses, conflict limits and interrupts.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from satdoku.cnf.encode import (
    encode,
    encoding_applies,
    instance_clauses,
    rules_clauses,
    rules_num_vars,
)
from satdoku.cnf.encodings import ENCODINGS
from satdoku.fuzz.cases import ADD, INTERRUPT, LIMIT, SOLVE, Call, Case
from satdoku.fuzz.puzzles import small_puzzle

#: variables of a ``random`` / ``edges`` formula: mostly small enough for brute force
MAX_VARS = 40
#: clauses per variable at the satisfiability threshold, by width
THRESHOLD = {1: 0.5, 2: 1.0, 3: 4.26, 4: 9.93, 5: 21.1}


def _clause(rng: random.Random, variables: list[int], width: int) -> list[int]:
    chosen = rng.sample(variables, min(width, len(variables)))
    return [v if rng.random() < 0.5 else -v for v in chosen]


def _num_vars(rng: random.Random, top: int) -> int:
    """Mostly small (brute force decides up to 14 variables), sometimes up to ``top``."""
    return rng.randint(1, 14) if rng.random() < 0.7 else rng.randint(15, max(15, top))


def random_kcnf(rng: random.Random, max_vars: int = MAX_VARS) -> Case:
    n = _num_vars(rng, max_vars)
    width = rng.choice((2, 3, 3, 3, 4, 5))
    m = max(1, round(THRESHOLD[width] * n * rng.uniform(0.4, 1.5)))
    variables = list(range(1, n + 1))
    widths = [width if rng.random() < 0.85 else rng.randint(1, 5) for _ in range(m)]
    return Case.of(n, [_clause(rng, variables, w) for w in widths])


def layered(rng: random.Random, max_vars: int = 4 * MAX_VARS) -> Case:
    """cnfuzz's recipe, scaled down: layers of 3-30 variables, each overlapping the previous
    one by a random part, with 3.0-4.5 clauses per variable of width 3-4 inside the layer;
    each literal reaches into an earlier layer with a small probability."""
    layers: list[tuple[int, int]] = []
    high = 0
    for i in range(rng.randint(1, 6)):
        width = rng.randint(3, 30)
        low = 1 if i == 0 else max(1, high - rng.randint(0, high // 2))
        high = min(max_vars, low + width - 1)
        layers.append((low, high))
        if high >= max_vars:
            break
    clauses = []
    for i, (low, high) in enumerate(layers):
        inside = list(range(low, high + 1))
        for _ in range(round((high - low + 1) * rng.uniform(3.0, 4.5))):
            clause = _clause(rng, inside, rng.choice((3, 3, 4)))
            for j, lit in enumerate(clause):
                if i and rng.random() < 0.1:  # a literal from an earlier layer
                    lo, hi = layers[rng.randrange(i)]
                    v = rng.randint(lo, hi)
                    clause[j] = v if lit > 0 else -v
            clauses.append(clause)
    return Case.of(max(hi for _, hi in layers), clauses)


def edges(rng: random.Random, max_vars: int = MAX_VARS) -> Case:
    """A random formula made awkward (see the module docstring)."""
    base = random_kcnf(rng, max_vars)
    n = base.num_vars
    names = list(range(1, n + 1))
    if rng.random() < 0.5:  # gaps: sparse variable numbers
        names = sorted(rng.sample(range(1, 4 * n + 2), n))
    clauses = [[names[abs(x) - 1] * (1 if x > 0 else -1) for x in c] for c in base.clauses]
    top = max(names) + (rng.randint(1, 5) if rng.random() < 0.5 else 0)  # unused variables
    for _ in range(rng.randint(1, 6)):
        what = rng.choice(("repeat", "tautology", "empty", "duplicate", "unit", "long"))
        c = rng.choice([c for c in clauses if c] or [[names[0]]])
        if what == "repeat":
            clauses.append([*c, *rng.sample(c, len(c))])
        elif what == "tautology":
            lit = rng.choice(c)
            clauses.append([*c, -lit])
        elif what == "empty" and rng.random() < 0.3:  # rare: the answer is then UNSAT
            clauses.insert(rng.randint(0, len(clauses)), [])
        elif what == "duplicate":
            clauses.append(list(c))
        elif what == "unit":
            v = rng.choice(names)
            clauses.append([v if rng.random() < 0.5 else -v])
        elif what == "long":
            clauses.append(_clause(rng, names, rng.randint(6, max(6, len(names)))))
    rng.shuffle(clauses)
    return Case.of(top, clauses)


def puzzle_formula(rng: random.Random, sequence: bool = False) -> Case:
    """A small puzzle's formula under a random encoding; with ``sequence`` the layout's rules
    and one solve per puzzle of the layout, its givens as assumptions (a non-simplified
    encoding: the simplified ones have no shared rules)."""
    puzzle = small_puzzle(rng)
    if not sequence:
        cnf = encode(puzzle, rng.choice(sorted(e for e in ENCODINGS
                                               if encoding_applies(puzzle.layout, e))))
        return Case.of(cnf.num_vars, cnf.clauses)
    encoding = rng.choice(sorted(e for e, rec in ENCODINGS.items()
                                 if not rec.simplified and encoding_applies(puzzle.layout, e)))
    rules = rules_clauses(puzzle.layout, encoding)
    steps = []
    for _ in range(rng.randint(1, 6)):  # puzzles of the layout; Futoshiki relations are added
        other = small_puzzle(rng, puzzle.kind, puzzle.size)
        own = instance_clauses(other, encoding)
        relations = tuple(tuple(c) for c in own if len(c) != 1)
        if relations:
            steps.append(Call(ADD, clauses=relations))
        steps.append(Call(SOLVE, tuple(c[0] for c in own if len(c) == 1)))
    steps.append(Call(SOLVE, ()))
    return Case.of(rules_num_vars(puzzle.layout, encoding), rules, steps).fitted()


def calls(rng: random.Random, case: Case, top: int | None = None) -> Case:
    """``case`` with a random API sequence: 1-8 calls, each a solve under 0-4 assumptions
    (sometimes contradicting ones), added clauses over ``1..top`` (default: the formula's
    variables), a solve under a budget of 0-30 conflicts, or an interrupted solve. A formula
    that came with its own sequence keeps it."""
    if case.calls:
        return case
    n = max(1, top or case.num_vars)
    variables = list(range(1, n + 1))
    out = []
    for _ in range(rng.randint(1, 8)):
        op = rng.choice((SOLVE, SOLVE, SOLVE, ADD, LIMIT, INTERRUPT))
        assumptions = tuple(_clause(rng, variables, rng.randint(0, 4)))
        if assumptions and rng.random() < 0.05:
            assumptions += (-assumptions[0],)
        if op == ADD:
            added = tuple(tuple(_clause(rng, variables, rng.randint(1, 4)))
                          for _ in range(rng.randint(1, 3)))  # fmt: skip
            out.append(Call(ADD, clauses=added))
        elif op == LIMIT:
            out.append(Call(LIMIT, assumptions, budget=rng.randint(0, 30)))
        else:
            out.append(Call(op, assumptions))
    out.append(Call(SOLVE, ()))  # the plain question at the end: is the whole formula SAT?
    return Case(max(case.num_vars, n), case.clauses, tuple(out))


#: kind -> generator of one-shot cases
KINDS: dict[str, Callable[[random.Random], Case]] = {
    "random": random_kcnf,
    "layered": layered,
    "edges": edges,
    "puzzles": puzzle_formula,
}


def generate(kind: str, rng: random.Random, sequence: bool = False) -> Case:
    """One case of ``kind``; with ``sequence`` an API sequence on it (:func:`calls`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown formula kind {kind!r}; known: {', '.join(KINDS)}")
    if kind == "puzzles":
        return puzzle_formula(rng, sequence)
    case = KINDS[kind](rng)
    return calls(rng, case) if sequence else case
