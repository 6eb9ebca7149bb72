"""TRIM validation (METHODS.md, plan 6).

Purge, fill, torture for 60 minutes, a full-span sequential write pass (shows the tortured
state), TRIM of the whole span, and another write pass: if TRIM works, the second pass runs at
the purged drive's speed. Write passes, not read passes: many drives answer reads of trimmed
blocks without touching NAND, which would make TRIM look effective whatever it did.
"""

from __future__ import annotations

from backend.plans.base import DriveContext, Plan, StepSpec
from backend.plans.common import (
    FioParams,
    common_options,
    fill_step,
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


class TrimValidationParams(FioParams):
    span: str | None = span_field(
        "Span filled, tortured, written and trimmed (fio size); empty means the whole drive."
    )
    torture_minutes: int = minutes_field(60)
    torture_runtime_s: int | None = runtime_override_field("torture")
    log_window_ms: int = log_window_field(100)


class TrimValidation(Plan):
    key = "trim-validation"
    title = "TRIM validation: write passes before and after a TRIM of a tortured drive"
    description = (
        "Purges, fills and tortures the drive for 60 min, then runs a full-span sequential write "
        "pass, TRIMs the whole span and runs another write pass. Reports both passes: write "
        "speed recovered by the TRIM."
    )
    destructive = True
    Params = TrimValidationParams

    def notes(self, params: TrimValidationParams, drive: DriveContext) -> list[str]:
        return resolution_notes(tested_span(params.span, drive), params.log_window_ms)

    def compile(self, params: TrimValidationParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        torture_s = params.torture_runtime_s or params.torture_minutes * 60
        window = params.log_window_ms
        steps = [
            purge_step(),
            fill_step(self.key, common, span),
            torture_step(self.key, common, span, torture_s),
            hdtach_pass(self.key, common, "write", span, window, condition="after torture"),
            trim_step("trim", "TRIM the whole span", length=whole_span_length(params.span, span)),
            hdtach_pass(self.key, common, "write", span, window, condition="after TRIM"),
        ]
        return with_notes(steps, self.notes(params, drive))
