"""`/api/audit`: the log of destructive and security-relevant actions (admins)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from backend.audit import service
from backend.audit.models import AuditEvent
from backend.core.deps import Admin, SessionDep
from backend.core.jsonbody import FiniteJSONRoute

router = APIRouter(prefix="/api/audit", tags=["audit"], route_class=FiniteJSONRoute)


class AuditEventOut(BaseModel):
    id: int
    at: datetime
    action: str = Field(description="e.g. run.queued, step.started, bench.token_rotated")
    actor_kind: str = Field(description="user, bench, or system (drivelab itself)")
    actor_id: int | None
    actor_name: str
    drive_id: int | None
    run_id: int | None
    subject: str | None
    details: dict[str, Any]


def event_out(e: AuditEvent) -> AuditEventOut:
    return AuditEventOut(
        id=e.id,
        at=e.at,
        action=e.action,
        actor_kind=e.actor_kind,
        actor_id=e.actor_id,
        actor_name=e.actor_name,
        drive_id=e.drive_id,
        run_id=e.run_id,
        subject=e.subject,
        details=e.details,
    )


@router.get("", response_model=list[AuditEventOut])
def list_audit(
    session: SessionDep,
    _admin: Admin,
    limit: int = Query(200, ge=1, le=5000),
    action: str | None = Query(None, description="only this action, e.g. run.queued"),
    drive_id: int | None = Query(None, description="only actions on this drive"),
    before_id: int | None = Query(None, description="page back: entries older than this id"),
) -> list[AuditEventOut]:
    """Destructive runs queued (plan, drive, confirmed serial), purge and TRIM steps started,
    bench and user tokens issued or revoked, users created and their roles changed: newest
    first."""
    return [
        event_out(e)
        for e in service.list_events(
            session, limit=limit, action=action, drive_id=drive_id, before_id=before_id
        )
    ]
