from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow


class AuditEvent(Base):
    """One destructive or security-relevant action: who (a user, a bench, or drivelab itself),
    when, and which drive. Plain ids and names, no foreign keys: the record outlives what it
    names."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    # run.queued, run.resumed, step.started, bench.token_created, bench.token_rotated,
    # bench.token_revoked, drive.registered, drive.changed, user.created, user.role_changed,
    # user.disabled, user.enabled,
    # user.password_changed, user_token.created, user_token.revoked, login_link.created
    action: Mapped[str] = mapped_column(String(40), index=True)
    # user | bench | system
    actor_kind: Mapped[str] = mapped_column(String(8))
    actor_id: Mapped[int | None]
    actor_name: Mapped[str] = mapped_column(String(120))
    drive_id: Mapped[int | None] = mapped_column(index=True)
    run_id: Mapped[int | None]
    # What the action was done to, in words: "bench local", "user alice", "token cli".
    subject: Mapped[str | None] = mapped_column(String(200))
    details: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
