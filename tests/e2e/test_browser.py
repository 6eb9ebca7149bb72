"""The served UI in a real browser: Chromium (headless) against a running `drivelab up`.

The browser signs in through a one-time link, as a user of `drivelab up` does. The overview
lists the simulated drive and a healthy api; a run queued through the api is followed live on
its page (progress grows, the chart is drawn from the SSE samples) until it is done, and the
page shows the api's own results. A reviewer cancels a running run with the page's button; a
viewer's button is disabled. Screenshots go to test-artifacts/screenshots/; with
DRIVELAB_DOCS_SCREENSHOTS=1 the overview and run page are also copied to docs/screenshots/ for
the README.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, Stack, User, wait_run
from tests.e2e.test_run_path import queue

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 900}
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
# Shortened four-corners: no pre-write, 3 s random and 2 s sequential steps (8 steps, ~30 s).
PARAMS = {"span": "64m", "runtime_s": 3, "seq_runtime_s": 2, "prewrite": False}
# A drawn line: a move and at least one line segment with numbers.
DRAWN_LINE = re.compile(r"M\s*-?[\d.]+[ ,]-?[\d.]+\s*L\s*-?[\d.]+")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Chromium (`apt-get install -y chromium`; "
            "`make test` installs it)",
            pytrace=False,
        )
    from playwright.sync_api import expect, sync_playwright

    # Waits for what the page shows are bounded generously: a busy machine renders slowly.
    expect.set_options(timeout=20_000)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# Nothing on the page still loading: no chart or section saying so, nothing marked busy.
LOADED_JS = """() => ![
    ...document.querySelectorAll('.chart-frame__overlay, p.muted, [aria-busy=true]')
].some(e => e.getAttribute('aria-busy') === 'true' || /^Loading/.test(e.textContent.trim()))"""


def draw_later(page) -> None:  # type: ignore[no-untyped-def]
    """Scroll to each chart plot the page has not drawn yet, in page order, until every one is
    drawn, then back to the top: as a reader reading down the Compare page, which draws a
    chart only when it comes near the screen (ChartFrame's drawWhenNear)."""
    later = page.locator("[data-drawn=later]")
    looked_again = False
    for _ in range(200):
        # A chart whose answer is still coming is one to draw once it is in.
        page.wait_for_function(LOADED_JS)
        waiting = later.element_handles()  # now: one drawn meanwhile is not waited for
        if not waiting:
            if looked_again:
                break
            # The page can put charts in a moment after its answers are in (CI: a renderer
            # held up past the network's idle; a query asked on the first answer): it is
            # looked at once more before every chart is taken as drawn.
            page.wait_for_timeout(500)
            looked_again = True
            continue
        looked_again = False
        plot = waiting[0]
        plot.scroll_into_view_if_needed()
        page.wait_for_function("el => !el.isConnected || !el.hasAttribute('data-drawn')", arg=plot)
    assert later.count() == 0
    page.evaluate("window.scrollTo(0, 0)")


def read_down(page, timeout: float = 30_000) -> None:  # type: ignore[no-untyped-def]
    """The page's answers in (the network idle), every chart of it drawn (draw_later)."""
    page.wait_for_load_state("networkidle", timeout=timeout)
    draw_later(page)


# A chart pack draws every chart of the page off screen, twice the article's width for the
# PNGs: seconds when quiet, half a minute and more with the suite's other work on both cores.
PACK_TIMEOUT_S = 120.0


def download(page, button, timeout_s: float = 30) -> tuple[str, bytes]:  # type: ignore[no-untyped-def]
    """The file a click on `button` downloads: its suggested name and its bytes. None in
    `timeout_s`: the page's status lines (a pack's progress, or why it failed) say why."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    t = time.monotonic()
    try:
        with page.expect_download(timeout=timeout_s * 1000) as info:
            button.click()
    except PlaywrightTimeout as exc:
        said = page.get_by_role("status").all_inner_texts()
        raise AssertionError(f"no download in {timeout_s:.0f} s; the page says {said}") from exc
    dl = info.value
    data = Path(dl.path()).read_bytes()
    print(f"{dl.suggested_filename}: {time.monotonic() - t:.1f} s")
    return dl.suggested_filename, data


def shot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    draw_later(page)  # a full-page picture: every chart drawn in it
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def docs_copy(path: Path) -> None:
    """With DRIVELAB_DOCS_SCREENSHOTS=1, a screenshot is also copied to docs/screenshots/ for
    the README."""
    if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)


def progress_value(bar) -> int:  # type: ignore[no-untyped-def]
    return int(bar.get_attribute("aria-valuenow"))


def decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def sign_in(page, stack: Stack, user: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Open a one-time sign-in link, as printed by `drivelab up` or `drivelab login-link`."""
    from playwright.sync_api import expect

    link = stack.login_link(user)
    page.goto(link.removeprefix(stack.api_url))
    expect(page).to_have_url(re.compile(r"/$"))
    # The link is spent and out of the address bar; the header names the user.
    assert "once=" not in page.url
    expect(page.locator(".app-user__name")).to_have_text(user or "admin")


def test_overview_and_live_run_page(browser, stack: Stack, sim_drive: dict) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: (
            problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    page.on(
        "response",
        lambda r: (
            problems.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 400 else None
        ),
    )
    try:
        # 1. Signed in with a one-time link; the overview: the simulated drive, flagged as
        # such, and a healthy api.
        sign_in(page, stack)
        drive_row = page.locator(".drives-table tbody tr", has_text=sim_drive["serial"])
        expect(drive_row).to_have_count(1)
        expect(drive_row.locator(".badge", has_text="simulated")).to_be_visible()
        bench = page.locator(".bench-card", has=drive_row)
        expect(bench.get_by_role("heading")).to_contain_text(sim_drive["bench"]["name"])
        expect(page.locator(".app-header .health__button")).to_have_class(
            re.compile(r"\bhealth__button--ok\b")
        )
        expect(page.get_by_role("button", name="All systems ok: show details")).to_be_visible()

        # 2. A run queued through the api, followed live on its page.
        with stack.client() as c:
            run = queue(c, sim_drive, PARAMS)
            run_id = run["id"]
            page.goto(f"/runs/{run_id}")
            expect(page.get_by_role("heading", name=f"Run #{run_id}")).to_be_visible()
            header = page.locator(".page-header")
            expect(header.locator(".badge", has_text="running")).to_be_visible(timeout=30_000)
            # The page gets the run's events over SSE, not by polling.
            expect(header.locator(".badge", has_text=re.compile(r"^live$"))).to_be_visible()

            bar = page.get_by_role("progressbar", name=f"Run {run_id} progress")
            first = progress_value(bar)
            # The live chart draws the current step's samples as they arrive.
            page.wait_for_function(
                """(re) => [...document.querySelectorAll(
                        '.run-chart path.recharts-line-curve')]
                    .some((p) => new RegExp(re).test(p.getAttribute('d') || ''))""",
                arg=DRAWN_LINE.pattern,
                timeout=30_000,
            )
            shot(page, "run-live")
            # It grows while the run goes on (the run takes about 30 s).
            deadline = time.monotonic() + 60
            while progress_value(bar) <= first and time.monotonic() < deadline:
                time.sleep(0.2)
            assert progress_value(bar) > first, f"progress stayed at {first}% for 60 s"

            expect(header.locator(".badge", has_text=re.compile(r"^done$"))).to_be_visible(
                timeout=60_000
            )
            expect(bar).to_have_attribute("aria-valuenow", "100")
            final = wait_run(c, run_id)
        assert final["status"] == "done", final

        # The results shown for a step are the api's, to the precision displayed.
        step = next(s for s in final["steps"] if s["name"] == "randread-4k-qd3")
        api = {r["metric"]: r for r in step["results"]}
        step_row = page.locator(".steps-table tbody tr", has_text=step["name"])
        expect(step_row).to_contain_text(step["label"])  # "4K random read QD3"
        page.get_by_role("button", name=step["name"], exact=True).click()
        expect(page).to_have_url(re.compile(rf"[?&]step={step['id']}\b"))
        results = page.locator(".run-page__results table")
        row = results.locator(
            "tbody tr", has=page.locator("td .cell-sub", has_text=re.compile("^read_mbps$"))
        )
        expect(row).to_have_count(1)
        # named in words, the raw key under it
        expect(row.locator("td").first).to_contain_text("read MB/s")
        shown = row.locator("td").nth(1).inner_text()
        assert row.locator("td").nth(2).inner_text() == api["read_mbps"]["unit"] == "MB/s"
        value = float(shown.replace(",", ""))
        tolerance = 0.5 * 10 ** -decimals(shown) + 1e-9
        assert abs(value - api["read_mbps"]["value"]) <= tolerance, (
            f"page shows {shown} MB/s, api says {api['read_mbps']['value']}"
        )
        assert value > 0
        # Every metric of the step is listed, in the api's order.
        metrics = results.locator("tbody tr td:first-child .cell-sub").all_inner_texts()
        assert metrics == [r["metric"] for r in step["results"]]
        expect(page.locator(".run-chart path.recharts-line-curve").first).to_have_attribute(
            "d", DRAWN_LINE
        )
        # A sparse file has no temperature sensor: said, and no °C axis drawn.
        throughput = page.locator(".run-chart .chart-frame").first
        expect(throughput.locator(".chart-frame__subtitle")).to_contain_text(
            "temperature: no sensor"
        )
        expect(throughput.locator(".recharts-yAxis")).to_have_count(1)
        run_png = shot(page, "run-done")

        # 3. Back on the overview (in-app navigation), the run is listed as done.
        page.get_by_role("link", name="Lab", exact=True).click()
        run_row = page.locator(
            ".runs-table tbody tr", has=page.get_by_role("link", name=f"#{run_id}", exact=True)
        )
        expect(run_row).to_have_count(1)
        expect(run_row.locator(".badge", has_text=re.compile(r"^done$"))).to_be_visible(
            timeout=30_000
        )
        expect(run_row).to_contain_text("four-corners")
        expect(run_row.locator(".badge", has_text="simulated")).to_be_visible()
        expect(drive_row.locator(".badge", has_text=re.compile(r"^free$"))).to_be_visible()
        overview_png = shot(page, "overview")

        assert not problems, "the browser reported problems:\n" + "\n".join(problems)
    finally:
        context.close()

    # 4. The screenshots for the docs, on request.
    if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(overview_png, DOCS_SCREENSHOTS / "overview.png")
        shutil.copyfile(run_png, DOCS_SCREENSHOTS / "run.png")


def test_a_reviewer_cancels_a_run_and_a_viewer_cannot(  # type: ignore[no-untyped-def]
    browser, stack: Stack, sim_drive: dict, users: dict[str, User]
) -> None:
    from playwright.sync_api import expect

    with stack.client(token=users["reviewer"].token) as reviewer:
        run = queue(reviewer, sim_drive, {**PARAMS, "runtime_s": 120})
        wait_run(reviewer, run["id"], timeout=60, until=("running", "done", "failed"))

        viewer_context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
        try:
            page = viewer_context.new_page()
            sign_in(page, stack, users["viewer"].name)
            page.goto(f"/runs/{run['id']}")
            button = page.get_by_role("button", name="Cancel run")
            expect(button).to_be_disabled()
            expect(button).to_have_attribute("title", re.compile("needs a reviewer"))
        finally:
            viewer_context.close()

        context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
        try:
            page = context.new_page()
            sign_in(page, stack, users["reviewer"].name)
            page.goto(f"/runs/{run['id']}")
            header = page.locator(".page-header")
            expect(header.locator(".badge", has_text="running")).to_be_visible(timeout=30_000)
            page.once("dialog", lambda dialog: dialog.accept())
            with page.expect_response(
                lambda r: r.url.endswith(f"/api/runs/{run['id']}/cancel")
            ) as cancelled:
                page.get_by_role("button", name="Cancel run").click()
            # The browser sent the CSRF token of its cookie session; the api took it.
            assert cancelled.value.status == 200, cancelled.value.text()
            assert cancelled.value.request.header_value("x-csrf-token")
            expect(header.locator(".badge", has_text=re.compile(r"^cancelled$"))).to_be_visible(
                timeout=30_000
            )
            # Signing out ends the session: the app goes back to the login page.
            page.get_by_role("button", name="Sign out").click()
            expect(page).to_have_url(re.compile(r"/login$"))
            page.goto(f"/runs/{run['id']}")
            expect(page).to_have_url(re.compile(rf"/login\?next=%2Fruns%2F{run['id']}$"))
        finally:
            context.close()
        assert wait_run(reviewer, run["id"])["status"] == "cancelled"
