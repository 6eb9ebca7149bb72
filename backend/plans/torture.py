"""Torture (METHODS.md, plan 4).

Fill the drive sequentially so every LBA holds data, then 4K random writes QD32 of
incompressible data over 100% of the LBAs for 20 or 60 minutes. Reported: the average MB/s at
the end and the IOPS-over-time series (1 s windows from the end-of-job log).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    common_options,
    fill_step,
    fio_step,
    log_window_field,
    span_field,
    tested_span,
)

TORTURE_LOG_WINDOW_MS = 1000


def random_write_job(span: int, runtime_s: int) -> dict[str, Any]:
    """4K random write QD32, incompressible, over [0, span), for runtime_s seconds."""
    return {
        "rw": "randwrite",
        "bs": "4k",
        "iodepth": 32,
        "offset": 0,
        "size": format_size(span),
        "norandommap": True,
        "randrepeat": False,
        "time_based": True,
        "runtime": runtime_s,
        **INCOMPRESSIBLE,
    }


def torture_step(
    plan_key: str,
    common: dict[str, Any],
    span: int,
    runtime_s: int,
    *,
    name: str = "torture",
    log_window_ms: int = TORTURE_LOG_WINDOW_MS,
) -> StepSpec:
    minutes = runtime_s / 60
    length = f"{minutes:g} min" if runtime_s % 60 == 0 else f"{runtime_s} s"
    return fio_step(
        plan_key,
        common,
        name,
        f"torture: 4K random write QD32 over the span, {length}",
        random_write_job(span, runtime_s),
        role="torture",
        log_window_ms=log_window_ms,
        span=span,
    )


def minutes_field(default: int) -> Any:
    return Field(
        default, ge=1, le=120, description="Minutes of torture (the reviews ran 20 or 60)."
    )


def runtime_override_field(what: str) -> Any:
    return Field(
        None,
        ge=1,
        le=7200,
        description=f"Seconds of {what}, overriding the minutes (for short test runs).",
    )


class TortureParams(FioParams):
    minutes: int = minutes_field(20)
    runtime_s: int | None = runtime_override_field("torture")
    span: str | None = span_field(
        "Span filled and tortured (fio size); empty means the whole drive (100% of the LBAs)."
    )
    log_window_ms: int = log_window_field(TORTURE_LOG_WINDOW_MS)


class Torture(Plan):
    key = "torture"
    title = "Torture: 4K random write QD32 over a full drive (20 or 60 min)"
    description = (
        "Fills the drive sequentially, then writes 4K random blocks of incompressible data at "
        "QD32 over 100% of the LBAs for 20 minutes (or 60). Reports the average MB/s at the end "
        "and IOPS over time."
    )
    destructive = True
    Params = TortureParams

    def compile(self, params: TortureParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        runtime = params.runtime_s or params.minutes * 60
        return [
            fill_step(self.key, common, span),
            torture_step(self.key, common, span, runtime, log_window_ms=params.log_window_ms),
        ]
