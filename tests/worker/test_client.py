"""The worker's sample outbox against a running api: a batch goes out as soon as fio's
snapshot arrives, and fast snapshots are still posted about once a second."""

from __future__ import annotations

import time

from tests.bench.common import running_run, sample_rows
from tests.conftest import Stack
from worker.client import ApiClient, SampleOutbox


def test_samples_are_posted_when_they_arrive_at_most_about_once_a_second(stack: Stack) -> None:
    token, run = running_run(stack, "outbox")
    client = ApiClient(stack.api_url, token)
    replies: list[float] = []
    box = SampleOutbox(client, run["run_id"], run["step_id"], lambda _r: replies.append(0))
    box.start()
    try:
        # fio is starting: a second without samples, so the outbox sends a heartbeat.
        time.sleep(1.2)
        assert len(replies) == 1
        added = time.monotonic()
        box.add(sample_rows(0, 1), 0.1)
        while len(replies) < 2 and time.monotonic() - added < 5:
            time.sleep(0.005)
        # Posted at once, not at the next tick of a one-second timer, nor a second after the
        # heartbeat.
        assert len(replies) == 2 and time.monotonic() - added < 0.3
        # Snapshots every 100 ms (an HD Tach pass) for 3 s: about three posts, not thirty.
        replies.clear()
        for i in range(30):
            box.add(sample_rows(100 + i, 1, dt_ms=100), None)
            time.sleep(0.1)
    finally:
        box.close()
        client.close()
    assert box.error is None
    assert 2 <= len(replies) <= 5
    with stack.client() as c:
        stored = c.get(f"/api/runs/{run['run_id']}/samples").json()
    assert len(stored) == 31
