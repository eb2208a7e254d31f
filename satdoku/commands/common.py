"""Argument types shared by the commands (checked by argparse: a bad value is one usage line)
and the limit arguments of every command that solves. The help formatters every command's
parser uses: :mod:`satdoku.commands.help_format`.

argparse is not imported here at run time: a one-shot ``satdoku dpll`` whose command line
:mod:`satdoku.commands.plain_args` reads alone loads no argparse (issue 29). A refused value
raises ``argparse.ArgumentTypeError``, imported when it is raised (:func:`refused`)."""

from __future__ import annotations

import math
from collections.abc import Callable

from satdoku.solvers.base import CLOCKS, WALL, RunLimits
from satdoku.solvers.result import AUTO, MEASUREMENTS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    import argparse


def refused(message: str) -> Exception:
    """argparse's error for a refused argument value (argparse prints it as one usage line)."""
    from argparse import ArgumentTypeError

    return ArgumentTypeError(message)


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds > 0 (``-1``, ``0``, ``nan``, ``inf`` refused)."""
    try:
        value = float(text)
    except ValueError:
        raise refused(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise refused(f"a time limit must be finite and > 0, got {text!r}")
    return value


def int_in(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``lo..hi`` (``--epochs 0``, ``--count -1`` and
    ``--size 10**9`` are one usage line, not a traceback or hours of work)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise refused(f"not an integer: {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise refused(f"must be an integer {span}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def number_in(lo: float, hi: float | None = None, *, above: bool = False
              ) -> Callable[[str], float]:
    """An argparse type: a finite number >= ``lo`` (> ``lo`` with ``above``) and <= ``hi``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise refused(f"not a number: {text!r}") from None
        low_ok = value > lo if above else value >= lo
        if not (math.isfinite(value) and low_ok and (hi is None or value <= hi)):
            span = (f"{'>' if above else '>='} {lo:g}"
                    + (f" and <= {hi:g}" if hi is not None else ""))
            raise refused(f"must be a finite number {span}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """``--memory-limit``, ``--limit-clock``, ``--measurement`` and ``--cores``, the same in
    every command that solves."""
    # the configuration schema's bounds (16 MB to 16 TB): 1e30 overflowed the rlimit (ERROR)
    p.add_argument("--memory-limit", type=number_in(16, 16777216), default=None, metavar="MB",
                   help="MB each instance's run may use (past it: MEMOUT); default: the "
                   "solver's memory_limit option, else none")
    p.add_argument("--limit-clock", choices=CLOCKS, default=WALL,
                   help="read the time limit on the wall clock (default) or as CPU seconds")
    p.add_argument("--measurement", choices=MEASUREMENTS, default=AUTO,
                   help="how solver processes are limited and measured: benchexec (cgroups), "
                   "basic (satdoku's launcher) or auto (default: benchexec where it works)")
    p.add_argument("--cores", type=int_in(1, 4096), default=1, metavar="N",
                   help="cores the run claims and is pinned to (default 1; none free: not "
                   "pinned)")


def run_limits(args: argparse.Namespace) -> RunLimits:
    """The one RunLimits value of a command's limit arguments (cores are claimed later)."""
    return RunLimits(time_limit=getattr(args, "time_limit", None),
                     clock=getattr(args, "limit_clock", WALL),
                     verify_time_limit=getattr(args, "verify_time_limit", None),
                     memory_mb=getattr(args, "memory_limit", None),
                     measurement=getattr(args, "measurement", AUTO))
