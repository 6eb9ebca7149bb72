"""backend.analysis.thermal: whether heat explains a step-down, on series shaped as drives give
them (hwmon readings once a second with sensor noise and whole degrees, missing readings, NVMe
counters every 5 s)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from backend.analysis.thermal import attribute, counter_rises, heat_words

NVME = {"wctemp_c": 70.0, "cctemp_c": 80.0, "mntmt_c": None, "mxtmt_c": None, "hctma": False}


def _series(
    fn, seconds: int = 240, *, seed: int = 1, noise: float = 0.3, whole: bool = True
) -> tuple[list[float], list[float | None]]:
    """One reading a second (a little late, as a sampler thread is), noisy, in whole degrees
    as most drives report."""
    rng = np.random.default_rng(seed)
    t = [i + float(rng.uniform(0.0, 0.08)) for i in range(seconds)]
    temps: list[float | None] = []
    for x in t:
        v = fn(x) + float(rng.normal(0.0, noise))
        temps.append(float(round(v)) if whole else round(v, 2))
    return t, temps


def _heating(start: float, target: float, tau: float, t: float) -> float:
    return target + (start - target) * math.exp(-t / tau)


def _throttling_drive(at: float = 94.0) -> float:
    """Heats from 40 °C towards 95 °C while writing fast; a firmware throttle at 78 °C (t=at)
    cuts the speed and the drive cools towards 60 °C."""

    def fn(t: float) -> float:
        if t <= at:
            return 40.0 + (78.0 - 40.0) * (1 - math.exp(-t / 60.0)) / (1 - math.exp(-at / 60.0))
        return _heating(78.0, 60.0, 30.0, t - at)

    return fn  # type: ignore[return-value]


def _counters(rise_at: float | None, seconds: int = 240, name: str = "thm_temp1_trans_count"):
    t_ms = [round(i * 5000 + 37) for i in range(seconds // 5)]
    out: dict = {"t_ms": t_ms}
    for c in (
        "warning_temp_time",
        "critical_comp_time",
        "thm_temp1_trans_count",
        "thm_temp2_trans_count",
        "thm_temp1_total_time",
        "thm_temp2_total_time",
    ):
        base = 12 if c == "thm_temp1_trans_count" else 3
        out[c] = [
            base + (1 if c == name and rise_at is not None and t / 1000 >= rise_at else 0)
            for t in t_ms
        ]
    return out


def test_a_throttle_seen_by_the_counters_is_thermal_with_its_evidence() -> None:
    t, temps = _series(_throttling_drive(94.0))
    got = attribute(
        94.0, t, temps, {**NVME, "wctemp_c": 85.0}, _counters(94.5), from_rate=6800, to_rate=2100
    )
    assert got["heat"] == "thermal" and got["basis"] == "counters"
    assert got["counters"] == [
        {"name": "thm_temp1_trans_count", "by": 1, "words": "thermal management level 1 entered"}
    ]
    assert 76 <= got["temp_c"] <= 80
    assert got["words"].startswith(f"throttled at {got['temp_c']:.0f} °C after 94 s, from 6.8 GB/s")
    assert "2.1 GB/s" in got["words"]
    assert heat_words(got).startswith("heat: throttled at")


def test_a_temperature_at_wctemp_is_thermal_even_when_no_counter_rose() -> None:
    t, temps = _series(lambda x: min(71.0, 40 + x * 0.5))
    got = attribute(120.0, t, temps, NVME, _counters(None))
    assert got["heat"] == "thermal" and got["basis"] == "threshold"
    assert got["threshold"] == {"name": "WCTEMP", "c": 70.0}
    assert got["counters"] == [] and got["counters_read"]
    assert "WCTEMP 70 °C; no throttle counter rose" in got["words"]


def test_a_cache_step_down_on_a_cool_drive_is_not_thermal() -> None:
    # Writing at 6.8 GB/s warms the drive a little; the cache runs out at 30 s, it writes on
    # slower and keeps warming slowly.
    t, temps = _series(lambda x: _heating(38.0, 47.0, 80.0, x))
    got = attribute(30.0, t, temps, NVME, _counters(None), from_rate=6800, to_rate=2100)
    assert got["heat"] == "not thermal" and got["basis"] == "cool"
    assert got["nearest"] == {"name": "WCTEMP", "c": 70.0}
    assert got["words"] == (
        f"{got['temp_c']:.0f} °C, below WCTEMP 70 °C, no throttle counter rose (the SLC cache "
        "or garbage collection)"
    )
    assert heat_words(got).startswith("not heat: ")


def test_a_hot_drive_below_its_threshold_whose_counters_did_not_rise_is_not_thermal() -> None:
    # 62 °C is hot, but 13 °C below the drive's WCTEMP, and its counters stayed put.
    t, temps = _series(lambda x: _heating(50.0, 63.0, 40.0, x))
    got = attribute(150.0, t, temps, {**NVME, "wctemp_c": 75.0}, _counters(None))
    assert got["temp_c"] >= 60
    assert got["heat"] == "not thermal", got
    assert got["threshold"] is None and got["counters"] == []


def test_near_a_threshold_without_a_counter_or_a_peak_is_unknown() -> None:
    t, temps = _series(lambda x: 67.0)
    got = attribute(100.0, t, temps, NVME, _counters(None))
    assert got["heat"] == "unknown"
    assert "near WCTEMP 70 °C" in got["words"] and "cannot tell" in got["words"]


def test_without_thresholds_a_peak_at_the_drop_is_the_evidence_and_it_says_so() -> None:
    # A simulated drive (no Identify Controller, no counters): heats to 50 °C, throttles at
    # 8.8 s, cools while throttled; decidegrees from a sensor file, with missing readings.
    def fn(x: float) -> float:
        return _heating(35.0, 63.8, 12.0, x) if x <= 8.8 else _heating(50.0, 40.8, 12.0, x - 8.8)

    t, temps = _series(fn, 30, noise=0.05, whole=False)
    temps[5] = None
    temps[12] = None
    got = attribute(8.8, t, temps, None, None, until_s=15.5, from_rate=40, to_rate=8)
    assert got["heat"] == "thermal" and got["basis"] == "peak"
    assert 49 <= got["peak_c"] <= 51
    assert "the drive reports no thresholds: the peak is the only evidence" in got["words"]
    assert got["words"].startswith("throttled at 50 °C after 9 s, from 40 MB/s to 8 MB/s")


def test_without_thresholds_a_rise_that_goes_on_after_the_drop_is_no_peak() -> None:
    # Still heating after the drop (a cache step-down while the drive warms): no peak, and
    # at 46 °C and more without thresholds: cannot tell.
    t, temps = _series(lambda x: 35 + x * 0.2, 120, noise=0.05, whole=False)
    got = attribute(60.0, t, temps, None, None)
    assert got["peak_c"] is None
    assert got["heat"] == "unknown" and "cannot tell" in got["words"]


def test_a_cool_drive_without_thresholds_is_not_thermal() -> None:
    t, temps = _series(lambda x: _heating(35.0, 40.0, 30.0, x), 60)
    got = attribute(12.0, t, temps, {}, None)
    assert got["heat"] == "not thermal" and got["basis"] == "cool"
    assert "no throttle counters" in got["words"] and "no thresholds" in got["words"]


def test_no_sensor_is_unknown_and_said() -> None:
    t = [float(i) for i in range(60)]
    got = attribute(20.0, t, [None] * 60, NVME, None)
    assert got["heat"] == "unknown" and got["temp_c"] is None
    assert heat_words(got) == "heat unknown: the drive reports no temperature"


def test_no_reading_near_the_step_down_is_unknown() -> None:
    t, temps = _series(lambda x: 40.0, 60)
    for i in range(15, 35):
        temps[i] = None
    got = attribute(25.0, t, temps, NVME, None)
    assert got["heat"] == "unknown"
    assert got["words"] == "no temperature reading within 3 s of the step-down"


def test_counters_far_from_the_step_down_do_not_count() -> None:
    counters = _counters(150.0)
    read, rose = counter_rises(counters, 40.0)
    assert read and rose == []
    read, rose = counter_rises(counters, 148.0)
    assert [r["name"] for r in rose] == ["thm_temp1_trans_count"]
    assert counter_rises(None, 40.0) == (False, [])
    # A reading without the counter (None) is skipped, not a rise.
    counters["thm_temp2_total_time"][10] = None
    assert counter_rises(counters, 50.0)[1] == []


def test_series_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="one length"):
        attribute(1.0, [0.0, 1.0], [40.0], None, None)
