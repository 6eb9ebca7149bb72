"""Sample batches as workers post them: every batch stored once however it is sent (again,
overlapping, twice at the same time), through the api and counted in PostgreSQL."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import psycopg

from tests.bench.common import running_run, sample_rows, stack_database_url
from tests.conftest import Stack


def _post(stack: Stack, token: str, run: dict, rows: list[dict]) -> int:
    body = json.dumps({"step_id": run["step_id"], "progress": None, "samples": rows})
    with stack.client(token) as bench:
        r = bench.post(
            f"/api/worker/runs/{run['run_id']}/samples",
            content=body,
            headers={"content-type": "application/json"},
        )
    assert r.status_code == 200, r.text
    return int(r.json()["stored"])


def _stored(stack: Stack, run: dict) -> list[int]:
    with psycopg.connect(stack_database_url(stack)) as conn:
        rows = conn.execute(
            "SELECT t_ms FROM samples WHERE step_id = %s ORDER BY t_ms", (run["step_id"],)
        ).fetchall()
    return [r[0] for r in rows]


def test_a_batch_is_stored_once_however_it_is_sent(stack: Stack) -> None:
    token, run = running_run(stack, "samples")
    first = sample_rows(0, 100)
    assert _post(stack, token, run, first) == 100
    # Sent again (the reply was lost): nothing added.
    assert _post(stack, token, run, first) == 0
    # Overlapping the stored ones: only the new half is added.
    assert _post(stack, token, run, sample_rows(50, 100)) == 50
    # A batch that repeats a time within itself stores it once.
    twice = sample_rows(200, 3)
    assert _post(stack, token, run, twice + twice[:1]) == 3
    assert _stored(stack, run) == [(i + 1) * 1000 for i in range(150)] + [201_000, 202_000, 203_000]


def test_the_same_batch_posted_twice_at_once_is_stored_once(stack: Stack) -> None:
    token, run = running_run(stack, "samples")
    batches = [sample_rows(k * 2000, 2000) for k in range(4)]
    with ThreadPoolExecutor(8) as pool:
        stored = list(pool.map(lambda rows: _post(stack, token, run, rows), batches * 2))
    assert sum(stored) == 4 * 2000
    assert _stored(stack, run) == [(i + 1) * 1000 for i in range(8000)]
