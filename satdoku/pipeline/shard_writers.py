"""The solve stage's output files of one shard, written in input order by both of its loops.

The plain loop (:mod:`satdoku.pipeline.stage_solve`) writes one instance's entries at a time
from its answers (:meth:`ShardWriters.write`); the compiled loop (:mod:`satdoku.pipeline.batch`)
writes the text it formatted for a run of instances (:meth:`ShardWriters.write_text`). Both
count the statuses written in the same place.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import IO

from satdoku.formats import Record
from satdoku.identity import record_hash
from satdoku.solve import Answer
from satdoku.stagefiles.outputs import write_block
from satdoku.stagefiles.tsv import SOLS_COLUMNS, TIMES_COLUMNS, TsvWriter, times_row


class ShardWriters:
    """A shard's open output files: SatOutput (``output``; None for a solver that writes none),
    SatOutputTimes and SatSols, and the status counts of what was written."""

    def __init__(self, stack: ExitStack, times: str | Path, sols: str | Path,
                 output: str | Path | None = None) -> None:
        self.out: IO[str] | None = None
        if output is not None:
            self.out = stack.enter_context(_text(output))
        self.times = TsvWriter(stack.enter_context(_tsv(times)), TIMES_COLUMNS)
        self.sols = TsvWriter(stack.enter_context(_tsv(sols)), SOLS_COLUMNS)
        self.counts: dict[str, int] = {}

    def write(self, rec: Record, answers: list[Answer], shard_load: float) -> None:
        """One instance's entries: the first run's answer, the times row of every run."""
        answer = answers[0]
        if self.out is not None:
            write_block(self.out, rec.id, answer.result)
        self.times.write(times_row(rec.id, rec.line, answer.result, shard_load,
                                   record_hash(rec), [a.result for a in answers]))
        self.sols.write(answer.sols_row(rec))
        self.count(answer.status)

    def write_text(self, out: str, times: str, sols: str) -> None:
        """Entries already formatted as the files hold them (SatOutput blocks, times rows,
        SatSols rows; the header rows are written already)."""
        if self.out is None:
            raise ValueError("this shard writes no SatOutput")
        self.out.write(out)
        self.times.fh.write(times)
        self.sols.fh.write(sols)

    def count(self, status: str, k: int = 1) -> None:
        """``k`` more entries of ``status`` written."""
        if k:
            self.counts[status] = self.counts.get(status, 0) + k


def _text(path: str | Path) -> IO[str]:
    return open(path, "w", encoding="utf-8")


def _tsv(path: str | Path) -> IO[str]:
    return open(path, "w", encoding="utf-8", newline="")
