"""The pages around the article, in Chromium against the session's quick demo (three simulated
drives of 256 MiB; tests/conftest.py SHARED_WORKER): the Shared links page lists who made a
link, when, its drives and views, and revokes it; Queue this plan again keeps the run's
parameters; a review default that does not fit a small drive is said without an estimate the
api would refuse.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.conftest import Stack
from tests.e2e.conftest import Demo
from tests.e2e.test_browser import VIEWPORT, browser, sign_in

__all__ = ["browser"]

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def demo(quick_demo: Demo) -> list[dict[str, Any]]:
    assert len(quick_demo.drives) == 3
    return quick_demo.drives


def test_shared_links_page_lists_counts_and_revokes(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    ids = [d["id"] for d in demo[:2]]
    with stack.client() as c:
        r = c.post("/api/shares", json={"drives": ids, "title": "Two for the editor"})
        assert r.status_code == 201, r.text
        share = r.json()
    for _ in range(2):
        assert httpx.get(share["url"]).status_code == 200
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.get_by_role("link", name="Shared links").click()
        expect(page).to_have_url(re.compile(r"/shares$"))
        row = page.locator(f'tr[data-share="{share["id"]}"]')
        expect(row).to_contain_text("Two for the editor")
        expect(row).to_contain_text("Simulated drive A")
        expect(row.get_by_test_id("share-views")).to_have_text("2")
        page.once("dialog", lambda d: d.accept())
        row.get_by_role("button", name="Revoke").click()
        expect(row).to_contain_text("revoked")
        assert httpx.get(share["url"]).status_code == 404
    finally:
        context.close()


def test_queue_again_keeps_the_runs_parameters(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    drive = demo[0]
    with stack.client() as c:
        runs = c.get("/api/runs", params={"limit": 200}).json()
    runs = runs["items"] if isinstance(runs, dict) else runs
    run = next(r for r in runs if r["drive_id"] == drive["id"] and r["plan"] == "four-corners")
    refused: list[str] = []
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    page.on(
        "response",
        lambda r: (
            refused.append(f"{r.status} {r.url}")
            if "/estimate" in r.url and r.status >= 400
            else None
        ),
    )
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{run['id']}")
        page.get_by_role("link", name="Queue this plan again").click()
        expect(page).to_have_url(re.compile(rf"from={run['id']}"))
        expect(page.get_by_test_id("queue-again")).to_contain_text(f"run {run['id']}")
        # the demo's quick four corners: 32 MiB for 1 s, not the review defaults (8g, 180 s)
        expect(page.locator("[name='param-span']")).to_have_value("32m")
        expect(page.locator("[name='param-runtime_s']")).to_have_value("1")
        expect(page.locator(".queue-page__estimate")).to_contain_text("Estimated duration")

        # The review default span (8g) on this 256 MiB drive: said by the form, no 422 asked.
        page.goto(f"/queue?drive={drive['id']}&plan=four-corners")
        expect(page.locator("[name='param-span']")).to_have_value("8g")
        error = page.locator(".form-field", has=page.locator("[name='param-span']"))
        expect(error.locator(".form-field__error")).to_contain_text(
            "8g (8 GiB) is larger than the drive (256 MiB): choose a smaller span"
        )
        page.wait_for_timeout(1000)  # the form's debounce, and more
        assert refused == [], refused
    finally:
        context.close()


def test_a_drives_short_name_is_edited_during_a_run(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    """The api takes a short name while a run uses the drive (README): so does the Catalog's
    Edit button, with the short name alone."""
    import time

    from playwright.sync_api import expect

    # A drive of its own: the demo's drives keep only the demo's runs (test_demo counts them).
    drive = stack.add_drive(
        stack.data_dir / "targets" / "edit-during-run.img", "Edit during run", size=256 * 1024**2
    )
    with stack.client() as c:
        r = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": drive["id"],
                "params": {"span": "32m", "runtime_s": 30, "seq_runtime_s": 1, "prewrite": False},
                "confirm_serial": drive["serial"],
            },
        )
        assert r.status_code == 201, r.text
        run_id = r.json()["id"]
        deadline = time.monotonic() + 240
        while c.get(f"/api/runs/{run_id}").json()["status"] != "running":
            assert time.monotonic() < deadline, "the run did not start"
            time.sleep(0.5)
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto("/catalog")
        edit = page.get_by_role("button", name=f"Edit drive {drive['id']} ({drive['serial']})")
        expect(edit).to_be_enabled()
        edit.click()
        expect(page.get_by_role("note").filter(has_text=f"Run #{run_id}")).to_be_visible()
        expect(page.get_by_label("Serial", exact=True)).to_have_count(0)  # only the short name
        page.get_by_label("Short name").fill("Demo C")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("shown as “Demo C”")).to_be_visible()
        with stack.client() as c:
            assert c.get(f"/api/drives/{drive['id']}").json()["short_name"] == "Demo C"
    finally:
        context.close()
        with stack.client() as c:
            c.post(f"/api/runs/{run_id}/cancel")
            deadline = time.monotonic() + 240
            while c.get(f"/api/runs/{run_id}").json()["status"] not in (
                "done", "failed", "cancelled", "lost",
            ):  # fmt: skip
                assert time.monotonic() < deadline, "the run did not end after cancel"
                time.sleep(0.5)
            c.patch(f"/api/drives/{drive['id']}", json={"short_name": drive.get("short_name")})
