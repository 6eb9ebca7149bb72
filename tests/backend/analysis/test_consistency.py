from __future__ import annotations

import numpy as np
import pytest

from backend.analysis.consistency import dropoff, iops_stats


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


def cliff_intervals(
    at_s: float,
    *,
    fob: float = 3000.0,
    steady: float = 800.0,
    jitter: float = 0.2,
    seed: int = 1,
    seconds: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """One-second intervals of a run whose IOPS fall from `fob` to `steady` at `at_s` (inside a
    second), each level redrawn every 0.2 s within +-jitter: the simulated drive's cliff."""
    rng = np.random.default_rng(seed)
    fine_t = np.arange(0, seconds, 0.2)
    level = np.where(fine_t + 0.2 <= at_s, fob, steady)
    straddle = (fine_t < at_s) & (fine_t + 0.2 > at_s)
    share = (at_s - fine_t) / 0.2
    level = np.where(straddle, share * fob + (1 - share) * steady, level)
    ios = level * 0.2 * rng.uniform(1 - jitter, 1 + jitter, level.size)
    return np.ones(seconds), ios.reshape(-1, 5).sum(axis=1)


@pytest.mark.parametrize("at_s", [13.65, 20.0, 31.3])
def test_the_dropoff_is_placed_within_the_second(at_s: float) -> None:
    dt, ios = cliff_intervals(at_s)
    found = dropoff(dt, ios)
    assert found["dropoff_s"] == pytest.approx(at_s, rel=0.05)
    assert found["fob_iops"] == pytest.approx(3000, rel=0.05)
    assert found["after_iops"] == pytest.approx(800, rel=0.05)
    assert len(found["levels"]) == 2


def test_a_gc_hiccup_is_not_the_dropoff() -> None:
    dt, ios = cliff_intervals(30.0)
    ios[10:12] = 0.0  # two seconds at 0 IOPS, then back
    assert dropoff(dt, ios)["dropoff_s"] == pytest.approx(30.0, rel=0.05)


def test_a_flat_or_noisy_series_has_no_dropoff() -> None:
    rng = np.random.default_rng(5)
    assert dropoff(np.ones(200), np.full(200, 3000.0))["dropoff_s"] is None
    assert dropoff(np.ones(200), 3000 * rng.uniform(0.6, 1.4, 200))["dropoff_s"] is None
    assert dropoff([], [])["dropoff_s"] is None


def test_a_drop_that_does_not_hold_is_not_a_level() -> None:
    dt = np.ones(100)
    ios = np.where(np.arange(100) < 97, 1000.0, 10.0)  # 3 slow seconds at the end: too short
    assert dropoff(dt, ios)["dropoff_s"] is None
    ios = np.where(np.arange(100) < 90, 1000.0, 10.0)  # 10 slow seconds
    assert dropoff(dt, ios)["dropoff_s"] == pytest.approx(90.0, abs=0.1)


def test_ratio_is_honoured() -> None:
    dt = np.ones(200)
    ios = np.where(np.arange(200) < 100, 1000.0, 600.0)  # a 40% drop
    assert dropoff(dt, ios)["dropoff_s"] is None  # not below 50% of FOB
    assert dropoff(dt, ios, ratio=0.7)["dropoff_s"] == pytest.approx(100.0, abs=0.1)
