"""What a one-shot ``satdoku dpll FILE`` loads (issue 29 goal 1: its fixed cost is paid on every
file a user or a benchmark runs): the CLI, the DIMACS reader, the solver it runs, the solve
path's core (:mod:`satdoku.solver_run`: measurement, proof and model checks) and the output
writer, and nothing of the puzzle, format, encoding or stage-file world, no numpy, no pandas.
Each case runs the real entry point in a fresh interpreter and lists ``sys.modules``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: satdoku modules the dpll command may load, each for a reason it needs
ALLOWED = {
    "satdoku", "satdoku.cli", "satdoku.commands", "satdoku.commands.common",
    "satdoku.commands.dpll",
    "satdoku.sources", "satdoku.size_limits",  # reading the file (gz/xz, size limits)
    "satdoku.cnf", "satdoku.cnf.dimacs_fast", "satdoku.cnf._dimacs",  # the DIMACS reader
    "satdoku.cnf.native",  # the one loader of the compiled passes (_dimacs)
    "satdoku.cnf.formula",  # the formula, and the model check against every clause
    "satdoku.cnf.dimacs",  # the v lines
    "satdoku.cnf.drat", "satdoku.cnf.lrat", "satdoku.cnf.watches",  # the UNSAT proof check
    "satdoku.cnf._lrat", "satdoku.cnf._drat",
    "satdoku.solver_run",  # the solve path's core: limits, measurement, checks
    # the solver made from its registry record (the option lists come from the solver modules)
    "satdoku.solvers", "satdoku.solvers.registry", "satdoku.solvers.base",
    "satdoku.solvers.result", "satdoku.solvers.cores", "satdoku.solvers.interrupts",
    "satdoku.solvers.csp", "satdoku.solvers.dpll", "satdoku.solvers.own",
    "satdoku.solvers.cdcl", "satdoku.solvers.cdcl.driver", "satdoku.solvers.cdcl.params",
    "satdoku.solvers.cdcl.adapter", "satdoku.solvers.cdcl._cdcl",
    "satdoku.records",  # the record classes above, made without dataclasses
    "satdoku.solvers.choices",  # the DPLL and CSP option names the registry lists
    "satdoku.commands.plain_args",  # the command line read without argparse
}
#: loaded for the check of an UNSAT answer's proof only (a model is checked without them)
PROOF_CHECK = {"satdoku.cnf.drat", "satdoku.cnf.lrat", "satdoku.cnf._lrat", "satdoku.cnf._drat"}
#: the DPLL and CSP engines (and random, which the DPLL loads for its seeded heuristic): the
#: registry names their options without them (solvers.choices), so the cdcl mode never loads them
ENGINES = {"satdoku.solvers.dpll", "satdoku.solvers.own", "satdoku.solvers.csp", "random"}
#: third-party or standard modules the command must not load (named, so a failure says which)
FORBIDDEN = ("numpy", "pandas", "pyarrow", "duckdb", "torch", "matplotlib", "scipy", "ortools",
             "pysat", "jsonschema", "yaml", "benchexec", "subprocess", "json", "csv",
             # standard modules the one-shot path avoids for its start-up (issue 29 goal 1):
             # dataclasses loads inspect with ast, dis and tokenize and compiles each class's
             # methods (satdoku.records instead); pathlib loads urllib.parse and ipaddress;
             # the signal relay starts its thread with _thread; the compressors load only for
             # a compressed file; argparse's formatter is given its width (no shutil of its own)
             "dataclasses", "inspect", "ast", "dis", "tokenize", "pathlib", "urllib",
             "ipaddress", "threading", "gzip",
             # typing (the solver protocols live in solvers.protocols, records' tuples are
             # collections.namedtuple); tempfile with shutil and random (solver_run.scratch_dir
             # makes the proof's directory)
             "typing", "tempfile", "shutil",
             # the signal relay takes its numbers and set_wakeup_fd from _signal
             "signal",
             # a plain command line is read without argparse (commands/plain_args.py), so
             # neither gettext nor its catalogue look-ups' locale load
             "argparse", "gettext", "locale",
             # re (with enum and copyreg): the regular expressions of the Python readers and
             # proof parsers compile on first use, and the installed command is a plain script
             # (scripts/satdoku), not a console-script wrapper that imports re. A development
             # venv's editable finder loads re at start-up, hidden from this probe: the bare
             # interpreter's test below sees it.
             "re", "enum", "copyreg")

#: the entry point as ``satdoku`` runs it, then the modules it loaded: those the interpreter's
#: start-up had not (site, and in a development venv the editable install's finder, which loads
#: pathlib and urllib itself; a regular install has none). The list is printed by an atexit
#: handler: ``satdoku dpll`` ends by ``os._exit`` after running them (cli._end_job). The probe
#: imports nothing else (atexit is built in).
_PROBE = """
import atexit, sys
before = set(sys.modules)
atexit.register(lambda: print("MODULES " + " ".join(sorted(set(sys.modules) - before)),
                              file=sys.stderr))
sys.argv = ["satdoku", *sys.argv[1:]]
from satdoku.cli import main
sys.exit(main())
"""


def _loaded(args: list[str]) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *args],
                          capture_output=True, text=True, timeout=120)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done.returncode, set(line.removeprefix("MODULES ").split())


def _cnf(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("args, code", [
    (["--mode", "cdcl", "--no-model"], 10),
    (["--mode", "cdcl", "--no-simplify"], 10),
    ([], 10),  # DPLL, the default mode
])
def test_dpll_on_a_satisfiable_file_loads_only_what_it_needs(tmp_path: Path, args: list[str],
                                                             code: int) -> None:
    got, modules = _loaded(["dpll", *args, _cnf(tmp_path, "sat.cnf", "p cnf 2 2\n1 2 0\n-1 0\n")])
    assert got == code
    ours = {m for m in modules if m == "satdoku" or m.startswith("satdoku.")}
    assert sorted(ours - ALLOWED) == []
    assert sorted(ours & PROOF_CHECK) == []  # a model needs no proof checker
    if "cdcl" in args:
        assert sorted(modules & ENGINES) == []
    assert sorted(m for m in FORBIDDEN if m in modules) == []


@pytest.mark.parametrize("mode", ["cdcl", "dpll"])
def test_dpll_with_a_checked_proof_loads_only_what_it_needs(tmp_path: Path, mode: str) -> None:
    cnf = _cnf(tmp_path, "unsat.cnf", "p cnf 1 2\n1 0\n-1 0\n")
    got, modules = _loaded(["dpll", "--mode", mode, "--proof", str(tmp_path / "p.lrat"), cnf])
    assert got == 20
    assert "satdoku.cnf.lrat" in modules  # the check ran
    ours = {m for m in modules if m == "satdoku" or m.startswith("satdoku.")}
    assert sorted(ours - ALLOWED) == []
    if mode == "cdcl":
        assert sorted(modules & ENGINES) == []
    assert sorted(m for m in FORBIDDEN if m in modules) == []


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("args, code", [
    (["--mode", "cdcl", "--no-model"], 10),
    (["--mode", "cdcl", "--proof", "{tmp}/p.lrat"], 20),  # the proof written and checked
    (["--mode", "cdcl"], 20),  # its proof checked from a temporary file
    (["--no-model"], 20),  # DPLL, the default mode, with its proof checked
])
def test_the_installed_command_in_a_bare_interpreter_imports_no_re(tmp_path: Path,
                                                                    args: list[str],
                                                                    code: int) -> None:
    """scripts/satdoku (what ``pip install`` puts in bin/) run as a user runs it, in an
    interpreter without site (``-S``: no editable finder loading re at start-up, satdoku
    from the checkout, its kernels built in place): every module imported is listed by
    ``-X importtime``, and neither re nor enum nor copyreg is among them."""
    text = ("p cnf 2 2\n1 2 0\n-1 0\n" if code == 10
            else "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    cnf = _cnf(tmp_path, "f.cnf", text)
    argv = [a.format(tmp=tmp_path) for a in args]
    script = str(ROOT / "scripts" / "satdoku")
    done = subprocess.run([sys.executable, "-S", "-X", "importtime", script, "dpll", *argv, cnf],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stdout.endswith("s SATISFIABLE\n" if code == 10 else "s UNSATISFIABLE\n")
    assert "c verified " + ("yes" if code == 10 else "proof") in done.stdout
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "satdoku.solver_run" in imported  # the listing is the command's
    assert sorted(imported & {"re", "enum", "copyreg"}) == []


def test_the_probe_sees_what_a_command_loads(tmp_path: Path) -> None:
    """The check can fail: ``satdoku solve`` on a puzzle loads the puzzle and format modules."""
    puzzle = _cnf(tmp_path, "p.txt", "12343412214.4321\n")
    _, modules = _loaded(["solve", puzzle])
    assert {"satdoku.puzzle", "satdoku.formats", "satdoku.solve"} <= modules


#: a fresh interpreter makes a scratch directory, writes a file and a directory into it, and
#: reports where it was, its mode, whether it is gone afterwards and whether tempfile loaded
_SCRATCH = """
import os, stat, sys
from satdoku.solver_run import scratch_dir
with scratch_dir() as path:
    mode = stat.S_IMODE(os.stat(path).st_mode)
    open(os.path.join(path, "proof"), "w").close()
    os.mkdir(os.path.join(path, "sub"))
print(path, oct(mode), os.path.exists(path), "tempfile" in sys.modules)
"""


def _scratch(env_tmpdir: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    done = subprocess.run([sys.executable, "-c", _SCRATCH], capture_output=True, text=True,
                          timeout=60, env={**env, "TMPDIR": env_tmpdir}, check=True)
    return done.stdout.split()


def test_the_proof_directory_is_made_where_tempfile_makes_it_without_tempfile(
        tmp_path: Path) -> None:
    """``solver_run.scratch_dir`` (the directory of a one-shot run's proof): under $TMPDIR,
    private (0700), gone afterwards with everything in it, and tempfile never loaded."""
    path, mode, exists, loaded = _scratch(str(tmp_path))
    assert Path(path).parent == tmp_path
    assert (mode, exists, loaded) == ("0o700", "False", "False")


def test_the_proof_directory_falls_back_to_tempfile(tmp_path: Path) -> None:
    """$TMPDIR not usable: tempfile itself picks the directory (its next candidate), as
    ``TemporaryDirectory`` would, and it is still removed afterwards."""
    path, mode, exists, loaded = _scratch(str(tmp_path / "missing"))
    assert not path.startswith(str(tmp_path))
    assert (mode, exists, loaded) == ("0o700", "False", "True")


def test_a_process_with_tempfile_loaded_uses_its_tempdir(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from satdoku.solver_run import scratch_dir

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with scratch_dir() as path:
        assert Path(path).parent == tmp_path
    assert not Path(path).exists()
