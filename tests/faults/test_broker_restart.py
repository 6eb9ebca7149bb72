"""Fault: Redis (the Celery broker) restarts and loses its data while runs are queued."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Stack, stop_stack, wait_run
from tests.faults.conftest import (
    PrivateRedis,
    assert_samples_cover_steps,
    broker_run_ids,
    log_lines,
    queue,
    running_step,
    sim_drive,
    wait_until,
    worker_process,
)

pytestmark = pytest.mark.e2e

# About 11 s: three 3 s random steps and two 1 s sequential ones.
RUNNING = {
    "span": "64m",
    "runtime_s": 3,
    "seq_runtime_s": 1,
    "prewrite": False,
    "patterns": ["incompressible"],
}
# Two 1 s steps.
NEXT = {"span": "64m", "runtime_s": 1}


# One run at a time, so a run dispatched to the busy bench waits in the Redis list.
@pytest.mark.stack_env({"DRIVELAB_CONCURRENCY": "1"})
def test_runs_the_broker_lost_are_sent_again_and_run_once(fault_stack: Stack) -> None:
    s = fault_stack
    broker = PrivateRedis(s)
    try:
        b = s.add_drive(s.data_dir / "targets" / "b.img", "Second drive", size=256 << 20)
        with s.client() as c:
            a = sim_drive(c)
            first = queue(c, a, "four-corners", RUNNING)
            wait_until(lambda: running_step(c, first["id"], 1), 30, "the first run to start")
            behind = queue(c, a, "write-hitching", NEXT)  # waits in the api for drive a
            other = queue(c, b, "write-hitching", NEXT)  # dispatched: waits in Redis
            assert behind["waiting_position"] == 1 and other["waiting_position"] is None
            assert broker_run_ids(broker.client()) == [other["id"]]
            worker = worker_process(s)

            down = broker.restart_empty()
            restarted = time.monotonic()
            # The queue and the record of the first run's delivery are gone.
            assert broker_run_ids(broker.client()) == []
            assert not broker.client().exists("unacked")

            runs = [wait_run(c, r["id"], timeout=90) for r in (first, behind, other)]
            print(
                f"\nRedis down {down:.2f} s; all three runs done "
                f"{time.monotonic() - restarted:.1f} s after"
            )
            for run in runs:
                assert run["status"] == "done", run["error"]
                assert_samples_cover_steps(c, run)
        # The worker reconnected by itself (same process) and ran what came after.
        assert worker_process(s).pid == worker.pid
        assert len(log_lines(s, "celery.worker.consumer.connection: Connected to redis")) >= 2
        # The api sent the lost task again; the run queued after the restart was not lost.
        assert log_lines(s, f"run {other['id']}: the broker lost its task")
        assert not log_lines(s, f"run {behind['id']}: the broker lost its task")
        # Never executed twice.
        for run in runs:
            assert len(log_lines(s, f"run {run['id']} claimed:")) == 1
    finally:
        stop_stack(s)
        broker.stop()
