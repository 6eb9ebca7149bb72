from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
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


class RunDigest(Base):
    """What a comparison reads of a finished run, in one row (migration 0021): its steps in
    order as [id, kind, name, status, job file sha256, {parameter: text}] and its results with
    a step as parallel arrays (metric id `plan:step:metric`, value, unit, step id), with the
    run's results_count and results_digest it was made from. Kept by triggers, never written
    here; a comparison uses it only while those two are the run's (backend.results.digests)."""

    __tablename__ = "run_digests"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    results_count: Mapped[int] = mapped_column(Integer)
    results_digest: Mapped[int] = mapped_column(BigInteger)
    steps: Mapped[list[Any]] = mapped_column(JSONB)
    metrics: Mapped[list[str]] = mapped_column(ARRAY(Text))
    result_values: Mapped[list[float]] = mapped_column(ARRAY(Float))
    units: Mapped[list[str]] = mapped_column(ARRAY(Text))
    step_ids: Mapped[list[int]] = mapped_column(ARRAY(Integer))
    made_at: Mapped[datetime] = mapped_column(server_default=func.now())


class StepChart(Base):
    """What a comparison's chart draws of a finished step (migration 0022): `series` is the
    step's entry of the chart exactly as compare_series makes it (the JSON text the api writes
    for it), or NULL where the step draws nothing, for the chart `key` (metric and points).
    Made when a run finishes and by the first comparison without one; triggers forget a step's
    rows when what they were drawn from changes (backend.results.chart_digests)."""

    __tablename__ = "step_charts"

    step_id: Mapped[int] = mapped_column(
        ForeignKey("steps.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(Text, primary_key=True)
    series: Mapped[str | None] = mapped_column(Text)
    made_at: Mapped[datetime] = mapped_column(server_default=func.now())
