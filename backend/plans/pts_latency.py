"""SNIA PTS latency test (backend/plans/pts_common.py has what the PTS plans share).

    purge; write cache per profile; workload-independent preconditioning (128K sequential,
    2x the tested capacity); rounds of random I/O at 8, 4 and 0.5 KiB x read/write mixes
    100/0, 65/35 and 0/100, one minute each, one thread at queue depth 1 (TC1/QD1, as the
    specification fixes them), until the 4 KiB 100% write average response time is steady
    (5-round window) or 25 rounds; write cache put back.

Reported for every element over the measurement window: the average response time (the
average of the rounds' means), the maximum (the largest of the rounds'), and the five nines
(p99.999) with the latency histogram, both from fio's json+ histograms of the window's rounds
added up (p99.999 is left out where the window holds fewer than 100,000 I/Os). Response time
is fio's completion latency.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec
from backend.plans.common import with_notes
from backend.plans.pts_common import (
    PtsRoundsParams,
    matrix_test,
    skip_small_blocks,
)

LatencyBlockSize = Literal["8k", "4k", "512"]
LatencyMix = Literal["100/0", "65/35", "0/100"]
LATENCY_BLOCK_SIZES: tuple[LatencyBlockSize, ...] = ("8k", "4k", "512")
LATENCY_MIXES: tuple[LatencyMix, ...] = ("100/0", "65/35", "0/100")


class PtsLatencyParams(PtsRoundsParams):
    block_sizes: list[LatencyBlockSize] = Field(
        default_factory=lambda: list(LATENCY_BLOCK_SIZES),
        description="Block sizes of each round (PTS: 8, 4 and 0.5 KiB); must include 4k, "
        "the tracked one.",
    )
    mixes: list[LatencyMix] = Field(
        default_factory=lambda: list(LATENCY_MIXES),
        description="Read/write mixes of each round (PTS: 100/0, 65/35, 0/100); must include "
        "0/100, the tracked one.",
    )


class PtsLatency(Plan):
    key = "pts-latency"
    title = "SNIA PTS latency: QD1 response times at 0.5, 4 and 8 KiB to steady state"
    description = (
        "Purge, 2x sequential preconditioning, then rounds of random I/O at 8, 4 and 0.5 KiB x "
        "100/0, 65/35, 0/100 at one thread, QD1 (1 minute each) until the 4 KiB write average "
        "response time is steady (at most 25 rounds). Reports average, maximum and p99.999 "
        "response times and latency histograms of the measurement window."
    )
    destructive = True
    Params = PtsLatencyParams

    def notes(self, params: PtsLatencyParams, drive: DriveContext) -> list[str]:
        return skip_small_blocks(list(params.block_sizes), drive)[1]

    def compile(self, params: PtsLatencyParams, drive: DriveContext) -> list[StepSpec]:
        steps = matrix_test(
            self.key,
            params,
            drive,
            mix_order=LATENCY_MIXES,
            size_order=LATENCY_BLOCK_SIZES,
            tc=1,
            qd=1,
            title="latency",
            track={
                "metric": "write_lat_mean_us",
                "label": "4 KiB random write average response time",
                "unit": "µs",
            },
        )
        return with_notes(steps, self.notes(params, drive))
