from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Float,
    ForeignKey,
    LargeBinary,
    PrimaryKeyConstraint,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.core.db import Base


class Result(Base):
    """A metric derived from a step's stored fio output (MB/s, IOPS, latency...)."""

    __tablename__ = "results"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    step_id: Mapped[int | None] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"))
    metric: Mapped[str] = mapped_column(String(80), index=True)
    value: Mapped[float] = mapped_column(Float)
    unit: Mapped[str] = mapped_column(String(16))

    __table_args__ = (UniqueConstraint("step_id", "metric"),)


class StepLatency(Base):
    """A fio step's completion-latency distribution in one direction: fio's json+ histogram
    (backend.analysis.latency.pack_bins, a few KB) and fio's exact count, mean and extremes.
    Percentiles, histograms and exceedance curves are drawn from it on request."""

    __tablename__ = "step_latency"

    step_id: Mapped[int] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"))
    direction: Mapped[str] = mapped_column(String(8))
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    ios: Mapped[int] = mapped_column(BigInteger)
    mean_us: Mapped[float] = mapped_column(Float)
    min_us: Mapped[float] = mapped_column(Float)
    max_us: Mapped[float] = mapped_column(Float)
    bins: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = (PrimaryKeyConstraint("step_id", "direction"),)
