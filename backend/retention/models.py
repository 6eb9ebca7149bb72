from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow

DEFAULT_POINTS = 650


class RetentionPolicy(Base):
    """The lab's retention setting (one row, id 1): window logs and per-second samples of runs
    that finished more than `days` ago are compacted to about `points` chart points per step and
    series (min/max per bucket, as charts downsample); results and fio's JSON always stay.
    `days` None: nothing is compacted until an admin sets it."""

    __tablename__ = "retention_policy"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    days: Mapped[int | None]
    points: Mapped[int] = mapped_column(Integer, default=DEFAULT_POINTS)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_by: Mapped[str | None]
