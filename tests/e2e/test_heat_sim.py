"""Whether heat explains a step-down, through the whole stack on simulated drives and a busy
CPU (backend.analysis.thermal, backend.results.heat), against the drives' own record:

- thermal-throttle (heats while it writes, throttles at 50 °C): the write pass's step-down
  where the throttle engaged is attributed "thermal" (a peak at the drop: the simulated drive
  reports no thresholds or counters), its onset within 1 s of the controller's engage event,
  plus the time the host held fio up there (worker.sim.truth.fio_held, as the self-test);
- slc-cache (no thermal model, so no sensor): its cache step-downs are heat "unknown", said;
- the same SLC cache with a sensor that stays cool: its step-downs are "not thermal".

Needs root, a block throttle and tmpfs, as tests/e2e/test_simulated_drives.py; skipped, saying
which is missing, without them. Three HD Tach runs of well under a minute each."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Stack, run_done
from tests.e2e.test_browser import VIEWPORT, browser, sign_in  # noqa: F401
from tests.e2e.test_simulated_drives import busy_cpu  # noqa: F401 - the spinning processes
from worker.sim import truth
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import PROFILES, Profile
from worker.sim.selftest import Case, job_window, register
from worker.sim.thermal import Thermal, throttle_spans

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

MiB = 2**20
ONSET_TOL_S = 1.0
HELD_AROUND_S = 2.0
# The SLC cache of profile slc-cache, with a sensor that stays cool: heats 0.005 °C per MB
# written (towards 38.6 °C at 24 MB/s), throttles only at 80 °C, which it never reaches.
COOL = dataclasses.replace(
    PROFILES["slc-cache"],
    name="slc-cache-cool",
    title="the SLC cache of slc-cache, with a temperature sensor that stays cool",
    thermal=Thermal(ambient_c=35, heat_c_per_mb=0.005, cooling_tau_s=30, throttle_c=80,
                    release_c=75, throttle_mbps=1),
)  # fmt: skip


def _hdtach_run(
    stack: Stack, workdir: Path, profile: str | Profile, size: int, name: str
) -> dict[str, Any]:
    label = profile if isinstance(profile, str) else profile.name
    case = Case(name, label, size, "hdtach", {})
    with SimDrive(profile, size, workdir, label=name) as sim, stack.client() as c:
        case.sim = sim
        drive = register(c, "local", case)
        done = run_done(c, drive, "hdtach", {}, timeout=240)
        step = next(s for s in done["steps"] if s["params"].get("role") == "hdtach-write")
        output = c.get(f"/api/runs/{done['id']}/steps/{step['id']}/output").text
        article = c.get("/api/compare/article", params={"drives": drive["id"]})
        samples = c.get(f"/api/runs/{done['id']}/samples", params={"step_id": step["id"]}).json()
        events = sim.events()
        trace = sim.trace()
    start, end = job_window(step, output)
    return {"run": done, "step": step, "events": events, "trace": trace, "start": start,
            "end": end, "article": article, "samples": samples}  # fmt: skip


@pytest.fixture(scope="module")
def runs(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, dict[str, Any]]:
    workdir = Path(tmp_path_factory.mktemp("heat"))
    out = {
        "thermal": _hdtach_run(stack, workdir, "thermal-throttle", 512 * MiB, "heat: thermal"),
        "cache": _hdtach_run(stack, workdir, "slc-cache", 192 * MiB, "heat: no sensor"),
        "cool": _hdtach_run(stack, workdir, COOL, 192 * MiB, "heat: cool"),
    }
    for name, r in out.items():
        engaged = [round(a - r["start"], 2) for a, _b in throttle_spans(r["events"])]
        print(f"{name}: throttle engaged at {engaged} s of the write pass")
        for sd in _step_downs(r):
            print(f"  step-down at {sd['at_pct']:.1f}% / {sd['at_s']:.2f} s: "
                  f"{sd['heat']['heat']} ({sd['heat']['words']})")  # fmt: skip
    return out


def _step_downs(run: dict[str, Any]) -> list[dict[str, Any]]:
    return ((run["step"].get("findings") or {}).get("hdtach") or {}).get("step_downs") or []


def test_a_thermal_step_down_is_thermal_at_the_drives_throttle(runs: dict) -> None:
    r = runs["thermal"]
    start, end = r["start"], r["end"]
    spans = [(a, b) for a, b in throttle_spans(r["events"]) if start < a < end]
    assert spans, f"the drive never throttled during the write pass: {r['events']}"
    engaged = spans[0][0]
    found = _step_downs(r)
    assert found, r["step"]["findings"]
    held = truth.fio_held(r["trace"], engaged - HELD_AROUND_S, engaged + HELD_AROUND_S)
    tol = ONSET_TOL_S + held
    near = [sd for sd in found if abs(start + sd["at_s"] - engaged) <= tol]
    assert near, (
        f"throttle engaged {engaged - start:.2f} s into the pass (room {tol:.2f} s, the host "
        f"held fio up {held:.2f} s); step-downs at {[round(sd['at_s'], 2) for sd in found]}"
    )
    heat = near[0]["heat"]
    # What the attribution had to go on, said when it fails (the run is gone afterwards): the
    # throttle's spans and the step's samples (s, MB/s, °C) around the step-down.
    seen = [
        (round(x["t"], 2), round(x["write_mbps"], 1), x["temp_c"])
        for x in r["samples"]
        if heat["at_s"] - 8 <= x["t"] <= heat["at_s"] + 14
    ]
    spans_s = [(round(a - start, 2), b and round(b - start, 2)) for a, b in spans]
    assert heat["heat"] == "thermal", (heat, near[0], spans_s, seen)
    assert heat["basis"] == "peak" and heat["threshold"] is None and heat["counters"] == []
    # The peak is the temperature the drive throttled at (50 °C), as its engage event says.
    first = next(e for e in r["events"] if e["kind"] == "thermal-throttle")
    assert abs(heat["peak_c"] - first["temp_c"]) <= 1.5, (heat, first)
    assert "the peak is the only evidence" in heat["words"]
    # The Report says it in words.
    assert r["article"].status_code == 200, r["article"].text
    assert "heat: throttled at" in r["article"].text


def test_cache_step_downs_without_a_sensor_are_unknown(runs: dict) -> None:
    found = _step_downs(runs["cache"])
    assert len(found) >= 2, runs["cache"]["step"]["findings"]
    for sd in found:
        assert sd["heat"]["heat"] == "unknown", sd
        assert sd["heat"]["words"] == "the drive reports no temperature"
    assert "heat unknown: the drive reports no temperature" in runs["cache"]["article"].text


def test_cache_step_downs_on_a_cool_drive_are_not_thermal(runs: dict) -> None:
    r = runs["cool"]
    found = _step_downs(r)
    assert len(found) >= 2, r["step"]["findings"]
    # The drive never throttled (its own record), and its sensor stayed cool.
    assert not throttle_spans(r["events"])
    for sd in found:
        assert sd["heat"]["heat"] == "not thermal", sd
        assert sd["heat"]["temp_c"] is not None and sd["heat"]["temp_c"] < 40, sd
    assert "not heat: " in r["article"].text


def test_the_run_page_and_the_report_say_it(
    browser: Any,  # noqa: F811
    stack: Stack,
    runs: dict,
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    try:
        sign_in(page, stack)
        for name, said in (("thermal", "heat: throttled at"), ("cache", "heat unknown: the "
                           "drive reports no temperature"), ("cool", "not heat: ")):  # fmt: skip
            r = runs[name]
            page.goto(f"/runs/{r['run']['id']}")
            chart = page.locator(".chart-frame", has_text=r["step"]["label"]).first
            expect(chart.get_by_test_id("chart-note")).to_contain_text(said)
            expect(chart.get_by_test_id("chart-note")).to_contain_text("↓ at ")
            # And the Report's findings in words.
            page.goto(f"/report?drives={r['run']['drive_id']}")
            expect(page.get_by_test_id("article-findings").first).to_contain_text(said)
    finally:
        context.close()
