from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow


class Share(Base):
    """A read-only public link to a comparison. Only the sha256 of its token is stored."""

    __tablename__ = "shares"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    drive_ids: Mapped[list[int]] = mapped_column(JSONB)
    # plan:step:metric names; None: every metric the drives have.
    metrics: Mapped[list[str] | None] = mapped_column(JSONB)
    # Metrics the reviewer added as charts of their own on the Compare page ("Add a metric"),
    # drawn on the shared page after the headline ones.
    added_metrics: Mapped[list[str]] = mapped_column(JSONB, default=list, server_default="[]")
    under_review: Mapped[int | None]
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]
    # Openings of the shared page (GET /api/shares/{token}), and the latest.
    views: Mapped[int] = mapped_column(default=0, server_default="0")
    last_viewed_at: Mapped[datetime | None]
