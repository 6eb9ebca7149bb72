"""The Compare, Side by side and shared pages in a real browser against `drivelab demo`.

The session's quick demo on three simulated drives of 256 MiB (tests/e2e/conftest.py, which
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
import json
import re
import struct
import unicodedata
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Stack
from tests.e2e.conftest import Demo
from tests.e2e.test_browser import (
    PACK_TIMEOUT_S,
    SCREENSHOTS,
    VIEWPORT,
    browser,
    docs_copy,
    download,
    read_down,
    shot,
    sign_in,
)
from worker.sim.controller import requirements

__all__ = ["browser"]  # the module's Chromium fixture, shared

# The first test waits for the session's quick demo (minutes on a busy machine) when this
# module runs first of the demo's modules (tests/conftest.py SHARED_WORKER).
pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]

SVG_NS = "{http://www.w3.org/2000/svg}"
ARTICLE_WIDTH = 650


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def demo(quick_demo: Demo) -> list[dict[str, Any]]:
    assert "queued 24 runs" in quick_demo.out.stdout, quick_demo.out.stdout
    assert len(quick_demo.drives) == 3
    return quick_demo.drives


@pytest.fixture(scope="module")
def reviewed(stack: Stack, demo: list[dict[str, Any]]) -> dict[str, Any]:
    """The reviewer's own drive, measured unlike the demo's: four corners over 256 MiB for
    2 s per random test (the demo's: 32 MiB, 1 s), no other plan; its short name is set."""
    drive = stack.add_drive(
        stack.data_dir / "targets" / "compare-reviewed.img", "Reviewed drive", size=512 * 1024**2
    )
    out = stack.cli(
        "run", "four-corners", "--drive", str(drive["id"]), "--param", "span=256m",
        "--param", "runtime_s=2", "--param", "seq_runtime_s=1", "--param", "prewrite=false",
        "--confirm-serial", drive["serial"], "--wait", "--json", timeout=300,
    )  # fmt: skip
    assert json.loads(out.stdout)["status"] == "done", out.stdout
    with stack.client() as c:
        r = c.patch(f"/api/drives/{drive['id']}", json={"short_name": "Rev 512"})
        assert r.status_code == 200 and r.json()["short_name"] == "Rev 512", r.text
    return r.json()


def svg_texts(svg: bytes) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {
        str(el.get("data-export")): " ".join(t.strip() for t in el.itertext())
        for el in root.iter()
        if el.get("data-export") in ("title", "conditions", "provenance", "simulated", "warnings")
    }


def check_labels_whole(svg: bytes, names: set[str]) -> None:
    """Every drive label of a bar chart is a drive's whole name (wrapped over lines, never
    cut with an ellipsis), and no text of the chart is cut either."""
    root = ET.fromstring(svg)
    assert "…" not in "".join(root.itertext())
    labels = [el for el in root.iter() if el.get("data-label")]
    for el in labels:
        shown = " ".join(t.strip() for t in el.itertext() if t.strip())
        label = el.get("data-label")
        assert shown.removesuffix(" (not ranked)") == label, (shown, label)
        assert any(n in str(el.get("data-label")) for n in names), (el.get("data-label"), names)


def mbps(value: float) -> str:
    """MB/s as the HD Tach chart's step-down marks write them: 24→12, 40.8→20.1, 412."""
    return f"{value:.0f}" if value >= 100 else f"{round(value, 1):g}"


def texts_outside(page, svg: bytes) -> list[str]:  # type: ignore[no-untyped-def]
    """The texts of an exported SVG that do not lie whole inside the image (or inside the
    chart body's own clipping box), as Chromium draws the file: cut labels, a legend or a
    title running off the edge."""
    page.set_content(f"<html><body style='margin:0'>{svg.decode()}</body></html>")
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll('text')].filter(t => {
                const r = t.getBoundingClientRect();
                if (!t.textContent.trim() || r.width === 0) return false;
                const box = t.closest('svg').getBoundingClientRect();
                const outer = document.querySelector('svg').getBoundingClientRect();
                return [box, outer].some(b => r.left < b.left - 1 || r.right > b.right + 1
                                            || r.top < b.top - 1 || r.bottom > b.bottom + 1);
            }).map(t => t.textContent.trim())"""
        )
    )


# A number on an axis: digits with an optional thousands separator and decimals, an optional
# K or M, an optional unit.
TICK = re.compile(r"^(?P<num>\d{1,3}(?:,\d{3})*|\d+)(?:\.(?P<dec>\d+))?(?P<suffix>[KM]?)\b")


def mixed_axes(page, charts: str) -> list[tuple[str, list[str]]]:  # type: ignore[no-untyped-def]
    """The axes of the charts matching `charts` whose tick labels are not in one number
    format: different decimals, or thousands separators beside K/M (8,000 / 22k / 10K)."""
    axes = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].flatMap(chart =>
            [...chart.querySelectorAll('.recharts-xAxis, .recharts-yAxis')].map(axis => [
              chart.getAttribute('data-chart'),
              [...axis.querySelectorAll('.recharts-cartesian-axis-tick-value')]
                .map(t => t.textContent.trim())]))""",
        charts,
    )
    mixed = []
    for chart, ticks in axes:
        parsed = [TICK.match(t) for t in ticks if t not in ("", "0")]
        if not parsed:
            continue
        assert all(parsed), (chart, ticks)
        decimals = {len(m["dec"] or "") for m in parsed if m}
        commas = any("," in m["num"] for m in parsed if m)
        suffixes = {m["suffix"] for m in parsed if m} - {""}
        if len(decimals) > 1 or (commas and suffixes):
            mixed.append((chart, ticks))
    return mixed


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


def signed_in(browser, stack: Stack) -> tuple[Any, Any, list[str]]:  # type: ignore[no-untyped-def]
    """A new browser context (downloads accepted) with a page signed in as the admin, and the
    list its page errors go to."""
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        sign_in(page, stack)
    except BaseException:
        context.close()
        raise
    return context, page, errors


def test_compare_page_charts_and_exports(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    context, page, errors = signed_in(browser, stack)
    try:
        page.goto("/compare")
        for d in demo:
            page.locator(f'.drive-picker input[type=checkbox][value="{d["id"]}"]').check()
        review = demo[1]
        page.locator(f'.drive-picker input[type=radio][value="{review["id"]}"]').check()
        ids = ",".join(str(d["id"]) for d in demo)
        expect(page).to_have_url(re.compile(rf"/compare\?drives={ids}&review={review['id']}$"))
        read_down(page)  # each chart is drawn as it comes near the screen

        # Every chart draws.
        bars = page.locator('[data-chart^="bars-"]')
        expect(bars.first).to_be_visible()
        assert bars.count() >= 5
        expect(bars.first.locator("svg .recharts-bar-rectangle").first).to_be_visible()
        expect(bars.first.get_by_test_id("simulated-mark")).to_contain_text("Simulated drive")
        for chart in ("hdtach", "transfer", "stalls"):
            expect(
                page.locator(f"[data-chart={chart}] .recharts-line-curve").first
            ).to_be_attached()
        # Every step-down of the HD Tach passes is marked at its place with its levels, every
        # stall of the sequential hitching and of the write after the TRIM shaded, as the api
        # gives them (with simulated drives they have some: test_demo).
        with stack.client() as c:

            def found(plan: str, roles: tuple[str, ...], key: str) -> list[dict[str, Any]]:
                got = c.get("/api/compare/series", params={"drives": ids, "plan": plan}).json()
                return [x for d in got["drives"] for s in d["series"] if s["role"] in roles
                        for x in s.get(key) or []]  # fmt: skip

            downs = found("hdtach", ("hdtach-write", "hdtach-read"), "step_downs")
            stalls = found("write-hitching", ("hitch-seq",), "stalls") + found(
                "trim-performance", ("trim-followup-write",), "stalls"
            )
        hdtach = page.locator("[data-chart=hdtach]")
        marks = hdtach.locator(".recharts-reference-line")
        expect(marks).to_have_count(len(downs))
        labels = " ".join(hdtach.locator("svg text").all_text_contents())
        for sd in downs:
            assert f"↓ {mbps(sd['from_mbps'])}→{mbps(sd['to_mbps'])} MB/s" in labels, labels
        if not requirements():
            assert downs and stalls
            expect(hdtach.locator(".chart-frame__legend")).to_contain_text("steps down at")
        expect(page.locator("[data-chart=stalls] .recharts-reference-area")).to_have_count(
            len(stalls)
        )
        scatter = page.locator("[data-chart=consistency]")
        expect(scatter.locator("svg path").first).to_be_attached()
        price = page.locator("[data-chart=price-table]")
        expect(price.locator("table").first).to_be_visible()
        expect(price.get_by_test_id("unpriced")).to_contain_text("Simulated drive A")
        expect(page.locator("[data-chart=hdtach] .recharts-reference-line").first).to_be_attached()

        # Bar labels whole on screen: inside their chart, never past its left edge.
        cut = page.evaluate(
            """() => [...document.querySelectorAll('[data-chart^="bars-"] [data-label]')]
                .filter(g => g.getBBox().x < 0).map(g => g.getAttribute('data-label'))"""
        )
        assert cut == []
        # Legends: paired bars say which is which; read passes are dashed, write passes not.
        paired = page.locator(
            '[data-chart="bars-four-corners-randwrite-4k-qd3-incompressible-write-iops"]'
        )
        legend = paired.get_by_role("list", name="Legend")
        expect(legend).to_contain_text("incompressible data (solid)")
        expect(legend).to_contain_text("compressible data (light)")
        hdtach = page.locator("[data-chart=hdtach]").get_by_role("list", name="Legend")
        reads = hdtach.locator("li", has_text="read pass")
        writes = hdtach.locator("li", has_text="write pass")
        expect(reads).to_have_count(3)
        expect(writes).to_have_count(3)
        expect(reads.locator(".chart-frame__swatch--dashed")).to_have_count(3)
        expect(writes.locator(".chart-frame__swatch--dashed")).to_have_count(0)
        # One number format per axis, in every chart of the article.
        article = '[data-chart^="bars-"], [data-chart=hdtach], [data-chart=consistency], '
        article += "[data-chart=transfer], [data-chart=stalls]"
        assert mixed_axes(page, article) == []

        # Metrics in words: "Add a metric" by plan and test, no raw keys; an added metric is
        # a chart of its own, kept in the address for the Report.
        add = page.get_by_label("Add a metric")
        groups = add.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
        # by plan and test: "Four corners · 4K random read QD3"
        plans = {g.split(" · ")[0] for g in groups}
        assert "Four corners" in plans and "Performance consistency" in plans, groups
        options = add.locator("option").all_inner_texts()
        assert len(options) > 50
        assert not [o for o in options if re.search(r"\w+:\w|_\w+_", o)], options
        p99 = "four-corners:randread-4k-qd3:read_lat_p99_us"
        add.select_option(p99)
        added = page.locator('[data-chart="bars-four-corners-randread-4k-qd3-read-lat-p99-us"]')
        expect(added).to_contain_text("4K random read QD3: 99th percentile latency")
        expect(page).to_have_url(re.compile(rf"&metrics={p99}$"))
        page.get_by_role("link", name="Report").click()
        # The Report is on screen once the address says so: the router keeps the Compare page
        # (which has the same chart) until the Report's code is in, and a Back before that
        # leaves the Compare page, not the Report.
        expect(page).to_have_url(re.compile(rf"/report\?.*metrics={p99}"))
        expect(
            page.locator('[data-chart="bars-four-corners-randread-4k-qd3-read-lat-p99-us"]')
        ).to_be_visible()
        page.go_back()
        expect(added).to_be_visible()
        read_down(page)  # the page is opened again: its charts drawn as the reader comes to them

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
        text = data.decode()
        assert text.startswith("# title: Performance consistency")
        assert "# simulated: " in text and "# provenance: drivelab · " in text
        rows = list(csv.reader(io.StringIO(text), strict=True))
        rows = [r for r in rows if not r[0].startswith("#")]
        assert rows[0] == ["series", "t_s", "write_iops"]
        assert len(rows) > 6 and all(float(r[2]) >= 0 for r in rows[1:])

        name, data = download(
            page, page.get_by_role("button", name="Download chart pack"), PACK_TIMEOUT_S
        )
        assert name == f"compare-chart-pack-{ARTICLE_WIDTH}.zip"
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            assert z.testzip() is None
            names = z.namelist()
            for chart in ("consistency-linear", "hdtach-all", "transfer-size", "stalls-seq"):
                assert f"compare-{chart}.svg" in names and f"compare-{chart}.png" in names, names
            assert len([n for n in names if "-bars-" in n]) >= 10
            assert png_size(z.read("compare-hdtach-all.png"))[0] == 2 * ARTICLE_WIDTH
            ET.fromstring(z.read("compare-transfer-size.svg"))
            # The CSVs and the price table are in the pack too.
            assert "compare-price-table.csv" in names
            assert "compare-consistency-linear.csv" in names
            # Every chart: its labels whole and the simulated mark (every drive here is).
            drive_names = {f"Simulated drive {x}" for x in "ABC"}
            svgs = {n: z.read(n) for n in names if n.endswith(".svg")}
            for svg_name, svg in svgs.items():
                assert "Simulated drive" in svg_texts(svg).get("simulated", ""), svg_name
                check_labels_whole(svg, drive_names)
            # The HD Tach legend's read passes dashed in the file too.
            root = ET.fromstring(svgs["compare-hdtach-all.svg"])
            assert len(root.findall(f"{SVG_NS}line[@stroke-dasharray]")) == 3
        # Every text of every exported chart inside the image, as Chromium draws it.
        viewer = context.new_page()
        for svg_name, svg in svgs.items():
            assert texts_outside(viewer, svg) == [], svg_name
        viewer.close()
        assert errors == []
    finally:
        context.close()


def test_compare_page_draws_the_charts_a_reader_comes_to(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    """Opened, the Compare page draws the charts near the screen only: the ones further down
    wait, drawn as the reader scrolls to them; the chart pack holds every chart all the same,
    and printing draws every one at once."""
    from playwright.sync_api import expect

    context, page, errors = signed_in(browser, stack)
    try:
        ids = ",".join(str(d["id"]) for d in demo)
        page.goto(f"/compare?drives={ids}&review={demo[1]['id']}")
        page.wait_for_load_state("networkidle")
        later = page.locator("[data-drawn=later]")
        expect(later.first).to_be_attached()
        waiting = later.count()
        frames = page.locator("figure.chart-frame").count()
        assert 5 <= waiting <= frames, (waiting, frames)
        # A plot left undrawn is more than a screen below the window.
        tops = later.evaluate_all("els => els.map(e => e.getBoundingClientRect().top)")
        assert min(tops) > VIEWPORT["height"], tops
        hdtach = page.locator("[data-chart=hdtach]")
        expect(hdtach.locator(".recharts-line-curve")).to_have_count(0)

        # Without a scroll, the pack has every chart.
        name, data = download(
            page, page.get_by_role("button", name="Download chart pack"), PACK_TIMEOUT_S
        )
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
        for chart in ("hdtach-all", "transfer-size", "stalls-seq"):
            assert f"compare-{chart}.svg" in names, names
        assert [n for n in names if re.fullmatch(r"compare-consistency-\w+\.svg", n)], names
        assert len([n for n in names if "-bars-" in n and n.endswith(".svg")]) >= 5, names
        assert later.count() == waiting  # the pack drew off screen, not on the page

        # Scrolled to, a chart is drawn, and stays drawn.
        hdtach.scroll_into_view_if_needed()
        expect(hdtach.locator(".recharts-line-curve").first).to_be_attached()
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(300)
        expect(hdtach.locator(".recharts-line-curve").first).to_be_attached()
        assert 0 < later.count() < waiting

        # Printing: every chart drawn before the print is laid out.
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        expect(later).to_have_count(0)
        expect(page.locator("[data-chart=consistency] svg path").first).to_be_attached()
        assert errors == []
    finally:
        context.close()


# The per-chart endpoints a page no longer asks on first open: their answers come in one
# GET /api/compare/charts (or a shared link's /charts).
PER_CHART = re.compile(r"/(compare|shares/[^/]+)/(series|latency|latency/steps|qd-sweep|pts)$|"
                       r"/(prices/table|shares/[^/]+/prices)$")  # fmt: skip


def api_calls(page, stack: Stack) -> list[str]:  # type: ignore[no-untyped-def]
    """Every /api/ request the page sends from now on (its path), live streams left out."""
    calls: list[str] = []

    def sent(request: Any) -> None:
        path = request.url.removeprefix(stack.api_url).split("?")[0]
        if path.startswith("/api/") and not path.endswith("/events"):
            calls.append(path.removeprefix("/api"))

    page.on("request", sent)
    return calls


def test_compare_and_shared_pages_ask_a_handful_of_calls(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]]
) -> None:
    """Opened afresh, the Compare page of every demo drive asks each thing once: who is
    signed in, the drives, the api's health, the comparison, the review's article, every
    chart in one answer and the per-dollar value of the first headline metric; the shared
    link's page its share, its charts and its value. No chart asks its own endpoint."""
    from playwright.sync_api import expect

    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    anonymous = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    try:
        page = context.new_page()
        sign_in(page, stack)
        ids = ",".join(str(d["id"]) for d in demo)
        calls = api_calls(page, stack)
        page.goto(f"/compare?drives={ids}&review={demo[1]['id']}")  # a full load
        read_down(page)
        for chart in ("hdtach", "transfer", "stalls"):
            expect(
                page.locator(f"[data-chart={chart}] .recharts-line-curve").first
            ).to_be_attached()
        expect(page.locator("[data-chart=consistency] svg path").first).to_be_attached()
        expect(page.locator("[data-chart=price-table] table").first).to_be_visible()
        expect(page.locator('[data-section="qos"] svg').first).to_be_attached()
        page.wait_for_load_state("networkidle")
        assert [c for c in calls if PER_CHART.search(c)] == [], calls
        assert sorted(calls) == sorted(set(calls)), f"asked more than once: {calls}"
        assert calls.count("/compare/charts") == 1, calls
        assert len(calls) <= 8, calls

        with stack.client() as c:
            token = c.post(
                "/api/shares", json={"drives": [d["id"] for d in demo], "title": "Calls"}
            ).json()["token"]
        public = anonymous.new_page()
        shared = api_calls(public, stack)
        public.goto(f"/shared/{token}")
        for chart in ("hdtach", "transfer", "stalls"):
            expect(
                public.locator(f"[data-chart={chart}] .recharts-line-curve").first
            ).to_be_attached()
        expect(public.locator("[data-chart=price-table] table").first).to_be_visible()
        public.wait_for_load_state("networkidle")
        assert [c for c in shared if PER_CHART.search(c)] == [], shared
        assert f"/shares/{token}/charts" in shared, shared
        assert sorted(shared) == sorted(set(shared)), f"asked more than once: {shared}"
        assert len(shared) <= 5, shared
    finally:
        context.close()
        anonymous.close()


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
        # With a metric added as a chart of its own: the reader sees that chart too.
        p99 = "four-corners:randread-4k-qd3:read_lat_p99_us"
        added = '[data-chart="bars-four-corners-randread-4k-qd3-read-lat-p99-us"]'
        page.goto(f"/compare?drives={a['id']},{b['id']}&review={a['id']}&metrics={p99}")
        read_down(page)
        expect(page.locator(added)).to_be_visible()
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
        expect(public.locator(added)).to_contain_text("4K random read QD3: 99th percentile")
        expect(public.get_by_role("button", name="Publish read-only link")).to_have_count(0)
        assert "/login" not in public.url

        with stack.client() as c:
            assert c.delete(f"/api/shares/{token}").status_code == 204
        public.reload()
        expect(public.get_by_role("alert")).to_contain_text("no longer works")

        # Side by side: every shared metric with B's difference, coloured.
        page.goto(f"/compare/pair?a={a['id']}&b={b['id']}")
        # The headline figures first; every figure both have collapsed below them.
        expect(page.get_by_test_id("article-headline")).to_be_visible()
        table = page.get_by_test_id("pair-table").first
        expect(table).to_be_hidden()
        page.get_by_test_id("pair-all").locator("summary").click()
        expect(table).to_be_visible()
        assert page.locator("[data-testid=pair-table] tbody tr").count() >= 10
        # The quick demo ran each plan once per drive: a difference is shown but, without
        # run-to-run noise to judge it against, never coloured better or worse (issue 28).
        assert page.locator(".pair-diff--better, .pair-diff--worse").count() == 0
        unknown = page.locator("[data-testid=pair-table] td.pair-diff--unknown")
        assert unknown.count() > 0
        expect(unknown.first).to_have_text(re.compile(r"^[+−±]\d+\.\d%\s*1 run$"))
        assert "1 run: significance unknown" in (unknown.first.get_attribute("title") or "")
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


READ_IOPS = "four-corners:randread-4k-qd3:read_iops"


def test_conditions_that_differ_are_flagged_everywhere(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]], reviewed: dict[str, Any]
) -> None:
    """The reviewer's drive (256 MiB, 2 s) against the demo's (32 MiB, 1 s): the warning and
    the rows set apart on screen, in the SVG, the PNG drawn from it, the CSV and the shared
    link; the consistency chart says the drive under review has no run of it."""
    from playwright.sync_api import expect

    ids = [reviewed["id"], *(d["id"] for d in demo)]
    with stack.client() as c:
        answer = c.get(
            "/api/compare",
            params={"drives": ",".join(map(str, ids)), "under_review": reviewed["id"]},
        ).json()
    metric = next(m for m in answer["metrics"] if m["metric"] == READ_IOPS)
    assert metric["names"]["title"] == "4K random read QD3: IOPS"
    assert {"span", "runtime"} <= set(metric["differing"])
    rows = metric["rows"]
    assert rows[0]["drive_id"] == reviewed["id"] and rows[0]["set_apart"] is None
    assert all(r["set_apart"] == "span 32 MiB, not 256 MiB" for r in rows[1:])

    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    anonymous = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        sign_in(page, stack)
        page.goto(f"/compare?drives={','.join(map(str, ids))}&review={reviewed['id']}")
        read_down(page)
        chart = page.locator('[data-chart="bars-four-corners-randread-4k-qd3-read-iops"]')
        warnings = chart.get_by_role("list", name=re.compile("^Warnings for"))
        expect(warnings).to_contain_text("measured with different span: ")
        expect(warnings).to_contain_text("is not ranked with the others: span 32 MiB, not 256 MiB")
        expect(chart.locator("svg [data-label]").first).to_have_attribute("data-label", "Rev 512")
        expect(chart.locator("svg")).to_contain_text("(not ranked)")
        expect(chart.get_by_test_id("simulated-mark")).to_contain_text("Rev 512")
        # The drive under review has no consistency run: the chart says so.
        expect(page.locator("[data-chart=consistency]")).to_contain_text(
            "The drive under review, Rev 512, is not in this chart"
        )
        docs_copy(shot(page, "compare-conditions"))

        name, svg = download(page, chart.get_by_role("button", name="SVG"))
        assert name == "compare-bars-randread-4k-qd3-read-iops.svg"
        texts = svg_texts(svg)
        assert "measured with different span: " in texts["warnings"]
        assert "not ranked with the others" in texts["warnings"]
        assert "Rev 512" in texts["simulated"]
        assert "Four corners" in texts["title"] and "IOPS" in texts["title"]
        check_labels_whole(svg, {"Rev 512", *(f"Simulated drive {x}" for x in "ABC")})
        name, png = download(page, chart.get_by_role("button", name="PNG"))
        assert png_size(png)[0] == 2 * ARTICLE_WIDTH
        name, data = download(page, chart.get_by_role("button", name="CSV"))
        text = data.decode()
        assert "# warning: measured with different span: " in text
        assert f"# metric: {READ_IOPS} (IOPS)" in text and "# simulated: " in text
        table = [r for r in csv.reader(io.StringIO(text)) if not r[0].startswith("#")]
        header, first = table[0], table[1]
        assert header[:3] == ["drive", "value (IOPS)", "ranked"] and "span" in header
        assert first[0] == "Rev 512" and first[2] == "yes"
        assert first[header.index("span")] == "256 MiB"
        assert all(r[2] == "no: span 32 MiB, not 256 MiB" for r in table[2:])
        assert len(first[header.index("job file sha256")]) == 64
        # values rounded to what the measurement supports: 4 significant digits, whole from 10,000
        for r in table[1:]:
            value = float(r[1])
            digits = r[1].replace("-", "").replace(".", "").lstrip("0")
            assert (value >= 10_000 and "." not in r[1]) or len(digits.rstrip("0") or "0") <= 4, r

        # The shared link: the same warnings, the simulated mark and every chart, read-only.
        page.get_by_role("button", name="Publish read-only link").click()
        url = page.get_by_label("Shared link").input_value()
        public = anonymous.new_page()
        public.goto(url.removeprefix(stack.api_url))
        expect(public.get_by_test_id("simulated-mark").first).to_contain_text("Rev 512")
        shared_chart = public.locator('[data-chart="bars-four-corners-randread-4k-qd3-read-iops"]')
        expect(shared_chart).to_contain_text("measured with different span: ")
        for section in ("hdtach", "consistency", "transfer", "stalls", "qos", "prices"):
            expect(public.locator(f'section[data-section="{section}"]')).to_be_visible()
        expect(
            public.locator("[data-chart=compare-qos-exceedance] .recharts-line-curve").first
        ).to_be_attached()
        expect(public.get_by_label("QoS test")).to_contain_text("4K random read QD3")
        plans = public.get_by_label("QoS plan").locator("option").all_inner_texts()
        assert plans[:2] == ["Queue-depth sweep", "Four corners"], plans
        expect(public.locator("[data-chart=hdtach] .recharts-line-curve").first).to_be_attached()
        expect(public.locator("[data-chart=consistency] path[d*='h0']").first).to_be_attached()
        expect(public.locator("[data-chart=price-table] table").first).to_be_visible()
        expect(public.get_by_role("button", name="Publish read-only link")).to_have_count(0)
        expect(public.locator(".all-results")).to_contain_text("Four corners")
        # Every result, a column per drive, named in words: the raw keys stay in the api.
        public.locator(".all-results summary").click()
        expect(public.locator(".all-results th", has_text="Rev 512").first).to_be_visible()
        assert "four-corners:" not in (public.locator(".all-results").text_content() or "")
        docs_copy(shot(public, "shared"))
        assert errors == []
    finally:
        context.close()
        anonymous.close()


def test_side_by_side_names_variants_and_colours_only_performance(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]], reviewed: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/compare/pair?a={reviewed['id']}&b={demo[0]['id']}")
        page.get_by_test_id("pair-all").locator("summary").click()
        table = page.get_by_test_id("pair-all")
        expect(page.get_by_test_id("pair-table").first).to_be_visible()
        # Grouped by test, each named once; a row's name unique within its test.
        tests = table.locator(".pair-group h4").all_inner_texts()
        assert len(tests) == len(set(tests)), tests
        assert "4K random write QD3, compressible" in tests
        assert "4K random write QD3, incompressible" in tests
        for group in table.locator(".pair-group").all():
            names = group.locator("tbody tr td:first-child").all_inner_texts()
            assert len(names) == len(set(names)), names
        # (`has` is matched inside each group: a locator from the page, not from the table)
        row = page.locator(f'tr[data-metric="{READ_IOPS}"]')
        iops_group = table.locator(".pair-group", has=row)
        runtime = table.locator('tr[data-metric="four-corners:randread-4k-qd3:read_runtime_s"]')
        expect(runtime.locator("td").last).to_have_class(re.compile("pair-diff--info"))
        # Over another span: the difference shown, neither better nor worse.
        iops = table.locator(f'tr[data-metric="{READ_IOPS}"]')
        expect(iops.locator("td").last).to_have_class(re.compile("pair-diff--apart"))
        expect(iops.locator("td").last).to_contain_text("not ranked")
        expect(iops.locator("td").last).to_have_attribute(
            "title", "not ranked: span 256 MiB vs 32 MiB"
        )
        # what A and B were measured under, said once for the test, not on every row
        expect(iops_group.get_by_test_id("pair-differs")).to_have_count(1)
        expect(iops_group.get_by_test_id("pair-differs")).to_contain_text("span 256 MiB vs 32 MiB")
        expect(page.get_by_role("list", name="Warnings for Four corners")).to_contain_text(
            "measured with different span"
        )
        docs_copy(shot(page, "side-by-side"))
    finally:
        context.close()


def test_the_report_prints_to_pdf(  # type: ignore[no-untyped-def]
    browser, stack: Stack, demo: list[dict[str, Any]], reviewed: dict[str, Any], tmp_path: Path
) -> None:
    """The comparison report in article order, printed by Chromium: several pages, each
    section and the results table in it, app chrome and buttons left out."""
    from playwright.sync_api import expect
    from pypdf import PdfReader

    ids = [reviewed["id"], *(d["id"] for d in demo)]
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/report?drives={','.join(map(str, ids))}&review={reviewed['id']}")
        report = page.get_by_test_id("report")
        expect(report.get_by_role("heading", level=1)).to_have_text(
            re.compile(r"^Comparison report: Rev 512 vs ")
        )
        expect(report.locator('[data-chart^="bars-"]').first).to_be_visible()
        expect(page.locator("[data-chart=hdtach] .recharts-line-curve").first).to_be_attached()
        expect(page.locator("[data-chart=consistency] path[d*='h0']").first).to_be_attached()
        expect(page.locator("[data-chart=price-table] table").first).to_be_visible()
        # conditions and provenance of each chart are in the report
        expect(report.get_by_test_id("chart-provenance").first).to_contain_text("drivelab · ")
        page.wait_for_timeout(500)
        # The report's first screens (the whole page runs to every result).
        page.set_viewport_size({"width": 1280, "height": 1800})
        page.wait_for_timeout(300)
        report_png = SCREENSHOTS / "report.png"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(report_png))
        docs_copy(report_png)
        pdf = SCREENSHOTS / "report.pdf"  # kept with the screenshots, to look at
        page.pdf(path=str(pdf), format="A4", print_background=True)
        reader = PdfReader(str(pdf))
        pages = [p.extract_text() or "" for p in reader.pages]
        assert len(pages) >= 4, len(pages)
        blank = [i + 1 for i, text in enumerate(pages) if not text.strip()]
        assert blank == [], f"blank pages {blank} of {len(pages)} in {pdf}"
        # lines wrap anywhere in a PDF, and "fi" may be a ligature
        text = " ".join(unicodedata.normalize("NFKC", "\n".join(pages)).split())
        for heading in (
            "Comparison report: Rev 512",
            "Results, best first",
            "4K random read QD3: IOPS",
            "Throughput against position",
            "Performance consistency",
            "Transfer size",
            "Stall timelines",
            "Prices and performance per dollar",
            "Headline figures",
            "Findings",
            "measured with different span",
            "Simulated drive",
        ):
            assert heading in text, heading
        for chrome in ("Sign out", "Print or save as PDF", "Download chart pack", "SVGPNGCSV"):
            assert chrome not in text, chrome
        # No table cut at the page's edge (the QoS table's last columns), no raw keys.
        for column in ("P99.999", "MAX", "Latency exceedance"):
            assert column in text, column
        assert "four-corners:" not in text
        # The per-drive report: one drive, its own charts.
        page.goto(f"/report?drives={reviewed['id']}")
        expect(page.get_by_role("heading", level=1)).to_have_text("Drive report: Rev 512")
    finally:
        context.close()
