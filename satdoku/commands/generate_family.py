"""The ``--family`` branch of `satdoku generate boards` (Latin, Futoshiki, 3-D Sudoku).

Kept in its own module so the shared generate command only dispatches here. Each board is
verified against its promise before it is written: ``grid`` a solution, ``open`` solvable,
``unique`` exactly one solution, ``impossible`` no immediate problem and no solution.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

FAMILY_KINDS = ("grid", "open", "unique", "impossible")


def family_boards(args: argparse.Namespace) -> int:
    from satdoku import generate_families as gf
    from satdoku.formats.futoshiki import write_futoshiki_dat
    from satdoku.formats.jsonpuzzle import puzzle_to_json
    from satdoku.formats.latin import rows_text
    from satdoku.generate import erase
    from satdoku.puzzle import Puzzle

    if args.kind not in FAMILY_KINDS:
        print(f"error: --family {args.family} makes kinds {', '.join(FAMILY_KINDS)}",
              file=sys.stderr)
        return 1
    if args.size < 1 or (args.family == "sudoku3d" and args.size > 4):
        print(f"error: bad --size {args.size} for {args.family}", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    template = gf.empty_puzzle(args.family, args.size)
    ncells = template.ncells
    empty = args.empty if args.empty is not None else ncells // 2
    made: list[Puzzle] = []
    attempts = 0
    while len(made) < args.count:
        attempts += 1
        if attempts > 20 * args.count + 20:
            print(f"error: gave up after {attempts - 1} attempts", file=sys.stderr)
            return 1
        grid = gf.complete_grid(template, rng)
        if args.family == "futoshiki":
            grid = gf.futoshiki_from_grid(grid, rng, givens=1.0, relations=args.relations)
        if args.kind == "grid":
            p = grid
        elif args.kind == "open":
            p = erase(grid, empty, rng)
        elif args.kind == "unique":
            p = gf.unique_puzzle(grid, rng)
            if gf.count_solutions(p, 2) != 1:
                continue
        else:
            p = gf.impossible_board(grid, empty, rng)
            if p is None:
                continue
        made.append(p)
    if args.family == "futoshiki":
        sys.stdout.write(write_futoshiki_dat(made))
    for p in made if args.family != "futoshiki" else []:
        if args.family == "latin":
            print(rows_text(p.givens, p.size))
        else:
            print(json.dumps(puzzle_to_json(p), separators=(",", ":")))
    return 0
