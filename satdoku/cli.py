"""`satdoku <command>`: every pipeline stage runnable by hand.

Each command lives in its own module under ``satdoku/commands/`` exposing ``add_arguments(parser)``
and ``run(args) -> int``; this file only wires them up, importing a command's module (and so its
heavy dependencies) only when that command runs or asks for ``--help``. A plain command line of
a command whose module lists its arguments as a table (``ARGUMENTS``: ``satdoku dpll``) is
read without argparse (:mod:`satdoku.commands.plain_args`: a one-shot process does not pay for
argparse); every other line is argparse's.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

from satdoku import __version__
from satdoku.commands.plain_args import plain_namespace
from satdoku.solvers.interrupts import install as install_interrupts

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only: argparse loads when a parser is built
    import argparse
    from collections.abc import Callable
    from typing import Any

#: name -> (module under satdoku.commands, one-line help). Add a command by adding one line.
COMMANDS: dict[str, tuple[str, str]] = {
    "solve": ("solve", "solve every puzzle in a file; one line per instance in the input notation"),
    "encode": ("encode", "write one DIMACS CNF file per puzzle of a file"),
    "dpll": ("dpll", "run our own SAT solver on a DIMACS file (SAT-competition output)"),
    "pipeline": ("pipeline", "stage commands used by the Snakemake rules (normalize, ...)"),
    "extract": ("extract", "one instance's standalone DIMACS (or solver output) from a run"),
    "report": ("report", "tables, cactus/scatter/encoding plots and summary pages of results"),
    "classify": ("classify", "LTN per board: Q1 valid?, Q2 solvable?, Q3 moves, then a solve"),
    "train": ("train", "train the LTN model of one board size (satdoku train --size 4)"),
    "generate": ("generate", "seeded boards (grids, puzzles, invalid, impossible), LTN data sets"),
    "count": ("count", "count each puzzle's solutions up to K (CSP search or SAT blocking)"),
    "analyze": ("analyze", "what each encoding lets propagation decide alone: UP, FL, singles"),
    "largest-n": ("largest_n", "CSP experiment: largest n each puzzle solver solves in a limit"),
    "compare": ("compare", "run B against run A: status changes, SAT/UNSAT flips, time ratios"),
    "runs": ("runs", "list the stored runs (results/runs/*.parquet): time, machine, versions"),
    "fuzz": ("fuzz", "fuzz a solver (any binary too) through the solve path; failures shrunk"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser: every command listed (``satdoku --help``), or with ``only`` that
    one command's parser alone, its module the only command module imported (a one-shot
    ``satdoku dpll`` pays for one parser, not fifteen)."""
    import argparse

    from satdoku.commands.help_format import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="satdoku",
        description="Sudoku-family puzzles to checked evidence: CNF, solvers, solutions, reports.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"satdoku {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if only is not None and only != name:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text,
                           formatter_class=HelpFormatter)
        if only is not None:
            mod = importlib.import_module(f"satdoku.commands.{module}")
            mod.add_arguments(p)
            p.set_defaults(_module=mod)
    return parser


#: Bytes of log space reserved when stderr is a file, so that the error that ends a command
#: still fits in its log when the disk is full.
LOG_RESERVE = 8 * 1024


def reserve_log_space(stream=None) -> bool:  # type: ignore[no-untyped-def]
    """Reserve ``LOG_RESERVE`` bytes for a log file on stderr without growing it (Linux
    ``fallocate`` with FALLOC_FL_KEEP_SIZE). True if reserved; a no-op elsewhere (ctypes is
    imported only for a file: it costs a one-shot command ~10 ms)."""
    import stat

    stream = stream or sys.stderr
    try:
        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        keep_size = 0x01
        end = os.lseek(fd, 0, os.SEEK_END)
        return libc.fallocate(fd, keep_size, ctypes.c_long(end),
                              ctypes.c_long(LOG_RESERVE)) == 0
    except (OSError, AttributeError, ValueError):
        return False


def _unreadable_errors() -> tuple[type[BaseException], ...]:
    """InputError and FormatError, from their modules if already imported: an exception whose
    class was never imported cannot have been raised, and importing the format registry just to
    name its error would cost every command (a one-shot ``satdoku dpll`` too) ~50 ms."""
    found = []
    for module, name in (("satdoku.sources", "InputError"),
                         ("satdoku.formats.format_registry", "FormatError")):  # fmt: skip
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)


#: When set (to anything), every command ends with one ``satdoku-rusage`` line on stderr: the
#: process's CPU seconds (interpreter start and imports included) and peak memory, which
#: benchmarks/bench_pipeline.py sums per rule from the job logs.
RUSAGE_ENV = "SATDOKU_RUSAGE"
#: top-level modules of the optional extras (pyproject) -> the extra that installs them
OPTIONAL_MODULES = {"torch": "ltn", "ltn": "ltn", "snakemake": "workflow",
                    "playwright": "browser"}


def _report_rusage(argv: list[str]) -> None:
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    words = [a for a in argv if not a.startswith("-")][:2]
    print(f"satdoku-rusage: {' '.join(words)} cpu {ru.ru_utime + ru.ru_stime:.3f} s "
          f"(user {ru.ru_utime:.3f} sys {ru.ru_stime:.3f}) maxrss {ru.ru_maxrss // 1024} MB",
          file=sys.stderr, flush=True)


#: the commands whose real process ends without the interpreter's teardown (:func:`_end_job`):
#: the workflow's jobs, and the one-shot ``dpll`` (a process per formula, issue 29)
JOB_COMMANDS = ("pipeline", "report", "dpll")


def main(argv: list[str] | None = None) -> int:
    if argv is not None:  # called in-process (tests, other Python code): returns its code
        return _main(argv)
    gc.disable()  # a real process's start-up (the command script disabled it already)
    install_interrupts()  # a real `satdoku` process: Ctrl-C stops compiled code at once
    code = _main(sys.argv[1:], started=_started)
    if _command(sys.argv[1:]) in JOB_COMMANDS:
        _end_job(code)
    return code


def _plain_args(command: str | None, argv: list[str]) -> Any:
    """The namespace of a plain command line of a command whose module lists its arguments
    (``ARGUMENTS``), read without argparse (:mod:`satdoku.commands.plain_args`); else None."""
    if command not in COMMANDS:
        return None
    module = importlib.import_module(f"satdoku.commands.{COMMANDS[command][0]}")
    return plain_namespace(command, module, argv)


def _started() -> None:
    """End a real process's start-up: the objects the imports made (modules, classes,
    functions, records: none of them garbage) are frozen out of the cyclic collector's
    reach (``gc.freeze``) and the collector is on again for the command. The command script
    (scripts/satdoku) and ``python -m satdoku`` turn it off before their first import: the
    collections it ran during the imports walked those objects again and again, about 3
    million instructions of a one-shot ``satdoku dpll`` (issue 29)."""
    gc.freeze()
    gc.enable()


def _command(argv: list[str]) -> str | None:
    """The command word of ``argv`` (its first word that is not an option), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def _end_job(code: int) -> None:
    """End the process at once: every atexit handler run (the rusage line, the logging and
    temporary-file clean-ups), stdout and stderr flushed, then ``os._exit`` with ``code``. The
    interpreter's teardown (freeing every module, a last garbage collection) writes nothing
    and costs a workflow job 0.05-0.3 s of CPU (numpy, pandas, pyarrow, matplotlib) and a
    one-shot ``satdoku dpll`` about 13 million instructions, an eighth of its start-up (issue
    29). Every output file is closed by then: each is written under ``with`` (the kernels'
    proof writers close theirs), and a proof's temporary directory is removed when its solve
    returns.

    The normal ending is kept where it would do more: a non-daemon thread still running (it
    waits for it; :mod:`threading` is not imported to ask when no module loaded it: then no
    such thread exists), and a flush of stdout or stderr that fails for another reason than
    a reader that closed its pipe (disk full: the interpreter's ending reports it, with exit
    status 120). A closed pipe loses the rest either way, as :func:`_main` treats it. An
    atexit handler that raises is reported by ``_run_exitfuncs`` as at a normal exit."""
    import atexit

    threading = sys.modules.get("threading")
    if threading is not None:
        main_thread = threading.main_thread()
        if any(t is not main_thread and not t.daemon and t.is_alive()
               for t in threading.enumerate()):
            return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # a reader that closed its pipe: lost either way
            pass
        except (OSError, ValueError):  # the interpreter's ending reports it
            return
    os._exit(code)


def _main(argv: list[str], started: Callable[[], None] | None = None) -> int:
    """Run the command line ``argv``; ``started`` is called once the command's module and
    its arguments are read (a real process: :func:`_started`)."""
    command = _command(argv)
    args = _plain_args(command, argv)
    if args is None:  # argparse: every command line a plain reading does not take
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if not getattr(args, "_module", None):
            parser.print_help()
            return 2
    if started is not None:
        started()
    reserve_log_space()
    if os.environ.get(RUSAGE_ENV):
        import atexit

        atexit.register(_report_rusage, argv)
    try:
        return int(args._module.run(args) or 0)
    except ValueError as exc:  # a file or format that cannot be read: one line
        if not isinstance(exc, _unreadable_errors()):
            raise
        print(f"satdoku {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and closed: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # disk full, permissions, ...: one line that names the file
        print(f"satdoku {command}: error: {exc}", file=sys.stderr, flush=True)
        return 1
    except MemoryError:
        print(f"satdoku {command}: error: out of memory", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:  # Ctrl-C / SIGINT: one line, the shell's exit code 130
        return _interrupted(command)
    except ModuleNotFoundError as exc:  # an optional extra not installed (pip install .)
        extra = OPTIONAL_MODULES.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"satdoku {command}: needs {exc.name}, which is not installed: pip install "
              f"'satdoku[{extra}]'", file=sys.stderr, flush=True)
        return 2


def _interrupted(command: str | None) -> int:
    """End on SIGINT: what is already written stays complete (commands write whole lines),
    a second Ctrl-C no longer interrupts the ending, one line on stderr, exit status 130."""
    import contextlib
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    print(f"satdoku {command or ''}: interrupted (SIGINT); every line above is complete",
          file=sys.stderr, flush=True)
    return 130


if __name__ == "__main__":
    sys.exit(main())
