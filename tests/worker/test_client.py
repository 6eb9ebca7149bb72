"""The worker's sample outbox against a running api: a batch goes out as soon as fio's
snapshot arrives, not at the outbox's next tick; snapshots that come faster than `min_gap_s`
go out together, in order; and with nothing to send it sends a heartbeat.

How fast a sample reaches the browser is measured by `make bench` (tests/bench/bench_live.py);
these tests check what is posted and in which order, with bounds far from the outbox's own.
The run's own heartbeat says the worker is alive between steps, and stops with the run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.bench.common import running_run, sample_rows
from tests.conftest import Stack
from worker.client import ApiClient, RunHeartbeat, SampleOutbox

# The outbox ticks (a heartbeat when nothing arrived) this rarely: whatever it posts within a
# test's waits was posted because samples arrived, not because the tick came.
TICK_S = 120.0


def stored(stack: Stack, run_id: int) -> list[float]:
    with stack.client() as c:
        return [s["t"] for s in c.get(f"/api/runs/{run_id}/samples").json()]


def wait_until(check: Callable[[], Any], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the outbox posted nothing"
        time.sleep(0.02)


def test_samples_are_posted_when_they_arrive_and_fast_ones_together(stack: Stack) -> None:
    token, run = running_run(stack, "outbox")
    client = ApiClient(stack.api_url, token)
    replies: list[dict] = []
    box = SampleOutbox(client, run["run_id"], run["step_id"], replies.append, interval_s=TICK_S)
    box.start()
    try:
        box.add(sample_rows(0, 1), 0.1)
        # Posted at once (well before the tick), and stored.
        wait_until(lambda: len(replies) == 1)
        assert stored(stack, run["run_id"]) == [1.0]
        # Snapshots every 100 ms (an HD Tach pass): none goes out until `min_gap_s` after the
        # last post (most of TICK_S), so they are all still waiting; closing sends them.
        for i in range(30):
            box.add(sample_rows(100 + i, 1, dt_ms=100), None)
            time.sleep(0.1)
        assert len(replies) == 1 and stored(stack, run["run_id"]) == [1.0]
    finally:
        box.close()
        client.close()
    assert box.error is None
    # One post for the thirty, in order, none lost or doubled.
    assert len(replies) == 2
    ts = stored(stack, run["run_id"])
    assert ts == [1.0, *(round((100 + i + 1) * 0.1, 3) for i in range(30))]


def test_a_heartbeat_goes_out_when_nothing_arrives(stack: Stack) -> None:
    token, run = running_run(stack, "outbox-idle")
    client = ApiClient(stack.api_url, token)
    replies: list[dict] = []
    box = SampleOutbox(client, run["run_id"], run["step_id"], replies.append, interval_s=0.5)
    box.start()
    try:
        # fio is starting and prints nothing: the outbox still tells the api it is alive.
        wait_until(lambda: len(replies) >= 1)
    finally:
        box.close()
        client.close()
    assert box.error is None
    assert replies[0]["cancel"] is False
    assert stored(stack, run["run_id"]) == []


def test_the_run_heartbeat_reports_between_steps_and_stops_with_the_run(stack: Stack) -> None:
    token, run = running_run(stack, "alive")
    client = ApiClient(stack.api_url, token)
    replies: list[dict] = []
    try:
        with RunHeartbeat(client, run["run_id"], replies.append, interval_s=0.2) as alive:
            # No step is running and no outbox exists: the heartbeat alone speaks for the run.
            wait_until(lambda: len(replies) >= 2)
            assert all(r["cancel"] is False for r in replies)
            # A reviewer's cancel reaches the worker through it (between steps).
            with stack.client() as c:
                c.post(f"/api/runs/{run['run_id']}/cancel").raise_for_status()
            wait_until(lambda: any(r["cancel"] for r in replies))
        sent = alive.sent
        time.sleep(0.6)
        assert alive.sent == sent == len(replies)  # nothing after the run let it go
    finally:
        client.close()
