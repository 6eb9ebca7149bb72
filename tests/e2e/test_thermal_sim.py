"""A simulated drive that heats up and throttles (profile thermal-throttle, worker.sim.thermal),
through the whole stack on a busy CPU: every second's sample carries the temperature the
drive's sensor had in that second (within 1 °C), read by the worker through the same reader as
a real drive's hwmon sensor, and the throughput drops where the drive's own record (its
controller's events: the known answer) says the throttle engaged.

Needs root, a block throttle and tmpfs, as tests/e2e/test_simulated_drives.py; skipped, saying
which is missing, without them. One run of about 45 s."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Stack, run_done
from tests.e2e.test_browser import DRAWN_LINE, VIEWPORT, browser, sign_in  # noqa: F401
from tests.e2e.test_simulated_drives import busy_cpu  # noqa: F401 - the spinning processes
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import PROFILES
from worker.sim.selftest import Case, job_window, register
from worker.sim.thermal import temperatures_between, throttle_spans

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

MiB = 2**20
PROFILE = PROFILES["thermal-throttle"]
assert PROFILE.thermal is not None
WRITE_MBPS = PROFILE.write_levels[0].mbps
THROTTLED_MBPS = PROFILE.thermal.throttle_mbps
TEMP_TOL_C = 1.0
# A sample's temperature is a reading of its second: taken up to a second before fio printed
# the sample (the worker's sampler reads once a second), with fio's clock and the wall clock
# apart by a few tens of ms.
EDGE_S = 0.3


@pytest.fixture(scope="module")
def thermal_run(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    workdir = Path(tmp_path_factory.mktemp("thermal"))
    case = Case("thermal throttle", "thermal-throttle", 256 * MiB, "write-hitching",
                {"runtime_s": 20})  # fmt: skip
    with SimDrive(case.profile, case.size, workdir, label=case.name) as sim, stack.client() as c:
        case.sim = sim
        drive = register(c, "local", case)
        done = run_done(c, drive, case.plan, case.params, timeout=120)
        step = next(s for s in done["steps"] if s["params"].get("role") == "hitch-seq")
        output = c.get(f"/api/runs/{done['id']}/steps/{step['id']}/output").text
        samples = c.get(f"/api/runs/{done['id']}/samples", params={"step_id": step["id"]}).json()
        series = c.get(
            f"/api/runs/{done['id']}/series",
            params={"step_id": step["id"], "metric": "temp_c", "full": True},
        ).json()
        csv = c.get(
            f"/api/runs/{done['id']}/series",
            params={"step_id": step["id"], "metric": "temp_c", "format": "csv"},
        ).text
        environment = done["environment"]
        logs = c.get(f"/api/runs/{done['id']}/steps/{step['id']}/logs").json()
        events = sim.events()
        trace = sim.thermal_trace()
        sensor = sim.state.sensor if sim.state else ""
    start, end = job_window(step, output)
    return {
        "run": done, "step": step, "samples": samples, "series": series, "csv": csv,
        "events": events, "trace": trace, "start": start, "end": end,
        "environment": environment, "sensor": sensor, "logs": logs,
    }  # fmt: skip


def test_every_sample_carries_the_temperature_the_sensor_had(thermal_run: dict) -> None:
    samples, trace, start = thermal_run["samples"], thermal_run["trace"], thermal_run["start"]
    assert len(samples) >= 18
    off = []
    for s in samples:
        assert s["temp_c"] is not None, s
        lo, hi = temperatures_between(
            trace, start + s["t"] - s["dt"] - EDGE_S, start + s["t"] + EDGE_S
        )
        if not lo - TEMP_TOL_C <= s["temp_c"] <= hi + TEMP_TOL_C:
            off.append(f"t={s['t']:.2f} s: {s['temp_c']} °C, the sensor had {lo:.2f}-{hi:.2f}")
    assert not off, off
    temps = [s["temp_c"] for s in samples]
    # The drive heated from its ambient 35 °C to its throttle point and more.
    assert min(temps) < 40 and max(temps) >= PROFILE.thermal.throttle_c - TEMP_TOL_C


def test_the_throughput_drops_where_the_drive_throttled(thermal_run: dict) -> None:
    start, end = thermal_run["start"], thermal_run["end"]
    spans = [(a, b) for a, b in throttle_spans(thermal_run["events"]) if start < a < end]
    assert spans, f"the drive never throttled during the write: {thermal_run['events']}"
    engaged, released = spans[0]
    released = min(released or end, end)
    # 8.8 s into a write from 35 °C (profile), later by the time fio took to start writing.
    assert 7.0 < engaged - start < 13.0, engaged - start
    samples = thermal_run["samples"]

    def window(s: dict) -> tuple[float, float]:
        return start + s["t"] - s["dt"], start + s["t"]

    before = [s["write_mbps"] for s in samples if s["t"] > 2.0 and window(s)[1] < engaged]
    during = [s["write_mbps"] for s in samples
              if window(s)[0] > engaged + 0.5 and window(s)[1] < released]  # fmt: skip
    assert before and during, (before, during)
    assert min(before) > 0.8 * WRITE_MBPS, before
    assert max(during) < 1.3 * THROTTLED_MBPS, during
    # The first slow second is the one the throttle engaged in (or the next: fio's clock).
    first_slow = next(s for s in samples if s["write_mbps"] < (WRITE_MBPS + THROTTLED_MBPS) / 2)
    assert engaged - 0.5 <= start + first_slow["t"] <= engaged + 2.0 + EDGE_S, (
        start + first_slow["t"] - engaged
    )
    # The engage event carries its temperature: the threshold, or a little past it where the
    # busy host woke the controller's 5 ms tick late (1.2 °C/s there: 0.1 °C per 80 ms).
    first = next(e for e in thermal_run["events"] if e["kind"] == "thermal-throttle")
    assert PROFILE.thermal.throttle_c <= first["temp_c"] < PROFILE.thermal.throttle_c + 0.5


def test_the_series_csv_and_environment_say_where_the_temperature_comes_from(
    thermal_run: dict,
) -> None:
    series, samples = thermal_run["series"], thermal_run["samples"]
    assert series["metric"] == "temp_c" and series["unit"] == "°C"
    by_t = {round(s["t"], 3): s["temp_c"] for s in samples}
    assert series["points"] and all(by_t[round(t, 3)] == v for t, v in series["points"])
    assert thermal_run["csv"].splitlines()[0] == "t_s,temp_c"
    thermal = thermal_run["environment"]["drive"]["thermal"]
    assert thermal["source"]["kind"] == "hwmon"
    assert thermal["source"]["path"] == thermal_run["sensor"]
    log = thermal_run["logs"]["thermal"]
    assert log["source"]["path"] == thermal_run["sensor"] and log["failed_readings"] == 0
    assert log["readings"] >= len(thermal_run["samples"]) - 1
    assert "counters" not in log  # NVMe's SMART counters: a simulated drive has none


def test_the_run_page_draws_the_temperature_on_a_right_axis(
    browser: Any,  # noqa: F811
    stack: Stack,
    thermal_run: dict,
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{thermal_run['run']['id']}?step={thermal_run['step']['id']}")
        throughput = page.locator(".run-chart .chart-frame").first
        expect(throughput.locator(".chart-frame__subtitle")).to_contain_text(
            "drive temperature, °C (right axis, dashed)"
        )
        expect(throughput.locator(".recharts-yAxis")).to_have_count(2)
        expect(throughput.locator("svg text", has_text=re.compile("^°C$"))).to_have_count(1)
        # Its ticks are the temperatures seen (35 °C at the start to the 50 °C throttle point).
        # (Recharts draws tick labels in a layer of their own: the right axis's are those at
        # the chart's right edge.)
        texts = throughput.evaluate(
            """(fig) => {
                const svg = fig.querySelector("svg.recharts-surface");
                const right = svg.getBoundingClientRect().right;
                return [...svg.querySelectorAll("text.recharts-cartesian-axis-tick-value")]
                    .filter((t) => right - t.getBoundingClientRect().right < 60)
                    .map((t) => t.textContent || "");
            }"""
        )
        values = [float(v) for v in texts if v.strip()]
        assert values and min(values) <= 35 and max(values) >= 50, values
        line = throughput.locator('path.recharts-line-curve[stroke-dasharray="5 3"]')
        expect(line).to_have_count(1)
        expect(line).to_have_attribute("d", DRAWN_LINE)
    finally:
        context.close()
