"""Progress for long CLI work: a tqdm bar on a terminal, periodic plain log lines elsewhere.

Under Snakemake or SLURM stderr is a log file, where a bar's carriage returns turn into
megabytes of noise; there a line like ``solve cdcl: 12000/50000 (24.0%) 2031.5 puzzles/s,
ETA 19s`` every ``interval`` seconds says the same thing. ``SATDOKU_PROGRESS`` overrides the
choice: ``auto`` (default), ``bar``, ``log`` or ``off``.

Use either form::

    for record in track(records, total=n, desc="encode", unit="puzzles"):
        ...

    with Progress(total=n, desc="solve", unit="puzzles") as bar:
        bar.update(len(batch))
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import IO, Any, TypeVar

T = TypeVar("T")

MODES = ("auto", "bar", "log", "off")
ENV_VAR = "SATDOKU_PROGRESS"
DEFAULT_INTERVAL = 15.0


def resolve_mode(mode: str | None, stream: IO[str]) -> str:
    """The effective mode: explicit ``mode``, else ``$SATDOKU_PROGRESS``, else auto by TTY."""
    chosen = (mode or os.environ.get(ENV_VAR) or "auto").strip().lower()
    if chosen not in MODES:
        raise ValueError(f"progress mode {chosen!r} is not one of {', '.join(MODES)} ({ENV_VAR})")
    if chosen == "auto":
        isatty = getattr(stream, "isatty", None)
        return "bar" if isatty is not None and isatty() else "log"
    return chosen


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class Progress:
    """Counts work done; shows it as a tqdm bar (TTY) or as a log line every ``interval`` s."""

    def __init__(
        self,
        total: int | None = None,
        desc: str = "",
        unit: str = "it",
        *,
        stream: IO[str] | None = None,
        interval: float = DEFAULT_INTERVAL,
        mode: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.desc = desc
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.mode = resolve_mode(mode, self.stream)
        self.clock = clock
        self.n = 0
        self.closed = False
        self._start = clock()
        self._last_log = self._start
        self._bar: Any = None
        if self.mode == "bar":
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                desc=desc or None,
                unit=f" {unit}",
                file=self.stream,
                dynamic_ncols=True,
            )

    def update(self, n: int = 1) -> None:
        """Record ``n`` more units done."""
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.mode == "log":
            now = self.clock()
            if now - self._last_log >= self.interval:
                self._last_log = now
                self._write(self._line(now))

    def close(self, stopped: bool = False) -> None:
        """Finish: close the bar, or write the final summary line (``stopped``: the work ended
        early, by an exception or an interrupt, and the line says so instead of "done")."""
        if self.closed:
            return
        self.closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.mode == "log":
            now = self.clock()
            elapsed = now - self._start
            rate = self.n / elapsed if elapsed > 0 else 0.0
            self._write(
                f"{self._prefix()}{'stopped at' if stopped else 'done'} {self._count()} in "
                f"{_duration(elapsed)} "
                f"({rate:.1f} {self.unit}/s)"
            )

    def _prefix(self) -> str:
        return f"{self.desc}: " if self.desc else ""

    def _count(self) -> str:
        return f"{self.n}/{self.total}" if self.total is not None else str(self.n)

    def _line(self, now: float) -> str:
        elapsed = now - self._start
        rate = self.n / elapsed if elapsed > 0 else 0.0
        parts = [f"{self._prefix()}{self._count()}"]
        if self.total:
            parts.append(f"({100.0 * self.n / self.total:.1f}%)")
        parts.append(f"{rate:.1f} {self.unit}/s")
        line = " ".join(parts)
        if self.total is not None and rate > 0 and self.n < self.total:
            line += f", ETA {_duration((self.total - self.n) / rate)}"
        return line

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(stopped=exc_type is not None)


def track(
    items: Iterable[T],
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    **kwargs: Any,
) -> Iterator[T]:
    """Yield ``items`` unchanged while counting them with a :class:`Progress`.

    ``total`` defaults to ``len(items)`` when the iterable has one. Extra keyword arguments go
    to :class:`Progress` (``stream``, ``interval``, ``mode``, ``clock``).
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(total=total, desc=desc, unit=unit, **kwargs) as progress:
        for item in items:
            yield item
            progress.update()
