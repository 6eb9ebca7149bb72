"""Queue semantics: one active run per drive, the others wait in order.

The database is the source of truth. Only a drive's next run is handed to the broker
(`dispatched_at` set); when it ends, the api dispatches the next one. A bench runs runs of
different drives at the same time. Decisions for one drive are serialised by locking its row.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from functools import partial

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.core.deps import AppState, after_commit
from backend.core.errors import Conflict, InvalidParams
from backend.drives.models import DriveModel, DriveSample
from backend.runs.models import Run
from worker.celery_app import send_run, tasks_in_broker

log = logging.getLogger("drivelab.queue")


def send_or_leave_to_reaper(state: AppState, bench: str, run_id: int, task_id: str | None) -> None:
    """Hand a committed run to its bench's queue. When the broker cannot take it (Redis down),
    the run is stored and stays dispatched with a task the broker does not hold: the reaper
    sends it again once Redis answers (resend_lost_tasks). The request that queued it has
    succeeded and must say so; answering an error would invite a second, duplicate run."""
    try:
        send_run(state.celery, bench, run_id, task_id)
    except Exception as exc:  # noqa: BLE001 - kombu's and redis' errors alike; logged
        log.warning(
            "run %d is stored but Redis did not take its task (%s): it is sent again when "
            "Redis answers",
            run_id,
            exc,
        )


def lock_drive(session: Session, drive_id: int) -> None:
    session.execute(select(DriveSample.id).where(DriveSample.id == drive_id).with_for_update())


def waiting_runs(session: Session, drive_id: int) -> list[Run]:
    """Queued runs of a drive not yet handed to its bench, in execution order."""
    return list(
        session.scalars(
            select(Run)
            .where(Run.drive_id == drive_id, Run.status == "queued", Run.dispatched_at.is_(None))
            .order_by(Run.queue_position, Run.id)
        )
    )


_OWNS_DRIVE = or_(Run.status == "running", (Run.status == "queued") & Run.dispatched_at.isnot(None))


def active_run(session: Session, drive_id: int) -> Run | None:
    """The run that owns the drive now: running, or handed to the bench and not yet claimed."""
    return session.scalar(select(Run).where(Run.drive_id == drive_id, _OWNS_DRIVE))


def active_runs(session: Session) -> dict[int, int]:
    """drive id -> the id of the run that owns the drive now."""
    return {d: r for d, r in session.execute(select(Run.drive_id, Run.id).where(_OWNS_DRIVE))}


def check_side_by_side(session: Session, drive: DriveSample) -> None:
    """Refuse a simulated drive's run on a bench where a real drive's run is queued or running,
    and the other way round. A simulated drive's controller raises the priority of every kernel
    worker thread on the machine while it runs (worker/sim/controller.py, KworkerBoost), which
    changes a real drive's conditions on that bench; the two never share a bench's queue."""
    simulated = drive.model.simulated
    other = session.execute(
        select(Run.id, Run.status, DriveSample.id)
        .join(DriveSample, DriveSample.id == Run.drive_id)
        .join(DriveModel, DriveModel.id == DriveSample.model_id)
        .where(
            DriveSample.bench_id == drive.bench_id,
            Run.status.in_(("queued", "running")),
            DriveModel.simulated.is_(not simulated),
        )
        .order_by(Run.id)
        .limit(1)
    ).first()
    if other is None:
        return
    run_id, status, other_drive = other
    mine, theirs = ("a simulated", "a real") if simulated else ("a real", "a simulated")
    raise Conflict(
        f"bench {drive.bench.name} has run {run_id} {status} on {theirs} drive (drive "
        f"{other_drive}): {mine} drive's run does not share a bench with it, because a "
        "simulated drive raises the priority of every kernel worker thread on the machine, "
        f"which changes a real drive's conditions. Queue this run when run {run_id} has ended "
        "(and the other runs of that kind on this bench), or on another bench",
        field="drive_id",
    )


def next_position(session: Session, drive_id: int) -> float:
    last = session.scalar(
        select(func.max(Run.queue_position)).where(Run.drive_id == drive_id, Run.status == "queued")
    )
    return (last or 0.0) + 1.0


def first_position(session: Session, drive_id: int) -> float:
    """A queue position ahead of every run waiting on the drive."""
    first = session.scalar(
        select(func.min(Run.queue_position)).where(Run.drive_id == drive_id, Run.status == "queued")
    )
    return (first if first is not None else 1.0) - 1.0


def dispatch_next(session: Session, state: AppState, drive_id: int) -> Run | None:
    """Hand the drive's next waiting run to its bench, if the drive is free."""
    lock_drive(session, drive_id)
    if active_run(session, drive_id) is not None:
        return None
    waiting = waiting_runs(session, drive_id)
    if not waiting:
        return None
    run = waiting[0]
    run.dispatched_at = utcnow()
    run.dispatch_task_id = task_id = str(uuid.uuid4())
    bench_name = session.scalar(
        select(Bench.name)
        .join(DriveSample, DriveSample.bench_id == Bench.id)
        .where(DriveSample.id == drive_id)
    )
    run_id = run.id
    after_commit(session, partial(send_or_leave_to_reaper, state, str(bench_name), run_id, task_id))
    return run


def resend_lost_tasks(session: Session, state: AppState, older_than: timedelta) -> list[int]:
    """Send again the runs handed to their bench more than `older_than` ago, still not claimed,
    whose task the broker no longer holds (Redis restarted without its data). A task that was
    not lost after all only makes a duplicate, which the worker's claim refuses. Every api
    process runs this: the runs are locked (skipping those another process holds), so one of
    them sends a lost task again, and the others then see it freshly dispatched."""
    rows = session.execute(
        select(Run, Bench.name)
        .join(DriveSample, DriveSample.id == Run.drive_id)
        .join(Bench, Bench.id == DriveSample.bench_id)
        .where(
            Run.status == "queued",
            Run.dispatched_at < utcnow() - older_than,
            Run.dispatch_task_id.isnot(None),
        )
        .with_for_update(of=Run, skip_locked=True)
    ).all()
    if not rows:
        return []
    held = tasks_in_broker(state.redis, sorted({bench for _run, bench in rows}))
    resent = []
    for run, bench in rows:
        if run.dispatch_task_id in held:
            continue
        run.dispatched_at = utcnow()
        after_commit(
            session, partial(send_or_leave_to_reaper, state, bench, run.id, run.dispatch_task_id)
        )
        resent.append(run.id)
    return resent


def wait_positions(session: Session, run_ids: list[int]) -> dict[int, int]:
    """1-based place of each waiting run in its drive's queue (runs not waiting are absent)."""
    place = (
        func.row_number()
        .over(partition_by=Run.drive_id, order_by=(Run.queue_position, Run.id))
        .label("place")
    )
    waiting = (
        select(Run.id, place).where(Run.status == "queued", Run.dispatched_at.is_(None)).subquery()
    )
    rows = session.execute(select(waiting.c.id, waiting.c.place).where(waiting.c.id.in_(run_ids)))
    return {run_id: int(p) for run_id, p in rows}


def move(session: Session, run: Run, position: int) -> None:
    """Move a waiting run to `position` (1 = next) among its drive's waiting runs."""
    lock_drive(session, run.drive_id)
    if run.status != "queued" or run.dispatched_at is not None:
        state = "already handed to its bench" if run.status == "queued" else run.status
        raise Conflict(f"run {run.id} is {state}: only waiting runs can be reordered")
    others = [r for r in waiting_runs(session, run.drive_id) if r.id != run.id]
    if not 1 <= position <= len(others) + 1:
        raise InvalidParams(
            f"position {position} is outside the queue: choose 1..{len(others) + 1}",
            field="position",
        )
    others.insert(position - 1, run)
    for i, r in enumerate(others, start=1):
        r.queue_position = float(i)
