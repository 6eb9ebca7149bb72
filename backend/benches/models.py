from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow


class Bench(Base):
    """A lab machine running `drivelab worker --bench NAME`."""

    __tablename__ = "benches"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # sha256 of the bench's token; the worker presents the token, never a database credential.
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    host_info: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    last_seen_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
