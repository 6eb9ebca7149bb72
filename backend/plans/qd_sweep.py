"""Queue-depth sweep: IOPS, MB/s and tail latency against load (README, Latency QoS).

    purge; workload-independent preconditioning (128K sequential writes, 2x the span);
    4K random writes QD32 for `precondition_random_s` (the random-write steady state every
    random test after it starts from); then for each workload (4K random read, 4K random
    write, 4K random mixed read/write, `mix_read_pct` reads: 70/30 by default) one
    closed-loop fio step per queue depth, shallowest first, `idle_s` (5 s) of idle between
    two depths as the reviews cool off, and a one-second idle step on which the workload's
    figures are derived.

The mixed workload is named by its read share (`mix70`, `mix50`), in its steps' names too
(`mix70-4k-qd8`), so sweeps of different mixes are different tests to Compare.

Every step keeps fio's completion-latency histogram, so each point has its p50 ... p99.99
(p99.999 where it ran 100,000 I/Os or more). Reported per workload: IOPS and MB/s against QD,
p99 and p99.99 against IOPS (the hockey stick), the lowest QD reaching 95% of the peak IOPS,
the highest measured IOPS whose p99 stays at or under `latency_target_us`, with the next
deeper point that misses it, and the low-QD score (the mean IOPS of QD1, 2 and 4, when all
three were swept). Why measured points rather than fio's latency_target search or
rate-limited steps: see README, "Latency QoS".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    common_options,
    fio_step,
    idle_step,
    purge_step,
    span_field,
    tested_span,
)
from backend.plans.pts_common import precondition_step
from backend.plans.torture import random_write_job

Workload = Literal["randread", "randwrite", "mix"]
WORKLOADS: tuple[Workload, ...] = ("randread", "randwrite", "mix")
QUEUE_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128)
MIX_READ_PCT = 70
# The reviews' cool-off between depths.
IDLE_S = 5
# The low-QD score: the mean IOPS of these depths (what a desktop sees), beside the curve.
LOW_QDS = (1, 2, 4)


def workload_key(workload: str, mix_read_pct: int) -> str:
    """A workload's name in steps and results: the mix carries its read share (`mix70`)."""
    return f"mix{mix_read_pct}" if workload == "mix" else workload


def workload_label(workload: str, mix_read_pct: int) -> str:
    if workload == "randread":
        return "4K random read"
    if workload == "randwrite":
        return "4K random write"
    return f"4K random {mix_read_pct}/{100 - mix_read_pct} read/write"


def workload_job(workload: str, mix_read_pct: int) -> dict[str, Any]:
    if workload == "randread":
        return {"rw": "randread"}
    if workload == "randwrite":
        return {"rw": "randwrite", **INCOMPRESSIBLE}
    return {"rw": "randrw", "rwmixread": mix_read_pct, **INCOMPRESSIBLE}


class QdSweepParams(FioParams):
    workloads: list[Workload] = Field(
        default_factory=lambda: list(WORKLOADS),
        min_length=1,
        description="Workloads to sweep: randread, randwrite, mix (random reads and writes, "
        "mix_read_pct of them reads).",
    )
    mix_read_pct: int = Field(
        MIX_READ_PCT,
        ge=1,
        le=99,
        description="Reads in % of the mixed workload (fio rwmixread): 70 is a 70/30 mix.",
    )
    queue_depths: list[int] = Field(
        default_factory=lambda: list(QUEUE_DEPTHS),
        min_length=1,
        max_length=16,
        description="iodepth of each point (per job), 1 to 1024.",
    )
    numjobs: int = Field(1, ge=1, le=64, description="fio jobs per point (total QD = QD x jobs).")
    runtime_s: int = Field(60, ge=1, le=3600, description="Seconds per point.")
    span: str | None = span_field("LBA span of every step (fio size); empty means the whole drive.")
    precondition: bool = Field(
        True, description="Purge and precondition first (sequential 2x, then random writes)."
    )
    precondition_loops: int = Field(
        2, ge=1, le=10, description="Sequential preconditioning: writes of the span, 128K QD32."
    )
    precondition_random_s: int = Field(
        600, ge=0, le=86400, description="Seconds of 4K random writes QD32 after it (0: none)."
    )
    latency_target_us: float = Field(
        1000.0, gt=0, le=10_000_000, description="p99 target of the 'IOPS under target' figure."
    )
    idle_s: int = Field(
        IDLE_S,
        ge=0,
        le=3600,
        description="Idle seconds between two depths (a cool-off, so that heat and background "
        "work of one point do not weigh on the next; 0: none).",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_mix(cls, data: Any) -> Any:
        """`mix70`, the mixed workload's name before its read share was a parameter, is the
        mix at 70% reads (what runs queued then keep in their parameters)."""
        if not isinstance(data, dict) or not isinstance(data.get("workloads"), list):
            return data
        if "mix70" not in data["workloads"]:
            return data
        pct = data.get("mix_read_pct", MIX_READ_PCT)
        if pct != MIX_READ_PCT:
            raise ValueError(f"workloads: mix70 is the 70/30 mix; with mix_read_pct {pct}, use mix")
        return {**data, "workloads": ["mix" if w == "mix70" else w for w in data["workloads"]]}

    @field_validator("queue_depths")
    @classmethod
    def _depths(cls, v: list[int]) -> list[int]:
        bad = [q for q in v if not 1 <= q <= 1024]
        if bad:
            raise ValueError(f"queue depths are 1 to 1024, not {bad}")
        if len(set(v)) != len(v):
            raise ValueError("list each queue depth once")
        return sorted(v)

    @field_validator("workloads")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("list each workload once")
        return v


def point_name(workload: str, qd: int, numjobs: int) -> str:
    jobs = f"-{numjobs}jobs" if numjobs > 1 else ""
    return f"{workload}-4k-qd{qd}{jobs}"


class QdSweep(Plan):
    key = "qd-sweep"
    title = "Queue-depth sweep: IOPS and tail latency against load (4K random, QD1-128)"
    description = (
        "Purge and precondition, then 4K random read, 4K random write and a read/write mix "
        "(70/30 by default) at each queue depth (1 to 128). Reports IOPS and MB/s against "
        "QD, p99 and p99.99 latency against IOPS, the lowest QD reaching 95% of peak IOPS and "
        "the highest IOPS whose p99 stays under a latency target."
    )
    destructive = True
    Params = QdSweepParams

    def compile(self, params: QdSweepParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        if params.precondition:
            steps.append(purge_step())
            steps.append(precondition_step(self.key, common, span, params.precondition_loops))
            if params.precondition_random_s:
                steps.append(
                    fio_step(
                        self.key,
                        common,
                        "precondition-random",
                        f"preconditioning: 4K random write QD32 over {human_bytes(span)}, "
                        f"{params.precondition_random_s} s",
                        random_write_job(span, params.precondition_random_s),
                        role="precondition-random",
                        span=span,
                    )
                )
        jobs = params.numjobs
        for workload in params.workloads:
            key = workload_key(workload, params.mix_read_pct)
            label = workload_label(workload, params.mix_read_pct)
            for n, qd in enumerate(params.queue_depths):
                if n and params.idle_s:
                    steps.append(
                        idle_step(
                            f"{key}-cool-off-qd{qd}",
                            f"{label}: idle {params.idle_s} s before QD{qd}",
                            params.idle_s,
                        )
                    )
                total = f" ({qd * jobs} outstanding)" if jobs > 1 else ""
                steps.append(
                    fio_step(
                        self.key,
                        common,
                        point_name(key, qd, jobs),
                        f"{label} QD{qd}" + (f" x {jobs} jobs{total}" if jobs > 1 else ""),
                        {
                            **workload_job(workload, params.mix_read_pct),
                            "bs": "4k",
                            "iodepth": qd,
                            "numjobs": jobs,
                            "offset": 0,
                            "size": format_size(span),
                            "norandommap": True,
                            "randrepeat": False,
                            "time_based": True,
                            "runtime": params.runtime_s,
                        },
                        role="qd-sweep",
                        span=span,
                        extra={"workload": key},
                    )
                )
            # A one-second pause that carries the workload's figures (derived when it ends),
            # under a name that does not depend on the depths swept, so runs compare.
            summary = idle_step(f"{key}-4k-sweep", f"{label}: QD sweep figures (1 s pause)", 1)
            summary.params.update(
                {
                    "role": "qd-sweep-summary",
                    "workload": key,
                    "latency_target_us": params.latency_target_us,
                }
            )
            steps.append(summary)
        return steps
