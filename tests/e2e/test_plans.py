"""Every plan, shortened, end to end on the simulated drive (a 1 GiB sparse file): the steps
run, the metrics come out, and what METHODS.md promises holds on the target itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_run_path import queue

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MiB = 1024 * 1024


def run_plan(c: httpx.Client, drive: dict, plan: str, params: dict, timeout: float = 300) -> dict:
    return done(c, queue(c, drive, params, plan=plan)["id"], timeout)


def done(c: httpx.Client, run_id: int, timeout: float = 300) -> dict:
    """The run once it ended, checked to be done with every step done."""
    run = wait_run(c, run_id, timeout=timeout)
    assert run["status"] == "done", (
        run["error"],
        [(s["name"], s["status"], s["error"]) for s in run["steps"]],
    )
    assert all(s["status"] == "done" for s in run["steps"])
    return run


def results(step: dict) -> dict[str, float]:
    return {r["metric"]: r["value"] for r in step["results"]}


def logs(c: httpx.Client, run: dict, step: dict) -> dict:
    r = c.get(f"/api/runs/{run['id']}/steps/{step['id']}/logs")
    assert r.status_code == 200, r.text
    return r.json()


def data_extents(path: str) -> list[tuple[int, int]]:
    """Allocated (written) ranges of a sparse file, via SEEK_DATA / SEEK_HOLE."""
    out = []
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            out.append((start, end))
            pos = end
    finally:
        os.close(fd)
    return out


def test_transfer_size_covers_every_size(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(c, sim_drive, "transfer-size", {"span": "8m"})
    sizes = [
        "512",
        "1k",
        "2k",
        "4k",
        "8k",
        "16k",
        "32k",
        "64k",
        "128k",
        "256k",
        "512k",
        "1m",
        "2m",
        "4m",
        "8m",
    ]
    names = [s["name"] for s in run["steps"]]
    assert names == [f"{d}-{bs}" for bs in sizes for d in ("write", "read")]
    for step in run["steps"]:
        direction = "write" if step["name"].startswith("write") else "read"
        r = results(step)
        assert r[f"{direction}_mbps"] > 0
        assert r[f"{direction}_bytes"] == 8 * MiB


def test_consistency_with_25_percent_op_never_writes_beyond_the_span(
    stack: Stack, sim_drive: dict
) -> None:
    with stack.client() as c:
        run = run_plan(c, sim_drive, "consistency", {"op_percent": 25, "runtime_s": 5})
        assert [s["kind"] for s in run["steps"]] == ["purge", "fio", "fio"]
        purge, fill, steady = run["steps"]
        assert logs(c, run, purge)["purge"]["method"] == "file-punch"
        samples = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": steady["id"]}).json()
        window = logs(c, run, steady)
    capacity = sim_drive["model"]["capacity_bytes"]
    span = capacity * 75 // 100 // MiB * MiB
    assert f"size={span // MiB}m" in c_jobs(stack, run)["consistency-4k-qd32"]
    # One IOPS value per second, live and in the 1 s window log: a sample per status
    # snapshot of fio's, joined end to end, together as long as fio ran. (How long each
    # interval is, is fio's: on a busy host a snapshot comes late and the next one early.)
    assert len(samples) >= 4 and all(s["write_iops"] > 0 and s["dt"] > 0 for s in samples)
    starts = [0.0, *(s["t"] for s in samples[:-1])]
    assert all(
        s["t"] - a == pytest.approx(s["dt"], abs=0.01) for a, s in zip(starts, samples, strict=True)
    )
    with stack.client() as c:
        final = json.loads(c.get(f"/api/runs/{run['id']}/steps/{steady['id']}/output").text)
    runtime_s = final["jobs"][0]["write"]["runtime"] / 1000
    assert sum(s["dt"] for s in samples) == pytest.approx(runtime_s, abs=1.0)
    assert window["window_ms"] == 1000 and len(window["iops"]["write"]) >= 4
    # The target itself: nothing was written past 75% of the drive.
    extents = data_extents(sim_drive["target_path"])
    assert extents and max(end for _start, end in extents) <= span
    assert results(steady)["write_iops"] > 0


def c_jobs(stack: Stack, run: dict) -> dict[str, str]:
    with stack.client() as c:
        return {j["name"]: j["job_file"] for j in c.get(f"/api/runs/{run['id']}/jobs").json()}


def test_torture_fills_then_writes_randomly(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(c, sim_drive, "torture", {"runtime_s": 3})
    fill, torture = run["steps"]
    assert results(fill)["write_bytes"] == sim_drive["model"]["capacity_bytes"]
    assert results(torture)["write_iops"] > 0
    assert "rw=randwrite" in c_jobs(stack, run)[torture["name"]]


def test_hdtach_positions_cover_the_whole_span(stack: Stack, sim_drive: dict) -> None:
    span = 512 * MiB
    with stack.client() as c:
        run = run_plan(c, sim_drive, "hdtach", {"span": "512m"})
        for step, direction in zip(run["steps"], ("write", "read"), strict=True):
            assert results(step)[f"{direction}_bytes"] == span
            samples = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": step["id"]}).json()
            # Position = cumulative bytes / span, from fio's own snapshots (every 100 ms here).
            done, positions = 0.0, []
            for s in samples:
                done += s[f"{direction}_mbps"] * 1e6 * s["dt"]
                positions.append(done / span)
            # fio snapshots every 100 ms: most of them 100 ms apart (a busy host holds fio up
            # now and then, and that snapshot comes late, seen 0.41 s; its bytes are in it), so
            # a pass of T seconds has about T / 0.1 of them.
            duration_s = results(step)[f"{direction}_bytes"] / (
                results(step)[f"{direction}_mbps"] * 1e6
            )
            assert len(samples) >= 2
            assert sorted(s["dt"] for s in samples)[len(samples) // 2] <= 0.15, samples
            assert sum(s["dt"] for s in samples) >= 0.9 * duration_s
            assert positions[0] < 0.5
            assert positions[-1] == pytest.approx(1.0, abs=1e-6)
            assert positions == sorted(positions)
        jobs = {j["name"]: j["command"] for j in c.get(f"/api/runs/{run['id']}/jobs").json()}
        assert all("--status-interval=100ms" in cmd for cmd in jobs.values())


def test_performance_over_time_runs_every_pass(stack: Stack, sim_drive: dict) -> None:
    params = {"span": "128m", "torture_runtime_s": 2, "idle_s": 2, "log_window_ms": 20}
    with stack.client() as c:
        run = run_plan(c, sim_drive, "performance-over-time", params)
    kinds = [s["kind"] for s in run["steps"]]
    assert kinds[0] == "purge" and "idle" in kinds and "trim" in kinds
    passes = [s for s in run["steps"] if s["params"].get("role", "").startswith("hdtach")]
    conditions = {s["params"].get("condition") for s in passes}
    assert len(passes) == 8 and len(conditions) == 4
    trim = next(s for s in run["steps"] if s["kind"] == "trim")
    assert results(trim)["trim_gbps"] > 0 and results(trim)["trim_bytes"] == 128 * MiB


def test_trim_validation_writes_before_and_after_trim(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(
            c,
            sim_drive,
            "trim-validation",
            {"span": "128m", "torture_runtime_s": 2, "log_window_ms": 20},
        )
    kinds = [s["kind"] for s in run["steps"]]
    assert kinds == ["purge", "fio", "fio", "fio", "trim", "fio"]
    before, after = run["steps"][3], run["steps"][5]
    assert results(before)["write_bytes"] == results(after)["write_bytes"] == 128 * MiB


def test_trim_performance_times_each_trim(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(
            c,
            sim_drive,
            "trim-performance",
            {"span": "256m", "amounts": ["64m", "128m"], "followup_s": 2},
        )
        trims = [s for s in run["steps"] if s["kind"] == "trim"]
        assert [results(t)["trim_bytes"] for t in trims] == [64 * MiB, 128 * MiB, 256 * MiB]
        assert all(results(t)["trim_gbps"] > 0 for t in trims)
        followup = run["steps"][-1]
        assert followup["params"]["role"] == "trim-followup-write"
        assert logs(c, run, followup)["window_ms"] == 100


def test_write_hitching_keeps_a_100ms_log(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(c, sim_drive, "write-hitching", {"runtime_s": 3, "span": "256m"})
        for step in run["steps"]:
            log = logs(c, run, step)
            assert log["window_ms"] == 100
            assert 20 <= len(log["bw"]["write"]) <= 40
            # The windows' bytes add up to what fio wrote: each row's bytes/s over the time since
            # the row before (100 ms, more when a busy host held fio's logging up).
            t = [0, *log["bw"]["t_ms"]]
            total = sum(v * (t[i + 1] - t[i]) / 1000 for i, v in enumerate(log["bw"]["write"]))
            assert total == pytest.approx(results(step)["write_bytes"], rel=0.1)


def test_trace_replay_reproduces_the_trace_totals(stack: Stack, sim_drive: dict) -> None:
    data = (FIXTURES / "traces" / "mixed-v3.iolog").read_bytes()
    with stack.client() as c:
        up = c.post(
            "/api/traces",
            params={"name": "mixed"},
            content=data,
            headers={"content-type": "application/octet-stream"},
        )
        assert up.status_code == 201, up.text
        trace = up.json()
        assert (trace["read_bytes"], trace["write_bytes"]) == (4550656, 3457024)
        bad = c.post(
            "/api/traces",
            params={"name": "junk"},
            content=b"not a trace",
            headers={"content-type": "application/octet-stream"},
        )
        assert bad.status_code == 422 and "fio iolog" in bad.json()["detail"]
        missing = c.post(
            "/api/runs",
            json={
                "plan": "trace-replay",
                "drive_id": sim_drive["id"],
                "params": {"trace_id": 999999},
                "confirm_serial": sim_drive["serial"],
            },
        )
        assert missing.status_code == 404 and "POST /api/traces" in missing.json()["detail"]
        run = run_plan(c, sim_drive, "trace-replay", {"trace_id": trace["id"], "prefill": False})
    replay = run["steps"][-1]
    r = results(replay)
    assert r["read_bytes"] == trace["read_bytes"]
    assert r["write_bytes"] == trace["write_bytes"]
    job = c_jobs(stack, run)[replay["name"]]
    assert f"read_iolog=trace-{trace['id']}.iolog" in job
    assert f"replay_redirect={sim_drive['target_path']}" in job


def test_trace_replay_synthetic_profile(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = run_plan(
            c, sim_drive, "trace-replay", {"profile": "light", "runtime_s": 2, "prefill": False}
        )
    r = results(run["steps"][-1])
    assert r["read_bytes"] > 0 and r["write_bytes"] > 0
    # "light" is read-mostly: about two thirds of the I/Os are reads.
    share = r["read_iops"] / (r["read_iops"] + r["write_iops"])
    assert 0.5 < share < 0.8


def test_pts_steady_state_rounds(stack: Stack, sim_drive: dict) -> None:
    params = {
        "span": "128m",
        "round_s": 1,
        "max_rounds": 5,
        "measurement_s": 1,
        "precondition_loops": 1,
    }
    with stack.client() as c:
        run = run_plan(c, sim_drive, "pts-steady-state", params)
        kinds = [s["kind"] for s in run["steps"]]
        assert kinds == ["purge", "fio", "fio-rounds", "fio"]
        rounds = run["steps"][2]
        record = logs(c, run, rounds)
        assert len(record["values"]) == 5 == results(rounds)["ss_rounds"]
        assert all(v > 0 for v in record["values"])
        assert record["report"]["steady"] == bool(results(rounds)["ss_steady"])
        assert results(rounds)["ss_range_pct"] == pytest.approx(record["report"]["range_pct"])
        samples = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": rounds["id"]}).json()
        ts = [s["t"] for s in samples]
        assert ts == sorted(ts) and len(set(ts)) == len(ts)  # rounds follow each other in time
    assert json.loads(json.dumps(record))  # plain JSON, ready for charts
