"""Write hitching (METHODS.md, plan 8).

A sustained sequential write (128K QD32), then a sustained random write (4K QD32), several
minutes each, with 100 ms bandwidth logs after each job (1 s live). The analysis finds the
stalls: windows at 0 MB/s (a window with no completion has no log row: a gap is 0) or below 10%
of the median, their count, longest duration, total time stalled and the period between them.
"""

from __future__ import annotations

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    common_options,
    fio_step,
    log_window_field,
    span_field,
    tested_span,
)
from backend.plans.torture import random_write_job


class WriteHitchingParams(FioParams):
    minutes: int = Field(5, ge=1, le=120, description="Minutes of each sustained write.")
    runtime_s: int | None = Field(
        None,
        ge=1,
        le=7200,
        description="Seconds of each sustained write, overriding the minutes (for test runs).",
    )
    span: str | None = span_field("Span of the writes (fio size); empty means the whole drive.")
    log_window_ms: int = log_window_field(100)


class WriteHitching(Plan):
    key = "write-hitching"
    title = "Write hitching: sustained sequential and random writes at 100 ms resolution"
    description = (
        "Writes sequentially (128K QD32) and then randomly (4K QD32) for 5 minutes each with "
        "100 ms bandwidth logs. Reports the stalls: count, longest, total time stalled and "
        "the period between them."
    )
    destructive = True
    Params = WriteHitchingParams

    def compile(self, params: WriteHitchingParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        runtime = params.runtime_s or params.minutes * 60
        seq = {
            "rw": "write",
            "bs": "128k",
            "iodepth": 32,
            "offset": 0,
            "size": format_size(span),
            "time_based": True,
            "runtime": runtime,
            **INCOMPRESSIBLE,
        }
        return [
            fio_step(
                self.key,
                common,
                "hitch-seq-128k-qd32",
                f"sustained 128K sequential write QD32, {runtime} s",
                seq,
                role="hitch-seq",
                log_window_ms=params.log_window_ms,
                span=span,
            ),
            fio_step(
                self.key,
                common,
                "hitch-rand-4k-qd32",
                f"sustained 4K random write QD32, {runtime} s",
                random_write_job(span, runtime),
                role="hitch-rand",
                log_window_ms=params.log_window_ms,
                span=span,
            ),
        ]
