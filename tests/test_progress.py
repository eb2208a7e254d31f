"""satdoku.progress: tqdm on a terminal, periodic plain lines under Snakemake/SLURM (no TTY)."""

from __future__ import annotations

import io

import pytest

from satdoku.progress import Progress, resolve_mode, track


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SATDOKU_PROGRESS", raising=False)


def test_auto_mode_follows_the_tty() -> None:
    assert resolve_mode(None, TtyStream()) == "bar"
    assert resolve_mode(None, io.StringIO()) == "log"


def test_environment_overrides_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SATDOKU_PROGRESS", "off")
    assert resolve_mode(None, TtyStream()) == "off"
    monkeypatch.setenv("SATDOKU_PROGRESS", "LOG")
    assert resolve_mode(None, TtyStream()) == "log"


def test_unknown_mode_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SATDOKU_PROGRESS", "fancy")
    with pytest.raises(ValueError, match="SATDOKU_PROGRESS"):
        resolve_mode(None, io.StringIO())


def test_log_mode_writes_one_line_per_interval_then_a_summary() -> None:
    clock, out = FakeClock(), io.StringIO()
    with Progress(
        total=1000, desc="solve", unit="puzzles", stream=out, interval=10, clock=clock
    ) as p:
        p.update(100)  # 0 s elapsed: too early for a line
        clock.now += 5
        p.update(100)  # 5 s: still too early
        clock.now += 5
        p.update(300)  # 10 s: 500 done -> a line
        clock.now += 3
        p.update(100)  # 13 s: within the next interval, no line
        clock.now += 7
        p.update(400)  # 20 s: 1000 done -> a line
    lines = out.getvalue().splitlines()
    assert lines == [
        "solve: 500/1000 (50.0%) 50.0 puzzles/s, ETA 10s",
        "solve: 1000/1000 (100.0%) 50.0 puzzles/s",
        "solve: done 1000/1000 in 20s (50.0 puzzles/s)",
    ]
    assert "\r" not in out.getvalue()


def test_log_mode_without_total_and_long_durations() -> None:
    clock, out = FakeClock(), io.StringIO()
    p = Progress(desc="encode", stream=out, interval=60, clock=clock)
    clock.now += 3725
    p.update(7450)
    p.close()
    p.close()  # idempotent
    assert out.getvalue().splitlines() == [
        "encode: 7450 2.0 it/s",
        "encode: done 7450 in 1h02m (2.0 it/s)",
    ]


def test_bar_mode_uses_tqdm() -> None:
    out = TtyStream()
    items = list(track(range(50), desc="decode", unit="puzzles", stream=out))
    assert items == list(range(50))
    text = out.getvalue()
    assert "\r" in text  # tqdm redraws in place
    assert "decode" in text and "50/50" in text


def test_off_mode_is_silent_and_still_yields_everything() -> None:
    out = TtyStream()
    assert list(track("abc", mode="off", stream=out)) == ["a", "b", "c"]
    assert out.getvalue() == ""


def test_track_takes_total_from_len_and_counts_partial_consumption() -> None:
    clock, out = FakeClock(), io.StringIO()
    gen = track([1, 2, 3, 4], desc="x", stream=out, clock=clock)
    assert next(gen) == 1
    assert next(gen) == 2
    gen.close()  # consumer stopped early: the summary tells how far it got
    assert out.getvalue().splitlines() == ["x: stopped at 1/4 in 0s (0.0 it/s)"]
