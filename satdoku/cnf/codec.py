"""An encoding resolved once: its record with the encode and decode functions that go with it.

The solve path resolves an encoding name here once per instance and hands the :class:`Codec`
down (encoding the puzzle, decoding the model), instead of passing the name along for each
step to look up again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from satdoku.cnf.decode import decode_model
from satdoku.cnf.encode import Deadline, check_encoding_size, formula
from satdoku.cnf.encodings import Encoding, get
from satdoku.cnf.formula import Formula
from satdoku.puzzle import Puzzle
from satdoku.size_limits import SizeLimits


@dataclass(frozen=True)
class Codec:
    """A named encoding with its encoder and decoder."""

    encoding: Encoding

    @property
    def name(self) -> str:
        return self.encoding.name

    def formula(self, puzzle: Puzzle, deadline: Deadline | None = None) -> Formula:
        """A puzzle's formula (the layout's cached rules + its own clauses); building the
        rules stops at ``deadline`` (RulesTimeout)."""
        return formula(puzzle, self.encoding, deadline)

    def check_size(self, puzzle: Puzzle, limits: SizeLimits | None = None) -> None:
        """TooLarge when the puzzle's formula is beyond the memory guard
        (size_limits.max_clauses)."""
        check_encoding_size(puzzle.layout, self.encoding, limits)

    def decode(self, model: Iterable[int], puzzle: Puzzle) -> tuple[int, ...]:
        """The board a model describes (DecodeError for a wrong model)."""
        return decode_model(model, puzzle, self.encoding)


_CODECS: dict[str, Codec] = {}


def codec(encoding: str | Codec) -> Codec:
    """The codec of an encoding name (ValueError naming the known encodings)."""
    if isinstance(encoding, Codec):
        return encoding
    found = _CODECS.get(encoding)
    if found is None:
        found = _CODECS[encoding] = Codec(get(encoding))
    return found
