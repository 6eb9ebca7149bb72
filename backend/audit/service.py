"""The audit log: destructive and security-relevant actions, who did them, when, on which
drive. Recorded in the transaction of the action itself, so an action that rolls back leaves
no entry and one that commits always has its entry."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from backend.audit.models import AuditEvent
from backend.benches.models import Bench
from backend.drives.models import DriveSample
from backend.drives.service import drive_label
from backend.users.models import User

SYSTEM = "drivelab up"

# Every action drivelab records: record() refuses any other, so a misspelt one fails its
# tests instead of hiding from a filter, and the Admin page offers these while typing (a test
# keeps its list the same).
ACTIONS = frozenset(
    {
        "bench.token_created",
        "bench.token_revoked",
        "bench.token_rotated",
        "drive.changed",
        "drive.registered",
        "login_link.created",
        "price.corrected",
        "price.deleted",
        "retention.changed",
        "retention.compacted",
        "run.cancelled",
        "run.queued",
        "run.resumed",
        "step.started",
        "user.created",
        "user.disabled",
        "user.enabled",
        "user.password_changed",
        "user.role_changed",
        "user_token.created",
        "user_token.revoked",
    }
)


def record(
    session: Session,
    action: str,
    actor: User | Bench | str,
    *,
    drive: DriveSample | None = None,
    run_id: int | None = None,
    subject: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """`actor` is a user, a bench, or the name of drivelab's own process (SYSTEM)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}: add it to audit.service.ACTIONS")
    if isinstance(actor, User):
        kind, actor_id, name = "user", actor.id, actor.name
    elif isinstance(actor, Bench):
        kind, actor_id, name = "bench", actor.id, actor.name
    else:
        kind, actor_id, name = "system", None, actor
    extra = dict(details or {})
    if drive is not None:
        extra.setdefault("drive", drive_label(drive))
    event = AuditEvent(
        action=action,
        actor_kind=kind,
        actor_id=actor_id,
        actor_name=name,
        drive_id=drive.id if drive is not None else None,
        run_id=run_id,
        subject=subject,
        details=extra,
    )
    session.add(event)
    return event


def step_started(session: Session, bench: Bench, run: Any, step: Any) -> None:
    """A purge or TRIM step began on the drive (reported by the bench's worker)."""
    if step.kind not in ("purge", "trim"):
        return
    # Loaded here: the caller's run may come without its drive.
    drive = session.scalar(
        select(DriveSample)
        .where(DriveSample.id == run.drive_id)
        .options(selectinload(DriveSample.model))
    )
    record(
        session,
        "step.started",
        bench,
        drive=drive,
        run_id=run.id,
        subject=f"{step.kind} step {step.name}",
        details={"kind": step.kind, "step": step.name, "step_id": step.id, "plan": run.plan},
    )


def list_events(
    session: Session,
    *,
    limit: int,
    action: str | None = None,
    drive_id: int | None = None,
    before_id: int | None = None,
) -> list[AuditEvent]:
    query = select(AuditEvent).order_by(AuditEvent.id.desc()).limit(limit)
    if action:
        query = query.where(AuditEvent.action == action)
    if drive_id is not None:
        query = query.where(AuditEvent.drive_id == drive_id)
    if before_id is not None:
        query = query.where(AuditEvent.id < before_id)
    return list(session.scalars(query))
