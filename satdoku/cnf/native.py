"""The compiled DIMACS passes (``satdoku/cnf/_dimacs.c``, built in place by ``make install``),
loaded in one place. Every caller has a readable Python form of what it asks of them, which
runs when they are not built (and which the tests hold them to)."""

from __future__ import annotations

from types import ModuleType


def dimacs_passes() -> ModuleType | None:
    """The module ``satdoku.cnf._dimacs``, or None when it was not built (not cached: a test
    that hides it, as a build without a C compiler would, gets None at once)."""
    try:
        from satdoku.cnf import _dimacs  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _dimacs
