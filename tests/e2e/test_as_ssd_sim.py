"""The AS-SSD-style preset through the whole stack on a busy CPU, on a simulated drive whose
speeds are known (a flat profile: writes held to 30 MB/s, reads to 50 MB/s by the kernel's block
throttle): the Seq test, 16 MiB at QD1, reads and writes at the drive's limits; every figure is
fio's own totals and what the drive's own counters moved while its job ran; 4K-64Thrd is one
group total of 64 threads (fio's group_reporting) that the counters confirm; the access time is
the mean time of one I/O at QD1; the scores weigh the stored figures as published. Reads of the
access test cover the whole drive, not the test file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.analysis.as_ssd import WEIGHTS
from backend.analysis.fio_results import direction_summary
from tests.conftest import Stack
from tests.e2e.test_browser import VIEWPORT, browser, read_down, shot, sign_in  # noqa: F401 - the fixture
from tests.e2e.test_desktop_preset import job_moved_range, within_moved
from tests.e2e.test_plans import results, run_plan
from tests.e2e.test_simulated_drives import MISSING, busy_cpu  # noqa: F401 - the fixture
from worker.sim import truth
from worker.sim.controller import SimDrive
from worker.sim.profile import Level, Profile
from worker.sim.selftest import Case, job_window, register

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]
MiB = 2**20
WRITE_MBPS, READ_MBPS = 30.0, 50.0
FLAT = Profile(
    "flat", "30 MB/s writes, 50 MB/s reads", (Level(100, WRITE_MBPS),), read_mbps=READ_MBPS
)
# The block throttle lets a little more through than its limit over a short job (its allowance
# carries over between slices), and a QD1 job loses a little to each I/O's round trip.
RATE_TOL = 0.08
# fio's bytes against what the drive's counters moved from just before the job to just after
# it (job_moved_range): I/Os in flight when fio's clock stops are on the drive's side only.
DEVICE_TOL = 0.03
SIZE = 256 * MiB
PARAMS = {"span": "64m", "measure_s": 2, "access_s": 2}
ORDER = ["asssd-seq", "asssd-4k", "asssd-4k-64thrd", "asssd-acc"]
TESTS = [f"{t}-{d}" for t in ORDER for d in ("read", "write")]


@pytest.fixture(scope="module")
def done(
    stack: Stack,
    busy_cpu: int,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict]:
    """The finished run, its steps by name with fio's output, and the drive's trace."""
    case = Case("as-ssd-style", "flat", SIZE, "as-ssd-style", PARAMS)
    with SimDrive(FLAT, case.size, Path(tmp_path_factory.mktemp("asssd")), label="asssd") as sim:
        case.sim = sim
        with stack.client() as c:
            drive = register(c, "local", case)
            run = run_plan(c, drive, "as-ssd-style", PARAMS, timeout=400)
            steps = {s["name"]: s for s in run["steps"]}
            for step in steps.values():
                if step["kind"] == "fio":
                    r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/output")
                    assert r.status_code == 200, r.text
                    step["output"] = r.text
        yield {"run": run, "steps": steps, "trace": sim.trace(), "drive": drive}


def moved(done: dict, step: dict, direction: str) -> tuple[float, float]:
    """Bytes the drive's own counters moved in `direction` while the step's fio job ran, as
    the range their readings allow (as the desktop preset's test reads them:
    job_moved_range)."""
    return job_moved_range(done["run"]["steps"], step, direction, done["trace"])


def test_the_test_file_first_then_the_window_row_by_row_then_the_score(done: dict) -> None:
    names = [s["name"] for s in done["run"]["steps"]]
    assert names == ["prepare", *TESTS, "asssd-score"]


def test_seq_reads_and_writes_at_the_drives_limits_as_its_counters_moved(done: dict) -> None:
    steps = done["steps"]
    for direction, limit in (("read", READ_MBPS), ("write", WRITE_MBPS)):
        step = steps[f"asssd-seq-{direction}"]
        final = json.loads(step["output"])
        total = direction_summary(final, direction)
        assert total is not None
        got = results(step)[f"{direction}_mbps"]
        assert got == pytest.approx(total["mbps"], rel=1e-9)
        # The whole test file, once: size-based, 64 MiB.
        fio_bytes = sum(int(j[direction]["io_bytes"]) for j in final["jobs"])
        assert fio_bytes == 64 * MiB
        device = moved(done, step, direction)
        assert within_moved(fio_bytes, device, DEVICE_TOL), (direction, fio_bytes, device)
        print(f"Seq {direction}: {got:.2f} MB/s (limit {limit}), device moved {device} B")
        assert limit * (1 - RATE_TOL) <= got <= limit * (1 + RATE_TOL), (direction, got)


def test_every_figure_is_fio_totals_and_what_the_drive_did(done: dict) -> None:
    steps = done["steps"]
    for name in TESTS:
        direction = name.rsplit("-", 1)[1]
        step = steps[name]
        final = json.loads(step["output"])
        total = direction_summary(final, direction)
        assert total is not None, name
        got = results(step)
        assert got[f"{direction}_mbps"] == pytest.approx(total["mbps"], rel=1e-9), name
        fio_bytes = sum(int(j[direction]["io_bytes"]) for j in final["jobs"])
        device = moved(done, step, direction)
        # A sector-sized access test moves little: allow a few I/Os of slack besides the ratio.
        slack = 64 * 4096
        assert within_moved(fio_bytes, device, DEVICE_TOL, slack), (name, fio_bytes, device)
        limit = READ_MBPS if direction == "read" else WRITE_MBPS
        assert got[f"{direction}_mbps"] <= limit * (1 + RATE_TOL), (name, got)


def test_4k_64thrd_is_one_group_total_of_64_threads(done: dict) -> None:
    steps = done["steps"]
    for direction in ("read", "write"):
        step = steps[f"asssd-4k-64thrd-{direction}"]
        final = json.loads(step["output"])
        # group_reporting: fio itself sums the 64 threads into one entry.
        (group,) = final["jobs"]
        assert group["job options"]["numjobs"] == "64"
        assert group["job options"]["group_reporting"] == "1"
        d = group[direction]
        figure = results(step)[f"{direction}_mbps"]
        assert figure == pytest.approx(d["io_bytes"] / (d["runtime"] / 1000) / 1e6, rel=1e-9)
        # The drive's counters moved the whole group's bytes (64 threads, not one).
        device = moved(done, step, direction)
        assert within_moved(d["io_bytes"], device, DEVICE_TOL), (direction, device)
        # 64 threads of QD1 keep the drive busy: its limit, as the deep queues of CDM reach it,
        # less the share of the job the host held fio up (the kernel's count: 64 threads on a
        # busy 2-core host cannot always issue as fast as the drive takes).
        limit = READ_MBPS if direction == "read" else WRITE_MBPS
        start, end = job_window(step, step["output"])
        held = truth.held_share(done["trace"], start, end)
        assert figure >= limit * (1 - RATE_TOL - held), (direction, figure, f"held {held:.1%}")
        print(f"4K-64Thrd {direction}: {figure:.2f} MB/s, group io_bytes {d['io_bytes']}")


def test_the_access_time_is_one_qd1_io_in_ms_reads_over_the_whole_drive(done: dict) -> None:
    steps = done["steps"]
    score = steps["asssd-score"]["findings"]["asssd"]
    rows = {r["key"]: r for r in score["tests"]}
    for direction in ("read", "write"):
        step = steps[f"asssd-acc-{direction}"]
        got = results(step)
        ms = got[f"{direction}_lat_mean_us"] / 1000
        assert rows["asssd-acc"][f"{direction}_ms"] == pytest.approx(ms, rel=1e-9)
        # At QD1 an I/O's completion latency cannot exceed the time per I/O (1 / IOPS).
        assert ms <= 1000 / got[f"{direction}_iops"] * 1.001, (direction, ms, got)
        print(f"Acc.time {direction}: {ms:.3f} ms at {got[f'{direction}_iops']:.0f} IOPS")
    # The read access test spans the whole drive; the write access test the test file.
    assert steps["asssd-acc-read"]["params"]["span_bytes"] == SIZE
    assert steps["asssd-acc-write"]["params"]["span_bytes"] == 64 * MiB


def test_the_scores_weigh_the_stored_figures_as_published(done: dict) -> None:
    steps = done["steps"]
    mbps = {
        (name.removeprefix("asssd-").rsplit("-", 1)[0], d): results(steps[name])[f"{d}_mbps"]
        for name in TESTS
        if not name.startswith("asssd-acc")
        for d in [name.rsplit("-", 1)[1]]
    }
    got = results(steps["asssd-score"])
    for score, weights in WEIGHTS.items():
        want = sum(w * mbps[k] for k, w in weights.items())
        assert got[f"asssd_score_{score}"] == pytest.approx(want, rel=1e-9), score
    assert "Tom's Hardware" in steps["asssd-score"]["findings"]["asssd"]["score_source"]
    print({k: round(v) for k, v in got.items()})


@pytest.mark.browser
def test_the_run_page_compare_and_report_lay_out_the_window(
    browser,  # type: ignore[no-untyped-def]  # noqa: ANN001, F811
    stack: Stack,
    done: dict,
) -> None:
    """The Run page's AS-SSD window shows the api's figures (MB/s, ms, scores); Compare shows
    the drive's block and exports it as CSV with its provenance; the Report prints it."""
    from playwright.sync_api import expect

    run, steps, drive = done["run"], done["steps"], done["drive"]
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url, accept_downloads=True)
    page = context.new_page()
    seq = results(steps["asssd-seq-read"])["read_mbps"]
    acc = results(steps["asssd-acc-write"])["write_lat_mean_us"] / 1000
    total = results(steps["asssd-score"])["asssd_score_total"]
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{run['id']}")
        table = page.locator('[data-chart="as-ssd-style"]')
        expect(table.locator("tbody th")).to_have_text(
            ["Seq", "4K", "4K-64Thrd", "Acc.time", "Score", "Total"]
        )
        expect(table.locator('[data-cell="asssd-seq-read"]')).to_have_text(f"{seq:,.2f} MB/s")
        expect(table.locator('[data-cell="asssd-acc-write"]')).to_have_text(f"{acc:.3f} ms")
        expect(table.locator('[data-cell="score-total"]')).to_have_text(str(round(total)))
        shot(page, "as-ssd-style-run")
        page.goto(f"/compare?drives={drive['id']}")
        read_down(page)
        block = page.locator('[data-chart="as-ssd-style-compare"]')
        cell = block.locator(f'table[data-drive="{drive["id"]}"] [data-cell="asssd-seq-read"]')
        expect(cell).to_have_text(f"{seq:,.2f} MB/s")
        with page.expect_download() as download:
            block.get_by_role("button", name="Export CSV").click()
        text = Path(download.value.path()).read_text()
        assert f"# provenance: {drive['label']}" in text or f"run {run['id']}" in text, text
        assert "# simulated: Simulated drive" in text
        assert "\nSeq,read," in text and "\nScore,total," in text
        shot(page, "as-ssd-style-compare")
        page.goto(f"/report?drives={drive['id']}")
        printed = page.locator('[data-chart="as-ssd-style-compare"]')
        expect(printed.locator('[data-cell="asssd-seq-read"]')).to_have_text(f"{seq:,.2f} MB/s")
        expect(page.locator('[data-topic="as-ssd"]')).to_contain_text("AS-SSD-style: Seq")
    finally:
        context.close()
