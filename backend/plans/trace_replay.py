"""Trace playback, "Storage Bench" style (METHODS.md, plan 9).

Either an uploaded trace (blktrace binary or fio iolog v2/v3) replayed against the target as fast
as the drive allows (`replay_no_stall=1`, offsets aligned to 4 KiB), or a synthetic workload
defined by its I/O profile: read/write mix, `bssplit` size breakdown per direction, random
percentage and queue depth, run for a fixed time.

The "heavy" and "light" profiles are modelled approximations of the published desktop
storage-bench breakdowns (AnandTech Storage Bench 2011 Heavy and Light), NOT the original
traces: heavy is write-heavy (46% reads), dominated by 4K transfers with a large share of large
sequential ones, at QD up to 8; light is read-mostly (66% reads), mostly 4K random, at QD 2.
Results of a profile are comparable between drives run with the same profile, not with the
published Storage Bench scores.

Before the workload the span is filled (by default), so reads hit written data: a drive answers
reads of never-written blocks without touching NAND.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict, Field

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
    common_options,
    fill_step,
    fio_step,
    invalid,
    span_field,
    tested_span,
)

_BS = r"[0-9]{1,12}[kKmM]?/[0-9]{1,3}"
_SPLIT = rf"{_BS}(?::{_BS})*"
BSSPLIT_PATTERN = rf"^{_SPLIT}(?:,{_SPLIT})?$"
PROFILE_RUNTIME_S = 600
MiB = 1024**2
MAX_BLOCK = 128 * MiB
TRACE_ESTIMATE_S = 1800.0  # a trace's length is unknown until it is replayed
# A trace replays one I/O at a time by default: measured with fio 3.33 on the recorded fixture
# (tests/fixtures/traces), replaying an iolog at iodepth 8 moved 28 KiB less than the trace holds
# (4 KiB short on 7 of 400 I/Os, with no short or dropped I/O reported), at iodepth 1 exactly
# the trace's bytes. A deeper replay can be asked for; its byte totals are then fio's, not the
# trace's.
TRACE_IODEPTH = 1


@dataclass(frozen=True)
class Profile:
    rwmixread: int
    bssplit: str  # reads,writes (fio: percentages of I/Os)
    percentage_random: int
    iodepth: int


PROFILES = {
    "heavy": Profile(
        rwmixread=46,
        bssplit="4k/40:16k/10:32k/10:64k/10:128k/30,4k/45:16k/10:32k/10:64k/10:128k/25",
        percentage_random=50,
        iodepth=8,
    ),
    "light": Profile(
        rwmixread=66,
        bssplit="4k/60:16k/10:32k/10:64k/10:128k/10,4k/70:16k/10:32k/10:64k/5:128k/5",
        percentage_random=80,
        iodepth=2,
    ),
}
CUSTOM_FIELDS = ("rwmixread", "bssplit", "percentage_random", "iodepth")


class TraceReplayParams(FioParams):
    # A form can tell before asking the api that one of the two is needed.
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"x-exactly-one-of": [["trace_id", "profile"]]}
    )

    trace_id: int | None = Field(
        None,
        ge=1,
        le=2**31 - 1,
        description="An uploaded trace to replay; give this or profile, not both.",
    )
    profile: Literal["heavy", "light", "custom"] | None = Field(
        None,
        description="A synthetic workload instead of a trace: heavy or light (modelled on the "
        "desktop storage-bench breakdowns) or custom (rwmixread, bssplit, percentage_random "
        "and iodepth below).",
    )
    rwmixread: int | None = Field(
        None, ge=0, le=100, description="custom profile: percentage of I/Os that are reads."
    )
    bssplit: str | None = Field(
        None,
        pattern=BSSPLIT_PATTERN,
        description="custom profile: fio bssplit, reads then writes, percentages of I/Os "
        "summing to 100 each (4k/60:64k/40,4k/80:128k/20).",
    )
    percentage_random: int | None = Field(
        None,
        ge=0,
        le=100,
        description="custom profile: percentage of random I/Os, the rest sequential.",
    )
    iodepth: int | None = Field(
        None,
        ge=1,
        le=256,
        description="Queue depth: required for custom; for a trace, the most I/Os in flight "
        f"(default {TRACE_IODEPTH}); heavy and light fix their own.",
    )
    runtime_s: int | None = Field(
        None,
        ge=1,
        le=86400,
        description=f"Seconds of a synthetic workload (default {PROFILE_RUNTIME_S}); for a "
        "trace, an optional cap (default: the whole trace).",
    )
    span: str | None = span_field(
        "Span of the synthetic workload and of the fill (fio size); empty means the whole drive."
    )
    prefill: bool = Field(True, description="Fill the span sequentially before the workload.")


def bssplit_sizes(bssplit: str) -> list[list[tuple[int, int]]]:
    """[(bytes, percent), ...] per direction of a bssplit."""
    return [
        [(parse_size(bs), int(pct)) for bs, pct in (e.split("/") for e in part.split(":"))]
        for part in bssplit.split(",")
    ]


def check_bssplit(bssplit: str, drive: DriveContext, span: int) -> None:
    parts = bssplit_sizes(bssplit)
    names = ("reads", "writes") if len(parts) == 2 else ("reads and writes",)
    for direction, entries in zip(names, parts, strict=True):
        total = sum(p for _bs, p in entries)
        if total != 100:
            raise invalid(
                "bssplit", f"the percentages of the {direction} add up to {total}, not 100"
            )
        for bs, _p in entries:
            if bs > MAX_BLOCK:
                raise invalid(
                    "bssplit",
                    f"a block of {bs} B is larger than {MAX_BLOCK // MiB} MiB: use smaller "
                    "blocks (fio needs a buffer of each size for every I/O in flight)",
                )
            if bs < drive.logical_sector or bs % drive.logical_sector:
                raise invalid(
                    "bssplit",
                    f"{bs} B is not a multiple of the drive's {drive.logical_sector} B logical "
                    "sector: direct I/O would fail",
                )
            if bs > span:
                # fio refuses a job smaller than its smallest block when the job starts (not
                # when it parses it): after the fill.
                raise invalid(
                    "bssplit",
                    f"a block of {human_bytes(bs)} is larger than the span "
                    f"({human_bytes(span)}): every block must fit in the span; choose a larger "
                    "span or smaller blocks",
                )


class TraceReplay(Plan):
    key = "trace-replay"
    title = "Trace playback (Storage Bench style): a recorded trace or a desktop profile"
    description = (
        "Replays an uploaded trace as fast as the drive allows, or runs a synthetic desktop "
        "workload (heavy, light or custom mix of sizes, reads/writes and randomness). Reports "
        "average MB/s (all, read, write), disk busy time and the I/O breakdown."
    )
    destructive = True
    Params = TraceReplayParams

    def compile(self, params: TraceReplayParams, drive: DriveContext) -> list[StepSpec]:
        if (params.trace_id is None) == (params.profile is None):
            field = "profile" if params.trace_id is None else "trace_id"
            raise invalid(
                field,
                "give exactly one of trace_id (an uploaded trace) and profile (heavy, light or "
                "custom)",
            )
        span = tested_span(params.span, drive)
        common = common_options(drive, params.ioengine, params.randseed)
        steps = [fill_step(self.key, common, span)] if params.prefill else []
        if params.trace_id is not None:
            steps.append(self._trace_step(params, params.trace_id, common, drive))
        else:
            steps.append(self._profile_step(params, common, span, drive))
        return steps

    def _trace_step(
        self, params: TraceReplayParams, trace_id: int, common: dict[str, Any], drive: DriveContext
    ) -> StepSpec:
        for name in ("rwmixread", "bssplit", "percentage_random"):
            if getattr(params, name) is not None:
                raise invalid(name, "applies to profile custom only, not to a trace")
        trace_file = f"trace-{trace_id}.iolog"
        iodepth = params.iodepth or TRACE_IODEPTH
        job = {
            "read_iolog": trace_file,
            "replay_redirect": drive.target_path,
            "replay_no_stall": True,
            "replay_align": 4096,
            "iodepth": iodepth,
            "runtime": params.runtime_s,
            **INCOMPRESSIBLE,
        }
        return fio_step(
            self.key,
            common,
            f"trace-{trace_id}",
            f"replay trace {trace_id} as fast as possible, up to QD{iodepth}",
            job,
            role="trace-replay",
            estimate_s=float(params.runtime_s or TRACE_ESTIMATE_S),
            extra={"trace_id": trace_id, "trace_file": trace_file},
        )

    def _profile_step(
        self, params: TraceReplayParams, common: dict[str, Any], span: int, drive: DriveContext
    ) -> StepSpec:
        name = params.profile or "custom"
        if name == "custom":
            missing = [f for f in CUSTOM_FIELDS if getattr(params, f) is None]
            if missing:
                raise invalid(missing[0], f"profile custom needs {', '.join(missing)}")
            profile = Profile(
                rwmixread=params.rwmixread or 0,
                bssplit=params.bssplit or "",
                percentage_random=params.percentage_random or 0,
                iodepth=params.iodepth or 1,
            )
        else:
            for field in CUSTOM_FIELDS:
                if getattr(params, field) is not None:
                    raise invalid(
                        field, f"applies to profile custom only: the {name} profile fixes it"
                    )
            profile = PROFILES[name]
        check_bssplit(profile.bssplit, drive, span)
        runtime = params.runtime_s or PROFILE_RUNTIME_S
        job = {
            "rw": "randrw",
            "rwmixread": profile.rwmixread,
            "bssplit": profile.bssplit,
            "percentage_random": profile.percentage_random,
            "iodepth": profile.iodepth,
            "offset": 0,
            "size": format_size(span),
            "norandommap": True,
            "time_based": True,
            "runtime": runtime,
            **INCOMPRESSIBLE,
        }
        return fio_step(
            self.key,
            common,
            f"profile-{name}",
            f"{name} desktop profile: {profile.rwmixread}% reads, "
            f"{profile.percentage_random}% random, QD{profile.iodepth}, {runtime} s",
            job,
            role="trace-profile",
            extra={"profile": name},
        )
