"""SNIA PTS cross-stimulus recovery (XSR) (backend/plans/pts_common.py has what the PTS plans
share).

    purge; write cache per profile; NO preconditioning; sequential 1024 KiB writes (8 h in
    the specification), then random 8 KiB writes (6 h), then sequential 1024 KiB writes again
    (8 h), one thread at queue depth 32 (TC1/QD32); write cache put back.

Each stimulus is a fio step of its own with per-second samples. Reported: throughput and the
average and maximum response time against time over the three stimuli, and the recovery time
after each transition: from the new stimulus's start to the start of the level its throughput
settles at and holds, found by the change-point analysis that finds HD Tach step-downs
(backend.analysis.xsr).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes
from backend.plans.common import INCOMPRESSIBLE, fio_step, invalid, purge_step
from backend.plans.pts_common import (
    PtsParams,
    active_range,
    pts_common,
    write_cache_steps,
)


class PtsXsrParams(PtsParams):
    seq1_s: int = Field(
        28800,
        ge=1,
        le=86400,
        description="Seconds of the first sequential 1024 KiB writes (PTS: 8 h).",
    )
    rand_s: int = Field(
        21600, ge=1, le=86400, description="Seconds of the random 8 KiB writes (PTS: 6 h)."
    )
    seq2_s: int = Field(
        28800,
        ge=1,
        le=86400,
        description="Seconds of the second sequential 1024 KiB writes (PTS: 8 h).",
    )
    threads: int = Field(1, ge=1, le=64, description="Thread count (PTS: 1).")
    iodepth: int = Field(32, ge=1, le=256, description="Queue depth per thread (PTS: 32).")


# (step name, role, rw, bs, label)
STIMULI = (
    ("xsr-seq-1", "xsr-1", "write", "1m", "sequential 1024 KiB write"),
    ("xsr-rand", "xsr-2", "randwrite", "8k", "random 8 KiB write"),
    ("xsr-seq-2", "xsr-3", "write", "1m", "sequential 1024 KiB write"),
)


def _job(rw: str, bs: str, active: int, tc: int, qd: int, seconds: int) -> dict[str, Any]:
    job: dict[str, Any] = {"rw": rw, "bs": bs, "iodepth": qd, "numjobs": tc, "offset": 0}
    if rw == "randwrite":
        job.update({"size": format_size(active), "norandommap": True, "randrepeat": False})
    else:
        share = active // tc // 1024**2 * 1024**2
        job["size"] = format_size(share)
        if tc > 1:
            job["offset_increment"] = format_size(share)
    job.update({"time_based": True, "runtime": seconds, **INCOMPRESSIBLE})
    return job


class PtsXsr(Plan):
    key = "pts-xsr"
    title = "SNIA PTS cross-stimulus recovery: sequential, random, sequential writes"
    description = (
        "Purge, then sequential 1024 KiB writes (8 h), random 8 KiB writes (6 h) and "
        "sequential 1024 KiB writes again (8 h) at TC1/QD32, no preconditioning. Reports "
        "throughput and response time against time and the recovery time after each "
        "transition."
    )
    destructive = True
    Params = PtsXsrParams

    def compile(self, params: PtsXsrParams, drive: DriveContext) -> list[StepSpec]:
        _span, active, pct = active_range(params, drive)
        tc, qd = params.threads, params.iodepth
        if active // tc < 1024**2:
            raise invalid("threads", "too many threads for the ActiveRange: each needs 1 MiB")
        common = pts_common(params, drive)
        durations = (params.seq1_s, params.rand_s, params.seq2_s)
        cache, restore = write_cache_steps(params.profile)
        steps = [purge_step(), cache]
        for (name, role, rw, bs, label), seconds in zip(STIMULI, durations, strict=True):
            steps.append(
                fio_step(
                    self.key,
                    common,
                    name,
                    f"{label}, TC{tc} QD{qd}, {seconds} s over {human_bytes(active)} "
                    f"({pct}% ActiveRange)",
                    _job(rw, bs, active, tc, qd, seconds),
                    role=role,
                    span=active,
                    extra={
                        "profile": params.profile,
                        "threads": tc,
                        "iodepth": qd,
                        "active_range_pct": pct,
                        "test": self.key,
                    },
                )
            )
        return [*steps, restore]
