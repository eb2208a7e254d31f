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
    if domain < _NO_SYMBOL and text.isascii():
        # the usual board in two C passes: each byte's value (a byte that is no symbol reads
        # as _NO_SYMBOL, above any such domain), then the largest; anything else is explained
        # below
        values = tuple(text.encode("ascii").translate(_BYTE_VALUES))
        if max(values, default=0) <= domain:
            return values, ""
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


def domain_symbols(domain: int) -> str:
    """Every character a one-line board of ``domain`` values may hold, in code-point order:
    the empty symbols and each value's symbol, letters in both cases (what
    :func:`parse_board_chars` accepts for that domain)."""
    return "".join(sorted(ch for ch, v in _VALUE.items() if v <= domain))


def value_table(missing: int = 0) -> bytes:
    """``bytes.translate`` table: a symbol's byte -> its value (0: an empty symbol), every byte
    that is no symbol -> ``missing`` (the one table of symbol values for byte-level readers)."""
    return bytes(_VALUE.get(chr(b), missing) for b in range(256))


#: :func:`parse_board_chars`'s table: a symbol's byte -> its value, any other byte -> 255
_NO_SYMBOL = 255
_BYTE_VALUES = value_table(_NO_SYMBOL)

_SYMBOLS = ("", *ALPHABET)  # _SYMBOLS[v] for v in 1..35; index 0 is the empty cell
_CHAR_TABLES: dict[str, bytes] = {}


def _char_table(empty: str) -> bytes:
    """bytes.translate table: value v (a byte) -> its symbol, 0 -> ``empty``, 36..255 -> NUL."""
    table = _CHAR_TABLES.get(empty)
    if table is None:
        table = (empty + ALPHABET).encode("ascii").ljust(256, b"\0")
        _CHAR_TABLES[empty] = table
    return table


def board_chars(board: tuple[int, ...] | list[int], empty: str = ".") -> str:
    """A board as one string of symbols (values above 35 cannot be written this way)."""
    if type(board) in (tuple, list) and len(empty) == 1 and empty.isascii():
        # one C pass: the values as bytes through a table (bytes() of an array or buffer
        # would take its raw memory, hence tuples and lists only)
        try:
            text = bytes(board).translate(_char_table(empty))
        except (ValueError, TypeError):  # a value outside 0..255, or not an integer
            text = None
        if text is not None and b"\0" not in text:
            return text.decode("ascii")
    low = min(board, default=1)
    try:
        if low > 0:  # a solution: no empty cell
            return "".join(map(_SYMBOLS.__getitem__, board))
        if low < 0:
            raise IndexError
        return "".join(_SYMBOLS[v] if v else empty for v in board)
    except IndexError:
        raise ValueError("only values 0..35 have a one-character symbol; use the grid "
                         "notation") from None


#: integers longer than this are read as :data:`HUGE` (``int()`` refuses > 4300 digits)
_MAX_DIGITS = 18
HUGE = 10**18


def ascii_int(token: str) -> int | None:
    """A non-negative decimal integer written in ASCII digits (``"²".isdigit()`` is true, but
    it is no integer), else None; absurdly long ones are :data:`HUGE`."""
    if not (token.isascii() and token.isdigit()):
        return None
    return int(token) if len(token) <= _MAX_DIGITS else HUGE


def ints_of(text: str) -> list[int] | None:
    """The integers of a line of space-separated ASCII digits, None if any token is not one
    (or the line is blank)."""
    parts = text.split()
    values = [ascii_int(p) for p in parts]
    if not values or None in values:
        return None
    return values  # type: ignore[return-value]


def ints_text(board: tuple[int, ...] | list[int]) -> str:
    """A board as space-separated integers (the grid notations)."""
    return " ".join(map(str, board))


def parse_ints(text: str, side: int = 0) -> tuple[int, ...] | None:
    """Inverse of :func:`ints_text` (None for anything else; ``side`` is not needed)."""
    values = ints_of(text)
    return tuple(values) if values is not None else None


def format_ints(board: tuple[int, ...] | list[int], side: int = 0, empty: str = ".") -> str:
    """A board on one line as space-separated integers, row-major (the solution line of the
    grid notations; ``side`` and ``empty`` are not needed)."""
    return ints_text(board)


def format_symbols(board: tuple[int, ...] | list[int], side: int, empty: str = ".") -> str:
    """A board as one string of symbols, or as integers when values above 35 may occur."""
    return ints_text(board) if side > len(ALPHABET) else board_chars(board, empty)


def parse_symbols(text: str, side: int) -> tuple[int, ...] | None:
    """Inverse of :func:`format_symbols` (None for anything else)."""
    if side > len(ALPHABET):
        return parse_ints(text)
    values, _ = parse_board_chars(text.strip(), side)
    return values
