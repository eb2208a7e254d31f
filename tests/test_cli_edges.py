"""Command-line rough edges (issue 21): `encode` offers every registered encoding and says what
a simplified formula's variables are; `solve` names the files of a CNF directory and refuses an
encoding where nothing is encoded; `extract` explains a missing stage file in one plain line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from satdoku.cli import main
from satdoku.cnf.dimacs import read_dimacs
from satdoku.cnf.encodings import ENCODINGS


def test_encode_offers_every_registered_encoding(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["encode", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert len(ENCODINGS) == 9 and all(name in text for name in ENCODINGS)


@pytest.mark.parametrize("encoding", ["simplified", "extended_seq"])
def test_encode_header_says_what_the_variables_are(tmp_path: Path, encoding: str) -> None:
    """The header comment's mapping, applied to a model of the file, gives the puzzle's
    solution (for simplified: variable i is the i-th direct variable the givens leave open)."""
    from pysat.solvers import Minisat22

    from satdoku.cnf.encode import simplified_variables
    from satdoku.formats import read_records

    puzzles = tmp_path / "p.txt"
    puzzles.write_text(Path("data/sudoku/murillo20.txt").read_text().splitlines()[0] + "\n")
    assert main(["encode", str(puzzles), "-o", str(tmp_path / "out"), "--encoding", encoding]) == 0
    cnf = read_dimacs(tmp_path / "out" / "p_1.cnf")
    puzzle = next(iter(read_records(puzzles))).puzzle
    assert puzzle is not None
    comment = next(c for c in cnf.comments if "variables" in c)
    with Minisat22(bootstrap_with=cnf.clauses) as solver:
        assert solver.solve()
        true = {v for v in solver.get_model() if v > 0}
    if encoding == "simplified":
        kept = simplified_variables(puzzle)
        assert comment.startswith(f"variables renumbered: 1..{len(kept)} ")
        direct = {kept[v - 1] for v in true if v <= len(kept)}
        direct |= {c * 9 + d for c, d in enumerate(puzzle.givens) if d}
    else:
        assert "cell * 9 + d" in comment and "above 729" in comment
        direct = {v for v in true if v <= 729}
    board = [0] * 81
    for v in direct:
        board[(v - 1) // 9] = (v - 1) % 9 + 1
    assert puzzle.check_solution(board) == []


def test_solve_names_the_files_of_a_cnf_directory(tmp_path: Path, public_data: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("uf20-01.cnf", "uf20-02.cnf"):
        shutil.copy(public_data / "satlib" / "uf20-91" / name, tmp_path / name)
    assert main(["solve", str(tmp_path), "--solver", "cdcl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split("\t")[0] for ln in lines] == ["uf20-01.cnf", "uf20-02.cnf"]
    model = [int(x) for x in lines[0].split("\t")[1].split()]
    assert read_dimacs(tmp_path / "uf20-01.cnf").satisfied_by(model) == []
    assert main(["solve", str(tmp_path / "uf20-01.cnf"), "--solver", "cdcl"]) == 0
    assert "\t" not in capsys.readouterr().out  # one file: the model alone


def test_solve_refuses_an_encoding_nothing_uses(tmp_path: Path, public_data: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(Path("data/sudoku/murillo20.txt").read_text().splitlines()[0] + "\n")
    assert main(["solve", str(puzzles), "--solver", "cpsat", "--encoding", "simplified"]) == 2
    err = capsys.readouterr().err
    assert "--encoding simplified: nothing is encoded (cpsat solves the puzzles" in err
    cnf = public_data / "satlib" / "uf20-91" / "uf20-01.cnf"
    assert main(["solve", str(cnf), "--encoding", "minimal"]) == 2
    assert "is a CNF set" in capsys.readouterr().err
    assert main(["solve", str(puzzles), "--solver", "cdcl", "--encoding", "simplified"]) == 0
    assert main(["solve", str(puzzles), "--solver", "cpsat"]) == 0


def test_extract_explains_in_one_plain_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "nosuchset", "3", "--results", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("satdoku extract: no Instances shards for set 'nosuchset'"), err
    import satdoku.commands.extract as extract  # the command's own name for the shard finder

    monkeypatch.setattr(extract, "shard_of", lambda results, name, ident: "00000")
    assert main(["extract", "s", "3", "--solver", "cpsat", "--results", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "cpsat is a puzzle-level solver: it writes no SatOutput" in err
    assert "Errno" not in err and f"{tmp_path}/SatSols/cpsat/direct/s.txt" in err
    assert main(["extract", "s", "3", "--solver", "glucose4", "--results", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no such file (did the run solve set s with glucose4 and encoding extended?)" in err


def test_a_workflow_job_ends_fast_with_its_output_and_exit_code(tmp_path: Path) -> None:
    """A real `satdoku pipeline` process ends by os._exit (no interpreter teardown, cli.py
    _end_job): its stdout to a file (block-buffered) is flushed, atexit handlers ran (the
    rusage line), its files are complete, and a failing stage keeps its exit code."""
    import os
    import subprocess
    import sys

    sols = tmp_path / "s.tsv"
    sols.write_text("id\tline\tinstance_hash\tstatus\tverified\tsolution\tdetail\n"
                    "1\t1\t\tSAT\tFAILED\t-\tbad board\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["SATDOKU_RUSAGE"] = "1"
    runs = [(["gather", str(sols), "--kind", "sols", "--tsv", str(tmp_path / "g.tsv")], 0),
            (["check", "--set", "x", "--sols", f"r={sols}", "--out", str(tmp_path / "c")], 1)]
    for args, code in runs:
        with (tmp_path / "out.txt").open("w") as out:
            done = subprocess.run([sys.executable, "-m", "satdoku", "pipeline", *args],
                                  stdout=out, stderr=subprocess.PIPE, text=True, env=env,
                                  timeout=120)
        assert done.returncode == code, done.stderr
        assert "satdoku-rusage: pipeline" in done.stderr
        if code == 0:
            assert (tmp_path / "out.txt").read_text() == f"gather: 1 rows -> {tmp_path / 'g.tsv'}\n"
            assert (tmp_path / "g.tsv").read_text() == sols.read_text()
        else:
            assert "ERROR" in done.stderr and (tmp_path / "c").read_text().strip()


#: `satdoku dpll` run as a real process (main() without arguments), with an object whose
#: finalizer would write "teardown" during the interpreter's ending: a process that ends by
#: os._exit never writes it
_DPLL_FAST_EXIT = """
import sys
from satdoku.cli import main

class Teardown:
    def __del__(self):
        sys.stderr.write("teardown\\n")

witness = Teardown()
sys.argv = ["satdoku", "dpll", *sys.argv[1:]]
sys.exit(main())
"""


def test_a_one_shot_dpll_ends_fast_with_its_output_proof_and_exit_code(tmp_path: Path) -> None:
    """A real `satdoku dpll` process ends by os._exit (no interpreter teardown, cli._end_job,
    issue 29): its stdout to a file (block-buffered) is complete, the atexit handlers ran (the
    rusage line), the exit codes are 10 and 20, an UNSAT answer's proof is complete (it checks
    again) and its temporary directory is gone. The fast and the normal ending are compared
    on one file: the same lines, timings aside."""
    import os
    import subprocess
    import sys

    from satdoku.cnf.dimacs import read_dimacs
    from satdoku.cnf.lrat import check_lrat

    sat = tmp_path / "sat.cnf"
    sat.write_text("p cnf 3 3\n1 2 0\n-1 3 0\n-3 -2 0\n")
    unsat = tmp_path / "unsat.cnf"
    unsat.write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env.update(SATDOKU_RUSAGE="1", TMPDIR=str(scratch))
    proof = tmp_path / "p.lrat"
    summary = "c summary 2 files: 1 SATISFIABLE, 1 UNSATISFIABLE, 0 UNKNOWN, 0 unreadable\n"
    runs = [(["--mode", "cdcl", str(sat)], 10, "s SATISFIABLE\nv -1 2 -3 0\n"),
            (["--mode", "cdcl", str(unsat)], 20, "s UNSATISFIABLE\n"),  # temporary proof
            (["--mode", "cdcl", "--proof", str(proof), str(unsat)], 20,
             f"c proof written to {proof}\ns UNSATISFIABLE\n"),
            ([str(unsat)], 20, "c verified proof\ns UNSATISFIABLE\n"),  # DPLL
            (["--mode", "cdcl", str(sat), str(unsat)], 30, "s UNSATISFIABLE\n" + summary)]
    outputs = []
    for args, code, last in runs:
        out = tmp_path / "out.txt"
        with out.open("w") as fh:
            done = subprocess.run([sys.executable, "-c", _DPLL_FAST_EXIT, *args], stdout=fh,
                                  stderr=subprocess.PIPE, text=True, env=env, timeout=120)
        assert done.returncode == code, done.stderr
        assert "satdoku-rusage: dpll" in done.stderr  # the atexit handler ran
        assert "teardown" not in done.stderr  # no interpreter teardown
        text = out.read_text()
        outputs.append(text)
        assert text.endswith(last)
        assert text.count("c satdoku ") == (2 if code == 30 else 1)
        assert list(scratch.iterdir()) == []  # the proof's temporary directory is gone
    assert check_lrat(read_dimacs(unsat), str(proof)).ok
    # the first command in-process (main(argv), no fast ending) writes the same lines
    normal = tmp_path / "normal.txt"
    with normal.open("w") as fh:
        done = subprocess.run([sys.executable, "-c", _DPLL_FAST_EXIT.replace(
            "sys.exit(main())", "sys.exit(main(sys.argv[1:]))"), *runs[0][0]], stdout=fh,
            stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert done.returncode == 10 and "teardown" in done.stderr  # the witness works

    def untimed(text: str) -> list[str]:
        return [line for line in text.splitlines() if "seconds" not in line]

    assert untimed(normal.read_text()) == untimed(outputs[0])


def test_a_real_process_runs_its_command_with_the_collector_on(tmp_path: Path) -> None:
    """The command script turns the cyclic garbage collector off for its imports (cli.main,
    _started, issue 29); the command itself runs with it on again, the start-up's objects
    frozen. Seen by an atexit handler of a real `satdoku dpll` process, started as
    scripts/satdoku starts it."""
    import subprocess
    import sys

    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 2\n1 2 0\n-1 0\n")
    probe = ("import atexit, gc, sys\n"
             "gc.disable()\n"
             "atexit.register(lambda: print('GC', gc.isenabled(), gc.get_freeze_count() > 0,"
             " file=sys.stderr))\n"
             "from satdoku.cli import main\n"
             "sys.argv = ['satdoku', 'dpll', '--mode', 'cdcl', sys.argv[1]]\n"
             "sys.exit(main())\n")
    done = subprocess.run([sys.executable, "-c", probe, str(cnf)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 10, done.stderr
    assert "GC True True" in done.stderr


@pytest.mark.parametrize("columns", ["100", "57", "", "0", "wide"])
def test_help_width_is_the_one_shutil_gives(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    """The commands' help formatter reads its width without importing shutil (a one-shot
    ``satdoku dpll`` would pay for it): the same width shutil.get_terminal_size gives."""
    from satdoku.commands.help_format import terminal_columns

    monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


#: words a `satdoku dpll` command line is drawn from: options in full and abbreviated, their
#: values good and bad, files, stdin, help, the = form, a negative number, an empty word
_DPLL_WORDS = ("--mode", "cdcl", "dpll", "bogus", "--no-model", "--no-mod", "--seed", "3", "-1",
               "x", "--time-limit", "2.5", "nan", "--proof", "p.lrat", "--proof-format", "drat",
               "--restarts", "luby", "a.cnf", "b.cnf", "-", "--heuristic", "jw", "--help", "-h",
               "--mode=cdcl", "--pure-literals", "--verify-time-limit", "--no-simplify", "", "--")


def test_a_plain_dpll_command_line_reads_as_argparse_reads_it() -> None:
    """``commands.plain_args`` (the one-shot path without argparse) gives argparse's namespace
    for every line it takes, and takes none that argparse refuses: 4,000 seeded lines of
    ``_DPLL_WORDS``, plus the benchmark's own line, which it must take."""
    import contextlib
    import io
    import random

    from satdoku.cli import build_parser
    from satdoku.commands import dpll
    from satdoku.commands.plain_args import plain_namespace

    parser = build_parser("dpll")
    rng = random.Random(29)
    lines = [["dpll", "--mode", "cdcl", "--no-model", "f.cnf"], ["dpll", "f.cnf"]]
    lines += [["dpll", *rng.choices(_DPLL_WORDS, k=rng.randint(0, 7))] for _ in range(4000)]
    taken = 0
    for argv in lines:
        plain = plain_namespace("dpll", dpll, argv)
        quiet = io.StringIO()
        try:
            with contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet):
                expected = vars(parser.parse_args(argv))
        except SystemExit:
            assert plain is None, argv
            continue
        if plain is not None:  # compared as text: --time-limit nan is nan on both sides
            taken += 1
            assert {k: repr(v) for k, v in vars(plain).items()} == \
                {k: repr(v) for k, v in expected.items()}, argv
    assert plain_namespace("dpll", dpll, lines[0]) is not None
    assert taken > 200  # the check compared real cases


def test_plain_args_refuses_a_table_it_does_not_know() -> None:
    """A setting or action outside the reader's (``dest``, ``append``) leaves the line to
    argparse."""
    import types

    from satdoku.commands.plain_args import plain_namespace

    for settings in ({"dest": "x"}, {"action": "append"}):
        module = types.SimpleNamespace(ARGUMENTS=((("files",), {"nargs": "+"}),
                                                  (("--opt",), settings)))
        assert plain_namespace("c", module, ["c", "f"]) is None  # type: ignore[arg-type]
