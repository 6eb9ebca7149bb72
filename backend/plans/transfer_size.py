"""Transfer-size sweep, ATTO style (METHODS.md, plan 2).

For each transfer size from 512 B to 8 MiB, a sequential write of the span then a sequential
read of it, QD4. Direct I/O below the logical sector fails (512 B on a 4Kn drive), so those
sizes are skipped and the skip is recorded as a note. Chart: MB/s against transfer size.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes, parse_size
from backend.plans.common import (
    FioParams,
    Pattern,
    common_options,
    fio_step,
    invalid,
    pattern_options,
    span_field,
    tested_span,
    with_notes,
)

SizeChoice = Literal[
    "512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m",
    "8m",
]  # fmt: skip
ALL_SIZES: list[SizeChoice] = list(get_args(SizeChoice))
QUEUE_DEPTH = 4


def size_label(n: int) -> str:
    for suffix, unit in (("MiB", 1024**2), ("KiB", 1024)):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {suffix}"
    return f"{n} B"


class TransferSizeParams(FioParams):
    span: str = span_field(
        "Bytes written then read at each transfer size (fio size; 2g = 2 GiB).", "2g"
    )
    sizes: list[SizeChoice] = Field(
        default_factory=lambda: list(ALL_SIZES),
        min_length=1,
        description="Transfer sizes to test, 512 B to 8 MiB (fio syntax: 512, 4k, 1m).",
    )
    pattern: Pattern = Field(
        "incompressible",
        description="Data pattern of the writes (ATTO itself writes a compressible pattern).",
    )
    compress_percentage: int = Field(
        50, ge=1, le=99, description="buffer_compress_percentage of the compressible pattern."
    )
    runtime_s: int | None = Field(
        None,
        ge=1,
        le=3600,
        description="Optional cap in seconds on each job (fio runtime, not time_based): a job "
        "stops after the span or the cap, whichever comes first. Empty: no cap.",
    )


class TransferSize(Plan):
    key = "transfer-size"
    title = "Transfer-size sweep (ATTO style, 512 B to 8 MiB, QD4)"
    description = (
        "For each transfer size from 512 B to 8 MiB, writes the span sequentially then reads it "
        "back, QD4. Sizes below the drive's logical sector are skipped. Reports MB/s against "
        "transfer size, read and write."
    )
    destructive = True
    Params = TransferSizeParams

    def _split(
        self, params: TransferSizeParams, drive: DriveContext
    ) -> tuple[list[int], list[int]]:
        chosen = sorted({parse_size(s) for s in params.sizes})
        kept = [n for n in chosen if n >= drive.logical_sector]
        skipped = [n for n in chosen if n < drive.logical_sector]
        return kept, skipped

    def notes(self, params: TransferSizeParams, drive: DriveContext) -> list[str]:
        _kept, skipped = self._split(params, drive)
        return [
            f"{size_label(n)} skipped: below the drive's {drive.logical_sector} B logical sector"
            for n in skipped
        ]

    def compile(self, params: TransferSizeParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        kept, _skipped = self._split(params, drive)
        if not kept:
            raise invalid(
                "sizes",
                f"every chosen size is below the drive's {drive.logical_sector} B logical "
                "sector: choose at least one larger size",
            )
        if span < kept[-1]:
            raise invalid(
                "span",
                f"{human_bytes(span)} is smaller than the largest transfer size "
                f"({size_label(kept[-1])}): choose a larger span",
            )
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        for bs in kept:
            size = span // bs * bs
            for rw, verb in (("write", "write"), ("read", "read")):
                job = {
                    "rw": rw,
                    "bs": format_size(bs),
                    "iodepth": QUEUE_DEPTH,
                    "offset": 0,
                    "size": format_size(size),
                    "runtime": params.runtime_s,
                }
                if rw == "write":
                    job.update(pattern_options(params.pattern, params.compress_percentage))
                steps.append(
                    fio_step(
                        self.key,
                        common,
                        f"{verb}-{format_size(bs)}",
                        f"{size_label(bs)} sequential {verb} QD{QUEUE_DEPTH}",
                        job,
                        role=f"transfer-{verb}",
                        extra={"bs_bytes": bs},
                    )
                )
        return with_notes(steps, self.notes(params, drive))
