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

from backend.plans.base import DriveContext, Plan, StepSpec
from backend.plans.common import with_notes
from backend.plans.pts_common import (
    IOPS_BLOCK_SIZES,
    MIXES,
    BlockSize,
    Mix,
    PtsLoadParams,
    matrix_test,
    skip_small_blocks,
    threads_qd,
)


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
        tc, qd = threads_qd(params)
        steps = matrix_test(
            self.key,
            params,
            drive,
            mix_order=MIXES,
            size_order=IOPS_BLOCK_SIZES,
            tc=tc,
            qd=qd,
            title="IOPS",
            track={"metric": "write_iops", "label": "4 KiB random write IOPS", "unit": "IOPS"},
        )
        return with_notes(steps, self.notes(params, drive))
