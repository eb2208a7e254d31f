"""SatOutput: what a SAT solver answered, per instance, in SAT-competition form.

One block per instance, in input order::

    c instance <id>
    c status <SAT|UNSAT|TIMEOUT|MEMOUT|INVALID|ERROR> [message]
    c time <total seconds> search <search seconds>
    c proof checked             (UNSAT only, when the solve path's checker accepted its proof)
    s SATISFIABLE | s UNSATISFIABLE | s UNKNOWN
    v <literals> ... 0          (SAT only: every variable's literal, 20 per line)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from satdoku.cnf.dimacs import iter_blocks, parse_solver_output, v_lines
from satdoku.solvers.result import ERROR, SAT, UNSAT, Result

INSTANCE = "c instance "
PROOF_CHECKED = "c proof checked"


@dataclass
class OutputBlock:
    """One instance's SatOutput block, read back."""

    id: str
    status: str
    message: str
    model: list[int] | None  # positive literals only when read with positives_only
    proof_checked: bool = False  # the block says its UNSAT proof was checked


_STATUS_LINE = {SAT: "s SATISFIABLE", UNSAT: "s UNSATISFIABLE"}


def write_block(fh: IO[str], ident: str, result: Result) -> None:
    """Append one instance's block (the model only for SAT)."""
    message = f" {_one_line(result.message)}" if result.message else ""
    fh.write(f"{INSTANCE}{ident}\nc status {result.status}{message}\n"
             f"c time {result.total_seconds:.6f} search {result.solve_seconds:.6f}\n"
             + (f"{PROOF_CHECKED}\n" if result.proof_checked else "")
             + f"{_STATUS_LINE.get(result.status, 's UNKNOWN')}\n")
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
    return OutputBlock(ident, status, message, model, PROOF_CHECKED in lines)


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
