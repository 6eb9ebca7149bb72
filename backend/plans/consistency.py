"""Performance consistency (METHODS.md, plan 3).

Purge, fill the tested span sequentially, then 4K random writes QD32 of incompressible data over
the tested span for 2000 s, with one IOPS value per second from the end-of-job log. With 25%
over-provisioning the tested span is 75% of the drive: fio's `size=` keeps every write in
[0, span), and the rest stays trimmed after the purge. Scores (mean IOPS of the last 400 s, its
standard deviation, minimum) come from the analysis.

fio note: the job has `randrepeat=0` as the reviews did, but an explicit `randseed` takes
precedence over it in fio, so the offsets are the recorded seed's and the run is repeatable.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import (
    FioParams,
    MiB,
    common_options,
    fill_step,
    fio_step,
    invalid,
    log_window_field,
    purge_step,
    span_field,
    tested_span,
)
from backend.plans.torture import random_write_job


class ConsistencyParams(FioParams):
    op_percent: Literal[0, 25] = Field(
        0,
        description="Over-provisioning in percent: 0 tests 100% of the span, 25 tests 75% of it "
        "and leaves the rest trimmed.",
    )
    runtime_s: int = Field(
        2000, ge=1, le=86400, description="Seconds of 4K random writes after the fill."
    )
    log_window_ms: int = log_window_field(1000)
    span: str | None = span_field(
        "Span before over-provisioning (fio size); empty means the whole drive."
    )


def op_span(span: int, op_percent: int) -> int:
    """The tested span: (100 - op)% of the span, rounded down to a whole MiB."""
    return span * (100 - op_percent) // 100 // MiB * MiB


class Consistency(Plan):
    key = "consistency"
    title = "Performance consistency: 4K random write QD32 for 2000 s after a fill"
    description = (
        "Purges the drive, fills the tested span, then writes 4K random blocks at QD32 over it "
        "for 2000 s with one IOPS value per second; optionally with 25% over-provisioning. "
        "Reports IOPS over time and the steady-state mean, standard deviation and minimum."
    )
    destructive = True
    Params = ConsistencyParams

    def compile(self, params: ConsistencyParams, drive: DriveContext) -> list[StepSpec]:
        span = op_span(tested_span(params.span, drive), params.op_percent)
        if span < MiB:
            raise invalid("span", "the tested span is below 1 MiB: choose a larger span")
        common = common_options(drive, params.ioengine, params.randseed)
        op = f", {params.op_percent}% over-provisioning" if params.op_percent else ""
        return [
            purge_step(),
            fill_step(self.key, common, span),
            fio_step(
                self.key,
                common,
                "consistency-4k-qd32",
                f"4K random write QD32 over {human_bytes(span)}{op}, {params.runtime_s} s",
                random_write_job(span, params.runtime_s),
                role="consistency",
                log_window_ms=params.log_window_ms,
                span=span,
                extra={"op_percent": params.op_percent},
            ),
        ]
