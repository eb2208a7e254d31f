"""Search speed of our CDCL against python-sat MiniSat 2.2 on search-bound CNF (issue 12 goal 2).

Both sides get an already-built formula and only their search is timed:

* ``minisat22`` — ``Minisat22(bootstrap_with=clauses)`` is built first (python-sat copies the
  clauses into MiniSat), then ``solve()`` alone is timed;
* ``cdcl`` — ``Cdcl(num_vars, flat int32 literals)`` is built first (clauses loaded, watches
  attached), then ``solve()`` alone is timed (the compiled C kernel unless ``--backend``).

Instances (seeded, generated here unless ``--data`` points at SATLIB-style folders):

* random 3-SAT at the threshold: ``m = round(4.26 n)`` clauses of 3 distinct variables with
  random signs, ``n`` in ``--sizes`` (default 200, 225, 250), ``--per-size`` files each;
* flat graph 3-colouring like SATLIB's flat200-479: a planted 3-colouring of ``--flat-n``
  vertices, ``--flat-edges`` edges only between colour classes, added so that vertex degrees
  stay as even as possible ("flat"), SATLIB's encoding (one ALO and three AMO clauses per
  vertex, one clause per edge and colour);
* the SATLIB families in data/public/satlib (uf20, uf50, uuf50, flat50) or under ``--data``.

Every status is decided by both solvers and must agree; every model of ours is checked against
the formula. Reported: per family the sum and median of search seconds of each side, the ratio
of the sums (ours / MiniSat) and the median per-instance ratio; conflicts of each side. Runs are
interleaved (MiniSat, ours, per instance) and repeated ``--repeat`` times (median taken).
``--clock cpu`` times process CPU instead of wall time (steadier on a shared machine; both
sides search in this process's thread). ``--restarts`` picks our restart policy.

Usage: python benchmarks/bench_search.py [--sizes 200,225,250] [--per-size 4] [--flat 5]
       [--repeat 1] [--clock wall|cpu] [--backend c|python] [--restarts mixed]
       [--data DIR] [--csv FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from bench_common import write_csv  # noqa: E402
from conftest import random_3sat  # noqa: E402  (the seeded generator the tests use too)


@dataclass
class Instance:
    family: str
    name: str
    num_vars: int
    clauses: list[list[int]]
    expected: str | None = None  # known status (SATLIB folder names, planted colourings)


def flat_graph(n: int, edges: int, seed: int, colours: int = 3) -> list[tuple[int, int]]:
    """A "flat" graph with a planted ``colours``-colouring: vertex ``v`` has colour
    ``v % colours``; each edge joins two colour classes and is added between vertices of
    least degree (ties broken at random), so degrees stay within one of each other."""
    rng = random.Random(seed)
    degree = [0] * n
    adjacent: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    while len(out) < edges:
        low = min(degree)
        u = rng.choice([v for v in range(n) if degree[v] == low])
        options = [
            v for v in range(n)
            if v % colours != u % colours and (min(u, v), max(u, v)) not in adjacent
        ]  # fmt: skip
        if not options:
            raise ValueError(f"no room for {edges} edges on {n} vertices")
        best = min(degree[v] for v in options)
        v = rng.choice([w for w in options if degree[w] == best])
        adjacent.add((min(u, v), max(u, v)))
        out.append((u, v))
        degree[u] += 1
        degree[v] += 1
    return out


def colouring_cnf(n: int, edges: list[tuple[int, int]], colours: int = 3) -> list[list[int]]:
    """SATLIB's flat encoding: variable ``v * colours + c + 1`` = vertex v has colour c."""

    def x(v: int, c: int) -> int:
        return v * colours + c + 1

    clauses = []
    for v in range(n):
        clauses.append([x(v, c) for c in range(colours)])
        clauses += [[-x(v, a), -x(v, b)] for a in range(colours) for b in range(a + 1, colours)]
    for u, v in edges:
        clauses += [[-x(u, c), -x(v, c)] for c in range(colours)]
    return clauses


def satlib_instances(root: Path) -> list[Instance]:
    """Every ``*.cnf`` in the family folders under ``root`` (uuf* are UNSAT, the rest SAT)."""
    from satdoku.cnf.dimacs import read_dimacs

    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        expected = "UNSAT" if folder.name.startswith("uuf") else "SAT"
        for path in sorted(folder.glob("*.cnf")):
            cnf = read_dimacs(path)
            out.append(Instance(f"satlib_{folder.name}", path.stem, cnf.num_vars, cnf.clauses,
                                expected))  # fmt: skip
    return out


def generated_instances(sizes: list[int], per_size: int, flat: int, flat_n: int,
                        flat_edges: int) -> list[Instance]:  # fmt: skip
    out = []
    for n in sizes:
        for k in range(per_size):
            out.append(Instance(f"random3sat_{n}", f"r{n}-{k}", n, random_3sat(n, 1000 * n + k)))
    for k in range(flat):
        edges = flat_graph(flat_n, flat_edges, 7000 + k)
        out.append(Instance(f"flat{flat_n}-{flat_edges}", f"flat{flat_n}-{k}", 3 * flat_n,
                            colouring_cnf(flat_n, edges), "SAT"))  # fmt: skip
    return out


# --- the two sides ------------------------------------------------------------------------------
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def run_minisat(inst: Instance) -> tuple[str, float, int]:
    """(status, search seconds, conflicts): the formula is loaded before the clock starts."""
    from pysat.solvers import Minisat22

    with Minisat22(bootstrap_with=inst.clauses) as solver:
        t0 = clock()
        sat = solver.solve()
        took = clock() - t0
        conflicts = int(solver.accum_stats().get("conflicts", 0))
    return ("SAT" if sat else "UNSAT"), took, conflicts


def run_cdcl(inst: Instance, backend: str, restarts: str) -> tuple[str, float, int]:
    """(status, search seconds, conflicts): clauses loaded before the clock starts; every
    model is checked against the formula."""
    from satdoku.cnf.dimacs_fast import clauses_to_array
    from satdoku.solvers.cdcl.driver import Cdcl

    solver = Cdcl(inst.num_vars, clauses_to_array(inst.clauses), backend=backend,
                  restarts=restarts)  # fmt: skip
    t0 = clock()
    status, model = solver.solve()
    took = clock() - t0
    if status == "SAT":
        true = set(model or [])
        bad = [c for c in inst.clauses if not any(lit in true for lit in c)]
        if bad:
            raise AssertionError(f"{inst.name}: our model leaves {len(bad)} clauses unsatisfied")
    return status, took, int(solver.stats["conflicts"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", default="200,225,250", help="random 3-SAT variable counts")
    ap.add_argument("--per-size", type=int, default=4, help="random 3-SAT files per size")
    ap.add_argument("--flat", type=int, default=5, help="flat graph colouring instances")
    ap.add_argument("--flat-n", type=int, default=200, help="vertices per flat graph")
    ap.add_argument("--flat-edges", type=int, default=479, help="edges per flat graph")
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "public" / "satlib",
                    help="folder of SATLIB-style family folders (*.cnf; uuf* = UNSAT)")
    ap.add_argument("--no-satlib", action="store_true", help="skip the SATLIB folders")
    ap.add_argument("--repeat", type=int, default=1, help="runs per instance (median kept)")
    ap.add_argument("--backend", default="auto", help="cdcl kernel: auto, c, python")
    ap.add_argument("--restarts", default="mixed", help="cdcl restart policy")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="time search by wall clock or by process CPU")
    ap.add_argument("--csv", type=Path, default=ROOT / "benchmarks/results/bench_search.csv")
    args = ap.parse_args(argv)  # fmt: skip
    global clock
    clock = CLOCKS[args.clock]

    from satdoku.solvers.cdcl.driver import warm_up

    warm_up(args.backend)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    instances = generated_instances(sizes, args.per_size, args.flat, args.flat_n,
                                    args.flat_edges)  # fmt: skip
    if not args.no_satlib and args.data.is_dir():
        instances += satlib_instances(args.data)
    rows = []
    for inst in instances:
        ours, theirs = [], []
        for _ in range(args.repeat):
            theirs.append(run_minisat(inst))
            ours.append(run_cdcl(inst, args.backend, args.restarts))
        m_status, c_status = theirs[0][0], ours[0][0]
        if m_status != c_status or (inst.expected and c_status != inst.expected):
            print(f"WRONG {inst.name}: ours {c_status}, MiniSat {m_status}, "
                  f"expected {inst.expected}", flush=True)  # fmt: skip
            return 1
        row = {
            "family": inst.family, "instance": inst.name, "status": c_status,
            "minisat_s": statistics.median(t for _, t, _ in theirs),
            "cdcl_s": statistics.median(t for _, t, _ in ours),
            "minisat_conflicts": theirs[0][2], "cdcl_conflicts": ours[0][2],
        }  # fmt: skip
        rows.append(row)
        print(f"{inst.family:>18} {inst.name:>14} {c_status:>5}  minisat {row['minisat_s']:8.4f} s"
              f" ({row['minisat_conflicts']:>7} confl)  cdcl {row['cdcl_s']:8.4f} s"
              f" ({row['cdcl_conflicts']:>7} confl)  ratio "
              f"{row['cdcl_s'] / max(row['minisat_s'], 1e-9):5.2f}", flush=True)  # fmt: skip
    print(f"\n# search {args.clock} seconds; cdcl backend {args.backend}, restarts {args.restarts}")
    print("| family | instances | MiniSat search s (sum) | cdcl search s (sum) | ratio of sums "
          "| median ratio | MiniSat conflicts | cdcl conflicts |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    families = list(dict.fromkeys(r["family"] for r in rows))
    total_m = total_c = 0.0
    for fam in families:
        mine = [r for r in rows if r["family"] == fam]
        m = sum(r["minisat_s"] for r in mine)
        c = sum(r["cdcl_s"] for r in mine)
        total_m += m
        total_c += c
        med = statistics.median(r["cdcl_s"] / max(r["minisat_s"], 1e-9) for r in mine)
        print(f"| {fam} | {len(mine)} | {m:.3f} | {c:.3f} | {c / max(m, 1e-9):.2f} | {med:.2f} "
              f"| {sum(r['minisat_conflicts'] for r in mine)} "
              f"| {sum(r['cdcl_conflicts'] for r in mine)} |")  # fmt: skip
    print(f"| all | {len(rows)} | {total_m:.3f} | {total_c:.3f} | "
          f"{total_c / max(total_m, 1e-9):.2f} | | | |")  # fmt: skip
    write_csv(args.csv, rows)
    print(f"# rows: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
