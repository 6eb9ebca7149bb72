"""The CrystalDiskMark-style preset through the whole stack on a simulated drive whose speeds
are known (a flat profile: writes held to 30 MB/s, reads to 50 MB/s by the kernel's block
throttle): every test's figure is the best of its passes, each pass fio's own totals; the deep
queues (SEQ1M Q8T1, RND4K Q32T16) run at the drive's speeds, and every figure is what the
drive's own counters moved in that pass (a QD1 test is held by each I/O's round trip through
the loop device, under the limit). Reads run before writes, in the order readers know."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from backend.analysis.fio_results import direction_summary
from tests.conftest import Stack
from tests.e2e.test_browser import VIEWPORT, browser, read_down, shot, sign_in  # noqa: F401 - the fixture
from tests.e2e.test_plans import results, run_plan
from worker.sim import truth
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import Level, Profile
from worker.sim.selftest import Case, device_burst, job_window, register

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]
MiB = 2**20
WRITE_MBPS, READ_MBPS = 30.0, 50.0
FLAT = Profile(
    "flat", "30 MB/s writes, 50 MB/s reads", (Level(100, WRITE_MBPS),), read_mbps=READ_MBPS
)
# The block throttle lets a little more through than its limit (its allowance carries over
# between slices, and a pass of 2 s is short): the simulated drive's MB/s are 0-6% above it.
RATE_TOL = 0.08
# The bytes fio counted in a pass against what the drive's counters moved from just before the
# pass to just after it (fio starts its next pass later than this): the I/Os still in flight
# when fio's clock stops (up to 16 x 32 x 4 KiB) are on the drive's side only.
DEVICE_TOL = 0.03
MARGIN_S = 0.2
DEEP = ("seq1m-q8t1", "rnd4k-q32t16")
PARAMS = {"span": "32m", "passes": 2, "measure_s": 2, "interval_s": 1}
ORDER = ["seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t16", "rnd4k-q1t1"]


@pytest.fixture(scope="module")
def done(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """The finished run, its steps by name with fio's output, and the drive's trace."""
    case = Case("cdm-style", "flat", 256 * MiB, "cdm-style", PARAMS)
    with SimDrive(FLAT, case.size, Path(tmp_path_factory.mktemp("cdm")), label="cdm") as sim:
        case.sim = sim
        with stack.client() as c:
            drive = register(c, "local", case)
            run = run_plan(c, drive, "cdm-style", PARAMS, timeout=400)
            steps = {s["name"]: s for s in run["steps"]}
            for step in steps.values():
                if step["kind"] == "fio":
                    r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/output")
                    assert r.status_code == 200, r.text
                    step["output"] = r.text
    yield {"run": run, "steps": steps, "trace": sim.trace()}


def moved_window(
    run_steps: list[dict], step: dict, direction: str, trace: np.ndarray
) -> tuple[float, float]:
    """The span (s) over which the drive's own counters are read for the fio job of `step`
    (job_moved_range), from MARGIN_S before its window to MARGIN_S after it.

    The window's start is fio's print less the job's runtime: a print the host held up, or
    threads started late on a busy host (16 or 64 of them), put it after the job's first I/O.
    So it begins where the device's own movement that overlaps the window began, if earlier
    (device_burst), but never before the run's previous fio job printed its end (its I/O had
    ended by then: consecutive passes may be too close for the device to stand still
    between them), nor more than the job's runtime before the window."""
    start, end = job_window(step, step["output"])
    column = 3 if direction == "read" else 1
    lower = start - MARGIN_S
    burst = device_burst(trace, column, start, end)
    if burst is not None and burst[0] < lower:
        before = [
            s
            for s in run_steps
            if s["idx"] < step["idx"] and s.get("output") and s["kind"] == "fio"
        ]
        floor = job_window(before[-1], before[-1]["output"])[1] if before else burst[0]
        lower = max(burst[0], floor, start - MARGIN_S - (end - start))
    return lower, end + MARGIN_S


def job_moved_range(
    run_steps: list[dict], step: dict, direction: str, trace: np.ndarray
) -> tuple[float, float]:
    """Bytes the drive's own counters moved in `direction` (read or write) over the job's
    moved_window, as the range their readings allow: the counter at a moment lies between the
    last reading before it and the first after it (readings are 5 ms apart, more where the
    host held the reader up, and a straight line across such a gap can put some of a job's
    writes outside its window: the likeliest reading of a CI run where the device's count of
    a 64-thread job came out 3% below fio's on a host held up by other work). Exact where
    readings are dense."""
    lower, upper = moved_window(run_steps, step, direction, trace)
    t, y = trace[:, 0], trace[:, 3 if direction == "read" else 1]

    return readings_range(t, y, lower, upper)


def readings_range(t: np.ndarray, y: np.ndarray, lower: float, upper: float) -> tuple[float, float]:
    """How much a counter read at times `t` (values `y`, never falling) moved from `lower` to
    `upper`: at least from the first reading after `lower` to the last before `upper`, at most
    from the last reading before `lower` to the first after `upper`."""

    def before(x: float) -> float:
        return float(y[max(0, int(np.searchsorted(t, x, side="right")) - 1)])

    def after(x: float) -> float:
        return float(y[min(len(t) - 1, int(np.searchsorted(t, x, side="left")))])

    return before(upper) - after(lower), after(upper) - before(lower)


def within_moved(fio: float, moved: tuple[float, float], tol: float, slack: float = 0.0) -> bool:
    """fio's bytes within `tol` (and `slack` bytes) of the range the device's readings allow."""
    low, high = moved
    return low * (1 - tol) - slack <= fio <= high * (1 + tol) + slack


def test_the_readings_range_holds_what_a_late_reader_missed() -> None:
    """A job that wrote 100 at 1 per 10 ms from 0 to 1 s, read every 5 ms but not from 0.9 s
    to 2 s (the reader held up): a straight line across the gap counts ~91 by 1.2 s; the
    range the readings allow holds the 100 written."""
    t = np.concatenate((np.arange(0.0, 0.9, 0.005), [2.0, 2.005]))
    y = np.minimum(np.floor(t * 100.0), 100.0)
    line = float(np.interp(1.2, t, y) - np.interp(-0.1, t, y))
    low, high = readings_range(t, y, -0.1, 1.2)
    assert line < 95 and low <= 100 <= high
    assert readings_range(t, y, 0.1, 0.5) == (40.0, 40.0)  # dense readings: exact


def test_reads_then_writes_each_test_its_passes_then_its_figures(done: dict) -> None:
    names = [s["name"] for s in done["run"]["steps"]]
    summaries = [n for n in names if n.endswith(("-read", "-write"))]
    assert names[0] == "prepare"
    assert summaries == [f"{t}-read" for t in ORDER] + [f"{t}-write" for t in ORDER]
    for name in summaries:
        at = names.index(name)
        assert names[at - 2 : at] == [f"{name}-pass1", f"{name}-pass2"]


def test_each_figure_is_the_best_pass_from_fio_totals(done: dict) -> None:
    steps = done["steps"]
    for name in [f"{t}-{d}" for d in ("read", "write") for t in ORDER]:
        direction = name.rsplit("-", 1)[1]
        passes = []
        for n in (1, 2):
            step = steps[f"{name}-pass{n}"]
            total = direction_summary(json.loads(step["output"]), direction)
            assert total is not None, step["name"]
            # What each pass stored is fio's own io_bytes over its runtime.
            assert results(step)[f"{direction}_mbps"] == pytest.approx(total["mbps"], rel=1e-9)
            passes.append(total)
        best = max(passes, key=lambda p: p["mbps"])
        got = results(steps[name])
        assert got[f"{direction}_mbps"] == pytest.approx(best["mbps"], rel=1e-9), name
        assert got[f"{direction}_iops"] == pytest.approx(best["iops"], rel=1e-9), name
        assert got["passes"] == 2
        cdm = steps[name]["findings"]["cdm"]
        assert cdm["best_pass"] in (1, 2) and len(cdm["passes"]) == 2
        assert max(p["mbps"] for p in cdm["passes"]) == got[f"{direction}_mbps"]


def test_the_figures_are_what_the_drive_did(done: dict) -> None:
    steps, trace = done["steps"], done["trace"]
    for test in ORDER:
        for direction, rate in (("read", READ_MBPS), ("write", WRITE_MBPS)):
            name = f"{test}-{direction}"
            cdm = steps[name]["findings"]["cdm"]
            best = steps[f"{name}-pass{cdm['best_pass']}"]
            final = json.loads(best["output"])
            start, end = job_window(best, best["output"])
            device = job_moved_range(done["run"]["steps"], best, direction, trace)
            fio = sum(int(j[direction]["io_bytes"]) for j in final["jobs"])
            assert within_moved(fio, device, DEVICE_TOL), (name, fio, device)
            got = results(steps[name])[f"{direction}_mbps"]
            if test in DEEP:
                # At the drive's limit, less the share of the pass the host held fio up (the
                # kernel's count: a busy 2-core host cannot always keep 16 threads issuing).
                held = truth.held_share(trace, start, end)
                low = rate * (1 - RATE_TOL - held)
                assert low <= got <= rate * (1 + RATE_TOL), (name, got, f"held {held:.1%}")
            else:
                assert got <= rate * (1 + RATE_TOL), (name, got)


def test_rnd4k_q32t16_is_sixteen_threads_of_queue_depth_32(done: dict) -> None:
    final = json.loads(done["steps"]["rnd4k-q32t16-read-pass1"]["output"])
    assert len(final["jobs"]) == 16
    assert {j["job options"]["iodepth"] for j in final["jobs"]} == {"32"}


@pytest.mark.browser
def test_the_run_page_lays_the_figures_out_as_readers_know_them(
    browser,  # type: ignore[no-untyped-def]  # noqa: ANN001, F811
    stack: Stack,
    done: dict,
) -> None:
    """The Run page's Read/Write table shows the api's figures (two decimals, MB/s, then IOPS
    when the unit is switched), every pass on hover, and exports what it shows as CSV."""
    from playwright.sync_api import expect

    run, steps = done["run"], done["steps"]
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url, accept_downloads=True)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{run['id']}")
        table = page.locator('[data-chart="cdm-style"]')
        expect(table.locator("tbody th")).to_have_text(
            ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]
        )
        for test in ORDER:
            for direction in ("read", "write"):
                got = results(steps[f"{test}-{direction}"])
                cell = table.locator(f'[data-cell="{test}-{direction}"]')
                expect(cell).to_have_text(f"{got[f'{direction}_mbps']:,.2f}")
                assert "best of 2 passes" in (cell.get_attribute("title") or "")
        table.get_by_role("button", name="IOPS").click()
        got = results(steps["rnd4k-q32t16-read"])
        expect(table.locator('[data-cell="rnd4k-q32t16-read"]')).to_have_text(
            f"{got['read_iops']:,.2f}"
        )
        with page.expect_download() as download:
            table.get_by_role("button", name="Export CSV").click()
        text = Path(download.value.path()).read_text()
        assert "# simulated: Simulated drive" in text
        # The CSV rounds as every export does: figures of 10,000 and more to whole numbers.
        assert got["read_iops"] >= 10_000
        assert f"RND4K Q32T16,{round(got['read_iops'])}," in text
        shot(page, "cdm-style-run")
        # Compare and the Report: the drive's table in CrystalDiskMark's layout, the same figures.
        for where in (f"/compare?drives={run['drive_id']}", f"/report?drives={run['drive_id']}"):
            page.goto(where)
            read_down(page)
            block = page.locator(
                f'[data-chart="cdm-style-compare"] table[data-drive="{run["drive_id"]}"]'
            )
            expect(block.locator("tbody th")).to_have_text(
                ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]
            )
            for test in ORDER:
                for direction in ("read", "write"):
                    got = results(steps[f"{test}-{direction}"])[f"{direction}_mbps"]
                    cell = block.locator(f'[data-cell="{test}-{direction}"]')
                    expect(cell).to_have_text(f"{got:,.2f} MB/s")
        with page.expect_download() as download:
            page.locator('[data-chart="cdm-style-compare"]').get_by_role(
                "button", name="Export CSV"
            ).click()
        text = Path(download.value.path()).read_text()
        assert f"run {run['id']}" in text and "# simulated: Simulated drive" in text
        assert "\nSEQ1M Q8T1,read," in text and "\nRND4K Q1T1,write," in text
        shot(page, "cdm-style-report")
    finally:
        context.close()
