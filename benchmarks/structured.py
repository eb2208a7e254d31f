"""Structured CNF families for benchmarks and differential checks, generated from seeds:
factoring (array multipliers), pigeonhole, parity (XOR chains, planted XOR systems), bounded
model checking (a counter with an input), flat graph colouring and quasigroups with holes.

Each generator returns a :class:`satdoku.cnf.formula.Cnf`; :func:`family_instances` lists a
family's instances at a scale (``small`` for quick checks, ``default`` for the benchmark).
The benchmark scripts run as ``python benchmarks/bench_X.py``, so this folder is on their path.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from bench_drat import xor_chain
from bench_search import colouring_cnf, flat_graph

from satdoku.cnf.formula import Cnf


class Builder:
    """Fresh variables and Tseitin gates over a growing clause list."""

    def __init__(self) -> None:
        self.top = 0
        self.clauses: list[list[int]] = []

    def var(self) -> int:
        self.top += 1
        return self.top

    def vars(self, k: int) -> list[int]:
        return [self.var() for _ in range(k)]

    def and2(self, a: int, b: int) -> int:
        y = self.var()
        self.clauses += [[-y, a], [-y, b], [y, -a, -b]]
        return y

    def or_all(self, lits: list[int]) -> int:
        y = self.var()
        self.clauses += [[-y, *lits]] + [[y, -a] for a in lits]
        return y

    def and_all(self, lits: list[int]) -> int:
        y = self.var()
        self.clauses += [[y, *(-a for a in lits)]] + [[-y, a] for a in lits]
        return y

    def xor2(self, a: int, b: int) -> int:
        y = self.var()
        self.clauses += [[-y, a, b], [-y, -a, -b], [y, -a, b], [y, a, -b]]
        return y

    def full_adder(self, a: int, b: int, c: int) -> tuple[int, int]:
        """(sum, carry) of three bits."""
        s = self.xor2(self.xor2(a, b), c)
        carry = self.var()
        self.clauses += [[-a, -b, carry], [-a, -c, carry], [-b, -c, carry],
                         [a, b, -carry], [a, c, -carry], [b, c, -carry]]  # fmt: skip
        return s, carry

    def half_adder(self, a: int, b: int) -> tuple[int, int]:
        return self.xor2(a, b), self.and2(a, b)

    def cnf(self) -> Cnf:
        return Cnf(self.top, self.clauses)


def factoring(n: int, bits: int) -> Cnf:
    """Is ``n`` the product of two ``bits``-bit numbers both > 1? An array multiplier (partial
    products, ripple-carry rows) whose product bits are fixed to ``n``: SAT for such a
    composite, UNSAT for a prime."""
    b = Builder()
    x, y = b.vars(bits), b.vars(bits)
    acc = [b.and2(x[i], y[0]) for i in range(bits)]
    out = [acc[0]]
    acc = acc[1:]
    for j in range(1, bits):
        row = [b.and2(x[i], y[j]) for i in range(bits)]
        carry = None
        new = []
        for i in range(bits):
            a = acc[i] if i < len(acc) else None
            if a is None and carry is None:
                new.append(row[i])
                continue
            if a is None or carry is None:
                s, carry = b.half_adder(row[i], a if a is not None else carry)  # type: ignore[arg-type]
            else:
                s, carry = b.full_adder(row[i], a, carry)
            new.append(s)
        if carry is not None:
            new.append(carry)
        out.append(new[0])
        acc = new[1:]
    out += acc
    for i, bit in enumerate(out):
        b.clauses.append([bit] if (n >> i) & 1 else [-bit])
    if n >> len(out):
        b.clauses.append([])
    b.clauses.append(x[1:])  # x > 1
    b.clauses.append(y[1:])  # y > 1
    return b.cnf()


def pigeonhole(holes: int) -> Cnf:
    """holes + 1 pigeons, each in a hole, no two in one: UNSAT."""
    pigeons = holes + 1

    def v(i: int, j: int) -> int:
        return i * holes + j + 1

    clauses = [[v(i, j) for j in range(holes)] for i in range(pigeons)]
    clauses += [[-v(i, j), -v(k, j)] for j in range(holes) for i in range(pigeons)
                for k in range(i + 1, pigeons)]  # fmt: skip
    return Cnf(pigeons * holes, clauses)


def xor_system(n: int, equations: int, width: int, seed: int) -> Cnf:
    """``equations`` random XORs of ``width`` of ``n`` variables, each a Tseitin chain whose
    end is fixed to the parity of a planted assignment: SAT (parity learning, like SATLIB's
    par family)."""
    rng = random.Random(seed)
    planted = [rng.random() < 0.5 for _ in range(n + 1)]
    b = Builder()
    b.vars(n)
    for _ in range(equations):
        chosen = rng.sample(range(1, n + 1), width)
        acc = chosen[0]
        for v in chosen[1:]:
            acc = b.xor2(acc, v)
        parity = sum(planted[v] for v in chosen) % 2 == 1
        b.clauses.append([acc] if parity else [-acc])
    return b.cnf()


def counter_bmc(bits: int, steps: int, target: int) -> Cnf:
    """Bounded model checking of a ``bits``-bit counter from 0 that adds its input bit each
    step: can it hold ``target`` after ``steps`` steps? SAT iff target <= steps."""
    b = Builder()
    state = b.vars(bits)
    b.clauses += [[-s] for s in state]
    for _ in range(steps):
        inc = b.var()
        carry = inc
        nxt = []
        for s in state:
            bit, carry = b.half_adder(s, carry)
            nxt.append(bit)
        b.clauses.append([-carry])  # no overflow
        state = nxt
    for i, s in enumerate(state):
        b.clauses.append([s] if (target >> i) & 1 else [-s])
    return b.cnf()


def flat_colouring(vertices: int, edges: int, seed: int) -> Cnf:
    """SATLIB-style flat graph 3-colouring with a planted colouring: SAT."""
    return Cnf(3 * vertices, colouring_cnf(vertices, flat_graph(vertices, edges, seed)))


def quasigroup_with_holes(order: int, holes: float, seed: int) -> Cnf:
    """A Latin square of ``order`` (the cyclic one with rows, columns and symbols permuted at
    random) with a fraction ``holes`` of its cells emptied, to complete (satdoku's Latin
    encoding, the rest as units): SAT."""
    from satdoku.cnf.encode import encode
    from satdoku.puzzle import latin

    rng = random.Random(seed)
    rows, cols = rng.sample(range(order), order), rng.sample(range(order), order)
    symbols = rng.sample(range(1, order + 1), order)
    board = [symbols[(rows[r] + cols[c]) % order] for r in range(order) for c in range(order)]
    for cell in rng.sample(range(order * order), round(holes * order * order)):
        board[cell] = 0
    return encode(latin(board, order))


_PRIMES = [p for p in range(2, 1 << 15) if all(p % d for d in range(2, int(p**0.5) + 1))]


def _factor_cases(bits: int, count: int, seed: int) -> list[tuple[str, Cnf]]:
    """Half products of two random primes of ``bits`` bits (SAT), half primes of 2*bits - 1
    bits (UNSAT)."""
    rng = random.Random(seed)
    primes = [p for p in _PRIMES if p.bit_length() == bits]
    big = [p for p in _PRIMES + _more_primes(2 * bits - 1) if p.bit_length() == 2 * bits - 1]
    out = []
    for k in range(count):
        if k % 2 == 0:
            p, q = rng.choice(primes), rng.choice(primes)
            out.append((f"factor{bits}-{p}x{q}", factoring(p * q, bits)))
        else:
            p = rng.choice(big)
            out.append((f"factor{bits}-prime{p}", factoring(p, bits)))
    return out


def _more_primes(bits: int) -> list[int]:
    """Some primes of ``bits`` bits (trial division from 2**(bits-1) up)."""
    out, n = [], (1 << (bits - 1)) + 1
    while len(out) < 40 and n < 1 << bits:
        if all(n % d for d in range(2, int(n**0.5) + 1)):
            out.append(n)
        n += 2
    return out


def permuted(cnf: Cnf, seed: int) -> Cnf:
    """The same formula with its variables renamed, their signs flipped at random, each
    clause's literals and the clauses shuffled (from ``seed``): as hard for a solver in
    principle, but none of the original's lucky orderings."""
    rng = random.Random(seed)
    names = list(range(1, cnf.num_vars + 1))
    rng.shuffle(names)
    flip = [rng.random() < 0.5 for _ in range(cnf.num_vars + 1)]
    clauses = []
    for clause in cnf.clauses:
        lits = [(names[abs(x) - 1] if x > 0 else -names[abs(x) - 1]) * (-1 if flip[abs(x)] else 1)
                for x in clause]  # fmt: skip
        rng.shuffle(lits)
        clauses.append(lits)
    rng.shuffle(clauses)
    return Cnf(cnf.num_vars, clauses)


SCALES = ("small", "default", "heldout")


def heldout_instances(seed: int) -> dict[str, list[tuple[str, Callable[[], Cnf]]]]:
    """Per family, instances the ``default`` scale does not hold, from ``seed``: other seeds,
    other sizes near the default ones, and the families without a seed of their own
    (pigeonhole, XOR chains, the counter) permuted. For checking that a change made on the
    default files holds on formulas it was not made on."""
    rng = random.Random(seed)
    s = [rng.randrange(1, 1 << 30) for _ in range(16)]
    fams: dict[str, list[tuple[str, Callable[[], Cnf]]]] = {}
    cases = _factor_cases(13, 3, s[0]) + _factor_cases(14, 3, s[1])
    fams["factor"] = [(name, (lambda c=cnf: c)) for name, cnf in cases]
    fams["php"] = [(f"php{h}-p{s[2] + i}", (lambda h=h, i=i: permuted(pigeonhole(h), s[2] + i)))
                   for i, h in enumerate((7, 8, 8))]  # fmt: skip
    fams["parity"] = [(f"xorchain{k}-p{s[3]}", (lambda k=k: permuted(xor_chain(k), s[3])))
                      for k in (600, 1200)]  # fmt: skip
    fams["parity"] += [(f"xorsys{n}-s{s[4] + i}",
                        (lambda n=n, i=i: xor_system(n, n, 4, s[4] + i)))
                       for i, n in enumerate((110, 130, 150))]  # fmt: skip
    bmc = ((8, 120, 120), (8, 160, 161), (9, 220, 221), (9, 260, 260), (9, 320, 321))
    fams["bmc"] = [(f"counter{b}-t{t}-v{v}-p{s[5]}",
                    (lambda b=b, t=t, v=v: permuted(counter_bmc(b, t, v), s[5])))
                   for b, t, v in bmc]  # fmt: skip
    colour = ((600, 1400), (600, 1400), (800, 1850), (1000, 2300), (1500, 3400))
    fams["colour"] = [(f"flat{v}-{e}-s{s[6] + i}",
                       (lambda v=v, e=e, i=i: flat_colouring(v, e, s[6] + i)))
                      for i, (v, e) in enumerate(colour)]  # fmt: skip
    fams["qwh"] = [(f"qwh{o}-h42-s{s[7] + i}",
                    (lambda o=o, i=i: quasigroup_with_holes(o, 0.42, s[7] + i)))
                   for i, o in enumerate((20, 25, 30))]  # fmt: skip
    return fams


def family_instances(scale: str = "default",
                     seed: int = 1) -> dict[str, list[tuple[str, Callable[[], Cnf]]]]:
    """Per family, (instance name, builder) pairs: five or six instances a family at
    ``default`` (from a tenth of a second to a few seconds each for the minisat binary), tiny
    ones at ``small``, others like the default ones from ``seed`` at ``heldout``
    (:func:`heldout_instances`)."""
    if scale == "heldout":
        return heldout_instances(seed)
    small = scale == "small"
    fams: dict[str, list[tuple[str, Callable[[], Cnf]]]] = {}
    cases = (_factor_cases(5, 2, 29) if small
             else _factor_cases(13, 3, 29) + _factor_cases(14, 3, 31))  # fmt: skip
    fams["factor"] = [(name, (lambda c=cnf: c)) for name, cnf in cases]
    fams["php"] = [(f"php{h}", (lambda h=h: pigeonhole(h)))
                   for h in ((3, 4, 5) if small else (6, 7, 8))]  # fmt: skip
    fams["parity"] = [(f"xorchain{k}", (lambda k=k: xor_chain(k)))
                      for k in ((8, 12) if small else (400, 800, 1600))]  # fmt: skip
    fams["parity"] += [(f"xorsys{n}-s{s}", (lambda n=n, s=s: xor_system(n, n, 4, s)))
                       for n, s in (((12, 1), (14, 2)) if small else ((100, 1), (120, 2),
                                                                     (140, 3)))]
    bmc = ((3, 4, 4), (3, 4, 5)) if small else ((8, 100, 100), (8, 140, 141), (9, 200, 201),
                                               (9, 250, 250), (9, 300, 301))
    fams["bmc"] = [(f"counter{b}-t{t}-v{v}", (lambda b=b, t=t, v=v: counter_bmc(b, t, v)))
                   for b, t, v in bmc]  # fmt: skip
    colour = ((20, 40, 1), (30, 60, 2)) if small else ((600, 1400, 1), (600, 1400, 2),
                                                      (600, 1400, 3), (1000, 2300, 4),
                                                      (2000, 4400, 5))
    fams["colour"] = [(f"flat{v}-{e}-s{s}", (lambda v=v, e=e, s=s: flat_colouring(v, e, s)))
                      for v, e, s in colour]  # fmt: skip
    qwh = ((5, 0.4, 1), (6, 0.5, 2)) if small else ((20, 0.42, 1), (25, 0.42, 2),
                                                   (30, 0.42, 3))
    fams["qwh"] = [(f"qwh{o}-h{round(100 * h)}-s{s}",
                    (lambda o=o, h=h, s=s: quasigroup_with_holes(o, h, s))) for o, h, s in qwh]
    return fams


def write_family_files(folder: Path, scale: str = "default",
                       seed: int = 1) -> list[tuple[str, Path]]:  # fmt: skip
    """Every instance as ``folder/FAMILY/NAME.cnf`` (kept when already there): (family, path)."""
    from satdoku.cnf.dimacs import write_dimacs

    out = []
    for family, cases in family_instances(scale, seed).items():
        (folder / family).mkdir(parents=True, exist_ok=True)
        for name, build in cases:
            path = folder / family / f"{name}.cnf"
            if not path.exists():
                tmp = path.with_suffix(".tmp")
                with open(tmp, "w", encoding="ascii") as fh:
                    write_dimacs(build(), fh)
                tmp.replace(path)
            out.append((family, path))
    return out
