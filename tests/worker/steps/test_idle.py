"""The idle step: runs its time, reports progress, and stops promptly when asked."""

from __future__ import annotations

import threading
import time

import pytest

from worker.steps import idle


def test_idle_runs_its_time_and_reports_increasing_progress() -> None:
    ticks: list[float] = []
    started = time.monotonic()

    idled, stopped = idle(0.55, should_stop=lambda: False, on_tick=ticks.append, tick_s=0.1)

    assert not stopped
    assert 0.55 <= idled <= time.monotonic() - started < 0.85
    assert 4 <= len(ticks) <= 7  # about one per tick_s, and one at the end
    assert ticks == sorted(ticks) and len(set(ticks)) == len(ticks)
    assert 0 < ticks[0] < 0.4
    assert ticks[-1] == 1.0


def test_idle_stops_within_a_fraction_of_a_second() -> None:
    flag = threading.Event()
    flipped_at: list[float] = []

    def flip() -> None:
        flipped_at.append(time.monotonic())
        flag.set()

    timer = threading.Timer(0.3, flip)
    timer.start()
    try:
        idled, stopped = idle(30, should_stop=flag.is_set, tick_s=1.0)
        returned_at = time.monotonic()
    finally:
        timer.cancel()

    assert stopped
    assert returned_at - flipped_at[0] < 0.3
    assert 0.3 <= idled < 0.7


def test_stopping_reports_no_final_tick() -> None:
    ticks: list[float] = []
    idled, stopped = idle(5, should_stop=lambda: True, on_tick=ticks.append)
    assert stopped and idled < 0.1
    assert ticks == []


def test_zero_seconds_returns_at_once() -> None:
    ticks: list[float] = []
    assert idle(0, should_stop=lambda: False, on_tick=ticks.append) == (
        pytest.approx(0, abs=0.05),
        False,
    )
    assert ticks == [1.0]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        idle(-1, should_stop=lambda: False)
    with pytest.raises(ValueError, match="tick_s"):
        idle(1, should_stop=lambda: False, tick_s=0)
