"""SatOutput: what a SAT solver answered, per instance, in SAT-competition form.

One block per instance, in input order::

    c instance <id>
    c status <SAT|UNSAT|TIMEOUT|INVALID|ERROR> [message]
    c time <total seconds> search <search seconds>
    s SATISFIABLE | s UNSATISFIABLE | s UNKNOWN
    v <literals> ... 0          (SAT only: every variable's literal, 20 per line)
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from satdoku.cnf.dimacs import iter_blocks, parse_solver_output
from satdoku.solvers.base import ERROR, SAT, UNSAT, Result

INSTANCE = "c instance "


@dataclass
class OutputBlock:
    """One instance's SatOutput block, read back."""

    id: str
    status: str
    message: str
    model: list[int] | None  # positive literals only when read with positives_only


#: Literals per ``v`` line.
V_WIDTH = 20
_STATUS_LINE = {SAT: "s SATISFIABLE", UNSAT: "s UNSATISFIABLE"}
_LITERAL_TEXT: dict[int, str] = {0: "0"}
_TEXT_UP_TO = [0]


def _literal_text(n: int) -> dict[int, str]:
    """Decimal text of literals -n..n (built once and grown: model output is a hot loop)."""
    if n > _TEXT_UP_TO[0]:
        _LITERAL_TEXT.update({v: str(v) for k in range(_TEXT_UP_TO[0] + 1, n + 1)
                              for v in (k, -k)})
        _TEXT_UP_TO[0] = n
    return _LITERAL_TEXT


def v_lines(model: list[int]) -> str:
    """The ``v`` lines of a model (every variable's literal, the last line ending in 0)."""
    n = len(model)
    if 0 < n <= _TEMPLATE_VARS:
        text = _from_template(model)
        if text is not None:
            return text
    if n and abs(model[-1]) != n:  # not the usual 1..n model: size the table by its maximum
        n = max(map(abs, model))
    lits = list(map(_literal_text(n).__getitem__, model))
    lits.append("0")
    return "".join(["v " + " ".join(lits[i : i + V_WIDTH]) + "\n"
                    for i in range(0, len(lits), V_WIDTH)])


#: Models of up to this many variables are written from a cached all-negative template.
_TEMPLATE_VARS = 1 << 16


@dataclass(frozen=True)
class _Template:
    """The ``v`` lines of the model -1 .. -n as ASCII bytes, the offset of each variable's '-'
    (``offsets[v]``), and that model as a list."""

    text: bytes
    offsets: list[int]
    negative: list[int]


@functools.lru_cache(maxsize=8)
def _template(n: int) -> _Template:
    negative = [-v for v in range(1, n + 1)]
    lits = [*map(str, negative), "0"]
    text = "".join(["v " + " ".join(lits[i : i + V_WIDTH]) + "\n"
                    for i in range(0, len(lits), V_WIDTH)]).encode("ascii")
    offsets = [0] * (n + 1)
    at = 0
    for v in range(1, n + 1):
        at = offsets[v] = text.index(b"-", at + 1)
    return _Template(text, offsets, negative)


def _from_template(model: list[int]) -> str | None:
    """The ``v`` lines of a model that lists variables 1..n in order (what solvers return),
    made from the all-negative text by deleting the '-' of each true variable: work per true
    variable, not per variable. None for any other model."""
    t = _template(len(model))
    true = [lit for lit in model if lit > 0]
    expected = t.negative.copy()
    try:
        for lit in true:
            expected[lit - 1] = lit
    except IndexError:
        return None
    if expected != model:  # not the variables 1..n in order, each once
        return None
    text = bytearray(t.text)
    offsets = t.offsets
    for lit in true:
        text[offsets[lit]] = 0  # a byte no v line holds: deleted below
    return text.translate(None, b"\0").decode("ascii")


def write_block(fh: IO[str], ident: str, result: Result) -> None:
    """Append one instance's block (the model only for SAT)."""
    message = f" {_one_line(result.message)}" if result.message else ""
    fh.write(f"{INSTANCE}{ident}\nc status {result.status}{message}\n"
             f"c time {result.total_seconds:.6f} search {result.solve_seconds:.6f}\n"
             f"{_STATUS_LINE.get(result.status, 's UNKNOWN')}\n")
    if result.status == SAT and result.model is not None:
        fh.write(v_lines(result.model))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def parse_block(ident: str, lines: list[str], positives_only: bool = False) -> OutputBlock:
    """An instance block's status, message and model (``positives_only``: true variables only,
    all a decoder needs and several times faster on long ``v`` lines)."""
    words = next((b.split(maxsplit=3) for b in lines if b.startswith("c status ")), [])
    status = words[2] if len(words) > 2 else ERROR
    message = words[3] if len(words) > 3 else ("" if words else "no status line")
    _, model = parse_solver_output(lines, positives_only=positives_only)
    return OutputBlock(ident, status, message, model)


def read_output(path: str | Path, positives_only: bool = False) -> Iterator[OutputBlock]:
    """Every block of a SatOutput shard, in order."""
    with open(path, encoding="utf-8") as fh:
        for key, block in iter_blocks(fh, INSTANCE):
            yield parse_block(key, block, positives_only)


def output_block(path: str | Path, ident: str) -> list[str]:
    """The raw lines of one instance's block (with its ``c instance`` line)."""
    with open(path, encoding="utf-8") as fh:
        for key, block in iter_blocks(fh, INSTANCE):
            if key == ident:
                return [f"{INSTANCE}{key}", *block]
    raise KeyError(f"no instance {ident} in {path}")
