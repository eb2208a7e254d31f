"""Cell symbols of the one-line notations: digits 1-9, then letters A.. (A = 10, case-insensitive).

Empty cells are written ``.`` on input also ``0`` and ``-`` are accepted. A 36x36 board has a
value 36 with no letter, so 36x36 boards use the grid format (integers) instead.
"""

from __future__ import annotations

ALPHABET = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
EMPTY_CHARS = ".0-"
_VALUE = {ch: i + 1 for i, ch in enumerate(ALPHABET)}
_VALUE.update({ch.lower(): v for ch, v in list(_VALUE.items()) if ch.isalpha()})
for _e in EMPTY_CHARS:
    _VALUE[_e] = 0


def char_value(ch: str) -> int | None:
    """Value of one symbol (0 for empty), None if it is not a symbol at all."""
    return _VALUE.get(ch)


def parse_board_chars(text: str, domain: int) -> tuple[tuple[int, ...] | None, str]:
    """Values of a string of cell symbols; (None, reason) on the first bad symbol."""
    try:
        values = tuple(map(_VALUE.__getitem__, text))
        if max(values, default=0) <= domain:
            return values, ""
    except KeyError:
        pass
    out = []
    for pos, ch in enumerate(text, 1):
        v = _VALUE.get(ch)
        if v is None:
            return None, f"bad symbol {ch!r} at position {pos}"
        if v > domain:
            return None, f"symbol {ch!r} at position {pos} means {v}, above {domain}"
        out.append(v)
    return tuple(out), ""


def board_chars(board: tuple[int, ...] | list[int], empty: str = ".") -> str:
    """A board as one string of symbols (values above 35 cannot be written this way)."""
    if any(v > len(ALPHABET) for v in board):
        raise ValueError("values above 35 have no one-character symbol; use the grid notation")
    return "".join(ALPHABET[v - 1] if v else empty for v in board)
