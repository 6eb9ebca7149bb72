"""Mixed random and mixed sequential through the whole stack on a busy CPU, with a known
answer: plan mixed on the simulated "mixed" drive (flat 10 MB/s writes and 20 MB/s reads,
throttled apart), each share's bytes, MB/s and share of writes against what the device's own
counters moved in the step, and each curve's points, lowest and highest against the drive's
model (worker.sim.selftest check_mixed). Needs what the simulated drives need; skipped, saying which
is missing, without."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Stack
from tests.e2e.test_browser import VIEWPORT, browser, read_down, shot, sign_in  # noqa: F401 - the fixture
from tests.e2e.test_simulated_drives import MISSING, busy_cpu  # noqa: F401 - the fixture
from worker.sim.selftest import Case, mixed_case, run_selftest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

SHARES = [0, 25, 50, 75, 100]


@pytest.fixture(scope="module")
def mixed(stack: Stack, busy_cpu: int, tmp_path_factory: pytest.TempPathFactory) -> Case:  # noqa: F811
    with stack.client() as c:
        (case,) = run_selftest(
            c, "local", Path(tmp_path_factory.mktemp("mixed")), selected=[mixed_case()],
            timeout=300,
        )  # fmt: skip
    for check in case.checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.what}: truth {check.truth}, "
              f"found {check.found}")  # fmt: skip
    print(f"the host held a process up for {case.host_worst_s:.3f} s at most")
    return case


def test_every_share_is_what_the_device_did(mixed: Case) -> None:
    failed = [f"{c.what}: truth {c.truth}, found {c.found}" for c in mixed.checks if not c.ok]
    assert mixed.checks and not failed, [*failed, f"host held up {mixed.host_worst_s:.2f} s"]
    # Every step of both parts was checked against the device, both curves against the model.
    assert sum("MB/s, reads and writes" in c.what for c in mixed.checks) == 2 * len(SHARES)
    assert sum("share of writes, %" in c.what for c in mixed.checks) == 2 * len(SHARES)
    assert sum(": bytes " in c.what for c in mixed.checks) == 2 * 2 * len(SHARES)
    assert sum("% writes" in c.what and "MB/s at" in c.what for c in mixed.checks) == 2 * len(
        SHARES
    )
    assert sum("lowest MB/s" in c.what for c in mixed.checks) == 2
    assert sum("highest MB/s" in c.what for c in mixed.checks) == 2


def test_the_figures_are_metrics_that_compare_lists(mixed: Case, stack: Stack) -> None:
    assert mixed.run is not None and mixed.drive is not None
    steps = {s["name"]: s for s in mixed.run["steps"]}
    summary = steps["mixed-random-4k-qd4"]["findings"]["mixed"]
    assert [p["write_pct"] for p in summary["points"]] == SHARES
    # Each point is fio's read and write parts of its step, as the step's own results say.
    for p in summary["points"]:
        results = {r["metric"]: r["value"] for r in steps[p["step"]]["results"]}
        assert p["read_mbps"] == pytest.approx(results.get("read_mbps", 0.0))
        assert p["write_mbps"] == pytest.approx(results.get("write_mbps", 0.0))
        assert p["mbps"] == pytest.approx(results["mixed_mbps"])
        assert (p["read_mbps"] > 0) == (p["write_pct"] < 100)
        assert (p["write_mbps"] > 0) == (p["write_pct"] > 0)
    assert "lowest" in summary["note"] and "100% writes" in summary["note"]
    with stack.client() as c:
        body = c.get("/api/compare", params={"drives": str(mixed.drive["id"])}).json()
    by_id = {m["metric"]: m for m in body["metrics"]}
    for key in ("mixed-random-4k-qd4", "mixed-sequential-128k-qd1"):
        found = steps[key]["findings"]["mixed"]
        m = by_id[f"mixed:{key}:mixed_avg_mbps"]
        assert m["rows"][0]["value"] == pytest.approx(found["avg_mbps"])
        assert m["names"]["plan"] == "Mixed random and sequential"
    share = by_id["mixed:mixed-random-4k-qd4-w25:write_mbps"]
    assert share["names"]["test"] == "4K random mixed QD4, 75/25 read/write"
    assert share["names"]["measure"] == "write MB/s"


def test_compare_series_draws_each_part_against_the_share_of_writes(
    mixed: Case, stack: Stack
) -> None:
    assert mixed.run is not None and mixed.drive is not None
    steps = {s["name"]: s for s in mixed.run["steps"]}
    with stack.client() as c:
        body = c.get(
            "/api/compare/series", params={"drives": str(mixed.drive["id"]), "plan": "mixed"}
        ).json()
    (drive,) = body["drives"]
    assert drive["run_id"] == mixed.run["id"]
    lines = {s["step"]: s for s in drive["series"]}
    assert list(lines) == ["mixed-random-4k-qd4", "mixed-sequential-128k-qd1"]
    for key, line in lines.items():
        assert line["x"] == "write_pct" and line["unit"] == "MB/s"
        want = [(p["write_pct"], p["mbps"]) for p in steps[key]["findings"]["mixed"]["points"]]
        assert [x for x, _ in line["points"]] == SHARES
        assert [y for _, y in line["points"]] == pytest.approx([y for _, y in want])


@pytest.mark.browser
def test_the_run_page_and_compare_draw_the_curves(
    browser,  # type: ignore[no-untyped-def]  # noqa: ANN001, F811
    stack: Stack,
    mixed: Case,
) -> None:
    """The Run page draws MB/s against the share of writes and lists each part's points and
    finding as the api's findings have them; Compare overlays the drive's curves and draws its
    averages as bars."""
    from playwright.sync_api import expect

    assert mixed.run is not None and mixed.drive is not None
    steps = {s["name"]: s for s in mixed.run["steps"]}
    random = steps["mixed-random-4k-qd4"]["findings"]["mixed"]
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{mixed.run['id']}")
        section = page.locator('[data-chart="mixed-run"]')
        chart = section.locator('[data-chart="mixed-run-chart"]')
        expect(chart).to_contain_text("share of writes (%)")
        # One drawn line per part, through every share.
        expect(chart.locator("path.recharts-line-curve")).to_have_count(2)
        expect(section.get_by_test_id("mixed-random-note")).to_have_text(random["note"])
        rows = section.get_by_test_id("mixed-random").locator("tbody tr")
        expect(rows.locator("th")).to_have_text([f"{x}%" for x in SHARES])
        for k, p in enumerate(random["points"]):
            want = f"{p['mbps']:.3g}" if p["mbps"] < 100 else f"{p['mbps']:.0f}"
            expect(rows.nth(k).locator("td").first).to_have_text(str(float(want)).removesuffix(".0"))
        shot(page, "mixed-run")
        page.goto(f"/compare?drives={mixed.drive['id']}")
        read_down(page)
        compare = page.locator('[data-chart="mixed-compare"]')
        expect(compare.locator("path.recharts-line-curve")).to_have_count(2)
        bars = compare.get_by_test_id("mixed-averages")
        avg = random["avg_mbps"]
        expect(bars).to_contain_text(f"{avg:.3g}" if avg < 100 else f"{avg:.0f}")
        shot(page, "mixed-compare")
    finally:
        context.close()
