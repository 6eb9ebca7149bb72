"""Per-run digests (the table run_digests, migration 0021): what a comparison reads of each
finished run, made by triggers in the same transaction as the run's finish and every later
change of its results or steps, so that GET /api/compare with nothing cached reads one row per
run instead of joining every result of the compared drives' history to their steps and runs.

A digest records the run's results_count and results_digest it was made from; `read` uses it
only while these are the run's own (as _runs read them), and names the runs it could not
answer for, which the caller reads the old way (compare._steps and compare._rows). The rows it
gives are exactly those: the steps as (id, run id, kind, name, status, job sha256, *the
conditions' step fields as text), the results as (metric id, drive id, run id, value, unit,
step id), the runs' in compare._rows's order (by finish, then run id).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ARRAY, Integer, bindparam, text
from sqlalchemy.orm import Session

from backend.results import compare_parts as parts
from backend.results import conditions as cond

_QUERY = text(
    "SELECT run_id, results_count, results_digest, steps, metrics, result_values, units, "
    "step_ids FROM run_digests WHERE run_id = ANY(:ids)"
).bindparams(bindparam("ids", type_=ARRAY(Integer)))


def read(
    session: Session, runs: Sequence[Any]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[Any]]:
    """(steps, results, runs without a current digest) for `runs` (rows of compare._runs with
    their fingerprint: id, drive_id, finished_at, count, digest): one query."""
    by_id = {run.id: run for run in runs}
    result = session.connection().execute(_QUERY, {"ids": list(by_id)})
    try:
        found = {row[0]: row for row in result.cursor.fetchall()}
    finally:
        result.close()
    stale = []
    steps: list[tuple[Any, ...]] = []
    rows: list[tuple[Any, ...]] = []
    fields = cond.STEP_FIELDS
    for run in sorted(runs, key=lambda r: parts.order(r.id, r.finished_at)):
        digest = found.get(run.id)
        if digest is None or digest[1] != run.count or digest[2] != run.digest:
            stale.append(run)
            continue
        run_id, drive_id = run.id, run.drive_id
        for step_id, kind, name, status, job, params in digest[3]:
            steps.append(
                (step_id, run_id, kind, name, status, job, *(params.get(f) for f in fields))
            )
        rows += [
            (mid, drive_id, run_id, value, unit, step_id)
            for mid, value, unit, step_id in zip(
                digest[4], digest[5], digest[6], digest[7], strict=True
            )
        ]
    return steps, rows, stale


def merge_rows(
    runs: Sequence[Any], from_digests: list[tuple[Any, ...]], read_now: Sequence[Any]
) -> list[tuple[Any, ...]]:
    """The results of the digests and those read the old way of the other runs, in
    compare._rows's order (by the runs' finish, then run id; a run's results together)."""
    if not read_now:
        return from_digests
    finished = {run.id: run.finished_at for run in runs}
    merged = from_digests + list(read_now)
    merged.sort(key=lambda row: parts.order(row[2], finished[row[2]]))  # stable: a run's order
    return merged
