"""Queue semantics: one active run per drive, waiting runs in order, reorder, cancel while
waiting, several drives of a bench at once, and resuming an interrupted run."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_run_path import queue

pytestmark = pytest.mark.e2e

QUICK = {
    "span": "64m",
    "runtime_s": 1,
    "seq_runtime_s": 1,
    "prewrite": False,
    "patterns": ["incompressible"],
}
LONG = {**QUICK, "runtime_s": 60}


def wait_status(c: httpx.Client, run_id: int, status: str, timeout: float = 30) -> dict:
    return wait_run(c, run_id, timeout=timeout, until=(status, "done", "failed", "cancelled"))


def test_busy_drive_runs_wait_in_order_and_can_be_reordered(stack: Stack, sim_drive: dict) -> None:
    with stack.client() as c:
        first = queue(c, sim_drive, LONG)
        assert wait_status(c, first["id"], "running")["status"] == "running"
        second = queue(c, sim_drive, QUICK)
        third = queue(c, sim_drive, QUICK)
        fourth = queue(c, sim_drive, QUICK)
        assert second["status"] == "queued" and second["waiting_position"] == 1
        assert third["waiting_position"] == 2 and fourth["waiting_position"] == 3
        drive = c.get(f"/api/drives/{sim_drive['id']}").json()
        assert drive["active_run_id"] == first["id"]
        # Run the third next, and drop the fourth while it waits.
        moved = c.post(f"/api/runs/{third['id']}/move", json={"position": 1}).json()
        assert moved["waiting_position"] == 1
        assert c.get(f"/api/runs/{second['id']}").json()["waiting_position"] == 2
        bad = c.post(f"/api/runs/{third['id']}/move", json={"position": 9})
        assert bad.status_code == 422 and "1..3" in bad.json()["detail"]
        dropped = c.post(f"/api/runs/{fourth['id']}/cancel").json()
        assert dropped["status"] == "cancelled" and dropped["started_at"] is None
        assert all(s["status"] == "cancelled" for s in dropped["steps"])
        c.post(f"/api/runs/{first['id']}/cancel")
        t3 = wait_run(c, third["id"])
        t2 = wait_run(c, second["id"])
        assert t3["status"] == t2["status"] == "done"
        assert t3["started_at"] < t2["started_at"]
        assert t3["finished_at"] <= t2["started_at"]
        assert c.get(f"/api/runs/{fourth['id']}").json()["started_at"] is None
        nothing = c.post(f"/api/runs/{first['id']}/move", json={"position": 1})
        assert nothing.status_code == 409


def test_a_bench_runs_two_drives_at_once(stack: Stack, sim_drive: dict) -> None:
    target = stack.data_dir / "targets" / "second.img"
    other = stack.add_drive(target, "Second simulated drive", size=512 * 1024 * 1024)
    with stack.client() as c:
        a = queue(c, sim_drive, {**QUICK, "runtime_s": 4})
        b = queue(c, other, {**QUICK, "runtime_s": 4})
        assert a["waiting_position"] is None and b["waiting_position"] is None
        deadline = time.monotonic() + 30
        both = False
        while time.monotonic() < deadline and not both:
            states = [c.get(f"/api/runs/{x['id']}").json()["status"] for x in (a, b)]
            both = states == ["running", "running"]
            time.sleep(0.2)
        assert both, "the two drives' runs never ran at the same time"
        assert wait_run(c, a["id"])["status"] == wait_run(c, b["id"])["status"] == "done"


def _cancel_during_step(c: httpx.Client, run_id: int, idx: int) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = c.get(f"/api/runs/{run_id}").json()
        if run["steps"][idx]["status"] == "running":
            break
        time.sleep(0.2)
    c.post(f"/api/runs/{run_id}/cancel")
    run = wait_run(c, run_id)
    assert run["status"] == "cancelled"
    return run


def test_resume_continues_from_the_first_unfinished_step(stack: Stack, sim_drive: dict) -> None:
    params = {"span": "64m", "runtime_s": 3, "seq_runtime_s": 1, "patterns": ["incompressible"]}
    with stack.client() as c:
        run = queue(c, sim_drive, params)
        stopped = _cancel_during_step(c, run["id"], 2)
        before = {s["id"]: s for s in stopped["steps"]}
        kept = [s for s in stopped["steps"] if s["status"] == "done"]
        assert [s["idx"] for s in kept] == [0, 1]
        samples_before = c.get(
            f"/api/runs/{run['id']}/samples", params={"step_id": kept[1]["id"]}
        ).json()
        resumed = c.post(f"/api/runs/{run['id']}/resume")
        assert resumed.status_code == 200, resumed.text
        done = wait_run(c, run["id"])
        assert done["status"] == "done", done
        for s in done["steps"][:2]:
            assert s["started_at"] == before[s["id"]]["started_at"]  # not run again
        assert done["steps"][2]["started_at"] > before[done["steps"][2]["id"]]["started_at"]
        assert all(s["status"] == "done" and s["results"] for s in done["steps"])
        history = done["environment"]["resumes"]
        assert len(history) == 1 and history[0]["from_step"] == 2
        assert history[0]["previous_status"] == "cancelled"
        after = c.get(f"/api/runs/{run['id']}/samples", params={"step_id": kept[1]["id"]}).json()
        assert after == samples_before
        again = c.post(f"/api/runs/{run['id']}/resume")
        assert again.status_code == 409 and "done" in again.json()["detail"]


def test_resume_is_refused_when_the_drive_was_written(stack: Stack, sim_drive: dict) -> None:
    params = {"span": "64m", "runtime_s": 3, "seq_runtime_s": 1, "patterns": ["incompressible"]}
    with stack.client() as c:
        run = queue(c, sim_drive, params)
        _cancel_during_step(c, run["id"], 2)
        fd = os.open(Path(sim_drive["target_path"]), os.O_WRONLY)
        try:
            os.pwrite(fd, b"somebody else wrote here", 4096)
        finally:
            os.close(fd)
        assert c.post(f"/api/runs/{run['id']}/resume").status_code == 200
        failed = wait_run(c, run["id"])
        assert failed["status"] == "failed"
        assert (
            "resume refused" in failed["error"]
            and "written after the run stopped" in failed["error"]
        )
        assert failed["steps"][2]["started_at"] is None  # nothing ran


def test_estimate_compiles_without_queueing_and_names_the_bad_field(
    stack: Stack, sim_drive: dict
) -> None:
    with stack.client() as c:
        before = len(c.get("/api/runs", params={"drive_id": sim_drive["id"]}).json())
        url = "/api/plans/four-corners/estimate"
        est = c.post(url, json={"drive_id": sim_drive["id"], "params": QUICK})
        assert est.status_code == 200, est.text
        body = est.json()
        assert body["destructive"] is True
        assert body["params"]["randseed"] == 20261121  # defaults filled in
        assert [s["idx"] for s in body["steps"]] == list(range(len(body["steps"])))
        assert body["estimate_s"] == pytest.approx(sum(s["estimate_s"] for s in body["steps"]))
        assert any(s["label"] == "4K random read QD3" for s in body["steps"])
        # Nothing was queued.
        assert len(c.get("/api/runs", params={"drive_id": sim_drive["id"]}).json()) == before
        # Longer runtimes, longer estimate.
        longer = c.post(url, json={"drive_id": sim_drive["id"], "params": LONG}).json()
        assert longer["estimate_s"] > body["estimate_s"]

        bad = c.post(url, json={"drive_id": sim_drive["id"], "params": {"runtime_s": 0}})
        assert bad.status_code == 422 and bad.json()["field"] == "params.runtime_s"
        huge = c.post(url, json={"drive_id": sim_drive["id"], "params": {"span": "9t"}})
        assert huge.status_code == 422 and huge.json()["field"] == "span"
        assert "larger than the drive" in huge.json()["detail"]
        nodrive = c.post(url, json={"drive_id": 999999, "params": {}})
        assert nodrive.status_code == 404 and nodrive.json()["field"] == "drive_id"
        noplan = c.post("/api/plans/nope/estimate", json={"drive_id": sim_drive["id"]})
        assert noplan.status_code == 404 and noplan.json()["field"] == "plan"


def test_lab_stream_tells_of_queued_runs_and_drives_list_waiting_runs(
    stack: Stack, sim_drive: dict
) -> None:
    with stack.client() as c:
        with c.stream("GET", "/api/runs/events") as events:
            assert events.status_code == 200
            assert events.headers["content-type"].startswith("text/event-stream")
            lines = events.iter_lines()
            assert next(lines) == "event: hello"
            first = queue(c, sim_drive, LONG)
            second = queue(c, sim_drive, QUICK)
            seen: set[int] = set()
            deadline = time.monotonic() + 20
            for line in lines:
                if line.startswith("data: ") and "run_id" in line:
                    seen.add(int(line.split('"run_id": ')[1].rstrip("}")))
                if {first["id"], second["id"]} <= seen or time.monotonic() > deadline:
                    break
            assert {first["id"], second["id"]} <= seen
        drive = next(d for d in c.get("/api/drives").json() if d["id"] == sim_drive["id"])
        assert drive["waiting_run_ids"] == [second["id"]]
        assert drive["active_run_id"] == first["id"]
        c.post(f"/api/runs/{second['id']}/cancel")
        c.post(f"/api/runs/{first['id']}/cancel")
        wait_run(c, first["id"], timeout=30)
        assert c.get(f"/api/drives/{sim_drive['id']}").json()["waiting_run_ids"] == []
