"""Instance files to records: every reader yields :class:`Record` s, one per instance.

A malformed instance becomes a Record with ``error`` set (file, line, reason): never dropped,
never fatal unless the caller asks for ``strict``. ``#`` comment lines and blank lines are skipped
(blank lines still separate grid bands). Files are opened through :mod:`satdoku.sources`; the
formats are the records of :mod:`satdoku.formats.format_registry`; reading, detection and the
record-by-record repair live in :mod:`satdoku.formats.reading`.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

from satdoku.formats.format_registry import get_format

if TYPE_CHECKING:
    from satdoku.formats.format_registry import (
        FORMATS,
        LINE_FORMATS,
        Format,
        FormatError,
        format_names,
        get_format,
        register,
        unregister,
    )
    from satdoku.formats.reading import HEAD_LINES, StrictError, detect_format, read_records
    from satdoku.formats.record import CnfFile, Record

#: Where each public name lives; a submodule is imported when a name of it is first used, so
#: `from satdoku.formats.record import Record` does not load every format (a one-shot
#: `satdoku dpll` starts without them).
_HOMES = {
    **dict.fromkeys(("HEAD_LINES", "StrictError", "detect_format", "read_records"), "reading"),
    **dict.fromkeys(("CnfFile", "Record"), "record"),
    **dict.fromkeys(("FORMATS", "LINE_FORMATS", "Format", "FormatError", "format_names",
                     "get_format", "register", "unregister"), "format_registry"),
}

__all__ = [
    "FORMATS", "HEAD_LINES", "LINE_FORMATS", "CnfFile", "Format", "FormatError", "Record",
    "StrictError", "detect_format", "format_board", "format_names", "get_format",
    "parse_board", "read_records", "register", "unregister",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'satdoku.formats' has no attribute {name!r}")
    value = getattr(import_module(f"satdoku.formats.{home}"), name)
    globals()[name] = value
    return value


def format_board(board: Sequence[int], notation: str, side: int, empty: str = ".") -> str:
    """A board written in the notation its input used (one line; see
    :attr:`Format.format_board`)."""
    return get_format(notation).format_board(board, side, empty)


def parse_board(text: str, notation: str, side: int) -> tuple[int, ...] | None:
    """Inverse of :func:`format_board`: the board of a line written in ``notation``, or None
    when the text is not one (reports read SatSols boards back with it)."""
    return get_format(notation).parse_board(text, side)
