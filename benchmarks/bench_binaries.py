"""Whole processes against the Debian binaries on structured families (issue 29 goal 1).

Per file, each side is one fresh process timed from start to exit (wall clock), the way a user
runs it:

* ``satdoku`` — ``satdoku dpll --mode cdcl --no-model FILE`` (start-up, reading, preprocessing,
  search, and the answer's check: a model against every clause of the file, an UNSAT answer's
  DRUP proof by our checker; the check's own time, its ``c check_seconds`` line, is also
  reported apart);
* ``nosimp`` — the same with ``--no-simplify`` (the search alone, ``cdcl-nosimp``);
* ``minisat`` — Debian's ``minisat FILE`` (MiniSat 2.2 with its SatELite-style preprocessing;
  prints no model);
* ``cadical`` — Debian's ``cadical -q -n FILE`` (no model printed either);
* ``before`` (with ``--baseline SATDOKU``) — another build's ``satdoku`` command, the same
  arguments as ``satdoku``: a change measured against the code before it in the same run
  (SATDOKU may be a checkout's directory: it is then installed as ``satdoku`` is, below).

Which ``satdoku``: by default (``--install regular``) what a user's ``pip install .`` gives.
The checkout is built into a wheel (``pip wheel --no-build-isolation``, the C kernels
compiled) and installed without dependencies into a fresh temporary venv; the one-shot
``dpll`` path needs no third-party package. ``--install editable`` runs this environment's
``satdoku`` instead (``make install``'s ``pip install -e .``), whose every process also loads
the editable install's import finder at start-up (pathlib, urllib.parse, importlib.util:
about 25 ms of CPU a process on this machine), a cost of the development set-up that no
user's install pays.

Each process's CPU seconds (user + system, from the children's rusage) are measured too: on a
shared machine wall time also counts waiting for a core, CPU time does not. The sides run
interleaved per file (their order rotating between repeats), ``--repeat`` times,
and each file's median is kept, so machine load falls on all sides alike. Every status must
agree across the sides (our exit code 1 would mean a model that failed its check). With
``--search`` the same files are also solved in this process by our ``Cdcl`` and python-sat's
``Minisat22`` with only ``solve()`` timed on the process CPU clock (loading outside the clock;
our solve includes the preprocessing).

Families (``benchmarks/structured.py``, generated from seeds into ``--work``, kept there):
factoring, pigeonhole, parity, BMC, flat graph colouring, quasigroups with holes.

Usage: python benchmarks/bench_binaries.py [--scale default|small|heldout] [--seed N] [--repeat 3]
       [--timeout 120] [--families factor,php,...] [--search] [--baseline SATDOKU|CHECKOUT]
       [--install regular|editable] [--work DIR] [--csv FILE] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import atexit
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench_common import write_csv  # noqa: E402
from structured import SCALES, write_family_files  # noqa: E402

SIDES = ("satdoku", "nosimp", "minisat", "cadical")
STATUS = {10: "SAT", 20: "UNSAT"}


def commands(satdoku: str, baseline: str | None = None) -> dict[str, list[str]]:
    """Each side's command line, the file appended (``before``: only with a baseline)."""
    argvs = {
        "satdoku": [satdoku, "dpll", "--mode", "cdcl", "--no-model"],
        "nosimp": [satdoku, "dpll", "--mode", "cdcl", "--no-model", "--no-simplify"],
        "minisat": ["minisat"],
        "cadical": ["cadical", "-q", "-n"],
    }
    if baseline:
        argvs["before"] = [baseline, "dpll", "--mode", "cdcl", "--no-model"]
    return argvs


def regular_install(checkout: Path, venv: Path) -> str:
    """Install ``checkout`` as ``pip install .`` would (a wheel built with its C kernels, no
    dependencies) into a fresh venv at ``venv``; returns the path of its ``satdoku`` command."""
    wheels = venv.with_name(venv.name + "-wheel")
    shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(wheels), str(checkout)],
                   check=True)  # fmt: skip
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    *map(str, sorted(wheels.glob("satdoku-*.whl")))], check=True)  # fmt: skip
    return str(venv / "bin" / "satdoku")


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(argv: list[str], timeout: float) -> tuple[float, float, str, float]:
    """(wall seconds, CPU seconds, status, the answer check's seconds from a ``c check_seconds``
    line or 0) of one whole process; TIMEOUT past ``timeout``."""
    cpu = children_cpu()
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=timeout, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return timeout, timeout, "TIMEOUT", 0.0
    seconds = time.perf_counter() - start
    check = next((float(line.split()[2]) for line in done.stdout.splitlines()
                  if line.startswith(b"c check_seconds ")), 0.0)  # fmt: skip
    status = STATUS.get(done.returncode, f"exit{done.returncode}")
    return seconds, children_cpu() - cpu, status, check


def search_times(path: Path) -> dict[str, object]:
    """Search alone, in this process: our solve() (preprocessing included) and Minisat22's,
    process CPU seconds, the formula loaded before each clock starts."""
    from pysat.solvers import Minisat22

    from satdoku.cnf.dimacs import read_dimacs
    from satdoku.solvers.cdcl.driver import Cdcl

    cnf = read_dimacs(path)
    with Minisat22(bootstrap_with=cnf.clauses) as m:
        start = time.process_time()
        theirs = m.solve()
        minisat = time.process_time() - start
    solver = Cdcl(cnf.num_vars, cnf.clauses)
    start = time.process_time()
    status, model = solver.solve()
    ours = time.process_time() - start
    if status == "SAT":
        assert model is not None and cnf.satisfied_by(model) == [], path
    assert (status == "SAT") == theirs, path
    return {"search_ours": ours, "search_minisat22": minisat,
            "eliminated": solver.stats["eliminated_vars"]}  # fmt: skip


def measure(files: list[tuple[str, Path]], repeat: int, timeout: float, search: bool,
            satdoku: str, baseline: str | None = None) -> list[dict[str, object]]:  # fmt: skip
    argvs = commands(satdoku, baseline)
    sides = tuple(argvs)
    rows = []
    for family, path in files:
        times: dict[str, list[float]] = {side: [] for side in sides}
        cpus: dict[str, list[float]] = {side: [] for side in sides}
        checks: list[float] = []
        statuses: dict[str, set[str]] = {side: set() for side in sides}
        for rep in range(repeat):
            order = sides[rep % len(sides):] + sides[:rep % len(sides)]
            for side in order:
                seconds, cpu, status, check = run_process([*argvs[side], str(path)], timeout)
                times[side].append(seconds)
                cpus[side].append(cpu)
                if side == "satdoku":
                    checks.append(check)
                statuses[side].add(status)
        answers = {s for side in sides for s in statuses[side] if s != "TIMEOUT"}
        if len(answers) > 1:
            raise SystemExit(f"{path}: the sides disagree: {statuses}")
        row: dict[str, object] = {"family": family, "file": path.name,
                                  "status": answers.pop() if answers else "TIMEOUT"}
        for side in sides:
            row[side] = round(statistics.median(times[side]), 4)
            row[f"{side}_cpu"] = round(statistics.median(cpus[side]), 4)
            row[f"{side}_timeouts"] = sum(t >= timeout for t in times[side])
        row["satdoku_check"] = round(statistics.median(checks), 4)
        if search:
            row.update({key: round(value, 4) if isinstance(value, float) else value
                        for key, value in search_times(path).items()})  # fmt: skip
        rows.append(row)
        print(f"{family:7s} {path.name:32s} {row['status']:7s} "
              + " ".join(f"{side} {row[side]:.3f}" for side in sides), flush=True)
    return rows


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b > 0 else "-"


def table(rows: list[dict[str, object]], search: bool) -> list[str]:
    """Per family and overall: seconds summed over files (each a median), and the ratios."""
    head = ("| family | files | satdoku s | of which check s | nosimp s | minisat s | cadical s "
            "| satdoku / minisat | satdoku / cadical | nosimp / minisat "
            "| satdoku without check / minisat | CPU: satdoku / minisat | CPU: satdoku / cadical |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if search:
        head += " search ours / Minisat22 |"
        rule += "---:|"
    if rows and "before" in rows[0]:
        head += " before s | satdoku / before | CPU: satdoku / before |"
        rule += "---:|---:|---:|"
    lines = [head, rule]
    families = list(dict.fromkeys(str(r["family"]) for r in rows))
    for family in [*families, "all"]:
        group = [r for r in rows if family in ("all", r["family"])]
        total = {side: sum(float(r[side]) for r in group) for side in SIDES}  # type: ignore[arg-type]
        cpu = {side: sum(float(r[f"{side}_cpu"]) for r in group) for side in SIDES}  # type: ignore[arg-type]
        check = sum(float(r["satdoku_check"]) for r in group)  # type: ignore[arg-type]
        line = (f"| {family} | {len(group)} | {total['satdoku']:.2f} | {check:.2f} | "
                f"{total['nosimp']:.2f} | {total['minisat']:.2f} | {total['cadical']:.2f} | "
                f"{ratio(total['satdoku'], total['minisat'])} | "
                f"{ratio(total['satdoku'], total['cadical'])} | "
                f"{ratio(total['nosimp'], total['minisat'])} | "
                f"{ratio(total['satdoku'] - check, total['minisat'])} | "
                f"{ratio(cpu['satdoku'], cpu['minisat'])} | "
                f"{ratio(cpu['satdoku'], cpu['cadical'])} |")
        if search:
            ours = sum(float(r["search_ours"]) for r in group)  # type: ignore[arg-type]
            theirs = sum(float(r["search_minisat22"]) for r in group)  # type: ignore[arg-type]
            line += f" {ratio(ours, theirs)} |"
        if "before" in group[0]:
            before = sum(float(r["before"]) for r in group)  # type: ignore[arg-type]
            before_cpu = sum(float(r["before_cpu"]) for r in group)  # type: ignore[arg-type]
            line += (f" {before:.2f} | {ratio(total['satdoku'], before)} | "
                     f"{ratio(cpu['satdoku'], before_cpu)} |")
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=SCALES, default="default",
                    help="heldout: instances like the default ones that it does not hold, "
                    "from --seed (a held-out check of a change made on the default files)")
    ap.add_argument("--seed", type=int, default=1, help="the heldout scale's seed")
    ap.add_argument("--repeat", type=int, default=3, help="runs per side and file (median)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per process")
    ap.add_argument("--families", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--search", action="store_true",
                    help="also time search alone in-process against python-sat Minisat22")
    ap.add_argument("--baseline", metavar="SATDOKU",
                    help="another build's satdoku command, or a checkout installed as "
                    "--install says, run as side 'before'")
    ap.add_argument("--install", choices=("regular", "editable"), default="regular",
                    help="regular (default): this checkout as pip install . installs it, in a "
                    "temporary venv; editable: this environment's satdoku")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "structured")
    ap.add_argument("--csv", type=Path, default=ROOT / "benchmarks" / "results" / "binaries.csv")
    ap.add_argument("--markdown", type=Path,
                    default=ROOT / "benchmarks" / "results" / "binaries.md")
    args = ap.parse_args(argv)
    for binary in ("minisat", "cadical"):
        if shutil.which(binary) is None:
            raise SystemExit(f"bench_binaries: the {binary} binary is not installed")
    baseline = args.baseline
    if args.install == "editable":
        satdoku = str(Path(sys.executable).parent / "satdoku")
        # an installed package has its bytecode compiled; a checkout run with
        # PYTHONDONTWRITEBYTECODE would compile every module in every process
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "satdoku")],
                       check=True)  # fmt: skip
        if baseline and Path(baseline).is_dir():
            raise SystemExit("bench_binaries: a baseline checkout needs --install regular")
    else:
        venvs = Path(tempfile.mkdtemp(prefix="bench-binaries-"))
        atexit.register(shutil.rmtree, venvs, ignore_errors=True)
        satdoku = regular_install(ROOT, venvs / "satdoku")
        if baseline and Path(baseline).is_dir():
            baseline = regular_install(Path(baseline), venvs / "before")
    folder = args.work / (f"heldout-{args.seed}" if args.scale == "heldout" else args.scale)
    files = write_family_files(folder, args.scale, args.seed)
    wanted = {f for f in args.families.split(",") if f}
    files = [(family, path) for family, path in files if not wanted or family in wanted]
    rows = measure(files, args.repeat, args.timeout, args.search, satdoku, baseline)
    write_csv(args.csv, rows)
    lines = table(rows, args.search)
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
