from __future__ import annotations

import numpy as np
import pytest

from backend.analysis.consistency import dropoff_time, iops_stats


def cliff_series(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A consistency run: 2000 one-second samples stamped at the end of each second (t = 1..2000),
    80000 IOPS +-2% fresh out of the box up to t = 299, then GC-bound 2000..4000 IOPS from t = 300
    on (the first slow second is t = 300)."""
    rng = np.random.default_rng(seed)
    t = np.arange(1, 2001, dtype=float)
    iops = np.where(
        t < 300, 80000 * rng.uniform(0.98, 1.02, t.size), rng.uniform(2000, 4000, t.size)
    )
    return t, iops


def test_iops_stats_of_the_last_400_s_equal_numpys_figures() -> None:
    t, iops = cliff_series()
    stats = iops_stats(t, iops)
    window = iops[-400:]  # t = 1601..2000: the seconds that end inside the last 400 s
    assert stats["n"] == 400
    assert stats["window_start_s"] == 1600.0 and stats["window_end_s"] == 2000.0
    assert stats["mean"] == pytest.approx(np.mean(window), rel=1e-12)
    assert stats["stddev"] == pytest.approx(np.std(window), rel=1e-12)
    assert stats["min"] == window.min() and stats["max"] == window.max()
    assert stats["mean_over_stddev"] == pytest.approx(np.mean(window) / np.std(window))
    for p in (1, 5, 50, 95, 99):
        assert stats[f"p{p}"] == pytest.approx(np.percentile(window, p), rel=1e-12)
    # Nothing from the fresh-out-of-box part leaks into the window.
    assert stats["max"] < 4000


def test_the_window_has_last_s_samples_whether_stamps_are_ends_or_starts() -> None:
    y = np.arange(2000, dtype=float)
    ends = iops_stats(np.arange(1, 2001), y)
    starts = iops_stats(np.arange(0, 2000), y)
    assert ends["n"] == starts["n"] == 400
    assert ends["min"] == starts["min"] == 1600.0
    assert iops_stats(np.arange(1, 2001), y, last_s=100)["n"] == 100


def test_stamps_from_milliseconds_do_not_add_a_sample_at_the_window_start() -> None:
    t = np.arange(1, 2001, dtype=float)
    t[-1] -= 1e-9  # rounding noise of ms -> s: the last stamp a hair early,
    t[1599] += 1e-9  # the one at the window's start (t = 1600) a hair late
    assert iops_stats(t, np.ones(2000))["n"] == 400


def test_a_constant_window_has_no_mean_over_stddev_and_missing_samples_are_skipped() -> None:
    stats = iops_stats([1, 2, 3, 4], [5000, None, 5000, float("nan")], last_s=10)
    assert stats["n"] == 2
    assert stats["stddev"] == 0.0 and stats["mean_over_stddev"] is None
    empty = iops_stats([], [])
    assert empty["n"] == 0 and empty["mean"] is None and empty["p99"] is None


def test_dropoff_is_found_at_the_first_slow_second() -> None:
    t, iops = cliff_series()
    at = dropoff_time(t, iops)
    assert at is not None and abs(at - 300) <= 5.0  # within hold_s
    assert at == 300.0  # in fact exact: the first second below half the FOB level


def test_a_gc_hiccup_shorter_than_hold_s_is_not_the_dropoff() -> None:
    t, iops = cliff_series()
    iops[99:101] = 0.0  # t = 100 and 101 at 0 IOPS, then back to 80000
    assert dropoff_time(t, iops) == 300.0
    # With a longer hold the same drop is still found where it starts.
    assert dropoff_time(t, iops, hold_s=30) == 300.0


def test_a_flat_series_has_no_dropoff() -> None:
    rng = np.random.default_rng(5)
    t = np.arange(1, 2001, dtype=float)
    assert dropoff_time(t, np.full(t.size, 3000.0)) is None
    assert dropoff_time(t, 3000 * rng.uniform(0.6, 1.4, t.size)) is None  # noisy, never halved


def test_a_drop_in_the_last_seconds_cannot_fill_hold_s() -> None:
    t = np.arange(1, 101, dtype=float)
    iops = np.where(t <= 97, 1000.0, 10.0)  # 3 slow seconds at the end, hold_s 5
    assert dropoff_time(t, iops) is None
    iops = np.where(t <= 95, 1000.0, 10.0)  # 5 slow seconds: exactly one hold window
    assert dropoff_time(t, iops) == 96.0


def test_ratio_and_fob_window_are_honoured() -> None:
    t = np.arange(1, 201, dtype=float)
    iops = np.where(t < 100, 1000.0, 600.0)  # a 40% drop
    assert dropoff_time(t, iops) is None  # not below 50% of FOB
    assert dropoff_time(t, iops, ratio=0.7) == 100.0
    assert dropoff_time([], []) is None
