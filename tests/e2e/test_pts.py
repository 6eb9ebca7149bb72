"""The SNIA PTS plans, shortened, through the whole stack on the simulated drive: every round's
fio output is kept, the report's figures are the rounds' own, and each test reports what the
specification asks of it."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from backend.analysis import pts
from tests.conftest import Stack, wait_run
from tests.e2e.test_plans import logs, results, run_plan
from tests.e2e.test_run_path import _bench_token, queue

pytestmark = pytest.mark.e2e

MiB = 1024 * 1024

IOPS = {
    "span": "64m",
    "block_sizes": ["4k", "64k"],
    "mixes": ["100/0", "65/35", "0/100"],
    "element_s": 1,
    "max_rounds": 5,
    "precondition_loops": 1,
    "threads": 2,
    "iodepth": 4,
    "sponsor": "drivelab tests",
}


@pytest.fixture(scope="module")
def pts_drive(stack: Stack, sim_drive: dict) -> Iterator[dict]:
    """A loop device over a tmpfs file (as root), so the PTS plans run on a block device as
    they do on a bench; the simulated sparse file otherwise (its purge is a hole punch)."""
    if os.geteuid() != 0 or shutil.which("losetup") is None or not Path("/dev/shm").is_dir():
        yield sim_drive
        return
    backing = Path("/dev/shm") / f"drivelab-pts-{secrets.token_hex(4)}.img"
    with open(backing, "wb") as f:
        f.truncate(256 * MiB)
    loop = subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield stack.add_drive(loop, "PTS loop device (test)")
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
        backing.unlink(missing_ok=True)


def report(c: httpx.Client, run: dict) -> dict:
    r = c.get(f"/api/runs/{run['id']}/pts")
    assert r.status_code == 200, r.text
    return r.json()


def rounds_of(c: httpx.Client, run: dict, step: dict) -> list[dict]:
    r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/rounds")
    assert r.status_code == 200, r.text
    return r.json()


def step_named(run: dict, name: str) -> dict:
    return next(s for s in run["steps"] if s["name"] == name)


def test_iops_table_is_the_window_average_of_the_rounds_fio_output(
    stack: Stack, pts_drive: dict
) -> None:
    with stack.client() as c:
        run = run_plan(c, pts_drive, "pts-iops", IOPS)
        assert [s["kind"] for s in run["steps"]] == [
            "purge", "write-cache", "fio", "fio-rounds", "write-cache"
        ]  # fmt: skip
        rounds_step = step_named(run, "rounds")
        rounds = rounds_of(c, run, rounds_step)
        record = logs(c, run, rounds_step)
        rep = report(c, run)
        # Every round's fio output, verbatim, and the figures derived from it.
        outputs = [
            json.loads(
                c.get(
                    f"/api/runs/{run['id']}/steps/{rounds_step['id']}/rounds/{r['round']}/output"
                ).text
            )
            for r in rounds
        ]
        cache = logs(c, run, step_named(run, "write-cache"))["write_cache"]
        purge = logs(c, run, step_named(run, "purge"))["purge"]
    assert len(rounds) == len(record["values"]) >= 5
    names = [f"r{m}-{b}" for m in ("100w0", "65w35", "0w100") for b in ("64k", "4k")]
    for r, final in zip(rounds, outputs, strict=True):
        assert set(r["elements"]) == set(names)  # JSONB keeps no key order
        # Each element ran its threads for its own second: 2 jobs per section.
        assert [j["jobname"] for j in final["jobs"]] == [n for n in names for _ in (0, 1)]
        derived = pts.round_summary(final)
        for name in names:
            assert r["elements"][name] == pytest.approx(derived[name])
    # The worker tracked the 4 KiB write IOPS of each round, as the api finds them.
    tracked = [r["elements"]["r0w100-4k"]["write_iops"] for r in rounds]
    assert record["values"] == pytest.approx(tracked)
    section = rep["sections"][0]
    assert section["values"] == pytest.approx(tracked)
    a, b = section["window"]
    assert b - a == 4 and b <= len(rounds)
    window = [o for r, o in zip(rounds, outputs, strict=True) if a <= r["round"] <= b]
    # The table: each element's IOPS averaged over the window's rounds, from fio's own totals.
    for name in names:
        per_round = []
        for final in window:
            jobs = [j for j in final["jobs"] if j["jobname"] == name]
            ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
            runtime = max(j[d]["runtime"] for j in jobs for d in ("read", "write"))
            per_round.append(ios / (runtime / 1000))
        expected = sum(per_round) / len(per_round)
        assert section["table"][name]["iops"] == pytest.approx(expected, rel=1e-9)
        assert results(rounds_step)[f"iops_{name.replace('-', '_')}"] == pytest.approx(expected)
    # 65/35 mixes reads and writes about 65:35.
    mixed = section["table"]["r65w35-4k"]
    assert mixed["read_iops"] / mixed["iops"] == pytest.approx(0.65, abs=0.03)
    steady = bool(results(rounds_step)["ss_steady"])
    assert (
        section["convergence"]["steady"]
        == steady
        == rep["header"]["convergence"].count("steady state reached")
    )
    header = rep["header"]
    assert header["sponsor"] == "drivelab tests" and header["profile"] == "enterprise"
    assert header["purge"] == purge and purge["method"] in ("blkdiscard", "file-punch")
    assert header["fio_version"].startswith("fio-")
    assert header["threads"] == 2 and header["iodepth"] == 4 and header["active_range_pct"] == 100
    assert header["write_cache"] == cache and cache["supported"] is False
    assert "sets no write cache" in cache["detail"]
    # The run is over: a round posted now (a worker's late retry) is refused, nothing changes.
    with stack.client(token=_bench_token(stack)) as w:
        r = w.post(
            f"/api/worker/runs/{run['id']}/steps/{rounds_step['id']}/rounds",
            json={"round": 1, "output": "{}", "t_start_ms": 0, "t_end_ms": 1},
        )
    assert r.status_code == 409, r.text
    with stack.client() as c:
        assert rounds_of(c, run, rounds_step) == rounds


def test_latency_reports_average_maximum_and_distributions(stack: Stack, pts_drive: dict) -> None:
    params = {
        "span": "64m",
        "block_sizes": ["4k", "512"],
        "mixes": ["65/35", "0/100"],
        "element_s": 1,
        "max_rounds": 5,
        "precondition_loops": 1,
    }
    with stack.client() as c:
        run = run_plan(c, pts_drive, "pts-latency", params)
        rep = report(c, run)
        step = step_named(run, "rounds")
        rounds = rounds_of(c, run, step)
        a, b = rep["sections"][0]["window"]
        outputs = [
            json.loads(c.get(f"/api/runs/{run['id']}/steps/{step['id']}/rounds/{n}/output").text)
            for n in range(a, b + 1)
        ]
    section = rep["sections"][0]
    assert section["track"]["metric"] == "write_lat_mean_us"
    assert section["values"] == pytest.approx(
        [r["elements"]["r0w100-4k"]["write_lat_mean_us"] for r in rounds]
    )
    for name in ("r65w35-4k", "r0w100-512"):
        jobs = [j for f in outputs for j in f["jobs"] if j["jobname"] == name]
        assert all(j["job options"]["iodepth"] == "1" for j in jobs)
        peak = max(
            j[d]["clat_ns"]["max"] for j in jobs for d in ("read", "write") if j[d]["total_ios"]
        )
        assert section["table"][name]["lat_max_us"] == pytest.approx(peak / 1000)
        ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
        got = section["percentiles"][name]["all"]
        assert got["ios"] == ios
        # The histogram holds every I/O of the window.
        shares = section["histograms"][name]["all"]
        assert sum(p[1] for p in shares) == pytest.approx(100.0)
        if ios >= 100_000:
            assert got["99.999"] is not None
        else:
            assert got["99.999"] is None  # too few I/Os for five nines: left out, saying why
            assert f"{ios:,} completed" in got["unsupported"]["99.999"]
        # Each round's average and maximum are the round's own fio figures of the element.
        per_round = section["element_rounds"][name]
        assert [r[0] for r in per_round] == [r["round"] for r in rounds]
        for (_n, mean, peak), r in zip(per_round, rounds, strict=True):
            assert mean == pytest.approx(r["elements"][name]["lat_mean_us"])
            assert peak == pytest.approx(r["elements"][name]["lat_max_us"])
        assert section["table"][name]["lat_max_us"] == pytest.approx(
            max(r[2] for r in per_round if a <= r[0] <= b)
        )
        assert got["99"] is not None and got["99"] <= section["table"][name]["lat_max_us"] * 1.02
    assert rep["header"]["threads"] == 1 and rep["header"]["iodepth"] == 1


def test_wsat_stops_once_the_capacity_multiple_is_written(stack: Stack, pts_drive: dict) -> None:
    params = {"span": "16m", "round_s": 1, "max_s": 30, "capacity_multiple": 2, "threads": 1}
    with stack.client() as c:
        run = run_plan(c, pts_drive, "pts-wsat", params)
        step = step_named(run, "rounds")
        record = logs(c, run, step)
        rep = report(c, run)
    section = rep["sections"][0]
    assert record["stop"] in ("written", "steady")
    written = [r["written_bytes"] for r in section["rounds"]]
    assert written == sorted(written)
    if record["stop"] == "written":
        assert written[-1] >= 32 * MiB and (len(written) == 1 or written[-2] < 32 * MiB)
    assert results(step)["wsat_written_bytes"] == pytest.approx(written[-1])
    assert results(step)["wsat_drive_fills"] == pytest.approx(written[-1] / (16 * MiB))
    assert rep["header"]["preconditioning"] == ["none: the test starts from the purged drive"]
    assert section["histograms"]["r0w100-4k"]["write"]


def test_hir_marks_each_wait_state_and_its_return_to_baseline(
    stack: Stack, pts_drive: dict
) -> None:
    params = {
        "span": "32m",
        "element_s": 1,
        "max_rounds": 5,
        "precondition_loops": 1,
        "waits_s": [1, 2],
        "cycles": 2,
        "write_s": 1,
        "baseline_s": 1,
        "threads": 1,
        "iodepth": 4,
    }
    with stack.client() as c:
        run = run_plan(c, pts_drive, "pts-hir", params)
        rep = report(c, run)
        wait1 = step_named(run, "wait-1s")
        samples = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": wait1["id"]}).json()
        compared = c.get("/api/compare/pts", params={"drives": str(pts_drive["id"])}).json()
    hir = rep["hir"]
    assert [s["wait_s"] for s in hir["sets"]] == [1, 2]
    first = hir["sets"][0]
    assert first["cycles"] == 2 and len(first["bursts"]) == 2
    (s1, e1, _i1), (s2, _e2, _i2) = first["bursts"]
    # The wait is a real gap with no I/O between two write periods.
    assert s2 - e1 >= 1.0
    assert not [s for s in samples if e1 + 0.05 < s["t"] - s["dt"] and s["t"] < s2 - 0.05]
    assert first["baseline"]["iops"] > 0 and first["burst_iops"] > 0
    assert hir["sets"][1]["start_s"] > first["start_s"]
    assert results(wait1)["hir_burst_iops"] == pytest.approx(first["burst_iops"])
    # Compare names each set by its wait as the plan does ("wait-1s", not "wait-1.0s").
    (entry,) = next(t for t in compared["tests"] if t["plan"] == "pts-hir")["drives"]
    assert entry["run_id"] == run["id"]
    assert set(entry["values"]) == {"steady", "wait-1s", "wait-2s"}
    assert entry["values"]["wait-1s"]["iops"] == pytest.approx(first["burst_iops"])


def test_compare_puts_drives_pts_tables_side_by_side(stack: Stack, sim_drive: dict) -> None:
    target = stack.data_dir / "targets" / "pts-compare.img"
    other = stack.add_drive(target, "PTS compare drive (test)", size=256 * MiB)
    small = {**IOPS, "mixes": ["100/0", "0/100"], "block_sizes": ["4k"]}
    with stack.client() as c:
        runs = {d["id"]: run_plan(c, d, "pts-iops", small) for d in (sim_drive, other)}
        reports = {d: report(c, r) for d, r in runs.items()}
        r = c.get(
            "/api/compare/pts",
            params={"drives": f"{sim_drive['id']},{other['id']}", "under_review": other["id"]},
        )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["reference"] == other["id"]
    iops = next(t for t in body["tests"] if t["plan"] == "pts-iops")
    assert [d["drive_id"] for d in iops["drives"]] == [sim_drive["id"], other["id"]]
    for entry in iops["drives"]:
        assert entry["run_id"] == runs[entry["drive_id"]]["id"]
        table = reports[entry["drive_id"]]["sections"][0]["table"]
        assert entry["values"]["4k"]["0/100"] == pytest.approx(table["r0w100-4k"]["iops"])
        assert entry["values"]["4k"]["100/0"] == pytest.approx(table["r100w0-4k"]["iops"])
    assert iops["drives"][1]["under_review"] and not iops["drives"][0]["under_review"]


def test_throughput_and_xsr_report_their_figures(stack: Stack, pts_drive: dict) -> None:
    with stack.client() as c:
        tp = run_plan(
            c,
            pts_drive,
            "pts-throughput",
            {"span": "64m", "block_sizes": ["1m"], "element_s": 1, "max_rounds": 5, "threads": 2},
        )
        tp_report = report(c, tp)
        xsr = run_plan(
            c, pts_drive, "pts-xsr", {"span": "64m", "seq1_s": 3, "rand_s": 3, "seq2_s": 3}
        )
        xsr_report = report(c, xsr)
    section = tp_report["sections"][0]
    assert section["track"]["metric"] == "write_mbps"
    step = step_named(tp, "rounds-1m")
    row = section["table"]
    assert results(step)["write_mbps"] == pytest.approx(row["seq-write-1m"]["write_mbps"])
    assert results(step)["read_mbps"] == pytest.approx(row["seq-read-1m"]["read_mbps"])
    stimuli = xsr_report["xsr"]["stimuli"]
    assert [s["name"] for s in stimuli] == ["xsr-seq-1", "xsr-rand", "xsr-seq-2"]
    for s, step in zip(
        stimuli, [step_named(xsr, n) for n in ("xsr-seq-1", "xsr-rand", "xsr-seq-2")], strict=True
    ):
        assert s["mbps"] == pytest.approx(results(step)["write_mbps"])
        assert len(s["mbps_series"]) >= 2 and all(v >= 0 for _t, v in s["mbps_series"])
        assert s["mbps_series"][0][0] >= s["start_s"]
    assert stimuli[1]["start_s"] > stimuli[0]["start_s"] + 2.5
    # Each stimulus's levels and recovery come from its samples; the per-second maximum
    # response time never exceeds fio's own maximum of the stimulus.
    for s in stimuli:
        assert s["levels"] and s["recovery_s"] is not None and s["settled_mbps"] > 0
        assert s["lat_max_us"] is not None and s["lat_max_series"]
        assert max(v for _t, v in s["lat_max_series"]) <= s["lat_max_us"] * 1.02
    assert [t["to"] for t in xsr_report["xsr"]["transitions"]] == ["xsr-rand", "xsr-seq-2"]
    assert xsr_report["header"]["threads"] == 1 and xsr_report["header"]["iodepth"] == 32
    # No rounds in XSR: the header says steady state does not apply, not that it is pending.
    assert xsr_report["header"]["convergence"].startswith("not applicable")
    assert tp_report["header"]["convergence"].startswith("rounds-1m: ")


def test_a_cancel_stops_dirths_point_runs_and_the_report_says_they_did_not_end(
    stack: Stack, pts_drive: dict
) -> None:
    """Cancelled while the dedicated run at the first IOPS point goes on (2 minutes long): fio
    stops within seconds, the point-runs step and the run end cancelled, no unfinished point
    run is stored as a round, and the report has no histograms at the points, saying why."""
    params = {
        "span": "64m",
        "block_size": "4k",
        "thread_counts": [2, 1],
        "queue_depths": [2, 1],
        "element_s": 1,
        "max_rounds": 5,
        "pc_threads": 1,
        "pc_iodepth": 4,
        "pc_max_rounds": 5,
        "prewrite_s": 0,
        "point_s": 120,
    }
    with stack.client() as c:
        run_id = queue(c, pts_drive, params, plan="pts-dirth")["id"]
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            run = c.get(f"/api/runs/{run_id}").json()
            points = step_named(run, "point-runs")
            # Until the point runs go, or the run ends without them (a run still queued, the
            # moment it was queued, has not begun: CI found it so and stopped waiting).
            if points["status"] == "running" or run["status"] not in ("queued", "running"):
                break
            time.sleep(0.25)
        assert points["status"] == "running", (run["status"], run["error"])
        time.sleep(3)  # fio is writing at the first point
        assert c.post(f"/api/runs/{run_id}/cancel").status_code == 200
        asked = time.monotonic()
        ended = wait_run(c, run_id, timeout=60)
        took = time.monotonic() - asked
        assert ended["status"] == "cancelled", ended["error"]
        assert took < 30, took
        assert step_named(ended, "point-runs")["status"] == "cancelled"
        assert step_named(ended, "rounds")["status"] == "done"
        assert rounds_of(c, ended, step_named(ended, "point-runs")) == []
        section = next(s for s in report(c, ended)["sections"] if s["name"] == "rounds")
    assert section["histograms"] is None and section["point_runs"]["status"] == "cancelled"
    assert section["histograms_source"] == (
        "from a dedicated 120-second run at each point, as the PTS specifies (those runs: "
        "cancelled)"
    )
