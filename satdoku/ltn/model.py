"""The learnable predicate of Q1: ``Ok(board, unit)`` — is this row/column/box well filled?

A permutation-invariant network reads the one-hot cells of one unit of one board: summing the
one-hot cells gives how often each value occurs; each value's count (itself one-hot, 0..N) goes
through a shared embedding network, the embeddings are summed over values and a small MLP gives
the truth value (DeepSets twice: invariant to the order of the cells and to renaming the values).
Which count patterns are bad is not built in: it is learned from board-level labels through the
axioms. Board-level
validity is the LTN formula ∀u Ok(b, u), so the network never sees a whole board at once; the
feasibility probe showed that a flat MLP over the whole 9x9 board stays at chance.

Boards enter as integer tensors ``(batch, cells)`` (0 = empty) and units as integer indices into
the layout's group table, so LTN broadcasting (board x unit) stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from satdoku.puzzle import sudoku_layout


def unit_table(size: int):  # -> torch.Tensor (units, size)
    """The Sudoku layout's groups (rows, columns, boxes) as a ``(3*size, size)`` long tensor."""
    import torch

    box = round(size**0.5)
    return torch.tensor(sudoku_layout(box).groups, dtype=torch.long)


def _unit_net_class():
    import torch
    from torch import nn

    class UnitNet(nn.Module):
        """DeepSets over the one-hot cells of one unit → truth value in (0, 1)."""

        def __init__(self, size: int, hidden: int = 64) -> None:
            super().__init__()
            self.size = size
            self.register_buffer("units", unit_table(size), persistent=False)
            self.phi = nn.Sequential(nn.Linear(size + 1, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU())
            self.rho = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

        def forward(self, boards: torch.Tensor, units: torch.Tensor) -> torch.Tensor:
            boards = boards.long()
            cells = self.units[units.long().view(-1)]  # (M, size)
            values = torch.gather(boards, 1, cells)  # (M, size), 0 = empty
            onehot = nn.functional.one_hot(values, self.size + 1)[..., 1:]  # (M, cells, values)
            counts = onehot.sum(dim=1)  # (M, values): occurrences of each value
            h = self.phi(nn.functional.one_hot(counts, self.size + 1).float()).sum(dim=1)
            return torch.sigmoid(self.rho(h)).view(-1)

    return UnitNet


def make_ok_predicate(size: int, hidden: int = 64):  # -> ltn.Predicate
    """A fresh ``Ok(board, unit)`` LTN predicate for boards of side ``size``."""
    import ltn

    return ltn.Predicate(_unit_net_class()(size, hidden))


def save(path: str | Path, predicate, meta: dict[str, Any]) -> None:
    """Weights plus ``meta`` (size, hidden, seed, epochs, ...) in one torch file."""
    import torch

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": predicate.model.state_dict(), "meta": meta}, path)


class ModelError(ValueError):
    """A model file that cannot be used (missing, empty, truncated or corrupt, not ours, or
    for another board size): the message is one line naming the file and what is wrong."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160] if text else ''}".rstrip(": ")


def load(path: str | Path, size: int | None = None):  # -> tuple[ltn.Predicate, dict]
    """The predicate and metadata saved by :func:`save` (weights-only, safe unpickling).

    ``size``, if given, is the board side the caller needs. Every way a file can be unusable
    raises :class:`ModelError` (never a torch traceback)."""
    import torch

    p = Path(path)
    if not p.is_file():
        raise ModelError(f"{p}: no such model file" if not p.exists()
                         else f"{p}: not a regular file")
    if p.stat().st_size == 0:
        raise ModelError(f"{p}: empty file (0 bytes), not a saved model")
    try:
        data = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file; all mean the same here
        raise ModelError(f"{p}: not a readable model file (truncated or corrupt?): "
                         f"{_first_line(exc)}") from None
    meta = data.get("meta") if isinstance(data, dict) else None
    state = data.get("state_dict") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or not isinstance(state, dict):
        raise ModelError(f"{p}: not a satdoku LTN model (no meta / state_dict)")
    try:
        saved = int(meta["size"])
        hidden = int(meta.get("hidden", 64))
    except (KeyError, TypeError, ValueError):
        raise ModelError(f"{p}: model metadata has no valid board size") from None
    if size is not None and saved != size:
        raise ModelError(f"{p}: a model for {saved}x{saved} boards, not {size}x{size}")
    try:
        pred = make_ok_predicate(saved, hidden)
        pred.model.load_state_dict(state)
    except (RuntimeError, ValueError, TypeError, KeyError) as exc:
        raise ModelError(f"{p}: weights do not fit a {saved}x{saved} model: "
                         f"{_first_line(exc)}") from None
    pred.model.eval()
    return pred, meta
