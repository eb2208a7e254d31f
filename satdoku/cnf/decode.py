"""From a SAT model back to a board, and a board to the literals that state it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from satdoku.cnf.encode import expand_model
from satdoku.cnf.encodings import DEFAULT_ENCODING, resolve
from satdoku.cnf.native import dimacs_passes
from satdoku.puzzle import Puzzle

if TYPE_CHECKING:
    from satdoku.cnf.encodings import Encoding


class DecodeError(ValueError):
    """A model that does not describe one value per cell."""


def decode_model(model: Iterable[int], puzzle: Puzzle,
                 encoding: str | Encoding = DEFAULT_ENCODING) -> tuple[int, ...]:
    """The board a model describes under the direct encoding v(cell, d) = cell*D + d.

    ``encoding`` names the formula the model satisfies: a ``simplified`` model is mapped back
    through the variables the puzzle's givens kept; an encoding without cell-AMO clauses
    (``minimal``) may leave a cell with several true values, any of which fits every clause, so
    the lowest is taken. Raises DecodeError when a cell has no true value or (with cell-AMO)
    more than one (a wrong model)."""
    dom, n = puzzle.domain, puzzle.ncells
    enc = resolve(encoding)
    if not enc.simplified and enc.cell_amo:
        fast = _one_value_per_cell(model, dom, n)
        if fast is not None:
            return fast
    strict = enc.cell_amo
    board = [0] * n
    for lit in sorted(expand_model(model, puzzle, enc)):
        if 0 < lit <= n * dom:
            cell, d = divmod(lit - 1, dom)
            if board[cell] and not strict:
                continue
            if board[cell]:
                raise DecodeError(
                    f"{puzzle.cell_name(cell)} has two values ({board[cell]} and {d + 1})"
                )
            board[cell] = d + 1
    missing = [puzzle.cell_name(c) for c, v in enumerate(board) if not v]
    if missing:
        raise DecodeError(f"no value for {len(missing)} cells (first: {missing[0]})")
    return tuple(board)



def _one_value_per_cell(model: Iterable[int], dom: int, n: int) -> tuple[int, ...] | None:
    """The board of a model that gives every cell exactly one value (the usual case, decoded
    by the compiled pass in ``satdoku/cnf/_dimacs.c`` when it is built, else by
    :func:`one_value_per_cell_python`); None sends any other model to the detailed decoder,
    which names what is wrong."""
    lits = model if type(model) is list else [int(x) for x in model]
    native = dimacs_passes()
    if native is None:
        return one_value_per_cell_python(lits, dom, n)
    board: tuple[int, ...] | None = native.one_value_per_cell(lits, dom, n)
    return board


def one_value_per_cell_python(model: list[int], dom: int, n: int) -> tuple[int, ...] | None:
    """:func:`_one_value_per_cell` in plain Python: true direct variables (1..n*dom) give cell
    (lit-1)//dom the value (lit-1)%dom+1; larger ones are auxiliary; a clash or a cell left
    without a value gives None."""
    board, filled, top = [0] * n, 0, n * dom
    for lit in model:
        if 0 < lit <= top:
            cell, d = divmod(lit - 1, dom)
            if board[cell]:
                return None
            board[cell] = d + 1
            filled += 1
    return tuple(board) if filled == n else None
