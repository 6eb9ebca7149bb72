"""Charts that need no editing, measured in Chromium: the drawn boxes of every chart kind.

On the session's quick demo (three simulated drives, tests/e2e/conftest.py) and on the same
three with two more drives given copies of drive A's runs (five drives), Chromium opens
Compare and measures what it drew (getBoundingClientRect of each text and mark):
- no two texts of a chart overlap (axis titles and ticks, step-down labels, QD labels, the
  target's label), no reference label lies on a point, no point is cut at the plot's edge;
- every axis steps by 1, 2, 2.5 or 5 x 10^n (or by a constant ratio on a log axis);
- the two consistency panels share their y axis; a drive keeps its colour whichever drive is
  under review; HD Tach with five drives is five small panels;
- the chart pack of five drives holds every chart as a valid SVG and PNG, and each exported
  file's texts lie inside the image without overlapping (drawn by Chromium from the file).
The pack's time is written to test-artifacts/chart-pack-ms.txt (tests/bench/bench_chart_pack.py
measures it), never asserted.
"""

from __future__ import annotations

import io
import math
import re
import struct
import xml.etree.ElementTree as ET
import zipfile
from typing import Any

import psycopg
import pytest

from tests.conftest import ROOT, Stack
from tests.e2e.conftest import Demo
from tests.e2e.test_browser import (
    PACK_TIMEOUT_S,
    VIEWPORT,
    browser,
    download,
    read_down,
    shot,
    sign_in,
)

__all__ = ["browser"]  # the module's Chromium fixture, shared

# The quick demo may be set up in this module's first test (up to 430 s on a busy machine).
pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]

ARTICLE_WIDTH = 650
ARTIFACTS = ROOT / "test-artifacts"

# Every text of a chart's SVGs (a chart may be several panels) whose box overlaps another's.
# Boxes are the glyph boxes Chromium gives; 1 px of slack for the line box of a font.
OVERLAPS_JS = """(sel) => {
  const out = [];
  const charts = sel ? [...document.querySelectorAll(sel)] : [document.body];
  for (const chart of charts) {
    const svgs = [...chart.querySelectorAll('svg')].filter(s => !s.parentElement.closest('svg')
      || sel === null);
    const texts = svgs.flatMap(s => [...s.querySelectorAll('text')])
      .filter(t => t.textContent.trim() && getComputedStyle(t).display !== 'none'
        && getComputedStyle(t).visibility !== 'hidden' && t.getBoundingClientRect().width > 0);
    const uniq = [...new Set(texts)];
    const boxes = uniq.map(t => t.getBoundingClientRect());
    for (let i = 0; i < uniq.length; i++) for (let j = i + 1; j < uniq.length; j++) {
      if (uniq[i].contains(uniq[j]) || uniq[j].contains(uniq[i])) continue;
      const a = boxes[i], b = boxes[j];
      const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (ox > 1 && oy > 2) out.push([chart.getAttribute('data-chart') || 'file',
        uniq[i].textContent.trim(), uniq[j].textContent.trim()]);
    }
  }
  return out;
}"""

# Reference labels (the latency target) that lie on a drawn point, and points cut by the edge
# of their plot (the clip rectangle Recharts draws them in).
MARKS_JS = """(sel) => {
  const onPoints = [], cut = [];
  for (const chart of document.querySelectorAll(sel)) {
    for (const svg of chart.querySelectorAll('svg')) {
      const dots = [...svg.querySelectorAll('.recharts-line-dots circle, circle.recharts-dot')];
      const dotBoxes = dots.map(d => d.getBoundingClientRect()).filter(r => r.width > 0);
      for (const label of svg.querySelectorAll('[data-mark-label], [data-point-label]')) {
        const a = label.getBoundingClientRect();
        for (const b of dotBoxes) {
          const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (ox > 0.5 && oy > 0.5) onPoints.push([chart.getAttribute('data-chart'),
            label.textContent.trim()]);
        }
      }
      const clip = svg.querySelector('defs clipPath rect');
      if (!clip) continue;
      const c = clip.getBoundingClientRect();
      for (const d of dots) {
        const r = d.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5
            || r.bottom > c.bottom + 0.5)
          cut.push([chart.getAttribute('data-chart'), Math.round(r.left), Math.round(r.top)]);
      }
    }
  }
  return {onPoints, cut};
}"""

AXES_JS = """(sel) => [...document.querySelectorAll(sel)].flatMap(chart =>
  [...chart.querySelectorAll('.recharts-xAxis, .recharts-yAxis')].map(axis => [
    chart.getAttribute('data-chart'),
    [...axis.querySelectorAll('.recharts-cartesian-axis-tick-value')]
      .map(t => t.textContent.trim())]))"""

NUMBER = re.compile(r"^(?P<num>\d{1,3}(?:,\d{3})*|\d+)(?:\.(?P<dec>\d+))?(?P<suffix>[KM]?)$")


def tick_value(text: str) -> float | None:
    m = NUMBER.match(text)
    if not m:
        return None
    value = float(m["num"].replace(",", "") + ("." + m["dec"] if m["dec"] else ""))
    return value * {"": 1, "K": 1e3, "M": 1e6}[m["suffix"]]


def nice(step: float) -> bool:
    mag = 10 ** math.floor(math.log10(step) + 1e-12)
    return any(abs(step / mag - m) < 1e-6 for m in (1, 2, 2.5, 5, 10))


def bad_axes(page, charts: str) -> list[tuple[str, list[str]]]:  # type: ignore[no-untyped-def]
    """Axes whose numeric ticks do not step by 1, 2, 2.5 or 5 x 10^n (nor by one ratio, as a
    log axis does), or show one label twice."""
    bad = []
    for chart, ticks in page.evaluate(AXES_JS, charts):
        if len(set(ticks)) != len(ticks):
            bad.append((chart, ticks))
            continue
        values = [tick_value(t) for t in ticks]
        if len(values) < 3 or any(v is None for v in values):
            continue  # units in the labels (latency, transfer sizes): a log axis of its own
        vs = [float(v) for v in values if v is not None]
        diffs = [b - a for a, b in zip(vs, vs[1:], strict=False)]
        if all(abs(d - diffs[0]) <= 1e-6 * max(1.0, abs(diffs[0])) for d in diffs):
            if not nice(diffs[0]):
                bad.append((chart, ticks))
            continue
        ratios = [b / a for a, b in zip(vs, vs[1:], strict=False) if a > 0]
        if not ratios or max(ratios) / min(ratios) > 1.1:
            bad.append((chart, ticks))
    return bad


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


ALL_CHARTS = "[data-chart]"


def open_compare(page, stack: Stack, ids: list[int], review: int) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    sign_in(page, stack)
    page.goto(f"/compare?drives={','.join(map(str, ids))}&review={review}")
    read_down(page, timeout=60_000)
    expect(page.locator("[data-chart=hdtach] .recharts-line-curve").first).to_be_attached(
        timeout=60_000
    )
    expect(page.locator("[data-chart=consistency] svg path").first).to_be_attached(timeout=60_000)
    expect(page.locator("[data-chart=stalls] .recharts-line-curve").first).to_be_attached(
        timeout=60_000
    )
    page.wait_for_timeout(500)


def check_drawn(page) -> None:  # type: ignore[no-untyped-def]
    assert page.evaluate(OVERLAPS_JS, ALL_CHARTS) == []
    marks = page.evaluate(MARKS_JS, ALL_CHARTS)
    assert marks["onPoints"] == [], marks
    assert marks["cut"] == [], marks
    assert bad_axes(page, ALL_CHARTS) == []


@pytest.fixture(scope="module")
def five(stack: Stack, quick_demo: Demo) -> list[dict[str, Any]]:
    """The demo's three drives and two more, each given copies of drive A's finished runs
    (results, analysis and logs; no samples)."""
    from tests.bench.bench_reads import Loader

    demo = quick_demo.drives
    assert len(demo) == 3
    extra = [
        stack.add_drive(
            stack.data_dir / "targets" / f"boxes-{i}.img", f"Copied drive {i}", size=64 * 1024**2
        )
        for i in (4, 5)
    ]
    assert stack.database_url
    with psycopg.connect(stack.database_url) as conn:
        runs = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM runs WHERE drive_id = %s AND status = 'done' ORDER BY id",
                (demo[0]["id"],),
            )
        ]
        assert runs
        loader = Loader(conn, runs)
        import random
        import time

        rng = random.Random(25)
        finished = time.time() - 3600
        for k, d in enumerate(extra):
            for src in runs:
                finished += 60
                loader.clone_run(src, d["id"], finished, 0.7 + 0.2 * k, rng, samples=False)
        conn.commit()
    return [*demo, *extra]


def test_three_drives_drawn_clean(browser, stack: Stack, quick_demo: Demo) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    demo = quick_demo.drives
    ids = [d["id"] for d in demo]
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        open_compare(page, stack, ids, ids[1])
        check_drawn(page)
        # The consistency panels share their y axis, in every view.
        scatter = page.locator("[data-chart=consistency]")
        for mode in ("log", "log-zoom", "linear"):
            scatter.get_by_label("Scale", exact=True).select_option(mode)
            page.wait_for_timeout(300)
            y_axes = [
                ticks
                for chart, ticks in page.evaluate(AXES_JS, "[data-chart=consistency]")
                if chart == "consistency"
            ]
            # x, y of each panel: the y lists are the odd ones.
            ys = y_axes[1::2]
            assert len(ys) in (1, 2)
            assert all(y == ys[0] for y in ys), y_axes
            subtitle = scatter.locator(".chart-frame__subtitle").inner_text()
            assert not re.search(r"\d\.\d{3,}", subtitle), subtitle
            check_drawn(page)
        # Every point of the tail-latency chart that has room says its QD, when the drives
        # have a sweep.
        latency = page.locator('[data-chart="compare-qd-sweep-latency"]')
        if latency.count():
            expect(latency.locator("[data-point-label]").first).to_be_attached()
            labels = latency.locator("[data-point-label]").all_text_contents()
            assert all(re.fullmatch(r"QD\d+", t) for t in labels), labels

        # A drive keeps its colour whichever drive is under review.
        def colours() -> dict[str, str]:
            legend = page.locator("[data-chart=hdtach] .chart-frame__legend li")
            return {
                li.inner_text().split(",")[0].split(" (")[0]: li.locator(
                    ".chart-frame__swatch"
                ).evaluate("s => getComputedStyle(s).backgroundColor")
                for li in legend.all()
                if "write pass" in li.inner_text()
            }

        before = colours()
        page.goto(f"/compare?drives={','.join(map(str, reversed(ids)))}&review={ids[2]}")
        read_down(page)
        expect(page.locator("[data-chart=hdtach] .recharts-line-curve").first).to_be_attached()
        after = colours()
        assert before and before == after
        shot(page, "compare-boxes-3")
    finally:
        context.close()


def test_five_drives_and_the_chart_pack(  # type: ignore[no-untyped-def]
    browser, stack: Stack, five: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    ids = [d["id"] for d in five]
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_compare(page, stack, ids, ids[0])
        # HD Tach with five drives: five small panels on one scale.
        hdtach = page.locator("[data-chart=hdtach]")
        expect(hdtach.locator("[data-multiples]")).to_have_attribute("data-multiples", "5")
        panels = hdtach.locator(".chart-panel")
        expect(panels).to_have_count(5)
        y_ticks = [t for c, t in page.evaluate(AXES_JS, "[data-chart=hdtach]")][1::2]
        assert len(y_ticks) == 5 and all(t == y_ticks[0] for t in y_ticks), y_ticks
        check_drawn(page)
        shot(page, "compare-boxes-5")

        pack = page.get_by_role("button", name="Download chart pack")
        name, data = download(page, pack, PACK_TIMEOUT_S)
        expect(pack).to_have_attribute("data-pack-ms", re.compile(r"^\d+$"))
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "chart-pack-ms.txt").write_text(
            f"{pack.get_attribute('data-pack-ms')} ms for {len(ids)} drives "
            f"(every chart drawn off screen after {pack.get_attribute('data-pack-drawn-ms')} ms)\n"
        )
        assert name == f"compare-chart-pack-{ARTICLE_WIDTH}.zip"
        exported = page.evaluate(
            "() => document.querySelectorAll('[data-chart] .chart-frame__export').length"
        )
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            assert z.testzip() is None
            names = z.namelist()
            assert len(names) == len(set(names))
            svgs = {n: z.read(n) for n in names if n.endswith(".svg")}
            pngs = {n: z.read(n) for n in names if n.endswith(".png")}
            # Every chart with an export is in the pack, as SVG and PNG.
            assert len(svgs) == len(pngs) >= exported - 1, (len(svgs), exported)
            assert {n[:-4] for n in svgs} == {n[:-4] for n in pngs}
            for n, svg in svgs.items():
                root = ET.fromstring(svg)
                assert root.get("width") == str(ARTICLE_WIDTH), n
                width, height = png_size(pngs[n[:-4] + ".png"])
                assert width == 2 * ARTICLE_WIDTH and height == 2 * int(str(root.get("height"))), n
            assert not [n for n in names if re.search(r"(\b\w+-)\1", n)], names
        # Every exported file, drawn by Chromium: texts inside the image and not on each other.
        viewer = context.new_page()
        for n, svg in svgs.items():
            viewer.set_content(f"<html><body style='margin:0'>{svg.decode()}</body></html>")
            outside = viewer.evaluate(
                """() => [...document.querySelectorAll('text')].filter(t => {
                    const r = t.getBoundingClientRect();
                    if (!t.textContent.trim() || r.width === 0) return false;
                    const box = t.closest('svg').getBoundingClientRect();
                    const outer = document.querySelector('svg').getBoundingClientRect();
                    return [box, outer].some(b => r.left < b.left - 1 || r.right > b.right + 1
                                                || r.top < b.top - 1 || r.bottom > b.bottom + 1);
                }).map(t => t.textContent.trim())"""
            )
            assert outside == [], n
            assert viewer.evaluate(OVERLAPS_JS, None) == [], n
        viewer.close()
        assert errors == []
    finally:
        context.close()
