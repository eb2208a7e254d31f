"""Ctrl-C (SIGINT) and SIGTERM stop a solver that is searching in compiled code at once.

Python runs a signal handler only between bytecodes, so while python-sat's ``solve_limited``
or our C kernel searches (both release the GIL), a Ctrl-C would wait until the search returns:
at its time limit, or never without one. :func:`install` (called once by the CLI, in the main
thread) has Python's C-level handler also write the signal number to a pipe
(``signal.set_wakeup_fd``); a relay thread reading that pipe calls ``interrupt()`` on the
solver that is searching right now (registered with :func:`searching`). The search returns,
and the main thread then runs the usual handler: ``KeyboardInterrupt`` for SIGINT (the CLI
prints one line and exits 130), the process's SIGTERM handler for SIGTERM.

The relay is started with :mod:`_thread`, the thread module :mod:`threading` is built on:
every ``satdoku`` process installs it, and importing :mod:`threading` would cost a one-shot
``satdoku dpll`` a few milliseconds for a daemon thread that needs none of it. For the same
reason the signal numbers and ``set_wakeup_fd`` come from ``_signal``, the C module
:mod:`signal` re-exports: ``signal`` itself adds enum classes of every signal, handler and
mask, built at import (about 3.5 million instructions, issue 29), which the relay does not use.
"""

from __future__ import annotations

import _signal  # signal's C core: the numbers and set_wakeup_fd, without signal's enums
import _thread
import contextlib
import os
from collections.abc import Iterator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any

#: Signals that stop the current search.
STOPPING = frozenset({_signal.SIGINT, _signal.SIGTERM})

_current: Any = None  # the object whose interrupt() stops the search in progress
_installed = False


def install() -> bool:
    """Relay SIGINT and SIGTERM to the searching solver; False where it cannot (not the main
    thread, or already installed). Signals without a Python-level handler are unaffected."""
    global _installed
    if _installed:
        return False
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        _signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread of the main interpreter
        os.close(read_end)
        os.close(write_end)
        return False
    _thread.start_new_thread(_relay, (read_end,))  # a daemon: never joined at exit
    _installed = True
    return True


def _relay(read_end: int) -> None:
    while True:
        try:
            received = os.read(read_end, 64)
        except InterruptedError:
            continue
        if not received:
            return
        if STOPPING.intersection(received):
            target = _current
            if target is not None:
                with contextlib.suppress(Exception):  # it may have just finished
                    target.interrupt()


@contextlib.contextmanager
def searching(target: Any) -> Iterator[None]:
    """Mark ``target`` (an object with ``interrupt()``) as the search a signal must stop."""
    global _current
    previous, _current = _current, target
    try:
        yield
    finally:
        _current = previous
