"""SNIA PTS steady state (METHODS.md, Beyond the reviews).

    purge; workload-independent preconditioning: 128K sequential writes of twice the tested span
    (`size=<span> loops=2`); workload-dependent preconditioning: rounds of the tracked workload
    (1 minute each) until steady state or 25 rounds (a `fio-rounds` step); then the measurement:
    the same workload for the steady-state window (5 rounds' worth of time by default).

Steady state (checked by the worker after each round with backend.analysis.steady_state): over
the last 5 rounds, max - min <= 20% of their average and the least-squares slope x 4 <= 10% of
the average. fio's own `ss=` option is a different test and is not used.

Simplification: a round runs only the tracked workload (4K random write for IOPS, 128K or 1M
sequential write for throughput), not the PTS IOPS test's full matrix of 7 mixes x 8 block sizes
per round.

Random offsets: with an explicit randseed fio repeats the same offsets in every run, so the
`fio-rounds` step asks the worker (`randseed_per_round`) to run round k with randseed + k - 1;
the measurement runs with randseed + max_rounds, a seed no round used.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from backend.plans.base import DriveContext, Plan, StepSpec, fio_job_file, format_size
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    common_options,
    fio_step,
    purge_step,
    span_field,
    tested_span,
)
from backend.plans.pts_common import EXCURSION_PCT, SLOPE_PCT, WINDOW, precondition_step

Workload = Literal["iops-4k-randwrite", "throughput-128k-seqwrite", "throughput-1m-seqwrite"]

WORKLOADS: dict[str, tuple[str, str, str, str]] = {
    # workload: rw, bs, tracked metric, label
    "iops-4k-randwrite": ("randwrite", "4k", "write_iops", "4K random write"),
    "throughput-128k-seqwrite": ("write", "128k", "write_mbps", "128K sequential write"),
    "throughput-1m-seqwrite": ("write", "1m", "write_mbps", "1M sequential write"),
}


class PtsSteadyStateParams(FioParams):
    workload: Workload = Field(
        "iops-4k-randwrite",
        description="Tracked workload: 4K random write (IOPS test) or 128K / 1M sequential "
        "write (throughput test).",
    )
    span: str | None = span_field(
        "Tested span, the PTS ActiveRange (fio size); empty means the whole drive."
    )
    iodepth: int = Field(32, ge=1, le=256, description="Outstanding I/Os (PTS: 32 in total).")
    round_s: int = Field(60, ge=1, le=600, description="Seconds per round (PTS: 1 minute).")
    max_rounds: int = Field(
        25,
        ge=WINDOW,
        le=25,
        description=f"Most rounds before giving up on steady state (PTS: 25, at least {WINDOW}).",
    )
    precondition_loops: int = Field(
        2,
        ge=1,
        le=4,
        description="Sequential 128K passes over the span before the rounds (PTS: 2).",
    )
    measurement_s: int | None = Field(
        None,
        ge=1,
        le=7200,
        description=f"Seconds of the measurement after steady state; empty: {WINDOW} rounds' "
        "worth (the PTS measurement window).",
    )


def workload_job(workload: str, span: int, iodepth: int, runtime_s: int) -> dict[str, Any]:
    rw, bs, _metric, _label = WORKLOADS[workload]
    job: dict[str, Any] = {"rw": rw, "bs": bs, "iodepth": iodepth, "offset": 0}
    job["size"] = format_size(span)
    if rw == "randwrite":
        job.update({"norandommap": True, "randrepeat": False})
    job.update({"time_based": True, "runtime": runtime_s, **INCOMPRESSIBLE})
    return job


class PtsSteadyState(Plan):
    key = "pts-steady-state"
    title = "SNIA PTS steady state: purge, precondition, rounds to steady state, measure"
    description = (
        "Purges the drive, writes twice the tested span sequentially (128K), then runs 1-minute "
        "rounds of the tracked workload until steady state (5-round window, 20% range, 10% "
        "slope; at most 25 rounds) and measures over a steady window. Reports the convergence "
        "and the measurement window with its average, +-10% band and fit line."
    )
    destructive = True
    Params = PtsSteadyStateParams

    def compile(self, params: PtsSteadyStateParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        _rw, _bs, metric, label = WORKLOADS[params.workload]
        precondition = precondition_step(self.key, common, span, params.precondition_loops)
        round_job = workload_job(params.workload, span, params.iodepth, params.round_s)
        rounds_label = f"{label} QD{params.iodepth} rounds of {params.round_s} s to steady state"
        rounds = StepSpec(
            kind="fio-rounds",
            name="steady-state-rounds",
            estimate_s=float(params.max_rounds * params.round_s),
            params={
                "label": rounds_label,
                "role": "steady-state",
                "workload": params.workload,
                **round_job,
                "round_s": params.round_s,
                "max_rounds": params.max_rounds,
                "window": WINDOW,
                "metric": metric,
                "excursion_pct": EXCURSION_PCT,
                "slope_pct": SLOPE_PCT,
                "randseed_per_round": True,
                "span_bytes": span,
            },
            job_file=fio_job_file(
                f"{self.key} / {rounds_label} (one round)", common, "round", round_job
            ),
        )
        measurement_s = params.measurement_s or WINDOW * params.round_s
        measurement_common = {**common, "randseed": params.randseed + params.max_rounds}
        measurement = fio_step(
            self.key,
            measurement_common,
            "measurement",
            f"measurement: {label} QD{params.iodepth}, {measurement_s} s",
            workload_job(params.workload, span, params.iodepth, measurement_s),
            role="measurement",
            span=span,
            extra={"workload": params.workload, "metric": metric},
        )
        return [purge_step(), precondition, rounds, measurement]
