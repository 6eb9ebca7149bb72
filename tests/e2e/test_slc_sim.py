"""The SLC cache and its recovery through the whole stack on a busy CPU, with a known answer:
plan slc-cache on the simulated "slc-recovery" drive (a 48 MiB cache at 20 MB/s, 8 MB/s after
it, 3 MiB back per idle second), its cache size and each refill's recovered cache against what
the drive's model held and where its own counters show the speed fell (worker.sim.selftest
check_slc). Needs what the simulated drives need; skipped, saying which is missing, without."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.conftest import Stack
from tests.e2e.test_browser import VIEWPORT, browser, read_down, shot, sign_in  # noqa: F401 - the fixture
from tests.e2e.test_simulated_drives import MISSING, busy_cpu  # noqa: F401 - the fixture
from worker.sim.selftest import Case, run_selftest, slc_case

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]


@pytest.fixture(scope="module")
def slc(stack: Stack, busy_cpu: int, tmp_path_factory: pytest.TempPathFactory) -> Case:  # noqa: F811
    with stack.client() as c:
        (case,) = run_selftest(
            c, "local", Path(tmp_path_factory.mktemp("slc")), selected=[slc_case()], timeout=480
        )
    for check in case.checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.what}: truth {check.truth}, "
              f"found {check.found}")  # fmt: skip
    print(f"the host held a process up for {case.host_worst_s:.3f} s at most")
    return case


def test_cache_size_and_recovery_are_what_the_drive_did(slc: Case) -> None:
    failed = [f"{c.what}: truth {c.truth}, found {c.found}" for c in slc.checks if not c.ok]
    assert slc.checks and not failed, [*failed, f"host held up {slc.host_worst_s:.2f} s"]
    # The fill and every refill were checked.
    assert sum("cache recovered after" in c.what for c in slc.checks) == 3
    assert sum("idle measured" in c.what for c in slc.checks) == 3
    assert any("cache size" in c.what for c in slc.checks)


def test_each_recovery_is_a_metric_that_compare_lists(slc: Case, stack: Stack) -> None:
    assert slc.run is not None and slc.drive is not None
    refills = sorted(
        (s["findings"]["slc"] for s in slc.run["steps"] if s["params"].get("role") == "slc-refill"),
        key=lambda f: f["idle_s"],
    )
    got = [f["recovered_gb"] for f in refills]
    assert [f["idle_s"] for f in refills] == [3, 6, 12]
    # Each refill found a cache, or "none" where the one it had was written in less time than
    # a level must last (the self-test allows that only then); how much grows with the idle
    # the drive really had, longer than the idle step by the time between steps.
    assert all(g > 0 or f["state"] == "none" for g, f in zip(got, refills, strict=True)), got
    assert got[-1] > 0, got
    assert all(f["idle_measured_s"] >= f["idle_s"] for f in refills), refills
    metrics = {r["metric"]: r["value"] for s in slc.run["steps"] for r in s["results"]}
    fill = next(s for s in slc.run["steps"] if s["name"] == "slc-fill")
    assert metrics["slc_cache_gb"] == pytest.approx(fill["findings"]["slc"]["cache_gb"])
    # Compare lists the drive's cache size and each recovery as metrics, named in words.
    with stack.client() as c:
        body = c.get("/api/compare", params={"drives": str(slc.drive["id"])}).json()
    by_id = {m["metric"]: m for m in body["metrics"]}
    size = by_id["slc-cache:slc-fill:slc_cache_gb"]
    assert size["rows"][0]["value"] == pytest.approx(metrics["slc_cache_gb"])
    for f in refills:
        m = by_id[f"slc-cache:slc-refill-after-{f['idle_s']}s:slc_recovered_gb"]
        assert m["rows"][0]["value"] == pytest.approx(f["recovered_gb"])
        assert m["names"]["test"] == f"cache refill after {f['idle_s']} s idle"


def gb(value: float) -> str:
    """As the Run page writes GB: three significant digits, no trailing zeros."""
    return f"{float(f'{value:.3g}'):g}"


@pytest.mark.browser
def test_the_run_page_shows_the_cache_and_its_recovery(
    browser,  # type: ignore[no-untyped-def]  # noqa: ANN001, F811
    stack: Stack,
    slc: Case,
) -> None:
    """The Run page says the cache the fill found and lists the cache recovered against idle,
    as the api's findings have them, and draws the fill against GB written."""
    from playwright.sync_api import expect

    assert slc.run is not None
    steps = {s["name"]: s for s in slc.run["steps"]}
    fill = steps["slc-fill"]["findings"]["slc"]
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{slc.run['id']}")
        section = page.locator('[data-chart="slc-recovery"]')
        expect(section.get_by_test_id("slc-fill")).to_contain_text(
            f"Cache: {gb(fill['cache_gb'])} GB written"
        )
        rows = section.locator("tbody tr")
        expect(rows.locator("th")).to_have_text(["3", "6", "12"])
        for k, idle in enumerate((3, 6, 12)):
            found = steps[f"slc-refill-after-{idle}s"]["findings"]["slc"]
            words = (
                f"none (< {gb(found['resolution_gb'])} GB)"
                if found["state"] == "none"
                else f"{gb(found['recovered_gb'])} GB"
            )
            expect(rows.nth(k).locator("td").first).to_have_text(words)
        # The recovery chart exports as the other charts do (SVG, PNG, CSV).
        recovered = section.locator('[data-chart="slc-recovered"]')
        tools = recovered.get_by_role("group", name="Export Cache recovered against idle")
        with page.expect_download() as download:
            tools.get_by_role("button", name="CSV").click()
        text = Path(download.value.path()).read_text()
        table_rows = list(csv.reader(ln for ln in text.splitlines() if not ln.startswith("#")))
        assert table_rows[0][:3] == ["idle_s", "idle_measured_s", "recovered_gb (GB)"], text
        by_idle = {int(r[0]): r for r in table_rows[1:]}
        assert sorted(by_idle) == [3, 6, 12], text
        for idle in (3, 6, 12):
            got = steps[f"slc-refill-after-{idle}s"]["findings"]["slc"]["recovered_gb"]
            assert float(by_idle[idle][2]) == pytest.approx(got, rel=1e-3), text
        # The fill's chart: MB/s against GB written, its step-down marked in GB.
        chart = page.locator(f'[data-chart="step-{steps["slc-fill"]["id"]}"]')
        expect(chart).to_contain_text("GB written")
        expect(chart).to_contain_text("steps down at")
        shot(page, "slc-cache-run")
        # Compare: the drive's cache and each recovery in the SLC cache table.
        assert slc.drive is not None
        page.goto(f"/compare?drives={slc.drive['id']}")
        read_down(page)
        table = page.locator('[data-chart="slc-compare"]')
        row = table.locator(f'tr[data-drive="{slc.drive["id"]}"]')
        expect(row.locator("td").first).to_have_text(gb(fill["cache_gb"]))
        for k, idle in enumerate((3, 6, 12)):
            got = steps[f"slc-refill-after-{idle}s"]["findings"]["slc"]["recovered_gb"]
            expect(row.locator("td").nth(2 + k)).to_have_text(gb(got))
        shot(page, "slc-cache-compare")
        # The Report says the cache and its recovery in words, as the api's article has them.
        with stack.client() as c:
            article = c.get("/api/compare/article", params={"drives": slc.drive["id"]}).json()
        (words,) = [f["text"] for d in article["findings"] for f in d["findings"]
                    if f["topic"] == "slc-cache"]  # fmt: skip
        assert words.startswith(f"SLC cache: {float(fill['cache_gb']):.3g} GB written at"), words
        assert words.count("idle: ") == 3, words
        page.goto(f"/report?drives={slc.drive['id']}")
        expect(page.locator('li[data-topic="slc-cache"]')).to_have_text(words)
        shot(page, "slc-cache-report")
    finally:
        context.close()
