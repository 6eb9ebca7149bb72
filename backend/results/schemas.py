"""Response models of the comparison endpoints: the frontend's types are generated from them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class Variation(BaseModel):
    """Run-to-run variation of one drive's metric (backend.analysis.variation)."""

    count: int
    mean: float | None
    stddev: float | None
    min: float | None
    max: float | None
    spread_pct: float | None


class CompareRow(BaseModel):
    drive_id: int
    label: str
    simulated: bool
    embargoed: bool
    under_review: bool
    value: float
    runs: Variation
    firmware: str | None = Field(description="Of the latest run: the chart's provenance.")
    fio_version: str | None
    finished_at: datetime | None


class CompareMetric(BaseModel):
    metric: str = Field(description="plan:step:metric")
    unit: str
    lower_is_better: bool
    rows: list[CompareRow] = Field(description="One per drive, best first.")
    warnings: list[str]


class Comparison(BaseModel):
    aggregate: Literal["latest", "mean"]
    metrics: list[CompareMetric]
    missing: list[str] = Field(description="Asked-for metrics no drive has.")


class PairDrive(BaseModel):
    drive_id: int
    label: str


class PairMetric(BaseModel):
    metric: str
    unit: str
    lower_is_better: bool
    a: float
    b: float
    diff_pct: float | None = Field(description="(b - a) / |a| x 100; None when a is 0.")
    warnings: list[str]


class Pair(BaseModel):
    a: PairDrive
    b: PairDrive
    metrics: list[PairMetric]


class ValueRow(CompareRow):
    price: float
    currency: str
    price_source: str | None
    price_date: str
    per_unit_price: float


class ValueComparison(BaseModel):
    metric: str
    unit: str
    rows: list[ValueRow] = Field(description="Priced drives, best value first.")
    unpriced: list[str] = Field(description="Labels of drives whose model has no price.")


class Stall(BaseModel):
    start_s: float
    duration_s: float


class StepDown(BaseModel):
    at_pct: float
    at_gb: float
    from_mbps: float
    to_mbps: float


class StepSeries(BaseModel):
    """One line of a chart: a step's series, downsampled with min/max per bucket."""

    step_id: int
    step: str
    label: str = Field(description="The step's label, e.g. '128K sequential write QD32'.")
    role: str | None
    unit: str
    x: Literal["t_s", "position_pct", "bs_bytes"]
    total_points: int
    downsampled: bool
    points: list[tuple[float, float]]
    stalls: list[Stall] | None = Field(
        None, description="Stalls found in this series (write hitching, writes after TRIM)."
    )
    step_downs: list[StepDown] | None = Field(
        None, description="Step-downs found in this HD Tach pass, at their position in the span."
    )


class RunConditions(BaseModel):
    """What an exported chart states about how the numbers were measured."""

    plan: str
    iodepth: int | None
    span_bytes: int | None
    pattern: str | None = Field(description="Data pattern of the writes, when the run had one.")
    op_percent: int
    firmware: str | None
    fio_version: str | None
    finished_at: datetime | None


class DriveSeries(BaseModel):
    drive_id: int
    label: str
    simulated: bool
    run_id: int
    conditions: RunConditions
    series: list[StepSeries]


class MissingSeries(BaseModel):
    drive_id: int
    label: str
    reason: str


class CompareSeries(BaseModel):
    plan: str
    metric: str
    op_percent: int | None
    drives: list[DriveSeries] = Field(description="In the order asked for.")
    missing: list[MissingSeries] = Field(description="Drives without a finished run of the plan.")
