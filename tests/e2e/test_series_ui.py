"""Repeats and firmware history in a real browser (headless Chromium).

A reviewer queues a short four-corners on the simulated drive through the Queue page, twice
("Runs: N times", 2; a count of 1 refused at the field first), lands on the series' page, sees
it run and end `done` with both runs listed and the judged figures table filled with the values
fio measured (as GET /api/series gives them) and their RSD; the Run page of a repeat says which
repeat of which series it is and links back. From the Catalog, the drive model's firmware
history opens: one version measured, no change to judge yet, the method at the bottom.
Screenshots: test-artifacts/screenshots/{queue-repeat,series,firmware}.png.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import Stack
from tests.e2e.test_browser import (
    VIEWPORT,
    browser,  # noqa: F401  (the module-scoped fixture, shared)
    docs_copy,
    shot,
    sign_in,
)
from tests.e2e.test_queue_ui import watch_problems

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SHORT = {"span": "64m", "runtime_s": "1", "seq_runtime_s": "1"}


def test_series_and_firmware_pages(browser, stack: Stack, sim_drive: dict) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems = watch_problems(page, re.compile(r"POST .*/api/plans/[\w-]+/estimate$"))
    try:
        sign_in(page, stack)

        # 1. Queue four-corners, shortened, twice.
        page.goto(f"/queue?drive={sim_drive['id']}&plan=four-corners")
        expect(page.locator("input[name=plan][value=four-corners]")).to_be_checked()
        expect(page.locator("[name='param-span']")).to_have_value("8g")
        for name, value in SHORT.items():
            page.locator(f"[name='param-{name}']").fill(value)
        page.locator("[name='param-prewrite']").uncheck()
        patterns = page.locator("input[name='param-patterns']")
        for i in range(patterns.count()):
            box = patterns.nth(i)
            if box.get_attribute("value") == "incompressible":
                box.check()
            else:
                box.uncheck()
        expect(page.locator("input[name='param-patterns']:checked")).to_have_count(1)
        expect(page.locator(".param-form .form-field__error")).to_have_count(0)

        repeat = page.locator(".repeat-control")
        expect(repeat.locator("input[name=repeat_mode][value=once]")).to_be_checked()
        # Until stable shows its defaults: at most 10, at least 3, 2.5%.
        repeat.locator("input[name=repeat_mode][value=stable]").check()
        expect(repeat.locator("[name=repeat_max_runs]")).to_have_value("10")
        expect(repeat.locator("[name=repeat_min_runs]")).to_have_value("3")
        expect(repeat.locator("[name=repeat_rsd_pct]")).to_have_value("2.5")
        repeat.locator("input[name=repeat_mode][value=times]").check()
        times = repeat.locator("[name=repeat_times]")
        times.fill("1")
        times_field = repeat.locator(".form-field", has=page.locator("[name=repeat_times]"))
        expect(times_field.locator(".form-field__error")).to_contain_text("between 2 and 50")
        page.locator("[name=confirm_serial]").fill(sim_drive["serial"])
        page.get_by_role("button", name="Queue test").click()
        expect(page).to_have_url(re.compile(r"/queue\?"))  # refused: nothing queued
        times.fill("2")
        expect(times_field.locator(".form-field__error")).to_have_count(0)
        shot(page, "queue-repeat")
        page.get_by_role("button", name="Queue test").click()

        # 2. The series' page: it runs, then ends done with its figures.
        expect(page).to_have_url(re.compile(r"/series/\d+$"), timeout=30_000)
        series_id = int(page.url.rsplit("/", 1)[1])
        expect(page.get_by_role("heading", name=f"Series #{series_id}")).to_be_visible()
        status = page.get_by_test_id("series-status")
        expect(status).to_have_text("done", timeout=300_000)
        expect(page.get_by_test_id("series-reason")).to_contain_text("2 runs, as asked")
        expect(page.locator(".page-header")).to_contain_text("Series")
        expect(page.get_by_role("button", name="Stop series")).to_be_disabled()

        with stack.client() as c:
            series = c.get(f"/api/series/{series_id}").json()
        assert series["status"] == "done", series
        assert not series["until_stable"] and series["max_runs"] == 2
        runs = series["runs"]
        assert [r["series_index"] for r in runs] == [1, 2]
        assert all(r["status"] == "done" for r in runs), runs
        assert series["figures"], series

        runs_table = page.locator("section", has=page.get_by_role("heading", name="Runs"))
        for r in runs:
            expect(runs_table.get_by_role("link", name=f"#{r['id']}", exact=True)).to_be_visible()
        expect(runs_table.locator("tbody tr")).to_have_count(2)

        table = page.get_by_test_id("series-figures")
        header = table.locator("thead th")
        expect(header).to_have_count(2 + len(runs) + 1)  # figure, unit, one per run, RSD
        rows = table.locator("tbody tr")
        expect(rows).to_have_count(len(series["figures"]))
        for i, fig in enumerate(series["figures"]):
            row = rows.nth(i)
            assert row.get_attribute("data-metric") == fig["metric"]
            expect(row.locator("th")).to_have_text(fig["name"])
            cells = row.locator("td[data-value]")
            expect(cells).to_have_count(len(runs))
            shown = [
                float(cells.nth(k).get_attribute("data-value") or "nan") for k in range(len(runs))
            ]
            assert shown == fig["values"], (fig, shown)
            assert all(v > 0 for v in shown), fig
            rsd = row.locator("td[data-rsd]")
            assert float(rsd.get_attribute("data-rsd") or "nan") == pytest.approx(fig["rsd_pct"])
            expect(rsd).to_have_text(f"{fig['rsd_pct']:.2f}%")
            # At or over the threshold: marked.
            marked = fig["rsd_pct"] >= series["rsd_pct"]
            expect(rsd.locator(".badge")).to_have_count(1 if marked else 0)
        docs_copy(shot(page, "series"))

        # 3. A repeat's Run page links back to its series.
        runs_table.get_by_role("link", name=f"#{runs[0]['id']}", exact=True).click()
        expect(page).to_have_url(re.compile(rf"/runs/{runs[0]['id']}$"))
        back = page.get_by_role("link", name=f"repeat 1 of series #{series_id}")
        expect(back).to_be_visible()
        back.click()
        expect(page).to_have_url(re.compile(rf"/series/{series_id}$"))
        expect(page.get_by_test_id("series-status")).to_have_text("done")

        # 4. The drive model's firmware history, from the Catalog.
        model = sim_drive["model"]
        with stack.client() as c:
            history = c.get(f"/api/models/{model['id']}/firmware").json()
        assert len(history["firmwares"]) == 1, history["firmwares"]
        assert history["metrics"] == []
        page.get_by_role("link", name="Catalog", exact=True).click()
        page.locator(f"a[href='/models/{model['id']}/firmware']").first.click()
        expect(page).to_have_url(re.compile(rf"/models/{model['id']}/firmware$"))
        expect(
            page.get_by_role("heading", name=f"Firmware history: {history['label']}")
        ).to_be_visible()
        versions = page.get_by_test_id("fw-versions").locator("tbody tr")
        expect(versions).to_have_count(1)
        only = history["firmwares"][0]
        expect(versions.first).to_contain_text(only["firmware"])
        expect(versions.first.locator("td").last).to_have_text(str(only["runs"]))
        assert only["runs"] >= 2
        expect(page.get_by_test_id("fw-summary")).to_contain_text("no change to judge yet")
        expect(page.get_by_test_id("fw-method")).to_have_text(history["method"])
        shot(page, "firmware")
        assert problems == [], problems
    finally:
        context.close()
