"""Decode stage for solver outputs made elsewhere: a SatOutput shard -> a checked SatSols shard.

The workflow's solve stage decodes and verifies as it solves; this stage re-checks a SatOutput
shard after the fact (an output written by another solver on our SatInput bundles, or an old
run) through the same verification as :func:`satdoku.solve.verify`.
"""

from __future__ import annotations

from pathlib import Path

from satdoku.cnf.encodings import DEFAULT_ENCODING
from satdoku.solve import verify
from satdoku.solvers.result import ERROR, Result
from satdoku.stagefiles.instances import read_instances
from satdoku.stagefiles.outputs import read_output
from satdoku.stagefiles.tsv import SOLS_COLUMNS, write_tsv


def decode_shard(instances: str | Path, output: str | Path, sols: str | Path,
                 encoding: str = DEFAULT_ENCODING) -> dict[str, int]:
    """Decode and verify every answer of one SatOutput shard (models of ``encoding``)."""
    blocks = {b.id: b for b in read_output(output)}
    rows, counts = [], {}
    for rec in read_instances(instances):
        block = blocks.get(rec.id)
        if block is None:
            result = Result(ERROR, message="no solver output")
        else:
            result = Result(block.status, model=block.model, message=block.message,
                            proof_checked=block.proof_checked)
        answer = verify(rec, encoding, result)
        rows.append(answer.sols_row(rec))
        counts[answer.status] = counts.get(answer.status, 0) + 1
    write_tsv(rows, sols, SOLS_COLUMNS)
    return counts
