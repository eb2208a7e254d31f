"""The harness around solvers on CNF files at competition scale: generated random 3-SAT files
of 10-200 MB (seeded, clause/variable ratio 2: easily satisfiable), each step of the solve path
timed and measured alone, and whole processes against ``satdoku dpll`` and the binaries run by
hand, interleaved on the same file in one run (so the machine's load cancels out of ratios).

    python benchmarks/bench_large_cnf.py [--sizes 10 50 200] [--seed 29] [--dir DIR]
        [--rounds 3] [--binaries cadical minisat] [--out benchmarks/results/bench_large_cnf.csv]

Steps (each in a fresh process: wall and CPU seconds, the CPU of every thread of the process,
and its peak memory above the process after its imports, MB):
- ``record``: reading the file as ``satdoku solve F`` does (``commands.solve._read``: the
  file's kind sniffed from its head, then one streaming pass: checked, sha256, GBD's hash in a
  second thread, the file's form, and the formula kept as a flat literal buffer for the check;
  then the set's checksum from that sha256);
- ``formula``: the flat literal buffer of a second read, as an in-process solver of a
  directory's file gets it (``formula_of``);
- ``cnf_file``: what a binary is handed (``_instance_file``: the user's own file when the
  record says it is standard DIMACS, with no pass over it);
- ``rewrite``: the rewrite a non-standard file would get (a streaming pass writing DIMACS);
- ``answer``: parsing the binary's output (cadical's, saved beforehand: ``AnswerStream``);
- ``check``: checking its model against the formula the read kept (``verify``: a C pass over
  the buffer);
- ``check_stream``: the same check in a streaming pass over the file (``check_model_file``),
  as a directory's files get it (their formulas are not kept);
- ``recheck``: the sha256 of the file again at the end of ``satdoku solve`` (did it change
  while it was solved?), through the set's plan as the command makes it.

Whole processes (wall and CPU seconds, user + system of the whole tree; peak MB of the
satdoku process itself and of its children): ``cadical -q F`` (and ``minisat F``) by hand,
``satdoku dpll --mode cdcl F``, ``satdoku solve F --solver cdcl``, ``satdoku solve F
--command "cadical -q {cnf}"`` (and the same with minisat).

Trust: before a file is timed, the package's bytecode is compiled and the file is read once
(so no measurement pays for compiling modules or for the disk); ``satdoku dpll`` and the steps
are then timed ``--rounds`` times, interleaved (dpll, the steps, dpll, the steps, ...), and
each figure is the least of its rounds (the one least disturbed by other processes; on a
shared machine CPU time grows with load too, and more for a process that reaches all over a
gigabyte, as ``satdoku dpll`` does, than for a streaming pass). The load average is recorded
at the start and end of each file, and the spread of the per-round ratios.

Derived per file: ``formula_mb`` (the flat int32 buffer: literals and clause ends),
``steps_s`` / ``steps_cpu_s`` (record + cnf_file + answer + check + recheck: the solve path's
own work around a binary), ``steps_vs_dpll`` / ``steps_cpu_vs_dpll`` (those over ``satdoku
dpll``'s whole wall / CPU time on the same file: the goal is at most 0.25; least over least),
``steps_cpu_vs_dpll_lo`` / ``_hi`` (the per-round ratios' range), ``harness_s`` (the solve
path's own time around cadical: ``solve --command cadical`` minus cadical by hand; around
minisat likewise), ``harness_vs_dpll`` (that over ``satdoku dpll``'s whole time on the same
file), ``peak_vs_formula`` (the satdoku process's peak with the binary over ``formula_mb``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import write_csv

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PYTHON = sys.executable
TIME = "/usr/bin/time"  # GNU time
BYTES_PER_CLAUSE = 26.5  # a random 3-clause of variables up to ~10^6..10^7, as written

#: runs a satdoku command and prints its own peak memory (not its children's) to stderr
_SELF_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['satdoku', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('satdoku', run_name='__main__')\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "finally:\n"
    "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "    print(f'SELF_PEAK_MB {peak:.1f}', file=sys.stderr)\n"
)


def generate(path: Path, megabytes: float, seed: int) -> tuple[int, int]:
    """A random 3-SAT file of about ``megabytes`` MB, clause/variable ratio 2 (each literal
    drawn independently); returns (variables, clauses)."""
    import numpy as np

    from satdoku.cnf import _dimacs  # type: ignore[attr-defined]

    clauses = int(megabytes * 1e6 / BYTES_PER_CLAUSE)
    num_vars = clauses // 2
    rng = np.random.default_rng(seed)
    with open(path, "wb") as fh:
        fh.write(b"c random 3-SAT, seed %d\np cnf %d %d\n" % (seed, num_vars, clauses))
        done = 0
        while done < clauses:
            n = min(1_000_000, clauses - done)
            v = rng.integers(1, num_vars + 1, size=(n, 3), dtype=np.int32)
            signs = np.where(rng.random((n, 3)) < 0.5, -1, 1).astype(np.int32)
            lits = np.concatenate([v * signs, np.zeros((n, 1), np.int32)], axis=1)
            text, _ = _dimacs.format_clauses(lits.astype(np.int32).tobytes(), True)
            fh.write(text)
            done += n
    return num_vars, clauses


# -- steps, each in its own process ---------------------------------------------------------

def _step(name: str, path: str, extra: str) -> dict[str, float]:
    """Run one step here (called in a fresh process): its seconds and peak growth (MB)."""
    import resource

    from satdoku.cnf.dimacs_stream import check_model_file, rewrite_dimacs, scan_dimacs
    from satdoku.commands.solve import _read
    from satdoku.formats.cnfset import NOTATION, cnf_file_read
    from satdoku.set_plans import plan
    from satdoku.solve import _instance_file, formula_of, verify
    from satdoku.solvers.output import AnswerStream
    from satdoku.solvers.result import SAT, Result

    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def model() -> object:
        stream = AnswerStream()
        stream.read_file(extra)
        return stream.answer()[1] or []

    record, kept = cnf_file_read(path) if name not in ("record", "formula", "check_stream",
                                                       "recheck") else (None, None)
    if record is None and name != "record":
        from satdoku.formats.cnfset import cnf_file_record
        record = cnf_file_record(path)
    got = model() if name in ("check", "check_stream") else None
    base = peak()
    out: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    if name == "record":  # as satdoku solve F reads F
        _, records, cnf_set, formulas = _read(path, "auto")
        assert cnf_set and records[0].cnf is not None, records[0].error
        out["kept_mb"] = len(formulas[records[0].index].lits) / 1e6  # type: ignore[arg-type]
    elif name == "formula":
        formula = formula_of(record, "")  # type: ignore[arg-type]
        out["formula_mb"] = len(formula.cnf.lits) / 1e6  # type: ignore[union-attr]
    elif name == "cnf_file":
        with tempfile.TemporaryDirectory() as tmp:
            cnf_path, handed = _instance_file(record.cnf, (), os.path.join(tmp, "i.cnf"))  # type: ignore[union-attr]
            out["handed_over"] = float(handed and cnf_path == os.path.abspath(path))
    elif name == "rewrite":
        with tempfile.TemporaryDirectory() as tmp:
            rewrite_dimacs(scan_dimacs(path), os.path.join(tmp, "i.cnf"))
    elif name == "answer":
        out["model_vars"] = float(len(model()))  # type: ignore[arg-type]
    elif name == "check":  # as the solve path checks a binary's model: the formula kept
        answer = verify(record, "", Result(SAT, model=got), kept)  # type: ignore[arg-type]
        assert answer.verified == "yes", answer.detail
    elif name == "check_stream":  # a directory's file: a streaming pass
        check = check_model_file(path, record.cnf.sha256, record.cnf.num_vars, got)  # type: ignore[union-attr,arg-type]
        assert check.ok, check.problem()
    elif name == "recheck":  # as satdoku solve's end does: the file hashed again
        assert plan(path, NOTATION).sha256
    out["seconds"] = time.perf_counter() - start
    out["cpu_seconds"] = time.process_time() - cpu
    out["peak_mb"] = peak() - base
    return out


def run_step(name: str, path: Path, extra: str = "") -> dict[str, float]:
    done = subprocess.run([PYTHON, __file__, "--step", name, str(path), extra],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- whole processes -----------------------------------------------------------------------

def run_whole(argv: list[str], stdout: Path | None = None) -> dict[str, float]:
    """Wall seconds and peak memory of one whole process: the satdoku process's own (it says,
    on stderr) and the largest of the tree (GNU time: a small launcher, so no parent's peak
    is inherited through fork)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, \
            open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        done = subprocess.run([TIME, "-f", "%M %U %S", "-o", report.name, *argv],
                              stdout=out, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        tree_kb, user, system = map(float, report.read().split()[-3:])
    err = done.stderr.decode(errors="replace")
    if done.returncode not in (0, 10, 20):
        raise RuntimeError(f"{argv[:4]} exited {done.returncode}: {err[-300:]}")
    self_peak = [float(w.split()[1]) for w in err.splitlines() if w.startswith("SELF_PEAK_MB")]
    return {"seconds": seconds, "cpu_seconds": user + system, "tree_peak_mb": tree_kb / 1024,
            "self_peak_mb": self_peak[0] if self_peak else tree_kb / 1024}


def satdoku(*args: str) -> list[str]:
    return [PYTHON, "-c", _SELF_PEAK, *args]


STEPS = ("record", "formula", "cnf_file", "rewrite", "answer", "check", "check_stream",
         "recheck")
SUM = ("record", "cnf_file", "answer", "check", "recheck")  #: the solve path's own, with a binary


def warm(path: Path) -> None:
    """Compile the package's bytecode and read the file once: no timed process then pays for
    compiling modules or reading from disk."""
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "satdoku")], check=True)
    with open(path, "rb") as fh:
        while fh.read(1 << 24):
            pass


def _put(row: dict[str, object], name: str, got: dict[str, float]) -> None:
    """Keep the least of the rounds' seconds, CPU seconds and peak."""
    for key, col in (("seconds", f"{name}_s"), ("cpu_seconds", f"{name}_cpu_s")):
        row[col] = round(min(got[key], float(row.get(col, 1e18))), 3)  # type: ignore[arg-type]


def bench_file(path: Path, megabytes: float, work: Path, rounds: int,
               binaries: list[str]) -> dict[str, object]:
    warm(path)
    row: dict[str, object] = {"target_mb": megabytes,
                              "file_mb": round(path.stat().st_size / 1e6, 1),
                              "load_start": round(os.getloadavg()[0], 1)}
    answer = work / "cadical.out"
    commands = {"cadical": "cadical -q {cnf}", "minisat": "minisat -verb=0 {cnf} {result}"}
    whole = {"cadical": (["cadical", "-q", str(path)], answer)}
    if "minisat" in binaries:
        whole["minisat"] = (["minisat", "-verb=0", str(path)], None)
    whole["solve_cdcl"] = (satdoku("solve", str(path), "--solver", "cdcl"), None)
    for binary in binaries:
        whole[f"solve_{binary}"] = (satdoku("solve", str(path), "--command", commands[binary]),
                                    None)
    for name, (argv, out) in whole.items():  # interleaved: one file, one after another
        got = run_whole(argv, out)
        _put(row, name, got)
        row[f"{name}_mb"] = round(got["self_peak_mb"], 1)
        if name.startswith("solve_") and name != "solve_cdcl":
            row[f"{name}_child_mb"] = round(got["tree_peak_mb"], 1)
    ratios = []
    for _ in range(rounds):  # satdoku dpll and the steps, round after round
        got = run_whole(satdoku("dpll", "--mode", "cdcl", str(path)))
        _put(row, "dpll_cdcl", got)
        row["dpll_cdcl_mb"] = round(got["self_peak_mb"], 1)
        dpll_cpu, steps_cpu = got["cpu_seconds"], 0.0
        for name in STEPS:
            step = run_step(name, path, str(answer))
            _put(row, name, step)
            row[f"{name}_mb"] = round(step["peak_mb"], 1)
            steps_cpu += step["cpu_seconds"] if name in SUM else 0.0
            if "formula_mb" in step:
                row["formula_mb"] = round(step["formula_mb"], 1)
            if "handed_over" in step:
                row["handed_over"] = bool(step["handed_over"])
        ratios.append(steps_cpu / dpll_cpu)
    row["load_end"] = round(os.getloadavg()[0], 1)
    num = lambda key: float(row[key])  # type: ignore[arg-type]  # noqa: E731
    row["steps_s"] = round(sum(num(f"{k}_s") for k in SUM), 3)
    row["steps_cpu_s"] = round(sum(num(f"{k}_cpu_s") for k in SUM), 3)
    row["steps_vs_dpll"] = round(num("steps_s") / num("dpll_cdcl_s"), 3)
    row["steps_cpu_vs_dpll"] = round(num("steps_cpu_s") / num("dpll_cdcl_cpu_s"), 3)
    row["steps_cpu_vs_dpll_lo"] = round(min(ratios), 3)
    row["steps_cpu_vs_dpll_hi"] = round(max(ratios), 3)
    for binary in binaries:
        harness = num(f"solve_{binary}_s") - num(f"{binary}_s")
        row[f"harness_{binary}_s"] = round(harness, 2)
        row[f"harness_{binary}_vs_dpll"] = round(harness / num("dpll_cdcl_s"), 3)
    row["peak_vs_formula_cadical"] = round(num("solve_cadical_mb") / num("formula_mb"), 2)
    row["peak_vs_formula_cdcl"] = round(num("solve_cdcl_mb") / num("formula_mb"), 2)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[10, 50, 200],
                    help="file sizes in MB")
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--dir", help="where the generated files go (default: a temporary folder)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of satdoku dpll and the steps, interleaved (least kept)")
    ap.add_argument("--binaries", nargs="+", default=["cadical", "minisat"],
                    choices=["cadical", "minisat"], help="binaries run through satdoku solve")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" /
                                         "bench_large_cnf.csv"))
    ap.add_argument("--step", nargs=3, metavar=("NAME", "FILE", "EXTRA"),
                    help=argparse.SUPPRESS)  # one step, in this fresh process
    args = ap.parse_args()
    if args.step:
        print(json.dumps(_step(*args.step)))
        return 0
    missing = [b for b in ({"cadical", *args.binaries, TIME}) if shutil.which(b) is None]
    if missing:
        print(f"bench_large_cnf: {', '.join(missing)} not installed", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-large-cnf-") as tmp:
        folder = Path(args.dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for i, mb in enumerate(args.sizes):
            path = folder / f"random3sat-{mb:g}mb-seed{args.seed + i}.cnf"
            if not path.exists():
                generate(path, mb, args.seed + i)
            row = bench_file(path, mb, Path(tmp), args.rounds, args.binaries)
            rows.append(row)
            print(json.dumps(row), flush=True)
            if not args.dir:
                path.unlink()
    write_csv(args.out, rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
