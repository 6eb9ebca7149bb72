"""The QD1 burst self-test's truth (worker.sim.selftest.device_burst): a burst is the device's
movement between idle gaps that overlaps fio's window of it most, wherever the window is off
by a host's hold-up, and the readings on each side bound its start and end."""

from __future__ import annotations

import numpy as np

from worker.sim.selftest import device_burst


def _trace(moves: list[tuple[float, float, float]], until: float) -> np.ndarray:
    """Readings every 5 ms of a written counter (column 1) moving at `rate` bytes/s over each
    (start, end, rate); column 3 (read) stays 0."""
    t = np.arange(0.0, until, 0.005)
    y = np.zeros_like(t)
    for a, b, rate in moves:
        y += np.clip(t - a, 0.0, b - a) * rate
    out = np.zeros((t.size, 4))
    out[:, 0], out[:, 1] = t, np.floor(y)
    return out


def test_the_burst_is_the_movement_that_overlaps_fios_window() -> None:
    trace = _trace([(1.0, 1.8, 10e6), (4.0, 4.8, 10e6), (7.0, 7.8, 10e6)], 9.0)
    a0, a1, b0, b1, moved = device_burst(trace, 1, 4.0, 4.8)  # type: ignore[misc]
    assert a0 <= 4.0 <= a1 and b0 <= 4.8 <= b1
    assert abs(moved - 8e6) < 20e3


def test_a_window_fio_printed_late_still_finds_the_whole_burst() -> None:
    """fio held up before it printed its end: its window of the burst 0.6 s late, past the
    burst's start by more than the 0.3 s searched around it."""
    trace = _trace([(1.0, 1.8, 10e6), (4.0, 4.8, 10e6), (7.0, 7.8, 10e6)], 9.0)
    a0, _a1, _b0, b1, moved = device_burst(trace, 1, 4.6, 5.4)  # type: ignore[misc]
    assert a0 <= 4.0 and b1 >= 4.8 and b1 < 5.0
    assert abs(moved - 8e6) < 20e3


def test_nothing_near_the_window_is_no_burst() -> None:
    trace = _trace([(1.0, 1.8, 10e6)], 9.0)
    assert device_burst(trace, 1, 5.0, 5.8) is None
    assert device_burst(trace, 3, 1.0, 1.8) is None  # nothing read
