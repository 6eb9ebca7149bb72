"""SNIA PTS demand-intensity tests and the composite workloads (backend/plans/pts_common.py has
what the PTS plans share).

DIRTH, Demand Intensity / Response Time Histogram (SNIA PTS Enterprise 1.1 and PTS 2.0's
Enterprise test "DIRTH"; the specification's section numbers could not be checked here):

    purge; write cache per profile; workload-dependent preconditioning: the test stimulus's
    block size as 100% random writes at TC32/QD32, in rounds to steady state; then rounds of
    the demand-variation sweep: a pre-write (100% random writes at TC32/QD32) followed by the
    test stimulus at every Thread Count x Queue Depth (TC 32, 16, 8, 6, 4, 2, 1 x QD 32, 16,
    8, 6, 4, 2, 1: the total outstanding I/O, TOC = TC x QD, from high to low), until the
    IOPS at the largest TOC are steady (5-round window, at most 25 rounds); then a dedicated
    run of the test stimulus at each of the maximum, middle and minimum IOPS points' TC x QD
    (`point_s`, 10 minutes as the specification has it); write cache put back.

Reported (backend.analysis.pts.demand_intensity, from the measurement window's table): the
demand-intensity curve (IOPS against TOC), IOPS against average response time (ART, the "hockey
stick"), the maximum IOPS point (the highest IOPS whose ART is within the ceiling, 5 ms by
default), the minimum IOPS point (TC1/QD1, the smallest TOC) and the middle point (the IOPS
closest to halfway between them), and the response-time histograms at those three points,
from fio's json+ output of the dedicated run at each (backend.pts.derive.derive_points).

What the specification's text could not be confirmed for here, kept as parameters: the test
stimulus (the public PTS implementation read here defaults to random 8 KiB at 65/35 R/W, "OLTP";
the specification leaves it to the test operator), the 5 ms ART ceiling for the maximum IOPS
point, and the pre-write's length (5 minutes). The three points are chosen after the sweep by
the api, from the sweep's stored rounds with the code the report uses (so a resumed run runs
the same points); the point-runs step's job file is the stimulus at the sweep's largest TC x QD,
which the worker sets to each point's (backend.plans.base.with_point). What drivelab does not do
of the specification's account here: pre-writes before the point runs (public implementations
run 60 minutes of them); the drive comes to them straight from the sweep's last round. Runs
made before the point runs existed have histograms of those points' elements over the sweep's
measurement window; their report says so.

CBW, Composite Block size Workload, and ECW, Enterprise Composite Workload (SNIA PTS Enterprise
1.1's "ECW" test and PTS 2.0's composite block size workload; section numbers not checked here):
random I/O whose block sizes follow the JEDEC JESD219 enterprise distribution (0.5 KiB 4%, 1,
1.5, 2, 2.5, 3, 3.5 KiB 1% each, 4 KiB 67%, 8 KiB 10%, 16 KiB 7%, 32 KiB 3%, 64 KiB 3%), 40/60
R/W, over three access ranges (50% of the accesses to the first 5% of the ActiveRange, 30% to
the next 15%, 20% to the remaining 80%): fio `bssplit`, `rwmixread` and
`random_distribution=zoned`. CBW runs it in rounds to steady state at the profile's TC/QD (IOPS,
MB/s and response times of the window); ECW sweeps it over TC x QD like DIRTH (its
demand-intensity curve and histograms). The numbers above are those of JESD219 and of public PTS
implementations; the PTS text itself could not be read here, so every one of them is a
parameter."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from backend.core.errors import InvalidParams
from backend.plans.base import (
    DriveContext,
    Plan,
    StepSpec,
    fio_job_sections,
    format_size,
    human_bytes,
)
from backend.plans.common import INCOMPRESSIBLE, MiB, purge_step, with_notes
from backend.plans.pts_common import (
    BS_BYTES,
    BS_LABELS,
    BlockSize,
    PtsParams,
    active_range,
    iodepth_field,
    precondition_step,
    pts_common,
    rounds_step,
    threads_field,
    threads_qd,
    unique,
    write_cache_steps,
)

# TC and QD of the demand-variation sweep, from high to low (PTS-E: 32, 16, 8, 6, 4, 2, 1).
LEVELS = (32, 16, 8, 6, 4, 2, 1)
# JEDEC JESD219 enterprise block-size distribution and access ranges.
COMPOSITE_BSSPLIT = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"
COMPOSITE_ZONES = "50/5:30/15:20/80"
COMPOSITE_READ_PCT = 40
PREWRITE = "prewrite"
# The dedicated runs at the three IOPS points (PTS: 10 minutes each), and their step's role.
POINT_S = 600
POINTS_ROLE = "pts-di-points"
SIZE_RE = re.compile(r"^(\d+)([kKmM]?)$")
Level = Annotated[int, Field(ge=1, le=256)]


def _bytes(size: str) -> int:
    m = SIZE_RE.match(size)
    if not m:
        raise ValueError(size)
    unit = {"": 1, "k": 1024, "m": MiB}[m.group(2).lower()]
    return int(m.group(1)) * unit


def parse_bssplit(text: str) -> list[tuple[str, int]]:
    """`bs/pct:bs/pct...` (fio's bssplit) as [(bs, pct)], checked: sizes in bytes or k/m, whole
    percentages adding up to 100."""
    out: list[tuple[str, int]] = []
    for part in text.split(":"):
        bs, _, pct = part.partition("/")
        if not SIZE_RE.match(bs) or not pct.isdigit() or _bytes(bs) == 0:
            raise InvalidParams(
                f"bssplit: {part!r} is not SIZE/PERCENT (e.g. 4k/67)", field="params.bssplit"
            )
        out.append((bs, int(pct)))
    if sum(p for _, p in out) != 100:
        raise InvalidParams(
            f"bssplit: the shares add up to {sum(p for _, p in out)}%, not 100%",
            field="params.bssplit",
        )
    return out


def parse_zones(text: str) -> list[tuple[int, int]]:
    """`access/range:...` (fio's zoned distribution) as [(access %, range %)], each column
    adding up to 100."""
    out: list[tuple[int, int]] = []
    for part in text.split(":"):
        a, _, r = part.partition("/")
        if not (a.isdigit() and r.isdigit()) or int(r) == 0:
            raise InvalidParams(
                f"zones: {part!r} is not ACCESS%/RANGE% (e.g. 50/5)", field="params.zones"
            )
        out.append((int(a), int(r)))
    for k, what in ((0, "accesses"), (1, "ranges")):
        total = sum(z[k] for z in out)
        if total != 100:
            raise InvalidParams(
                f"zones: the {what} add up to {total}%, not 100%", field="params.zones"
            )
    return out


def stimulus_label(w: dict[str, Any]) -> str:
    mix = f"{w['read_pct']}/{100 - w['read_pct']} R/W"
    if "bssplit" in w:
        return f"composite block sizes, {mix}, access ranges {w['zones']}"
    return f"random {BS_LABELS.get(w['bs'], w['bs'])}, {mix}"


def stimulus_job(
    w: dict[str, Any], *, active: int, tc: int, qd: int, seconds: int, read_pct: int
) -> dict[str, Any]:
    """A stonewalled random-access section of the stimulus `w` (its block size or bssplit and
    access ranges) at `read_pct`% reads."""
    rw: dict[str, Any]
    if read_pct == 100:
        rw = {"rw": "randread"}
    elif read_pct == 0:
        rw = {"rw": "randwrite"}
    else:
        rw = {"rw": "randrw", "rwmixread": read_pct}
    sizes: dict[str, Any] = (
        {"bssplit": w["bssplit"], "random_distribution": f"zoned:{w['zones']}"}
        if "bssplit" in w
        else {"bs": w["bs"]}
    )
    return {
        "stonewall": True,
        "numjobs": tc,
        **rw,
        **sizes,
        "iodepth": qd,
        "offset": 0,
        "size": format_size(active),
        "norandommap": True,
        "randrepeat": False,
        "time_based": True,
        "runtime": seconds,
        **INCOMPRESSIBLE,
    }


def element_info(name: str, label: str, w: dict[str, Any], read_pct: int, **extra: Any) -> dict:
    return {
        "name": name,
        "label": label,
        "bs": w.get("bs", "composite"),
        "bs_bytes": BS_BYTES.get(w.get("bs", ""), 0),
        "mix": f"{read_pct}/{100 - read_pct}",
        "read_pct": read_pct,
        "access": "random",
        **extra,
    }


def check_sizes(w: dict[str, Any], drive: DriveContext) -> None:
    """A fixed block size below the drive's logical sector is refused (direct I/O cannot use
    it); a composite's are folded into its smallest usable size (fit_bssplit)."""
    if "bssplit" in w:
        return
    if BS_BYTES[w["bs"]] < drive.logical_sector:
        raise InvalidParams(
            f"block_size: {BS_LABELS[w['bs']]} is below the drive's {drive.logical_sector}-byte "
            "logical sector: direct I/O cannot use it",
            field="params.block_size",
        )


def fit_bssplit(text: str, drive: DriveContext) -> tuple[str, list[str]]:
    """The bssplit the drive can take with direct I/O, and notes on what changed: sizes below
    its logical sector (0.5 to 3.5 KiB on a 4Kn drive) are left out and their share goes to the
    smallest size it takes, so the mix keeps its proportion of small I/O."""
    shares = parse_bssplit(text)
    kept = [(bs, p) for bs, p in shares if _bytes(bs) >= drive.logical_sector]
    if not kept:
        raise InvalidParams(
            f"bssplit: every size is below the drive's {drive.logical_sector}-byte logical sector",
            field="params.bssplit",
        )
    dropped = [(bs, p) for bs, p in shares if _bytes(bs) < drive.logical_sector]
    if not dropped:
        return text, []
    smallest = min(kept, key=lambda x: _bytes(x[0]))[0]
    moved = sum(p for _, p in dropped)
    out = [(bs, p + moved if bs == smallest else p) for bs, p in kept]
    note = (
        f"{', '.join(bs for bs, _ in dropped)} ({moved}% of the I/Os) left out: below the "
        f"drive's {drive.logical_sector}-byte logical sector; their share goes to {smallest}"
    )
    return ":".join(f"{bs}/{p}" for bs, p in out if p > 0), [note]


class DiParams(PtsParams):
    """A demand-intensity sweep (DIRTH, ECW)."""

    element_s: int = Field(
        60, ge=1, le=600, description="Seconds of each TC/QD point in a round (PTS: 1 minute)."
    )
    max_rounds: int = Field(
        25, ge=5, le=25, description="Most rounds before giving up on steady state (PTS: 25)."
    )
    thread_counts: list[Level] = Field(
        default_factory=lambda: list(LEVELS),
        description="Thread counts (TC) of the sweep (PTS: 32, 16, 8, 6, 4, 2, 1).",
    )
    queue_depths: list[Level] = Field(
        default_factory=lambda: list(LEVELS),
        description="Queue depths per thread (QD) of the sweep (PTS: 32, 16, 8, 6, 4, 2, 1).",
    )
    pc_threads: int = Field(
        32, ge=1, le=256, description="Threads of the preconditioning and pre-writes (PTS: 32)."
    )
    pc_iodepth: int = Field(
        32, ge=1, le=256, description="Queue depth of the preconditioning and pre-writes (PTS: 32)."
    )
    pc_max_rounds: int = Field(
        25, ge=5, le=25, description="Most preconditioning rounds before going on (PTS: 25)."
    )
    prewrite_s: int = Field(
        300,
        ge=0,
        le=3600,
        description="Seconds of 100% random writes at the preconditioning TC/QD before each "
        "sweep round (5 minutes in public PTS implementations; 0: none).",
    )
    art_ceiling_ms: float = Field(
        5.0,
        gt=0,
        le=10_000,
        description="The maximum IOPS point is the highest IOPS whose average response time is "
        "within this (5 ms in public PTS implementations).",
    )
    point_s: int = Field(
        POINT_S,
        ge=1,
        le=3600,
        description="Seconds of the dedicated run at each of the maximum, middle and minimum "
        "IOPS points after the sweep, whose response-time histograms the report shows "
        "(PTS: 10 minutes).",
    )


class PtsDirthParams(DiParams):
    block_size: BlockSize = Field(
        "8k", description="Block size of the test stimulus (operator's choice; OLTP: 8 KiB)."
    )
    read_pct: int = Field(
        65, ge=0, le=100, description="Reads in % of the test stimulus (OLTP: 65/35 R/W)."
    )


def composite_fields() -> dict[str, Any]:
    return {
        "bssplit": Field(
            COMPOSITE_BSSPLIT,
            max_length=400,
            description="Block-size distribution, fio bssplit SIZE/PERCENT:... (JESD219 "
            "enterprise: 0.5 KiB 4%, 1-3.5 KiB 1% each, 4 KiB 67%, 8 KiB 10%, 16 KiB 7%, "
            "32 and 64 KiB 3% each).",
        ),
        "zones": Field(
            COMPOSITE_ZONES,
            max_length=200,
            description="Access ranges, ACCESS%/RANGE%:... from LBA 0 (50% of accesses to "
            "the first 5%, 30% to the next 15%, 20% to the remaining 80%).",
        ),
        "read_pct": Field(
            COMPOSITE_READ_PCT, ge=0, le=100, description="Reads in % (composite: 40/60 R/W)."
        ),
    }


_cf = composite_fields()


class PtsEcwParams(DiParams):
    bssplit: str = _cf["bssplit"]
    zones: str = _cf["zones"]
    read_pct: int = _cf["read_pct"]


class PtsCbwParams(PtsParams):
    bssplit: str = _cf["bssplit"]
    zones: str = _cf["zones"]
    read_pct: int = _cf["read_pct"]
    element_s: int = Field(60, ge=1, le=600, description="Seconds of a round (PTS: 1 minute).")
    max_rounds: int = Field(
        25, ge=5, le=25, description="Most rounds before giving up on steady state (PTS: 25)."
    )
    precondition_loops: int = Field(
        2,
        ge=1,
        le=4,
        description="Workload-independent preconditioning: sequential 128K passes over the "
        "tested capacity (PTS: 2).",
    )
    threads: int | None = threads_field()
    iodepth: int | None = iodepth_field()


def toc_name(tc: int, qd: int) -> str:
    return f"tc{tc}-qd{qd}"


def di_steps(
    plan_key: str, params: DiParams, drive: DriveContext, w: dict[str, Any], title: str
) -> list[StepSpec]:
    """Purge, write cache, preconditioning rounds (100% writes of the stimulus's sizes at the
    preconditioning TC/QD), the demand-variation rounds (pre-write, then every TC x QD from
    the largest TOC down), the dedicated runs at the three IOPS points, write cache put
    back."""
    check_sizes(w, drive)
    tcs = sorted(unique([str(t) for t in params.thread_counts], "thread_counts"), key=int)
    qds = sorted(unique([str(q) for q in params.queue_depths], "queue_depths"), key=int)
    tcs_i = [int(t) for t in reversed(tcs)]
    qds_i = [int(q) for q in reversed(qds)]
    span, active, pct = active_range(params, drive)
    common = pts_common(params, drive)
    pc_tc, pc_qd = params.pc_threads, params.pc_iodepth
    read = int(w["read_pct"])
    stim = stimulus_label(w)
    write_only = {**w, "read_pct": 0}
    pc_label = f"{stimulus_label(write_only)}, TC{pc_tc} QD{pc_qd}"
    extra = {"profile": params.profile, "active_range_pct": pct, "stimulus": stim}
    pc = {
        "info": element_info(PREWRITE, f"preconditioning: {pc_label}", w, 0),
        "job": stimulus_job(
            w, active=active, tc=pc_tc, qd=pc_qd, seconds=params.element_s, read_pct=0
        ),
    }
    elements: list[dict] = []
    if params.prewrite_s > 0:
        elements.append(
            {
                "info": element_info(PREWRITE, f"pre-write: {pc_label}", w, 0, role="prewrite"),
                "job": stimulus_job(
                    w, active=active, tc=pc_tc, qd=pc_qd, seconds=params.prewrite_s, read_pct=0
                ),
            }
        )
    for tc in tcs_i:
        for qd in qds_i:
            elements.append(
                {
                    "info": element_info(
                        toc_name(tc, qd),
                        f"TC{tc} QD{qd} (TOC {tc * qd})",
                        w,
                        read,
                        tc=tc,
                        qd=qd,
                        toc=tc * qd,
                    ),
                    "job": stimulus_job(
                        w, active=active, tc=tc, qd=qd, seconds=params.element_s, read_pct=read
                    ),
                }
            )
    tracked = toc_name(tcs_i[0], qds_i[0])
    cache, restore = write_cache_steps(params.profile)
    precondition = rounds_step(
        plan_key,
        common,
        [pc],
        name="precondition-rounds",
        label=f"workload-dependent preconditioning to steady state: {pc_label} over "
        f"{human_bytes(active)} ({pct}% ActiveRange)",
        track={
            "element": PREWRITE,
            "metric": "write_iops",
            "label": "preconditioning write IOPS",
            "unit": "IOPS",
        },
        element_s=params.element_s,
        max_rounds=params.pc_max_rounds,
        active=active,
        extra={**extra, "threads": pc_tc, "iodepth": pc_qd},
    )
    sweep = rounds_step(
        plan_key,
        common,
        elements,
        name="rounds",
        label=f"{title} demand variation: {stim}, TC {'/'.join(map(str, tcs_i))} x QD "
        f"{'/'.join(map(str, qds_i))} over {human_bytes(active)} ({pct}% ActiveRange)",
        track={
            "element": tracked,
            "metric": "iops",
            "label": f"IOPS at TC{tcs_i[0]} QD{qds_i[0]}",
            "unit": "IOPS",
        },
        element_s=params.element_s,
        max_rounds=params.max_rounds,
        active=active,
        extra={
            **extra,
            "threads": tcs_i[0],
            "iodepth": qds_i[0],
            "di": True,
            "art_ceiling_us": params.art_ceiling_ms * 1000.0,
            "thread_counts": tcs_i,
            "queue_depths": qds_i,
            "prewrite_s": params.prewrite_s,
            "point_s": params.point_s,
        },
    )
    # The round's length is the sweep's points plus the pre-write.
    sweep.estimate_s = float(
        params.max_rounds * (params.element_s * len(tcs_i) * len(qds_i) + params.prewrite_s)
    )
    sweep.params["round_s"] = params.element_s * len(tcs_i) * len(qds_i) + params.prewrite_s
    points = points_step(plan_key, common, w, params.point_s, active, (tcs_i[0], qds_i[0]))
    points.params.update(extra)
    del span
    return [purge_step(), cache, precondition, sweep, points, restore]


def points_step(
    plan_key: str,
    common: dict[str, Any],
    w: dict[str, Any],
    seconds: int,
    active: int,
    largest: tuple[int, int],
) -> StepSpec:
    """The dedicated runs at the maximum, middle and minimum IOPS points after the sweep (the
    PTS takes the response-time histograms from these, not from the sweep): one fio run of
    the test stimulus per distinct point, `seconds` long, each posted as a round of the step.

    The points are the report's, which the api finds in the sweep's stored rounds when the
    step starts (a resumed run gets the same ones), so the job file here is the stimulus at
    the sweep's largest TC x QD: the worker names its section after each point and sets its
    numjobs and iodepth (backend.plans.base.with_point); nothing else changes."""
    tc, qd = largest
    stim = stimulus_label(w)
    label = (
        f"dedicated runs at the maximum, middle and minimum IOPS points: {stim}, {seconds} s "
        "at each point's TC x QD"
    )
    job = stimulus_job(w, active=active, tc=tc, qd=qd, seconds=seconds, read_pct=w["read_pct"])
    return StepSpec(
        kind="fio-points",
        name="point-runs",
        # At most three runs: points that coincide (a sweep of few points) run once.
        estimate_s=float(3 * seconds),
        params={
            "label": label,
            "role": POINTS_ROLE,
            "test": plan_key,
            "sweep": "rounds",
            "point_s": seconds,
            "span_bytes": active,
        },
        job_file=fio_job_sections(
            f"{plan_key} / {label} (the job file of one point; the worker sets the section's "
            "name, numjobs and iodepth to each point's)",
            common,
            [(toc_name(tc, qd), job)],
        ),
    )


class PtsDirth(Plan):
    key = "pts-dirth"
    title = "SNIA PTS demand intensity / response time histogram (DIRTH)"
    description = (
        "Purge, random-write preconditioning at TC32/QD32 to steady state, then rounds of the "
        "TC x QD sweep (1 to 32 each, high to low) of the test stimulus (random 8 KiB 65/35 by "
        "default) to steady state at the largest TOC. Reports the demand-intensity curve (IOPS "
        "against total outstanding I/O), IOPS against average response time, and response-time "
        "histograms at the maximum, middle and minimum IOPS points, each from a dedicated run "
        "at that point after the sweep (10 minutes by default)."
    )
    destructive = True
    Params = PtsDirthParams

    def compile(self, params: PtsDirthParams, drive: DriveContext) -> list[StepSpec]:
        w = {"bs": params.block_size, "read_pct": params.read_pct}
        return di_steps(self.key, params, drive, w, "DIRTH")


class PtsEcw(Plan):
    key = "pts-ecw"
    title = "SNIA PTS enterprise composite workload (ECW): demand intensity of mixed block sizes"
    description = (
        "The composite workload (JESD219 block sizes 0.5 to 64 KiB, 40/60 R/W, 50% of accesses "
        "to the first 5% of the range, 30% to the next 15%, 20% to the rest) swept over TC x QD "
        "like DIRTH, after random-write preconditioning to steady state. Reports its "
        "demand-intensity curve, IOPS against response time and the histograms at the maximum, "
        "middle and minimum IOPS points, from a dedicated run at each after the sweep."
    )
    destructive = True
    Params = PtsEcwParams

    def notes(self, params: PtsEcwParams, drive: DriveContext) -> list[str]:
        return fit_bssplit(params.bssplit, drive)[1]

    def compile(self, params: PtsEcwParams, drive: DriveContext) -> list[StepSpec]:
        bssplit, notes = fit_bssplit(params.bssplit, drive)
        parse_zones(params.zones)
        w = {"bssplit": bssplit, "zones": params.zones, "read_pct": params.read_pct}
        return with_notes(di_steps(self.key, params, drive, w, "ECW"), notes)


class PtsCbw(Plan):
    key = "pts-cbw"
    title = "SNIA PTS composite block size workload (CBW) to steady state"
    description = (
        "Purge, 2x sequential preconditioning, then rounds of the composite workload (JESD219 "
        "block sizes 0.5 to 64 KiB, 40/60 R/W, access ranges 50/5, 30/15, 20/80) at the "
        "profile's TC/QD until its IOPS are steady. Reports the window's IOPS, MB/s and "
        "average, maximum and 99.99th percentile response times."
    )
    destructive = True
    Params = PtsCbwParams

    def notes(self, params: PtsCbwParams, drive: DriveContext) -> list[str]:
        return fit_bssplit(params.bssplit, drive)[1]

    def compile(self, params: PtsCbwParams, drive: DriveContext) -> list[StepSpec]:
        bssplit, notes = fit_bssplit(params.bssplit, drive)
        parse_zones(params.zones)
        w = {"bssplit": bssplit, "zones": params.zones, "read_pct": params.read_pct}
        span, active, pct = active_range(params, drive)
        tc, qd = threads_qd(params)
        common = pts_common(params, drive)
        stim = stimulus_label(w)
        element = {
            "info": element_info("cbw", f"{stim}, TC{tc} QD{qd}", w, params.read_pct),
            "job": stimulus_job(
                w, active=active, tc=tc, qd=qd, seconds=params.element_s, read_pct=params.read_pct
            ),
        }
        cache, restore = write_cache_steps(params.profile)
        rounds = rounds_step(
            self.key,
            common,
            [element],
            name="rounds",
            label=f"CBW rounds: {stim}, TC{tc} QD{qd} over {human_bytes(active)} "
            f"({pct}% ActiveRange)",
            track={"element": "cbw", "metric": "iops", "label": "composite IOPS", "unit": "IOPS"},
            element_s=params.element_s,
            max_rounds=params.max_rounds,
            active=active,
            extra={
                "profile": params.profile,
                "threads": tc,
                "iodepth": qd,
                "active_range_pct": pct,
                "stimulus": stim,
            },
        )
        steps = [
            purge_step(),
            cache,
            precondition_step(self.key, common, span, params.precondition_loops),
            rounds,
            restore,
        ]
        return with_notes(steps, notes)
