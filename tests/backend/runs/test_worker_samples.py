"""Sample batches as workers post them: every batch stored once however it is sent (again,
overlapping, twice at the same time), through the api and counted in PostgreSQL; the row
format of earlier workers stores the same values; a malformed batch is refused with the field
to fix."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg

from backend.runs.models import SAMPLE_COLUMNS
from backend.runs.schemas import sample_columns
from tests.bench.common import running_run, sample_rows, stack_database_url
from tests.conftest import Stack


def _send(stack: Stack, token: str, run: dict, body: dict) -> httpx.Response:
    with stack.client(token) as bench:
        return bench.post(
            f"/api/worker/runs/{run['run_id']}/samples",
            content=json.dumps(body),
            headers={"content-type": "application/json"},
        )


def _post(stack: Stack, token: str, run: dict, rows: list[dict], *, as_rows: bool = False) -> int:
    """Post samples as a worker does (columns), or in the row format of earlier workers."""
    body: dict = {"step_id": run["step_id"], "progress": None}
    body.update({"samples": rows} if as_rows else {"columns": sample_columns(rows)})
    r = _send(stack, token, run, body)
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


def _stored_rows(stack: Stack, run: dict) -> list[tuple]:
    with psycopg.connect(stack_database_url(stack)) as conn:
        return conn.execute(
            f"SELECT {', '.join(SAMPLE_COLUMNS[2:])} FROM samples WHERE step_id = %s ORDER BY t_ms",
            (run["step_id"],),
        ).fetchall()


def test_rows_from_earlier_workers_store_the_same_values_as_columns(stack: Stack) -> None:
    token, by_columns = running_run(stack, "samples")
    token2, by_rows = running_run(stack, "samples")
    rows = sample_rows(0, 300, seed=7)
    # Latencies that only some samples have (an interval without reads has no read latency).
    for i, r in enumerate(rows):
        r["read_lat_mean_us"] = None if i % 3 else 80.5 + i
    assert _post(stack, token, by_columns, rows) == 300
    assert _post(stack, token2, by_rows, rows, as_rows=True) == 300
    stored = _stored_rows(stack, by_columns)
    assert stored == _stored_rows(stack, by_rows)
    expected = [tuple(r.get(f) for f in SAMPLE_COLUMNS[2:]) for r in rows]
    assert stored == expected


def test_a_malformed_batch_is_refused_with_the_field_to_fix(stack: Stack) -> None:
    token, run = running_run(stack, "samples")
    columns = sample_columns(sample_rows(0, 5))
    short = {**columns, "write_ios": columns["write_ios"][:4]}
    r = _send(stack, token, run, {"step_id": run["step_id"], "columns": short})
    assert r.status_code == 422, r.text
    assert "t_ms has 5, write_ios has 4" in r.text
    negative = {**columns, "read_bytes": [0, 0, -1, 0, 0]}
    r = _send(stack, token, run, {"step_id": run["step_id"], "columns": negative})
    assert r.status_code == 422, r.text
    assert "columns.read_bytes.2" in r.text
    both = {"step_id": run["step_id"], "columns": columns, "samples": []}
    for body in (both, {"step_id": run["step_id"]}):
        r = _send(stack, token, run, body)
        assert r.status_code == 422, r.text
        assert "either as `columns`" in r.text
    # Nothing of the refused batches was stored.
    assert _stored(stack, run) == []


FIO_JSON = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33" / "randread-4k-qd3.json"


def _final(stream: str) -> dict:
    """fio's final JSON: the last document of a --status-interval stream."""
    decoder, docs, i = json.JSONDecoder(), [], 0
    while i < len(stream):
        if stream[i].isspace():
            i += 1
            continue
        doc, i = decoder.raw_decode(stream, i)
        docs.append(doc)
    return docs[-1]


def test_a_step_finished_several_times_at_once_is_stored_once(stack: Stack) -> None:
    """A worker whose finish report timed out on a busy api sends it again while the first is
    still being stored: every copy is answered (no 500), and the step's results and latency
    histogram are stored once."""
    token, run = running_run(stack, "finish")
    body = json.dumps({"status": "done", "output": json.dumps(_final(FIO_JSON.read_text()))})

    def finish(_i: int) -> httpx.Response:
        with stack.client(token) as bench:
            return bench.post(
                f"/api/worker/runs/{run['run_id']}/steps/{run['step_id']}/finish",
                content=body,
                headers={"content-type": "application/json"},
            )

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(finish, range(6)))
    assert [r.status_code for r in answers] == [200] * 6, [r.text for r in answers]
    with psycopg.connect(stack_database_url(stack)) as conn:
        metrics = [
            m
            for (m,) in conn.execute(
                "SELECT metric FROM results WHERE step_id = %s", (run["step_id"],)
            ).fetchall()
        ]
        latency = conn.execute(
            "SELECT direction FROM step_latency WHERE step_id = %s", (run["step_id"],)
        ).fetchall()
        status = conn.execute(
            "SELECT status FROM steps WHERE id = %s", (run["step_id"],)
        ).fetchone()
    assert metrics and len(metrics) == len(set(metrics)), metrics
    assert "read_iops" in metrics
    assert latency == [("read",)]
    assert status == ("done",)


def _finish(stack: Stack, token: str, run: dict) -> None:
    body = {"status": "done", "output": json.dumps(_final(FIO_JSON.read_text()))}
    with stack.client(token) as bench:
        r = bench.post(f"/api/worker/runs/{run['run_id']}/steps/{run['step_id']}/finish", json=body)
    assert r.status_code == 200, r.text


def test_the_temperature_is_stored_packed_and_returned_and_none_is_no_sensor(
    stack: Stack,
) -> None:
    """temp_dc (tenths of a degree) goes through COPY into the row, into the packed step's
    array when the step ends, and back as temp_c (°C); a second without a reading stays None,
    never 0. A drive without a sensor packs no temperature array at all: no bytes."""
    token, hot = running_run(stack, "temp")
    token2, cold = running_run(stack, "temp")
    rows = sample_rows(0, 3600, seed=3)
    for i, r in enumerate(rows):
        r["temp_dc"] = None if i == 5 else 350 + i // 20  # 35.0 °C, 0.1 °C more every 20 s
    assert _post(stack, token, hot, rows) == 3600
    assert _post(stack, token2, cold, sample_rows(0, 3600, seed=3)) == 3600
    assert [r[-1] for r in _stored_rows(stack, hot)][:7] == [350, 350, 350, 350, 350, None, 350]
    _finish(stack, token, hot)
    _finish(stack, token2, cold)
    with psycopg.connect(stack_database_url(stack)) as conn:
        packed = dict(
            conn.execute(
                "SELECT step_id, pg_column_size(temp_dc) FROM packed_samples "
                "WHERE step_id IN (%s, %s)",
                (hot["step_id"], cold["step_id"]),
            ).fetchall()
        )
        temps = conn.execute(
            "SELECT temp_dc FROM packed_samples WHERE step_id = %s", (hot["step_id"],)
        ).fetchone()
    print(f"packed temperature of 3600 samples: {packed[hot['step_id']]} bytes")
    assert packed[cold["step_id"]] is None  # no sensor: no array
    # 2 bytes a sample at most (a smallint array with a null bitmap), before compression.
    assert packed[hot["step_id"]] <= 2 * 3600 + 3600 // 8 + 64, packed
    assert temps is not None and temps[0][:7] == [350, 350, 350, 350, 350, None, 350]
    with stack.client() as c:
        got = c.get(f"/api/runs/{hot['run_id']}/samples").json()
        none = c.get(f"/api/runs/{cold['run_id']}/samples").json()
    assert [s["temp_c"] for s in got[:7]] == [35.0, 35.0, 35.0, 35.0, 35.0, None, 35.0]
    assert got[-1]["temp_c"] == 35.0 + 179 / 10
    assert all(s["temp_c"] is None for s in none)


def test_a_temperature_out_of_any_sensors_range_is_refused(stack: Stack) -> None:
    token, run = running_run(stack, "temp")
    columns = {**sample_columns(sample_rows(0, 3)), "temp_dc": [450, 5000, None]}
    r = _send(stack, token, run, {"step_id": run["step_id"], "columns": columns})
    assert r.status_code == 422, r.text
    assert "columns.temp_dc.1" in r.text and "3000" in r.text
    assert _stored(stack, run) == []
