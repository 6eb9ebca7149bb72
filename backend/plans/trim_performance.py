"""TRIM performance (METHODS.md, plan 7).

How fast the drive discards: the worker times each TRIM step and reports its rate in GB/s.

    fill the span; then for each amount A: TRIM [0, A), re-fill [0, A) so the drive is full
    again; finally TRIM the whole span and immediately write sequentially for a while
    (128K QD32, 100 ms bandwidth log) to catch writes that hang while the drive digests it.

Amounts larger than the span are skipped with a note.
"""

from __future__ import annotations

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes, parse_size
from backend.plans.common import (
    FioParams,
    MiB,
    SizeText,
    common_options,
    fill_job,
    fill_step,
    fio_step,
    invalid,
    log_window_field,
    span_field,
    tested_span,
    trim_step,
    whole_span_length,
    with_notes,
)


class TrimPerformanceParams(FioParams):
    span: str | None = span_field(
        "Span filled and trimmed at the end (fio size); empty means the whole drive."
    )
    amounts: list[SizeText] = Field(
        default_factory=lambda: ["10g", "20g", "100g"],
        max_length=16,
        description="Amounts to TRIM from offset 0 before the whole span, in fio's syntax "
        "(10g = 10 GiB); an amount larger than the span is skipped.",
    )
    followup_s: int = Field(
        60,
        ge=1,
        le=3600,
        description="Seconds of sequential writes right after the whole-span TRIM.",
    )
    log_window_ms: int = log_window_field(100)


class TrimPerformance(Plan):
    key = "trim-performance"
    title = "TRIM performance: discard rate and writes right after a TRIM"
    description = (
        "Fills the drive, times the TRIM of given amounts (10, 20, 100 GiB) and of the whole "
        "span, then writes sequentially right after the last TRIM. Reports the TRIM rate in "
        "GB/s and any write stalls after it."
    )
    destructive = True
    Params = TrimPerformanceParams

    def _amounts(
        self, params: TrimPerformanceParams, drive: DriveContext
    ) -> tuple[list[int], list[str]]:
        span = tested_span(params.span, drive)
        kept: list[int] = []
        notes: list[str] = []
        for text in params.amounts:
            n = parse_size(text)
            if n < MiB or n % MiB:
                raise invalid("amounts", f"{text} is not a whole number of MiB (e.g. 10g, 512m)")
            if n in kept:
                continue
            if n > span:
                notes.append(
                    f"TRIM of {text} ({human_bytes(n)}) skipped: larger than the "
                    f"{human_bytes(span)} span"
                )
            else:
                kept.append(n)
        return kept, notes

    def notes(self, params: TrimPerformanceParams, drive: DriveContext) -> list[str]:
        return self._amounts(params, drive)[1]

    def compile(self, params: TrimPerformanceParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        kept, notes = self._amounts(params, drive)
        steps = [fill_step(self.key, common, span)]
        for n in kept:
            name = format_size(n)
            steps.append(trim_step(f"trim-{name}", f"TRIM {human_bytes(n)} at offset 0", length=n))
            steps.append(
                fio_step(
                    self.key,
                    common,
                    f"refill-{name}",
                    f"re-fill the {human_bytes(n)} just trimmed, 128K QD32",
                    fill_job(n),
                    role="fill",
                    span=n,
                )
            )
        steps.append(
            trim_step(
                "trim-all", "TRIM the whole span", length=whole_span_length(params.span, span)
            )
        )
        steps.append(
            fio_step(
                self.key,
                common,
                "write-after-trim",
                f"128K sequential write QD32 right after the TRIM, {params.followup_s} s",
                {**fill_job(span), "time_based": True, "runtime": params.followup_s},
                role="trim-followup-write",
                log_window_ms=params.log_window_ms,
                span=span,
            )
        )
        return with_notes(steps, notes)
