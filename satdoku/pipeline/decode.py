"""Decode + verify stage: SatOutput models -> boards, each checked against its puzzle.

A SatSols shard is a TSV: id, line, status, verified, solution, detail. ``verified`` is ``yes``
(board checked against the puzzle: givens kept, every group a permutation, inequalities hold),
``proof`` (UNSAT certified by a checked proof), ``FAILED`` (a wrong answer: the detail says why)
or ``-`` (nothing to check yet: UNSAT without proof is checked by agreement across solvers).
``solution`` is the board in the input's own notation, or the text users know from the original
systems (``Instance Timeout``, ``Instance Unsatisfiable``, ``Instance Invalid: <reason>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from satdoku.cnf.decode import DecodeError, decode_model
from satdoku.cnf.dimacs import iter_blocks, parse_solver_output
from satdoku.formats import Record, format_board
from satdoku.pipeline.instances import read_instances
from satdoku.pipeline.times import read_tsv, write_tsv
from satdoku.solvers.base import ERROR, INVALID, SAT, TIMEOUT, UNSAT

SOLS_COLUMNS = ("id", "line", "status", "verified", "solution", "detail")
WRONG = "WRONG"  # key of the SatSols text of a SAT answer that failed verification (not a status)

TEXT = {
    TIMEOUT: "Instance Timeout",
    UNSAT: "Instance Unsatisfiable",
    INVALID: "Instance Invalid",
    ERROR: "Instance Error",
    WRONG: "Instance Wrong Answer",
}


def solution_text(status: str, board_text: str, detail: str) -> str:
    """The SatSols line of one instance."""
    if status == SAT:
        return board_text
    text = TEXT.get(status, f"Instance {status}")
    return f"{text}: {detail}" if detail and status in (INVALID, ERROR, WRONG) else text


def sols_row(rec: Record, status: str, board: tuple[int, ...] | None,
             message: str = "", proof_checked: bool = False) -> dict[str, object]:
    """Verify a solver's answer for one record and build its SatSols row."""
    verified, detail, board_text = "-", message, ""
    if status == SAT:
        problems = (["no board"] if board is None or rec.puzzle is None
                    else rec.puzzle.check_solution(board))
        if problems:
            verified, detail = "FAILED", "; ".join(problems[:3])
        else:
            verified, detail = "yes", ""
            board_text = format_board(board, rec.notation, rec.puzzle.size)  # type: ignore[arg-type,union-attr]
            if rec.solution is not None and tuple(board) != rec.solution:  # type: ignore[arg-type]
                detail = "valid, but differs from the solution given in the input"
    elif status == UNSAT and proof_checked:
        verified = "proof"
    elif status == INVALID:
        detail = rec.error or message
    shown = WRONG if verified == "FAILED" else status
    return {"id": rec.id, "line": rec.line, "status": status, "verified": verified,
            "solution": solution_text(shown, board_text, detail), "detail": detail}


def write_sols(rows: Iterable[dict[str, object]], path: str | Path) -> None:
    write_tsv(rows, path, SOLS_COLUMNS)


def decode_shard(instances: str | Path, output: str | Path, sols: str | Path,
                 encoding: str = "extended") -> dict[str, int]:
    """Decode and verify every answer of one SatOutput shard (models of ``encoding``)."""
    records = {r.id: r for r in read_instances(instances)}
    rows, counts = [], {}
    with open(output, encoding="utf-8") as fh:
        blocks = dict(iter_blocks(fh))
    for ident, rec in records.items():
        block = blocks.get(ident)
        if block is None:
            status, board, message, checked = ERROR, None, "no solver output", False
        else:
            words = next((b.split(maxsplit=3) for b in block if b.startswith("c status ")), [])
            status = words[2] if len(words) > 2 else ERROR
            message = words[3] if len(words) > 3 else ""
            checked = "proof checked" in message
            sat_word, model = parse_solver_output(block, positives_only=True)
            board = None
            if status == SAT:
                if sat_word != SAT or model is None or rec.puzzle is None:
                    status, message = ERROR, "status SAT without a model"
                else:
                    try:
                        board = decode_model(model, rec.puzzle, encoding)
                    except DecodeError as exc:
                        message = f"model does not decode: {exc}"
        row = sols_row(rec, status, board, message, checked)
        if status == SAT and board is None:  # undecodable model: keep the decoder's reason
            row.update(detail=message, solution=solution_text(WRONG, "", message))
        rows.append(row)
        counts[str(row["status"])] = counts.get(str(row["status"]), 0) + 1
    write_sols(rows, sols)
    return counts


def gather(shards: list[str | Path], tsv_out: str | Path, txt_out: str | Path | None = None,
           columns: tuple[str, ...] = SOLS_COLUMNS) -> int:
    """Concatenate shard TSVs in order; optionally write the plain one-line-per-instance file."""
    rows = [row for s in shards for row in read_tsv(s)]
    write_tsv(rows, tsv_out, columns)
    if txt_out is not None:
        with open(txt_out, "w", encoding="utf-8") as fh:
            fh.writelines(f"{r['solution']}\n" for r in rows)
    return len(rows)
