"""Browser: the compare page's consistency scatter for 5 drives x 2000 s, in headless Chromium.

A private stack serving the built frontend (frontend/dist); two short consistency runs through
the whole stack (no over-provisioning and 25%), then 5 synthetic drives ("Synthetic drive N",
simulated) each given a copy of both, lengthened to 2000 one-second samples by the reads
benchmark's loader. The browser signs in with a one-time link and opens
/compare?drives=A,B,C,D,E: the real page, every chart of it.

The page asks every chart's data in one GET /api/compare/charts, whose answer holds the
scatter's two series (consistency, op_percent 0 and 25, points=2000; the synthetic drives
have no other chart's runs, so the rest of it is the other charts' empty answers); the
benchmark holds that answer back until everything else on the page has rendered and the
browser is idle, then lets it through and waits until the scatter's paths are in the DOM and
two animation frames have passed. (Before the page asked its charts together, the benchmark
held the scatter's own two GET /api/compare/series answers the same way.) Figures:
- SVG nodes: document.querySelectorAll('[data-chart="consistency"] svg *').length;
- script time: Chrome's own ScriptDuration (CDP Performance.getMetrics) from releasing the
  answer to the drawn scatter: parsing the answer, the query cache, turning series into
  paths and React's render and commit (of the other charts' empty states too). TaskDuration
  (all main-thread work: script, style, layout, paint) is given beside it.
REPEATS fresh pages; the figure is the median. The re-render after switching the scale to
linear (an interaction, the same points) is measured the same way.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from tests.bench.bench_reads import load, run_real
from tests.bench.common import (
    RESULTS,
    ROOT,
    Figure,
    Report,
    conditions,
    finish,
    log,
    median,
    private_stack,
    python_entry,
)
from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT

REPEATS = int(os.environ.get("BENCH_BROWSER_REPEATS", "5"))
# BENCH_BROWSER_PROFILE=1: Chrome's CPU profile of each first render, its functions by self time
# printed (where the script time goes).
PROFILE = os.environ.get("BENCH_BROWSER_PROFILE") == "1"
DRIVES = 5
REAL_RUNS: list[tuple[str, dict[str, Any]]] = [
    ("consistency", {"runtime_s": 5, "span": "64m"}),
    ("consistency", {"runtime_s": 5, "span": "64m", "op_percent": 25}),
]
CHART = '[data-chart="consistency"]'
# The answer that holds the scatter's series: every chart's, in one (GET /api/compare/charts).
SCATTER_ANSWER = re.compile(r"/api/compare/charts\?")
TARGET_NODES = 2000
# Since the scatter is drawn on Recharts it is held to 100 ms of script (DESIGN.md: 300).
TARGET_SCRIPT_MS = 100.0

# The scatter's state: its SVG nodes, its drive paths (the ones with a zero-length segment per
# point) and the points they draw.
STATE_JS = """
() => {
  const chart = document.querySelector('[data-chart="consistency"]');
  if (!chart) return null;
  const paths = [...chart.querySelectorAll('svg path')]
    .filter(p => (p.getAttribute('d') || '').includes('h0'));
  return {
    nodes: chart.querySelectorAll('svg *').length,
    svgs: chart.querySelectorAll('svg').length,
    paths: paths.length,
    points: paths.reduce((n, p) => n + (p.getAttribute('d').match(/M/g) || []).length, 0),
    d: paths.map(p => p.getAttribute('d').length).join(','),
    overlay: (chart.querySelector('.chart-frame__overlay') || {}).textContent || null,
  };
}
"""
TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def _delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {
        "script_ms": (after["ScriptDuration"] - before["ScriptDuration"]) * 1000,
        "task_ms": (after["TaskDuration"] - before["TaskDuration"]) * 1000,
        "layout_ms": (after["LayoutDuration"] - before["LayoutDuration"]) * 1000,
        "style_ms": (after["RecalcStyleDuration"] - before["RecalcStyleDuration"]) * 1000,
    }


def _self_times(profile: dict[str, Any], top: int = 15) -> list[tuple[float, str]]:
    """The profile's functions by self time (ms), from its samples and their intervals."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    spent: dict[str, float] = {}
    for node_id, dt_us in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[node_id]["callFrame"]
        where = f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}"
        where += f":{frame['lineNumber'] + 1}:{frame['columnNumber'] + 1}"
        spent[where] = spent.get(where, 0.0) + dt_us / 1000
    return sorted(((ms, where) for where, ms in spent.items()), reverse=True)[:top]


def _wait_drawn(page: Any, paths: int, changed_from: str | None = None) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = page.evaluate(STATE_JS)
        if state and state["paths"] >= paths and state["d"] != changed_from:
            page.evaluate(TWO_FRAMES_JS)
            return page.evaluate(STATE_JS)
        page.wait_for_timeout(20)
    raise AssertionError(f"the scatter was not drawn within 60 s: {page.evaluate(STATE_JS)}")


def render_once(browser: Any, api_url: str, link: str, ids: list[int], shot: bool) -> dict:
    context = browser.new_context(viewport=VIEWPORT, base_url=api_url)
    problems: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        held: list[Any] = []
        page.route(SCATTER_ANSWER, lambda route: held.append(route))
        page.goto(link.removeprefix(api_url))
        page.wait_for_url(re.compile(r"/$"))
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(f"/compare?drives={','.join(map(str, ids))}")
        page.wait_for_selector(CHART)
        deadline = time.monotonic() + 30
        while not held and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        if len(held) != 1:
            raise AssertionError(f"the page asked for its charts {len(held)} times, not once")
        # Everything else on the page renders meanwhile; the scatter is scrolled to (the page
        # draws a chart when it comes near the screen); then the browser is left idle.
        page.wait_for_timeout(1500)
        page.locator(CHART).scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        page.evaluate(TWO_FRAMES_JS)
        if PROFILE:
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 100})
            cdp.send("Profiler.start")
        before = _metrics(cdp)
        for route in held:
            route.continue_()
        state = _wait_drawn(page, 2 * DRIVES)
        first = {**_delta(before, _metrics(cdp)), **state}
        if PROFILE:
            for ms, where in _self_times(cdp.send("Profiler.stop")["profile"]):
                log(f"  {ms:7.1f} ms  {where}")
        # An interaction: the same points on a linear scale.
        page.wait_for_timeout(300)
        before = _metrics(cdp)
        page.locator(CHART).get_by_label("Scale", exact=True).select_option(index=1)
        redrawn = _wait_drawn(page, 1, state["d"])
        relayout = {**_delta(before, _metrics(cdp)), **redrawn}
        if shot:
            page.locator(CHART).get_by_label("Scale", exact=True).select_option(index=0)
            _wait_drawn(page, 2 * DRIVES, relayout["d"])
            RESULTS.mkdir(parents=True, exist_ok=True)
            page.locator(CHART).screenshot(path=str(RESULTS / "browser-consistency.png"))
        if problems:
            raise AssertionError(f"the page reported errors: {problems}")
        return {"first": first, "relayout": relayout}
    finally:
        context.close()


def main() -> Report:
    t0 = time.monotonic()
    report = Report("browser", "compare page: 5-drive x 2000 s consistency scatter in Chromium")
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: `make chromium` installs it")
    if not (ROOT / "frontend" / "dist" / "index.html").exists():
        raise SystemExit("frontend/dist is missing: `make frontend` builds it")
    from playwright.sync_api import sync_playwright

    with private_stack("browser") as bs:
        log("running a consistency run with and without over-provisioning")
        real_ids = run_real(bs, REAL_RUNS)
        data = load(bs, real_ids, drives=DRIVES, min_samples=0, min_runs=0)
        ids = [d["id"] for d in data["drives"]]
        runs: list[dict[str, Any]] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            version = browser.version
            try:
                for i in range(REPEATS):
                    link = bs.stack.login_link()
                    runs.append(render_once(browser, bs.api_url, link, ids, shot=i == 0))
                    f = runs[-1]["first"]
                    log(
                        f"render {i + 1}: {f['script_ms']:.0f} ms script, {f['nodes']} SVG "
                        f"nodes, {f['points']} points"
                    )
            finally:
                browser.close()
        first = [r["first"] for r in runs]
        relayout = [r["relayout"] for r in runs]
        report.add(
            Figure(
                "SVG nodes in the consistency scatter",
                max(f["nodes"] for f in first),
                "nodes",
                TARGET_NODES,
                "<=",
                note=f"{first[0]['svgs']} panels (OP 0% and 25%), {first[0]['paths']} drive "
                f"paths drawing {first[0]['points']} points: one path per drive and panel",
            ),
            Figure(
                "script time to render the scatter, median",
                median([f["script_ms"] for f in first]),
                "ms",
                TARGET_SCRIPT_MS,
                "<=",
                note=f"Chrome ScriptDuration from the series' answers to the drawn scatter, "
                f"{REPEATS} fresh pages: "
                + ", ".join(f"{f['script_ms']:.0f}" for f in first)
                + f" ms; all main-thread work (TaskDuration) median "
                f"{median([f['task_ms'] for f in first]):.0f} ms",
            ),
            Figure(
                "script time to render the scatter, worst", max(f["script_ms"] for f in first), "ms"
            ),
            Figure(
                "script time to redraw it on a linear scale, median",
                median([r["script_ms"] for r in relayout]),
                "ms",
                note="switching the Scale control: the same points, new geometry",
            ),
        )
        report.conditions = conditions(
            bs,
            chromium=version,
            viewport=f"{VIEWPORT['width']}x{VIEWPORT['height']}",
            drives=DRIVES,
            samples_per_series=2000,
            page=f"/compare?drives={','.join(map(str, ids))}",
            data="synthetic: 2 real consistency runs copied to 5 simulated drives",
            screenshot=str((RESULTS / "browser-consistency.png").relative_to(ROOT)),
        )
        report.details = {"renders": runs, "totals": data["totals"]}
    return finish(report, t0)


if __name__ == "__main__":
    python_entry(main)
