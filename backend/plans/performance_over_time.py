"""Performance over time (METHODS.md, plan 5, the over-time plan).

HD Tach-style passes (a full-span sequential write pass then a read pass, 128K QD1) on a purged
drive, after torture, after an idle period and after a TRIM of the whole span, overlaid on one
chart by their `condition`:

    purge, passes "after purge", torture, passes "after torture", idle (30 min),
    passes "after idle", TRIM of the whole span, passes "after TRIM"

The write pass after torture rewrites the whole span sequentially, which by itself restores much
of a drive's performance, so the "after idle" and "after TRIM" passes measure the drive after
that pass plus the idle or the TRIM (as the reviews did). With `retorture` the plan tortures the
drive again before the idle and before the TRIM, so each of those passes starts from a tortured
drive (each torture adds `torture_minutes`).
"""

from __future__ import annotations

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec
from backend.plans.common import (
    FioParams,
    common_options,
    idle_step,
    log_window_field,
    purge_step,
    span_field,
    tested_span,
    trim_step,
    whole_span_length,
    with_notes,
)
from backend.plans.hdtach import hdtach_pass, resolution_notes
from backend.plans.torture import minutes_field, runtime_override_field, torture_step


class PerformanceOverTimeParams(FioParams):
    span: str | None = span_field(
        "Span of the passes, the torture and the TRIM (fio size); empty means the whole drive."
    )
    torture_minutes: int = minutes_field(20)
    torture_runtime_s: int | None = runtime_override_field("torture")
    idle_s: int = Field(
        1800, ge=1, le=86400, description="Seconds of idle before the 'after idle' passes."
    )
    log_window_ms: int = log_window_field(100)
    retorture: bool = Field(
        False,
        description="Torture again before the idle and before the TRIM, so those passes start "
        "from a tortured drive rather than from the previous sequential write pass.",
    )


class PerformanceOverTime(Plan):
    key = "performance-over-time"
    title = "Performance over time: full-span passes new, tortured, idled and trimmed"
    description = (
        "Full-span sequential write and read passes (128K QD1) on a purged drive, after 20 min "
        "of 4K random write torture, after 30 min of idle and after a TRIM of the whole span. "
        "Reports the passes overlaid: throughput against position."
    )
    destructive = True
    Params = PerformanceOverTimeParams

    def notes(self, params: PerformanceOverTimeParams, drive: DriveContext) -> list[str]:
        return resolution_notes(tested_span(params.span, drive), params.log_window_ms)

    def compile(self, params: PerformanceOverTimeParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        torture_s = params.torture_runtime_s or params.torture_minutes * 60
        window = params.log_window_ms

        def passes(condition: str) -> list[StepSpec]:
            return [
                hdtach_pass(self.key, common, rw, span, window, condition=condition)
                for rw in ("write", "read")
            ]

        def torture(name: str) -> StepSpec:
            return torture_step(self.key, common, span, torture_s, name=name)

        steps = [purge_step(), *passes("after purge"), torture("torture"), *passes("after torture")]
        if params.retorture:
            steps.append(torture("torture-before-idle"))
        steps += [idle_step("idle", f"idle {params.idle_s} s", params.idle_s)]
        steps += passes("after idle")
        if params.retorture:
            steps.append(torture("torture-before-trim"))
        length = whole_span_length(params.span, span)
        steps += [trim_step("trim", "TRIM the whole span", length=length), *passes("after TRIM")]
        return with_notes(steps, self.notes(params, drive))
