"""Two firmware versions of one drive as an article, in a real browser (headless Chromium).

A drive of its own (a sparse file: it reports no firmware) is registered on firmware 1.00,
runs a short four-corners, is updated to 1.01 (PATCH, as a reviewer records a firmware
update) and runs it again. Each run keeps the version registered when it started: the
drive's firmware history lists both. The api's article of the two versions has a column per
version holding that version's run's figures (what fio measured, as GET /api/runs gives it)
and refuses a version the drive never ran, or one given twice. From the model's Firmware
history page, "Open the article" shows both labelled columns, the version under review first;
`drivelab firmware --drive ID --versions 1.00 1.01` prints the same headline.
Screenshot: test-artifacts/screenshots/firmware-article.png.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import Stack
from tests.e2e.test_browser import (
    VIEWPORT,
    browser,  # noqa: F401  (the module-scoped fixture, shared)
    shot,
    sign_in,
)
from tests.e2e.test_plans import results, run_plan
from tests.e2e.test_queue_ui import watch_problems

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]

SHORT = {"span": "32m", "runtime_s": 1, "seq_runtime_s": 1, "prewrite": False}


def test_two_versions_open_as_an_article(browser, stack: Stack) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    drive = stack.add_drive(
        stack.data_dir / "targets" / "fw-article.img", "Firmware article", size=256 * 1024**2
    )
    model_id = drive["model"]["id"]
    reads: dict[str, float] = {}
    with stack.client() as c:
        for fw in ("1.00", "1.01"):
            r = c.patch(f"/api/drives/{drive['id']}", json={"firmware": fw})
            assert r.status_code == 200 and r.json()["firmware"] == fw, r.text
            run = run_plan(c, drive, "four-corners", SHORT)
            step = next(s for s in run["steps"] if s["name"] == "randread-4k-qd3")
            reads[fw] = results(step)["read_iops"]
            assert reads[fw] > 0
        history = c.get(f"/api/models/{model_id}/firmware").json()
        # Each run counted to the version registered when it started, not to today's.
        assert [(d["drive_id"], d["firmwares"]) for d in history["drives"]] == [
            (drive["id"], ["1.00", "1.01"])
        ], history["drives"]
        assert [f["runs"] for f in history["firmwares"]] == [1, 1], history["firmwares"]
        q = f"/api/compare/article?drives={drive['id']}&firmware=1.00&firmware=1.01"
        r = c.get(q)
        assert r.status_code == 200, r.text
        article = r.json()
        assert article["by_firmware"] == drive["id"] and article["under_review"] == 2
        assert [d["firmware"] for d in article["drives"]] == ["1.00", "1.01"]
        read = next(row for row in article["headline"] if row["key"] == "randread")
        # One run a version: that run's figure, as fio measured it.
        assert read["values"] == {"1": reads["1.00"], "2": reads["1.01"]}
        assert read["diff"]["1"]["verdict"] == "1 run: significance unknown"
        twice = c.get(f"/api/compare/article?drives={drive['id']}&firmware=1.00&firmware=1.00")
        assert twice.status_code == 422 and "more than once" in twice.json()["detail"]
        never = c.get(f"/api/compare/article?drives={drive['id']}&firmware=1.00&firmware=9.9")
        assert never.status_code == 422, never.text
        assert "no finished run on firmware 9.9" in never.json()["detail"]
        assert "1.00, 1.01" in never.json()["detail"]
    # The CLI: the headline, each version's figure in a column, B's difference and verdict.
    out = stack.cli("firmware", "--drive", str(drive["id"]), "--versions", "1.00", "1.01")
    line = next(x for x in out.stdout.splitlines() if x.startswith("4K random read QD3 "))
    assert read["cells"]["1"]["text"] in line  # "304,752\u00a0IOPS", as the article says
    assert read["cells"]["2"]["text"] in line
    assert "1 run: significance unknown" in line
    refused = stack.cli(
        "firmware", "--drive", str(drive["id"]), "--versions", "1.00", "1.00", check=False
    )
    assert refused.returncode != 0 and "given more than once" in refused.stderr

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems = watch_problems(page, re.compile(r"^$"))  # none expected
    try:
        sign_in(page, stack)
        page.goto(f"/models/{model_id}/firmware")
        chooser = page.get_by_test_id("fw-article")
        expect(chooser.locator("select[name=fw-article-base]")).to_have_value("1.00")
        expect(chooser.locator("select[name=fw-article-reviewed]")).to_have_value("1.01")
        # The same version twice: said, no link.
        chooser.locator("select[name=fw-article-reviewed]").select_option("1.00")
        expect(chooser.get_by_role("alert")).to_have_text("Choose two different versions.")
        expect(chooser.get_by_role("link")).to_have_count(0)
        chooser.locator("select[name=fw-article-reviewed]").select_option("1.01")
        chooser.get_by_role("link", name="Open the article: 1.01 vs 1.00").click()
        expect(page).to_have_url(
            re.compile(
                rf"/models/{model_id}/firmware/article\?drive={drive['id']}&firmware=1\.00"
                r"&firmware=1\.01$"
            )
        )
        names = [d["name"] for d in article["drives"]]
        assert names[0].endswith("(fw 1.00)") and names[1].endswith("(fw 1.01)"), names
        base = names[0].removesuffix(" (fw 1.00)")
        expect(page.get_by_role("heading", level=1)).to_have_text(f"{base}: firmware 1.01 vs 1.00")
        heads = page.get_by_test_id("article-headline").locator("thead th")
        # The version under review first, as for drives.
        expect(heads).to_have_text(["Figure", names[1], names[0]])
        cells = page.get_by_test_id("article-headline").locator('tr[data-figure="randread"] td')
        expect(cells.nth(1)).to_have_attribute("data-drive", "2")
        expect(cells.nth(2)).to_have_attribute("data-drive", "1")
        expect(cells.nth(2).locator("[data-verdict]")).to_have_attribute(
            "data-verdict", "1 run: significance unknown"
        )
        drives = page.get_by_test_id("article-drives")
        expect(drives.locator('tr[data-drive="1"]')).to_contain_text("1.00")
        expect(drives.locator('tr[data-drive="2"]')).to_contain_text("under review")
        expect(drives.locator('tr[data-drive="2"]')).to_contain_text("1.01")
        shot(page, "firmware-article")
        page.get_by_role("link", name="Back to Firmware history").click()
        expect(page).to_have_url(re.compile(rf"/models/{model_id}/firmware$"))
        assert problems == [], problems
    finally:
        context.close()
