from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from backend.retention.models import DEFAULT_POINTS
from backend.retention.service import MAX_DAYS, MAX_POINTS, MIN_POINTS


class RetentionPolicyIn(BaseModel):
    days: int | None = Field(
        ge=1,
        le=MAX_DAYS,
        description="compact runs that finished more than this many days ago; null keeps "
        "every sample and window log at full resolution",
    )
    points: int = Field(
        DEFAULT_POINTS,
        ge=MIN_POINTS,
        le=MAX_POINTS,
        description="chart points kept per step and series (min/max per bucket); charts draw 650",
    )


class RetentionPolicyOut(BaseModel):
    days: int | None
    points: int
    updated_at: datetime
    updated_by: str | None
    eligible_runs: int | None = Field(
        description="finished runs older than `days` not compacted yet (null: no period set)"
    )


class CompactIn(BaseModel):
    days: int | None = Field(
        None, ge=1, le=MAX_DAYS, description="override the policy's period for this once"
    )
    points: int | None = Field(
        None,
        ge=MIN_POINTS,
        le=MAX_POINTS,
        description="override the policy's points for this once",
    )
    limit: int | None = Field(None, ge=1, description="compact at most this many runs")


class CompactOut(BaseModel):
    days: int
    points: int
    runs: list[int] = Field(description="the runs compacted now")
    steps: int
    samples_before: int
    samples_after: int
    log_rows_before: int = Field(description="window-log rows (bw, iops) before")
    log_points_after: int = Field(description="chart points kept of them, per direction")
