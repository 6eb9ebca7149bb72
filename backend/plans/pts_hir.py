"""SNIA PTS host idle recovery (HIR) (backend/plans/pts_common.py has what the PTS plans share).

    purge; write cache per profile; workload-independent preconditioning (128K sequential,
    2x the tested capacity); random 4 KiB write rounds to steady state (the baseline);
    then for each wait time (5, 10, 15, 25, 50 s): a set of cycles of 5 s of random 4 KiB
    writes followed by the wait, with no I/O (360 cycles in the specification), and a return
    to baseline: continuous random 4 KiB writes (1800 s); write cache put back.

Each set is one `fio-rounds` step whose rounds are the cycles (one 5 s fio run each, then the
wait); its samples are placed on the step's clock, so the waits are gaps in IOPS against time.
Reported: IOPS against time over the whole sequence with the wait states marked, and per set
the average IOPS of its write periods against the baseline's.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, human_bytes
from backend.plans.common import fio_step, purge_step
from backend.plans.pts_common import (
    PtsLoadParams,
    active_range,
    element_name,
    precondition_step,
    pts_common,
    random_element,
    rounds_step,
    threads_qd,
    unique,
    write_cache_steps,
)

TRACK = {
    "element": element_name("0/100", "4k"),
    "metric": "write_iops",
    "label": "4 KiB random write IOPS",
    "unit": "IOPS",
}


class PtsHirParams(PtsLoadParams):
    waits_s: list[Annotated[int, Field(ge=1, le=3600)]] = Field(
        default_factory=lambda: [5, 10, 15, 25, 50],
        description="Wait times in seconds, one set of cycles each (PTS: 5, 10, 15, 25, 50).",
    )
    cycles: int = Field(
        360, ge=1, le=1000, description="Cycles of writing plus waiting per set (PTS: 360)."
    )
    write_s: int = Field(5, ge=1, le=60, description="Seconds of writing per cycle (PTS: 5).")
    baseline_s: int = Field(
        1800,
        ge=1,
        le=7200,
        description="Seconds of continuous writing after each set, the return to baseline "
        "(PTS: 1800).",
    )


class PtsHir(Plan):
    key = "pts-hir"
    title = "SNIA PTS host idle recovery: write bursts with idle waits of 5 to 50 s"
    description = (
        "Purge, 2x sequential preconditioning, random 4 KiB writes to steady state, then for "
        "each wait of 5, 10, 15, 25 and 50 s: 360 cycles of 5 s writing plus the wait, and a "
        "return to baseline. Reports IOPS against time with the wait states marked and each "
        "set's IOPS against the baseline."
    )
    destructive = True
    Params = PtsHirParams

    def compile(self, params: PtsHirParams, drive: DriveContext) -> list[StepSpec]:
        unique([str(w) for w in params.waits_s], "waits_s")
        span, active, pct = active_range(params, drive)
        tc, qd = threads_qd(params)
        common = pts_common(params, drive)
        conditions = f"TC{tc} QD{qd} over {human_bytes(active)} ({pct}% ActiveRange)"
        extra = {"profile": params.profile, "threads": tc, "iodepth": qd, "active_range_pct": pct}
        cache, restore = write_cache_steps(params.profile)
        steps = [
            purge_step(),
            cache,
            precondition_step(self.key, common, span, params.precondition_loops),
            rounds_step(
                self.key,
                common,
                [
                    random_element(
                        "0/100", "4k", active=active, tc=tc, qd=qd, seconds=params.element_s
                    )
                ],
                name="rounds",
                label=f"baseline: 4 KiB random write rounds to steady state, {conditions}",
                track=TRACK,
                element_s=params.element_s,
                max_rounds=params.max_rounds,
                active=active,
                extra=extra,
            ),
        ]
        burst = random_element("0/100", "4k", active=active, tc=tc, qd=qd, seconds=params.write_s)
        baseline = random_element(
            "0/100", "4k", active=active, tc=tc, qd=qd, seconds=params.baseline_s
        )["job"]
        for wait in params.waits_s:
            steps.append(
                rounds_step(
                    self.key,
                    common,
                    [burst],
                    name=f"wait-{wait}s",
                    label=f"wait state {wait} s: {params.cycles} cycles of {params.write_s} s "
                    f"4 KiB random write then {wait} s idle, {conditions}",
                    track=TRACK,
                    element_s=params.write_s,
                    max_rounds=params.cycles,
                    active=active,
                    stop_at_steady=False,
                    wait_s=float(wait),
                    role="pts-hir-wait",
                    extra={**extra, "wait_s": float(wait)},
                )
            )
            steps.append(
                fio_step(
                    self.key,
                    common,
                    f"baseline-after-{wait}s",
                    f"return to baseline after the {wait} s wait state: {params.baseline_s} s "
                    f"4 KiB random write, {conditions}",
                    {k: v for k, v in baseline.items() if k != "stonewall"},
                    role="pts-hir-baseline",
                    span=active,
                    extra={"wait_s": float(wait)},
                )
            )
        return [*steps, restore]
