"""The Compare, Side by side and shared pages in a real browser against `drivelab demo`.

The session's quick demo on three simulated drives of 128 MiB (tests/e2e/conftest.py, which
test_demo checks) gives every chart data. Chromium chooses the drives, sees every chart
drawn, switches the consistency scatter to linear, exports PNG, SVG, CSV and the chart pack
and checks the files; a reviewer publishes a read-only link that opens without signing in
until it is revoked; a viewer cannot publish; side by side shows the differences.
Screenshots go to test-artifacts/screenshots/ (and to docs/screenshots/ with
DRIVELAB_DOCS_SCREENSHOTS=1).
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import struct
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Stack
from tests.e2e.conftest import Demo
from tests.e2e.test_browser import DOCS_SCREENSHOTS, VIEWPORT, browser, shot, sign_in

__all__ = ["browser"]  # the module's Chromium fixture, shared

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

SVG_NS = "{http://www.w3.org/2000/svg}"
ARTICLE_WIDTH = 650


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def docs_copy(path: Path) -> None:
    if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / path.name)


@pytest.fixture(scope="module")
def demo(quick_demo: Demo) -> list[dict[str, Any]]:
    assert "queued 24 runs" in quick_demo.out.stdout, quick_demo.out.stdout
    assert len(quick_demo.drives) == 3
    return quick_demo.drives


def download(page, button) -> tuple[str, bytes]:  # type: ignore[no-untyped-def]
    with page.expect_download() as info:
        button.click()
    dl = info.value
    path = dl.path()
    return dl.suggested_filename, Path(path).read_bytes()


def test_series_match_fio_totals(stack: Stack, demo: list[dict[str, Any]]) -> None:
    """The transfer-size curves are fio's own per-step totals (the results of the runs)."""
    ids = ",".join(str(d["id"]) for d in demo)
    with stack.client() as c:
        series = c.get("/api/compare/series", params={"drives": ids, "plan": "transfer-size"})
        assert series.status_code == 200, series.text
        compared = c.get("/api/compare", params={"drives": ids}).json()
    values = {
        (r["drive_id"], m["metric"]): r["value"] for m in compared["metrics"] for r in m["rows"]
    }
    checked = 0
    for drive in series.json()["drives"]:
        for line in drive["series"]:
            verb = line["role"].removeprefix("transfer-")
            for bs, mbps in line["points"]:
                size = {4096: "4k", 16384: "16k", 65536: "64k", 262144: "256k",
                        1048576: "1m", 4194304: "4m"}[int(bs)]  # fmt: skip
                key = (drive["drive_id"], f"transfer-size:{verb}-{size}:{verb}_mbps")
                assert mbps == pytest.approx(values[key]), key
                checked += 1
    assert checked == 3 * 2 * 6


def test_compare_page_charts_and_exports(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        sign_in(page, stack)
        page.goto("/compare")
        for d in demo:
            page.locator(f'.drive-picker input[type=checkbox][value="{d["id"]}"]').check()
        review = demo[1]
        page.locator(f'.drive-picker input[type=radio][value="{review["id"]}"]').check()
        ids = ",".join(str(d["id"]) for d in demo)
        expect(page).to_have_url(re.compile(rf"/compare\?drives={ids}&review={review['id']}$"))

        # Every chart draws.
        bars = page.locator('[data-chart^="bars-"]')
        expect(bars.first).to_be_visible()
        assert bars.count() >= 5
        expect(bars.first.locator("svg rect").first).to_be_visible()
        for chart in ("hdtach", "transfer", "stalls"):
            expect(
                page.locator(f"[data-chart={chart}] .recharts-line-curve").first
            ).to_be_attached()
        scatter = page.locator("[data-chart=consistency]")
        expect(scatter.locator("svg path").first).to_be_attached()
        price = page.locator("[data-chart=price-table]")
        expect(price.locator("table").first).to_be_visible()
        expect(price.get_by_test_id("unpriced")).to_contain_text("Simulated drive A")

        # Linear scale, zoomed, top 40K.
        scatter.get_by_label("Scale", exact=True).select_option("linear")
        expect(scatter.locator(".chart-frame__subtitle")).to_contain_text("linear")
        expect(scatter.locator("svg").first).to_contain_text("40K")
        nodes = page.evaluate("document.querySelectorAll('[data-chart=consistency] svg *').length")
        assert 0 < nodes < 2000
        page.wait_for_timeout(300)
        shot_path = shot(page, "compare")
        docs_copy(shot_path)

        name, png = download(page, scatter.get_by_role("button", name="PNG"))
        assert name == "compare-consistency-linear.png"
        width, height = png_size(png)
        assert width == 2 * ARTICLE_WIDTH and height > 300

        name, svg = download(page, scatter.get_by_role("button", name="SVG"))
        assert name == "compare-consistency-linear.svg"
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG_NS}svg" and root.get("width") == str(ARTICLE_WIDTH)
        texts = {
            el.get("data-export"): " ".join(t.strip() for t in el.itertext())
            for el in root.iter()
            if el.get("data-export") in ("title", "conditions", "provenance")
        }
        assert "Performance consistency" in texts["title"] and "linear" in texts["title"]
        for words in ("consistency", "QD32", "span", "incompressible", "OP 0%", "OP 25%"):
            assert words in texts["conditions"], texts["conditions"]
        for words in ("fw sim", "fio-", "Simulated drive A"):
            assert words in texts["provenance"], texts["provenance"]
        assert root.findall(f".//{SVG_NS}path"), "the scatter's paths are in the file"

        name, data = download(page, scatter.get_by_role("button", name="CSV"))
        assert name == "compare-consistency-linear.csv"
        rows = list(csv.reader(io.StringIO(data.decode())))
        assert rows[0] == ["series", "t_s", "write_iops"]
        assert len(rows) > 6 and all(float(r[2]) >= 0 for r in rows[1:])

        name, data = download(page, page.get_by_role("button", name="Download chart pack"))
        assert name == f"compare-chart-pack-{ARTICLE_WIDTH}.zip"
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            assert z.testzip() is None
            names = z.namelist()
            for chart in ("consistency-linear", "hdtach-all", "transfer-size", "stalls-seq"):
                assert f"compare-{chart}.svg" in names and f"compare-{chart}.png" in names, names
            assert len([n for n in names if "-bars-" in n]) >= 10
            assert png_size(z.read("compare-hdtach-all.png"))[0] == 2 * ARTICLE_WIDTH
            ET.fromstring(z.read("compare-transfer-size.svg"))
        assert errors == []
    finally:
        context.close()


def test_publish_share_and_side_by_side(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    a, b = demo[0], demo[1]
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    anonymous = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    try:
        sign_in(page, stack)
        page.goto(f"/compare?drives={a['id']},{b['id']}&review={a['id']}")
        page.get_by_role("button", name="Publish read-only link").click()
        link = page.get_by_label("Shared link")
        expect(link).to_have_value(re.compile(r"/shared/[\w-]+$"))
        url = link.input_value()
        token = url.rsplit("/", 1)[1]

        # Without signing in: the comparison, read-only.
        public = anonymous.new_page()
        public.goto(url.removeprefix(stack.api_url))
        expect(public.get_by_role("heading", level=1)).to_contain_text("Comparison:")
        expect(public.locator('[data-chart^="bars-"]').first).to_be_visible()
        expect(public.get_by_role("button", name="Publish read-only link")).to_have_count(0)
        assert "/login" not in public.url
        docs_copy(shot(public, "shared"))

        with stack.client() as c:
            assert c.delete(f"/api/shares/{token}").status_code == 204
        public.reload()
        expect(public.get_by_role("alert")).to_contain_text("no longer works")

        # Side by side: every shared metric with B's difference, coloured.
        page.goto(f"/compare/pair?a={a['id']}&b={b['id']}")
        table = page.get_by_test_id("pair-table").first
        expect(table).to_be_visible()
        assert page.locator("[data-testid=pair-table] tbody tr").count() >= 10
        judged = page.locator(".pair-diff--better, .pair-diff--worse")
        assert judged.count() > 0
        expect(judged.first).to_have_text(re.compile(r"^[+−]\d+\.\d%"))
        docs_copy(shot(page, "side-by-side"))
    finally:
        context.close()
        anonymous.close()


def test_a_viewer_cannot_publish(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    viewer = stack.create_user("viewer")
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack, viewer.name)
        page.goto(f"/compare?drives={demo[0]['id']},{demo[1]['id']}")
        expect(page.locator('[data-chart^="bars-"]').first).to_be_visible()
        expect(page.get_by_role("button", name="Publish read-only link")).to_have_count(0)
    finally:
        context.close()
