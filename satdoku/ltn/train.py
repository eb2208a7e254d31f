"""Seeded training of the Q1 predicate ``Ok(board, unit)`` on a data set directory.

Each step takes a batch of valid and a batch of invalid closed training boards and maximises
SatAgg of the two Q1 axioms (see :mod:`satdoku.ltn.kb`) with Adam. After every epoch the
validation accuracy of the board-level decision ∀u Ok(b, u) ≥ 0.5 is measured and one row is
appended to the per-epoch TSV; the weights of the best validation epoch are saved.
"""

from __future__ import annotations

import csv
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from satdoku.ltn import model as model_mod
from satdoku.ltn.dataset import Example, read_split
from satdoku.ltn.kb import Q1Axioms, q1_predict

EPOCH_COLUMNS = ("epoch", "loss", "train_sat", "val_accuracy", "val_single_cell_accuracy",
                 "seconds")


@dataclass
class TrainSettings:
    epochs: int = 20
    lr: float = 3e-3
    batch: int = 64
    hidden: int = 64
    seed: int = 0
    p_exists: int = 6
    steps_per_epoch: int | None = None  # default: enough to see every invalid board once
    threads: int = 1


def _closed(examples: Sequence[Example]) -> tuple[list, list, list]:
    valid = [list(e.board) for e in examples if e.kind == "closed_valid"]
    invalid = [list(e.board) for e in examples if e.kind == "closed_invalid"]
    return valid, invalid, [e for e in examples if e.is_closed]


def accuracy(ok, examples: Sequence[Example], size: int) -> tuple[float, float]:
    """Q1 accuracy on closed boards overall and on single-cell corruptions (``changed1``)."""
    closed = [e for e in examples if e.is_closed]
    if not closed:
        return float("nan"), float("nan")
    pred, _, _ = q1_predict(ok, [e.board for e in closed], size)
    right = [p == (e.kind == "closed_valid") for p, e in zip(pred, closed, strict=True)]
    single = [r for r, e in zip(right, closed, strict=True) if e.subkind == "changed1"]
    return sum(right) / len(right), (sum(single) / len(single) if single else float("nan"))


def train(dataset: Path, size: int, out_model: Path, out_tsv: Path,
          settings: TrainSettings, log=print) -> dict:
    """Train, write the model and the per-epoch TSV; returns a summary dict."""
    import torch

    torch.manual_seed(settings.seed)
    torch.set_num_threads(max(1, settings.threads))
    rng = random.Random(settings.seed)
    train_set = read_split(dataset, "train")
    val_set = read_split(dataset, "val")
    valid, invalid, _ = _closed(train_set)
    if not valid or not invalid:
        raise ValueError(f"{dataset}/train.tsv needs closed_valid and closed_invalid boards")
    if any(len(b) != size * size for b in valid + invalid):
        raise ValueError(f"{dataset}: boards are not {size}x{size}")
    valid_t = torch.tensor(valid, dtype=torch.long)
    invalid_t = torch.tensor(invalid, dtype=torch.long)
    ok = model_mod.make_ok_predicate(size, settings.hidden)
    axioms = Q1Axioms(p_exists=settings.p_exists)
    opt = torch.optim.Adam(ok.parameters(), lr=settings.lr)
    steps = settings.steps_per_epoch or max(1, -(-len(invalid) // settings.batch))
    out_tsv.parent.mkdir(parents=True, exist_ok=True)
    best: tuple = ((-1.0, -1.0), 0, None)
    rows = []
    t_start = time.perf_counter()
    with open(out_tsv, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(EPOCH_COLUMNS)
        for epoch in range(1, settings.epochs + 1):
            t0 = time.perf_counter()
            ok.train()
            losses, sats = [], []
            inv_order = list(range(len(invalid)))
            rng.shuffle(inv_order)
            for s in range(steps):
                inv_idx = [inv_order[(s * settings.batch + j) % len(invalid)]
                           for j in range(settings.batch)]
                val_idx = [rng.randrange(len(valid)) for _ in range(settings.batch)]
                opt.zero_grad()
                sat = axioms.satisfaction(ok, valid_t[val_idx], invalid_t[inv_idx], size)
                loss = 1.0 - sat
                loss.backward()
                opt.step()
                losses.append(loss.item())
                sats.append(sat.item())
            ok.eval()
            val_acc, val_single = accuracy(ok, val_set, size)
            row = (epoch, sum(losses) / len(losses), sum(sats) / len(sats), val_acc, val_single,
                   time.perf_counter() - t0)
            rows.append(row)
            w.writerow([row[0]] + [f"{x:.6f}" for x in row[1:]])
            fh.flush()
            log(f"epoch {epoch}/{settings.epochs} loss {row[1]:.4f} sat {row[2]:.4f} "
                f"val_acc {val_acc:.4f} single-cell {val_single:.4f}")
            score = (val_acc, row[2])  # accuracy first, then satisfaction (margin)
            if best[2] is None or score >= best[0]:
                best = (score, epoch, {k: v.clone() for k, v in ok.model.state_dict().items()})
    ok.model.load_state_dict(best[2])
    meta = {"size": size, "hidden": settings.hidden, "best_epoch": best[1],
            "val_accuracy": best[0][0], "train_sat": best[0][1], "settings": asdict(settings),
            "train_boards": {"valid": len(valid), "invalid": len(invalid)},
            "seconds": round(time.perf_counter() - t_start, 3)}
    model_mod.save(out_model, ok, meta)
    return meta
