"""Mixed random and mixed sequential performance, as AnandTech's 2018-2021 SSD suite runs them
(README, plan `mixed`).

    a sequential write of the span (128K QD32, incompressible), so that every read reads
    written data; then for each part (random, sequential) and each share of writes (0% to
    100% in 10% steps by default), one fio step: 4K random at QD4 (random) or 128K
    sequential at QD1 (sequential) over the span, limited to `step_runtime_s` (60 s) or
    `step_io_size` (32 GiB) of I/O, whichever comes first (fio's runtime and io_size), each
    followed by an idle step; the last idle step of a part carries the part's figures.

The idle after a step lasts as long as the step's time limit (`idle_s`, by default
`step_runtime_s`): a step that ran to its time limit has a 50% duty cycle, as AnandTech's
tests; one that stopped on its byte limit rests longer than it ran. Each step is one fio job
with `rwmixwrite` set to the share (0%: `randread`/`read`, 100%: `randwrite`/`write`), so fio
keeps reads and writes in that proportion of I/Os; its MB/s and IOPS are fio's own totals, the
read and write parts apart as fio reports them. The part's figure is the average of the steps'
MB/s (AnandTech's bar), with the curve's lowest and highest points.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from backend.plans.base import DriveContext, Plan, StepSpec, format_size, human_bytes, parse_size
from backend.plans.common import (
    ASSUMED_BPS,
    ASSUMED_IOPS,
    INCOMPRESSIBLE,
    SIZE_PATTERN,
    FioParams,
    MiB,
    common_options,
    fill_job,
    fio_step,
    idle_step,
    invalid,
    span_field,
    tested_span,
    with_notes,
)

Part = Literal["random", "sequential"]
PARTS: tuple[Part, ...] = ("random", "sequential")
WRITE_SHARES = tuple(range(0, 101, 10))
# AnandTech's span: 64 GB (drivelab's 64 GiB, fio's 64g), the whole drive when it is smaller.
DEFAULT_SPAN = 64 * 1024**3
PREWRITE_ROLE = "mixed-prewrite"
STEP_ROLE = "mixed-step"
SUMMARY_ROLE = "mixed-summary"
# AnandTech's workloads: 4K random at QD4, 128K sequential at QD1.
WORKLOAD = {"random": ("4k", 4), "sequential": ("128k", 1)}


class MixedParams(FioParams):
    parts: list[Part] = Field(
        default_factory=lambda: list(PARTS),
        min_length=1,
        description="Parts to run: random (4K random QD4), sequential (128K sequential QD1).",
    )
    span: str | None = span_field(
        "LBA span every step runs over (fio size), written first; empty: 64 GiB (AnandTech's "
        "64 GB), or the whole drive when it is smaller."
    )
    write_shares: list[int] = Field(
        default_factory=lambda: list(WRITE_SHARES),
        min_length=1,
        max_length=101,
        description="Share of writes of each step in % (fio rwmixwrite), 0 to 100; run in "
        "increasing order (AnandTech: 0, 10, ..., 100).",
    )
    step_runtime_s: int = Field(
        60, ge=1, le=3600, description="Time limit of each step in seconds (fio runtime)."
    )
    step_io_size: str = Field(
        "32g",
        pattern=SIZE_PATTERN,
        description="Byte limit of each step (fio io_size, reads and writes together): the step "
        "ends at whichever limit comes first.",
    )
    idle_s: int | None = Field(
        None,
        ge=1,
        le=3600,
        description="Idle seconds after each step; empty: the step's time limit, a 50% duty "
        "cycle for a step that runs to it.",
    )
    prewrite: bool = Field(
        True, description="Write the span sequentially first (incompressible), so reads read data."
    )

    @field_validator("write_shares")
    @classmethod
    def _shares(cls, v: list[int]) -> list[int]:
        bad = [s for s in v if not 0 <= s <= 100]
        if bad:
            raise ValueError(f"write shares are 0 to 100 (%), not {bad}")
        if len(set(v)) != len(v):
            raise ValueError("list each write share once")
        return sorted(v)

    @field_validator("parts")
    @classmethod
    def _parts(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("list each part once")
        return [p for p in PARTS if p in v]


def part_key(part: str) -> str:
    """A part's test name, in its summary step and metrics: mixed-random-4k-qd4."""
    bs, qd = WORKLOAD[part]
    return f"mixed-{part}-{bs}-qd{qd}"


def share_name(part: str, write_pct: int) -> str:
    """A step's name: mixed-random-4k-qd4-w30 (30% writes)."""
    return f"{part_key(part)}-w{write_pct}"


def part_label(part: str) -> str:
    bs, qd = WORKLOAD[part]
    return f"{bs.upper()} {part} mixed QD{qd}"


def share_job(part: str, write_pct: int, span: int, runtime_s: int, io_size: int) -> dict[str, Any]:
    bs, qd = WORKLOAD[part]
    prefix = "rand" if part == "random" else ""
    if write_pct == 0:
        rw: dict[str, Any] = {"rw": f"{prefix}read"}
    elif write_pct == 100:
        rw = {"rw": f"{prefix}write"}
    else:
        rw = {"rw": f"{prefix}rw", "rwmixwrite": write_pct}
    job: dict[str, Any] = {
        **rw,
        "bs": bs,
        "iodepth": qd,
        "offset": 0,
        "size": format_size(span),
        "io_size": format_size(io_size),
        "runtime": runtime_s,
    }
    if part == "random":
        job.update({"norandommap": True, "randrepeat": False})
    if write_pct:
        job.update(INCOMPRESSIBLE)
    return job


class Mixed(Plan):
    key = "mixed"
    title = "Mixed random and mixed sequential (0-100% writes, AnandTech's 2018-2021 tests)"
    description = (
        "Writes a 64 GB span, then 4K random QD4 and 128K sequential QD1 at 0%, 10%, ... 100% "
        "writes, each share 1 minute or 32 GB (whichever first) with as long idle after it. "
        "Reports MB/s (and IOPS) against the share of writes, read and write parts apart, and "
        "the average over the shares (AnandTech's mixed random / mixed sequential tests)."
    )
    destructive = True
    Params = MixedParams

    def _span(self, params: MixedParams, drive: DriveContext) -> int:
        if params.span is None:
            return max(MiB, min(DEFAULT_SPAN, drive.capacity_bytes) // MiB * MiB)
        return tested_span(params.span, drive)

    def _io_size(self, params: MixedParams) -> int:
        n = parse_size(params.step_io_size)
        if n < MiB:
            raise invalid(
                "step_io_size", f"{params.step_io_size} is below 1 MiB: choose a larger one"
            )
        return n

    def notes(self, params: MixedParams, drive: DriveContext) -> list[str]:
        span = self._span(params, drive)
        notes = []
        if params.span is None and drive.capacity_bytes < DEFAULT_SPAN:
            notes.append(
                f"the drive is smaller than 64 GiB: the span is all of it ({human_bytes(span)})"
            )
        idle = params.idle_s or params.step_runtime_s
        notes.append(
            f"idle {idle} s after each step: a 50% duty cycle for a step that runs its "
            f"{params.step_runtime_s} s; a step that stops on its "
            f"{human_bytes(self._io_size(params))} rests longer than it ran"
        )
        notes.append(
            "each share is one step's average: a write cache that runs out within a step lowers "
            "that share's figure, it is not seen as a change inside the step"
        )
        if not params.prewrite:
            notes.append("no pre-write: reads of LBAs never written may not touch flash")
        return notes

    def compile(self, params: MixedParams, drive: DriveContext) -> list[StepSpec]:
        span = self._span(params, drive)
        io_size = self._io_size(params)
        idle = params.idle_s or params.step_runtime_s
        common = common_options(drive, params.ioengine, params.randseed)
        steps: list[StepSpec] = []
        if params.prewrite:
            steps.append(
                fio_step(
                    self.key,
                    common,
                    "mixed-prewrite",
                    f"pre-write {human_bytes(span)} sequentially, 128K QD32 (incompressible)",
                    fill_job(span),
                    role=PREWRITE_ROLE,
                    span=span,
                )
            )
        for part in params.parts:
            bs, _qd = WORKLOAD[part]
            rate = min(ASSUMED_BPS, ASSUMED_IOPS * parse_size(bs))
            estimate = max(1.0, min(float(params.step_runtime_s), io_size / rate))
            for n, pct in enumerate(params.write_shares):
                name = share_name(part, pct)
                steps.append(
                    fio_step(
                        self.key,
                        common,
                        name,
                        f"{part_label(part)}, {pct}% writes ({params.step_runtime_s} s or "
                        f"{human_bytes(io_size)})",
                        share_job(part, pct, span, params.step_runtime_s, io_size),
                        role=STEP_ROLE,
                        span=span,
                        estimate_s=estimate,
                        extra={"part": part, "write_pct": pct},
                    )
                )
                last = n == len(params.write_shares) - 1
                rest = idle_step(
                    part_key(part) if last else f"{name}-idle",
                    f"{part_label(part)}: idle {idle} s"
                    + (" (the part's figures)" if last else ""),
                    idle,
                )
                if last:
                    # The pause after the last share carries the part's figures, under a
                    # name that does not depend on the shares run, so runs compare.
                    rest.params.update({"role": SUMMARY_ROLE, "part": part})
                steps.append(rest)
        return with_notes(steps, self.notes(params, drive))
