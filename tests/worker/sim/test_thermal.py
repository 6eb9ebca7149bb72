"""The simulated drive's thermal model (worker.sim.thermal): heat from what is written,
cooling towards the ambient temperature, a throttle with hysteresis, the sensor file the
worker reads like hwmon's, and one driven from outside."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from worker.devices import identify
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import PROFILES, Limits, Profile
from worker.sim.thermal import (
    SensorWriter,
    Thermal,
    ThermalState,
    load_trace,
    read_sensor,
    temperatures_between,
    throttle_spans,
    write_sensor,
)
from worker.temperature import find_source

MODEL = PROFILES["thermal-throttle"].thermal
assert MODEL is not None


def _run(model: Thermal, seconds: float, mbps: float, tick: float = 0.005) -> ThermalState:
    state = ThermalState(model)
    t = 0.0
    while t < seconds:
        rate = min(mbps, model.throttle_mbps) if state.throttled else mbps
        state.step(t, int(rate * 1e6 * tick), 1000.0 + t)
        t += tick
    return state


def test_heating_follows_the_first_order_model() -> None:
    # Unthrottled (a high threshold): T(t) = T_inf + (T0 - T_inf) e^(-t / tau).
    model = Thermal(35, 0.06, 12, throttle_c=500, release_c=400, throttle_mbps=8)
    state = _run(model, 10.0, 40)
    t_inf = model.steady_c(40)
    assert t_inf == pytest.approx(63.8)
    assert state.temp_c == pytest.approx(t_inf + (35 - t_inf) * math.exp(-10 / 12), abs=0.05)
    # Idle, it cools back towards the ambient temperature.
    cooled = ThermalState(model, temp_c=60.0)
    cooled.step(0.0, 0, 0.0)
    cooled.step(12.0, 0, 12.0)
    assert cooled.temp_c == pytest.approx(35 + 25 * math.exp(-1), abs=0.01)


def test_the_throttle_engages_at_its_threshold_and_releases_below_the_lower_one() -> None:
    state = ThermalState(MODEL)
    events = []
    t = 0.0
    while t < 30:
        rate = 8e6 if state.throttled else 40e6
        events += state.step(t, int(rate * 0.005), 1000.0 + t)
        t += 0.005
    kinds = [(e["kind"], round(e["t"], 1)) for e in events]
    # 35 -> 50 °C at 40 MB/s: 12 ln(28.8 / 13.8) = 8.8 s; below 46 °C at 8 MB/s 6.8 s later;
    # back at 50 °C 3.1 s after that.
    assert kinds[:3] == [("thermal-throttle", 8.8), ("thermal-release", 15.6),
                         ("thermal-throttle", 18.7)]  # fmt: skip
    assert events[0]["temp_c"] == pytest.approx(50, abs=0.02) and events[0]["wall"] > 1000
    assert events[1]["temp_c"] == pytest.approx(46, abs=0.02)
    spans = throttle_spans(events)
    assert spans[0] == (pytest.approx(1008.8, abs=0.05), pytest.approx(1015.6, abs=0.05))


def test_the_model_refuses_a_release_above_its_threshold() -> None:
    with pytest.raises(ValueError, match="release_c"):
        Thermal(35, 0.1, 10, throttle_c=50, release_c=55, throttle_mbps=8)


def test_thermal_profiles_round_trip_and_describe_themselves() -> None:
    for name in ("thermal-throttle", "thermal-sensor"):
        p = PROFILES[name]
        assert Profile.from_dict(p.as_dict()) == p
        assert any("throttles to" in line for line in p.describe())


def test_the_sensor_writer_caps_the_limits_and_keeps_the_truth(tmp_path: Path) -> None:
    sensor, trace = tmp_path / "temp1_input", tmp_path / "x.thermal"
    model = Thermal(49, 1.0, 1000, throttle_c=50, release_c=46, throttle_mbps=8)
    w = SensorWriter(model, sensor, trace)
    assert read_sensor(sensor) == 49.0
    events: list[dict] = []
    free = Limits(40_000_000, None, 80_000_000)
    assert w.step(0.0, 100.0, 0, 0, free, events) == free
    # 2 MB in 0.1 s heats it 2 °C (cooling is slow): throttled, writes and reads capped.
    got = w.step(0.1, 100.1, 2_000_000, 2_000_000, free, events)
    assert got == Limits(8_000_000, None, 8_000_000)
    assert [e["kind"] for e in events] == ["thermal-throttle"]
    assert events[0]["written"] == 2_000_000
    assert read_sensor(sensor) == pytest.approx(51.0, abs=0.01)
    # A stall's limit stays the stall's.
    assert w.step(0.2, 100.2, 2_000_000, 0, Limits(1, None, None), events).write_bps == 1
    w.close()
    rows = load_trace(trace.read_text().splitlines())
    assert rows.shape[1] == 3 and rows[0, 1] == 49.0 and rows[-1, 2] == 1
    assert temperatures_between(rows, 100.05, 100.15)[1] == pytest.approx(51.0, abs=0.01)
    assert not sensor.exists()  # the controller's own sensor goes with the drive


MISSING = requirements()


@pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING))
def test_a_sensor_driven_from_outside_throttles_the_drive(tmp_path: Path) -> None:
    """thermal-sensor: a rig writes the sensor file; the drive throttles on it, and the worker
    reads it through the same reader as a real drive's hwmon sensor."""
    with SimDrive("thermal-sensor", 64 * 2**20, tmp_path) as sim:
        assert sim.state is not None and sim.state.sensor
        sensor = Path(sim.state.sensor)
        source = find_source(identify(sim.device))
        assert source is not None and source.kind == "hwmon" and source.path == str(sensor)
        assert source.read() == 40.0  # the profile's ambient, written at start
        write_sensor(sensor, 71_500)
        assert source.read() == 71.5
        deadline = time.monotonic() + 5
        while not any(e["kind"] == "thermal-throttle" for e in sim.events()):
            assert time.monotonic() < deadline, "the drive did not throttle at 71.5 °C"
            time.sleep(0.05)
        write_sensor(sensor, 60_000)
        while not any(e["kind"] == "thermal-release" for e in sim.events()):
            assert time.monotonic() < deadline, "the drive did not release at 60 °C"
            time.sleep(0.05)
        engaged = next(e for e in sim.events() if e["kind"] == "thermal-throttle")
        assert engaged["temp_c"] == 71.5 and engaged["mbps"] == 10
    assert not sensor.exists()  # created by the controller (no rig's file was there)
