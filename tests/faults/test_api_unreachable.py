"""Fault: the api stops answering for 30 s in the middle of a run (its process is paused with
SIGSTOP, as a hung or suspended server would be), then goes on (SIGCONT)."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Stack, wait_run
from tests.faults.conftest import (
    api_processes,
    assert_samples_cover_steps,
    log_lines,
    pause,
    queue,
    resume,
    running_step,
    samples,
    sim_drive,
    wait_until,
)

pytestmark = pytest.mark.e2e

OUTAGE_S = 30.0
# Purge and fill 32 MiB, then one 40 s step of 4K random writes: the outage falls inside it.
PARAMS = {"span": "32m", "runtime_s": 40}
STEP = "consistency-4k-qd32"


def test_a_run_outlives_a_30_s_api_outage_with_every_sample_once(fault_stack: Stack) -> None:
    s = fault_stack
    with s.client() as c:
        run = queue(c, sim_drive(c), "consistency", PARAMS)
        step = wait_until(lambda: running_step(c, run["id"], 3, STEP), 60, "the timed step")
        spool = s.data_dir / "spool" / f"run-{run['id']}-step-{step['id']}.jsonl"
        api = api_processes(s)
        pause(api)
        paused = time.monotonic()
        try:
            wait_until(spool.exists, OUTAGE_S - 1, "the worker to spool its samples")
            spooled_after = time.monotonic() - paused
            time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - paused)))
        finally:
            resume(api)
        outage = time.monotonic() - paused
        run = wait_run(c, run["id"], timeout=90)
        print(f"\napi paused {outage:.1f} s; the worker spooled after {spooled_after:.1f} s")
        # Not lost: the api does not count its own silence against the worker.
        assert run["status"] == "done", run["error"]
        assert not spool.exists()
        assert_samples_cover_steps(c, run)
        rows = samples(c, run["id"], step["id"])
        assert len(rows) >= PARAMS["runtime_s"]
    assert log_lines(s, f"api unreachable: spooling the samples of run {run['id']}")
    assert log_lines(s, f"api answers again: run {run['id']} step {step['id']} is up to date")
    assert log_lines(s, "the api was not running for")
