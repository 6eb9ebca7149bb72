"""SNIA PTS IOPS test (backend/plans/pts_common.py has what the PTS plans share).

    purge; write cache per profile; workload-independent preconditioning (128K sequential,
    2x the tested capacity); rounds of random I/O at every block size (1024, 128, 64, 32, 16,
    8, 4, 0.5 KiB) x read/write mix (100/0, 95/5, 65/35, 50/50, 35/65, 5/95, 0/100), one
    minute each, mixes outer and block sizes inner as the specification orders them, until the
    4 KiB 100% write IOPS are steady (5-round window) or 25 rounds; write cache put back.

Reported: the 7 x 8 table of average IOPS (reads and writes together) over the measurement
window, IOPS against block size per mix, and the same table as a 3D bar plot.
"""

from __future__ import annotations

from pydantic import Field

from backend.core.errors import InvalidParams
from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import purge_step, with_notes
from backend.plans.pts_common import (
    IOPS_BLOCK_SIZES,
    MIXES,
    BlockSize,
    Mix,
    PtsLoadParams,
    active_range,
    element_name,
    precondition_step,
    pts_common,
    random_element,
    rounds_step,
    skip_small_blocks,
    threads_qd,
    unique,
    write_cache_steps,
)

TRACK_MIX, TRACK_BS = "0/100", "4k"


class PtsIopsParams(PtsLoadParams):
    block_sizes: list[BlockSize] = Field(
        default_factory=lambda: list(IOPS_BLOCK_SIZES),
        description="Block sizes of each round (PTS: all eight); must include 4k, the tracked one.",
    )
    mixes: list[Mix] = Field(
        default_factory=lambda: list(MIXES),
        description="Read/write mixes (read %/write %) of each round (PTS: all seven); must "
        "include 0/100, the tracked one.",
    )


class PtsIops(Plan):
    key = "pts-iops"
    title = "SNIA PTS IOPS: 7 read/write mixes x 8 block sizes in rounds to steady state"
    description = (
        "Purge, 2x sequential preconditioning, then rounds of random I/O at 8 block sizes x 7 "
        "read/write mixes (1 minute each) until 4 KiB random write IOPS are steady (5 rounds "
        "within 20%, slope within 10%; at most 25). Reports the IOPS table of the measurement "
        "window, IOPS against block size per mix and a 3D bar plot."
    )
    destructive = True
    Params = PtsIopsParams

    def notes(self, params: PtsIopsParams, drive: DriveContext) -> list[str]:
        return skip_small_blocks(list(params.block_sizes), drive)[1]

    def compile(self, params: PtsIopsParams, drive: DriveContext) -> list[StepSpec]:
        mixes = unique(list(params.mixes), "mixes")
        sizes = unique(list(params.block_sizes), "block_sizes")
        if TRACK_MIX not in mixes:
            raise InvalidParams(
                "mixes: include 0/100, the mix whose 4 KiB IOPS are tracked to steady state",
                field="params.mixes",
            )
        if TRACK_BS not in sizes:
            raise InvalidParams(
                "block_sizes: include 4k, the block size whose 100% write IOPS are tracked",
                field="params.block_sizes",
            )
        sizes, _notes = skip_small_blocks(sizes, drive)
        # The specification's order, whatever order the parameters list them in.
        mixes = [m for m in MIXES if m in mixes]
        sizes = [b for b in IOPS_BLOCK_SIZES if b in sizes]
        span, active, pct = active_range(params, drive)
        tc, qd = threads_qd(params)
        common = pts_common(params, drive)
        elements = [
            random_element(m, b, active=active, tc=tc, qd=qd, seconds=params.element_s)
            for m in mixes
            for b in sizes
        ]
        cache, restore = write_cache_steps(params.profile)
        rounds = rounds_step(
            self.key,
            common,
            elements,
            name="rounds",
            label=f"IOPS rounds: {len(sizes)} block sizes x {len(mixes)} mixes, random, "
            f"TC{tc} QD{qd} over {human_bytes(active)} ({pct}% ActiveRange)",
            track={
                "element": element_name(TRACK_MIX, TRACK_BS),
                "metric": "write_iops",
                "label": "4 KiB random write IOPS",
                "unit": "IOPS",
            },
            element_s=params.element_s,
            max_rounds=params.max_rounds,
            active=active,
            extra={
                "profile": params.profile,
                "threads": tc,
                "iodepth": qd,
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
