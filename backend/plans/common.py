"""What the plans share: fio's common options, data patterns, parameter fields and step makers.

Every fio step made here carries a complete job file (the `[global]` common options and one job
section) and an `estimate_s` for progress and ETA: a time-based job's runtime, a size-based
job's bytes at an assumed 500 MB/s (capped by its `runtime` when it has one).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from backend.core.errors import InvalidParams
from backend.plans.base import (
    DriveContext,
    PlanParams,
    StepSpec,
    fio_filename,
    fio_job_file,
    format_size,
    human_bytes,
    parse_size,
    span_bytes,
)

MiB = 1024**2
# Rates of a size-based job, for the estimate only: 500 MB/s, or 100k IOPS for small blocks.
ASSUMED_BPS = 500e6
ASSUMED_IOPS = 100_000
PURGE_ESTIMATE_S = 10.0
TRIM_ESTIMATE_S = 5.0
# ASCII digits only: a pattern's \d also matches other scripts' digits ("４k"), which fio rejects.
SIZE_PATTERN = r"^[0-9]{1,20}[kKmMgGtT]?$"
# fio reads randseed as a signed 64-bit number (fio 3.33 refuses 2^63), and steady-state loops
# add their round's index to it (write saturation: up to max_s / round_s, 604800 rounds): the
# parameter stops 2^32 below fio's limit, so no round's seed is one fio refuses.
FIO_RANDSEED_MAX = 2**63 - 1
RANDSEED_MAX = FIO_RANDSEED_MAX - 2**32

Pattern = Literal["incompressible", "compressible"]
SizeText = Annotated[str, Field(pattern=SIZE_PATTERN)]
IoEngine = Literal["libaio", "io_uring"]


def pattern_options(pattern: Pattern, compress_percentage: int) -> dict[str, Any]:
    """fio options of a data pattern (METHODS.md, Data patterns)."""
    if pattern == "compressible":
        return {
            "refill_buffers": True,
            "buffer_compress_percentage": compress_percentage,
            "buffer_compress_chunk": 4096,
        }
    return {"refill_buffers": True}


INCOMPRESSIBLE = pattern_options("incompressible", 0)


def common_options(drive: DriveContext, ioengine: str, randseed: int) -> dict[str, Any]:
    """The [global] section of every job file (METHODS.md, Common fio settings)."""
    return {
        "filename": fio_filename(drive.target_path),
        "ioengine": ioengine,
        "direct": True,
        "numjobs": 1,
        "randseed": randseed,
        "allow_mounted_write": False,
        "kb_base": 1024,
    }


def span_field(description: str, default: str | None = None) -> Any:
    """A span parameter: a size in fio's syntax (8g = 8 GiB); None means the whole drive."""
    return Field(default, description=description, pattern=SIZE_PATTERN)


def log_window_field(default: int) -> Any:
    return Field(
        default,
        ge=1,
        le=60000,
        description=(
            "Window of the end-of-job bandwidth and IOPS logs in ms (log_avg_msec, bwavgtime "
            "and iopsavgtime are all set to it)."
        ),
    )


def randseed_field() -> Any:
    return Field(
        20261121,
        ge=0,
        le=RANDSEED_MAX,
        description="fio randseed, recorded for repeatability.",
    )


class FioParams(PlanParams):
    """Parameters every fio plan has."""

    ioengine: IoEngine = Field(
        "libaio", description="fio ioengine (io_uring where the bench's fio and kernel have it)."
    )
    randseed: int = randseed_field()


def tested_span(span: str | None, drive: DriveContext, name: str = "span") -> int:
    """A span parameter resolved against the drive and rounded down to a whole MiB, so every
    block size up to 1m divides it (None: the whole drive)."""
    n = span_bytes(span, drive, name) // MiB * MiB
    if n < MiB:
        raise InvalidParams(f"{name}: the drive is smaller than 1 MiB", field=name)
    return n


def invalid(field: str, message: str) -> InvalidParams:
    """An error about one parameter, named as the request names it (params.<field>)."""
    return InvalidParams(f"{field}: {message}", field=f"params.{field}")


def log_options(job_name: str, window_ms: int) -> dict[str, Any]:
    """End-of-job bw/IOPS logs averaged over `window_ms` (the effective window is the minimum
    of log_avg_msec, bwavgtime and iopsavgtime, so all three are set)."""
    return {
        "write_bw_log": job_name,
        "write_iops_log": job_name,
        "log_avg_msec": window_ms,
        "bwavgtime": window_ms,
        "iopsavgtime": window_ms,
    }


_LOG_KEYS = frozenset(log_options("x", 1))


def job_estimate(job: dict[str, Any]) -> float:
    """Seconds a job should take: its runtime when time-based, else its bytes at ASSUMED_BPS
    (at ASSUMED_IOPS when its blocks are so small that this is slower), capped by its runtime."""
    runtime = job.get("runtime")
    if job.get("time_based"):
        if runtime is None:
            raise ValueError("a time-based job needs a runtime")
        return float(runtime)
    size = job.get("size")
    if size is None:
        raise ValueError("a size-based job needs a size to estimate its duration")
    rate = ASSUMED_BPS
    if "bs" in job:
        rate = min(rate, ASSUMED_IOPS * parse_size(job["bs"]))
    seconds = parse_size(size) * int(job.get("loops", 1)) / rate
    if runtime is not None:
        seconds = min(seconds, float(runtime))
    return max(1.0, seconds)


def fio_step(
    plan_key: str,
    common: dict[str, Any],
    name: str,
    label: str,
    job: dict[str, Any],
    *,
    role: str | None = None,
    log_window_ms: int | None = None,
    span: int | None = None,
    estimate_s: float | None = None,
    extra: dict[str, Any] | None = None,
) -> StepSpec:
    """A fio step: the job file (job section named `name`), the label and key options for
    display, and the worker's cues (role, log window, span)."""
    job = dict(job)
    if log_window_ms is not None:
        job.update(log_options(name, log_window_ms))
    params: dict[str, Any] = {"label": label}
    params.update({k: v for k, v in job.items() if k not in _LOG_KEYS and v is not None})
    if role is not None:
        params["role"] = role
    if log_window_ms is not None:
        params["log_window_ms"] = log_window_ms
    if span is not None:
        params["span_bytes"] = span
    params.update(extra or {})
    return StepSpec(
        kind="fio",
        name=name,
        estimate_s=estimate_s if estimate_s is not None else job_estimate(job),
        params=params,
        job_file=fio_job_file(f"{plan_key} / {label}", common, name, job),
    )


def fill_job(span: int, *, offset: int = 0) -> dict[str, Any]:
    """Sequential fill: 128K QD32 with incompressible data over [offset, offset + span)."""
    return {
        "rw": "write",
        "bs": "128k",
        "iodepth": 32,
        "offset": offset,
        "size": format_size(span),
        **INCOMPRESSIBLE,
    }


def fill_step(
    plan_key: str, common: dict[str, Any], span: int, *, name: str = "fill", label: str = ""
) -> StepSpec:
    label = label or f"fill {human_bytes(span)} sequentially, 128K QD32"
    return fio_step(plan_key, common, name, label, fill_job(span), role="fill", span=span)


def purge_step(label: str = "purge the drive") -> StepSpec:
    """The worker chooses the method (NVMe format, ATA secure erase, blkdiscard, file punch)
    and records which one it used."""
    return StepSpec(
        kind="purge", name="purge", estimate_s=PURGE_ESTIMATE_S, params={"label": label}
    )


def trim_step(name: str, label: str, *, offset: int = 0, length: int | None = None) -> StepSpec:
    """Discard [offset, offset + length); length None: to the end of the target."""
    return StepSpec(
        kind="trim",
        name=name,
        estimate_s=TRIM_ESTIMATE_S,
        params={"label": label, "offset": offset, "length": length},
    )


def idle_step(name: str, label: str, seconds: int) -> StepSpec:
    return StepSpec(
        kind="idle",
        name=name,
        estimate_s=float(seconds),
        params={"label": label, "seconds": seconds},
    )


def whole_span_length(span_param: str | None, span: int) -> int | None:
    """The TRIM length of "the whole span": to the end of the target when the span is the
    whole drive, else exactly the span."""
    return None if span_param is None else span


def with_notes(steps: list[StepSpec], notes: list[str]) -> list[StepSpec]:
    """Record the plan's notes (skipped sizes, caveats) on the first step."""
    if notes and steps:
        steps[0].params["notes"] = list(notes)
    return steps
