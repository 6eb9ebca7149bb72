"""Per-run digests (migration 0021, backend.results.digests) on a real PostgreSQL: made when a
run finishes and re-made by every change of its results or steps, in the same transaction;
the comparison with nothing cached reads them (one query, no results) and answers byte for
byte what the comparison computed from the results gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.results import compare as cmp
from backend.results.models import Result, RunDigest
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive, add_run
from tests.backend.results.test_compare_cache import selects

VALUES = {"randread-4k-qd3": 100.0, "randwrite-4k-qd32": 200.0, "randwrite-4k-qd3": 50.0}
READ = "four-corners:randread-4k-qd3:read_mbps"


@pytest.fixture(scope="module")
def lab(engine: Engine) -> dict[str, list[int]]:
    """Four drives, each with three runs of varied values, one on another fio version, and a
    consistency run at OP 25% (a variant) on the first."""
    with session_factory(engine)() as s:
        bench = Bench(name="digest-bench", host_info={})
        s.add(bench)
        s.flush()
        drives = [add_drive(s, bench, 300 + n) for n in range(4)]
        for n, d in enumerate(drives):
            for k in range(3):
                add_run(
                    s,
                    d,
                    {name: v * (1 + 0.013 * n) + 0.7 * k for name, v in VALUES.items()},
                    age_s=1000 - 10 * k,
                    fio="fio-3.38" if (n, k) == (2, 1) else "fio-3.33",
                )
        op = add_run(s, drives[0], VALUES, age_s=5)
        op.params = {"ioengine": "libaio", "op_percent": 25}
        s.commit()
        return {"drives": [d.id for d in drives]}


def fresh(s: Session, drives: list[int], **kw: Any) -> bytes:
    """compare_json with nothing cached, checked to be what compare() computes from the
    results (the old way)."""
    review = kw.pop("review", None)
    cmp._parts.clear()
    cmp._cache.clear()
    body = cmp.compare_json(s, drives, None, review, **kw)
    cmp._parts.clear()
    cmp._cache.clear()
    assert body == cmp._PLAIN.dump_json(cmp.compare(s, drives, None, review, **kw))
    return body


def digest_of(s: Session, run_id: int) -> RunDigest:
    s.expire_all()
    found = s.get(RunDigest, run_id)
    assert found is not None
    return found


def test_every_finished_run_has_a_digest_of_its_results(session: Session, lab: dict) -> None:
    runs = session.scalars(select(Run).where(Run.drive_id.in_(lab["drives"]))).all()
    assert len(runs) == 13
    for run in runs:
        digest = digest_of(session, run.id)
        assert (digest.results_count, digest.results_digest) == (
            run.results_count,
            run.results_digest,
        )
        stored = session.execute(
            select(Step.name, Result.metric, Result.value, Result.unit, Result.step_id)
            .join(Step, Step.id == Result.step_id)
            .where(Result.run_id == run.id)
            .order_by(Result.id)
        ).all()
        assert len(stored) == run.results_count == 3
        arrays = (digest.metrics, digest.result_values, digest.units, digest.step_ids)
        assert list(zip(*arrays, strict=True)) == [
            (f"{run.plan}:{name}:{metric}", value, unit, step_id)
            for name, metric, value, unit, step_id in stored
        ]
        steps = session.execute(
            select(Step.id, Step.kind, Step.name, Step.status)
            .where(Step.run_id == run.id)
            .order_by(Step.idx)
        ).all()
        assert [tuple(step[:4]) for step in digest.steps] == [tuple(s) for s in steps]


def test_the_comparison_with_nothing_cached_reads_digests_and_answers_the_same(
    engine: Engine, lab: dict
) -> None:
    drives = lab["drives"]
    with session_factory(engine)() as s:
        for review in (None, drives[1]):
            for aggregate in ("latest", "mean"):
                fresh(s, drives, review=review, aggregate=aggregate)
        cmp._parts.clear()
        cmp._cache.clear()
        queries = selects(engine, lambda: cmp.compare_json(s, drives, None, drives[0]))
    # the drives, their runs with their digests' keys, the digests: no steps, no results
    assert len(queries) == 3, queries
    assert "run_digests" in queries[2]
    assert not any("FROM results" in q or "ORDER BY runs.finished_at" in q for q in queries)
    body = json.loads(fresh(session_factory(engine)(), drives, review=drives[0]))
    op25 = [m["metric"] for m in body["metrics"] if "@op25" in m["metric"]]
    assert op25 and all(m.startswith("four-corners:") for m in op25)


def test_a_correction_remakes_the_digest_in_the_same_transaction(
    session: Session, lab: dict
) -> None:
    drives = lab["drives"]
    run_id = session.scalars(
        select(Run.id).where(Run.drive_id == drives[1]).order_by(Run.finished_at.desc())
    ).first()
    assert run_id is not None
    before = digest_of(session, run_id)
    values, key = list(before.result_values), (before.results_count, before.results_digest)
    session.execute(
        update(Result)
        .where(Result.run_id == run_id, Result.metric == "read_mbps")
        .values(value=Result.value * 1.25)
    )
    after = digest_of(session, run_id)
    assert (after.results_count, after.results_digest) != key
    changed = [(a, b) for a, b in zip(values, after.result_values, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1] == changed[0][0] * 1.25
    body = json.loads(fresh(session, drives))
    row = next(
        r
        for m in body["metrics"]
        if m["metric"] == READ
        for r in m["rows"]
        if r["drive_id"] == drives[1]
    )
    assert row["value"] == changed[0][1]
    # A step's parameters (its conditions) corrected: the digest's steps follow.
    session.execute(
        text('UPDATE steps SET params = \'{"bs": "8k"}\' WHERE run_id = :run AND idx = 0'),
        {"run": run_id},
    )
    assert digest_of(session, run_id).steps[0][5] == {"bs": "8k"}
    fresh(session, drives)
    # Re-derived: the results deleted and written again, a run resumed and done again.
    session.execute(text("DELETE FROM results WHERE run_id = :run"), {"run": run_id})
    assert digest_of(session, run_id).metrics == []
    fresh(session, drives)
    session.execute(
        text("UPDATE runs SET status = 'running', finished_at = NULL WHERE id = :run"),
        {"run": run_id},
    )
    step = session.scalars(select(Step).where(Step.run_id == run_id, Step.idx == 0)).one()
    session.add(Result(run_id=run_id, step_id=step.id, metric="read_mbps", value=7.5, unit="MB/s"))
    session.flush()
    session.execute(
        text("UPDATE runs SET status = 'done', finished_at = :now WHERE id = :run"),
        {"run": run_id, "now": utcnow()},
    )
    assert digest_of(session, run_id).result_values == [7.5]
    fresh(session, drives)


def test_a_run_without_a_current_digest_is_read_from_its_results(
    engine: Engine, session: Session, lab: dict
) -> None:
    """A digest missing or made from other results (here: removed, and one changed by hand
    with the triggers bypassed) is not used: its run is read as before, the answer the same."""
    drives = lab["drives"]
    runs = session.scalars(select(Run.id).where(Run.drive_id == drives[3])).all()
    session.execute(text("DELETE FROM run_digests WHERE run_id = :run"), {"run": runs[0]})
    session.execute(
        text(
            "UPDATE run_digests SET results_digest = 1, result_values = '{1,2,3}' WHERE run_id = :r"
        ),
        {"r": runs[1]},
    )
    fresh(session, drives, review=drives[3])
    # The migration's backfill makes them again.
    session.execute(text("SELECT run_digest_make(array_agg(id)) FROM runs WHERE status = 'done'"))
    for run_id in runs[:2]:
        digest = digest_of(session, run_id)
        run = session.get(Run, run_id)
        assert run is not None and digest.results_digest == run.results_digest
        assert 1.0 not in digest.result_values
