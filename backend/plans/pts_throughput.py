"""SNIA PTS throughput test (backend/plans/pts_common.py has what the PTS plans share).

For each block size (1024 KiB, then 128 KiB), a test of its own as the specification runs it:
    purge; workload-independent preconditioning (128K sequential, 2x the tested capacity);
    rounds of sequential 100% read then 100% write at that block size, one minute each, until
    the write MB/s are steady (5-round window) or 25 rounds.
The write cache is set for the profile before the first and put back after the last.

Reported: MB/s (10^6 bytes/s) of reads and writes at each block size over its measurement
window.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import purge_step
from backend.plans.pts_common import (
    BS_LABELS,
    PtsLoadParams,
    active_range,
    precondition_step,
    pts_common,
    rounds_step,
    sequential_element,
    threads_qd,
    unique,
    write_cache_steps,
)

ThroughputBlockSize = Literal["1m", "128k"]
THROUGHPUT_BLOCK_SIZES: tuple[ThroughputBlockSize, ...] = ("1m", "128k")


class PtsThroughputParams(PtsLoadParams):
    block_sizes: list[ThroughputBlockSize] = Field(
        default_factory=lambda: list(THROUGHPUT_BLOCK_SIZES),
        description="Sequential block sizes, each a test of its own with its purge and "
        "preconditioning (PTS: 1024 KiB and 128 KiB).",
    )


class PtsThroughput(Plan):
    key = "pts-throughput"
    title = "SNIA PTS throughput: sequential 1024 KiB and 128 KiB read and write to steady state"
    description = (
        "For 1024 KiB and 128 KiB: purge, 2x sequential preconditioning, then rounds of "
        "sequential 100% read and 100% write (1 minute each) until write MB/s are steady "
        "(5 rounds within 20%, slope within 10%; at most 25). Reports read and write MB/s of "
        "each measurement window."
    )
    destructive = True
    Params = PtsThroughputParams

    def compile(self, params: PtsThroughputParams, drive: DriveContext) -> list[StepSpec]:
        sizes = unique(list(params.block_sizes), "block_sizes")
        span, active, pct = active_range(params, drive)
        tc, qd = threads_qd(params)
        common = pts_common(params, drive)
        cache, restore = write_cache_steps(params.profile)
        steps: list[StepSpec] = []
        for bs in sizes:
            elements = [
                sequential_element(d, bs, active=active, tc=tc, qd=qd, seconds=params.element_s)
                for d in ("read", "write")
            ]
            purge = purge_step(f"purge the drive before the {BS_LABELS[bs]} test")
            purge.name = f"purge-{bs}"
            # The write cache is set once, on the first purged drive.
            steps += [purge, cache] if not steps else [purge]
            steps += [
                precondition_step(
                    self.key, common, span, params.precondition_loops, name=f"precondition-{bs}"
                ),
                rounds_step(
                    self.key,
                    common,
                    elements,
                    name=f"rounds-{bs}",
                    label=f"throughput rounds: {BS_LABELS[bs]} sequential read and write, "
                    f"TC{tc} QD{qd} over {human_bytes(active)} ({pct}% ActiveRange)",
                    track={
                        "element": f"seq-write-{bs}",
                        "metric": "write_mbps",
                        "label": f"{BS_LABELS[bs]} sequential write MB/s",
                        "unit": "MB/s",
                    },
                    element_s=params.element_s,
                    max_rounds=params.max_rounds,
                    active=active,
                    extra={
                        "profile": params.profile,
                        "threads": tc,
                        "iodepth": qd,
                        "active_range_pct": pct,
                        "block_size": bs,
                    },
                ),
            ]
        return [*steps, restore]
