"""A thermal plan: how a drive heats, throttles and recovers under a sustained sequential load.

Each cycle is a heat phase then a cool phase:

    heat-1, cool-1, heat-2, cool-2, ...

- heat-N: a sustained sequential write (or read) over the span, `bs` at `iodepth`, time based
  for `heat_s` seconds (fio loops over the span). With `until_c`, the worker ends the phase
  early, as soon as the drive's temperature reaches it (it stops fio as a cancel does, and
  keeps fio's final JSON: the phase is done, and its log says why it ended).
- cool-N: the drive idles, no I/O, while the worker reads its temperature once a second into
  the step's samples (0 bytes and the temperature). With `cool_within_c`, the phase ends as
  soon as the temperature is back within that many °C of where the heat phase began;
  `cool_s` is then the longest it waits.

The analysis (backend.results.thermal) finds, per heat phase, the first throttle (a step-down
of MB/s found by backend.analysis.changepoints.levels: seconds from the phase's start and the
temperature then), the throttled speed, the peak temperature and the time above the
controller's WCTEMP, and per cool phase the time to recover.

The drive's temperature comes from its sensor (worker.temperature); a drive without one still
runs the plan, but its phases have no temperatures, so `until_c` and `cool_within_c` cannot
end a phase early (the log says so) and the temperature findings are absent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from backend.plans.base import (
    DriveContext,
    Plan,
    StepSpec,
    format_size,
    human_bytes,
    parse_size,
)
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    SizeText,
    common_options,
    fio_step,
    invalid,
    span_field,
    tested_span,
    with_notes,
)

HEAT_ROLE = "thermal-heat"
COOL_ROLE = "thermal-cool"
# Where the cool phase's recovery is judged when `cool_within_c` is not given.
DEFAULT_WITHIN_C = 2.0
MAX_BS = 1024**2 * 64


class ThermalParams(FioParams):
    rw: Literal["write", "read"] = Field(
        "write", description="Sequential write (destructive) or sequential read in the heat phases."
    )
    bs: SizeText = Field("128k", description="Block size of the heat phases (fio bs).")
    iodepth: int = Field(
        32, ge=1, le=1024, description="Queue depth of the heat phases (METHODS.md: 128K QD32)."
    )
    span: str | None = span_field(
        "Span the heat phases write or read, looping over it (fio size); empty means the "
        "whole drive."
    )
    heat_s: int = Field(
        600, ge=5, le=86400, description="Length of each heat phase in seconds (its maximum "
        "with until_c)."
    )  # fmt: skip
    until_c: float | None = Field(
        None,
        ge=20,
        le=150,
        description="End a heat phase early once the drive's temperature reaches this (°C); "
        "empty: every heat phase lasts heat_s.",
    )
    cool_s: int = Field(
        600, ge=1, le=86400, description="Length of each cool (idle) phase in seconds (its "
        "maximum with cool_within_c)."
    )  # fmt: skip
    cool_within_c: float | None = Field(
        None,
        gt=0,
        le=50,
        description="End a cool phase early once the temperature is back within this many °C "
        "of where its heat phase began; empty: every cool phase lasts cool_s.",
    )
    cycles: int = Field(2, ge=1, le=50, description="Heat and cool cycles.")

    @field_validator("bs")
    @classmethod
    def _block_size(cls, bs: str) -> str:
        n = parse_size(bs)
        if n < 512 or n > MAX_BS or n % 512:
            raise ValueError(
                f"{bs} is not a block size fio can use here: choose a multiple of 512 bytes "
                "between 512 and 64m (128k for sustained sequential transfers)"
            )
        return bs


def heat_step(
    plan_key: str, common: dict[str, Any], params: ThermalParams, span: int, n: int
) -> StepSpec:
    verb = "write" if params.rw == "write" else "read"
    label = (
        f"heat {n}: sequential {verb} {params.bs.upper()} QD{params.iodepth} for {params.heat_s} s"
    )
    if params.until_c is not None:
        label += f" or until {params.until_c:g} °C"
    job: dict[str, Any] = {
        "rw": params.rw,
        "bs": params.bs,
        "iodepth": params.iodepth,
        "offset": 0,
        "size": format_size(span),
        "time_based": True,
        "runtime": params.heat_s,
    }
    if params.rw == "write":
        job.update(INCOMPRESSIBLE)
    extra: dict[str, Any] = {"phase": n}
    if params.until_c is not None:
        extra["until_c"] = params.until_c
    return fio_step(plan_key, common, f"heat-{n}", label, job, role=HEAT_ROLE, span=span,
                    extra=extra)  # fmt: skip


def cool_step(params: ThermalParams, n: int) -> StepSpec:
    label = f"cool {n}: idle for {params.cool_s} s"
    if params.cool_within_c is not None:
        label = (
            f"cool {n}: idle until within {params.cool_within_c:g} °C of the heat phase's "
            f"start, at most {params.cool_s} s"
        )
    p: dict[str, Any] = {
        "label": label,
        "seconds": params.cool_s,
        "role": COOL_ROLE,
        "phase": n,
        # The worker stores the temperature once a second as the step's samples.
        "sample_temperature": True,
    }
    if params.cool_within_c is not None:
        p["within_c"] = params.cool_within_c
    return StepSpec(kind="idle", name=f"cool-{n}", estimate_s=float(params.cool_s), params=p)


class ThermalPlan(Plan):
    key = "thermal"
    title = "Thermal: sustained sequential transfers until the drive throttles, then cooling"
    description = (
        "Repeats a heat phase (sustained 128K QD32 sequential write or read for heat_s, or "
        "until a temperature) and a cool phase (idle while the temperature is read every "
        "second, for cool_s or until the drive is back near where it started). Reports MB/s "
        "and °C against time, and per phase the first throttle (time and temperature), the "
        "throttled speed, the peak temperature, the time above WCTEMP and the time to recover."
    )
    destructive = True
    Params = ThermalParams

    def notes(self, params: ThermalParams, drive: DriveContext) -> list[str]:
        notes = []
        if params.rw == "read":
            notes.append(
                "the heat phases only read, but the plan is marked as writing (confirm the "
                "serial) like every plan whose parameters can write"
            )
        return notes

    def compile(self, params: ThermalParams, drive: DriveContext) -> list[StepSpec]:
        span = tested_span(params.span, drive)
        if parse_size(params.bs) > span:
            raise invalid("bs", f"{params.bs} is larger than the span ({human_bytes(span)})")
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        for n in range(1, params.cycles + 1):
            steps += [heat_step(self.key, common, params, span, n), cool_step(params, n)]
        return with_notes(steps, self.notes(params, drive))
