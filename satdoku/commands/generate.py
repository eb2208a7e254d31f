"""`satdoku generate`: seeded boards of every family, one per line, or a labelled LTN data set.

    satdoku generate boards --size 9 --count 10 --kind unique --seed 1
    satdoku generate boards --family futoshiki --size 6 --count 5 --kind unique > f.dat
    satdoku generate boards --family sudoku3d --size 2 --kind impossible   # order 2: 4x4x4
    satdoku generate dataset --size 4 --per-kind 2000 --seed 0 --out results/LTN/datasets/4
    satdoku generate dataset --size 9 --original data/public/ltn_sudoku_torch/data/9x9 ...

Board kinds: grid (complete), open (random holes), unique (unique solution), invalid1/2/3
(changed cells), swap (same-row swap), impossible (quiet but unsolvable, proved by a complete
count); Latin, Futoshiki and 3-D make grid, open, unique and impossible. ``--size`` is the side
(Sudoku 4, 9, 16, 25, 36; Latin, Futoshiki) or the 3-D order. Every board is checked against
its promise by the generator's counter (``--counter``: ``csp`` search, ``sat`` MiniSat, or
``auto``: search up to 100 cells, MiniSat above).

Output, one board per record in a format ``satdoku`` reads back: Sudoku as one line of symbols
(``0`` empty) up to 25x25 and as a grid of integers (blank line between boards) for 36x36;
Latin as list-of-lists lines, Futoshiki as one ``.dat`` file, 3-D as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from satdoku import generate as gen
from satdoku.commands.common import int_in, number_in, positive_seconds
from satdoku.commands.help_format import RawDescriptionHelpFormatter
from satdoku.formats.futoshiki import write_futoshiki_dat
from satdoku.formats.jsonpuzzle import puzzle_to_json
from satdoku.formats.latin import rows_text
from satdoku.formats.symbols import ALPHABET, board_chars
from satdoku.ltn.dataset import DatasetSpec, build
from satdoku.puzzle import box_order_for
from satdoku.solvers.base import Deadline
from satdoku.solvers.csp import SearchLimit

BOARD_KINDS = ("grid", "open", "unique", "invalid1", "invalid2", "invalid3", "swap",
               "impossible")
FAMILY_KINDS = ("grid", "open", "unique", "impossible")  # every family; the rest: Sudoku only
#: Default seconds per board for removing givens (``unique``) and proving ``impossible``.
BOARD_SECONDS = 60.0

EPILOG = f"""\
time bound: every board is done within about --time-limit seconds (default {BOARD_SECONDS:g}):
'unique' removal stops there, and each uniqueness check also stops at --check-nodes search
nodes (csp counter); a check that hits a limit keeps its cell, so a board always has exactly
one solution, it only keeps more givens. 'impossible' stops trying at the limit or after
--tries attempts, and the command then fails with a message. Complete grids of 25x25 and 36x36
Sudoku come from the pattern grid under seeded symmetries (instant). Measured on 2 cores: 9x9
0.3 s, 16x16 ~1 s per 'unique' board; 25x25 and 36x36 reach the limit (about 55% and 30% of
the cells emptied at 60 s). Without hitting a limit the output depends on --seed alone; a board
cut by the clock can differ between machines.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = RawDescriptionHelpFormatter
    parser.add_argument("what", choices=("boards", "dataset"))
    parser.add_argument("--family", choices=("sudoku", "latin", "futoshiki", "sudoku3d"),
                        default="sudoku", help="boards: puzzle family (default sudoku)")
    parser.add_argument("--relations", type=number_in(0, 1), default=1.0,
                        help="boards, futoshiki: share of neighbour pairs given as < before "
                             "'unique' removes the unneeded ones (grid/open keep them)")
    parser.add_argument("--size", type=int_in(1, 1000), required=True,
                        help="board side: 4, 9, 16, ... (3-D: the order)")
    parser.add_argument("--seed", type=int_in(0), default=0)
    parser.add_argument("--count", type=int_in(0), default=10, help="boards: how many")
    parser.add_argument("--kind", choices=BOARD_KINDS, default="unique", help="boards: kind")
    parser.add_argument("--empty", type=int_in(0), default=None,
                        help="boards (open/impossible): empty cells (default: half)")
    parser.add_argument("--counter", choices=("auto", "csp", "sat"), default="auto",
                        help="boards: how promises are counted: CSP search, MiniSat, or auto "
                             "(search up to 100 cells, MiniSat above; default)")
    parser.add_argument("--time-limit", type=positive_seconds, default=BOARD_SECONDS,
                        help=f"boards: seconds per board for 'unique' removal and for "
                             f"'impossible' attempts (default {BOARD_SECONDS:g})")
    parser.add_argument("--check-nodes", type=int_in(1), default=200_000,
                        help="boards, csp counter: search nodes per uniqueness/impossibility "
                             "check (default 200000)")
    parser.add_argument("--tries", type=int_in(1), default=50,
                        help="boards, impossible: attempts per board (default 50)")
    parser.add_argument("--per-kind", type=int_in(1), default=1000, help="dataset: boards per kind")
    parser.add_argument("--fractions", type=number_in(0, 1), nargs=3, default=(0.8, 0.1, 0.1),
                        metavar=("TRAIN", "VAL", "TEST"))
    parser.add_argument("--min-empty", type=int_in(0), default=None)
    parser.add_argument("--max-empty", type=int_in(0), default=None)
    parser.add_argument("--original", type=Path, default=None,
                        help="dataset: import the original CSV files of this directory")
    parser.add_argument("--limit-per-file", type=int_in(1), default=None)
    parser.add_argument("--out", type=Path, help="dataset: output directory")


def _template(family: str, size: int):
    """The empty puzzle of ``family`` for ``--size``, or the reason the size is refused."""
    if family == "sudoku":
        box = box_order_for(size)
        if not box or not 2 <= box <= 6:
            return None, f"size {size} is not a Sudoku side from 4 to 36 (4, 9, 16, 25, 36)"
        return gen.empty_puzzle(family, box), ""
    if family == "sudoku3d" and not 1 <= size <= 4:
        return None, f"3-D order {size} is outside 1..4 (order 4 is a 16x16x16 cube)"
    if family != "sudoku3d" and not 1 <= size <= 64:
        return None, f"{family} side {size} is outside 1..64"
    return gen.empty_puzzle(family, size), ""


def _write(made: list, family: str) -> None:
    """The boards in a format of their family that ``satdoku`` reads back."""
    if family == "futoshiki":
        sys.stdout.write(write_futoshiki_dat(made))
        return
    for i, p in enumerate(made):
        if family == "latin":
            print(rows_text(p.givens, p.size))
        elif family == "sudoku3d":
            print(json.dumps(puzzle_to_json(p), separators=(",", ":")))
        elif p.domain <= len(ALPHABET):
            print(board_chars(p.givens, empty="0"))
        else:  # 36x36: no one-character symbols; the integer grid format
            n = p.size
            print(("\n" if i else "") + "\n".join(" ".join(map(str, p.givens[r * n:(r + 1) * n]))
                                                  for r in range(n)))


def boards(args: argparse.Namespace) -> int:
    """``generate boards``: ``--count`` boards of one kind, each checked against its promise."""
    kinds = BOARD_KINDS if args.family == "sudoku" else FAMILY_KINDS
    if args.kind not in kinds:
        print(f"error: --family {args.family} makes kinds {', '.join(kinds)}", file=sys.stderr)
        return 1
    template, why = _template(args.family, args.size)
    if template is None:
        print(f"error: {why}", file=sys.stderr)
        return 1
    if not (args.time_limit > 0 and args.check_nodes > 0 and args.count >= 0):
        print("error: --time-limit and --check-nodes must be positive, --count >= 0",
              file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    empty = args.empty if args.empty is not None else template.ncells // 2
    if not 0 <= empty <= template.ncells:
        print(f"error: --empty must be in 0..{template.ncells}", file=sys.stderr)
        return 1
    counter = gen.SolutionCounter(args.counter, args.check_nodes, args.time_limit)
    made: list = []
    attempts = 0
    try:
        while len(made) < args.count:
            attempts += 1
            if attempts > 20 * args.count + 20:
                print(f"error: gave up after {attempts - 1} attempts", file=sys.stderr)
                return 1
            grid = gen.complete_grid(template, rng, Deadline(args.time_limit))
            if args.family == "futoshiki":
                grid = gen.futoshiki_from_grid(grid, rng, givens=1.0, relations=args.relations)
            k = args.kind
            if k == "grid":
                p = grid
            elif k == "open":
                p = gen.erase(grid, empty, rng)
            elif k == "unique":
                p = gen.unique_puzzle(grid, rng, counter=counter,
                                      deadline=Deadline(args.time_limit))
            elif k == "swap":
                p = gen.row_swap(grid, rng)
            elif k.startswith("invalid"):
                p = gen.corrupt(grid, int(k[-1]), rng)
            else:
                p = gen.impossible_board(grid, min(empty + 1, grid.ncells), rng, args.tries,
                                         counter, Deadline(args.time_limit))
                if p is None:
                    continue
            made.append(p)
    finally:
        counter.close()
    _write(made, args.family)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.what == "boards":
        try:
            return boards(args)
        except SearchLimit:
            print(f"error: no complete {args.family} grid within --time-limit "
                  f"{args.time_limit:g} s", file=sys.stderr)
            return 1
    if args.out is None:
        print("error: generate dataset needs --out DIR", file=sys.stderr)
        return 1
    spec = DatasetSpec(size=args.size, per_kind=args.per_kind, fractions=tuple(args.fractions),
                       seed=args.seed, min_empty=args.min_empty, max_empty=args.max_empty)
    try:
        manifest = build(args.out, spec, args.original, args.limit_per_file)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(json.dumps({"out": str(args.out), "total": manifest["total"],
                      "seconds": manifest["seconds"]}))
    return 0
