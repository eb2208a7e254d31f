"""Our solvers against python-sat MiniSat 2.2, end to end from the same DIMACS files.

For every instance set the puzzles are encoded once (extended encoding) into DIMACS files in a
cache directory; then, instance by instance, every solver decides the same file back to back:

* ``minisat22`` — python-sat: ``CNF(from_file)`` + ``Minisat22(bootstrap_with=...)`` + solve
  (SATLIB files: python-sat cannot parse the ``%`` trailer, so the text is cut there first);
* ``cdcl`` — our vectorised reader + the CDCL kernel (loaded once, before timing);
* ``dpll`` — our reader + the pure-Python DPLL (9x9 sets and SATLIB only: it is the teaching mode).

"end to end" is file -> answer (parse + build + search); "search" is the solve call alone. Every
SAT answer is verified (decoded and checked against the puzzle, or against the CNF for SATLIB);
UNSAT answers must agree with MiniSat and the file's known status. The ratio columns are the
median over instances of (our time / MiniSat's time on the same instance in the same run).

Usage: python benchmarks/bench_solvers.py [--quick] [--limit N] [--solvers cdcl,minisat22,dpll]
       [--time-limit 10] [--csv benchmarks/results/bench_solvers.csv] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "public"  # in-repo subsets; --data DIR for the full public sets
sys.path.insert(0, str(ROOT))
from bench_common import write_csv  # noqa: E402


@dataclass
class Instance:
    set: str
    ident: str
    path: Path  # DIMACS file
    puzzle: object | None  # Puzzle for decoding, None for SATLIB
    expected: str | None  # known status, if any


@dataclass
class SetSpec:
    name: str
    source: str  # file under DATA, "satlib:<family>", or "generated:<box>:<count>:<holes>"
    sample: int | None = None  # a seeded random sample of this many puzzles
    dpll: bool = True  # run the teaching DPLL on this set
    quick: int = 100  # instances in --quick mode


SETS = [
    SetSpec("norvig_top95", "norvig/top95.txt", quick=95),
    SetSpec("norvig_hardest", "norvig/hardest.txt", quick=11),
    SetSpec("tdoku_top1465", "tdoku_benchmarks/puzzles3_magictour_top1465.txt", quick=150),
    SetSpec("tdoku_17clue_2000", "tdoku_benchmarks/puzzles2_17_clue_2000.txt", 2000, quick=150),
    SetSpec("forum_hardest_1106", "tdoku_benchmarks/puzzles6_forum_hardest_1106.txt", quick=150),
    SetSpec("vu_16x16", "vu_kr_sudoku/16x16.txt", dpll=False, quick=30),
    SetSpec("bnguyen_25x25", "large_grids_bnguyen/25x25.txt", dpll=False, quick=1),
    SetSpec("generated_25x25", "generated:5:5:0.7", dpll=False, quick=3),
    SetSpec("generated_36x36", "generated:6:3:0.7", dpll=False, quick=1),
    SetSpec("satlib_uf20", "satlib:uf20-91", quick=21),
    SetSpec("satlib_uf50", "satlib:uf50-218", quick=10),
    SetSpec("satlib_uuf50", "satlib:uuf50-218", quick=12),
    SetSpec("satlib_flat50", "satlib:flat50-115", quick=20),
]


# --- instances ----------------------------------------------------------------------------------
def generated_puzzles(box: int, count: int, holes: float, seed: int = 1) -> list[object]:
    """Solvable Sudokus of box order ``box``: a pattern grid shuffled by seeded symmetries
    (digits, rows inside bands, bands, columns inside stacks, stacks), a fraction ``holes`` of
    the cells erased (around 50% large grids sit near the hardness peak for every solver)."""
    from satdoku.puzzle import sudoku

    rng = random.Random(seed)
    n = box * box
    out = []
    for _ in range(count):
        digits = list(range(1, n + 1))
        rng.shuffle(digits)

        def order() -> list[int]:
            bands = rng.sample(range(box), box)
            return [b * box + r for b in bands for r in rng.sample(range(box), box)]

        rows, cols = order(), order()
        grid = [
            digits[(box * (r % box) + r // box + c) % n] for r in rows for c in cols
        ]  # fmt: skip
        for cell in rng.sample(range(n * n), int(holes * n * n)):
            grid[cell] = 0
        out.append(sudoku(grid, box))
    return out


def build_instances(spec: SetSpec, limit: int | None, cache: Path) -> list[Instance]:
    from satdoku.cnf.dimacs import write_dimacs
    from satdoku.cnf.encode import encode

    if spec.source.startswith("satlib:"):
        family = spec.source.split(":", 1)[1]
        files = sorted((DATA / "satlib" / family).glob("*.cnf"))[:limit]
        expected = "UNSAT" if family.startswith("uuf") else "SAT"
        return [Instance(spec.name, f.stem, f, None, expected) for f in files]
    if spec.source.startswith("generated:"):
        _, box, count, holes = spec.source.split(":")
        puzzles = generated_puzzles(int(box), int(count), float(holes))
        items = [(str(i + 1), p) for i, p in enumerate(puzzles)]
    else:
        from satdoku.formats import read_records

        records = [r for r in read_records(DATA / spec.source) if r.puzzle is not None]
        if spec.sample is not None and spec.sample < len(records):
            records = random.Random(17).sample(records, spec.sample)
        items = [(str(r.index), r.puzzle) for r in records]
    items = items[:limit]
    folder = cache / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for ident, puzzle in items:
        path = folder / f"{ident}.cnf"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            with open(tmp, "w") as fh:
                write_dimacs(encode(puzzle, "extended"), fh)
            tmp.rename(path)
        out.append(Instance(spec.name, ident, path, puzzle, "SAT"))
    return out


# --- solvers: (status, model, end-to-end seconds, search seconds) -------------------------------
Run = tuple[str, list[int] | None, float, float]


def run_minisat(path: Path, time_limit: float) -> Run:
    from pysat.formula import CNF
    from pysat.solvers import Minisat22

    t0 = time.perf_counter()
    try:
        cnf = CNF(from_file=str(path))
    except ValueError:  # python-sat's parser rejects SATLIB's '%' trailer: cut it off first
        text = path.read_text()
        cnf = CNF(from_string=text[: text.index("\n%")] if "\n%" in text else text)
    with Minisat22(bootstrap_with=cnf.clauses) as solver:
        t1 = time.perf_counter()
        sat = solver.solve()
        t2 = time.perf_counter()
        model = solver.get_model() if sat else None
    return ("SAT" if sat else "UNSAT"), model, t2 - t0, t2 - t1


def _run_own(solver: Any, time_limit: float, t0: float) -> Run:
    """Solve with one of our solvers, built since ``t0``: (status, model, total, search)."""
    from satdoku.solvers.base import Deadline

    t1 = time.perf_counter()
    status, model = solver.solve(Deadline(time_limit))
    t2 = time.perf_counter()
    return status, model, t2 - t0, t2 - t1


def run_cdcl(path: Path, time_limit: float) -> Run:
    from satdoku.cnf.dimacs_fast import read_dimacs_arrays
    from satdoku.solvers.cdcl.driver import Cdcl

    t0 = time.perf_counter()
    arrays = read_dimacs_arrays(path)
    return _run_own(Cdcl(arrays.num_vars, arrays.lits), time_limit, t0)


def run_dpll(path: Path, time_limit: float) -> Run:
    from satdoku.cnf.dimacs import read_dimacs
    from satdoku.solvers.dpll import Dpll

    t0 = time.perf_counter()
    cnf = read_dimacs(path)
    return _run_own(Dpll(cnf.num_vars, cnf.clauses), time_limit, t0)


SOLVERS: dict[str, Callable[[Path, float], Run]] = {
    "minisat22": run_minisat,
    "cdcl": run_cdcl,
    "dpll": run_dpll,
}


def verify(inst: Instance, status: str, model: list[int] | None) -> str:
    """'ok' or why the answer is wrong."""
    if status not in ("SAT", "UNSAT"):
        return "unsolved"
    if inst.expected and status != inst.expected:
        return f"expected {inst.expected}"
    if status == "UNSAT":
        return "ok"
    if inst.puzzle is None:
        from satdoku.cnf.dimacs import read_dimacs

        bad = read_dimacs(inst.path).satisfied_by(model or [])
        return "ok" if not bad else f"{len(bad)} clauses unsatisfied"
    from satdoku.cnf.decode import decode_model

    board = decode_model(model or [], inst.puzzle)  # type: ignore[arg-type]
    problems = inst.puzzle.check_solution(board)  # type: ignore[attr-defined]
    return "ok" if not problems else problems[0]


# --- report -------------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def summarise(rows: list[dict[str, object]], solvers: list[str]) -> list[dict[str, object]]:
    out = []
    sets = list(dict.fromkeys(str(r["set"]) for r in rows))
    for name in sets:
        base = {
            str(r["instance"]): r
            for r in rows
            if r["set"] == name and r["solver"] == "minisat22" and r["verified"] == "ok"
        }
        for solver in solvers:
            mine = [r for r in rows if r["set"] == name and r["solver"] == solver]
            if not mine:
                continue
            ok = [r for r in mine if r["verified"] == "ok"]
            e2e = [float(r["e2e_ms"]) for r in ok] or [float("nan")]
            search = [float(r["search_ms"]) for r in ok] or [float("nan")]
            pairs = [(r, base[str(r["instance"])]) for r in ok if str(r["instance"]) in base]
            ratio = [float(a["e2e_ms"]) / max(float(b["e2e_ms"]), 1e-6) for a, b in pairs]
            sratio = [float(a["search_ms"]) / max(float(b["search_ms"]), 1e-6) for a, b in pairs]
            wrong = [r for r in mine if r["verified"] not in ("ok", "unsolved")]
            out.append({
                "set": name, "solver": solver, "instances": len(mine), "solved": len(ok),
                "wrong": len(wrong),
                "e2e_median_ms": statistics.median(e2e), "e2e_p90_ms": pct(e2e, 0.9),
                "e2e_max_ms": max(e2e), "search_median_ms": statistics.median(search),
                "search_p90_ms": pct(search, 0.9), "search_max_ms": max(search),
                "ratio_e2e_median": statistics.median(ratio) if ratio else float("nan"),
                "ratio_search_median": statistics.median(sratio) if sratio else float("nan"),
            })  # fmt: skip
    return out


def markdown(summary: list[dict[str, object]]) -> str:
    head = (
        "| set | solver | solved | e2e median ms | e2e p90 | e2e max | search median ms "
        "| search p90 | search max | e2e ratio vs MiniSat | search ratio |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = []
    for s in summary:
        solved = f"{s['solved']}/{s['instances']}" + (
            f" ({s['wrong']} WRONG)" if s["wrong"] else ""
        )
        ratio = "" if s["solver"] == "minisat22" else f"{s['ratio_e2e_median']:.2f}"
        sratio = "" if s["solver"] == "minisat22" else f"{s['ratio_search_median']:.2f}"
        lines.append(
            f"| {s['set']} | {s['solver']} | {solved} | {s['e2e_median_ms']:.2f} | "
            f"{s['e2e_p90_ms']:.2f} | {s['e2e_max_ms']:.1f} | {s['search_median_ms']:.2f} | "
            f"{s['search_p90_ms']:.2f} | {s['search_max_ms']:.1f} | {ratio} | {sratio} |"
        )
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", type=Path, default=None,
                    help="directory laid out like data/public (e.g. a full copy of the sets)")
    ap.add_argument("--quick", action="store_true", help="a few minutes: per-set sample sizes")
    ap.add_argument("--limit", type=int, default=None, help="at most N instances per set")
    ap.add_argument(
        "--dpll-limit",
        type=int,
        default=None,
        help="at most N instances per set for dpll (default: --limit; quick: 40)",
    )
    ap.add_argument("--solvers", default="minisat22,cdcl,dpll")
    ap.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per instance")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "satdoku-bench")
    ap.add_argument("--csv", type=Path, default=ROOT / "benchmarks/results/bench_solvers.csv")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    args = ap.parse_args(argv)  # fmt: skip
    if args.data is not None:
        global DATA
        DATA = args.data

    solvers = [s for s in args.solvers.split(",") if s]
    unknown = set(solvers) - set(SOLVERS)
    if unknown:
        ap.error(f"unknown solvers {sorted(unknown)}; known: {sorted(SOLVERS)}")
    if "minisat22" not in solvers:
        solvers.insert(0, "minisat22")  # the ratios need it
    if "cdcl" in solvers:
        from satdoku.solvers.cdcl.driver import warm_up

        t = time.perf_counter()
        warm_up()  # compile / load the kernel once, outside every timing
        print(f"# cdcl kernel loaded in {time.perf_counter() - t:.2f} s (not timed)", flush=True)
    wanted = set(args.sets.split(",")) if args.sets else None
    rows: list[dict[str, object]] = []
    for spec in SETS:
        if wanted is not None and spec.name not in wanted:
            continue
        limit = args.limit if args.limit is not None else (spec.quick if args.quick else None)
        dpll_limit = args.dpll_limit if args.dpll_limit is not None else (
            40 if args.quick else limit
        )  # fmt: skip
        t = time.perf_counter()
        instances = build_instances(spec, limit, args.cache)
        print(f"# {spec.name}: {len(instances)} instances "
              f"(prepared in {time.perf_counter() - t:.1f} s)", flush=True)  # fmt: skip
        for i, inst in enumerate(instances):
            for solver in solvers:
                if solver == "dpll" and (
                    not spec.dpll or (dpll_limit is not None and i >= dpll_limit)
                ):
                    continue  # fmt: skip
                try:
                    status, model, e2e, search = SOLVERS[solver](inst.path, args.time_limit)
                    checked = verify(inst, status, model)
                except Exception as exc:  # a crash is a result too
                    status, e2e, search, checked = "ERROR", 0.0, 0.0, f"{type(exc).__name__}"
                rows.append({
                    "set": inst.set, "instance": inst.ident, "solver": solver,
                    "status": status, "verified": checked,
                    "e2e_ms": round(e2e * 1000, 3), "search_ms": round(search * 1000, 3),
                })  # fmt: skip
    summary = summarise(rows, solvers)
    table = markdown(summary)
    print(table)
    write_csv(args.csv, rows)
    summary_csv = write_csv(args.csv.with_name(args.csv.stem + "_summary.csv"), summary)
    if args.markdown:
        args.markdown.write_text(table)
    print(f"# rows: {args.csv}  summary: {summary_csv}")
    return 1 if any(s["wrong"] for s in summary) else 0


if __name__ == "__main__":
    sys.exit(main())
