"""What the SNIA PTS plans share (SNIA PTS v2.0.x): the Enterprise and Client profiles, the
test's elements as stonewalled fio sections, preconditioning, rounds to steady state and the
write-cache setting.

- Purge, then (where the test calls for it) workload-independent preconditioning: 128 KiB
  sequential writes of twice the tested capacity.
- Workload-dependent preconditioning and measurement in rounds: one round runs every element
  of the test once, as ONE fio run of a job file with a stonewalled section per element. Each
  section is a job of its own in fio's final JSON (its threads are jobs of its name), so every
  element's figures are its own (backend.analysis.pts), the round has one status stream and
  one output, and the elements follow each other without a new fio start-up in between.
- Steady state over the last 5 rounds of the tracking variable: range within 20% of their
  average and the least-squares slope across the window within 10% of it; at most 25 rounds.
  The measurement window is those 5 rounds.
- Profiles: Enterprise disables the drive's volatile write cache where the drive allows it and
  tests 100% of the tested capacity (ActiveRange); Client keeps the write cache on and tests
  the first 75%. The setting the drive had is put back at the end of the run.
- Thread count (TC, fio's `numjobs` in each section) and queue depth per thread (QD): the
  defaults below, parameters otherwise. Sequential elements with several threads give each
  thread its own 1/TC of the range (`offset_increment`), so every thread streams.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from backend.core.errors import InvalidParams
from backend.plans.base import (
    DriveContext,
    StepSpec,
    fio_job_sections,
    format_size,
    human_bytes,
)
from backend.plans.common import (
    INCOMPRESSIBLE,
    FioParams,
    MiB,
    common_options,
    fio_step,
    purge_step,
    span_field,
    tested_span,
)

WINDOW = 5
EXCURSION_PCT = 20
SLOPE_PCT = 10
MAX_ROUNDS = 25
WRITE_CACHE_ESTIMATE_S = 2.0

Profile = Literal["enterprise", "client"]
# Read/write mixes (read % / write %) and block sizes, in the specification's order.
Mix = Literal["100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100"]
MIXES: tuple[Mix, ...] = ("100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100")
BlockSize = Literal["1m", "128k", "64k", "32k", "16k", "8k", "4k", "512"]
IOPS_BLOCK_SIZES: tuple[BlockSize, ...] = ("1m", "128k", "64k", "32k", "16k", "8k", "4k", "512")

ACTIVE_RANGE_PCT = {"enterprise": 100, "client": 75}
# (threads, queue depth per thread) by profile.
THREADS_QD = {"enterprise": (4, 32), "client": (2, 16)}
BS_LABELS = {
    "1m": "1024 KiB",
    "128k": "128 KiB",
    "64k": "64 KiB",
    "32k": "32 KiB",
    "16k": "16 KiB",
    "8k": "8 KiB",
    "4k": "4 KiB",
    "512": "0.5 KiB",
}
BS_BYTES = {
    k: (512 if k == "512" else int(k[:-1]) * (1024 if k[-1] == "k" else MiB)) for k in BS_LABELS
}


def profile_field() -> Any:
    return Field(
        "enterprise",
        description="Enterprise: the drive's volatile write cache disabled where it allows it, "
        "ActiveRange 100%. Client: write cache on, ActiveRange 75%.",
    )


class PtsParams(FioParams):
    """Parameters every PTS test has."""

    profile: Profile = profile_field()
    span: str | None = span_field(
        "Tested capacity (fio size from LBA 0); empty: the whole drive. The ActiveRange is a "
        "share of it."
    )
    active_range_pct: int | None = Field(
        None,
        ge=1,
        le=100,
        description="ActiveRange in % of the tested capacity, from LBA 0; empty: the "
        "profile's (Enterprise 100%, Client 75%).",
    )
    sponsor: str | None = Field(
        None,
        max_length=120,
        pattern=r"^[^\x00-\x1f\x7f]*$",
        description="Test sponsor for the report's header (the lab or the party that asked "
        "for the test).",
    )


def threads_field() -> Any:
    return Field(
        None,
        ge=1,
        le=64,
        description="Thread count (TC, fio numjobs per element); empty: Enterprise 4, Client 2.",
    )


def iodepth_field() -> Any:
    return Field(
        None,
        ge=1,
        le=256,
        description="Queue depth per thread (QD); empty: Enterprise 32, Client 16.",
    )


class PtsRoundsParams(PtsParams):
    """A PTS test in rounds to steady state."""

    element_s: int = Field(
        60, ge=1, le=600, description="Seconds of each element in a round (PTS: 1 minute)."
    )
    max_rounds: int = Field(
        MAX_ROUNDS,
        ge=WINDOW,
        le=MAX_ROUNDS,
        description=f"Most rounds before giving up on steady state (PTS: 25, at least {WINDOW}).",
    )
    precondition_loops: int = Field(
        2,
        ge=1,
        le=4,
        description="Workload-independent preconditioning: sequential 128K passes over the "
        "tested capacity (PTS: 2).",
    )


class PtsLoadParams(PtsRoundsParams):
    """A PTS test in rounds whose thread count and queue depth are the tester's choice."""

    threads: int | None = threads_field()
    iodepth: int | None = iodepth_field()


def threads_qd(params: Any) -> tuple[int, int]:
    tc, qd = THREADS_QD[params.profile]
    return (params.threads or tc, params.iodepth or qd)


def active_range(params: PtsParams, drive: DriveContext) -> tuple[int, int, int]:
    """(tested capacity, ActiveRange in bytes, ActiveRange %), both whole MiB."""
    span = tested_span(params.span, drive)
    pct = params.active_range_pct or ACTIVE_RANGE_PCT[params.profile]
    active = span * pct // 100 // MiB * MiB
    if active < MiB:
        raise InvalidParams(
            f"active_range_pct: {pct}% of {human_bytes(span)} is below 1 MiB: choose a larger "
            "span or ActiveRange",
            field="params.active_range_pct",
        )
    return span, active, pct


def mix_split(mix: str) -> tuple[int, int]:
    read, write = (int(x) for x in mix.split("/"))
    return read, write


def element_name(mix: str, bs: str) -> str:
    read, write = mix_split(mix)
    return f"r{read}w{write}-{bs}"


def element_label(mix: str, bs: str, random: bool = True) -> str:
    kind = "random" if random else "sequential"
    return f"{BS_LABELS[bs]} {kind} {mix}"


def random_element(mix: str, bs: str, *, active: int, tc: int, qd: int, seconds: int) -> dict:
    """A random-access element: its job section and its description."""
    read, _write = mix_split(mix)
    rw: dict[str, Any]
    if read == 100:
        rw = {"rw": "randread"}
    elif read == 0:
        rw = {"rw": "randwrite"}
    else:
        rw = {"rw": "randrw", "rwmixread": read}
    job = {
        "stonewall": True,
        "numjobs": tc,
        **rw,
        "bs": bs,
        "iodepth": qd,
        "offset": 0,
        "size": format_size(active),
        "norandommap": True,
        "randrepeat": False,
        "time_based": True,
        "runtime": seconds,
        **INCOMPRESSIBLE,
    }
    info = {
        "name": element_name(mix, bs),
        "label": element_label(mix, bs),
        "bs": bs,
        "bs_bytes": BS_BYTES[bs],
        "mix": mix,
        "read_pct": read,
        "access": "random",
    }
    return {"info": info, "job": job}


def sequential_element(
    direction: str, bs: str, *, active: int, tc: int, qd: int, seconds: int
) -> dict:
    """A sequential 100% read or 100% write element; with several threads each streams over
    its own 1/TC of the ActiveRange."""
    share = active // tc // MiB * MiB
    if share < MiB:
        raise InvalidParams(
            f"threads: {tc} threads leave less than 1 MiB of the ActiveRange "
            f"({human_bytes(active)}) to each: choose fewer threads or a larger span",
            field="params.threads",
        )
    job: dict[str, Any] = {
        "stonewall": True,
        "numjobs": tc,
        "rw": "read" if direction == "read" else "write",
        "bs": bs,
        "iodepth": qd,
        "offset": 0,
        "size": format_size(share),
    }
    if tc > 1:
        job["offset_increment"] = format_size(share)
    job.update({"time_based": True, "runtime": seconds, **INCOMPRESSIBLE})
    mix = "100/0" if direction == "read" else "0/100"
    info = {
        "name": f"seq-{direction}-{bs}",
        "label": element_label(mix, bs, random=False),
        "bs": bs,
        "bs_bytes": BS_BYTES.get(bs, 0),
        "mix": mix,
        "read_pct": 100 if direction == "read" else 0,
        "access": "sequential",
    }
    return {"info": info, "job": job}


def precondition_step(
    plan_key: str, common: dict[str, Any], span: int, loops: int, name: str = "precondition"
) -> StepSpec:
    """Workload-independent preconditioning: 128K sequential writes of `loops` x the tested
    capacity, QD32."""
    return fio_step(
        plan_key,
        common,
        name,
        f"workload-independent preconditioning: 128K sequential write of {loops}x "
        f"{human_bytes(span)}, QD32",
        {
            "rw": "write",
            "bs": "128k",
            "iodepth": 32,
            "offset": 0,
            "size": format_size(span),
            "loops": loops,
            **INCOMPRESSIBLE,
        },
        role="precondition",
        span=span,
    )


def write_cache_steps(profile: str) -> tuple[StepSpec, StepSpec]:
    """Set the drive's volatile write cache for the profile; put back what it was."""
    enabled = profile == "client"
    state = "enable" if enabled else "disable"
    first = StepSpec(
        kind="write-cache",
        name="write-cache",
        estimate_s=WRITE_CACHE_ESTIMATE_S,
        params={
            "label": f"{state} the drive's volatile write cache ({profile.title()} profile), "
            "where the drive allows it",
            "enabled": enabled,
        },
    )
    restore = StepSpec(
        kind="write-cache",
        name="write-cache-restore",
        estimate_s=WRITE_CACHE_ESTIMATE_S,
        params={"label": "put the drive's write cache setting back", "restore": True},
    )
    return first, restore


def rounds_step(
    plan_key: str,
    common: dict[str, Any],
    elements: list[dict],
    *,
    name: str,
    label: str,
    track: dict[str, str],
    element_s: int,
    max_rounds: int,
    active: int,
    stop_at_steady: bool = True,
    wait_s: float = 0.0,
    role: str = "pts-rounds",
    extra: dict[str, Any] | None = None,
) -> StepSpec:
    """Rounds of every element until steady state (or the limit): one fio run per round.

    `track`: {"element": name, "metric": e.g. "write_iops", "label", "unit"}: the tracking
    variable. `wait_s`: idle seconds after each round (host idle recovery's wait states)."""
    names = [e["info"]["name"] for e in elements]
    if track["element"] not in names:
        raise ValueError(f"tracked element {track['element']} is not among {names}")
    round_s = element_s * len(elements)
    job_file = fio_job_sections(
        f"{plan_key} / {label} (one round: {len(elements)} element"
        f"{'s' if len(elements) > 1 else ''}, {element_s} s each)",
        common,
        [(e["info"]["name"], e["job"]) for e in elements],
    )
    return StepSpec(
        kind="fio-rounds",
        name=name,
        estimate_s=float(max_rounds * (round_s + wait_s)),
        params={
            "label": label,
            "role": role,
            "test": plan_key,
            "elements": [e["info"] for e in elements],
            "track": track,
            "metric": track["metric"],
            "element_s": element_s,
            "round_s": round_s,
            "max_rounds": max_rounds,
            "window": WINDOW,
            "excursion_pct": EXCURSION_PCT,
            "slope_pct": SLOPE_PCT,
            "stop_at_steady": stop_at_steady,
            "wait_s": wait_s,
            "randseed_per_round": True,
            "span_bytes": active,
            **(extra or {}),
        },
        job_file=job_file,
    )


def pts_common(params: Any, drive: DriveContext) -> dict[str, Any]:
    return common_options(drive, params.ioengine, params.randseed)


def skip_small_blocks(block_sizes: list[str], drive: DriveContext) -> tuple[list[str], list[str]]:
    """(the block sizes the drive can take with direct I/O, notes on those left out)."""
    kept = [bs for bs in block_sizes if BS_BYTES[bs] >= drive.logical_sector]
    notes = [
        f"{BS_LABELS[bs]} left out: below the drive's {drive.logical_sector}-byte logical sector"
        for bs in block_sizes
        if bs not in kept
    ]
    return kept, notes


def unique(values: list[str], field: str) -> list[str]:
    if len(set(values)) != len(values):
        raise InvalidParams(f"{field}: a value is listed twice", field=f"params.{field}")
    if not values:
        raise InvalidParams(f"{field}: list at least one", field=f"params.{field}")
    return values


def matrix_test(
    plan_key: str,
    params: Any,
    drive: DriveContext,
    *,
    mix_order: tuple[str, ...],
    size_order: tuple[str, ...],
    tc: int,
    qd: int,
    title: str,
    track: dict[str, str],
) -> list[StepSpec]:
    """A test of random elements, block sizes x read/write mixes (IOPS, latency): purge, write
    cache, workload-independent preconditioning, rounds to steady state on the 4 KiB 100%
    write element, write cache put back. Mixes outer and block sizes inner, in the
    specification's order whatever order the parameters list them in; sizes below the drive's
    logical sector are left out (the plan's notes say so)."""
    mixes = unique(list(params.mixes), "mixes")
    sizes = unique(list(params.block_sizes), "block_sizes")
    for field, values, needed in (("mixes", mixes, "0/100"), ("block_sizes", sizes, "4k")):
        if needed not in values:
            raise InvalidParams(
                f"{field}: include {needed}: the 4 KiB 100% write element is the one tracked "
                "to steady state",
                field=f"params.{field}",
            )
    sizes, _notes = skip_small_blocks(sizes, drive)
    mixes = [m for m in mix_order if m in mixes]
    sizes = [b for b in size_order if b in sizes]
    span, active, pct = active_range(params, drive)
    common = pts_common(params, drive)
    elements = [
        random_element(m, b, active=active, tc=tc, qd=qd, seconds=params.element_s)
        for m in mixes
        for b in sizes
    ]
    cache, restore = write_cache_steps(params.profile)
    rounds = rounds_step(
        plan_key,
        common,
        elements,
        name="rounds",
        label=f"{title} rounds: {len(sizes)} block sizes x {len(mixes)} mixes, random, "
        f"TC{tc} QD{qd} over {human_bytes(active)} ({pct}% ActiveRange)",
        track={"element": element_name("0/100", "4k"), **track},
        element_s=params.element_s,
        max_rounds=params.max_rounds,
        active=active,
        extra={
            "profile": params.profile,
            "threads": tc,
            "iodepth": qd,
            "active_range_pct": pct,
            "mixes": mixes,
            "block_sizes": sizes,
        },
    )
    return [
        purge_step(),
        cache,
        precondition_step(plan_key, common, span, params.precondition_loops),
        rounds,
        restore,
    ]
