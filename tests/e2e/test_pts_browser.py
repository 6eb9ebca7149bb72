"""A SNIA PTS run in real Chromium: the convergence plot grows round by round on the Run page
while the rounds run, and the report page renders the specification's layout and prints to a
PDF whose pages hold it."""

from __future__ import annotations

import os
import re
import time

import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_browser import DOCS_SCREENSHOTS, VIEWPORT, browser, read_down, shot, sign_in
from tests.e2e.test_run_path import queue

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
__all__ = ["browser"]  # the fixture, shared with test_browser

PARAMS = {
    "span": "64m",
    "block_sizes": ["4k", "64k", "1m"],
    "mixes": ["100/0", "65/35", "0/100"],
    "element_s": 1,
    "max_rounds": 8,
    "precondition_loops": 1,
    "threads": 1,
    "iodepth": 8,
    "sponsor": "drivelab browser test",
}


def pdf_pages(data: bytes) -> int:
    """Page objects in a PDF (`/Type /Page`, not `/Pages`)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))


def test_pts_convergence_live_and_the_report_prints(browser, stack: Stack, sim_drive: dict) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        with stack.client() as c:
            run_id = queue(c, sim_drive, PARAMS, plan="pts-iops")["id"]
        page.goto(f"/runs/{run_id}")
        chart = page.locator('[data-chart="pts-convergence-rounds"]')
        dots = chart.locator(".recharts-line-dots circle")
        # Live: round dots appear one after another while the run is running.
        seen: list[int] = []
        deadline = time.monotonic() + 180
        with stack.client() as c:
            while time.monotonic() < deadline:
                status = c.get(f"/api/runs/{run_id}").json()["status"]
                if status not in ("queued", "running"):
                    break
                n = dots.count()
                if n and (not seen or n != seen[-1]):
                    seen.append(n)
                time.sleep(0.2)
            run = wait_run(c, run_id)
        assert run["status"] == "done", run["error"]
        assert len(seen) >= 2 and seen == sorted(seen), f"dots seen while running: {seen}"
        expect(chart.locator(".chart-frame__subtitle")).to_contain_text(
            re.compile(r"Steady state reached in round \d+|Steady state not reached in \d+ rounds")
        )

        page.get_by_role("link", name="Open the report").click()
        expect(page).to_have_url(re.compile(rf"/runs/{run_id}/report$"))
        header = page.get_by_test_id("pts-header")
        expect(header).to_contain_text("drivelab browser test")
        expect(header).to_contain_text(sim_drive["serial"])
        expect(header).to_contain_text("file-punch")
        expect(header).to_contain_text("fio-")
        expect(header).to_contain_text("Enterprise · ActiveRange 100% · TC 1, QD 8")
        pivot = page.get_by_test_id("pts-pivot")
        expect(pivot.locator("tbody tr")).to_have_count(3)
        expect(pivot.locator("thead th")).to_have_count(4)
        with stack.client() as c:
            report = c.get(f"/api/runs/{run_id}/pts").json()
        table = report["sections"][0]["table"]
        row = pivot.locator("tbody tr").filter(
            has=page.locator("th", has_text=re.compile(r"^4 KiB$"))
        )
        shown = row.locator("td").nth(2)  # the 0/100 column
        expect(shown).to_have_attribute("title", f"{table['r0w100-4k']['iops']:.0f} IOPS")
        # 3 x 3 bars, three faces each, in the 3D plot; the 2D plot has a line per mix.
        expect(page.locator('[data-chart="pts-iops-3d"] polygon')).to_have_count(27)
        expect(page.locator('[data-chart="pts-iops-2d"] .recharts-line')).to_have_count(3)
        expect(
            page.locator('[data-chart="pts-window-rounds"] .recharts-reference-line')
        ).to_have_count(3)
        shot(page, "pts-report")
        if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(DOCS_SCREENSHOTS / "pts-report.png"), full_page=True)

        # Printed: no navigation or export buttons, and a PDF of several pages.
        page.emulate_media(media="print")
        expect(page.locator(".app-header")).to_be_hidden()
        expect(page.locator(".chart-frame__export").first).to_be_hidden()
        expect(page.get_by_role("button", name="Print / save as PDF")).to_be_hidden()
        expect(header).to_be_visible()
        pdf = page.pdf(format="A4", print_background=True)
        assert pdf.startswith(b"%PDF-")
        pages = pdf_pages(pdf)
        assert 2 <= pages <= 12, f"{pages} pages"
        assert not problems, problems
    finally:
        context.close()


def metric_text(v: float) -> str:
    """The page's formatMetric for the figures these tests read (100 and more: whole)."""
    assert v >= 100
    return f"{v:,.0f}"


def seconds_text(s: float | None) -> str:
    """The report's formatSeconds for the short times of a shortened run."""
    if s is None:
        return "—"
    assert s < 100
    return f"{s:.1f} s"


def test_xsr_report_shows_recovery_levels_and_response_times(  # type: ignore[no-untyped-def]
    browser, stack: Stack, sim_drive: dict
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        with stack.client() as c:
            run_id = queue(
                c, sim_drive, {"span": "64m", "seq1_s": 4, "rand_s": 6, "seq2_s": 6},
                plan="pts-xsr",
            )["id"]  # fmt: skip
            run = wait_run(c, run_id)
            assert run["status"] == "done", run["error"]
            xsr = c.get(f"/api/runs/{run_id}/pts").json()["xsr"]
        page.goto(f"/runs/{run_id}/report")
        transitions = page.get_by_test_id("pts-xsr-transitions")
        expect(transitions.locator("tbody tr")).to_have_count(2)
        for t in xsr["transitions"]:
            expect(page.get_by_test_id(f"pts-xsr-recovery-{t['to']}")).to_have_text(
                seconds_text(t["recovery_s"])
            )
        table = page.get_by_test_id("pts-xsr")
        expect(table.locator("tbody tr")).to_have_count(3)
        # Units keep their case in the uppercase headers: µs, not "ΜS" (which reads as ms).
        for column in (5, 6):
            expect(table.locator("thead th").nth(column)).to_contain_text(
                "(µs)", use_inner_text=True
            )
        # The first stimulus follows a purge: no recovery time; the others have theirs.
        expect(table.locator("tbody tr").nth(0).locator("td").nth(3)).to_have_text("—")
        expect(table.locator("tbody tr").nth(1).locator("td").nth(3)).to_have_text(
            seconds_text(xsr["stimuli"][1]["recovery_s"])
        )
        # Throughput: a line per stimulus and a dashed line of each one's levels found;
        # maximum response time too.
        expect(page.locator('[data-chart="pts-xsr-mbps"] .recharts-line')).to_have_count(6)
        expect(
            page.locator('[data-chart="pts-xsr-mbps"] .recharts-line path[stroke-dasharray="6 3"]')
        ).to_have_count(3)
        expect(page.locator('[data-chart="pts-xsr-latency-max"] .recharts-line')).to_have_count(3)
        shot(page, "pts-xsr-report")
        page.emulate_media(media="print")
        expect(page.get_by_role("button", name="XSR table CSV")).to_be_hidden()
        expect(transitions).to_be_visible()
        assert page.pdf(format="A4", print_background=True).startswith(b"%PDF-")
        page.emulate_media(media="screen")

        # Compare: the drive's latest XSR run, a row per stimulus, the first without recovery.
        page.goto(f"/compare?drives={sim_drive['id']}")
        read_down(page)
        compare = page.get_by_test_id("pts-compare-xsr")
        expect(compare.locator("tbody tr")).to_have_count(3)
        expect(compare.locator("thead th").nth(5)).to_contain_text("(µs)", use_inner_text=True)
        first = compare.locator("tbody tr").nth(0)
        expect(first.locator("td").nth(1)).to_have_text(f"{xsr['stimuli'][0]['mbps']:,.0f}")
        expect(first.locator("td").nth(3)).to_have_text("—")
        assert not problems, problems
    finally:
        context.close()


def test_latency_report_shows_five_nines_or_why_not_and_each_round(  # type: ignore[no-untyped-def]
    browser, stack: Stack, sim_drive: dict
) -> None:
    from playwright.sync_api import expect

    params = {
        "span": "64m",
        "block_sizes": ["4k", "512"],
        "mixes": ["0/100"],
        "element_s": 1,
        "max_rounds": 5,
        "precondition_loops": 1,
    }
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        with stack.client() as c:
            run_id = queue(c, sim_drive, params, plan="pts-latency")["id"]
            run = wait_run(c, run_id)
            assert run["status"] == "done", run["error"]
            section = c.get(f"/api/runs/{run_id}/pts").json()["sections"][0]
        page.goto(f"/runs/{run_id}/report")
        table = page.get_by_test_id("pts-latency")
        expect(table.locator("tbody tr")).to_have_count(2)
        for i, e in enumerate(section["elements"]):
            got = section["percentiles"][e["name"]]["all"]
            five = table.locator("tbody tr").nth(i).locator("td").nth(2)
            if got["99.999"] is None:
                reason = got["unsupported"]["99.999"]
                expect(five).to_have_text("n/a")
                expect(five).to_have_attribute("title", reason)
                expect(page.get_by_test_id("pts-latency-notes")).to_contain_text(
                    "fewer than the 100,000 I/Os five nines need"
                )
                # The count the reason gives is the table's.
                expect(table.locator("tbody tr").nth(i).locator("td").nth(3)).to_have_text(
                    f"{got['ios']:,}"
                )
                assert f"{got['ios']:,} completed" in reason
            else:
                expect(five).not_to_have_text("n/a")
        # Each element's average and maximum per round: a line per element in each chart.
        for field in ("mean", "max"):
            chart = page.locator(f'[data-chart="pts-latency-rounds-{field}"]')
            expect(chart.locator(".recharts-line")).to_have_count(2)
        shot(page, "pts-latency-report")
        assert not problems, problems
    finally:
        context.close()


def test_hir_throughput_and_wsat_reports_mark_and_tabulate_their_figures(  # type: ignore[no-untyped-def]
    browser, stack: Stack, sim_drive: dict
) -> None:
    """The three reports the other browser tests do not open: host idle recovery marks every
    wait state (the first one too, which starts where the time axis begins), throughput has
    its MB/s table, write saturation its plots against time and GB written and the
    histogram of its last rounds on a latency axis in decades."""
    from playwright.sync_api import expect

    hir_params = {
        "span": "32m", "element_s": 1, "max_rounds": 5, "precondition_loops": 1,
        "waits_s": [1, 2], "cycles": 2, "write_s": 1, "baseline_s": 1, "threads": 1,
        "iodepth": 4,
    }  # fmt: skip
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        with stack.client() as c:
            ids = {
                plan: queue(c, sim_drive, params, plan=plan)["id"]
                for plan, params in (
                    ("pts-hir", hir_params),
                    ("pts-throughput", {"span": "64m", "block_sizes": ["1m", "128k"],
                                        "element_s": 1, "max_rounds": 5, "threads": 1}),
                    ("pts-wsat", {"span": "16m", "round_s": 1, "max_s": 20,
                                  "capacity_multiple": 2, "threads": 1}),
                )
            }  # fmt: skip
            for run_id in ids.values():
                run = wait_run(c, run_id, timeout=400)
                assert run["status"] == "done", run["error"]
            reports = {plan: c.get(f"/api/runs/{i}/pts").json() for plan, i in ids.items()}

        page.goto(f"/runs/{ids['pts-hir']}/report")
        hir = page.locator('[data-chart="pts-hir"]')
        # A shaded span, labelled, for each wait state.
        expect(hir.locator(".recharts-reference-area")).to_have_count(2)
        for wait in (1, 2):
            expect(hir.locator("svg text", has_text=f"{wait} s wait")).to_have_count(1)
        table = page.get_by_test_id("pts-hir")
        expect(table.locator("tbody tr")).to_have_count(2)
        first = reports["pts-hir"]["hir"]["sets"][0]
        expect(table.locator("tbody tr").nth(0).locator("td").nth(0)).to_have_text("2 of 2")
        expect(table.locator("tbody tr").nth(0).locator("td").nth(1)).to_have_text(
            metric_text(first["burst_iops"])
        )
        shot(page, "pts-hir-report")

        page.goto(f"/runs/{ids['pts-throughput']}/report")
        rows = page.get_by_test_id("pts-throughput").locator("tbody tr")
        expect(rows).to_have_count(2)
        sections = {s["name"]: s for s in reports["pts-throughput"]["sections"]}
        write_1m = sections["rounds-1m"]["table"]["seq-write-1m"]["write_mbps"]
        expect(rows.nth(0).locator("td").nth(1)).to_have_text(metric_text(write_1m))
        # Row headers keep their case: KiB, not KIB.
        expect(rows.nth(0).locator("th")).to_have_css("text-transform", "none")
        shot(page, "pts-throughput-report")

        page.goto(f"/runs/{ids['pts-wsat']}/report")
        for chart in ("pts-wsat-time", "pts-wsat-tgbw"):
            expect(page.locator(f'[data-chart="{chart}"] .recharts-line')).to_have_count(1)
        # The histogram's latency axis: a tick at each decade, in its unit (recharts draws
        # the tick labels of both axes in one layer: the latency ones are those with a unit).
        labels = page.locator(
            '[data-chart="pts-wsat-histogram"] .recharts-cartesian-axis-tick-value'
        )
        expect(labels.first).to_be_attached()
        texts = [t for t in labels.all_text_contents() if re.search(r"[µm]?s$", t)]
        assert len(texts) >= 3, texts
        assert all(re.fullmatch(r"(0\.0*1|1|10|100) (µs|ms|s)", t) for t in texts), texts
        shot(page, "pts-wsat-report")
        assert not problems, problems
    finally:
        context.close()


def test_dirth_ecw_and_cbw_reports_run_page_and_compare(  # type: ignore[no-untyped-def]
    browser, stack: Stack, sim_drive: dict
) -> None:
    """DIRTH's and ECW's reports: the finding in words, the three IOPS points as the api has
    them, the demand-intensity curve (a line per thread count), IOPS against response time and
    the histograms at the three points, with where they come from (the dedicated run at each);
    CBW's table; the Run page's finding; Compare's table."""
    from playwright.sync_api import expect

    sweep = {
        "span": "64m",
        "queue_depths": [2, 1],
        "element_s": 1,
        "max_rounds": 5,
        "pc_threads": 1,
        "pc_iodepth": 4,
        "pc_max_rounds": 5,
        "prewrite_s": 0,
        "point_s": 1,
    }
    plans = (
        ("pts-dirth", {**sweep, "thread_counts": [2, 1], "block_size": "4k"}),
        ("pts-ecw", {**sweep, "thread_counts": [1]}),
        ("pts-cbw", {"span": "64m", "element_s": 1, "max_rounds": 5, "precondition_loops": 1}),
    )
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        reports = {}
        with stack.client() as c:
            ids = {plan: queue(c, sim_drive, params, plan=plan)["id"] for plan, params in plans}
            for plan, run_id in ids.items():
                run = wait_run(c, run_id, timeout=300)
                assert run["status"] == "done", (plan, run["error"])
                reports[plan] = c.get(f"/api/runs/{run_id}/pts").json()
        for plan, lines in (("pts-dirth", 2), ("pts-ecw", 1)):
            section = next(s for s in reports[plan]["sections"] if s["name"] == "rounds")
            di = section["di"]
            page.goto(f"/runs/{ids[plan]}/report")
            expect(page.get_by_test_id("pts-di-finding")).to_have_text(f"{di['finding']}.")
            # The header's demand is the sweep's, with the preconditioning's beside it, never
            # the preconditioning's TC/QD alone as the test's.
            header = reports[plan]["header"]
            assert header["threads"] is None and header["iodepth"] is None, header
            tcs = "TC 2, 1" if plan == "pts-dirth" else "TC 1"
            assert header["demand"] == (
                f"{tcs} x QD 2, 1 (TOC 1 to {4 if plan == 'pts-dirth' else 2}); "
                "preconditioning and pre-writes at TC 1, QD 4"
            ), header
            expect(page.get_by_test_id("pts-header")).to_contain_text(header["demand"])
            for key in ("max", "mid", "min"):
                row = page.get_by_test_id(f"pts-di-{key}")
                if di[key] is None:
                    expect(row).to_contain_text("none within the ceiling")
                else:
                    expect(row.locator("td").nth(0)).to_have_text(
                        f"TC {di[key]['tc']} / QD {di[key]['qd']}"
                    )
            curve = page.locator('[data-chart="pts-di-curve"]')
            expect(curve.locator(".recharts-line")).to_have_count(lines)
            expect(page.locator('[data-chart="pts-di-hockey"] .recharts-line')).to_have_count(lines)
            hist = page.locator('[data-chart="pts-di-histograms"] .recharts-line')
            expect(hist).to_have_count(sum(di[k] is not None for k in ("max", "mid", "min")))
            # Where the histograms come from: the dedicated run at each point.
            source = "from a dedicated 1-second run at each point, as the PTS specifies"
            assert section["histograms_source"] == source, section["histograms_source"]
            expect(page.get_by_test_id("pts-di-histograms-source")).to_have_text(
                f"Histograms at the three points: {source}."
            )
            shot(page, f"{plan}-report")
        page.goto(f"/runs/{ids['pts-cbw']}/report")
        cbw = reports["pts-cbw"]["sections"][0]["table"]["cbw"]
        # IOPS in the house format (whole numbers from 100 up, en-US grouping).
        assert cbw["iops"] >= 100, cbw
        expect(page.get_by_test_id("pts-cbw").locator("td").nth(0)).to_have_text(
            f"{cbw['iops']:,.0f}"
        )
        # The Run page says the finding; Compare lists the three points.
        page.goto(f"/runs/{ids['pts-dirth']}")
        dirth = next(s for s in reports["pts-dirth"]["sections"] if s["name"] == "rounds")
        expect(page.get_by_test_id("run-di-finding")).to_have_text(f"{dirth['di']['finding']}.")
        page.goto(f"/compare?drives={sim_drive['id']}")
        read_down(page)
        table = page.get_by_test_id("pts-compare-pts-dirth")
        expect(table.locator("tbody tr")).to_have_count(3)
        expect(
            page.locator('[data-chart="pts-compare-pts-dirth-curve"] .recharts-line')
        ).to_have_count(1)
        expect(page.get_by_test_id("pts-compare-pts-cbw").locator("tbody tr")).to_have_count(1)
        assert not problems, problems
    finally:
        context.close()
