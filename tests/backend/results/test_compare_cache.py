"""GET /api/compare's cache (compare_json) on a real PostgreSQL: a repeated comparison fetches
no results, and every change that alters the answer gets the new answer, never the old one."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.drives.models import DriveModel, DriveSample
from backend.results import compare as cmp
from backend.results.models import Result
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive, add_run

READ = "four-corners:randread-4k-qd3:read_mbps"
VALUES = {"randread-4k-qd3": 100.0, "randwrite-4k-qd32": 200.0, "randwrite-4k-qd3": 50.0}


@pytest.fixture(scope="module")
def lab(engine: Engine) -> dict[str, list[int]]:
    with session_factory(engine)() as s:
        bench = Bench(name="cache-bench", host_info={})
        s.add(bench)
        s.flush()
        drives = [add_drive(s, bench, 200 + n) for n in range(3)]
        for n, d in enumerate(drives):
            add_run(s, d, {k: v + n for k, v in VALUES.items()}, age_s=100)
        s.commit()
        return {"drives": [d.id for d in drives]}


def answer(s: Session, drives: list[int], **kw: Any) -> dict[str, Any]:
    """compare_json's answer, checked to be the one compare() computes now (no cache)."""
    body = cmp.compare_json(s, drives, None, None, **kw)
    assert body == cmp._PLAIN.dump_json(cmp.compare(s, drives, None, None, **kw))
    return json.loads(body)


def read_row(result: dict[str, Any], drive_id: int) -> dict[str, Any]:
    metric = next(m for m in result["metrics"] if m["metric"] == READ)
    return next(r for r in metric["rows"] if r["drive_id"] == drive_id)


def selects(engine: Engine, fn: Callable[[], Any]) -> list[str]:
    statements: list[str] = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        fn()
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    return [q for q in statements if q.lstrip().upper().startswith("SELECT")]


def test_a_repeated_comparison_fetches_no_results(engine: Engine, lab: dict) -> None:
    drives = lab["drives"]
    with session_factory(engine)() as s:
        first = selects(engine, lambda: cmp.compare_json(s, drives, None, drives[0]))
        body = cmp.compare_json(s, drives, None, drives[0])
        again = selects(engine, lambda: cmp.compare_json(s, drives, None, drives[0]))
        assert body == cmp._PLAIN.dump_json(cmp.compare(s, drives, None, drives[0]))
    # drives, runs with their results' digest, the runs' digests (no steps, no results)
    assert len(first) == 3
    assert "run_digests" in first[2]
    assert not any("ORDER BY runs.finished_at" in q for q in first)
    # the drives and the runs again; not their digests, nor the results
    assert len(again) == 2 and not any("run_digests" in q for q in again)
    assert not any("ORDER BY runs.finished_at" in q for q in again)
    # Another request (here: another drive under review) is another answer.
    with session_factory(engine)() as s:
        other = json.loads(cmp.compare_json(s, drives, None, drives[1]))
    assert read_row(other, drives[1])["under_review"]
    assert not read_row(other, drives[0])["under_review"]


def test_a_run_that_finishes_is_in_the_next_answer(session: Session, lab: dict) -> None:
    drives = lab["drives"]
    before = answer(session, drives)
    assert read_row(before, drives[0])["value"] == 100.0
    drive = session.get(DriveSample, drives[0])
    assert drive is not None
    run = add_run(session, drive, {**VALUES, "randread-4k-qd3": 130})
    run.status = "running"
    run.finished_at = None
    session.flush()
    assert answer(session, drives) == before  # not finished: not compared
    run.status = "done"
    run.finished_at = utcnow()
    session.flush()
    after = read_row(answer(session, drives), drives[0])
    assert after["value"] == 130.0 and after["runs"]["count"] == 2


def test_a_corrected_result_is_in_the_next_answer(session: Session, lab: dict) -> None:
    drives = lab["drives"]
    answer(session, drives)
    run_id = session.scalars(select(Run.id).where(Run.drive_id == drives[1])).one()
    session.execute(
        update(Result)
        .where(Result.run_id == run_id, Result.metric == "read_mbps")
        .values(value=99.5)
    )
    assert read_row(answer(session, drives), drives[1])["value"] == 99.5
    # -0.0 and 0.0 are different answers (JSON -0.0 and 0.0), and different digests.
    session.execute(update(Result).where(Result.run_id == run_id).values(value=0.0))
    assert read_row(answer(session, drives), drives[1])["value"] == 0.0
    session.execute(update(Result).where(Result.run_id == run_id).values(value=-0.0))
    body = cmp.compare_json(session, drives, None, None)
    assert b'"value":-0.0' in body


def test_a_deleted_result_or_renamed_step_is_in_the_next_answer(
    session: Session, lab: dict
) -> None:
    drives = lab["drives"]
    answer(session, drives)
    run_id = session.scalars(select(Run.id).where(Run.drive_id == drives[2])).one()
    session.execute(
        Result.__table__.delete().where(Result.run_id == run_id, Result.metric == "read_mbps")
    )
    result = answer(session, drives)
    metric = next(m for m in result["metrics"] if m["metric"] == READ)
    assert drives[2] not in [r["drive_id"] for r in metric["rows"]]
    session.execute(
        update(Step)
        .where(Step.run_id == run_id, Step.name == "randwrite-4k-qd32")
        .values(name="randwrite-4k-qd32-renamed")
    )
    renamed = answer(session, drives)
    assert "four-corners:randwrite-4k-qd32-renamed:write_mbps" in [
        m["metric"] for m in renamed["metrics"]
    ]


def test_changes_made_by_hand_in_sql_are_in_the_next_answer(session: Session, lab: dict) -> None:
    """A person correcting results with psql: a value corrected, a result added, one deleted,
    a step renamed. The triggers that keep each run's digest see them as they see the app's."""
    drives = lab["drives"]
    answer(session, drives)
    run_id = session.scalars(select(Run.id).where(Run.drive_id == drives[0])).one()

    def sql(statement: str) -> dict[str, Any]:
        session.execute(text(statement), {"run": run_id})
        return answer(session, drives)

    corrected = sql(
        "UPDATE results SET value = value * 1.000001 WHERE run_id = :run AND metric = 'read_mbps'"
    )
    assert read_row(corrected, drives[0])["value"] == 100.0 * 1.000001
    added = sql(
        "INSERT INTO results (run_id, step_id, metric, value, unit) "
        "SELECT run_id, step_id, 'read_iops', 25600, 'IOPS' FROM results "
        "WHERE run_id = :run AND metric = 'read_mbps'"
    )
    iops = "four-corners:randread-4k-qd3:read_iops"
    assert [r["value"] for m in added["metrics"] if m["metric"] == iops for r in m["rows"]] == [
        25600.0
    ]
    deleted = sql("DELETE FROM results WHERE run_id = :run AND metric = 'read_iops'")
    assert iops not in [m["metric"] for m in deleted["metrics"]]
    renamed = sql("UPDATE steps SET name = 'randread-4k-qd3-v2' WHERE run_id = :run AND idx = 0")
    metric = next(m for m in renamed["metrics"] if m["metric"] == READ)
    assert drives[0] not in [r["drive_id"] for r in metric["rows"]]
    assert "four-corners:randread-4k-qd3-v2:read_mbps" in [m["metric"] for m in renamed["metrics"]]


def test_conditions_and_drives_that_change_are_in_the_next_answer(
    session: Session, lab: dict
) -> None:
    drives = lab["drives"]
    pair = drives[:2]
    assert (
        next(m for m in answer(session, pair)["metrics"] if m["metric"] == READ)["warnings"] == []
    )
    run = session.scalars(select(Run).where(Run.drive_id == drives[1])).one()
    run.environment = {"host": {"fio_version": "fio-3.38", "hostname": "bench1"}}
    session.flush()
    warnings = next(m for m in answer(session, pair)["metrics"] if m["metric"] == READ)["warnings"]
    assert any("fio version" in w and "fio-3.38" in w for w in warnings), warnings

    drive = session.get(DriveSample, drives[0])
    assert drive is not None
    drive.serial = "SIM-CORRECTED"
    session.flush()
    assert "SIM-CORRECTED" in read_row(answer(session, pair), drives[0])["label"]

    model = session.get(DriveModel, drive.model_id)
    assert model is not None
    model.embargo_until = utcnow() + timedelta(days=1)
    session.flush()
    assert read_row(answer(session, pair), drives[0])["embargoed"] is True
    with pytest.raises(Exception, match="no drive with id"):
        cmp.compare_json(session, pair, None, None, hide_embargoed=True)


def test_the_cache_keeps_the_most_recent_answers(session: Session, lab: dict) -> None:
    drives = lab["drives"]
    for n in range(cmp.CACHE_SIZE + 5):
        cmp.compare_json(session, drives, None, None if n % 2 else drives[0], "latest")
        cmp.compare_json(session, drives, [READ, f"x:y:{n}"], None)
    assert len(cmp._cache) <= cmp.CACHE_SIZE


def test_rows_of_only_the_metrics_a_page_draws(session: Session, lab: dict) -> None:
    """GET /api/compare?rows=...: every metric listed as the whole answer gives it, but only
    those matching an id or pattern with their rows; byte for byte the whole answer's JSON
    with the others' rows left out."""
    drives = lab["drives"]
    whole = answer(session, drives)
    body = cmp.compare_json(
        session, drives, None, None, rows=[READ, "four-corners:randwrite-4k-qd3*:write_mbps"]
    )
    light = json.loads(body)
    kept = {READ, "four-corners:randwrite-4k-qd32:write_mbps"}
    # the third, four-corners:randwrite-4k-qd3:write_lat_p99_us, matches neither
    assert kept < {m["metric"] for m in whole["metrics"]}
    expected = {
        **whole,
        "metrics": [m if m["metric"] in kept else {**m, "rows": []} for m in whole["metrics"]],
    }
    assert light == expected
    assert body == cmp._PLAIN.dump_json(expected)
    assert len(body) < len(cmp.compare_json(session, drives, None, None))
    assert sum(len(m["rows"]) == len(drives) for m in light["metrics"]) == len(kept)
    # No pattern matches: every metric without rows.
    bare = cmp.compare_json(session, drives, None, None, rows=["nothing:*"])
    assert len(bare) < len(cmp.compare_json(session, drives, None, None)) / 2
    none = json.loads(bare)
    assert [m["metric"] for m in none["metrics"]] == [m["metric"] for m in whole["metrics"]]
    assert all(m["rows"] == [] for m in none["metrics"])
