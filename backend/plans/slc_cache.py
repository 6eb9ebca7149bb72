"""The SLC write cache: its size and its recovery after idle (PC Perspective's cache recovery
test).

    purge (the cache is largest on an empty drive); a sequential fill over `span` (the whole
    drive by default), 128K QD32, incompressible, with fio's status snapshots every 100 ms
    (as the HD Tach passes: exact cumulative bytes, so throughput against GB written); then
    for each idle gap in `recovery_idle_s` (10, 15, 20, 25 s): an idle step of that length
    and a refill pass of `recovery_span` from offset 0, the same 128K QD32 sequential writes.

The cache size is the GB written before the fill's first step-down (backend.analysis.hdtach
step_downs), with the speeds before and after; each refill's recovered cache is the GB written
before its own first step-down (backend.analysis.slc). The drive is full after the fill, so
the refills rewrite data already there, as PCPer's test does. A refill only has to outlast the
recovered cache: by default a quarter of the span.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes, parse_size
from backend.plans.common import (
    FioParams,
    MiB,
    SizeText,
    common_options,
    fill_job,
    fio_step,
    idle_step,
    invalid,
    purge_step,
    span_field,
    tested_span,
    with_notes,
)
from backend.plans.hdtach import STATUS_INTERVAL_MS

RECOVERY_IDLE_S = (10, 15, 20, 25)
# A refill pass over this share of the span by default.
RECOVERY_SHARE = 4
FILL_ROLE = "slc-fill"
REFILL_ROLE = "slc-refill"


class SlcCacheParams(FioParams):
    span: str | None = span_field("Span of the fill (fio size); empty means the whole drive.")
    recovery_idle_s: list[int] = Field(
        default_factory=lambda: list(RECOVERY_IDLE_S),
        max_length=32,
        description="Idle seconds before each refill pass, in order (PCPer: 10, 15, 20, 25); "
        "empty: the fill only.",
    )
    recovery_span: SizeText | None = Field(
        None,
        description="Bytes each refill pass writes from offset 0 (fio size); empty means a "
        "quarter of the span. It must outlast the cache recovered in the longest idle.",
    )
    purge: bool = Field(True, description="Purge first, so that the fill starts empty.")

    @field_validator("recovery_idle_s")
    @classmethod
    def _idles(cls, v: list[int]) -> list[int]:
        bad = [s for s in v if not 1 <= s <= 3600]
        if bad:
            raise ValueError(f"idle gaps are 1 to 3600 s, not {bad}")
        if len(set(v)) != len(v):
            raise ValueError("list each idle gap once")
        return v


def refill_name(idle_s: int) -> str:
    return f"slc-refill-after-{idle_s}s"


class SlcCache(Plan):
    key = "slc-cache"
    title = "SLC cache: its size and its recovery after idle (128K QD32 fill and refills)"
    description = (
        "Purges, fills the drive sequentially at 128K QD32 with throughput per GB written, then "
        "refills a quarter of it after idle gaps of 10, 15, 20 and 25 s. Reports the cache size "
        "(GB written before the first step-down, the speeds before and after) and the cache "
        "recovered after each idle gap (PC Perspective's cache recovery test)."
    )
    destructive = True
    Params = SlcCacheParams

    def _recovery_span(self, params: SlcCacheParams, span: int) -> int:
        if params.recovery_span is None:
            return max(MiB, span // RECOVERY_SHARE // MiB * MiB)
        n = parse_size(params.recovery_span)
        if n < MiB or n % MiB:
            raise invalid(
                "recovery_span", f"{params.recovery_span} is not a whole number of MiB (e.g. 8g)"
            )
        if n > span:
            raise invalid(
                "recovery_span",
                f"{params.recovery_span} ({human_bytes(n)}) is larger than the span "
                f"({human_bytes(span)})",
            )
        return n

    def notes(self, params: SlcCacheParams, drive: DriveContext) -> list[str]:
        span = tested_span(params.span, drive)
        notes = [
            f"a cache smaller than 2% of the fill ({human_bytes(span // 50)}) cannot be seen: "
            "a level must last 2% of the pass to be one"
        ]
        if params.recovery_idle_s:
            refill = self._recovery_span(params, span)
            notes.append(
                f"each refill writes {human_bytes(refill)}: a recovered cache larger than that "
                f"shows as 'at least {human_bytes(refill)}', one smaller than 2% of it "
                f"({human_bytes(refill // 50)}) as none"
            )
        if not params.purge:
            notes.append("no purge: the fill starts from whatever the drive held")
        return notes

    def compile(self, params: SlcCacheParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        refill = self._recovery_span(params, span)
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        if params.purge:
            steps.append(purge_step())
        extra = {"status_interval_ms": STATUS_INTERVAL_MS}
        steps.append(
            fio_step(
                self.key,
                common,
                "slc-fill",
                f"fill {human_bytes(span)} sequentially, 128K QD32 (throughput per GB written)",
                fill_job(span),
                role=FILL_ROLE,
                span=span,
                extra=extra,
            )
        )
        for idle_s in params.recovery_idle_s:
            steps.append(
                idle_step(f"slc-idle-{idle_s}s", f"idle {idle_s} s: the cache recovers", idle_s)
            )
            steps.append(
                fio_step(
                    self.key,
                    common,
                    refill_name(idle_s),
                    f"refill {human_bytes(refill)} from offset 0 after {idle_s} s idle, 128K QD32",
                    fill_job(refill),
                    role=REFILL_ROLE,
                    span=refill,
                    extra={**extra, "idle_s": idle_s},
                )
            )
        return with_notes(steps, self.notes(params, drive))
