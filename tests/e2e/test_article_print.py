"""The Report in article order, printed to PDF by Chromium for two and for five drives: the page
count a reviewer can take into an article (at most 12 pages for two drives, 20 for five), no
empty boxes, and on every page no text box overlapping another and none cut at the page edge
(measured with pdfplumber). Also the article's parts on screen: the headline table with the
reviewed drive's differences, the findings in words, the appendix collapsed and printed only
when asked; and Add a metric searched.

The drives: the session's quick demo (three simulated drives, every chart's data; shared with
test_demo and test_compare_ui, tests/conftest.py SHARED_WORKER) and two more that ran four
corners only.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Stack
from tests.e2e.conftest import Demo
from tests.e2e.test_browser import SCREENSHOTS, VIEWPORT, browser, read_down, sign_in

__all__ = ["browser"]

# The first test waits for the session's quick demo (minutes on a busy machine) when this
# module runs alone or first.
pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(900)]

MAX_PAGES = {2: 12, 5: 20}


@pytest.fixture(scope="module")
def drives(stack: Stack, quick_demo: Demo) -> list[dict[str, Any]]:
    """The demo's three drives and two that ran a short four corners."""
    assert len(quick_demo.drives) == 3
    out = list(quick_demo.drives)
    for n in range(2):
        drive = stack.add_drive(
            stack.data_dir / "targets" / f"article-{n}.img", f"Article {n}", size=256 * 1024**2
        )
        run = stack.cli(
            "run", "four-corners", "--drive", str(drive["id"]), "--param", "span=32m",
            "--param", "runtime_s=1", "--param", "seq_runtime_s=1", "--param", "prewrite=false",
            "--confirm-serial", drive["serial"], "--wait", "--json", timeout=300,
        )  # fmt: skip
        assert json.loads(run.stdout)["status"] == "done", run.stdout
        out.append(drive)
    return out


def overlaps(words: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of words on a page whose boxes overlap by more than a sliver (a third of the
    smaller box's height and a third of its width)."""
    found = []
    boxes = sorted(words, key=lambda w: w["x0"])
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if b["x0"] >= a["x1"]:
                break
            dx = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            dy = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if dx <= 0 or dy <= 0:
                continue
            small_w = min(a["x1"] - a["x0"], b["x1"] - b["x0"])
            small_h = min(a["bottom"] - a["top"], b["bottom"] - b["top"])
            if dx > small_w / 3 and dy > small_h / 3:
                found.append((a["text"], b["text"]))
    return found


def check_pdf(path: Path, max_pages: int) -> str:
    """The PDF's page count, overlaps and cut text; its text, whitespace folded."""
    import pdfplumber

    texts = []
    with pdfplumber.open(str(path)) as pdf:
        assert 1 <= len(pdf.pages) <= max_pages, f"{len(pdf.pages)} pages in {path}"
        for number, page in enumerate(pdf.pages, 1):
            words = page.extract_words(use_text_flow=False, keep_blank_chars=False)
            assert words, f"page {number} of {path} is blank"
            cut = [
                w["text"]
                for w in words
                if w["x0"] < 0 or w["top"] < 0 or w["x1"] > page.width or w["bottom"] > page.height
            ]
            assert cut == [], f"page {number} of {path}: text cut at the edge {cut[:10]}"
            bad = overlaps(words)
            assert bad == [], f"page {number} of {path}: text boxes overlap {bad[:10]}"
            texts.append(page.extract_text() or "")
    return " ".join(unicodedata.normalize("NFKC", "\n".join(texts)).split())


def open_report(page, ids: list[int], review: int) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(f"/report?drives={','.join(map(str, ids))}&review={review}")
    article = page.get_by_test_id("article")
    expect(article.get_by_test_id("article-headline")).to_be_visible()
    expect(article.get_by_test_id("article-findings")).to_have_count(len(ids))
    expect(page.locator("[data-chart=hdtach] .recharts-line-curve").first).to_be_attached()
    expect(page.locator("[data-chart=price-table] table").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)


@pytest.mark.parametrize("count", [2, 5], ids=["two-drives", "five-drives"])
def test_report_prints_within_its_pages(  # type: ignore[no-untyped-def]
    browser, stack: Stack, drives: list[dict[str, Any]], count: int
) -> None:
    ids = [d["id"] for d in drives[:count]]
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        open_report(page, ids, ids[0])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        pdf = SCREENSHOTS / f"article-{count}.pdf"  # kept to look at
        page.pdf(path=str(pdf), format="A4", print_background=True)
        text = check_pdf(pdf, MAX_PAGES[count])
        for heading in ("Headline figures", "Findings", "Throughput against position"):
            assert heading in text, heading
        # No empty boxes, no appendix unless asked, no raw keys.
        assert not re.search(r"no finished", text, re.IGNORECASE), text
        assert "Appendix" not in text
        assert "four-corners:" not in text
        for chrome in ("Print or save as PDF", "Include the appendix"):
            assert chrome not in text, chrome
    finally:
        context.close()


def test_article_on_screen_and_appendix_on_request(  # type: ignore[no-untyped-def]
    browser, stack: Stack, drives: list[dict[str, Any]], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    a, b = drives[0], drives[1]
    other = drives[3]  # four corners only
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        open_report(page, [a["id"], b["id"], other["id"]], a["id"])
        headline = page.get_by_test_id("article-headline")
        # the reviewed drive first; its difference under each other drive, signed
        head = headline.locator("thead th").all_inner_texts()
        assert len(head) == 4, head
        read = headline.locator('tr[data-figure="randread"]')
        diff = read.locator(f'td[data-drive="{b["id"]}"] .cell-sub')
        expect(diff).to_have_text(re.compile(r"^[+−±]\d+\.\d%$"))
        # values and units stay together
        cell = read.locator(f'td[data-drive="{a["id"]}"] .nowrap').first
        expect(cell).to_have_text(re.compile(r"^[\d,.]+\u00a0IOPS$"))
        # findings in words; a drive that ran four corners only says what was not measured
        findings = page.locator(f'[data-testid=article-findings][data-drive="{other["id"]}"]')
        expect(findings.locator('li[data-topic="hdtach"]')).to_contain_text("not measured")
        mine = page.locator(f'[data-testid=article-findings][data-drive="{a["id"]}"]')
        expect(mine.locator('li[data-topic="hdtach"]').first).to_contain_text(
            re.compile(r"Write speed (steps down at \d+% of the span|holds across the span)")
        )
        # firmware said in words when missing, capacity one way
        caps = page.get_by_test_id("article-drives").locator("td.num.nowrap").all_inner_texts()
        assert all(re.fullmatch(r"[\d.,]+ GB|[\d.,]+ \w{3}|no price|—", c) for c in caps), caps
        # the appendix: collapsed; opened, grouped by test with percentiles by value
        appendix = page.get_by_test_id("appendix")
        expect(appendix).not_to_have_attribute("open", "")
        expect(page.get_by_test_id("appendix-group")).to_have_count(0)
        appendix.locator("summary").click()
        groups = page.get_by_test_id("appendix-group")
        expect(groups.first).to_be_visible()
        heads = groups.locator("h3").all_inner_texts()
        assert len(heads) == len(set(heads)), heads
        read_qd3 = groups.filter(has_text="Four corners · 4K random read QD3").first
        labels = read_qd3.locator("tbody td:first-child").all_inner_texts()
        pct = [x for x in labels if "percentile" in x]
        values = [float(re.match(r"[\d.]+", x).group()) for x in pct]  # type: ignore[union-attr]
        assert values == sorted(values), pct
        # bytes moved and runtimes are never bold
        for row in read_qd3.locator("tbody tr").all():
            label = row.locator("td").first.inner_text()
            if label in ("bytes moved", "runtime", "read bytes moved", "read runtime"):
                assert row.locator(".article__best").count() == 0, label
        # a group's warnings once
        for w in page.locator(".article__group .compare-warnings").all():
            items = w.locator("li").all_inner_texts()
            assert len(items) == len(set(items)), items
        # printed when asked
        page.get_by_label("Include the appendix in print").check()
        pdf = tmp_path / "with-appendix.pdf"
        page.pdf(path=str(pdf), format="A4", print_background=True)
        from pypdf import PdfReader

        text = " ".join(p.extract_text() or "" for p in PdfReader(str(pdf)).pages)
        assert "Appendix" in text and "percentile latency" in text
    finally:
        context.close()


def test_add_a_metric_is_searched_and_grouped(  # type: ignore[no-untyped-def]
    browser, stack: Stack, drives: list[dict[str, Any]]
) -> None:
    from playwright.sync_api import expect

    ids = ",".join(str(d["id"]) for d in drives[:3])
    context = browser.new_context(base_url=stack.api_url, viewport=VIEWPORT)
    page = context.new_page()
    try:
        sign_in(page, stack)
        page.goto(f"/compare?drives={ids}&review={drives[0]['id']}")
        read_down(page)
        add = page.get_by_label("Add a metric")
        expect(add).to_be_enabled()
        every = add.locator("option").count()
        groups = add.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
        assert all(" · " in g for g in groups), groups  # plan · test
        assert len(groups) == len(set(groups)), groups
        page.get_by_label("Search metrics").fill("qd3 read p99.9")
        expect(add.locator("option")).not_to_have_count(every)
        found = add.locator("option").all_inner_texts()[1:]
        assert found and all("99.9" in o for o in found), found
        groups = add.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
        assert groups == ["Four corners · 4K random read QD3"], groups
        metric = "four-corners:randread-4k-qd3:read_lat_p99_9_us"
        add.select_option(metric)
        expect(page).to_have_url(re.compile(rf"metrics={metric}"))
    finally:
        context.close()
