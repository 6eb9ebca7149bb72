"""Four corners: the Iometer desktop tests of classic SSD reviews (METHODS.md, plan 1).

Pre-write the span, then 4K random read QD3, 4K random write QD3 and QD32, 128K sequential
read and write QD1, each write with the incompressible and the compressible data pattern.
Reported as average MB/s plus IOPS and latency.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from backend.plans.base import (
    DriveContext,
    Plan,
    PlanParams,
    StepSpec,
    fio_job_file,
    format_size,
    span_bytes,
)
from backend.plans.common import (
    SIZE_PATTERN,
    IoEngine,
    Pattern,
    common_options,
    pattern_options,
    randseed_field,
)

PATTERNS: tuple[Pattern, ...] = ("incompressible", "compressible")


class FourCornersParams(PlanParams):
    span: str = Field(
        "8g",
        description="LBA span of the random tests and of the pre-write (fio size; 8g = 8 GiB).",
        pattern=SIZE_PATTERN,
    )
    seq_span: str | None = Field(
        None,
        description="Span of the sequential tests; empty means the whole drive.",
        pattern=SIZE_PATTERN,
    )
    runtime_s: int = Field(180, ge=1, le=3600, description="Seconds per 4K random test.")
    seq_runtime_s: int = Field(60, ge=1, le=3600, description="Seconds per 128K sequential test.")
    patterns: list[Pattern] = Field(
        default_factory=lambda: list(PATTERNS),
        min_length=1,
        description="Data patterns of the write tests.",
    )
    compress_percentage: int = Field(
        50, ge=1, le=99, description="buffer_compress_percentage of the compressible pattern."
    )
    prewrite: bool = Field(True, description="Sequentially write the span before the tests.")
    ioengine: IoEngine = Field(
        "libaio", description="fio ioengine (io_uring where the bench's fio and kernel have it)."
    )
    randseed: int = randseed_field()


class FourCorners(Plan):
    key = "four-corners"
    title = "Four corners (4K random / 128K sequential, QD1-32)"
    description = (
        "Pre-writes the span, then 4K random read QD3, 4K random write QD3 and QD32, 128K "
        "sequential read and write QD1; writes with incompressible and compressible data. "
        "Reports average MB/s, IOPS and completion latency (mean, p99) per test."
    )
    destructive = True
    Params = FourCornersParams

    def compile(self, params: FourCornersParams, drive: DriveContext) -> list[StepSpec]:
        span = span_bytes(params.span, drive, "span")
        seq_span = span_bytes(params.seq_span, drive, "seq_span")
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []

        def add(name: str, label: str, job: dict[str, Any], estimate: float) -> None:
            step_params = {k: v for k, v in job.items() if k != "name"}
            steps.append(
                StepSpec(
                    kind="fio",
                    name=name,
                    estimate_s=estimate,
                    params={"label": label, **step_params},
                    job_file=fio_job_file(f"{self.key} / {label}", common, name, job),
                )
            )

        if params.prewrite:
            add(
                "prewrite",
                f"pre-write {format_size(span)} sequentially, 128K QD32",
                {
                    "rw": "write",
                    "bs": "128k",
                    "iodepth": 32,
                    "size": format_size(span),
                    "offset": 0,
                    **pattern_options("incompressible", 0),
                },
                max(1.0, span / 400e6),
            )
        rt = params.runtime_s
        add(
            "randread-4k-qd3",
            "4K random read QD3",
            {
                "rw": "randread",
                "bs": "4k",
                "iodepth": 3,
                "size": format_size(span),
                "norandommap": True,
                "time_based": True,
                "runtime": rt,
            },
            rt,
        )
        for qd in (3, 32):
            for pattern in params.patterns:
                add(
                    f"randwrite-4k-qd{qd}-{pattern}",
                    f"4K random write QD{qd}, {pattern}",
                    {
                        "rw": "randwrite",
                        "bs": "4k",
                        "iodepth": qd,
                        "size": format_size(span),
                        "norandommap": True,
                        "time_based": True,
                        "runtime": rt,
                        **pattern_options(pattern, params.compress_percentage),
                    },
                    rt,
                )
        srt = params.seq_runtime_s
        add(
            "seqread-128k-qd1",
            "128K sequential read QD1",
            {
                "rw": "read",
                "bs": "128k",
                "iodepth": 1,
                "size": format_size(seq_span),
                "time_based": True,
                "runtime": srt,
            },
            srt,
        )
        for pattern in params.patterns:
            add(
                f"seqwrite-128k-qd1-{pattern}",
                f"128K sequential write QD1, {pattern}",
                {
                    "rw": "write",
                    "bs": "128k",
                    "iodepth": 1,
                    "size": format_size(seq_span),
                    "time_based": True,
                    "runtime": srt,
                    **pattern_options(pattern, params.compress_percentage),
                },
                srt,
            )
        return steps
