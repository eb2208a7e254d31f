"""The measurement backends (satdoku/solvers/measurement.py): BenchExec's cgroups and the basic
launcher hold a misbehaving binary the same way: nothing it starts outlives its run, memory is
memory used (not address space reserved), CPU time is every descendant's, runs are pinned to
their cores, and a host without usable cgroups falls back to basic with the reason said.

The BenchExec tests run for real where BenchExec's own check passes (root with writable
cgroups: this machine, CI) and are skipped, with the check's reason, where it cannot work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import still_alive

from satdoku.solvers import measurement
from satdoku.solvers.base import CPU, RunLimits
from satdoku.solvers.output import AnswerStream
from satdoku.solvers.result import BASIC, BENCHEXEC

PROBLEM = measurement.benchexec_problem()
BACKENDS = [BASIC, pytest.param(BENCHEXEC, marks=pytest.mark.skipif(
    PROBLEM is not None, reason=f"BenchExec cannot work on this host: {PROBLEM}"))]


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def _run(argv: list[str], limits: RunLimits, tmp_path: Path):  # type: ignore[no-untyped-def]
    stream = AnswerStream()
    done = measurement.run_command(argv, limits.deadline(), limits, stream.feed,
                                   str(tmp_path / "err.txt"))
    stream.close()
    return done, stream


def _alive(marker: str) -> list[str]:
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    return out.split()


@pytest.mark.parametrize("mode", BACKENDS)
def test_a_process_escaping_with_setsid_dies_with_its_run(tmp_path: Path, mode: str) -> None:
    marker = f"{tmp_path}/escapee"
    sleeper = _script(tmp_path, "escapee", "exec sleep 623\n")
    esc = _script(tmp_path, "esc.sh", f"setsid {sleeper} &\nwhile :; do :; done\n")
    done, _ = _run([esc], RunLimits(time_limit=1.0, measurement=mode), tmp_path)
    assert done.usage.termination == "timelimit"
    assert done.usage.measurement.startswith(mode)
    assert not still_alive(lambda: _alive(marker)), "the setsid'ed process outlived its run"
    # and one left behind by a run that ends by itself
    quick = _script(tmp_path, "quick.sh", f"setsid {sleeper} &\necho s UNSATISFIABLE\nexit 20\n")
    done, stream = _run([quick], RunLimits(time_limit=10.0, measurement=mode), tmp_path)
    assert done.returncode == 20 and stream.answer()[0] == "UNSAT"
    assert not still_alive(lambda: _alive(marker)), (
        "a process left behind outlived a run that exited")


@pytest.mark.skipif(PROBLEM is not None, reason=f"BenchExec cannot work here: {PROBLEM}")
def test_a_fork_bomb_stops_at_the_pids_limit_and_dies_with_its_run(tmp_path: Path) -> None:
    from satdoku.solvers.benchexec_run import PIDS_LIMIT, executor

    if "pids" not in executor()._cgroup_subsystems:
        pytest.skip("no pids cgroup on this host")
    bomb = _script(tmp_path, "bomb.sh", "b() { b | b & }; b\nsleep 30\n")
    before = len(os.listdir("/proc"))
    done, _ = _run([bomb], RunLimits(time_limit=2.0, measurement=BENCHEXEC), tmp_path)
    assert done.usage.termination == "timelimit"
    assert not still_alive(lambda: _alive(str(tmp_path / "bomb.sh")))
    assert len(os.listdir("/proc")) < before + PIDS_LIMIT // 4  # nothing of it is left, no
    # zombie either (killed orphans that came back to this subreaper are reaped)


HOG = """import sys, time
mb = int(sys.argv[1])
block = b"x" * (mb * 2**20)  # written: resident
print("s UNKNOWN", flush=True)
time.sleep(5)
"""
RESERVER = """import mmap, sys
area = mmap.mmap(-1, 4 * 2**30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # 4 GB reserved
area[: 20 * 2**20] = b"x" * (20 * 2**20)  # 20 MB touched
print("s UNSATISFIABLE", flush=True)
sys.exit(20)
"""


@pytest.mark.parametrize("mode", BACKENDS)
def test_memout_is_memory_used_not_address_space_reserved(tmp_path: Path, mode: str) -> None:
    hog, reserver = tmp_path / "hog.py", tmp_path / "reserve.py"
    hog.write_text(HOG)
    reserver.write_text(RESERVER)
    limits = RunLimits(time_limit=20.0, memory_mb=150, measurement=mode)
    done, _ = _run([sys.executable, str(hog), "400"], limits, tmp_path)
    assert done.usage.termination == "memlimit"
    done, stream = _run([sys.executable, str(reserver)], limits, tmp_path)
    assert done.usage.termination == "exit" and done.returncode == 20, done
    assert stream.answer()[0] == "UNSAT"
    assert 15 < done.usage.max_rss_mb < 150


SPIKE = """import sys
area = bytearray(300 * 2**20)  # 300 MB touched (zeroed), then freed at once
del area
print("s UNSATISFIABLE", flush=True)
sys.exit(20)
"""


def test_a_spike_between_two_memory_samples_is_memout(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The basic backend samples the tree's memory; a run whose peak passed the limit between
    two samples ended over it all the same (here no sample falls inside the run at all)."""
    from satdoku.solvers import process

    monkeypatch.setattr(process, "POLL", 3600.0)
    spike = tmp_path / "spike.py"
    spike.write_text(SPIKE)
    done, _ = _run([sys.executable, str(spike)],
                   RunLimits(time_limit=20.0, memory_mb=150, measurement=BASIC),
                   tmp_path)
    assert done.usage.termination == "memlimit" and done.usage.max_rss_mb > 150, done


@pytest.mark.parametrize("mode", BACKENDS)
def test_cpu_bound_binary_is_timed_on_the_cpu_clock(tmp_path: Path, mode: str) -> None:
    spin = _script(tmp_path, "spin.sh", "while :; do :; done\n")
    limits = RunLimits(time_limit=0.5, clock=CPU, measurement=mode)
    done, _ = _run([spin], limits, tmp_path)
    assert done.usage.termination == "timelimit"
    # the CPU figure is the child's, near the limit (BenchExec reads its limit once a second)
    assert 0.3 < done.usage.cpu_seconds < 3.0


@pytest.mark.parametrize("mode", BACKENDS)
def test_every_descendant_counts_in_cpu_time(tmp_path: Path, mode: str) -> None:
    """A background child does 4x the work of its parent: the run's CPU time counts it. (The
    margin is wide: under a loaded VM the CPU time of the same loop varies by a third.)"""
    def work(n: int) -> str:
        return f"i=0; while [ $i -lt {n} ]; do i=$((i+1)); done"

    two = _script(tmp_path, "two.sh", f"sh -c '{work(400000)}' &\nsh -c '{work(100000)}'\n"
                  "wait\necho s UNSATISFIABLE\nexit 20\n")
    one = _script(tmp_path, "one.sh", f"sh -c '{work(100000)}'\necho s UNSATISFIABLE\nexit 20\n")
    limits = RunLimits(time_limit=60.0, measurement=mode)
    both, _ = _run([two], limits, tmp_path)
    single, _ = _run([one], limits, tmp_path)
    assert both.returncode == 20 and single.returncode == 20
    assert both.usage.cpu_seconds > 2.5 * single.usage.cpu_seconds


def test_auto_falls_back_to_basic_with_the_reason_when_cgroups_are_unusable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measurement, "benchexec_problem", lambda: "no usable memory cgroup")
    assert measurement.backend("auto") == BASIC
    assert measurement.describe("auto") == "basic (auto: no usable memory cgroup)"
    with pytest.raises(measurement.MeasurementError, match="benchexec cannot work on this host: "
                       "no usable memory cgroup"):
        measurement.backend("benchexec")


def test_benchexec_where_it_cannot_work_is_one_line(tmp_path: Path) -> None:
    """A host without usable cgroups is simulated by a check that names the reason."""
    code = ("import sys; from satdoku.solvers import measurement as m; "
            "m.benchexec_problem = lambda: 'cgroups simulated unavailable'; "
            "from satdoku.cli import main; sys.exit(main(sys.argv[1:]))")
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5"
                       "....8..79\n")
    done = subprocess.run([sys.executable, "-c", code, "solve", str(puzzles), "--command",
                           "cadical -q {cnf}", "--measurement", "benchexec"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "satdoku solve: measurement: benchexec cannot work on this host: cgroups simulated "
        "unavailable (measurement: basic or auto runs without it)"]


def test_two_solve_jobs_in_parallel_run_pinned_to_different_cores(tmp_path: Path) -> None:
    from satdoku.solvers.cores import allowed

    if len(allowed()) < 2:
        pytest.skip("one core: nothing to pin apart")
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5"
                       "....8..79\n")
    env = {**os.environ, "SATDOKU_CORE_LOCKS": str(tmp_path / "locks")}
    code = ("import os, sys, time; from satdoku.solve import RunLimits, assign_cores; "
            "lim = assign_cores(RunLimits(), 1); print(lim.cores, sorted(os.sched_getaffinity(0)),"
            " flush=True); time.sleep(3)")
    jobs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env=env) for _ in range(2)]
    lines = [j.communicate(timeout=60)[0].strip() for j in jobs]
    cores = [line.split(" [")[0] for line in lines]
    assert len(set(cores)) == 2 and "None" not in cores, lines
    for line in lines:  # each process runs where it claimed
        claimed, affinity = line.split(" [", 1)
        assert claimed.strip("(,)") == affinity.strip("]"), line


def test_the_times_row_records_measurement_and_cores(tmp_path: Path) -> None:
    from conftest import line_record

    from satdoku.solve import assign_cores, open_solver, solve
    from satdoku.stagefiles.tsv import times_row

    easy = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    limits = assign_cores(RunLimits(time_limit=10, measurement=BASIC))
    answer = solve(line_record(easy), open_solver("minisat22"), "extended", limits)
    row = times_row("1", 1, answer.result, 0.0)
    assert row["measurement"] == "in-process" and row["cores"]
    answer = solve(line_record(easy), open_solver("cadical195"), "extended", limits)
    assert answer.status == "SAT" and answer.result.measurement == "basic"
    assert json.dumps(times_row("1", 1, answer.result, 0.0)["cores"])


FLOOD_READER = """import resource, sys
from satdoku.solvers import measurement
from satdoku.solvers.base import RunLimits
from satdoku.solvers.output import AnswerStream
limits = RunLimits(time_limit=120.0, measurement=sys.argv[2])
stream = AnswerStream()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
done = measurement.run_command([sys.argv[1]], limits.deadline(), limits, stream.feed,
                               sys.argv[3])
stream.close()
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(done.returncode, stream.answer()[0], stream.bytes, grown)
"""


@pytest.mark.parametrize("mode", BACKENDS)
def test_a_flood_of_comment_lines_keeps_the_answer_in_bounded_memory(tmp_path: Path,
                                                                     mode: str) -> None:
    """168 MB of c lines, then the answer: the answer is kept and the reader's memory does not
    grow with the output (it held the whole output, three times over, before)."""
    flood = _script(tmp_path, "flood.sh", "yes 'c chatter chatter chatter chatter chatter' | "
                    "head -n 4000000\necho s UNSATISFIABLE\nexit 20\n")
    reader = tmp_path / "reader.py"
    reader.write_text(FLOOD_READER)
    out = subprocess.run([sys.executable, str(reader), flood, mode, str(tmp_path / "err")],
                         capture_output=True, text=True, timeout=300)
    code, status, seen, grown_kb = out.stdout.split()
    assert (code, status) == ("20", "UNSAT"), out.stderr
    assert int(seen) > 160_000_000 and int(grown_kb) < 30_000
