"""Argument types shared by the commands (checked by argparse: a bad value is one usage line)."""

from __future__ import annotations

import argparse
import math


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds > 0 (``-1``, ``0``, ``nan``, ``inf`` refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"a time limit must be finite and > 0, got {text!r}")
    return value
