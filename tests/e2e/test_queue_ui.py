"""Queue a test, follow it and edit the catalog in a real browser (headless Chromium).

A reviewer signs in, opens Queue a test, picks the simulated drive and four-corners,
shortens it through the form generated from the plan's schema, sees a bad value refused next
to its field (by the form, and by the api for a span larger than the drive), sees a wrong
serial refused next to the serial field, queues with the right serial and lands on the run
page, where progress grows and the chart draws live until the run is done and every step's
chart, the job files and the recorded drive and host are shown. The Lab page shows the bench
online and the run among recent runs. On the Catalog page a model is added and edited and a
small prices CSV is imported and listed. Screenshots: test-artifacts/screenshots/{queue,run,
lab,catalog}.png, copied to docs/screenshots/ with DRIVELAB_DOCS_SCREENSHOTS=1.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import uuid

import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_browser import (
    DOCS_SCREENSHOTS,
    DRAWN_LINE,
    VIEWPORT,
    browser,  # noqa: F401  (the module-scoped fixture, shared)
    progress_value,
    shot,
    sign_in,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SHORT = {"span": "64m", "runtime_s": "3", "seq_runtime_s": "2"}


def field(page, name: str):  # type: ignore[no-untyped-def]
    """The form field (label, input, help, error) of a plan parameter."""
    return page.locator(".param-form .form-field", has=page.locator(f"[name='param-{name}']"))


def watch_problems(page, expected: re.Pattern[str]) -> list[str]:  # type: ignore[no-untyped-def]
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))

    def on_response(r) -> None:  # type: ignore[no-untyped-def]
        if r.status >= 400 and not expected.search(f"{r.request.method} {r.url}"):
            problems.append(f"{r.status} {r.request.method} {r.url}")

    page.on("response", on_response)
    return problems


def test_queue_follow_and_catalog(browser, stack: Stack, sim_drive: dict) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    # Refusals the test provokes: estimates of bad values, the wrong serial and a bad price.
    # (Picking a drive asks no estimate of trace-replay, which needs a trace or a profile.)
    problems = watch_problems(
        page,
        re.compile(
            r"(POST .*/api/(plans/(?!trace-replay/)[\w-]+/estimate|runs)|PATCH .*/api/prices/\d+)$"
        ),
    )
    shots = {}
    try:
        sign_in(page, stack)

        # 1. Queue a test, from the Lab page's link for the drive.
        link = re.compile(rf"Queue a test on drive {sim_drive['id']}\b")
        page.get_by_role("link", name=link).click()
        expect(page).to_have_url(re.compile(rf"/queue\?drive={sim_drive['id']}$"))
        expect(page.get_by_label("Drive", exact=True)).to_have_value(str(sim_drive["id"]))
        # The choice goes to the URL in a router transition: wait for it to show as checked.
        page.locator("input[name=plan][value=four-corners]").click()
        expect(page.locator("input[name=plan][value=four-corners]")).to_be_checked()
        # trace-replay's card says what its defaults leave to choose, without a 422.
        trace_card = page.locator(
            ".plan-select__card", has=page.locator("input[value=trace-replay]")
        )
        expect(trace_card).to_contain_text("no default duration")
        expect(trace_card).to_contain_text("give exactly one of trace_id and profile")
        expect(page).to_have_url(re.compile(r"plan=four-corners"))
        # The review defaults are filled in.
        expect(page.locator("[name='param-span']")).to_have_value("8g")
        expect(page.locator("[name='param-runtime_s']")).to_have_value("180")
        expect(page.locator("[name='param-prewrite']")).to_be_checked()

        # A bad value is refused next to its field, by the form...
        page.locator("[name='param-runtime_s']").fill("0")
        expect(field(page, "runtime_s").locator(".form-field__error")).to_have_text(
            "must be at least 1"
        )
        # ...and by the api, for a span larger than the drive.
        page.locator("[name='param-runtime_s']").fill("3")
        page.locator("[name='param-span']").fill("9t")
        expect(field(page, "span").locator(".form-field__error")).to_contain_text(
            "larger than the drive", timeout=30_000
        )
        for name, value in SHORT.items():
            page.locator(f"[name='param-{name}']").fill(value)
        page.locator("[name='param-prewrite']").uncheck()
        expect(page.locator(".param-form .form-field__error")).to_have_count(0)
        expect(field(page, "runtime_s")).to_contain_text("changed")
        estimate = page.locator(".queue-page__estimate")
        expect(estimate).to_contain_text("Estimated duration")
        expect(estimate).not_to_have_class(re.compile("stale"))

        # A wrong serial: refused next to the serial field, nothing typed is lost.
        page.locator("[name=confirm_serial]").fill("NOT-" + sim_drive["serial"])
        page.get_by_role("button", name="Queue test").click()
        serial_field = page.locator(".form-field", has=page.locator("[name=confirm_serial]"))
        expect(serial_field.locator(".form-field__error")).to_contain_text("does not match")
        expect(page).to_have_url(re.compile(r"/queue\?"))
        expect(page.locator("[name='param-runtime_s']")).to_have_value("3")
        expect(page.locator("[name='param-prewrite']")).not_to_be_checked()
        shots["queue"] = shot(page, "queue")

        # 2. The right serial queues the run and opens its page.
        page.locator("[name=confirm_serial]").fill(sim_drive["serial"])
        page.get_by_role("button", name="Queue test").click()
        expect(page).to_have_url(re.compile(r"/runs/\d+$"), timeout=30_000)
        run_id = int(page.url.rsplit("/", 1)[1])
        header = page.locator(".page-header")
        expect(header.locator(".badge", has_text="running")).to_be_visible(timeout=30_000)
        bar = page.get_by_role("progressbar", name=f"Run {run_id} progress")
        first = progress_value(bar)
        page.wait_for_function(
            """(re) => [...document.querySelectorAll('.run-chart path.recharts-line-curve')]
                .some((p) => new RegExp(re).test(p.getAttribute('d') || ''))""",
            arg=DRAWN_LINE.pattern,
            timeout=30_000,
        )
        expect(page.locator(".run-page__eta dd")).to_contain_text("left")
        # It grows while the run goes on.
        deadline = time.monotonic() + 60
        while progress_value(bar) <= first and time.monotonic() < deadline:
            time.sleep(0.2)
        assert progress_value(bar) > first, f"progress stayed at {first}% for 60 s"
        expect(header.locator(".badge", has_text=re.compile(r"^done$"))).to_be_visible(
            timeout=90_000
        )
        with stack.client() as c:
            run = wait_run(c, run_id)
        assert run["status"] == "done", run
        assert run["params"]["runtime_s"] == 3 and run["params"]["prewrite"] is False

        # Every step with samples has its chart, drawn.
        sampled = [s for s in run["steps"] if s["kind"] == "fio"]
        charts = page.locator(".run-page__charts figure")
        expect(charts).to_have_count(len(sampled))
        page.wait_for_function(
            """([re, n]) => [...document.querySelectorAll('.run-page__charts figure')]
                .filter((f) => [...f.querySelectorAll('path.recharts-line-curve')]
                    .some((p) => new RegExp(re).test(p.getAttribute('d') || ''))).length === n""",
            arg=[DRAWN_LINE.pattern, len(sampled)],
            timeout=30_000,
        )
        expect(charts.first.get_by_role("button", name=re.compile("CSV"))).to_be_visible()
        # The job files and the drive and host as the bench recorded them.
        page.locator("details", has_text="Job files").locator("summary").click()
        expect(page.locator("body")).to_contain_text("[global]")
        env = page.locator("section", has=page.get_by_role("heading", name="Drive and host"))
        expect(env).to_contain_text(run["environment"]["drive"]["serial"])
        expect(env).to_contain_text(run["environment"]["host"]["fio_version"])
        shots["run"] = shot(page, "run")

        # 3. The Lab: the bench online, the run done among the recent runs.
        page.get_by_role("link", name="Lab", exact=True).click()
        bench = page.locator(".bench-card", has_text=f"Bench {sim_drive['bench']['name']}")
        expect(bench.locator(".badge", has_text=re.compile(r"^online$"))).to_be_visible()
        expect(page.locator(".page-header .badge", has_text=re.compile(r"^live$"))).to_be_visible()
        row = page.locator(
            ".runs-table tbody tr", has=page.get_by_role("link", name=f"#{run_id}", exact=True)
        )
        expect(row.locator(".badge", has_text=re.compile(r"^done$"))).to_be_visible()
        shots["lab"] = shot(page, "lab")

        # 4. The catalog: add a model, edit it, import prices for it.
        vendor = f"UiTest{uuid.uuid4().hex[:6]}"
        page.get_by_role("link", name="Catalog", exact=True).click()
        page.get_by_role("button", name="Add a model").click()
        add = page.get_by_role("form", name="Add a model")
        add.get_by_label("Vendor").fill(vendor)
        add.get_by_label("Model").fill("Blaze 7")
        add.get_by_label("Capacity").fill("2 TBytes")
        add.get_by_role("button", name="Add model").click()
        expect(add.locator(".form-field__error")).to_contain_text("is not a capacity")
        add.get_by_label("Capacity").fill("2 TB")
        add.get_by_role("button", name="Add model").click()
        model_row = page.locator(".catalog-page__models tbody tr", has_text=vendor)
        expect(model_row).to_contain_text("2 TB")
        model_row.get_by_role("button", name=re.compile("^Edit")).click()
        edit = page.get_by_role("form", name=re.compile(f"Edit model {vendor}"))
        edit.get_by_label("Controller").fill("Phison E26")
        edit.get_by_role("button", name="Save").click()
        expect(model_row).to_contain_text("Phison E26")

        page.locator("summary", has_text="Import prices from CSV").click()
        page.locator("textarea[name=prices_csv]").fill(
            "vendor,model,capacity_gb,retailer,price,currency,observed_on,source\n"
            f"{vendor},Blaze 7,2000,Newegg,149.99,USD,2026-11-20,https://shop.example/b7\n"
            f"{vendor},Blaze 7,2000,Amazon,1599.00,USD,2026-11-19,https://shop.example/a7\n"
        )
        page.get_by_role("button", name="Import", exact=True).click()
        expect(page.get_by_role("status")).to_contain_text("Imported 2 of 2 rows")
        prices = page.locator(".catalog-page__prices tbody tr", has_text=vendor)
        price_row = prices.filter(has_text="Newegg")
        expect(price_row).to_contain_text("149.99")
        expect(price_row).to_contain_text("2026-11-20")
        # A typo (1599.00 for 159.90) is corrected in place; a wrong entry is deleted.
        typo = prices.filter(has_text="Amazon")
        typo.get_by_role("button", name=re.compile("^Edit the price")).click()
        fix = page.get_by_role("form", name=re.compile("Correct the price"))
        fix.get_by_label("Price").fill("-3")
        fix.get_by_role("button", name="Save").click()
        expect(fix.locator(".form-field__error")).to_contain_text("greater than 0")
        fix.get_by_label("Price").fill("159.90")
        fix.get_by_role("button", name="Save").click()
        expect(typo).to_contain_text("159.90")
        shots["catalog"] = shot(page, "catalog")
        typo.get_by_role("button", name=re.compile("^Delete the price")).click()
        typo.get_by_role("button", name=re.compile("^Confirm: delete")).click()
        expect(prices).to_have_count(1)
        expect(prices).to_contain_text("Newegg")

        assert not problems, "the browser reported problems:\n" + "\n".join(problems)
    finally:
        context.close()

    if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for name, path in shots.items():
            shutil.copyfile(path, DOCS_SCREENSHOTS / f"{name}.png")
