"""HD Tach-style full-span passes (METHODS.md, plan 5).

A sequential write pass over the whole span, then a read pass, 128K QD1. The chart is
throughput against position, 0-100% of the span. Position is NOT derived from time: the access is
sequential from offset 0, so a point's position is the cumulative bytes transferred up to it
divided by the step's `span_bytes`. The points are fio's own status snapshots, taken every
`STATUS_INTERVAL_MS` (100 ms) for these steps instead of every second: each carries fio's exact
cumulative io_bytes, so positions add up to the span exactly. (fio's averaged bandwidth log, kept
as well, leaves out the job's first window and drifts with timer jitter, so it is not used for
positions.) A resolution of 0.5% of the span needs at least 200 points per pass; the plan notes
when even a fast drive could finish a pass in fewer.
"""

from __future__ import annotations

from typing import Any

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    common_options,
    fio_step,
    log_window_field,
    span_field,
    tested_span,
    with_notes,
)

BS = "128k"
# The fastest sequential rate a drive can reach today (PCIe 5.0 x4), to judge the resolution.
FASTEST_BPS = 14e9
MIN_WINDOWS = 200  # 0.5% of the span
# fio's status snapshots (exact cumulative bytes) every 100 ms during a pass.
STATUS_INTERVAL_MS = 100


class HdTachParams(FioParams):
    span: str | None = span_field("Span of the passes (fio size); empty means the whole drive.")
    log_window_ms: int = log_window_field(100)


def hdtach_pass(
    plan_key: str,
    common: dict[str, Any],
    rw: str,
    span: int,
    log_window_ms: int,
    *,
    condition: str | None = None,
) -> StepSpec:
    """One full-span pass, `rw` "write" or "read", 128K QD1 from offset 0."""
    verb = "write" if rw == "write" else "read"
    suffix = f"-{condition.replace(' ', '-').lower()}" if condition else ""
    label = f"full-span sequential {verb} pass, 128K QD1"
    if condition:
        label += f", {condition}"
    job: dict[str, Any] = {
        "rw": rw,
        "bs": BS,
        "iodepth": 1,
        "offset": 0,
        "size": format_size(span),
    }
    if rw == "write":
        job.update(INCOMPRESSIBLE)
    extra: dict[str, Any] = {"status_interval_ms": STATUS_INTERVAL_MS}
    if condition:
        extra["condition"] = condition
    return fio_step(
        plan_key,
        common,
        f"hdtach-{verb}{suffix}",
        label,
        job,
        role=f"hdtach-{verb}",
        log_window_ms=log_window_ms,
        span=span,
        extra=extra,
    )


def resolution_notes(span: int, log_window_ms: int) -> list[str]:
    fastest_s = span / FASTEST_BPS
    if fastest_s * 1000 / log_window_ms >= MIN_WINDOWS:
        return []
    return [
        f"a pass over {human_bytes(span)} can take {fastest_s:.2f} s at {FASTEST_BPS / 1e9:.0f} "
        f"GB/s: fewer than {MIN_WINDOWS} windows of {log_window_ms} ms, so the position "
        "resolution may be coarser than 0.5%; a smaller log_window_ms refines it"
    ]


class HdTach(Plan):
    key = "hdtach"
    title = "HD Tach-style full-span write and read passes (128K QD1)"
    description = (
        "Writes the whole span sequentially, then reads it, 128K QD1, with 100 ms bandwidth "
        "logs. Reports throughput against position (0-100% of the span) and the averages."
    )
    destructive = True
    Params = HdTachParams

    def notes(self, params: HdTachParams, drive: DriveContext) -> list[str]:
        return resolution_notes(tested_span(params.span, drive), params.log_window_ms)

    def compile(self, params: HdTachParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        steps = [
            hdtach_pass(self.key, common, rw, span, params.log_window_ms)
            for rw in ("write", "read")
        ]
        return with_notes(steps, self.notes(params, drive))
