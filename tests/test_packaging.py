"""Packaging: `pip install .` gives a working satdoku. pyproject's dependencies are pinned in the
lock (requirements.txt) and in the conda environment the rules name; the sdist carries every C
source, and an install from it builds the compiled modules and runs `satdoku solve`.

The full fresh-venv check (every dependency from the index, no make) is too slow for the suite;
docs/development.md says how to run it by hand."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import ROOT


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower()


def _pins(lines: list[str]) -> dict[str, str]:
    """name -> exact version of ``name==version`` lines."""
    pins = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    return pins


PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
LOCK = _pins((ROOT / "requirements.txt").read_text().splitlines())


def test_every_dependency_is_pinned_in_the_lock() -> None:
    """pyproject declares what `pip install .` needs; the Makefile's lock pins each of them."""
    runtime = [_name(r) for r in PROJECT["dependencies"]]
    assert {"numpy", "python-sat", "pyyaml", "jsonschema", "plotly"} <= set(runtime)
    extras = PROJECT["optional-dependencies"]
    assert {_name(r) for r in extras["ltn"]} == {"torch", "ltntorch"}
    assert not {"torch", "ltntorch"} & set(runtime)  # everything but LTN without torch
    for name in runtime + [_name(r) for group in extras.values() for r in group]:
        assert name in LOCK, f"{name} is a dependency but requirements.txt does not pin it"
    assert "numba" not in LOCK  # one fast form (C) and one readable form (Python) per hot loop


def test_conda_environment_installs_the_lock_and_the_package() -> None:
    """workflow/envs/satdoku.yaml (every rule's `conda:`) pins what the lock pins for the
    runtime and LTN, and its post-deploy script installs satdoku itself."""
    env = yaml.safe_load((ROOT / "workflow" / "envs" / "satdoku.yaml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    pinned = _pins([p for p in pip if not p.startswith("-")])
    needed = [_name(r) for r in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["ltn"]]
    for name in needed:
        assert pinned.get(name) == LOCK[name], f"{name}: env {pinned.get(name)}, lock {LOCK[name]}"
    for name, version in pinned.items():
        assert LOCK.get(name) == version, f"{name}=={version} in the env, not in the lock"
    script = (ROOT / "workflow" / "envs" / "satdoku.post-deploy.sh").read_text()
    assert "pip install" in script and " -e ." in script


def test_c_sources_in_the_sdist_and_the_package() -> None:
    """Every C source of satdoku/ is in MANIFEST.in's reach and in the package data (solver
    versions hash the sources beside the installed modules)."""
    sources = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "satdoku").rglob("*.c"))
    assert {"satdoku/solvers/cdcl/_cdcl.c", "satdoku/solvers/cdcl/kernel.c"} <= set(sources)
    setup = (ROOT / "setup.py").read_text()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for src in sources:
        assert f'"{src}"' in setup, f"{src} is not built by setup.py"
        package = src.rsplit("/", 1)[0].replace("/", ".")
        assert "*.c" in data["package-data"].get(package, []), f"{src} not in package-data"
    headers = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "satdoku").rglob("*.h"))
    assert "satdoku/solvers/cdcl/kernel.h" in headers
    for header in headers:  # a changed header changes the solver's version too
        package = header.rsplit("/", 1)[0].replace("/", ".")
        assert "*.h" in data["package-data"].get(package, []), f"{header} not in package-data"
    assert "recursive-include satdoku *.c *.h" in (ROOT / "MANIFEST.in").read_text()


@pytest.mark.slow
def test_install_from_the_sdist_builds_the_compiled_modules(tmp_path: Path) -> None:
    """Build the sdist, install it (no dependencies, no build isolation) into a new venv that
    sees this environment's packages, then import the compiled modules from the install and
    solve a tiny file with its `satdoku`."""
    dist = tmp_path / "dist"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta as b; "
                    f"b.build_sdist({str(dist)!r})"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    (sdist,) = dist.glob("satdoku-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for src in (ROOT / "satdoku").rglob("*.c"):
        assert src.relative_to(ROOT).as_posix() in names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=60)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "outer.pth").write_text(sysconfig.get_path("purelib") + "\n")
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                           "--no-deps", "--no-build-isolation", "--no-index", str(sdist)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    code = ("import satdoku.solvers.cdcl._cdcl as k, satdoku.cnf._dimacs as d, "
            "satdoku.cnf._drat as c, satdoku.cnf._lrat as r, satdoku.pipeline._batch as b; "
            "print(k.__file__); print(d.__file__); print(c.__file__); print(r.__file__); "
            "print(b.__file__)")
    out = subprocess.run([str(py), "-c", code], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert all(f.startswith(site) and f.endswith(".so") for f in out), out
    cnf = tmp_path / "tiny.cnf"
    cnf.write_text("p cnf 3 3\n1 2 0\n-1 3 0\n-3 -2 0\n")
    solved = subprocess.run([str(venv / "bin" / "satdoku"), "solve", str(cnf)], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120)
    assert solved.returncode == 0, solved.stderr
    model = {int(x) for x in solved.stdout.split()}
    assert 0 in model and len(model) == 4  # three literals, then the terminating 0
    assert all(set(clause) & model for clause in ([1, 2], [-1, 3], [-3, -2]))


def test_a_command_needing_a_missing_extra_says_which_in_one_line(tmp_path: Path) -> None:
    """`pip install .` leaves torch out: `satdoku classify` then says to install the ltn extra
    in one line (exit 2), instead of a ModuleNotFoundError traceback."""
    from satdoku.cli import OPTIONAL_MODULES

    assert set(OPTIONAL_MODULES.values()) <= set(PROJECT["optional-dependencies"])
    board = tmp_path / "b.txt"
    board.write_text("2 0240100340020130\n")
    code = ("import sys; sys.modules['torch'] = None; from satdoku.cli import main; "
            f"sys.exit(main(['classify', '--path', {str(board)!r}, '--models', "
            f"{str(tmp_path)!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "satdoku classify: needs torch, which is not installed: pip install 'satdoku[ltn]'")
