"""`satdoku classify --path FILE`: Q1 valid?, Q2 solvable?, Q3 moves and a solve, per board.

Reads the original LTN CSV (one board per line, digits, ``0`` empty) and every Sudoku format of
``satdoku.formats``; board sizes are detected per board. Q1 needs the trained model of that size
(``results/LTN/models/ltn_{size}.pt`` or ``--models DIR``). ``--evaluate DIR`` instead scores a
labelled data set directory and writes the evaluation report (used by the Snakemake rule).

Records and exit status: see :data:`EPILOG` (shown by ``satdoku classify --help``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from satdoku.commands.common import int_in
from satdoku.commands.help_format import RawDescriptionHelpFormatter
from satdoku.formats import read_records
from satdoku.heuristics import MoveMemory
from satdoku.ltn.classify import (
    ClassifySettings,
    MissingModel,
    classify,
    closed_sizes,
    format_text,
    try_load_models,
)
from satdoku.ltn.evaluate import Evaluation, evaluate
from satdoku.stagefiles.paths import LTN_MODEL, stage_path

EPILOG = """\
Every board gets its own record: a line that is not a board, and a closed board whose size has
no usable Q1 model (missing, empty, truncated, corrupt or for another size), are error records
naming the line or the model file; the other boards are classified all the same.

exit status: 0 every board classified (unreadable lines are reported in their records);
1 the input file cannot be read, or bad arguments; 2 some closed boards had no usable model
(their records, and one line per size on stderr, name the file and how to train one)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = RawDescriptionHelpFormatter
    parser.add_argument("--path", type=Path, help="file of boards (original CSV or any Sudoku "
                        "format we read)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or json: one JSON object per board per line")
    parser.add_argument("--models", type=Path, default=stage_path(LTN_MODEL, size=0).parent,
                        help="directory with ltn_{size}.pt (default results/LTN/models)")
    parser.add_argument("--memory", type=Path, default=None,
                        help="save the move memory (history, counts, effectiveness) as JSON")
    parser.add_argument("--input-format", default="auto",
                        help="force a reader of satdoku.formats (default: detect)")
    d = ClassifySettings()
    parser.add_argument("--ltn-steps", type=int_in(0, 10_000_000), default=d.ltn_steps,
                        help="LTN solving: Adam steps of a board's first round")
    parser.add_argument("--ltn-warm-steps", type=int_in(0, 10_000_000), default=d.ltn_warm_steps,
                        help="LTN solving: steps of each later (warm-started) round")
    parser.add_argument("--ltn-rounds", type=int_in(0, 10_000), default=d.ltn_rounds,
                        help="LTN solving: rounds (decimation steps) per board at most")
    parser.add_argument("--ltn-backtracks", type=int_in(0, 10_000), default=d.ltn_backtracks,
                        help="LTN solving: decisions undone per board at most")
    parser.add_argument("--no-singles", action="store_true",
                        help="LTN solving alone: no naked/hidden singles between rounds")
    parser.add_argument("--seed", type=int_in(0), default=0)
    parser.add_argument("--evaluate", type=Path, default=None, metavar="DATASET_DIR",
                        help="score the test split of a data set directory instead")
    parser.add_argument("--size", type=int, choices=(4, 9, 16),
                        help="with --evaluate: board side (4, 9)")
    parser.add_argument("--epochs-tsv", type=Path, help="with --evaluate: per-epoch TSV")
    parser.add_argument("--report", type=Path, help="with --evaluate: report path prefix, "
                        "e.g. results/Reports/ltn_4 (writes .md, .json, PNGs)")
    parser.add_argument("--q2-limit", type=int_in(0), default=200,
                        help="with --evaluate: open test boards per kind used for Q2/Q3")
    parser.add_argument("--q1-extra", type=int_in(0), default=0,
                        help="with --evaluate: fresh closed boards per Q1 kind (9x9 and up)")
    parser.add_argument("--q2-extra", type=int_in(0), default=0,
                        help="with --evaluate: fresh open solvable boards (9x9 and up) with "
                        "--q2-extra-empty blanks, from grids outside the data set")
    parser.add_argument("--q2-extra-empty", type=int_in(1, 10_000), nargs=2, default=(50, 59),
                        metavar=("LO", "HI"), help="blanks of the --q2-extra boards")
    parser.add_argument("--clue17", type=Path, default=None,
                        help="with --evaluate --size 9: a 17-clue puzzle file to score too")
    parser.add_argument("--clue17-limit", type=int_in(0), default=0,
                        help="with --clue17: its first N puzzles")


def _read(path: Path, fmt: str) -> list:
    out = []
    for rec in read_records(path, fmt=fmt):
        if getattr(rec, "cnf", None) is not None:  # each was "ERROR ...: None"
            raise ValueError(f"{path} holds DIMACS CNF, not Sudoku boards (solve it with "
                             "`satdoku solve`)")
        err = None if rec.puzzle is not None else f"{path}:{rec.line}: {rec.error}"
        out.append((rec.index, rec.puzzle, err))
    return out


def run(args: argparse.Namespace) -> int:
    settings = ClassifySettings(ltn_steps=args.ltn_steps, ltn_warm_steps=args.ltn_warm_steps,
                                ltn_rounds=args.ltn_rounds, ltn_backtracks=args.ltn_backtracks,
                                ltn_singles=not args.no_singles, seed=args.seed)
    if args.evaluate is not None:
        if not (args.size and args.report):
            print("classify --evaluate needs --size and --report", file=sys.stderr)
            return 1
        try:
            summary = evaluate(Evaluation(
                args.evaluate, args.size, args.models, args.report, args.epochs_tsv, settings,
                args.q2_limit, args.q1_extra, args.q2_extra, tuple(args.q2_extra_empty),
                args.clue17, args.clue17_limit))
        except MissingModel as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        except ValueError as e:  # a bad data set row or 17-clue line, named
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(json.dumps(summary["headline"], indent=1))
        return 0
    if args.path is None:
        print("classify needs --path FILE (or --evaluate DIR)", file=sys.stderr)
        return 1
    try:
        boards = _read(args.path, args.input_format)
    except (OSError, ValueError) as e:
        print(f"error: cannot read {args.path}: {e}", file=sys.stderr)
        return 1
    if not boards:
        print(f"satdoku classify: {args.path}: no boards (empty, or only blank and # comment "
              "lines)", file=sys.stderr)
        return 0
    memory = MoveMemory()
    models, problems = try_load_models(args.models, closed_sizes(boards))
    reports = classify(boards, args.models, settings, memory, models, problems)
    for r in reports:
        if args.format == "json":
            print(json.dumps(r.to_json()))
        else:
            print(format_text(r))
    summary = memory.summary()
    if args.format == "text" and summary["boards"]:
        print(f"memory: {summary['moves_applied']} moves on {summary['boards']} boards; "
              + ", ".join(f"{k} {v['applied']}/{v['found']} applied "
                          f"(effectiveness {v['effectiveness']:.2f})"
                          for k, v in summary["heuristics"].items() if v["found"]))
    if args.memory:
        memory.save(args.memory)
    for size in sorted(problems):
        print(f"error: {problems[size]}", file=sys.stderr)
    return 2 if problems else 0
