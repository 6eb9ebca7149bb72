"""SNIA PTS write saturation (WSAT) (backend/plans/pts_common.py has what the PTS plans share).

    purge; write cache per profile; NO preconditioning (the test starts from the purged
    drive); continuous random 4 KiB writes in rounds (1 minute each) until 4x the tested
    capacity has been written, or the time limit, or (when asked) steady state on IOPS;
    write cache put back.

Reported: IOPS against time (per second, and per round) and against the total GB written
(TGBW, in drive fills), and the response-time histogram of the last part (the last 5 rounds).
"""

from __future__ import annotations

import math

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import purge_step
from backend.plans.pts_common import (
    WINDOW,
    PtsParams,
    active_range,
    element_name,
    iodepth_field,
    pts_common,
    random_element,
    rounds_step,
    threads_field,
    threads_qd,
    write_cache_steps,
)


class PtsWsatParams(PtsParams):
    threads: int | None = threads_field()
    iodepth: int | None = iodepth_field()
    round_s: int = Field(
        60, ge=1, le=600, description="Seconds of each round, one IOPS point (PTS: 1 minute)."
    )
    capacity_multiple: float = Field(
        4.0,
        gt=0,
        le=16,
        description="Stop once this many times the tested capacity has been written (PTS: 4).",
    )
    max_s: int = Field(
        86400,
        ge=WINDOW,
        le=7 * 86400,
        description="Time limit in seconds (PTS: 24 hours).",
    )
    stop_at_steady: bool = Field(
        True, description="Also stop when the IOPS of the last 5 rounds are steady."
    )


class PtsWsat(Plan):
    key = "pts-wsat"
    title = "SNIA PTS write saturation: random 4 KiB writes from purged to 4x the capacity"
    description = (
        "Purge, then continuous random 4 KiB writes in 1-minute rounds until 4x the tested "
        "capacity is written, the time limit (24 h), or steady state. Reports IOPS against "
        "time and against total GB written, and the response-time histogram of the last part."
    )
    destructive = True
    Params = PtsWsatParams

    def compile(self, params: PtsWsatParams, drive: DriveContext) -> list[StepSpec]:
        span, active, pct = active_range(params, drive)
        tc, qd = threads_qd(params)
        common = pts_common(params, drive)
        element = random_element("0/100", "4k", active=active, tc=tc, qd=qd, seconds=params.round_s)
        max_rounds = max(WINDOW, math.ceil(params.max_s / params.round_s))
        cache, restore = write_cache_steps(params.profile)
        # At least a byte: 0 is the worker's "no byte limit", and a multiple so small that it
        # rounds to nothing must stop the loop after its first round, not run it for max_s.
        stop_bytes = max(1, int(params.capacity_multiple * span))
        rounds = rounds_step(
            self.key,
            common,
            [element],
            name="rounds",
            label=f"write saturation: 4 KiB random write, TC{tc} QD{qd} over "
            f"{human_bytes(active)} ({pct}% ActiveRange), {params.round_s} s rounds until "
            f"{params.capacity_multiple:g}x {human_bytes(span)} written",
            track={
                "element": element_name("0/100", "4k"),
                "metric": "write_iops",
                "label": "4 KiB random write IOPS",
                "unit": "IOPS",
            },
            element_s=params.round_s,
            max_rounds=max_rounds,
            active=active,
            stop_at_steady=params.stop_at_steady,
            role="pts-wsat",
            extra={
                "profile": params.profile,
                "threads": tc,
                "iodepth": qd,
                "active_range_pct": pct,
                "stop_write_bytes": stop_bytes,
                "max_s": params.max_s,
                "capacity_bytes": span,
            },
        )
        # A rough estimate: the time limit, or 4x the capacity at an assumed 100 MB/s.
        rounds.estimate_s = float(
            min(params.max_s, max(stop_bytes / 100e6, WINDOW * params.round_s))
        )
        return [purge_step(), cache, rounds, restore]
