"""Runs as bench workers drive them: claim, report steps, stream samples, finish.

Every call is authenticated by the bench's token and may only touch runs of drives registered
on that bench. Every write is idempotent, so a worker that resends after a network failure
never counts anything twice.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import timedelta
from itertools import repeat
from typing import Any

from psycopg.errors import UniqueViolation
from sqlalchemy import select, update
from sqlalchemy.orm import Session, selectinload

from backend.analysis.fio_results import step_metrics
from backend.analysis.latency import qos_metrics
from backend.audit import service as audit
from backend.benches.models import Bench
from backend.benches.service import touch
from backend.core.db import utcnow
from backend.core.deps import AppState, after_commit
from backend.core.errors import Conflict, Forbidden, InvalidParams, NotFound
from backend.core.events import has_listeners, publish, run_channel
from backend.drives.models import DriveSample
from backend.plans.base import job_file_target, retarget_job_file
from backend.plans.catalog import get_plan
from backend.plans.thermal import COOL_ROLE, HEAT_ROLE
from backend.pts import service as pts_service
from backend.pts.schemas import RoundIn
from backend.results import compare_charts
from backend.results.models import Result
from backend.results.qos import store_latency
from backend.results.service import derive
from backend.runs import queue, series
from backend.runs.models import RUN_FINAL, SAMPLE_COLUMNS, Run, Step
from backend.runs.schemas import (
    SAMPLE_FIELDS,
    Control,
    RunFinish,
    RunSpec,
    SampleBatch,
    StepFinish,
    StepStart,
    WorkerDrive,
    WorkerStep,
)
from backend.runs.service import get_run, publish_progress, publish_run, sample_rates

log = logging.getLogger("drivelab.runs")


def _own_run(session: Session, bench: Bench, run_id: int) -> Run:
    run = get_run(session, run_id)
    if run.drive.bench_id != bench.id:
        raise Forbidden(
            f"run {run_id} belongs to bench {run.drive.bench.name}, not {bench.name}: "
            "a worker may only act on its own bench's runs"
        )
    return run


def _own_run_steps(session: Session, bench: Bench, run_id: int) -> Run:
    """The run and what its steps' progress needs, in two queries instead of get_run's five
    and without the finished steps' fio outputs and logs (hundreds of KB in a long plan): for
    the posts a worker makes every second of every step (samples, heartbeats)."""
    row = session.execute(
        select(Run, DriveSample.bench_id)
        .join(DriveSample, DriveSample.id == Run.drive_id)
        .where(Run.id == run_id)
        .options(
            selectinload(Run.steps).load_only(
                Step.id, Step.run_id, Step.idx, Step.status, Step.progress, Step.estimate_s
            )
        )
    ).first()
    if row is None or row.bench_id != bench.id:
        return _own_run(session, bench, run_id)  # raises, naming the run's bench
    return row.Run


def running_run(session: Session, bench: Bench, run_id: int, *, steps_only: bool = False) -> Run:
    run = (_own_run_steps if steps_only else _own_run)(session, bench, run_id)
    if run.status != "running":
        raise Conflict(f"run {run_id} is {run.status}, not running: stop working on it")
    return run


def run_step_of(run: Run, step_id: int) -> Step:
    for step in run.steps:
        if step.id == step_id:
            return step
    raise NotFound(f"step {step_id} is not a step of run {run.id}")


def claim(session: Session, state: AppState, bench: Bench, run_id: int, worker: str) -> RunSpec:
    """Move a queued run to running, atomically: a run is executed at most once even when the
    broker delivers its task twice."""
    run = _own_run(session, bench, run_id)
    now = utcnow()
    claimed = session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status == "queued", Run.dispatched_at.isnot(None))
        .values(status="running", started_at=now, heartbeat_at=now, worker=worker)
        .returning(Run.id)
    ).scalar()
    if claimed is None:
        if run.status == "queued":
            raise Conflict(
                f"run {run_id} is waiting for its drive: the api dispatches it when "
                "the drive is free"
            )
        raise Conflict(f"run {run_id} is {run.status}, not queued: it will not run again")
    session.refresh(run)
    touch(bench)
    publish_run(session, state, run_id)
    plan = get_plan(run.plan)
    return RunSpec(
        run_id=run.id,
        plan=run.plan,
        resumed=any(s.status == "done" for s in run.steps),
        resume_fingerprint=(run.environment.get("resumes") or [{}])[-1].get("fingerprint"),
        destructive=plan.destructive,
        confirmed_serial=run.confirmed_serial,
        params=run.params,
        drive=WorkerDrive(
            id=run.drive.id,
            serial=run.drive.serial,
            target_path=run.drive.target_path,
            capacity_bytes=run.drive.model.capacity_bytes,
        ),
        steps=[
            WorkerStep(
                id=s.id,
                idx=s.idx,
                kind=s.kind,
                name=s.name,
                params=params,
                job_file=s.job_file,
                status=s.status,  # type: ignore[arg-type]
                fingerprint=s.fingerprint,
            )
            for s, params in zip(run.steps, worker_params(run.steps), strict=True)
        ],
    )


def worker_params(steps: Sequence[Step]) -> list[dict[str, Any]]:
    """Each step's params as the worker gets them. A thermal plan's cool phase ends once the
    drive is back near the temperature its heat phase began at, which the worker that ran the
    heat phase keeps; a run resumed after that heat phase finished (maybe on a worker started
    since) gets it from the heat phase's log: `phase_start_c` on the cool step."""
    out: list[dict[str, Any]] = []
    start_c: float | None = None
    for s in steps:
        params = dict(s.params or {})
        role = params.get("role")
        if role == HEAT_ROLE:
            phase = (s.logs or {}).get("thermal_phase") if s.status == "done" else None
            start_c = phase.get("start_c") if isinstance(phase, dict) else None
        elif role == COOL_ROLE and start_c is not None and s.status != "done":
            params["phase_start_c"] = start_c
        out.append(params)
    return out


def _update_progress(run: Run, step: Step, fraction: float | None) -> None:
    if fraction is not None:
        step.progress = max(step.progress, min(1.0, fraction))
    total = sum(s.estimate_s for s in run.steps) or 1.0
    done = sum(
        s.estimate_s * (1.0 if s.status in ("done", "skipped") else s.progress) for s in run.steps
    )
    run.progress = min(1.0, done / total)


def _control(run: Run, stored: int = 0) -> Control:
    return Control(cancel=run.cancel_requested, stored=stored)


def heartbeat(
    session: Session,
    state: AppState,
    bench: Bench,
    run_id: int,
    progress: float | None,
    step_id: int | None,
) -> Control:
    run = running_run(session, bench, run_id, steps_only=True)
    run.heartbeat_at = utcnow()
    touch(bench)
    if step_id is not None:
        step = run_step_of(run, step_id)
        _update_progress(run, step, progress)
        publish_progress(session, state, run, step)
    return _control(run)


def set_environment(session: Session, bench: Bench, run_id: int, environment: dict) -> None:
    run = running_run(session, bench, run_id)
    # Merged, not replaced: the api's own entries (resumes) and earlier reports stay. The
    # firmware registered for the drive as the run starts is the api's to record: a run whose
    # drive reports none (a file, some USB bridges) keeps the version it ran on after the
    # drive's firmware is edited (backend.results.compare._run_info).
    registered = {"registered_firmware": run.drive.firmware}
    run.environment = {**run.environment, **environment, **registered}


def start_step(
    session: Session, state: AppState, bench: Bench, run_id: int, step_id: int, data: StepStart
) -> Control:
    run = running_run(session, bench, run_id)
    step = run_step_of(run, step_id)
    if step.status == "pending":
        if data.job_file is not None:
            step.job_file = _job_file_run(step, data.job_file)
        step.status = "running"
        step.started_at = utcnow()
        step.command = data.command
        audit.step_started(session, bench, run, step)  # purge and TRIM steps only
    run.heartbeat_at = utcnow()
    publish_run(session, state, run_id)
    return _control(run)


def _job_file_run(step: Step, job_file: str) -> str:
    """The job file the worker runs must be the step's, retargeted to the path its interlock
    checked: anything else is refused, so the stored job file is always the one that ran."""
    path = job_file_target(job_file)
    if path is None and step.kind == "file-copy" and job_file == step.job_file:
        return job_file  # files on the step's own filesystem: no target to retarget
    if step.job_file is None or path is None or retarget_job_file(step.job_file, path) != job_file:
        raise InvalidParams(
            f"the job file reported for step {step.id} ({step.name}) differs from the run's in "
            "more than its target path",
            field="job_file",
        )
    return job_file


def store_samples(
    session: Session, state: AppState, bench: Bench, run_id: int, batch: SampleBatch
) -> Control:
    """Write a batch with binary COPY (through a staging table, so a resent batch is stored
    once), update progress and publish the samples to live viewers."""
    run = running_run(session, bench, run_id, steps_only=True)
    step = run_step_of(run, batch.step_id)
    if step.status != "running":
        raise Conflict(f"step {step.id} of run {run_id} is {step.status}, not running")
    fields = batch.field_lists()
    stored = copy_samples(session, run_id, step.id, fields)
    run.heartbeat_at = utcnow()
    touch(bench)
    _update_progress(run, step, batch.progress)
    if fields[0]:
        channel = run_channel(state.channels, run_id)
        step_id = step.id

        def send_samples() -> None:
            # Built only when someone watches: converting a large batch costs more than
            # storing it.
            if not has_listeners(state.redis, channel):
                return
            rows = zip(repeat(step_id), *fields, strict=False)
            payload = {
                "step_id": step_id,
                "samples": [sample_rates(dict(zip(_LIVE_KEYS, r, strict=True))) for r in rows],
            }
            publish(state.redis, channel, "samples", payload)

        after_commit(session, send_samples)
    publish_progress(session, state, run, step)
    return _control(run, stored)


_STAGE_DDL = (
    "CREATE TEMP TABLE IF NOT EXISTS samples_in "
    "(LIKE samples INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
)
_COPY_TYPES = ["int4"] * 4 + ["int8"] * 4 + ["float8"] * 6 + ["int2"]
_LIVE_KEYS = ("step_id", *SAMPLE_FIELDS)
_COLS = ", ".join(SAMPLE_COLUMNS)
_STORED_IN_RANGE = (
    "SELECT EXISTS (SELECT 1 FROM samples WHERE step_id = %s AND t_ms BETWEEN %s AND %s)"
)


def copy_samples(session: Session, run_id: int, step_id: int, fields: list[list[Any]]) -> int:
    """Store a batch's samples once, however often it is sent; the number of new rows.

    A batch none of whose times are stored yet (every batch but a resent one) is copied
    straight into `samples`, inside a savepoint: twice as fast as the staging table, whose
    INSERT ... ON CONFLICT writes every row twice. A resent batch, or one stored by a
    concurrent post of the same batch meanwhile (the primary key refuses the copy), goes
    through the staging table and adds only the rows that are missing."""
    times = fields[0]  # t_ms
    if not times:
        return 0
    conn = session.connection().connection.driver_connection
    with conn.cursor() as cur:  # type: ignore[union-attr]
        stored = cur.execute(_STORED_IN_RANGE, (step_id, min(times), max(times))).fetchone()
        if stored is not None and not stored[0]:
            cur.execute("SAVEPOINT copy_samples")
            try:
                _copy_rows(cur, "samples", run_id, step_id, fields)
            except UniqueViolation:
                cur.execute("ROLLBACK TO SAVEPOINT copy_samples")
            else:
                cur.execute("RELEASE SAVEPOINT copy_samples")
                return len(times)
        cur.execute(_STAGE_DDL)
        _copy_rows(cur, "samples_in", run_id, step_id, fields)
        cur.execute(
            f"INSERT INTO samples ({_COLS}) SELECT {_COLS} FROM samples_in "
            "ON CONFLICT (step_id, t_ms) DO NOTHING"
        )
        # No TRUNCATE here: ON COMMIT DELETE ROWS empties the staging table at the commit.
        return cur.rowcount


def _copy_rows(cur: Any, table: str, run_id: int, step_id: int, fields: list[list[Any]]) -> None:
    with cur.copy(f"COPY {table} ({_COLS}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(_COPY_TYPES)
        for row in zip(repeat(run_id), repeat(step_id), *fields, strict=False):
            copy.write_row(row)


def store_round(
    session: Session, state: AppState, bench: Bench, run_id: int, step_id: int, data: RoundIn
) -> Control:
    """Keep a PTS round's fio output and tell the run's viewers where convergence stands."""
    run = running_run(session, bench, run_id)
    step = run_step_of(run, step_id)
    if step.status != "running":
        raise Conflict(f"step {step.id} of run {run_id} is {step.status}, not running")
    new = pts_service.save_round(
        session, run, step, data.round, data.output, data.t_start_ms, data.t_end_ms
    )
    run.heartbeat_at = utcnow()
    touch(bench)
    if new and step.params.get("track"):
        rows = pts_service.round_rows(session, step.id)
        event = pts_service.live_round(step, rows)
        channel = run_channel(state.channels, run_id)
        after_commit(session, lambda: publish(state.redis, channel, "round", event))
    return _control(run)


def finish_step(
    session: Session, state: AppState, bench: Bench, run_id: int, step_id: int, data: StepFinish
) -> Control:
    run = running_run(session, bench, run_id)
    run_step_of(run, step_id)  # a step of this run, or 404
    # The step's row locked, and read again once locked: a report sent again while the first
    # is still being stored (the worker's request timed out on a busy api, and it retried) waits
    # here for the first to commit, then finds the step finished, instead of storing it twice.
    step = session.scalars(
        select(Step)
        .where(Step.id == step_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one()
    if step.status not in ("pending", "running"):
        return _control(run)  # already finished: a resent report changes nothing
    metrics = []
    final = None
    if data.output:
        try:
            final = json.loads(data.output)
        except json.JSONDecodeError as exc:
            raise InvalidParams(f"step output is not fio's JSON: {exc}", field="output") from None
        metrics = step_metrics(final) + qos_metrics(final)
        if data.status == "done":
            store_latency(session, run.id, step.id, final)
    metrics += [(m.metric, m.value, m.unit) for m in data.metrics]
    step.status = data.status
    step.output = data.output
    step.stderr = data.stderr
    step.error = data.error
    step.logs = data.logs
    step.fingerprint = data.fingerprint
    step.finished_at = utcnow()
    if data.status == "done":
        step.progress = 1.0
        try:
            derived, step.analysis = derive(session, step, final)
        except Exception as exc:  # noqa: BLE001 - the measurement is stored whatever happens here
            log.exception("analysis of step %s failed", step.id)
            derived, step.analysis = [], {"error": f"{exc.__class__.__name__}: {exc}"}
        metrics += derived
    existing = set(session.scalars(select(Result.metric).where(Result.step_id == step.id)))
    for metric, value, unit in metrics:
        if metric not in existing:
            session.add(
                Result(run_id=run.id, step_id=step.id, metric=metric, value=value, unit=unit)
            )
    run.heartbeat_at = utcnow()
    _update_progress(run, step, None)
    publish_run(session, state, run_id)
    return _control(run)


def finish_run(
    session: Session, state: AppState, bench: Bench, run_id: int, data: RunFinish
) -> None:
    run = _own_run(session, bench, run_id)
    if run.status in RUN_FINAL:
        return
    if run.status != "running":
        raise Conflict(f"run {run_id} is {run.status}: it cannot finish")
    run.status = data.status
    run.error = data.error
    run.finished_at = utcnow()
    if data.status == "done":
        run.progress = 1.0
    for step in run.steps:
        if step.status in ("pending", "running"):
            step.status = "cancelled" if data.status == "cancelled" else "skipped"
            if step.status == "cancelled" and step.started_at is not None:
                step.finished_at = run.finished_at
    log.info("run %s %s%s", run_id, data.status, f": {data.error}" if data.error else "")
    session.flush()
    if data.status == "done":
        _keep_charts(session, run_id)
    series.after_run(session, state, run)
    queue.dispatch_next(session, state, run.drive_id)
    publish_run(session, state, run_id)


def _keep_charts(session: Session, run_id: int) -> None:
    """Draw the finished run's first-open comparison charts now (chart_digests), in the
    finish's transaction. A failure here never fails the finish: the first comparison that
    shows the run draws them instead."""
    try:
        with session.begin_nested():
            compare_charts.make_for_run(session, run_id)
    except Exception:  # noqa: BLE001 - a cache; the run's end must be recorded
        log.exception("run %s: its charts were not kept; a comparison draws them", run_id)


def mark_lost_runs(session: Session, state: AppState, timeout_s: float) -> list[int]:
    """Runs whose worker has been silent past the timeout end `lost`; their samples stay."""
    cutoff = utcnow() - timedelta(seconds=timeout_s)
    ids = list(
        session.scalars(
            update(Run)
            .where(Run.status == "running", Run.heartbeat_at < cutoff)
            .values(
                status="lost",
                finished_at=utcnow(),
                error=f"no word from the worker for {timeout_s:.0f} s: the run is lost; "
                "its samples so far are kept",
            )
            .returning(Run.id)
        )
    )
    for run_id in ids:
        session.execute(
            update(Step)
            .where(Step.run_id == run_id, Step.status == "running")
            .values(status="failed", error="worker lost")
        )
        drive_id = session.scalar(select(Run.drive_id).where(Run.id == run_id))
        lost = session.get(Run, run_id)
        if lost is not None:
            session.refresh(lost)
            series.after_run(session, state, lost)
        if drive_id is not None:
            queue.dispatch_next(session, state, drive_id)
        publish_run(session, state, run_id)
    return ids
