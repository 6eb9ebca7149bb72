"""The thermal plan's findings on series with known answers (backend.results.thermal)."""

from __future__ import annotations

import math

import pytest

from backend.results.names import is_performance, lower_is_better, names
from backend.results.thermal import cool_findings, heat_findings

MB = 1_000_000


def saw_tooth(
    changes: list[tuple[float, float]], end_s: float, dt_s: float = 1.0
) -> tuple[list[float], list[float], list[float]]:
    """(t_ms, dt_ms, bytes) of 1 s intervals of a rate that is `mbps` from each `at_s` on
    (changes: [(at_s, mbps)], the first at 0): the bytes of an interval are exact."""

    def moved(a: float, b: float) -> float:
        total = 0.0
        for i, (at, mbps) in enumerate(changes):
            nxt = changes[i + 1][0] if i + 1 < len(changes) else math.inf
            lo, hi = max(a, at), min(b, nxt)
            if hi > lo:
                total += (hi - lo) * mbps * MB
        return total

    n = round(end_s / dt_s)
    t = [(i + 1) * dt_s for i in range(n)]
    return [x * 1000 for x in t], [dt_s * 1000] * n, [moved(x - dt_s, x) for x in t]


def test_first_throttle_its_time_temperature_and_speed() -> None:
    # 40 MB/s, throttled to 8 MB/s at 9.4 s, released at 16.2 s, throttled again at 19.6 s.
    t_ms, dt_ms, nbytes = saw_tooth([(0, 40), (9.4, 8), (16.2, 40), (19.6, 8)], 30)
    temps = [35 + 1.5 * t / 1000 for t in t_ms]  # 36.5 °C after 1 s ... 50 °C at 10 s
    f = heat_findings(t_ms, dt_ms, nbytes, temps, wctemp_c=45.0)
    first = f["first_throttle"]
    assert first["at_s"] == pytest.approx(9.4, abs=0.1)
    assert first["from_mbps"] == pytest.approx(40, rel=0.02)
    assert first["to_mbps"] == pytest.approx(8, rel=0.02)
    assert f["throttled_mbps"] == first["to_mbps"]
    assert first["temp_c"] == 50.0  # the sample of the interval 9-10 s
    assert len(f["step_downs"]) == 2
    assert f["step_downs"][1]["at_s"] == pytest.approx(19.6, abs=0.1)
    assert f["peak_c"] == 80.0 and f["start_c"] == 36.5
    # At or above 45 °C from the sample ending at 7 s (45.5 °C) on: 24 of the 30 seconds.
    assert f["above_wctemp_s"] == pytest.approx(24.0)
    assert f["above_wctemp_note"] is None
    assert f["mean_mbps"] == pytest.approx(sum(nbytes) / MB / 30)
    assert [round(lv["mbps"]) for lv in f["levels"]] == [40, 8, 40, 8]


def test_a_steady_phase_has_no_throttle_and_unknown_wctemp_is_said() -> None:
    t_ms, dt_ms, nbytes = saw_tooth([(0, 40)], 20)
    f = heat_findings(t_ms, dt_ms, nbytes, [40.0] * 20, wctemp_c=None)
    assert f["first_throttle"] is None and f["step_downs"] == [] and f["throttled_mbps"] is None
    assert f["above_wctemp_s"] is None and "no WCTEMP" in f["above_wctemp_note"]
    f = heat_findings(t_ms, dt_ms, nbytes, [None] * 20, wctemp_c=70.0)
    assert f["peak_c"] is None and f["above_wctemp_s"] is None
    assert "no temperature sensor" in f["above_wctemp_note"]


def test_a_throttle_step_down_without_a_sensor_has_no_temperature() -> None:
    t_ms, dt_ms, nbytes = saw_tooth([(0, 100), (12.5, 30)], 25)
    f = heat_findings(t_ms, dt_ms, nbytes, [None] * 25, wctemp_c=None, direction="read")
    assert f["first_throttle"]["at_s"] == pytest.approx(12.5, abs=0.1)
    assert f["first_throttle"]["temp_c"] is None and f["direction"] == "read"


def test_time_to_recover_is_where_the_cooling_crosses_the_target() -> None:
    # Newton cooling from 50 °C towards 35 °C, time constant 12 s: within 2 °C of 35 °C after
    # 12 ln(15 / 2) = 24.18 s.
    t_ms = [1000 * (i + 1) for i in range(40)]
    exact = [35 + 15 * math.exp(-t / 1000 / 12) for t in t_ms]
    truth = 12 * math.log(15 / 2)
    f = cool_findings(t_ms, exact, phase_start_c=35.0, within_c=2.0)
    assert f["recover_s"] == pytest.approx(truth, abs=0.02)
    # Samples store tenths of a degree: 0.05 °C at 0.17 °C/s there is 0.3 s.
    temps = [round(c, 1) for c in exact]
    f = cool_findings(t_ms, temps, phase_start_c=35.0, within_c=2.0)
    assert f["recover_s"] == pytest.approx(truth, abs=0.3)
    assert f["recovered"] and f["target_c"] == 37.0
    assert f["start_c"] == temps[0] and f["end_c"] == temps[-1] and f["min_c"] == temps[-1]


def test_a_drive_that_never_cools_enough_or_has_no_start_has_no_recovery() -> None:
    t_ms = [1000 * (i + 1) for i in range(10)]
    hot = [60.0 - 0.1 * i for i in range(10)]
    f = cool_findings(t_ms, hot, phase_start_c=35.0, within_c=2.0)
    assert f["recover_s"] is None and f["recovered"] is False
    f = cool_findings(t_ms, hot, phase_start_c=None, within_c=2.0)
    assert f["recover_s"] is None and f["target_c"] is None
    f = cool_findings(t_ms, [36.0] * 10, phase_start_c=35.0, within_c=2.0)
    assert f["recover_s"] == 0.0  # already there at the first reading


def test_names_and_which_way_is_better() -> None:
    assert names("thermal:heat-1:thermal_first_throttle_s")["title"] == (
        "heat phase 1: time to the first throttle"
    )
    assert names("thermal:cool-2:thermal_recover_s")["test"] == "cool phase 2"
    assert not lower_is_better("thermal:heat-1:thermal_first_throttle_s", "s")
    assert lower_is_better("thermal:heat-1:thermal_peak_c", "°C")
    assert lower_is_better("thermal:cool-1:thermal_recover_s", "s")
    assert not lower_is_better("thermal:heat-1:thermal_throttled_mbps", "MB/s")
    assert not is_performance("thermal:heat-1:thermal_first_throttle_c")
