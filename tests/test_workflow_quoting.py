"""No configuration value reaches a shell (issue 18 section 5): real workflow runs on set paths,
file names and option values holding spaces, quotes, ``$(...)``, backticks, newlines and
non-ASCII. Each hostile value tries to create a marker file; none may exist afterwards, and the
run must give its results as usual."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import PUBLIC, ROOT, TINY

pytestmark = pytest.mark.slow

#: Shell code that creates ``MARK<n>`` in the working directory if a shell ever reads it.
def _attack(n: int) -> str:
    return f"$(touch MARK{n}a) `touch MARK{n}b`"


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2",
           *args, "--configfile", str(workdir / "config.yaml")]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)


def _markers(workdir: Path) -> list[str]:
    return sorted(str(p.relative_to(workdir)) for p in workdir.rglob("MARK*"))


def _write_config(workdir: Path, config: dict) -> None:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True),
                                         encoding="utf-8")


def test_hostile_set_paths_file_names_and_note_run_and_execute_nothing(tmp_path):
    # a puzzle set: directory with a space, $(...), backticks, non-ASCII; file name likewise
    d1 = tmp_path / f"sets é {_attack(1)}"
    d1.mkdir()
    puzzles = d1 / f"p {_attack(2)}.txt"
    shutil.copy(TINY / "sudokusolver_4x4.txt", puzzles)
    # a second puzzle set behind quotes of both kinds and a newline
    d2 = tmp_path / "q'uo\"te\nline"
    d2.mkdir()
    shutil.copy(TINY / "sudokusolver_4x4.txt", d2 / "m 4.txt")
    # a CNF set: a directory of DIMACS files, whose names the library lists (never the shell)
    d3 = tmp_path / f"cnf {_attack(3)}"
    d3.mkdir()
    (d3 / f"a {_attack(4)}.cnf").write_text("p cnf 2 2\n1 2 0\n-1 0\n")
    (d3 / "b'; touch MARK5 #.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    note = f"x'\"; touch MARK6; {_attack(7)} '$(touch MARK8)' \n é"
    _write_config(tmp_path, {
        "sets": {"h4": str(puzzles.relative_to(tmp_path)), "h4b": str(d2 / "m 4.txt"),
                 "hcnf": str(d3.relative_to(tmp_path))},
        "encodings": ["extended"],
        "solvers": {"minisat22": {"note": note}},
        "time_limit": 5, "shard_size": 100, "check_unique": True,
    })
    proc = _snakemake(tmp_path)
    assert _markers(tmp_path) == []
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    reports = tmp_path / "results" / "Reports"
    assert (reports / "h4.check").read_text().startswith("OK h4: 7 answers checked")
    assert (reports / "h4b.check").read_text().startswith("OK h4b: 7 answers checked")
    assert (reports / "hcnf.check").read_text().startswith("OK hcnf:")
    sols = (tmp_path / "results" / "SatSols" / "minisat22" / "dimacs" / "hcnf.tsv").read_text()
    assert "SAT" in sols and "UNSAT" in sols  # both hostile file names were solved
    assert (tmp_path / "reports" / "summary.md").is_file()


def _shell_words(dry_run: str, command: str) -> list[list[str]]:
    """The words of every shell command of a `snakemake -n -p` run that starts with
    ``command``, split as the shell splits them (shlex is POSIX word splitting)."""
    lines = [line.partition("Shell command: ")[2] for line in dry_run.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith(command)]


def _tiny_base(tmp_path: Path) -> dict:
    shutil.copytree(TINY, tmp_path / "data")
    return {"sets": {"tiny4": "data/sudokusolver_4x4.txt"}, "encodings": ["extended"],
            "solvers": {"minisat22": {}}, "time_limit": 5, "shard_size": 4}


def _original_words(workdir: Path, config: dict, target: str) -> list[str]:
    _write_config(workdir, config)
    dry = _snakemake(workdir, "-n", "-p", target)
    assert dry.returncode == 0, dry.stderr[-3000:]
    (words,) = _shell_words(dry.stdout, "satdoku generate dataset")
    return words


def test_hostile_ltn_original_path_is_one_word_and_runs(tmp_path):
    original = tmp_path / f"orig é 'q\" {_attack(1)}"
    shutil.copytree(PUBLIC / "ltn_sudoku_torch" / "data" / "4x4", original / "4x4")
    config = _tiny_base(tmp_path)
    manifest = "results/LTN/datasets/4/manifest.json"
    # as an LTN preset value: applied, checked, then quoted like any other
    config["ltn"] = {"sizes": [4], "per_kind": 5, "preset": "mine",
                     "presets": {"mine": {"original": str(original)}}}
    words = _original_words(tmp_path, config, manifest)
    assert words[words.index("--original") + 1] == f"{original}/4x4"
    config["ltn"] = {"sizes": [4], "per_kind": 5, "original": str(original)}
    words = _original_words(tmp_path, config, manifest)
    assert words[words.index("--original") + 1] == f"{original}/4x4"
    run = _snakemake(tmp_path, manifest)
    assert _markers(tmp_path) == []
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    source = json.loads((tmp_path / manifest).read_text())["source"]
    assert source == f"original:{original}/4x4"  # read from the hostile directory itself


def test_hostile_csp_solver_option_reaches_the_experiment_as_one_word_and_runs(tmp_path):
    config = _tiny_base(tmp_path)
    note = f"x'\" {_attack(1)} é"
    config["solvers"]["csp-fc-mrv"] = {"note": note}
    config["csp_experiment"] = {"solvers": ["csp-fc-mrv"], "families": ["latin"], "n_min": 3,
                                "n_max": 4, "time_limit": 1}
    _write_config(tmp_path, config)
    target = "results/Reports/csp_largest_n.tsv"
    dry = _snakemake(tmp_path, "-n", "-p", target)
    (words,) = _shell_words(dry.stdout, "satdoku largest-n")
    variants = json.loads(words[words.index("--variants") + 1])
    assert variants == {"csp-fc-mrv": {"note": note}}
    run = _snakemake(tmp_path, target)
    assert _markers(tmp_path) == []
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = (tmp_path / target).read_text().splitlines()
    assert len(rows) == 3 and all("\tcsp-fc-mrv\t" in r for r in rows[1:])


@pytest.mark.parametrize("section,key,value", [
    ("ltn", "lr", f"0.1; touch MARK1; {_attack(2)}"),
    ("csp_experiment", "relations", f"0.3' {_attack(3)} '"),
])
def test_hostile_preset_value_is_refused_in_one_line(tmp_path, section, key, value):
    config = _tiny_base(tmp_path)
    config[section] = {"presets": {"evil": {key: value}}, "preset": "evil"}
    _write_config(tmp_path, config)
    proc = _snakemake(tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("config:")]
    assert len(lines) == 1 and section in lines[0] and key in lines[0], proc.stderr[-3000:]
    assert _markers(tmp_path) == [] and not (tmp_path / "results").exists()


def test_unknown_solver_option_is_one_line_before_any_job(tmp_path):
    config = _tiny_base(tmp_path)
    config["solvers"] = {"minisat22": {"note": "fine", "heuristc": "vsids"}}
    _write_config(tmp_path, config)
    proc = _snakemake(tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "config: solvers.minisat22: unknown key(s) 'heuristc'" in proc.stderr
    assert not (tmp_path / "results").exists()  # refused before any job ran


@pytest.mark.parametrize("variants,said", [
    ('{"minisat22": {"heuristc": 1}}', "config: solvers.minisat22: unknown key(s) 'heuristc'"),
    ('{"minisat22": ', "argument --variants: not JSON"),
    ('["minisat22"]', "must be a JSON object"),
])
def test_stage_command_checks_variants_in_one_line(tmp_path, variants, said):
    proc = subprocess.run(
        [sys.executable, "-m", "satdoku", "pipeline", "solve", str(tmp_path / "none.jsonl"),
         "--solver", "minisat22", "--variants", variants, "--times", str(tmp_path / "t.tsv"),
         "--sols", str(tmp_path / "s.tsv")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("where", ["sets", "solvers"])
def test_hostile_set_or_solver_name_is_refused_in_one_line(tmp_path, where):
    """Names become file-name parts (results/SatSols/<solver>/<enc>/<set>.tsv): only safe
    characters, checked before any job."""
    config = _tiny_base(tmp_path)
    name = f"x'\" é\n{_attack(1)}"
    if where == "sets":
        config["sets"][name] = "data/sudokusolver_4x4.txt"
    else:
        config["solvers"][name] = {"solver": "minisat22"}
    _write_config(tmp_path, config)
    proc = _snakemake(tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"config: {where}: name " in proc.stderr and "is not allowed" in proc.stderr
    assert _markers(tmp_path) == [] and not (tmp_path / "results").exists()
