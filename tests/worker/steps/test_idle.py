"""The idle step: runs its time, reports progress, and stops early when asked.

Nothing here bounds how long anything took: on a busy machine a sleep can run long. Each
check is one that scheduling cannot break (it idled at least its time, ticks come in order)
or one with a bound far from the step's own times."""

from __future__ import annotations

import threading
import time

import pytest

from worker.steps import idle


def test_idle_runs_its_time_and_reports_increasing_progress() -> None:
    ticks: list[float] = []
    started = time.monotonic()

    idled, stopped = idle(1.0, should_stop=lambda: False, on_tick=ticks.append, tick_s=0.1)

    assert not stopped
    assert 1.0 <= idled <= time.monotonic() - started
    # About one tick per tick_s while idling, never two for one tick_s, and one at the end.
    assert 2 <= len(ticks) <= 11
    assert ticks == sorted(ticks) and len(set(ticks)) == len(ticks)
    assert 0 < ticks[0] < 1.0
    assert ticks[-1] == 1.0


def test_idle_stops_early_when_asked() -> None:
    flag = threading.Event()
    timer = threading.Timer(0.3, flag.set)
    timer.start()
    try:
        idled, stopped = idle(60, should_stop=flag.is_set, tick_s=10.0)
    finally:
        timer.cancel()

    # Stopped once the flag was set, long before its time (or its next tick).
    assert stopped and flag.is_set()
    assert 0 < idled < 10


def test_stopping_reports_no_final_tick() -> None:
    ticks: list[float] = []
    idled, stopped = idle(60, should_stop=lambda: True, on_tick=ticks.append)
    assert stopped and idled < 10
    assert ticks == []


def test_zero_seconds_returns_at_once() -> None:
    ticks: list[float] = []
    idled, stopped = idle(0, should_stop=lambda: False, on_tick=ticks.append, tick_s=60)
    assert not stopped and 0 <= idled < 10
    assert ticks == [1.0]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        idle(-1, should_stop=lambda: False)
    with pytest.raises(ValueError, match="tick_s"):
        idle(1, should_stop=lambda: False, tick_s=0)
