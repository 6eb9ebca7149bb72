from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, LargeBinary, PrimaryKeyConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base, utcnow


class StepRound(Base):
    """One round of a SNIA PTS rounds step: fio's final JSON of the round, verbatim
    (gzip-compressed: a 56-element round with json+ histograms is megabytes of text), and the
    figures of each element derived from it when it was stored (backend.analysis.pts).

    The worker posts each round as it ends; the primary key makes a resent round a no-op."""

    __tablename__ = "step_rounds"

    step_id: Mapped[int] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    # When the round's fio run started and ended, ms on the step's clock (its samples' clock).
    t_start_ms: Mapped[int] = mapped_column(Integer)
    t_end_ms: Mapped[int] = mapped_column(Integer)
    summary: Mapped[dict[str, Any]] = mapped_column(JSONB)
    output_gz: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (PrimaryKeyConstraint("step_id", "round"),)
