"""Named CNF encodings: one :class:`Encoding` record each, the only place encodings are listed.

An encoding is a choice of clause families of the direct encoding (see :mod:`satdoku.cnf.encode`),
an at-most-one style (pairwise binary clauses, or Sinz's sequential counter: suffix ``_seq``),
and whether the givens are propagated into a compact formula (``simplified``). The family
``triads`` (encoding ``augmented``) adds a variable per box segment and value and states the
group constraints through them; it needs a Sudoku layout with boxes. The encoder, the decoder,
the config schema's list, the CLI choices and the plots' line styles read these records.

Adding an encoding: one :func:`register` call (plus clause-family code in ``encode.py`` if it
needs a new family).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Clause families of the direct encoding (one Boolean per cell and value).
CELL_ALO, CELL_AMO, GROUP_AMO, GROUP_ALO = "cell_alo", "cell_amo", "group_amo", "group_alo"
#: tdoku's triads: a variable per (box row or column segment, value), defined as "the value is
#: in the segment", and exactly one segment per row, column and box holding each value
TRIADS = "triads"
PAIRWISE, SEQUENTIAL = "pairwise", "sequential"
SEQ = "_seq"  # name suffix of the sequential-counter variants


@dataclass(frozen=True)
class Encoding:
    """A named encoding: which clause families, which at-most-one, simplified or not, and how
    plots draw it when they compare encodings (line style and marker fill; colour stays the
    solver's)."""

    name: str
    families: tuple[str, ...]
    amo: str = PAIRWISE
    simplified: bool = False
    line: str = "-"
    fill: str = "full"
    description: str = ""

    @property
    def cell_amo(self) -> bool:
        """Whether every cell gets at most one value by a clause (decoding may then insist)."""
        return CELL_AMO in self.families

    @property
    def needs_boxes(self) -> bool:
        """Whether the encoding only applies to Sudoku layouts with boxes (``augmented``)."""
        return TRIADS in self.families

    @property
    def base(self) -> str:
        """The name without the at-most-one suffix (``extended_seq`` -> ``extended``)."""
        return self.name[: -len(SEQ)] if self.name.endswith(SEQ) else self.name


ENCODINGS: dict[str, Encoding] = {}


class Unencodable(ValueError):
    """An encoding that does not apply to a puzzle's layout (``augmented`` on a Latin square):
    the message is one line naming both."""


def register(enc: Encoding) -> Encoding:
    if enc.name in ENCODINGS:
        raise ValueError(f"encoding {enc.name!r} is registered twice")
    ENCODINGS[enc.name] = enc
    return enc


def resolve(encoding: str | Encoding) -> Encoding:
    """The record of an encoding given by name (looked up) or as its record (returned as is)."""
    return encoding if isinstance(encoding, Encoding) else get(encoding)


def get(name: str) -> Encoding:
    """The record of an encoding name (ValueError naming the known ones)."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}") from None


_BASES = (
    ("minimal", (CELL_ALO, GROUP_AMO), ":", "none",
     "cell at-least-one + group at-most-once (the classic minimal encoding)"),
    ("efficient", (CELL_ALO, CELL_AMO, GROUP_AMO), "--", "left",
     "minimal + cell at-most-one"),
    ("extended", (CELL_ALO, CELL_AMO, GROUP_AMO, GROUP_ALO), "-", "full",
     "efficient + group at-least-once (all four clause families)"),
    ("simplified", (CELL_ALO, CELL_AMO, GROUP_AMO, GROUP_ALO), "-.", "bottom",
     "extended minus what the givens decide, variables renumbered compactly"),
)
for _name, _families, _line, _fill, _text in _BASES:
    register(Encoding(_name, _families, PAIRWISE, _name == "simplified", _line, _fill, _text))
for _name, _families, _line, _fill, _text in _BASES:
    register(Encoding(_name + SEQ, _families, SEQUENTIAL, _name == "simplified", _line, "top",
                      _text + "; at-most-one by Sinz's sequential counter"))
# tdoku's "augmented" representation (t-dillon/tdoku, other/other_minisat.cc). No _seq variant:
# its triad groups are exactly-one over n or n + 1 literals (3 and 4 at 9x9, 6 at 25x25), where
# Sinz's counter (3k - 4 clauses) saves nothing or next to nothing over the pairs (k(k-1)/2).
register(Encoding("augmented", (CELL_ALO, CELL_AMO, TRIADS), PAIRWISE, False, "-", "right",
                  "efficient + triads: a variable per box row/column segment and value; "
                  "rows, columns and boxes exactly-one over their segments (tdoku)"))
