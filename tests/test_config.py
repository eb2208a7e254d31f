"""Configuration checks (satdoku/config.py + the schema): bad configurations are refused before
any job with one line naming the key; the schema's lists equal the registries; defaults live
in the schema; --configfile replaces config.yaml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, TINY

from satdoku.cnf.encodings import ENCODINGS
from satdoku.config import ConfigError, check, load_schema, with_preset

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
GOOD_SET = str(ROOT / "data" / "sudoku" / "murillo20.txt")


def _base(**extra: object) -> dict:
    return {"sets": {"a": GOOD_SET}, "solvers": {"cdcl": {}}, **extra}


BAD = [
    ({"sets": {"..": GOOD_SET}, "solvers": {"cdcl": {}}}, "sets: name '..' is not allowed"),
    ({"sets": {".": GOOD_SET}, "solvers": {"cdcl": {}}}, "sets: name '.' is not allowed"),
    ({"sets": {"-x": GOOD_SET}, "solvers": {"cdcl": {}}}, "sets: name '-x' is not allowed"),
    ({"sets": {"a": GOOD_SET}, "solvers": {"--help": {}}}, "solvers: name '--help'"),
    ({"sets": {"a" * 300: GOOD_SET}, "solvers": {"cdcl": {}}}, "at most 64 characters"),
    (_base(sovlers={}), "unknown key(s) 'sovlers'"),
    (_base(time_limit=float("inf")), "time_limit: inf is not a finite number"),
    (_base(time_limit=float("nan")), "time_limit: nan is not a finite number"),
    (_base(time_limit=0), "time_limit: 0 is less than or equal to the minimum of 0"),
    ({"sets": {"a": GOOD_SET}, "solvers": {"cpsat": {"workers": -3}}},
     "solvers.cpsat.workers: -3 is less than the minimum of 1"),
    ({"sets": {"a": GOOD_SET}, "solvers": {"cdcl": {"heuristic": "vsids"}}},
     "solvers.cdcl: unknown key(s) 'heuristic'"),
    ({"sets": {"a": GOOD_SET}, "solvers": {"x": {"solver": "dpll", "heuristic": "zz"}}},
     "solvers.x.heuristic: 'zz' is not one of"),
    ({"sets": {"a": GOOD_SET}, "solvers": {"nope": {}}}, "solvers.nope: not a registered solver"),
    (_base(csp_experiment={"solvers": ["zzz"]}), "csp_experiment.solvers.0: unknown solver"),
    (_base(csp_experiment={"solvers": ["cdcl"]}), "is not a puzzle-level solver"),
    (_base(csp_experiment={"n_min": 9, "n_max": 3}), "n_min 9 is larger than n_max 3"),
    (_base(encodings=["bogus"]), "encodings.0: 'bogus' is not one of"),
    (_base(ltn={"sizes": [5]}), "ltn.sizes.0: 5 is not one of"),
    ({"sets": {"a": "missing.txt"}, "solvers": {"cdcl": {}}}, "no such file or directory"),
    ({"sets": {"a": "/dev/zero"}, "solvers": {"cdcl": {}}}, "not a regular file"),
    ({"sets": {"a": str(ROOT / "tests")}, "solvers": {"cdcl": {}}},
     "is a directory without DIMACS files"),
    # issue 18 section 6: presets and paths of the LTN and CSP sections
    (_base(csp_experiment={"presets": {"quick": {"time_limit": "2"}}}, csp_preset="quick"),
     "csp_experiment.presets.quick.time_limit: '2' is not of type 'number'"),
    (_base(csp_experiment={"presets": {"x": {"n_maxx": 3}}}),
     "csp_experiment.presets.x: unknown key(s) 'n_maxx'"),
    (_base(ltn={"presets": {"quick": {"epochs": "many"}}}),
     "ltn.presets.quick.epochs: 'many' is not valid"),
    (_base(ltn={"presets": {"quick": {"sizes": 4}}}),
     "ltn.presets.quick.sizes: 4 is not of type 'array'"),
    (_base(ltn={"epochs": 0}), "ltn.epochs: 0 is less than the minimum of 1"),
    (_base(ltn={"epochs": {"4": -1}}), "ltn.epochs.4: -1 is less than the minimum of 1"),
    (_base(ltn={"original": "/nonexistent/ltn"}), "ltn.original: /nonexistent/ltn: not a "
                                                   "directory"),
    (_base(ltn={"original": str(ROOT / "tests"), "sizes": [4]}), "no 4x4/ folder for size 4"),
    (_base(ltn={"clue17": "/nonexistent/17.txt"}), "ltn.clue17: /nonexistent/17.txt: no such file"),
]


@pytest.mark.parametrize(("config", "fragment"), BAD, ids=[f for _, f in BAD])
def test_bad_configurations_are_one_line_errors(config: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        check(config, SCHEMA)
    message = str(info.value)
    assert fragment in message and message.startswith("config: ") and "\n" not in message


def test_defaults_come_from_the_schema_and_presets_apply() -> None:
    cfg = check(_base(ltn={}, csp_experiment={}), SCHEMA)
    schema = load_schema(SCHEMA)["properties"]
    assert cfg["time_limit"] == schema["time_limit"]["default"] == 10
    assert cfg["ltn"]["q2_limit"] == {"4": 200, "9": 80, "16": 20}
    assert cfg["csp_experiment"]["n_max"] == 12 and "full" in cfg["csp_experiment"]["presets"]
    full = with_preset(cfg["csp_experiment"], "full")
    assert full["n_max"] == 40 and full["time_limit"] == 60 and full["preset"] == "full"
    with pytest.raises(ConfigError, match="preset 'nope' unknown"):
        with_preset(cfg["csp_experiment"], "nope")
    assert "ltn" not in check(_base(), SCHEMA)  # no section: the branch stays off


def test_schema_lists_equal_the_registries() -> None:
    from satdoku.formats import FORMATS
    from satdoku.report.collect import TIME_COLUMNS
    from satdoku.solvers.base import CLOCKS

    props = load_schema(SCHEMA)["properties"]
    assert props["encodings"]["items"]["enum"] == list(ENCODINGS)
    set_formats = props["sets"]["additionalProperties"]["oneOf"][1]["properties"]["format"]
    assert set(set_formats["enum"]) == {"auto", "dimacs", *FORMATS}
    defs = load_schema(SCHEMA)["$defs"]
    assert defs["clock"]["enum"] == list(CLOCKS)
    assert props["report_time"]["enum"] == list(TIME_COLUMNS)


def test_schema_defaults_equal_the_code() -> None:
    """Facts the schema states beside the code's constant: each has one home in the code, and
    the schema's default (or text) equals it."""
    from satdoku.cnf.encodings import DEFAULT_ENCODING
    from satdoku.config import SOLVE_MEM_MB
    from satdoku.report.collect import DEFAULT_TIME
    from satdoku.set_plans import AUTO
    from satdoku.size_limits import SizeLimits

    schema = load_schema(SCHEMA)
    props = schema["properties"]
    assert props["encodings"]["default"] == [DEFAULT_ENCODING]
    assert f"mem_mb, {SOLVE_MEM_MB})" in " ".join(props["memory_limit"]["description"].split())
    assert props["report_time"]["default"] == DEFAULT_TIME
    assert props["shard_size"]["default"] == AUTO
    limits = props["size_limits"]["properties"]
    assert {k: v["default"] for k, v in limits.items()} == vars(SizeLimits())


def test_the_default_config_is_valid() -> None:
    cfg = check(yaml.safe_load((ROOT / "config.yaml").read_text()), SCHEMA)
    assert set(cfg["sets"]) >= {"murillo20", "futoshiki_usp", "latin_qwh"}


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-n",
           "--cores", "1", *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=300)


def test_snakemake_refuses_bad_configs_with_one_line(tmp_path: Path) -> None:
    for k, (config, fragment) in enumerate([
        ({"sets": {"..": GOOD_SET}, "solvers": {"cdcl": {}}}, "name '..' is not allowed"),
        ({"sets": {"a": GOOD_SET}, "solvers": {"cdcl": {"heuristic": "vsids"}}},
         "solvers.cdcl: unknown key(s) 'heuristic'"),
        ({"sets": {"a": "/dev/zero"}, "solvers": {"cdcl": {}}}, "not a regular file"),
    ]):
        cfg = tmp_path / f"bad{k}.yaml"
        cfg.write_text(yaml.safe_dump(config))
        proc = _snakemake(tmp_path, "--configfile", str(cfg))
        err = [ln for ln in proc.stderr.splitlines() if ln.strip() and "profile" not in ln]
        assert proc.returncode != 0 and fragment in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(err) == 1, proc.stderr


def test_configfile_replaces_the_default_config(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.txt").write_text((TINY / "mixed9.txt").read_text())
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"sets": {"default_set": "data/x.txt"}, "solvers": {"minisat22": {}}}))
    own = tmp_path / "own.yaml"
    own.write_text(yaml.safe_dump({"sets": {"mine": "data/x.txt"},
                                   "solvers": {"cadical195": {}}}))
    out = _snakemake(tmp_path, "--configfile", str(own)).stdout
    assert "mine" in out and "default_set" not in out and "minisat22" not in out
    plain = _snakemake(tmp_path).stdout  # no --configfile: config.yaml is the run
    assert "default_set" in plain and "mine" not in plain


def test_limits_defaults_equal_the_size_guard() -> None:
    from satdoku.records import as_dict
    from satdoku.size_limits import SizeLimits

    cfg = check(_base(), SCHEMA)
    assert cfg["size_limits"] == as_dict(SizeLimits())
    with pytest.raises(ConfigError, match="size_limits: unknown key"):
        check(_base(size_limits={"max_cels": 5}), SCHEMA)
    with pytest.raises(ConfigError, match="limits: renamed size_limits"):
        check(_base(limits={"max_cells": 5}), SCHEMA)


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    """9 levels of 9 aliases: 387 million strings once expanded; refused from the distinct
    objects (the old check walked every alias for minutes)."""
    data = yaml.safe_load(_bomb() + f"sets: {{a: {GOOD_SET}}}\nsolvers: {{cdcl: {{}}}}\n")
    with pytest.raises(ConfigError, match=r"^config: a\d: more than 100000 values once its "
                                          r"aliases are expanded"):
        check(data, SCHEMA)
    loop = yaml.safe_load("sets: &s {a: [*s]}\n")
    with pytest.raises(ConfigError, match="refers to itself"):
        check(loop, SCHEMA)
    deep = yaml.safe_load("x: " + "[" * 200 + "]" * 200 + "\n")
    with pytest.raises(ConfigError, match="nested deeper than 64 levels"):
        check(deep, SCHEMA)


@pytest.mark.parametrize(("text", "fragment"), [
    ("sets: {a: x}\nsolvers: {cdcl: {}}\nsets: {b: y}\n",
     "line 3: key 'sets' given twice (first on line 1)"),
    ("sets: {a: x}\nsolvers:\n  cdcl: {}\n  minisat22: {}\n  cdcl: {decay: 0.9}\n",
     "line 5: key 'cdcl' given twice (first on line 3)"),
    ("sets: {a: x, a: y}\n", "line 1: key 'a' given twice (first on line 1)"),
])
def test_a_key_given_twice_is_refused_naming_it(tmp_path: Path, text: str, fragment: str) -> None:
    from satdoku.config import check_file

    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        check_file(path)
    assert str(info.value) == f"config: {path}: {fragment}"


def test_snakemake_refuses_hostile_config_files_with_one_line(tmp_path: Path) -> None:
    """Through the real workflow: an alias bomb (it hung the check for minutes), a key given
    twice and a CSP preset of the wrong type (a 50-line traceback) are one line each."""
    base = f"sets: {{a: {GOOD_SET}}}\nsolvers: {{cdcl: {{}}}}\n"
    for k, (text, fragment) in enumerate([
        (_bomb() + base, "more than 100000 values"),
        (base + "solvers: {minisat22: {}}\n", "key 'solvers' given twice"),
        (base + "csp_experiment: {presets: {q: {time_limit: '2'}}}\ncsp_preset: q\n",
         "csp_experiment.presets.q.time_limit: '2' is not of type 'number'"),
    ]):
        cfg = tmp_path / f"bad{k}.yaml"
        cfg.write_text(text)
        proc = _snakemake(tmp_path, "--configfile", str(cfg))
        err = [ln for ln in proc.stderr.splitlines() if ln.strip() and "profile" not in ln]
        assert proc.returncode != 0 and fragment in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and len(err) == 1, proc.stderr
