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

from backend.core.errors import InvalidParams
from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import purge_step, with_notes
from backend.plans.pts_common import (
    MIXES,
    PtsRoundsParams,
    active_range,
    element_name,
    precondition_step,
    pts_common,
    random_element,
    rounds_step,
    skip_small_blocks,
    unique,
    write_cache_steps,
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
        mixes = unique(list(params.mixes), "mixes")
        sizes = unique(list(params.block_sizes), "block_sizes")
        if "0/100" not in mixes or "4k" not in sizes:
            field = "mixes" if "0/100" not in mixes else "block_sizes"
            raise InvalidParams(
                f"{field}: include 4k and 0/100: the 4 KiB 100% write response time is tracked "
                "to steady state",
                field=f"params.{field}",
            )
        sizes, _notes = skip_small_blocks(sizes, drive)
        mixes = [m for m in MIXES if m in mixes]
        sizes = [b for b in LATENCY_BLOCK_SIZES if b in sizes]
        span, active, pct = active_range(params, drive)
        common = pts_common(params, drive)
        elements = [
            random_element(m, b, active=active, tc=1, qd=1, seconds=params.element_s)
            for m in mixes
            for b in sizes
        ]
        cache, restore = write_cache_steps(params.profile)
        rounds = rounds_step(
            self.key,
            common,
            elements,
            name="rounds",
            label=f"latency rounds: {len(sizes)} block sizes x {len(mixes)} mixes, random, "
            f"TC1 QD1 over {human_bytes(active)} ({pct}% ActiveRange)",
            track={
                "element": element_name("0/100", "4k"),
                "metric": "write_lat_mean_us",
                "label": "4 KiB random write average response time",
                "unit": "µs",
            },
            element_s=params.element_s,
            max_rounds=params.max_rounds,
            active=active,
            extra={
                "profile": params.profile,
                "threads": 1,
                "iodepth": 1,
                "active_range_pct": pct,
                "mixes": mixes,
                "block_sizes": sizes,
            },
        )
        steps = [
            purge_step(),
            cache,
            precondition_step(self.key, common, span, params.precondition_loops),
            rounds,
            restore,
        ]
        return with_notes(steps, self.notes(params, drive))
