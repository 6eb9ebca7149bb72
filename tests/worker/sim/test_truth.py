"""The device's own rate between two wall times (worker.sim.truth.device_rate), from traces
like the controller writes: a reading every 5 ms, the counters rising in the throttle's steps."""

from __future__ import annotations

import numpy as np
import pytest

from worker.sim import truth


def trace(rate: float, seconds: float, *, gap: tuple[float, float] | None = None,
          stop: tuple[float, float] | None = None) -> np.ndarray:  # fmt: skip
    """A read pass at `rate` B/s read every 5 ms; `stop` (start, end): the device moved nothing
    then; `gap` (start, end): no reading then (the controller held up)."""
    t = np.arange(0.0, seconds, 0.005)
    moving = np.ones_like(t)
    if stop is not None:
        moving[(t >= stop[0]) & (t < stop[1])] = 0.0
    y = np.concatenate(([0.0], np.cumsum(moving[1:] * rate * 0.005)))
    keep = np.ones_like(t, dtype=bool)
    if gap is not None:
        keep = ~((t > gap[0]) & (t < gap[1]))
    rows = np.zeros((int(keep.sum()), truth.TRACE_COLUMNS))
    rows[:, 0], rows[:, 3] = t[keep], y[keep]
    return rows


def test_a_steady_pass_is_its_rate() -> None:
    assert truth.device_rate(trace(40e6, 5.0), 3, 0.5, 4.5) == pytest.approx(40e6, rel=0.01)


def test_a_stop_the_controller_saw_is_left_out() -> None:
    rows = trace(40e6, 5.0, stop=(2.0, 3.4))
    assert truth.device_rate(rows, 3, 0.5, 4.5) == pytest.approx(40e6, rel=0.02)


def test_a_stop_hidden_in_a_gap_of_readings_is_left_out() -> None:
    """Everything held 1.4 s, the device and the controller alike: no reading in the gap, and
    the counters rose across it by almost nothing."""
    rows = trace(40e6, 5.0, stop=(2.0, 3.4), gap=(2.0, 3.4))
    assert truth.device_rate(rows, 3, 0.5, 4.5) == pytest.approx(40e6, rel=0.02)


def test_a_gap_of_readings_over_a_device_that_kept_its_pace_is_no_stall() -> None:
    rows = trace(40e6, 5.0, gap=(2.0, 3.4))
    assert truth.device_rate(rows, 3, 0.5, 4.5) == pytest.approx(40e6, rel=0.02)


def test_a_stop_partly_made_up_in_a_gap_leaves_out_only_the_rest() -> None:
    """The device stopped for 1.4 s of a 2 s gap, then moved at twice its rate for 0.6 s
    before the controller read it again: the 48 MB the counters rose by across the gap are
    1.2 s at the 40 MB/s around it, and the other 0.8 s are left out (the 128 MB of the 4 s
    over 3.2 s), not the whole gap (64 MB/s) and not none of it (32 MB/s)."""
    t = np.arange(0.0, 5.0, 0.005)
    r = np.where((t >= 2.0) & (t < 3.4), 0.0, np.where((t >= 3.4) & (t < 4.0), 80e6, 40e6))
    y = np.concatenate(([0.0], np.cumsum(r[1:] * 0.005)))
    keep = ~((t > 2.0) & (t < 4.0))
    rows = np.zeros((int(keep.sum()), truth.TRACE_COLUMNS))
    rows[:, 0], rows[:, 3] = t[keep], y[keep]
    moved = y[t <= 4.5][-1] - y[t >= 0.5][0]
    assert truth.device_rate(rows, 3, 0.5, 4.5) == pytest.approx(moved / (4.0 - 0.8), rel=0.03)


def test_a_gap_of_readings_inside_a_stop_the_counters_showed_counts_once() -> None:
    rows = trace(40e6, 5.0, stop=(2.0, 3.4), gap=(2.5, 3.0))
    assert truth.device_rate(rows, 3, 0.5, 4.5) == pytest.approx(40e6, rel=0.02)


def test_a_short_jobs_rate_is_from_its_first_to_its_last_move() -> None:
    # A 1 s job at 40 MB/s with idle before and after: a window from fio's clock that ends
    # 80 ms late would read 8% slow; the device's own first and last move do not.
    rows = trace(40e6, 3.0, stop=(0.0, 1.0))
    rows[rows[:, 0] >= 2.0, 3] = rows[rows[:, 0] < 2.0, 3].max()  # idle from 2 s
    assert truth.active_rate(rows, 3, 0.8, 2.4) == pytest.approx(40e6, rel=0.01)
    assert truth.device_rate(rows, 3, 1.0, 2.08) < 0.95 * 40e6
    assert truth.active_rate(rows, 3, 2.2, 2.9) == 0.0
