"""The help formatters every command's parser uses: argparse's, with the width shutil would
give, computed without importing shutil.

A module of its own, apart from :mod:`satdoku.commands.common`, because it subclasses
argparse's formatters and so imports argparse: the CLI loads it only when it builds a parser
(a one-shot ``satdoku dpll`` whose command line :mod:`satdoku.commands.plain_args` reads builds
none, issue 29).
"""

from __future__ import annotations

import argparse
import os
import sys


def terminal_columns() -> int:
    """The help text's width as ``shutil.get_terminal_size().columns`` gives it (``COLUMNS``,
    else the terminal's, else 80), without importing shutil: argparse's formatter imports it
    (with bz2, lzma and fnmatch) once per argument added, and a one-shot ``satdoku dpll``
    would pay for them on every file (issue 29)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its width from :func:`terminal_columns` (the same width)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


class RawDescriptionHelpFormatter(argparse.RawDescriptionHelpFormatter, HelpFormatter):
    """argparse's raw-description formatter (epilogs kept as written), the same width."""
