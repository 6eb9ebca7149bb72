"""The run path end to end: api -> Celery -> worker -> fio -> samples in PostgreSQL -> api.

Real PostgreSQL, Redis, Celery worker and fio on a sparse file (and a loop device as root).
Every figure is checked against fio's own final JSON, as stored verbatim.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.bench.common import stack_database_url
from tests.conftest import Stack, wait_run
from tests.faults.conftest import fio_processes

pytestmark = pytest.mark.e2e

SHORT = {"span": "64m", "runtime_s": 2, "seq_runtime_s": 2}
EXPECTED_STEPS = [
    "prewrite",
    "randread-4k-qd3",
    "randwrite-4k-qd3-incompressible",
    "randwrite-4k-qd3-compressible",
    "randwrite-4k-qd32-incompressible",
    "randwrite-4k-qd32-compressible",
    "seqread-128k-qd1",
    "seqwrite-128k-qd1-incompressible",
    "seqwrite-128k-qd1-compressible",
]


def queue(client: httpx.Client, drive: dict, params: dict, plan: str = "four-corners") -> dict:
    resp = client.post(
        "/api/runs",
        json={
            "plan": plan,
            "drive_id": drive["id"],
            "params": params,
            "confirm_serial": drive["serial"],
        },
    )
    assert resp.status_code == 201, resp.text
    return resp.json()


def check_against_fio(client: httpx.Client, run: dict) -> None:
    """Each reported MB/s equals fio's own io_bytes / runtime within 1%, and the per-second
    samples of each step add up to fio's io_bytes within 2%."""
    assert run["status"] == "done", run
    assert [s["name"] for s in run["steps"]] == EXPECTED_STEPS
    # {step} is the step's global id: a position answers 404 saying which step sits there.
    second = run["steps"][1]
    if all(s["id"] != 1 for s in run["steps"]):  # step 1 is another run's
        r = client.get(f"/api/runs/{run['id']}/steps/1/output")
        assert r.status_code == 404
        assert (
            f"its step at index 1 is step {second['id']} ({second['name']})" in r.json()["detail"]
        )
    for step in run["steps"]:
        assert step["status"] == "done"
        text = client.get(f"/api/runs/{run['id']}/steps/{step['id']}/output").text
        final = json.loads(text)
        assert final["fio version"] == final["fio version"].strip() and final["jobs"]
        samples = client.get(
            f"/api/runs/{run['id']}/samples", params={"step_id": step["id"]}
        ).json()
        # Timed steps report every second; a size-based one (the pre-write) may end sooner.
        timed = final["jobs"][0]["job options"].get("time_based") == "1"
        assert len(samples) >= (2 if timed else 1), f"{step['name']}: {len(samples)} samples"
        assert all(0 < s["dt"] <= 5 for s in samples)
        results = {r["metric"]: r["value"] for r in step["results"]}
        directions = [d for d in ("read", "write") if final["jobs"][0][d]["io_bytes"] > 0]
        assert directions, step["name"]
        for d in directions:
            job = final["jobs"][0][d]
            fio_mbps = job["io_bytes"] / (job["runtime"] / 1000) / 1e6
            assert results[f"{d}_mbps"] == pytest.approx(fio_mbps, rel=0.01)
            # fio's own bandwidth figure agrees too (bw_bytes is io_bytes / runtime).
            assert results[f"{d}_mbps"] == pytest.approx(job["bw_bytes"] / 1e6, rel=0.01)
            assert results[f"{d}_iops"] == pytest.approx(job["iops"], rel=0.01)
            assert results[f"{d}_lat_p99_us"] == pytest.approx(
                job["clat_ns"]["percentile"]["99.000000"] / 1000, rel=1e-6
            )
            summed = sum(s[f"{d}_mbps"] * s["dt"] * 1e6 for s in samples)
            assert summed == pytest.approx(job["io_bytes"], rel=0.02)
        for other in {"read", "write"} - set(directions):
            assert all(s[f"{other}_mbps"] == 0 for s in samples)


def stored_samples(stack: Stack, run_id: int) -> dict[str, dict[int, int]]:
    """Where a run's samples are stored: rows of `samples` and rows of `packed_samples` (one
    per step), by step id."""
    with psycopg.connect(stack_database_url(stack)) as conn:
        loose = conn.execute(
            "SELECT step_id, count(*) FROM samples WHERE run_id = %s GROUP BY step_id", (run_id,)
        ).fetchall()
        packed = conn.execute(
            "SELECT step_id, n FROM packed_samples WHERE run_id = %s", (run_id,)
        ).fetchall()
    return {"loose": dict(loose), "packed": dict(packed)}


def test_four_corners_on_a_sparse_file(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = queue(c, sim_drive, SHORT)
        assert run["status"] == "queued" and len(run["steps"]) == 9
        run = wait_run(c, run["id"])
        check_against_fio(c, run)
        assert run["progress"] == 1.0
        # Each finished step's samples are packed into one row; none is left as a row.
        stored = stored_samples(stack, run["id"])
        served = {
            s["id"]: len(
                c.get(f"/api/runs/{run['id']}/samples", params={"step_id": s["id"]}).json()
            )
            for s in run["steps"]
        }
        assert stored == {"loose": {}, "packed": {k: n for k, n in served.items() if n}}
        env = run["environment"]
        assert env["drive"]["serial"] == sim_drive["serial"]
        assert env["host"]["fio_version"].startswith("fio-")
        assert env["host"]["kernel"]
        # The job files are exactly what ran, with every option spelled out.
        jobs = c.get(f"/api/runs/{run['id']}/jobs").json()
        assert [j["name"] for j in jobs] == EXPECTED_STEPS
        by = {j["name"]: j["job_file"] for j in jobs}
        assert "rw=randread\nbs=4k\niodepth=3\n" in by["randread-4k-qd3"]
        assert "iodepth=32" in by["randwrite-4k-qd32-incompressible"]
        assert "buffer_compress_percentage=50" in by["randwrite-4k-qd3-compressible"]
        assert "buffer_compress_percentage" not in by["randwrite-4k-qd3-incompressible"]
        assert "refill_buffers=1" in by["randwrite-4k-qd3-incompressible"]
        for text in by.values():
            assert f"filename={sim_drive['target_path']}" in text
            assert "direct=1" in text and "ioengine=libaio" in text
        assert all(
            j["command"].startswith("fio --output-format=json+ --status-interval=1") for j in jobs
        )


def test_health_reports_the_servers_in_use(stack: Stack, services: dict) -> None:
    health = httpx.get(f"{stack.api_url}/api/health").json()
    assert health["status"] == "ok"
    assert health["database"]["detail"].startswith("PostgreSQL")
    assert health["broker"]["detail"].startswith("Redis")
    if services:  # the machine's own servers (Debian's PostgreSQL 15, Redis 7)
        assert "Debian" in health["database"]["detail"]


def test_live_events_stream_samples_while_running(stack: Stack, sim_drive: dict) -> None:
    events: list[tuple[str, dict]] = []
    with stack.client() as c:
        run = queue(c, sim_drive, {**SHORT, "prewrite": False, "patterns": ["incompressible"]})

        def listen() -> None:
            with httpx.stream(
                "GET",
                f"{stack.api_url}/api/runs/{run['id']}/events",
                headers={"Authorization": f"Bearer {stack.token}"},
                timeout=120,
            ) as resp:
                assert resp.headers["content-type"].startswith("text/event-stream")
                name = None
                for line in resp.iter_lines():
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: ") and name:
                        events.append((name, json.loads(line[6:])))

        t = threading.Thread(target=listen)
        t.start()
        t.join(120)
        assert not t.is_alive(), "the event stream did not end with the run"
        final = wait_run(c, run["id"])
        stored_samples = c.get(f"/api/runs/{run['id']}/samples").json()
    assert final["status"] == "done"
    names = [n for n, _ in events]
    assert names[0] == "run" and names[-1] == "run"
    assert events[-1][1]["status"] == "done"
    batches = [d for n, d in events if n == "samples"]
    assert len(batches) >= 5
    live = {(b["step_id"], s["t"]) for b in batches for s in b["samples"]}
    stored = {(s["step_id"], s["t"]) for s in stored_samples}
    assert live == stored
    progress = [d["progress"] for n, d in events if n in ("run", "progress")]
    assert progress == sorted(progress)
    # Every batch moves the run's progress: a `progress` event for its step, never past 1.
    moves = [d for n, d in events if n == "progress"]
    assert len(moves) >= len(batches)
    steps = {s["id"]: s for s in final["steps"]}
    for d in moves:
        assert d["run_id"] == run["id"] and d["step_id"] in steps
        assert 0 <= d["step_progress"] <= 1 and 0 <= d["progress"] <= 1
    # The last progress of each step is the one its run event shows once the step is done.
    for step_id in {d["step_id"] for d in moves}:
        last = [d["step_progress"] for d in moves if d["step_id"] == step_id][-1]
        assert last <= steps[step_id]["progress"]


def test_cancel_stops_fio_and_keeps_samples(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        run = queue(c, sim_drive, {**SHORT, "prewrite": False, "runtime_s": 120})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            samples = c.get(f"/api/runs/{run['id']}/samples").json()
            if len(samples) >= 2:
                break
            time.sleep(0.2)
        assert len(samples) >= 2
        workdir = stack.data_dir / "runs" / str(run["id"])
        assert fio_processes(workdir), "no fio runs the step"
        resp = c.post(f"/api/runs/{run['id']}/cancel")
        assert resp.status_code == 200, resp.text
        # Cancelled, long before the step's 120 s were over (how fast: `make bench`).
        final = wait_run(c, run["id"], timeout=60)
        assert final["status"] == "cancelled"
        step = final["steps"][0]
        assert step["status"] == "cancelled"
        assert all(s["status"] == "cancelled" for s in final["steps"][1:])
        kept = c.get(f"/api/runs/{run['id']}/samples").json()
        assert len(kept) >= len(samples)
        # The cancelled step's samples are packed as a finished step's are.
        assert stored_samples(stack, run["id"]) == {"loose": {}, "packed": {step["id"]: len(kept)}}
        # fio stopped: no fio process is left working in the run's directory.
        assert fio_processes(workdir) == []
        # The drive is free again and cancelling twice says why it cannot.
        again = c.post(f"/api/runs/{run['id']}/cancel")
        assert again.status_code == 409 and "already cancelled" in again.json()["detail"]
        # The audit log says who cancelled it, once.
        audit = c.get("/api/audit", params={"action": "run.cancelled"}).json()
        (entry,) = [e for e in audit if e["run_id"] == run["id"]]
        assert entry["actor_name"] == "admin" and entry["drive_id"] == sim_drive["id"]
        assert entry["details"]["was"] == "running"


def test_bad_requests_say_what_to_fix(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        r = c.post("/api/runs", json={"plan": "nope", "drive_id": sim_drive["id"]})
        assert r.status_code == 404 and "four-corners" in r.json()["detail"]
        r = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": {"runtime_s": 0},
                "confirm_serial": sim_drive["serial"],
            },
        )
        assert r.status_code == 422 and "runtime_s" in r.json()["detail"]
        r = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": {"span": "64t"},
                "confirm_serial": sim_drive["serial"],
            },
        )
        assert r.status_code == 422 and "larger than the drive" in r.json()["detail"]
        r = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": {"bogus": 1},
                "confirm_serial": sim_drive["serial"],
            },
        )
        assert r.status_code == 422 and "bogus" in r.json()["detail"]
        r = c.post(
            "/api/runs", json={"plan": "four-corners", "drive_id": sim_drive["id"], "params": SHORT}
        )
        assert r.status_code == 422 and r.json()["field"] == "confirm_serial"
        r = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": sim_drive["id"],
                "params": SHORT,
                "confirm_serial": "WRONG",
            },
        )
        assert r.status_code == 422 and "does not match" in r.json()["detail"]
        r = c.post(
            "/api/runs", json={"plan": "four-corners", "drive_id": 99999, "confirm_serial": "x"}
        )
        assert r.status_code == 404
    with stack.client(token="") as anon:
        r = anon.post("/api/runs", json={"plan": "four-corners", "drive_id": sim_drive["id"]})
        assert r.status_code == 401 and "Bearer" in r.json()["detail"]
        # Reads need a signed-in user too (tests/e2e/test_access.py covers every endpoint).
        r = anon.get("/api/drives")
        assert r.status_code == 401 and "/login" in r.json()["detail"]
    with stack.client(token="dlb_not-a-real-token") as bad:
        assert bad.post("/api/worker/runs/1/claim", json={"worker": "x"}).status_code == 401


def test_a_run_is_claimed_once(stack: Stack, sim_drive: dict) -> None:
    """A redelivered task finds the run already claimed: it is never executed twice."""
    with stack.client() as c:
        run = wait_run(
            c, queue(c, sim_drive, {**SHORT, "prewrite": False, "patterns": ["compressible"]})["id"]
        )
    bench_token = _bench_token(stack)
    with stack.client(token=bench_token) as worker:
        r = worker.post(f"/api/worker/runs/{run['id']}/claim", json={"worker": "again"})
        assert r.status_code == 409 and "will not run again" in r.json()["detail"]


def _bench_token(stack: Stack) -> str:
    """The local worker's token, as `drivelab up` handed it to the worker process."""
    out = subprocess.run(
        ["pgrep", "-f", "backend.cli worker --bench local"], capture_output=True, text=True
    )
    for pid in out.stdout.split():
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        env = dict(e.decode().split("=", 1) for e in environ if b"=" in e)
        if env.get("DRIVELAB_DATA_DIR") == str(stack.data_dir):
            return env["DRIVELAB_TOKEN"]
    raise AssertionError("local worker not found")


@pytest.fixture
def loop_device(tmp_path: Path):  # type: ignore[no-untyped-def]
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("loop devices need root and losetup")
    backing = tmp_path / "loop-backing.img"
    with open(backing, "wb") as f:
        f.truncate(512 * 1024 * 1024)
    dev = subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


def test_four_corners_on_a_loop_device(stack: Stack, loop_device: str) -> None:
    drive = stack.add_drive(loop_device, "Loop device (test)")
    with stack.client() as c:
        run = wait_run(c, queue(c, drive, SHORT)["id"])
        check_against_fio(c, run)
        assert run["environment"]["drive"]["kind"] == "block"
        assert run["environment"]["drive"]["backing_file"].endswith("loop-backing.img")
        # The data really went to the device: the pre-written span is no longer zeros.
        with open(loop_device, "rb") as f:
            assert f.read(1 << 20) != bytes(1 << 20)
