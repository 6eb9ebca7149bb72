"""The self-test's checks give the truth the room its instruments have: a stall cut at the job's
start, a short job's rate between its readings, a level the host held fio under."""

from __future__ import annotations

import numpy as np

from worker.sim import selftest, truth
from worker.sim.truth import HELD, TRACE_COLUMNS


def trace_with_hold(at: float, hold_s: float) -> np.ndarray:
    """A trace from 0 to 20 s whose held total rises by `hold_s` over the 0.5 s after `at`."""
    t = np.arange(0.0, 20.0, 0.01)
    out = np.zeros((t.size, TRACE_COLUMNS))
    out[:, 0] = t
    out[:, HELD] = np.clip((t - at) / 0.5, 0.0, 1.0) * hold_s
    return out


def test_the_start_is_as_unsure_as_fio_was_held_before_its_print() -> None:
    trace = trace_with_hold(at=9.4, hold_s=0.3)
    assert selftest.start_uncertainty(trace, end=10.0) == np.float64(0.3).item()
    # A hold long before the print does not move it.
    assert selftest.start_uncertainty(trace_with_hold(at=2.0, hold_s=0.3), end=10.0) == 0.0


def test_only_a_stall_cut_at_the_start_gets_that_room() -> None:
    trace = trace_with_hold(at=9.4, hold_s=0.3)  # no hold near the stalls themselves
    device = [
        {"start_s": 0.0, "duration_s": 0.92},  # under way as the job began
        {"start_s": 5.0, "duration_s": 0.92},
    ]
    got = [{"start_s": 0.0, "duration_s": 1.14}, {"start_s": 5.0, "duration_s": 1.14}]
    checks = selftest._stalls_matched(
        "case", "step", "stall", device, device, got, trace, 0.0, selftest._listed,
        start_room=selftest.start_uncertainty(trace, end=10.0),
    )  # fmt: skip
    lengths = [c for c in checks if c.what.endswith("length")]
    assert [c.ok for c in lengths] == [True, False], lengths
    assert "held fio up 0.30 s" in lengths[0].truth


def test_a_short_jobs_rate_is_bounded_by_the_readings_around_its_moves() -> None:
    """10 MB moved from 1.0 to 2.0 s, read every 5 ms but with the reader held up 0.2 s across
    each end (no reading from 0.9 to 1.1 s, nor from 1.9 to 2.1 s): the device's rate lies
    between 10 MB over the readings furthest apart (1.2 s) and over the nearest (0.8 s)."""
    inner = np.arange(1.1, 1.9, 0.005)
    t = np.concatenate(([0.0, 0.9], inner, [2.1, 3.0]))
    out = np.zeros((t.size, TRACE_COLUMNS))
    out[:, 0] = t
    out[:, 1] = np.clip(t - 1.0, 0.0, 1.0) * 10e6
    slow, fast = truth.active_rate_range(out, 1, 0.0, 3.0)
    assert abs(slow - 10e6 / 1.2) < 1.0
    assert abs(fast - 10e6 / (inner[-1] - inner[0])) < 1.0
    assert slow < 10e6 < fast  # the drive's own 10 MB/s within
    assert truth.active_rate_range(out, 3, 0.0, 3.0) == (0.0, 0.0)  # nothing read


def test_a_burst_held_up_by_the_host_may_read_below_the_drives_speed_by_that_share() -> None:
    """The sequential burst's check against the profile gives fio's hold in the burst as room
    below, as the burst's own MB/s check does; never above the profile."""
    assert selftest._between(22.75, 21.52, 24.0)
    assert selftest._between(21.52 * 0.96, 21.52, 24.0)
    assert not selftest._between(21.52 * 0.94, 21.52, 24.0)
    assert not selftest._between(24.0 * 1.06, 21.52, 24.0)


def _stalls(*starts: float) -> list[dict]:
    return [{"start_s": s, "duration_s": 1.5, "kind": "periodic"} for s in starts]


def test_the_period_is_judged_against_the_devices_own_stalls() -> None:
    quiet = trace_with_hold(at=19.0, hold_s=0.0)
    device = _stalls(5.96, 11.88, 17.88)  # gaps 5.92 and 6.00: median 5.96, not the profile's 6
    got = _stalls(6.04, 11.97, 17.94)

    def check(value: float, regular: bool = True, trace: np.ndarray = quiet) -> selftest.Check:
        found = {"period_s": value, "period_regular": regular}
        return selftest._period_check("case", "step", 6.0, device, got, found, trace, 0.0)

    assert check(5.96).ok and "5.96 s (the profile's 6 s), regular" in check(5.96).truth
    assert check(5.96 * 1.049).ok and not check(5.96 * 1.051).ok
    assert not check(5.96, regular=False).ok  # the device's gaps were regular
    # The host held fio up 1.2 s just before the second stall: fio saw it begin up to that much
    # earlier, and both gaps it ends and begins move by as much.
    held = trace_with_hold(at=10.9, hold_s=1.2)
    found_early = _stalls(6.04, 10.75, 17.94)
    c = selftest._period_check(
        "case", "step", 6.0, device, found_early,
        {"period_s": 5.95, "period_regular": False}, held, 0.0,
    )  # fmt: skip
    assert c.ok, c
    assert "held fio up 1.20 s" in c.truth and "regularity not judged" in c.truth
    # Without that hold the same finding is wrong by 0.9 s.
    assert not check(5.06).ok


def test_irregular_device_stalls_must_be_found_irregular() -> None:
    quiet = trace_with_hold(at=19.0, hold_s=0.0)
    device = _stalls(2.0, 5.0, 11.0)  # gaps 3 and 6: spread 3 s, far past 20% of 4.5 s
    got = _stalls(2.0, 5.0, 11.0)

    def check(regular: bool) -> selftest.Check:
        found = {"period_s": 4.5, "period_regular": regular}
        return selftest._period_check("case", "step", 6.0, device, got, found, quiet, 0.0)

    assert check(False).ok and "irregular" in check(False).truth
    assert not check(True).ok
