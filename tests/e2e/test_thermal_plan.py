"""The thermal plan (backend.plans.thermal) through the whole stack on a simulated drive that
heats up and throttles (profile thermal-throttle), on a busy CPU, against the drive's own
record: its controller's throttle events, its device counters and its sensor's trace.

Two cycles of a 25 s sequential write and a cool phase that ends once the drive is back within
2 °C of where the heat phase began (at most 45 s): about 100 s.

Needs root, a block throttle and tmpfs, as tests/e2e/test_simulated_drives.py; skipped, saying
which is missing, without them."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import Stack, run_done
from tests.e2e.test_browser import DRAWN_LINE, VIEWPORT, browser, read_down, shot, sign_in  # noqa: F401
from tests.e2e.test_compare_ui import download
from tests.e2e.test_simulated_drives import busy_cpu  # noqa: F401 - the spinning processes
from worker.sim import truth
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import PROFILES
from worker.sim.selftest import HELD_AROUND_S, LEVEL_TOL, Case, job_window, register
from worker.sim.thermal import temperatures_between, throttle_spans

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

MiB = 2**20
PROFILE = PROFILES["thermal-throttle"]
assert PROFILE.thermal is not None
PARAMS = {"span": "128m", "heat_s": 25, "cool_s": 45, "cool_within_c": 2, "cycles": 2}
# The first throttle is found within this of the engage event, plus what the host held fio up
# around it (worker.sim.held: the self-test's room).
THROTTLE_TOL_S = 1.0
TEMP_TOL_C = 1.0
# A cool sample's temperature is the worker's latest reading, once a second: up to a second
# older than the sample, and the step's clock starts a few tens of ms after the api's.
RECOVER_TOL_S = 1.5


def _wall(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


@pytest.fixture(scope="module")
def thermal_plan_run(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Any]:
    workdir = Path(tmp_path_factory.mktemp("thermal-plan"))
    case = Case("thermal plan", "thermal-throttle", 256 * MiB, "thermal", PARAMS)
    with SimDrive(case.profile, case.size, workdir, label=case.name) as sim, stack.client() as c:
        case.sim = sim
        drive = register(c, "local", case)
        done = run_done(c, drive, case.plan, case.params, timeout=300)
        outputs, samples = {}, {}
        for s in done["steps"]:
            samples[s["name"]] = c.get(
                f"/api/runs/{done['id']}/samples", params={"step_id": s["id"]}
            ).json()
            if s["kind"] == "fio":
                outputs[s["name"]] = c.get(f"/api/runs/{done['id']}/steps/{s['id']}/output").text
        series = c.get(
            "/api/compare/series", params={"drives": str(drive["id"]), "plan": "thermal"}
        ).json()
        events, thermal, trace = sim.events(), sim.thermal_trace(), sim.trace()
    steps = {s["name"]: s for s in done["steps"]}
    return {"run": done, "steps": steps, "outputs": outputs, "samples": samples,
            "events": events, "thermal": thermal, "trace": trace, "drive": drive,
            "series": series}  # fmt: skip


def test_the_plan_ran_heat_and_cool_phases_with_temperatures(thermal_plan_run: dict) -> None:
    steps = thermal_plan_run["steps"]
    assert list(steps) == ["heat-1", "cool-1", "heat-2", "cool-2"]
    for name in ("cool-1", "cool-2"):
        cool = thermal_plan_run["samples"][name]
        # The idle phase stores the temperature once a second, with nothing moved.
        assert len(cool) >= 5, cool
        assert all(s["temp_c"] is not None and s["write_mbps"] == 0 for s in cool), cool
        assert all(0.5 <= s["dt"] <= 2.5 for s in cool[:-1]), [s["dt"] for s in cool]
    for name in ("heat-1", "heat-2"):
        heat = thermal_plan_run["samples"][name]
        assert len(heat) >= 20 and all(s["temp_c"] is not None for s in heat)


def test_first_throttle_and_throttled_speed_against_the_drive(thermal_plan_run: dict) -> None:
    thermal, trace = thermal_plan_run["thermal"], thermal_plan_run["trace"]
    for name in ("heat-1", "heat-2"):
        step = thermal_plan_run["steps"][name]
        start, end = job_window(step, thermal_plan_run["outputs"][name])
        spans = [(a, b) for a, b in throttle_spans(thermal_plan_run["events"]) if start < a < end]
        assert spans, f"{name}: the drive never throttled: {thermal_plan_run['events']}"
        engaged, released = spans[0]
        f = step["findings"]["thermal"]
        first = f["first_throttle"]
        assert first is not None, f
        held = truth.fio_held(trace, engaged - HELD_AROUND_S, engaged + HELD_AROUND_S)
        truth_s = engaged - start
        print(f"{name}: first throttle found {first['at_s']:.2f} s, drive {truth_s:.2f} s, "
              f"held {held:.2f} s; {first['temp_c']} °C")  # fmt: skip
        assert abs(first["at_s"] - truth_s) <= THROTTLE_TOL_S + held, (
            f"{name}: first throttle found at {first['at_s']:.2f} s, the drive's at "
            f"{truth_s:.2f} s (host held fio {held:.2f} s)"
        )
        # The temperature then: what the sensor had around that second.
        lo, hi = temperatures_between(
            thermal, start + first["at_s"] - 1.3, start + first["at_s"] + 0.3
        )
        assert lo - TEMP_TOL_C <= first["temp_c"] <= hi + TEMP_TOL_C, (first, lo, hi)
        # The throttled speed: the device's own rate while the throttle held.
        w1 = min(released or end, end) - 0.5
        device = truth.device_rate(trace, 1, engaged + 0.5, w1) / 1e6
        print(f"{name}: throttled {f['throttled_mbps']:.2f} MB/s, device {device:.2f} MB/s")
        assert f["throttled_mbps"] == pytest.approx(device, rel=LEVEL_TOL), (f, device)
        peak_lo, peak_hi = temperatures_between(thermal, start, end)
        assert peak_hi - TEMP_TOL_C <= f["peak_c"] <= peak_hi + 0.05, (f["peak_c"], peak_hi)
        # The heat phase began where the sensor was.
        lo, hi = temperatures_between(thermal, start - 1.0, start + 0.5)
        assert lo - TEMP_TOL_C <= f["start_c"] <= hi + TEMP_TOL_C
        # A simulated drive has no WCTEMP: said, not guessed.
        assert f["above_wctemp_s"] is None and "WCTEMP" in f["above_wctemp_note"]
        at = [sd["at_s"] for sd in f["step_downs"]]
        assert at == sorted(at) and at[0] == first["at_s"]
        # The drive's throttle engaged there: heat explains it (the temperature peaked at the
        # drop; a simulated drive reports no thresholds or counters, and the words say so).
        assert first["heat"]["heat"] == "thermal", first["heat"]
        assert first["heat"]["basis"] == "peak", first["heat"]
        results = {r["metric"]: r["value"] for r in step["results"]}
        assert results["thermal_first_throttle_s"] == first["at_s"]
        assert results["thermal_throttled_mbps"] == f["throttled_mbps"]


def test_time_to_recover_against_the_model(thermal_plan_run: dict) -> None:
    thermal = thermal_plan_run["thermal"]
    for name in ("cool-1", "cool-2"):
        step = thermal_plan_run["steps"][name]
        f = step["findings"]["thermal"]
        assert f["recovered"] and f["stop"] == "temperature", f
        target = f["target_c"]
        assert target == pytest.approx(f["phase_start_c"] + 2.0)
        began = _wall(step["started_at"])
        later = thermal[thermal[:, 0] >= began]
        below = np.flatnonzero(later[:, 1] <= target)
        assert below.size, f"{name}: the sensor never read {target} °C"
        truth_s = float(later[below[0], 0]) - began
        print(f"{name}: back at {target} °C after {f['recover_s']:.2f} s, model {truth_s:.2f} s")
        assert abs(f["recover_s"] - truth_s) <= RECOVER_TOL_S, (f["recover_s"], truth_s)
        results = {r["metric"]: r["value"] for r in step["results"]}
        assert results["thermal_recover_s"] == f["recover_s"]
        # The phase ended once the drive was back: no longer than its maximum.
        assert json.dumps(step["params"]["seconds"]) == "45"
        assert thermal_plan_run["samples"][name][-1]["t"] < 45


def test_compare_series_is_the_whole_run_on_one_time_line(thermal_plan_run: dict) -> None:
    from backend.results.schemas import CompareSeries

    CompareSeries.model_validate(thermal_plan_run["series"])  # the api's model describes it
    (drive,) = thermal_plan_run["series"]["drives"]
    lines = {s["role"]: s for s in drive["series"]}
    assert set(lines) == {"thermal-mbps", "thermal-temp"}
    mbps, temp = lines["thermal-mbps"], lines["thermal-temp"]
    assert (mbps["unit"], temp["unit"], mbps["x"]) == ("MB/s", "°C", "t_s")
    steps = thermal_plan_run["steps"]
    origin = _wall(steps["heat-1"]["started_at"])
    heat2 = _wall(steps["heat-2"]["started_at"]) - origin
    # Every sample of every phase, placed at its phase's start: the second heat phase's first
    # sample is at its start plus its own t.
    first2 = thermal_plan_run["samples"]["heat-2"][0]
    assert any(abs(x - (heat2 + first2["t"])) < 1e-6 for x, _y in mbps["points"])
    n = sum(len(v) for v in thermal_plan_run["samples"].values())
    assert n - 4 <= mbps["total_points"] <= n and temp["total_points"] == n
    cool1 = [y for x, y in mbps["points"]
             if _wall(steps["cool-1"]["started_at"]) - origin < x < heat2]  # fmt: skip
    assert cool1 and all(y == 0 for y in cool1)
    peak = max(y for _x, y in temp["points"])
    assert peak == max(steps[h]["findings"]["thermal"]["peak_c"] for h in ("heat-1", "heat-2"))


def test_run_page_and_compare_draw_the_thermal_chart(
    browser: Any,  # noqa: F811
    stack: Stack,
    thermal_plan_run: dict,
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{thermal_plan_run['run']['id']}")
        figure = page.locator('[data-chart="thermal-run"]')
        expect(figure).to_be_visible()
        expect(figure.locator(".recharts-yAxis")).to_have_count(2)
        expect(figure.locator("svg text", has_text=re.compile("^°C$"))).to_have_count(1)
        line = figure.locator('path.recharts-line-curve[stroke-dasharray="5 3"]')
        expect(line).to_have_count(1)
        expect(line).to_have_attribute("d", DRAWN_LINE)
        # The four phases shaded and labelled.
        for label in ("heat 1", "cool 1", "heat 2", "cool 2"):
            expect(figure.locator("svg text", has_text=re.compile(f"^{label}$"))).to_have_count(1)
        table = page.get_by_role("table", name="Thermal findings")
        expect(table.locator("tbody tr")).to_have_count(4)
        first = thermal_plan_run["steps"]["heat-1"]["findings"]["thermal"]["first_throttle"]
        expect(table).to_contain_text(f"{first['at_s']:.1f} s")
        recover = thermal_plan_run["steps"]["cool-1"]["findings"]["thermal"]["recover_s"]
        expect(table).to_contain_text(f"{recover:.1f} s to")
        figure.scroll_into_view_if_needed()
        figure.screenshot(path=str(shot(page, "thermal-run").with_name("thermal-run-chart.png")))
        name, data = download(page, figure.get_by_role("button", name="CSV"))
        assert name == f"run-{thermal_plan_run['run']['id']}-thermal.csv"
        rows = [r for r in csv.reader(io.StringIO(data.decode())) if r and not r[0].startswith("#")]
        assert rows[0] == ["t_s", "write_mbps (MB/s)", "temp_c (°C)", "phase"]
        assert {r[3] for r in rows[1:]} == {"heat 1", "cool 1", "heat 2", "cool 2"}

        drive = thermal_plan_run["drive"]["id"]
        page.goto(f"/compare?drives={drive}")
        read_down(page)
        chart = page.locator('[data-chart="thermal"]')
        expect(chart).to_be_visible(timeout=20_000)
        expect(chart.locator(".recharts-yAxis")).to_have_count(2)
        expect(chart.locator("path.recharts-line-curve")).to_have_count(2)
        dashed = chart.locator('path.recharts-line-curve[stroke-dasharray="5 3"]')
        expect(dashed).to_have_attribute("d", DRAWN_LINE)
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(shot(page, "thermal-compare").with_name("thermal-compare.png")))
        for kind in ("SVG", "PNG", "CSV"):
            name, data = download(page, chart.get_by_role("button", name=kind))
            assert name == f"compare-thermal.{kind.lower()}" and data, name
        # The Report: each heat phase in words, its first throttle where the findings have it.
        with stack.client() as c:
            article = c.get("/api/compare/article", params={"drives": drive}).json()
        words = [f["text"] for d in article["findings"] for f in d["findings"]
                 if f["topic"] == "thermal"]  # fmt: skip
        assert len(words) == 2, words
        def secs(x: float) -> str:  # the Report's rule: ms under a second
            return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.1f} s"

        assert words[0].startswith(f"Sustained writes throttle after {secs(first['at_s'])}"), words
        assert f"in {secs(recover)}." in words[0], words
        page.goto(f"/report?drives={drive}")
        expect(page.locator('li[data-topic="thermal"]')).to_have_text(words)
        shot(page, "thermal-report")
        assert not errors, errors
    finally:
        context.close()


def test_a_heat_phase_ends_at_until_c(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """until_c: the worker stops fio once the drive reads the temperature; the phase is done
    (not cancelled), fio's final JSON kept, and it ended when the sensor got there."""
    workdir = Path(tmp_path_factory.mktemp("thermal-until"))
    params = {"span": "64m", "heat_s": 60, "until_c": 45, "cool_s": 3, "cycles": 1}
    case = Case("thermal until", "thermal-throttle", 128 * MiB, "thermal", params)
    with SimDrive(case.profile, case.size, workdir, label=case.name) as sim, stack.client() as c:
        case.sim = sim
        drive = register(c, "local", case)
        done = run_done(c, drive, case.plan, params, timeout=180)
        heat = next(s for s in done["steps"] if s["name"] == "heat-1")
        output = c.get(f"/api/runs/{done['id']}/steps/{heat['id']}/output").text
        logs = c.get(f"/api/runs/{done['id']}/steps/{heat['id']}/logs").json()
        thermal = sim.thermal_trace()
    start, end = job_window(heat, output)
    phase = logs["thermal_phase"]
    assert phase["stop"] == "temperature" and phase["stopped_at_c"] >= 45, phase
    # 35 -> 45 °C at 40 MB/s takes 5.1 s (profile): far from the 60 s it may last.
    assert end - start < 20, end - start
    lo, hi = temperatures_between(thermal, end - 1.5, end)
    assert hi >= 45 - TEMP_TOL_C, (lo, hi)
    f = heat["findings"]["thermal"]
    assert f["stop"] == "temperature" and f["peak_c"] >= 44
    assert json.loads(output)["jobs"][0]["write"]["io_bytes"] > 0
