"""Proof checking on our own solvers' proofs: search time against check time, our compiled
DRAT checker against its readable Python twin and drat-trim, and our LRAT proofs checked by our
linear-time checker against drat-trim on the same formula's DRAT.

Families (every formula UNSAT): random 3-SAT at the threshold (ratio 4.26) with 200 and 250
variables, SATLIB uuf50-218 (data/public/satlib), 25x25 and 36x36 Sudoku with no solution
(extended encoding; a board the solver finds satisfiable is reported and skipped),
pigeonhole PHP(10,9), XOR chains (the parity of k inputs computed in two
orders, asserted different) -- solved by ``satdoku dpll --mode cdcl`` -- and random 3-SAT
(ratio 5, and one 200-variable formula at 4.26 unless ``--quick``) proofs of ``--mode dpll``.
Each formula is written as DIMACS and solved twice by the real CLI, with ``--proof`` in DRAT
and in LRAT (``search`` = its ``c solve_seconds``; the check inside the CLI is given a tiny
budget so each proof is checked only here; both runs make the same search, cdcl's
preprocessing included). The DRAT proof is
checked by:

* ``c``: :func:`satdoku.cnf.drat.check_proof` with the compiled backward checker (wall time of
  the call: reading the proof file and checking; the formula is already in memory, as the
  solve path holds a CNF file: the flat literal buffer the DIMACS reader made of it);
* ``c_binary``: the same proof in drat-trim's binary format;
* ``python``: the pure-Python forward reference, capped at ``--python-cap`` seconds (``>cap``:
  out of budget);
* ``drat_trim``: drat-trim (default backward mode) as a process, wall time (it also parses the
  formula), built from its source in ``--drat-trim-src`` (a checkout of
  github.com/marijnheule/drat-trim; or env ``DRAT_TRIM_SRC``) into a cache directory
  (``--cache`` or env ``SATDOKU_BENCH_CACHE``; default a temporary directory). Without the
  source (or a C compiler) the drat-trim column is empty and the rest still runs. drat-trim's
  code never enters this repository.

The LRAT proof of the same search is checked by:

* ``lrat``: :func:`satdoku.cnf.lrat.check_lrat`, the compiled checker (wall time of the call,
  reading the proof included; ``lrat_cpu``: this process's CPU seconds for it);
* ``lrat_check``: lrat-check of drat-trim's repository, built from the same checkout, as a
  process (wall time, formula parsing included): an independent verdict.

drat-trim and lrat-check also get their CPU seconds (``*_cpu``, the child's rusage), since the
machine is shared: a ratio of CPU seconds is the steadier one. ``ratio`` is c / drat_trim per
instance, ``lrat_ratio`` lrat / drat_trim (wall) and ``lrat_cpu_ratio`` lrat_cpu /
drat_trim_cpu; the two sides of a ratio run back to back on the same formula. The summary gives
per family the median of each column and the largest ratios.

Usage: python benchmarks/bench_drat.py [--quick] [--drat-trim-src DIR] [--cache DIR]
       [--python-cap 30] [--families a,b] [--csv benchmarks/results/bench_drat.csv]
       [--markdown FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from bench_common import write_csv  # noqa: E402
from bench_search import random_3sat  # noqa: E402
from conftest import php  # noqa: E402

from satdoku.cnf.dimacs import read_dimacs, write_dimacs  # noqa: E402
from satdoku.cnf.drat import check_proof, to_binary  # noqa: E402
from satdoku.cnf.formula import Cnf  # noqa: E402
from satdoku.cnf.lrat import check_lrat  # noqa: E402
from satdoku.solve import read_formula  # noqa: E402

COLUMNS = ("family", "instance", "mode", "vars", "clauses", "proof_steps", "proof_bytes",
           "search_seconds", "c_seconds", "c_binary_seconds", "c_checked", "python_seconds",
           "drat_trim_seconds", "drat_trim_cpu", "ratio", "lrat_search_seconds", "lrat_bytes",
           "lrat_seconds", "lrat_cpu", "lrat_check_seconds", "lrat_check_cpu", "lrat_ratio",
           "lrat_cpu_ratio", "status")


def xor_chain(k: int) -> Cnf:
    """x1 ^ ... ^ xk computed left to right and right to left (Tseitin), asserted different."""
    clauses: list[list[int]] = []
    top = k

    def xor(a: int, b: int) -> int:
        nonlocal top
        top += 1
        y = top
        clauses.extend([[-y, a, b], [-y, -a, -b], [y, -a, b], [y, a, -b]])
        return y

    left = 1
    for i in range(2, k + 1):
        left = xor(left, i)
    right = k
    for i in range(k - 1, 0, -1):
        right = xor(right, i)
    clauses += [[left], [-right]]
    return Cnf(top, clauses)


def unsat_random(n: int, ratio: float, count: int, seed: int = 0) -> list[tuple[str, Cnf]]:
    """The first ``count`` UNSAT random 3-SAT formulas of n variables from ``seed`` on."""
    from pysat.solvers import Minisat22

    out = []
    while len(out) < count:
        clauses = random_3sat(n, seed, ratio)
        with Minisat22(bootstrap_with=clauses) as solver:
            if not solver.solve():
                out.append((f"r{n}-s{seed}", Cnf(n, clauses)))
        seed += 1
    return out


def wrong_value_sudoku(box: int, count: int, holes: float = 0.4, seed: int = 0
                       ) -> list[tuple[str, Cnf]]:
    """Sudoku of box order ``box`` that almost surely have no solution, without a visible
    conflict: a random grid, ``holes`` of it erased, one erased cell given a value its row,
    column and box do not show but that differs from the grid's (extended encoding). The
    solver's answer decides: a satisfiable one is reported and skipped."""
    from satdoku.cnf.encode import formula
    from satdoku.generate import erase, pattern_grid, with_board
    from satdoku.puzzle import sudoku

    rng = random.Random(seed)
    n = box * box
    out: list[tuple[str, Cnf]] = []
    while len(out) < count:
        grid = sudoku(list(pattern_grid(box, rng)), box)
        board = list(erase(grid, int(holes * grid.ncells), rng).givens)
        cell = rng.choice([c for c in range(grid.ncells) if not board[c]])
        r, c = divmod(cell, n)
        br, bc = r - r % box, c - c % box
        seen = {board[r * n + j] for j in range(n)} | {board[i * n + c] for i in range(n)}
        seen |= {board[(br + i) * n + bc + j] for i in range(box) for j in range(box)}
        free = [v for v in range(1, n + 1) if v not in seen and v != grid.givens[cell]]
        if not free:
            continue
        board[cell] = rng.choice(free)
        out.append((f"sudoku{n}-{len(out)}", formula(with_board(grid, board), "extended").whole()))
    return out


def families(quick: bool, public: Path) -> list[tuple[str, str, str, Cnf]]:
    """(family, instance, mode, formula) of the run."""
    few = 1 if quick else 2
    uuf = sorted((public / "satlib" / "uuf50-218").glob("*.cnf"))[: 2 if quick else 4]
    rows: list[tuple[str, str, str, Cnf]] = []
    rows += [("random3sat-200", name, "cdcl", cnf) for name, cnf in unsat_random(200, 4.26, few)]
    rows += [("random3sat-250", name, "cdcl", cnf)
             for name, cnf in unsat_random(250, 4.26, 1, seed=100)]
    rows += [("uuf50", p.stem, "cdcl", read_dimacs(p)) for p in uuf]
    rows += [("sudoku25-nosol", name, "cdcl", cnf) for name, cnf in wrong_value_sudoku(5, few)]
    rows += [("sudoku36-nosol", name, "cdcl", cnf) for name, cnf in wrong_value_sudoku(6, 1)]
    rows += [("php", "php10-9", "cdcl", php(10, 9))]
    rows += [("xor-chain", f"xor{k}", "cdcl", xor_chain(k)) for k in ((27,) if quick else (27, 30))]
    dpll_n = 60 if quick else 100
    rows += [(f"dpll-random3sat-{dpll_n}", name, "dpll", cnf)
             for name, cnf in unsat_random(dpll_n, 5.0, few, seed=7)]
    if not quick:  # the pure-Python DPLL's search alone takes 20 s or more here
        rows += [("dpll-random3sat-200", name, "dpll", cnf)
                 for name, cnf in unsat_random(200, 4.26, 1)]
    return rows


def build_drat_trim(src: str | None, cache: Path, tool: str = "drat-trim") -> str | None:
    """``tool`` (drat-trim or lrat-check) compiled from ``src`` (a checkout of drat-trim's
    repository) into ``cache``; None when unavailable."""
    if not src or not (Path(src) / f"{tool}.c").is_file() or shutil.which("cc") is None:
        return None
    exe = cache / tool
    if not exe.exists():
        cache.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["cc", "-O2", "-o", str(exe), str(Path(src) / f"{tool}.c")],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{tool} did not build: {proc.stderr[-500:]}", file=sys.stderr)
            return None
    return str(exe)


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    value = fn()
    return time.perf_counter() - t, value


def _child(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of a process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, proc = _timed(lambda: subprocess.run(argv, capture_output=True, text=True))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, proc.stdout  # type: ignore[attr-defined]


def _solve(mode: str, path: Path, proof: Path, proof_format: str) -> tuple[int, dict[str, str]]:
    """Run ``satdoku dpll`` writing a proof: (exit code, its ``c`` lines by key)."""
    proc = subprocess.run([sys.executable, "-m", "satdoku", "dpll", "--mode", mode,
                           "--proof", str(proof), "--proof-format", proof_format,
                           "--verify-time-limit", "1e-9", "--no-model", str(path)],
                          capture_output=True, text=True)
    return proc.returncode, dict(ln.split()[1:3] for ln in proc.stdout.splitlines()
                                 if ln.startswith("c ") and len(ln.split()) >= 3)


def run_one(family: str, name: str, mode: str, cnf: Cnf, work: Path, drat_trim: str | None,
            python_cap: float, lrat_check: str | None = None) -> dict[str, object]:
    path = work / f"{name}.cnf"
    proof = work / f"{name}.drat"
    with open(path, "w", encoding="utf-8") as fh:
        write_dimacs(cnf, fh)
    code, c_lines = _solve(mode, path, proof, "drat")
    row: dict[str, object] = {"family": family, "instance": name, "mode": mode,
                              "vars": cnf.num_vars, "clauses": cnf.num_clauses}
    if code != 20:
        return row | {"status": f"not UNSAT (exit {code})"}
    row["search_seconds"] = float(c_lines["solve_seconds"])
    text = proof.read_bytes()
    row["proof_steps"] = text.count(b"\n")
    row["proof_bytes"] = len(text)
    flat = read_formula(path.read_bytes(), str(path))  # as the solve path holds a CNF file
    c = check_proof(flat, proof, engine="c")
    row["c_seconds"], row["c_checked"] = round(c.seconds, 4), c.checked
    binary = work / f"{name}.bdrat"
    binary.write_bytes(to_binary(text.decode().splitlines()))
    cb = check_proof(flat, binary, engine="c")
    row["c_binary_seconds"] = round(cb.seconds, 4)
    py = check_proof(cnf, proof, engine="python", time_limit=python_cap)
    row["python_seconds"] = round(py.seconds, 3) if py.status != "out of budget" \
        else f">{python_cap:g}"
    status = [c.status, cb.status, py.status]
    lrat = work / f"{name}.lrat"
    code, lrat_lines = _solve(mode, path, lrat, "lrat")
    row["lrat_search_seconds"] = float(lrat_lines.get("solve_seconds", "nan"))
    if code != 20:
        status.append(f"LRAT run: exit {code}")
    else:
        row["lrat_bytes"] = lrat.stat().st_size
    if drat_trim:  # drat-trim on the DRAT proof, then ours on the LRAT proof: back to back
        seconds, cpu, out = _child([drat_trim, str(path), str(proof)])
        row["drat_trim_seconds"], row["drat_trim_cpu"] = round(seconds, 4), round(cpu, 4)
        row["ratio"] = round(c.seconds / seconds, 2)
        status.append("verified" if "s VERIFIED" in out else "drat-trim: not verified")
    if code == 20:
        cpu0 = time.process_time()
        lc = check_lrat(flat, lrat)
        row["lrat_cpu"] = round(time.process_time() - cpu0, 4)
        row["lrat_seconds"] = round(lc.seconds, 4)
        status.append(lc.status if lc.ok else f"LRAT: {lc.message}")
        if drat_trim:
            row["lrat_ratio"] = round(lc.seconds / float(row["drat_trim_seconds"]), 3)  # type: ignore[arg-type]
            row["lrat_cpu_ratio"] = round(float(row["lrat_cpu"]) / max(1e-3, cpu), 3)  # type: ignore[arg-type]
        if lrat_check:
            seconds, cpu, out = _child([lrat_check, str(path), str(lrat)])
            row["lrat_check_seconds"], row["lrat_check_cpu"] = round(seconds, 4), round(cpu, 4)
            status.append("verified" if "c VERIFIED" in out else "lrat-check: not verified")
    row["status"] = ", ".join(dict.fromkeys(status))
    for f in (path, proof, binary, lrat):
        f.unlink(missing_ok=True)
    return row


def summary(rows: list[dict[str, object]]) -> list[str]:
    """Markdown: per family, medians of search / check times and the largest c/drat-trim."""
    lines = ["| family | n | search (s) | c check (s) | c binary (s) | python (s) | "
             "drat-trim (s) | c / drat-trim (max) | LRAT search (s) | LRAT / DRAT bytes | "
             "LRAT check (s) | lrat-check (s) | LRAT / drat-trim (max) | "
             "LRAT / drat-trim, CPU (max) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    by: dict[str, list[dict[str, object]]] = {}
    for r in rows:
        by.setdefault(str(r["family"]), []).append(r)

    def med(rs: list[dict[str, object]], key: str) -> str:
        vals = [r[key] for r in rs if r.get(key) not in (None, "")]
        if not vals:
            return ""
        if any(isinstance(v, str) for v in vals):
            return str(max(vals, key=lambda v: float(str(v).lstrip(">"))))
        return f"{statistics.median(map(float, vals)):.3g}"  # type: ignore[arg-type]

    def most(rs: list[dict[str, object]], key: str) -> str:
        vals = [float(r[key]) for r in rs if r.get(key) not in (None, "")]  # type: ignore[arg-type]
        return f"{max(vals):.3g}" if vals else ""

    for fam, rs in by.items():
        for r in rs:
            if r.get("lrat_bytes") and r.get("proof_bytes"):
                r["size_ratio"] = float(r["lrat_bytes"]) / float(r["proof_bytes"])  # type: ignore[arg-type]
        lines.append(f"| {fam} | {len(rs)} | {med(rs, 'search_seconds')} | {med(rs, 'c_seconds')} "
                     f"| {med(rs, 'c_binary_seconds')} | {med(rs, 'python_seconds')} | "
                     f"{med(rs, 'drat_trim_seconds')} | {most(rs, 'ratio')} | "
                     f"{med(rs, 'lrat_search_seconds')} | {med(rs, 'size_ratio')} | "
                     f"{med(rs, 'lrat_seconds')} | {med(rs, 'lrat_check_seconds')} | "
                     f"{most(rs, 'lrat_ratio')} | {most(rs, 'lrat_cpu_ratio')} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer and smaller instances")
    ap.add_argument("--drat-trim-src", default=os.environ.get("DRAT_TRIM_SRC"),
                    help="a checkout of drat-trim (env DRAT_TRIM_SRC); without it: no column")
    ap.add_argument("--cache", default=os.environ.get("SATDOKU_BENCH_CACHE"),
                    help="where drat-trim is built (env SATDOKU_BENCH_CACHE; default: temp)")
    ap.add_argument("--python-cap", type=float, default=30.0,
                    help="budget of the readable Python checker per proof (seconds)")
    ap.add_argument("--families", default=None,
                    help="comma-separated family names to run (default: all)")
    ap.add_argument("--csv", default=str(ROOT / "benchmarks/results/bench_drat.csv"))
    ap.add_argument("--markdown", default=str(ROOT / "benchmarks/results/bench_drat.md"))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-drat-") as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp) / "cache"
        drat_trim = build_drat_trim(args.drat_trim_src, cache)
        lrat_check = build_drat_trim(args.drat_trim_src, cache, "lrat-check")
        if drat_trim is None:
            print("drat-trim not available (no --drat-trim-src): its column stays empty",
                  file=sys.stderr)
        chosen = set(args.families.split(",")) if args.families else None
        rows = []
        for family, name, mode, cnf in families(args.quick, ROOT / "data" / "public"):
            if chosen is not None and family not in chosen:
                continue
            row = run_one(family, name, mode, cnf, Path(tmp), drat_trim, args.python_cap,
                          lrat_check)
            print(row, flush=True)
            rows.append(row)
    write_csv(args.csv, rows, COLUMNS)
    text = "\n".join(summary(rows)) + "\n"
    Path(args.markdown).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
