"""`satdoku pipeline`: a stage job imports its own stage's modules only, and every stage error
is still one line (the error classes are looked up among the loaded modules when caught)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from satdoku.commands import pipeline

#: the sys.modules probe: run the entry point, then list what it loaded
_PROBE = """
import sys
before = set(sys.modules)
from satdoku.cli import _main
code = _main(sys.argv[1:])
print("MODULES " + " ".join(sorted(set(sys.modules) - before)), file=sys.stderr)
sys.exit(code)
"""
#: modules only some stages need: the readers, the set planner, the measurement backends, the
#: report collector and jsonschema (a gather job needs none of them)
OTHER_STAGES = ("satdoku.formats", "satdoku.set_plans", "satdoku.solvers.measurement",
                "satdoku.report.collect", "jsonschema", "numpy", "pyarrow")


def _run(args: list[str]) -> tuple[int, str, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True,
                          text=True, timeout=120)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done.returncode, done.stderr, set(line.removeprefix("MODULES ").split())


def test_a_gather_job_loads_no_other_stage(tmp_path: Path) -> None:
    shard = tmp_path / "00000.tsv"
    shard.write_text("id\tline\tstatus\n1\t2\tSAT\n")
    code, _, modules = _run(["pipeline", "gather", str(shard), "--kind", "times",
                             "--tsv", str(tmp_path / "all.tsv")])
    assert code == 0
    assert (tmp_path / "all.tsv").read_text().splitlines()[1].startswith("1\t2\t\tSAT\t")
    assert sorted(m for m in OTHER_STAGES if m in modules) == []


def test_the_probe_sees_a_stage_that_loads_them(tmp_path: Path) -> None:
    """The check can fail: normalize loads the readers and the set planner."""
    src = tmp_path / "set.txt"
    src.write_text("." * 81 + "\n")
    code, _, modules = _run(["pipeline", "normalize", str(src), str(tmp_path / "i.jsonl")])
    assert code == 0
    assert {"satdoku.formats", "satdoku.set_plans"} <= modules


@pytest.mark.parametrize("args, says", [
    # SetError (set_plans): the input changed since the workflow planned it
    (["normalize", "{src}", "{out}", "--sha256", "0" * 64], "changed since the workflow"),
    # StageFileError (stagefiles.instances): a shard that is not one
    (["encode", "{bad}", "{out}", "--set", "s"], "bad instance record"),
    # OSError: a shard that does not exist
    (["gather", "{missing}", "--tsv", "{out}"], "No such file"),
])
def test_stage_errors_are_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    src = tmp_path / "set.txt"
    src.write_text("." * 81 + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    names = {"src": src, "out": tmp_path / "out", "bad": bad, "missing": tmp_path / "none.tsv"}
    code, err, _ = _run(["pipeline", *(a.format(**names) for a in args)])
    lines = [ln for ln in err.splitlines() if not ln.startswith("MODULES ")]
    assert code == 1
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in err, err


def test_every_stage_error_class_is_named_where_it_lives() -> None:
    """STAGE_ERRORS names real classes (a renamed module or class would stop being caught)."""
    import importlib

    for module, name in pipeline.STAGE_ERRORS:
        cls = getattr(importlib.import_module(module), name)
        assert issubclass(cls, Exception)
        assert cls in pipeline.stage_errors()


def test_a_time_column_outside_the_reports_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "satdoku", "pipeline", "report", "--set", "s",
                           "--instances", "x", "--txt", "t", "--png", "p",
                           "--time-column", "wall"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--time-column: invalid choice: 'wall'" in done.stderr
    assert "total_seconds" in done.stderr
