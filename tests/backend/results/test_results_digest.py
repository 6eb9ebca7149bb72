"""The count and digest of each run's results that triggers keep on the run (migration 0012),
on a real PostgreSQL: after every kind of change made in SQL, as a person correcting results
by hand would make it, they are what hashing the run's results and steps afresh gives, and
they change whenever what a comparison reads of the run changes."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from tests.backend.results.test_compare import add_drive, add_run

VALUES = {"randread-4k-qd3": 100.0, "randwrite-4k-qd32": 200.0, "randwrite-4k-qd3": 50.0}

# Each run's count and digest computed from scratch, with the functions the triggers use.
FRESH = """
SELECT runs.id, coalesce(r.n, 0), coalesce(r.x, 0) # coalesce(s.x, 0)
FROM runs
LEFT JOIN (SELECT run_id, count(step_id) AS n,
                  bit_xor(result_digest(step_id, metric, unit, value)) AS x
           FROM results GROUP BY run_id) r ON r.run_id = runs.id
LEFT JOIN (SELECT run_id, bit_xor(step_digest(id, name)) AS x
           FROM steps GROUP BY run_id) s ON s.run_id = runs.id
ORDER BY runs.id
"""
STORED = "SELECT id, results_count, results_digest FROM runs ORDER BY id"


@pytest.fixture
def runs(session: Session) -> list[int]:
    bench = Bench(name="digest-bench", host_info={})
    session.add(bench)
    session.flush()
    drive = add_drive(session, bench, 900)
    ids = [add_run(session, drive, VALUES, age_s=10 * n).id for n in range(3)]
    session.flush()
    return ids


def stored(s: Session) -> dict[int, tuple[int, int]]:
    rows = s.execute(text(STORED)).all()
    assert rows == s.execute(text(FRESH)).all(), "the kept digests are not the fresh ones"
    return {run_id: (n, x) for run_id, n, x in rows}


def sql(session: Session, statement: str, **params: object) -> None:
    session.execute(text(statement), params)


def step_of(s: Session, run_id: int, name: str) -> int:
    found = s.execute(
        text("SELECT id FROM steps WHERE run_id = :r AND name = :n"), {"r": run_id, "n": name}
    ).scalar_one()
    return int(found)


# Each change made in SQL: (statement, which runs' digests it changes, change of their count).
CHANGES = [
    ("UPDATE results SET value = 99.5 WHERE run_id = :a AND metric = 'read_mbps'", "a", 0),
    ("UPDATE results SET value = value WHERE run_id = :a", "", 0),  # nothing changed
    ("UPDATE results SET unit = 'GB/s' WHERE run_id = :a AND unit = 'MB/s'", "a", 0),
    ("UPDATE results SET metric = 'read_x' WHERE run_id = :a AND metric = 'read_mbps'", "a", 0),
    ("UPDATE results SET value = value * 1.000001 WHERE run_id IN (:a, :b)", "ab", 0),
    ("DELETE FROM results WHERE run_id = :b AND metric = 'write_mbps'", "b", -1),
    (
        "INSERT INTO results (run_id, step_id, metric, value, unit) "
        "SELECT run_id, step_id, 'extra_' || metric, value, unit FROM results WHERE run_id = :b",
        "b",
        +2,
    ),
    ("UPDATE steps SET name = name || '-renamed' WHERE run_id = :c AND idx = 0", "c", 0),
    ("UPDATE steps SET progress = 0.5, status = 'done' WHERE run_id = :c", "", 0),
    ("UPDATE results SET step_id = NULL WHERE run_id = :c AND metric = 'read_mbps'", "c", -1),
    ("DELETE FROM steps WHERE run_id = :c AND idx = 2", "c", -1),  # its result goes with it
    ("UPDATE results SET run_id = :a WHERE run_id = :b AND metric = 'read_mbps'", "ab", 0),
]


def test_the_digest_follows_every_change_made_in_sql(session: Session, runs: list[int]) -> None:
    ids = dict(zip("abc", runs, strict=True))
    before = stored(session)
    assert {before[r][0] for r in runs} == {3}  # three results with a step each
    for statement, changed, count in CHANGES:
        sql(session, statement, **ids)
        after = stored(session)
        for name, run_id in ids.items():
            if name in changed:
                assert after[run_id][1] != before[run_id][1], statement
            else:
                assert after[run_id] == before[run_id], statement
        if len(changed) == 1:
            run_id = ids[changed]
            assert after[run_id][0] == before[run_id][0] + count, statement
        before = after


def test_a_value_is_hashed_by_its_bits_not_its_text(session: Session, runs: list[int]) -> None:
    """0.0 and -0.0 are different answers (JSON -0.0); the session's extra_float_digits
    (which changes float8's text) changes nothing."""
    sql(session, "UPDATE results SET value = 0.0 WHERE run_id = :a", a=runs[0])
    zero = stored(session)[runs[0]]
    sql(session, "UPDATE results SET value = '-0.0'::float8 WHERE run_id = :a", a=runs[0])
    assert stored(session)[runs[0]] != zero
    sql(session, "UPDATE results SET value = 1.0 / 3 WHERE run_id = :a", a=runs[0])
    third = stored(session)[runs[0]]
    sql(session, "SET LOCAL extra_float_digits = -10")
    sql(session, "UPDATE results SET value = value + 1 WHERE run_id = :a", a=runs[0])
    sql(session, "UPDATE results SET value = 1.0 / 3 WHERE run_id = :a", a=runs[0])
    assert stored(session)[runs[0]] == third


def test_a_run_deleted_with_its_steps_and_results(session: Session, runs: list[int]) -> None:
    sql(session, "DELETE FROM runs WHERE id = :a", a=runs[0])
    left = stored(session)
    assert runs[0] not in left and runs[1] in left


def test_results_and_steps_added_one_by_one_as_a_run_goes(
    session: Session, runs: list[int]
) -> None:
    """As the worker api stores them: a step, then its results, in separate statements."""
    sql(
        session,
        "INSERT INTO steps (run_id, idx, kind, name, params, estimate_s, status, progress) "
        "VALUES (:a, 9, 'fio', 'late-step', '{}', 1, 'done', 1)",
        a=runs[0],
    )
    step = step_of(session, runs[0], "late-step")
    for n in range(3):
        sql(
            session,
            "INSERT INTO results (run_id, step_id, metric, value, unit) "
            "VALUES (:a, :s, :m, :v, 'MB/s')",
            a=runs[0],
            s=step,
            m=f"metric_{n}",
            v=float(n),
        )
    assert stored(session)[runs[0]][0] == 6


def test_only_the_triggers_write_the_digest(session: Session, runs: list[int]) -> None:
    """A run copied with INSERT ... SELECT (as a person or a loader might) starts from no
    results whatever it copied; a direct UPDATE of the columns changes nothing."""
    columns = (
        "plan, drive_id, params, status, progress, cancel_requested, environment, created_at, "
        "queue_position, results_count, results_digest"
    )
    copied = session.execute(
        text(f"INSERT INTO runs ({columns}) SELECT {columns} FROM runs WHERE id = :a RETURNING id"),
        {"a": runs[0]},
    ).scalar_one()
    assert stored(session)[copied] == (0, 0)
    sql(session, "UPDATE runs SET results_count = 0, results_digest = 0 WHERE id = :a", a=runs[0])
    assert stored(session)[runs[0]][0] == 3


def test_results_truncated(session: Session, runs: list[int]) -> None:
    """TRUNCATE fires no DELETE trigger: its own trigger starts every run again from its steps."""
    sql(session, "TRUNCATE results")
    left = stored(session)
    assert {left[r][0] for r in runs} == {0} and all(left[r][1] != 0 for r in runs)
