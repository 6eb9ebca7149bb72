"""A sample batch republishes its run to viewers only when the progress moved visibly or a
few seconds passed; the first batch of a run always does."""

from __future__ import annotations

import pytest

from backend.runs import service


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(service.time, "monotonic", lambda: now[0])
    service._last_progress.clear()
    return now


def test_small_moves_wait_for_the_interval(clock: list[float]) -> None:
    run = 424242
    assert service._progress_worth_sending(run, 0.100)  # first: always
    clock[0] += 1
    assert not service._progress_worth_sending(run, 0.102)
    clock[0] += 1
    assert not service._progress_worth_sending(run, 0.104)
    clock[0] += service.PROGRESS_EVERY_S
    assert service._progress_worth_sending(run, 0.106)


def test_a_visible_move_is_sent_at_once(clock: list[float]) -> None:
    run = 434343
    assert service._progress_worth_sending(run, 0.20)
    clock[0] += 0.5
    assert service._progress_worth_sending(run, 0.20 + service.PROGRESS_STEP)
    # Runs are throttled each on their own.
    assert service._progress_worth_sending(run + 1, 0.20)
