"""`satdoku train --size 4 --epochs 50`: train the Q1 LTN model of one board size.

Reads ``--data DIR`` (a data set from ``satdoku generate dataset``; default
``results/LTN/datasets/{size}``) and writes ``--out`` (default
``results/LTN/models/ltn_{size}.pt``) plus the per-epoch TSV beside it (``ltn_{size}.tsv``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from satdoku.commands.common import int_in, number_in
from satdoku.ltn.train import TrainSettings, train
from satdoku.stagefiles.paths import LTN_DATASETS, LTN_MODEL, stage_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, required=True, choices=(4, 9, 16),
                        help="board side: 4, 9, 16")
    parser.add_argument("--epochs", type=int_in(1, 100_000), default=20)
    parser.add_argument("--lr", type=number_in(0, 10, above=True), default=3e-3)
    parser.add_argument("--batch", type=int_in(1, 1_000_000), default=64)
    parser.add_argument("--hidden", type=int_in(1, 100_000), default=64)
    parser.add_argument("--seed", type=int_in(0), default=0)
    parser.add_argument("--threads", type=int_in(1, 1024), default=1, help="torch threads")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--tsv", type=Path, default=None, help="per-epoch TSV path")


def run(args: argparse.Namespace) -> int:
    data = args.data or stage_path(LTN_DATASETS, size=args.size)
    out = args.out or stage_path(LTN_MODEL, size=args.size)
    tsv = args.tsv or out.with_suffix(".tsv")
    if not (data / "train.tsv").exists():
        print(f"error: no data set at {data}; make one with `satdoku generate dataset "
              f"--size {args.size} --out {data}`", file=sys.stderr)
        return 1
    settings = TrainSettings(epochs=args.epochs, lr=args.lr, batch=args.batch,
                             hidden=args.hidden, seed=args.seed, threads=args.threads)
    try:
        meta = train(data, args.size, out, tsv, settings,
                     log=lambda s: print(s, file=sys.stderr))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(json.dumps({"model": str(out), "tsv": str(tsv), **meta}))
    return 0
