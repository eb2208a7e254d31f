"""`satdoku generate`: seeded boards, one per line, or a whole labelled LTN data set.

    satdoku generate boards --size 9 --count 10 --kind unique --seed 1
    satdoku generate boards --family futoshiki --size 6 --count 5 --kind unique > f.dat
    satdoku generate boards --family sudoku3d --size 2 --kind impossible   # order 2: 4x4x4
    satdoku generate dataset --size 4 --per-kind 2000 --seed 0 --out results/LTN/datasets/4
    satdoku generate dataset --size 9 --original data/public/ltn_sudoku_torch/data/9x9 ...

Board kinds: grid (complete), open (random holes), unique (unique solution), invalid1/2/3
(changed cells), swap (same-row swap), impossible (quiet but unsolvable, proved by search).
``--family`` latin/futoshiki/sudoku3d (satdoku/generate_families.py) writes each family's own
format: Latin list-of-lists lines, a Futoshiki ``.dat`` file, 3-D JSON lines; ``--size`` is the
side (Latin/Futoshiki) or the 3-D order. Kinds there: grid, open, unique, impossible.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

BOARD_KINDS = ("grid", "open", "unique", "invalid1", "invalid2", "invalid3", "swap",
               "impossible")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=("boards", "dataset"))
    parser.add_argument("--family", choices=("sudoku", "latin", "futoshiki", "sudoku3d"),
                        default="sudoku", help="boards: puzzle family (default sudoku)")
    parser.add_argument("--relations", type=float, default=1.0,
                        help="boards, futoshiki: share of neighbour pairs given as < before "
                             "'unique' removes the unneeded ones (grid/open keep them)")
    parser.add_argument("--size", type=int, required=True, help="board side: 4, 9, 16, ...")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=10, help="boards: how many")
    parser.add_argument("--kind", choices=BOARD_KINDS, default="unique", help="boards: kind")
    parser.add_argument("--empty", type=int, default=None,
                        help="boards (open/impossible): empty cells (default: half)")
    parser.add_argument("--per-kind", type=int, default=1000, help="dataset: boards per kind")
    parser.add_argument("--fractions", type=float, nargs=3, default=(0.8, 0.1, 0.1),
                        metavar=("TRAIN", "VAL", "TEST"))
    parser.add_argument("--min-empty", type=int, default=None)
    parser.add_argument("--max-empty", type=int, default=None)
    parser.add_argument("--original", type=Path, default=None,
                        help="dataset: import the original CSV files of this directory")
    parser.add_argument("--limit-per-file", type=int, default=None)
    parser.add_argument("--out", type=Path, help="dataset: output directory")


def _boards(args: argparse.Namespace) -> int:
    from satdoku import generate as gen
    from satdoku.puzzle import box_order_for

    box = box_order_for(args.size)
    if not box or box < 2:
        print(f"error: size {args.size} is not a Sudoku side", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    empty = args.empty if args.empty is not None else args.size * args.size // 2
    made = 0
    while made < args.count:
        grid = gen.complete_grid(box, rng)
        k = args.kind
        if k == "grid":
            p = grid
        elif k == "open":
            p = gen.erase(grid, empty, rng)
        elif k == "unique":
            p = gen.unique_puzzle(grid, rng)
        elif k == "swap":
            p = gen.row_swap(grid, rng)
        elif k.startswith("invalid"):
            p = gen.corrupt(grid, int(k[-1]), rng)
        else:
            p = gen.impossible_board(grid, empty + 1, rng)
            if p is None:
                continue
        print(gen.board_string(p.givens))
        made += 1
    return 0


def run(args: argparse.Namespace) -> int:
    if args.what == "boards" and args.family != "sudoku":
        from satdoku.commands.generate_family import family_boards

        return family_boards(args)
    if args.what == "boards":
        return _boards(args)
    from satdoku.ltn.dataset import DatasetSpec, build

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
