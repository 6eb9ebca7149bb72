"""Latency QoS end to end, against a drive whose answer is known: a simulated drive (a loop
device on tmpfs) held by the kernel's block throttle to a fixed write IOPS limit.

Truth: a closed loop of QD outstanding I/Os at a throughput of X IOPS has a mean latency of
QD / X (Little's law), whatever the device; the throttle fixes X. The kernel's throttle lets
I/Os through in slices of 100 ms (its `throtl_slice`), as many as the limit allows per
slice, so above 10 IOPS it passes a burst at the start of each slice at full speed and
holds the rest until the next: the median of such a drive is its raw speed and only the mean
follows Little's law. At 10 IOPS a slice passes one I/O, so every I/O waits its turn: each
latency is QD / 10 s, up to the jiffy and slice boundaries it waits for (seen: the median
7.5% above at QD1, 5% below at QD8), so the median is checked within 15%. Percentiles above
the median are not checked for time: with 80 I/Os a step there is no p99 (the report says
so, and that is checked), and a slow tail is the host's (a busy 2-core machine) as much as
the drive's.

The qd-sweep plan runs whole on it with short steps (purge, preconditioning, the three
workloads at QD1 and QD8): the run ends done with every figure, histogram and exceedance
curve, and every percentile equals the one read from fio's stored output.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from backend.analysis import latency
from tests.backend.analysis.test_latency import fio_difference
from tests.conftest import Stack, register_drive, wait_run
from tests.e2e.test_browser import (
    DOCS_SCREENSHOTS,
    VIEWPORT,
    browser,
    download,
    read_down,
    shot,
    sign_in,
)
from worker.sim.controller import SimDrive, requirements
from worker.sim.profile import Cliff, Level, Profile

__all__ = ["browser"]  # the module's Chromium fixture, shared

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]

IOPS = 10  # one I/O per 100 ms throttle slice
QDS = [1, 8]
RUNTIME_S = 8
MEDIAN_TOLERANCE = 0.15
MEAN_TOLERANCE = 0.05
FIXED_IOPS = Profile(
    name="fixed-iops",
    title=f"4K random writes held at {IOPS} IOPS",
    write_levels=(Level(until_pct=100, mbps=2000),),
    cliff=Cliff(after_bytes=0, fob_iops=IOPS, steady_iops=IOPS),
)


@pytest.fixture(scope="module")
def sweep(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A finished qd-sweep run on the fixed-IOPS drive: (run, its QoS, the client)."""
    from worker.devices import identify

    workdir = Path(tmp_path_factory.mktemp("qos-sim"))
    with SimDrive(FIXED_IOPS, 128 * 2**20, workdir, label="qos-truth") as sim:
        assert sim.state is not None
        info = identify(sim.device)
        with stack.client() as c:
            r = register_drive(
                c,
                {
                    "bench": "local",
                    "target_path": sim.state.target,
                    "serial": info.serial,
                    "vendor": "drivelab",
                    "model": f"Simulated drive (writes at {IOPS} IOPS, {sim.device})",
                    "capacity_bytes": info.size_bytes,
                    "interface": "loop",
                    "firmware": "sim",
                    "simulated": True,
                },
            )
            assert r.status_code == 201, r.text
            drive = r.json()
            r = c.post(
                "/api/runs",
                json={
                    "plan": "qd-sweep",
                    "drive_id": drive["id"],
                    "confirm_serial": drive["serial"],
                    "params": {
                        "span": "64m",
                        "queue_depths": QDS,
                        "runtime_s": RUNTIME_S,
                        "precondition_loops": 1,
                        "precondition_random_s": 1,
                    },
                },
            )
            assert r.status_code == 201, r.text
            run = wait_run(c, r.json()["id"], timeout=420)
            qos = c.get(f"/api/runs/{run['id']}/qos")
            assert qos.status_code == 200, qos.text
            # A second drive for Compare: a sparse file, swept briefly without preconditioning.
            other = stack.add_drive(
                stack.data_dir / "targets" / "qos-other.img", "QoS sparse file", size=256 * 2**20
            )
            # Through the CLI, which prints the QoS table when it waits.
            out = stack.cli(
                "run", "qd-sweep", "--drive", str(other["id"]), "--param", "span=64m",
                "--param", "queue_depths=[1,2,4,16]", "--param", "runtime_s=1",
                "--param", "precondition=false", "--param", 'workloads=["randread"]',
                "--confirm-serial", other["serial"], "--wait",
                timeout=300,
            )  # fmt: skip
            other_run = int(out.stdout.split("queued run ", 1)[1].split(":", 1)[0])
            assert wait_run(c, other_run, timeout=30)["status"] == "done", out.stdout
            cli = {"stdout": out.stdout, "qos": c.get(f"/api/runs/{other_run}/qos").json()}
            yield {"run": run, "qos": qos.json(), "drive": drive, "other": other, "stack": stack,
                   "cli": cli}  # fmt: skip


def _client(sweep: dict[str, Any]) -> httpx.Client:
    return sweep["stack"].client()


def test_the_sweep_ends_done_with_every_figure(sweep: dict[str, Any]) -> None:
    run, qos = sweep["run"], sweep["qos"]
    assert run["status"] == "done", run
    names = [s["name"] for s in run["steps"]]
    for w in ("randread", "randwrite", "mix70"):
        assert [n for n in names if n.startswith(f"{w}-4k-qd")] == [f"{w}-4k-qd{q}" for q in QDS]
        assert f"{w}-4k-sweep" in names
    workloads = {w["workload"]: w for w in qos["sweep"]["workloads"]}
    assert set(workloads) == {"randread", "randwrite", "mix70"}
    for w in workloads.values():
        assert [p["qd"] for p in w["points"]] == QDS
        assert all(p["iops"] > 0 and p["p50_us"] is not None for p in w["points"])
        fig = w["figures"]
        assert fig["peak_iops"] == max(p["iops"] for p in w["points"])
        assert fig["qd_at_share_of_peak"] in QDS
        assert fig["target_us"] == 1000.0
    # The summary steps carry the figures as results, for Compare.
    summary = next(s for s in run["steps"] if s["name"] == "randwrite-4k-sweep")
    results = {r["metric"]: r["value"] for r in summary["results"]}
    fig = workloads["randwrite"]["figures"]
    assert results["peak_iops"] == pytest.approx(fig["peak_iops"])
    assert results["qd_95pct_peak"] == fig["qd_at_share_of_peak"]
    # Writes wait 100 ms and more: no point's p99 is under 1 ms.
    assert fig["iops_under_target"] is None and "iops_p99_under_target" not in results


def test_littles_law_on_the_fixed_iops_drive(sweep: dict[str, Any]) -> None:
    points = {
        p["qd"]: p
        for w in sweep["qos"]["sweep"]["workloads"]
        if w["workload"] == "randwrite"
        for p in w["points"]
    }
    for qd in QDS:
        p = points[qd]
        truth_us = qd / IOPS * 1e6
        print(
            f"QD{qd}: {p['iops']:.2f} IOPS (limit {IOPS}), mean {p['mean_us'] / 1e3:.1f} ms, "
            f"median {p['p50_us'] / 1e3:.1f} ms, QD/IOPS {qd / p['iops'] * 1e3:.1f} ms, "
            f"truth {truth_us / 1e3:.1f} ms"
        )
        # The throttle's limit is the drive's throughput...
        assert p["iops"] == pytest.approx(IOPS, rel=0.1)
        # ... the mean is Little's law on it ...
        assert p["mean_us"] == pytest.approx(qd / p["iops"] * 1e6, rel=MEAN_TOLERANCE)
        # ... and so is the median, each I/O waiting its turn.
        assert p["p50_us"] == pytest.approx(truth_us, rel=MEDIAN_TOLERANCE)
        # 80 I/Os: no p99 (it needs 100), said so.
        step = next(s for s in sweep["qos"]["steps"] if s["step_id"] == p["step_id"])
        write = step["directions"]["write"]
        assert write["ios"] < 100
        assert write["percentiles"]["p99"] is None
        assert write["unsupported"]["p99"].startswith("not enough I/Os")


def test_percentiles_are_those_of_fio_output(sweep: dict[str, Any]) -> None:
    run = sweep["run"]
    steps = {s["step_id"]: s for s in sweep["qos"]["steps"]}
    fio_steps = [s for s in run["steps"] if s["kind"] == "fio"]
    assert {s["id"] for s in fio_steps} == set(steps)
    worst = 0.0
    compared = 0
    with _client(sweep) as c:
        for s in fio_steps:
            final = json.loads(c.get(f"/api/runs/{run['id']}/steps/{s['id']}/output").text)
            for d, q in steps[s["id"]]["directions"].items():
                assert q == latency.direction_qos(final, d)
                clat = final["jobs"][0][d]["clat_ns"]
                for label, pct in latency.PERCENTILES:
                    fio_value = (clat.get("percentile") or {}).get(f"{pct:.6f}")
                    if q["percentiles"][label] is None or fio_value is None:
                        continue
                    bins = {int(k): int(v) for k, v in clat["bins"].items()}
                    ours = round(q["percentiles"][label] * 1000)  # a bucket value, in ns
                    diff = fio_difference(bins, pct, ours, fio_value)
                    worst = max(worst, diff)
                    compared += 1
            results = {r["metric"]: r["value"] for r in s["results"]}
            for d, q in steps[s["id"]]["directions"].items():
                assert results[f"{d}_lat_max_us"] == q["max_us"]
                if q["percentiles"]["p50"] is not None:
                    assert results[f"{d}_lat_p50_us"] == q["percentiles"]["p50"]
    assert compared >= 20
    print(
        f"{compared} percentiles compared with fio's own: largest relative difference {worst:.3g}"
    )


def test_histogram_exceedance_and_exports(sweep: dict[str, Any]) -> None:
    run = sweep["run"]
    step = next(s for s in run["steps"] if s["name"] == "mix70-4k-qd8")
    with _client(sweep) as c:
        r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/latency")
        assert r.status_code == 200, r.text
        data = r.json()
        assert set(data["directions"]) == {"read", "write", "all"}
        for dist in data["directions"].values():
            assert sum(y for _x, y in dist["histogram"]) == pytest.approx(100.0)
            shares = [y for _x, y in dist["exceedance"]]
            assert shares == sorted(shares, reverse=True) and 0 < shares[-1] < 1
        total = data["directions"]["all"]["qos"]["ios"]
        assert total == sum(data["directions"][d]["qos"]["ios"] for d in ("read", "write"))
        text = c.get(
            f"/api/runs/{run['id']}/steps/{step['id']}/latency", params={"format": "csv"}
        ).text
        rows = list(csv.DictReader(io.StringIO(text)))
        assert {r["curve"] for r in rows} == {"histogram_pct", "exceedance"}
        assert len(rows) == sum(
            len(d["histogram"]) + len(d["exceedance"]) for d in data["directions"].values()
        )
        # Per-second maximum latency, where the per-second p99 is.
        samples = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": step["id"]}).json()
        peaks = [s["write_lat_max_us"] for s in samples if s["write_lat_max_us"] is not None]
        assert peaks and max(peaks) == data["directions"]["write"]["qos"]["max_us"]
        r = c.get(f"/api/runs/{run['id']}/steps/{run['steps'][0]['id']}/latency")
        assert r.status_code == 404 and "no latency histogram" in r.json()["detail"]
        r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/latency", params={"per_decade": 1})
        assert r.status_code == 422 or r.status_code == 400


def test_compare_has_the_qos_figures(sweep: dict[str, Any]) -> None:
    drive = sweep["drive"]
    with _client(sweep) as c:
        r = c.get(
            "/api/compare/latency",
            params={"drives": str(drive["id"]), "plan": "qd-sweep", "step": "randwrite-4k-qd8",
                    "under_review": drive["id"]},
        )  # fmt: skip
        assert r.status_code == 200, r.text
        body = r.json()
        (d,) = body["drives"]
        assert d["under_review"] and d["conditions"]["plan"] == "qd-sweep"
        assert d["conditions"]["iodepth"] == 8
        assert d["directions"]["write"]["exceedance"]
        names = c.get(
            "/api/compare/latency/steps", params={"drives": str(drive["id"]), "plan": "qd-sweep"}
        ).json()
        assert "randwrite-4k-qd8" in names and "purge" not in names
        metric = "qd-sweep:randwrite-4k-qd8:write_lat_max_us"
        cmp = c.get("/api/compare", params={"drives": str(drive["id"]), "metrics": metric})
        assert cmp.status_code == 200, cmp.text
        rows = cmp.json()["metrics"][0]["rows"]
        assert rows[0]["value"] == d["directions"]["write"]["qos"]["max_us"]
        bad = c.get("/api/compare/latency", params={"drives": "", "plan": "qd-sweep", "step": "x"})
        assert bad.status_code == 400 or bad.status_code == 422


def test_compare_puts_the_drives_sweeps_side_by_side(sweep: dict[str, Any]) -> None:
    """GET /api/compare/qd-sweep: each drive's latest sweep, its points and figures the run's
    own, with the queue depths swept among the conditions and a warning where they differ."""
    drive, other = sweep["drive"], sweep["other"]
    with _client(sweep) as c:
        r = c.get(
            "/api/compare/qd-sweep",
            params={"drives": f"{other['id']},{drive['id']}", "under_review": drive["id"]},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        unknown = c.get("/api/compare/qd-sweep", params={"drives": str(drive["id"]),
                                                         "under_review": other["id"]})  # fmt: skip
        assert unknown.status_code == 422 and "under_review" in unknown.text
    assert [d["drive_id"] for d in body["drives"]] == [other["id"], drive["id"]]
    assert body["missing"] == []
    mine, theirs = body["drives"][1], body["drives"][0]
    assert mine["under_review"] and not theirs["under_review"]
    assert mine["run_id"] == sweep["run"]["id"]
    assert theirs["run_id"] == sweep["cli"]["qos"]["run_id"]
    # The points and figures are those of each run's own QoS.
    for entry, qos in ((mine, sweep["qos"]), (theirs, sweep["cli"]["qos"])):
        assert entry["workloads"] == qos["sweep"]["workloads"]
        assert entry["latency_target_us"] == qos["sweep"]["latency_target_us"]
    assert [w["workload"] for w in theirs["workloads"]] == ["randread"]
    assert mine["conditions"]["compared"]["queue depth"] == "QD1, 8"
    assert theirs["conditions"]["compared"]["queue depth"] == "QD1, 2, 4, 16"
    assert mine["conditions"]["compared"]["drive state before"] == "purged, preconditioned"
    warnings = " | ".join(body["warnings"])
    assert "different queue depth: " in warnings and "QD1, 2, 4, 16 (" in warnings
    assert "different runtime" in warnings and "different drive state before" in warnings


def test_the_low_qd_score_is_the_mean_of_qd1_2_and_4(sweep: dict[str, Any]) -> None:
    """The CLI's sweep ran QD1, 2, 4 and 16 with the reviews' cool-off between depths: its
    low-QD score is the mean of the three shallow points' IOPS (fio's totals), stored as a
    result of the sweep's summary step; the first sweep (QD1 and 8) has none."""
    (w,) = sweep["cli"]["qos"]["sweep"]["workloads"]
    iops = {p["qd"]: p["iops"] for p in w["points"]}
    assert sorted(iops) == [1, 2, 4, 16]
    assert w["figures"]["low_qd_iops"] == pytest.approx((iops[1] + iops[2] + iops[4]) / 3)
    with _client(sweep) as c:
        run = c.get(f"/api/runs/{sweep['cli']['qos']['run_id']}").json()
    names = [s["name"] for s in run["steps"]]
    assert [n for n in names if "-cool-off-" in n] == [
        "randread-cool-off-qd2", "randread-cool-off-qd4", "randread-cool-off-qd16"
    ]  # fmt: skip
    summary = next(s for s in run["steps"] if s["name"] == "randread-4k-sweep")
    score = {r["metric"]: r["value"] for r in summary["results"]}["low_qd_iops"]
    assert score == pytest.approx(w["figures"]["low_qd_iops"])
    assert all(x["figures"]["low_qd_iops"] is None for x in sweep["qos"]["sweep"]["workloads"])


def test_cli_prints_the_qos_table(sweep: dict[str, Any]) -> None:
    """`drivelab run --wait` prints each step's QoS row, as the api has it."""
    text, qos = sweep["cli"]["stdout"], sweep["cli"]["qos"]
    assert "latency QoS (completion latency):" in text
    lines = text.splitlines()
    header = next(
        i for i, line in enumerate(lines) if line.startswith("TEST ") and "P99.999" in line
    )
    for step in qos["steps"]:
        q = step["directions"]["read"]
        row = next(line for line in lines[header:] if line.startswith(step["label"] + " "))
        cells = row[len(step["label"]) :].split()
        assert cells[0] == "read" and cells[1] == f"{q['ios']:,}"
        assert _cli_us(q["percentiles"]["p50"]) in row and _cli_us(q["max_us"]) in row
    # 1 s on a sparse file: fewer than 100,000 reads at QD1 on this machine, said with "-".
    assert "- : not enough I/Os for that percentile" in text or all(
        s["directions"]["read"]["percentiles"]["p99.999"] is not None for s in qos["steps"]
    )
    assert "queue-depth sweep:" in text and "randread: peak" in text
    (w,) = qos["sweep"]["workloads"]
    assert f"low-QD score {w['figures']['low_qd_iops']:.0f} IOPS (mean of QD1, 2, 4)" in text


def _cli_us(value: float) -> str:
    from backend.cli import _us

    return _us(value)


@pytest.mark.browser
def test_run_and_compare_pages_draw_the_qos_charts(browser, sweep: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """Chromium opens the qd-sweep run's page and Compare with both drives: the QoS tables,
    the sweep charts, histogram and exceedance curves are drawn from the run's data and
    export as SVG and CSV."""
    from playwright.sync_api import expect

    stack: Stack = sweep["stack"]
    run, drive, other = sweep["run"], sweep["drive"], sweep["other"]
    context = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url, accept_downloads=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    try:
        sign_in(page, stack)
        page.goto(f"/runs/{run['id']}")
        section = page.locator("section[data-section=qos]")
        expect(section.get_by_role("heading", name="Latency QoS")).to_be_visible()
        table = section.get_by_test_id("qos-table")
        rows = table.locator("tbody tr")
        fio_steps = [s for s in run["steps"] if s["kind"] == "fio"]
        directions = sum(len(s["directions"]) for s in sweep["qos"]["steps"])
        expect(rows).to_have_count(directions)
        assert directions >= len(fio_steps)
        # 80 I/Os a point: the table says the tail percentiles cannot be had.
        expect(table.locator("td.qos-table__missing").first).to_have_text("not enough I/Os")
        figures = section.get_by_test_id("qd-sweep-figures")
        expect(figures.locator("li")).to_have_count(3)
        expect(figures).to_contain_text("4K random write: peak")
        for chart, curves in (("qd-sweep-iops", 3), ("qd-sweep-mbps", 3),
                              ("qd-sweep-latency", 3), ("qos-histogram", 1),
                              ("qos-exceedance", 1)):  # fmt: skip
            fig = page.locator(f"figure[data-chart={chart}]")
            fig.scroll_into_view_if_needed()
            expect(fig.locator("path.recharts-line-curve").nth(curves - 1)).to_be_attached()
        # The IOPS chart draws one point per queue depth of each workload.
        dots = page.locator("figure[data-chart=qd-sweep-iops] .recharts-line-dots circle")
        expect(dots).to_have_count(3 * len(QDS))
        latency = page.locator("figure[data-chart=qd-sweep-latency]")
        name, svg = download(page, latency.get_by_role("button", name="SVG"))
        assert name.endswith(".svg") and b"Tail latency against IOPS" in svg
        name, text = download(page, page.locator("figure[data-chart=qos-exceedance]")
                              .get_by_role("button", name="CSV"))  # fmt: skip
        assert name.endswith(".csv") and b"latency_us,share_slower" in text
        shot(page, "qos-run-page")
        if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            section.screenshot(path=str(DOCS_SCREENSHOTS / "qos-run.png"))

        page.goto(f"/compare?drives={drive['id']},{other['id']}&review={drive['id']}")
        read_down(page)
        qos = page.locator("section[data-section=qos]")
        qos.scroll_into_view_if_needed()
        qos.get_by_label("QoS test").select_option("randread-4k-qd1")
        table = qos.get_by_test_id("qos-table")
        expect(table.locator("tbody tr")).to_have_count(2)
        expect(table.locator("tr.qos-table__row--review")).to_have_count(1)
        fig = qos.locator("figure[data-chart=compare-qos-exceedance]")
        expect(fig.locator("path.recharts-line-curve")).to_have_count(2)
        expect(fig.get_by_role("button", name="SVG")).to_be_enabled()
        name, svg = download(page, fig.get_by_role("button", name="SVG"))
        assert b"Latency exceedance" in svg and b"simulated" in svg.lower()
        # Each drive's histogram, overlaid.
        hist = qos.locator("figure[data-chart=compare-qos-histogram]")
        expect(hist.locator("path.recharts-line-curve")).to_have_count(2)
        name, text = download(page, hist.get_by_role("button", name="CSV"))
        assert name.endswith(".csv") and b"latency_us,share_pct" in text
        # The drives' queue-depth sweeps: random reads, which both swept.
        sweeps = qos.locator("div[data-section=qd-sweep]")
        sweeps.scroll_into_view_if_needed()
        expect(sweeps.get_by_label("Sweep workload")).to_have_value("randread")
        figures = sweeps.get_by_test_id("qd-sweep-compare")
        expect(figures.locator("tbody tr")).to_have_count(2)
        review_row = figures.locator("tr.qos-table__row--review")
        expect(review_row).to_have_count(1)
        reads = {w["workload"]: w for w in sweep["qos"]["sweep"]["workloads"]}["randread"]
        mine = reads["figures"]
        expect(review_row.locator("td").nth(1)).to_have_text(f"{round(mine['peak_iops']):,}")
        # The low-QD score: the other drive swept QD1, 2 and 4, the reviewed one did not.
        (theirs,) = sweep["cli"]["qos"]["sweep"]["workloads"]
        other_row = figures.locator("tbody tr:not(.qos-table__row--review)")
        expect(other_row.locator("td").nth(4)).to_have_text(
            f"{round(theirs['figures']['low_qd_iops']):,}"
        )
        expect(review_row.locator("td").nth(4)).to_have_text("—")
        iops = sweeps.locator("figure[data-chart=compare-qd-sweep-iops]")
        # One point per queue depth of each drive: 2 of the reviewed drive, 4 of the other.
        expect(iops.locator(".recharts-line-dots circle")).to_have_count(len(QDS) + 4)
        tail = sweeps.locator("figure[data-chart=compare-qd-sweep-latency]")
        expect(tail.locator("path.recharts-line-curve").first).to_be_attached()
        name, svg = download(page, tail.get_by_role("button", name="SVG"))
        assert b"Tail latency against IOPS" in svg and b"QD1, 8" in svg
        shot(page, "qos-compare-page")
        if os.environ.get("DRIVELAB_DOCS_SCREENSHOTS") == "1":
            qos.screenshot(path=str(DOCS_SCREENSHOTS / "qos-compare.png"))
        # Another workload: only the reviewed drive swept random writes.
        sweeps.get_by_label("Sweep workload").select_option("randwrite")
        expect(figures.locator("tbody tr")).to_have_count(1)
        # A shared link of the comparison carries the QoS table and the sweeps, read-only.
        with stack.client() as c:
            share = c.post(
                "/api/shares",
                json={"drives": [drive["id"], other["id"]], "under_review": drive["id"],
                      "title": "QoS shared"},
            ).json()  # fmt: skip
        anon = browser.new_context(viewport=VIEWPORT, base_url=stack.api_url)
        try:
            shared = anon.new_page()
            shared.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
            shared.goto(f"/shared/{share['token']}")
            sq = shared.locator("section[data-section=qos]")
            sq.scroll_into_view_if_needed()
            sq.get_by_label("QoS test").select_option("randread-4k-qd1")
            expect(sq.get_by_test_id("qos-table").locator("tbody tr")).to_have_count(2)
            ss = sq.locator("div[data-section=qd-sweep]")
            ss.scroll_into_view_if_needed()
            expect(ss.get_by_test_id("qd-sweep-compare").locator("tbody tr")).to_have_count(2)
            expect(
                ss.locator("figure[data-chart=compare-qd-sweep-iops] .recharts-line-dots circle")
            ).to_have_count(len(QDS) + 4)
        finally:
            anon.close()
        assert not problems, problems
    finally:
        context.close()
