from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, model_validator, with_config
from typing_extensions import TypedDict

RunStatus = Literal["queued", "running", "done", "failed", "cancelled", "lost"]
StepStatus = Literal["pending", "running", "done", "failed", "cancelled", "skipped"]


class RepeatSpec(BaseModel):
    """Repeat the plan: `times` runs, or `until_stable` (while the relative standard deviation
    of its MB/s and IOPS figures is at or above `rsd_pct`, from `min_runs` up to `max_runs`)."""

    model_config = ConfigDict(extra="forbid")

    times: int | None = Field(None, ge=2, le=50, description="Run the plan this many times.")
    until_stable: bool = Field(False, description="Repeat until the figures are stable.")
    max_runs: int = Field(10, ge=2, le=50, description="Until stable: at most this many runs.")
    min_runs: int = Field(3, ge=2, le=50, description="Until stable: at least this many runs.")
    rsd_pct: float = Field(
        2.5,
        gt=0,
        le=100,
        description="Until stable: stop once every MB/s and IOPS figure's relative standard "
        "deviation over the runs is under this (%).",
    )

    @model_validator(mode="after")
    def _one_way(self) -> RepeatSpec:
        if (self.times is None) == (not self.until_stable):
            raise ValueError(
                "repeat takes either times (2-50) or until_stable: true, not both and not neither"
            )
        if self.until_stable and self.min_runs > self.max_runs:
            raise ValueError(
                f"repeat: min_runs {self.min_runs} is more than max_runs {self.max_runs}"
            )
        return self


class RunCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str = Field(description="Plan key, see GET /api/plans.")
    drive_id: int = Field(description="Drive sample id, see GET /api/drives.")
    params: dict[str, Any] = Field(default_factory=dict, description="Plan parameters.")
    confirm_serial: str | None = Field(
        None, description="The drive's serial, typed by the reviewer: required by plans that write."
    )
    repeat: RepeatSpec | None = Field(
        None,
        description="Queue the plan as a series of repeats (GET /api/series/{id}): each is "
        "queued when the one before finishes, ahead of the drive's other waiting runs.",
    )


class RunMove(BaseModel):
    position: int = Field(description="1 = run next on this drive.")


class ResultOut(BaseModel):
    metric: str
    name: str = Field("", description="The metric in words, e.g. '99th percentile latency'.")
    value: float
    unit: str


class ThresholdOut(BaseModel):
    name: str = Field(description="TMT1, TMT2 (host-set), WCTEMP, CCTEMP or MXTMT.")
    c: float = Field(description="The threshold, °C.")


class CounterRiseOut(BaseModel):
    name: str = Field(description="The NVMe SMART log counter, e.g. thm_temp1_trans_count.")
    by: float = Field(description="How much it rose around the step-down.")
    words: str


class HeatOut(BaseModel):
    """Whether heat explains a step-down (backend.analysis.thermal), with its evidence."""

    heat: Literal["thermal", "not thermal", "unknown"]
    basis: Literal["counters", "threshold", "peak", "cool"] | None = Field(
        description="The evidence: a throttle counter rose, the temperature was at a threshold, "
        "it peaked at the drop (the only evidence without thresholds or counters), or it was "
        "well below every threshold with no counter rising (cool)."
    )
    at_s: float = Field(description="The step-down, seconds from the step's start.")
    temp_c: float | None = Field(description="The reading nearest the step-down (within 3 s).")
    peak_c: float | None = Field(description="The temperature's peak at the drop, if it had one.")
    threshold: ThresholdOut | None = Field(description="The threshold reached, if any.")
    nearest: ThresholdOut | None = Field(
        description="The drive's lowest threshold; None when it reports none."
    )
    counters: list[CounterRiseOut] = Field(description="Throttle counters that rose there.")
    counters_read: bool = Field(description="Whether counter readings cover the step-down.")
    words: str = Field(
        description="The attribution in words, e.g. 'throttled at 78 °C after 94 s'."
    )


class StepDownOut(BaseModel):
    at_pct: float = Field(description="Position of the step-down, % of the span.")
    at_gb: float = Field(description="Position of the step-down, GB (10^9 B) written.")
    from_mbps: float = Field(description="The level before, MB/s while data moved.")
    to_mbps: float = Field(description="The level after, MB/s while data moved.")
    at_s: float | None = Field(
        None, description="When the pass reached the step-down, seconds from its start."
    )
    heat: HeatOut | None = Field(None, description="Whether heat explains the step-down.")


class LevelOut(BaseModel):
    from_pct: float
    to_pct: float
    mbps: float


class HdTachFindings(BaseModel):
    direction: Literal["read", "write"]
    step_downs: list[StepDownOut]
    levels: list[LevelOut] = Field(description="The sustained levels between the changes.")
    min_drop: float = Field(description="A step-down falls by at least this share (0.2 = 20%).")
    min_span_pct: float = Field(description="Both levels of a step-down last this % of the span.")
    method: str


class StallOut(BaseModel):
    start_s: float = Field(description="Seconds from the job's start.")
    duration_s: float


class StallsFindings(BaseModel):
    source: str = Field(description="'window log' (fio's 100 ms log) or 'status snapshots'.")
    count: int
    longest_s: float
    total_s: float
    period_s: float | None = Field(description="Median time between stall starts.")
    period_regular: bool = Field(
        description="At least 3 stalls, whose gaps are within 20% of the period (two stalls "
        "have one gap: too few to tell)."
    )
    median: float = Field(description="The reference rate, B/s: the median of the series.")
    rel_threshold: float
    min_stall_s: float
    short_count: int = Field(0, description="Stalls shorter than min_stall_s, counted apart.")
    short_total_s: float = 0.0
    unconfirmed: int = Field(
        0,
        description="Window-log stalls left out because fio's status snapshots show no time "
        "without completions there (fio's sampler ran late on a busy host).",
    )
    stalls: list[StallOut]


class DropoffFindings(BaseModel):
    dropoff_s: float | None = Field(description="When the level fell below ratio x FOB.")
    fob_iops: float | None
    after_iops: float | None
    ratio: float
    min_time_s: float
    heat: HeatOut | None = Field(None, description="Whether heat explains the drop-off.")


class CdmPass(BaseModel):
    step: str
    number: int = Field(description="The pass, from 1.")
    mbps: float = Field(description="fio's MB/s (10^6 bytes/s) of the pass, from its totals.")
    iops: float | None = None
    lat_mean_us: float | None = None


class CdmFindings(BaseModel):
    """A test of the CrystalDiskMark-style preset: its passes and the best one (its figure)."""

    test: str = Field(description="The test's step name, e.g. seq1m-q8t1-read.")
    label: str | None = Field(None, description="As readers know it: SEQ1M Q8T1.")
    direction: str
    best_pass: int
    passes: list[CdmPass]


class ThermalStepDown(BaseModel):
    at_s: float = Field(description="Seconds from the phase's start (fio's clock).")
    from_mbps: float = Field(description="The level before, MB/s while data moved.")
    to_mbps: float = Field(description="The level after, MB/s while data moved.")
    temp_c: float | None = Field(
        description="The drive's temperature in the interval of the step-down (None: no sensor)."
    )
    heat: HeatOut | None = Field(None, description="Whether heat explains the step-down.")


class ThermalLevel(BaseModel):
    start_s: float
    end_s: float
    mbps: float


class ThermalFindings(BaseModel):
    """A phase of the thermal plan (backend.results.thermal): a heat phase's throttle, peak
    and time above WCTEMP, or a cool phase's time to recover."""

    kind: Literal["heat", "cool"]
    phase: int = Field(description="The cycle, from 1.")
    stop: str = Field(description="What ended the phase: 'time' or 'temperature'.")
    duration_s: float
    start_c: float | None = Field(description="The first sample's temperature, °C.")
    end_c: float | None = None
    # heat
    direction: Literal["read", "write"] | None = None
    mean_mbps: float | None = Field(None, description="Bytes moved over the phase's time.")
    peak_c: float | None = None
    step_downs: list[ThermalStepDown] = Field(default_factory=list)
    levels: list[ThermalLevel] = Field(default_factory=list)
    first_throttle: ThermalStepDown | None = Field(
        None, description="The phase's first step-down of MB/s, None when it never stepped down."
    )
    throttled_mbps: float | None = Field(None, description="The level after the first throttle.")
    wctemp_c: float | None = Field(None, description="The controller's WCTEMP, when it has one.")
    above_wctemp_s: float | None = Field(
        None, description="Seconds at or above WCTEMP; None when unknown (above_wctemp_note)."
    )
    above_wctemp_note: str | None = None
    min_drop: float | None = None
    min_level_s: float | None = None
    method: str | None = None
    # cool
    min_c: float | None = None
    phase_start_c: float | None = Field(
        None, description="The temperature its heat phase began at, °C."
    )
    within_c: float | None = None
    target_c: float | None = Field(None, description="phase_start_c + within_c.")
    recover_s: float | None = Field(
        None,
        description="Seconds from the cool phase's start until the temperature was back at "
        "target_c; None when it did not get there.",
    )
    recovered: bool | None = None
class SlcFindings(BaseModel):
    """The SLC cache of a fill, or what of it an idle gap gave back in a refill
    (backend.analysis.slc)."""

    kind: Literal["fill", "refill"]
    span_gb: float = Field(description="The pass's span, GB (10^9 B).")
    written_gb: float = Field(description="GB the pass wrote.")
    resolution_gb: float = Field(
        description="The smallest cache a step-down can show: 2% of the pass (a level must "
        "last that long)."
    )
    cache_gb: float | None = Field(
        None, description="Fill: GB written before the first step-down (None: no step-down)."
    )
    recovered_gb: float | None = Field(
        None,
        description="Refill: GB written before its first step-down; all it wrote when it ran "
        "at cache speed throughout (at_least); 0 when it ran at the speed after the cache.",
    )
    at_least: bool = Field(False, description="The recovered cache outlasted the refill.")
    state: Literal["step-down", "whole", "none", "unknown"] | None = Field(
        None, description="Refill: how the recovered cache was found."
    )
    idle_s: int | None = Field(None, description="Refill: idle seconds before it (its idle step).")
    idle_measured_s: float | None = Field(
        None,
        description="Refill: seconds from the end of the pass before it to its start on fio's "
        "clock: the idle the drive had, its idle step and the time between steps.",
    )
    cache_mbps: float | None = Field(None, description="MB/s in the cache.")
    after_mbps: float | None = Field(None, description="MB/s after the cache ran out.")
    level_mbps: float | None = Field(
        None, description="The one level of a pass without a step-down."
    )
    note: str = Field("", description="The finding in words, with what it cannot see.")


class DemandIntensityPoint(BaseModel):
    name: str = Field(description="The element: tcN-qdM.")
    tc: int
    qd: int
    toc: int = Field(description="Total outstanding I/O, TC x QD.")
    iops: float
    art_us: float | None = Field(None, description="Average response time (fio clat), µs.")
    mrt_us: float | None = Field(None, description="Maximum response time, µs.")


class DemandIntensityFindings(BaseModel):
    """A demand-intensity sweep's result (SNIA PTS DIRTH, ECW; backend.analysis.pts): the
    maximum IOPS point (highest IOPS within the ART ceiling), the middle and minimum points,
    and where the curve reaches 95% of its highest IOPS."""

    finding: str = Field(description="The result in words, with what the method cannot see.")
    art_ceiling_us: float
    max: DemandIntensityPoint | None = None
    mid: DemandIntensityPoint | None = None
    min: DemandIntensityPoint | None = None
    saturation_toc: int | None = None
    peak_iops: float | None = None


class BurstRow(BaseModel):
    """One burst of the QD1 burst plan: fio's totals of its own run."""

    step: str
    burst: int
    iops: float
    mbps: float
    bytes: float | None = None
    runtime_s: float | None = Field(None, description="The burst's own runtime (fio's), s.")
    lat_mean_us: float | None = None
    start_epoch_s: float | None = Field(None, description="When it began, fio's clock.")
    idle_before_s: float | None = Field(
        None,
        description="Seconds from the end of the fio run before it to its start, fio's clock: "
        "the idle the drive had before the burst.",
    )


class BurstsFindings(BaseModel):
    """A test of the QD1 burst plan (backend.results.bursts): its bursts, their mean and
    spread."""

    test: str = Field(description="The test's step name, e.g. rnd4k-q1-read.")
    label: str
    direction: str
    bursts: int
    iops_mean: float
    iops_min: float
    iops_max: float
    iops_spread_pct: float = Field(description="Standard deviation over the mean, %.")
    mbps_mean: float
    mbps_min: float
    mbps_max: float
    mbps_spread_pct: float
    idle_s: int | None = Field(None, description="The idle step after each burst, s.")
    idle_min_s: float | None = Field(None, description="The shortest idle measured, s.")
    rows: list[BurstRow]
    note: str = Field("", description="The finding in words, with what it cannot see.")


class MixedPoint(BaseModel):
    """One share of writes of a mixed part: fio's totals of its step."""

    write_pct: int = Field(description="Share of writes of the step, % (fio rwmixwrite).")
    step: str | None = None
    mbps: float = Field(description="Reads and writes together, MB/s (10^6 B/s).")
    read_mbps: float
    write_mbps: float
    iops: float
    read_iops: float
    write_iops: float


class MixedFindings(BaseModel):
    """A mixed random or mixed sequential part against the share of writes
    (backend.analysis.mixed)."""

    part: Literal["random", "sequential"]
    points: list[MixedPoint]
    avg_mbps: float = Field(description="Mean MB/s over the shares (AnandTech's bar).")
    avg_iops: float
    min_mbps: float
    min_write_pct: int
    max_mbps: float
    max_write_pct: int
    note: str = Field("", description="The finding in words, with what it cannot see.")


class StandstillOut(BaseModel):
    start_s: float = Field(description="Seconds from the copy's start.")
    duration_s: float


class CopyOut(BaseModel):
    """One copy of a file copy step (backend.analysis.file_copy)."""

    phase: str = Field(description="copy-1 or copy-2.")
    t_start_ms: int = Field(description="Where the copy's phase starts on the step's clock, ms.")
    start_ms: float = Field(description="Its first write, ms after t_start_ms: the copy's 0 s.")
    bytes: float = Field(description="Bytes the copy wrote.")
    seconds: float
    mbps: float = Field(description="Average MB/s (10^6 B/s), standstills included.")
    median_mbps: float = Field(description="The median pace standstills are judged against.")
    standstills: list[StandstillOut]
    count: int
    total_s: float
    longest_s: float
    short_count: int = Field(description="Pauses shorter than min_standstill_s, counted apart.")
    short_total_s: float
    min_standstill_s: float
    rel_threshold: float = Field(description="At most this share of the median pace: stood still.")


class FileCopyFindings(BaseModel):
    """A file copy before and after deletions (PC Perspective's File Copy Test)."""

    first: CopyOut
    repeated: CopyOut = Field(description="The copy after the deletions.")
    deleted_bytes: float
    discarded_bytes: float | None = Field(
        None, description="Bytes the drive counted as discarded during the deletions."
    )
    delete_seconds: float | None = None
    copy_bytes: float
    words: list[str] = Field(description="The findings in words, with what the method sees.")


class AsSsdTest(BaseModel):
    """A row of the AS-SSD-style table: one test, read and write."""

    key: str = Field(description="The test's step name without its direction: asssd-4k-64thrd.")
    label: str = Field(description="As AS SSD's window names it: 4K-64Thrd.")
    read_mbps: float | None = Field(None, description="fio's MB/s (10^6 bytes/s), its totals.")
    write_mbps: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    read_ms: float | None = Field(None, description="fio's mean completion latency, ms.")
    write_ms: float | None = None


class AsSsdFindings(BaseModel):
    """The AS-SSD-style preset's table and scores, on its score step (backend.results.as_ssd)."""

    tests: list[AsSsdTest]
    score_read: float | None = None
    score_write: float | None = None
    score_total: float | None = None
    score_source: str = Field(description="Where the scores' weights come from.")
    words: str = Field(description="The table and scores in one line.")


class FullStateFindings(BaseModel):
    """A full-state step of plan full-drive against the same test on the empty drive
    (backend.analysis.fullstate)."""

    test: str = Field(description="The test's step name without its state (randwrite-4k-qd3).")
    direction: Literal["read", "write"]
    fill_percent: int = Field(description="The share of the drive filled for the full state.")
    empty_mbps: float = Field(description="MB/s in the first part of the empty drive.")
    full_mbps: float = Field(description="MB/s over the filled part.")
    empty_iops: float
    full_iops: float
    drop_pct: float = Field(description="(empty - full) / empty in %; negative: a rise.")
    said: str = Field(description="The finding in words: '4K random write QD3 falls 35% ...'.")
    note: str = Field("", description="What the method cannot see.")


class StepFindings(BaseModel):
    """What the analysis found in a finished step (backend.analysis), where it applies."""

    hdtach: HdTachFindings | None = None
    slc: SlcFindings | None = None
    bursts: BurstsFindings | None = None
    stalls: StallsFindings | None = None
    dropoff: DropoffFindings | None = None
    cdm: CdmFindings | None = None
    asssd: AsSsdFindings | None = None
    thermal: ThermalFindings | None = None
    mixed: MixedFindings | None = None
    file_copy: FileCopyFindings | None = None
    demand_intensity: DemandIntensityFindings | None = None
    fullstate: FullStateFindings | None = None


class StepOut(BaseModel):
    id: int
    idx: int
    kind: str
    name: str
    label: str
    params: dict[str, Any] = Field(description="The step's parameters, notes and role.")
    status: StepStatus
    progress: float
    estimate_s: float
    started_at: datetime | None
    finished_at: datetime | None
    error: str | None
    stderr: str | None = Field(
        None, description="What the step's tool (fio) wrote to stderr, its last 20,000 characters."
    )
    results: list[ResultOut]
    findings: StepFindings | None = Field(
        None, description="Step-downs, stalls and the drop-off the analysis found, with its rule."
    )


class RunSummary(BaseModel):
    id: int
    plan: str
    drive_id: int
    drive_label: str
    simulated: bool
    emulated: bool = Field(False, description="The drive is a virtual bench's QEMU controller.")
    embargoed: bool = Field(False, description="The drive's model is under embargo now.")
    status: RunStatus
    progress: float
    error: str | None
    waiting_position: int | None = Field(
        None, description="Place in the drive's queue (1 = next) while the drive is busy."
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    series_id: int | None = Field(None, description="The series of repeats it belongs to.")
    series_index: int | None = Field(None, description="Its place in the series, 1 first.")


class SeriesFigure(BaseModel):
    metric: str = Field(description="plan:step:metric")
    name: str = Field(description="The figure in words.")
    unit: str
    values: list[float] = Field(description="Of the series' finished runs, first run first.")
    rsd_pct: float | None = Field(description="Relative standard deviation (ddof=1), %.")


class SeriesOut(BaseModel):
    id: int
    plan: str
    drive_id: int
    until_stable: bool
    max_runs: int
    min_runs: int
    rsd_pct: float
    status: Literal["running", "stable", "not stable", "done", "stopped"]
    reason: str | None = Field(description="Why the series ended as it did, in words.")
    runs: list[RunSummary]
    figures: list[SeriesFigure] = Field(
        description="The MB/s and IOPS figures stability is judged on, least stable first."
    )
    created_at: datetime
    finished_at: datetime | None


class RunOut(RunSummary):
    params: dict[str, Any]
    environment: dict[str, Any]
    steps: list[StepOut]


class SampleOut(BaseModel):
    step_id: int
    t: float = Field(description="End of the interval, seconds since the step's fio job started.")
    dt: float = Field(description="Length of the interval in seconds.")
    read_mbps: float = Field(description="MB/s, 10^6 bytes per second.")
    write_mbps: float
    read_iops: float
    write_iops: float
    read_lat_mean_us: float | None
    write_lat_mean_us: float | None
    read_lat_p99_us: float | None
    write_lat_p99_us: float | None
    read_lat_max_us: float | None = Field(
        None, description="Slowest read completion of the interval, µs."
    )
    write_lat_max_us: float | None = None
    temp_c: float | None = Field(
        None,
        description="The drive's temperature in the interval, °C (0.1 °C steps); null where "
        "the drive has no sensor.",
    )


class JobOut(BaseModel):
    step_id: int
    idx: int
    name: str
    job_file: str
    command: str


# --- the bench worker's side -------------------------------------------------------------


class ClaimIn(BaseModel):
    worker: str = Field(max_length=200)


class WorkerStep(BaseModel):
    id: int
    idx: int
    kind: str
    name: str
    params: dict[str, Any]
    job_file: str | None
    status: StepStatus
    fingerprint: dict[str, Any] | None = None


class WorkerDrive(BaseModel):
    id: int
    serial: str
    target_path: str
    capacity_bytes: int


class RunSpec(BaseModel):
    run_id: int
    plan: str
    resumed: bool = Field(False, description="Steps already done are kept; check the drive first.")
    resume_fingerprint: dict[str, Any] | None = Field(
        None, description="How the drive looked when the run stopped; None when unknown."
    )
    destructive: bool
    confirmed_serial: str | None
    params: dict[str, Any]
    drive: WorkerDrive
    steps: list[WorkerStep]


_Count = Annotated[int, Field(ge=0)]
_Latency = Annotated[float | None, Field(ge=0)]
# The drive's temperature in tenths of a degree Celsius (a smallint): -100.0 to 300.0 °C
# covers every drive's sensor; None is "no sensor", never 0.
TEMP_DC_MIN, TEMP_DC_MAX = -1000, 3000
_TempDc = Annotated[int | None, Field(ge=TEMP_DC_MIN, le=TEMP_DC_MAX)]


# A sample's fields, in the order of the `samples` table after run_id and step_id.
SAMPLE_FIELDS = (
    "t_ms",
    "dt_ms",
    "read_bytes",
    "write_bytes",
    "read_ios",
    "write_ios",
    "read_lat_mean_us",
    "write_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_p99_us",
    "read_lat_max_us",
    "write_lat_max_us",
    "temp_dc",
)
MAX_BATCH = 100_000


@with_config(ConfigDict(extra="forbid"))
class SampleIn(TypedDict):
    """One sample as an object: the row format of a batch, still taken from workers of
    earlier releases. A plain dict once validated, not a model."""

    t_ms: _Count
    dt_ms: Annotated[int, Field(gt=0)]
    read_bytes: _Count
    write_bytes: _Count
    read_ios: _Count
    write_ios: _Count
    read_lat_mean_us: NotRequired[_Latency]
    write_lat_mean_us: NotRequired[_Latency]
    read_lat_p99_us: NotRequired[_Latency]
    write_lat_p99_us: NotRequired[_Latency]
    read_lat_max_us: NotRequired[_Latency]
    write_lat_max_us: NotRequired[_Latency]
    temp_dc: NotRequired[_TempDc]


def _column(description: str, required: bool = True) -> Any:
    return Field(... if required else None, max_length=MAX_BATCH, description=description)


class SampleColumns(BaseModel):
    """A batch's samples as one array per field: value i of every array belongs to sample i.
    A third of the bytes of the row format, and validated ten times faster (no object per
    sample). A latency array may be left out when no sample has that latency, `temp_dc` when
    the drive has no sensor."""

    model_config = ConfigDict(extra="forbid")

    t_ms: list[_Count] = _column("end of each interval, ms since the job started")
    dt_ms: list[Annotated[int, Field(gt=0)]] = _column("length of each interval, ms")
    read_bytes: list[_Count] = _column("bytes read in each interval")
    write_bytes: list[_Count] = _column("bytes written in each interval")
    read_ios: list[_Count] = _column("reads completed in each interval")
    write_ios: list[_Count] = _column("writes completed in each interval")
    read_lat_mean_us: list[_Latency] | None = _column("mean read clat, µs", False)
    write_lat_mean_us: list[_Latency] | None = _column("mean write clat, µs", False)
    read_lat_p99_us: list[_Latency] | None = _column("p99 read clat, µs", False)
    write_lat_p99_us: list[_Latency] | None = _column("p99 write clat, µs", False)
    read_lat_max_us: list[_Latency] | None = _column("max read clat, µs", False)
    write_lat_max_us: list[_Latency] | None = _column("max write clat, µs", False)
    temp_dc: list[_TempDc] | None = _column(
        "the drive's temperature in each interval, tenths of a degree Celsius (-1000..3000); "
        "null where the drive has no sensor (never 0)",
        False,
    )

    @model_validator(mode="after")
    def _same_length(self) -> SampleColumns:
        n = len(self.t_ms)
        for name in SAMPLE_FIELDS:
            values = getattr(self, name)
            if values is not None and len(values) != n:
                raise ValueError(
                    f"every array must hold one value per sample: t_ms has {n}, "
                    f"{name} has {len(values)}"
                )
        return self


class SampleBatch(BaseModel):
    """Samples of one step: `columns` (what workers send), or `samples`, one object per
    sample (the format of earlier releases)."""

    model_config = ConfigDict(extra="forbid")

    step_id: int
    progress: float | None = Field(None, ge=0, le=1)
    columns: SampleColumns | None = None
    samples: list[SampleIn] | None = Field(None, max_length=MAX_BATCH)

    @model_validator(mode="after")
    def _one_format(self) -> SampleBatch:
        if (self.columns is None) == (self.samples is None):
            raise ValueError(
                "send the samples either as `columns` (one array per field) or as `samples` "
                "(one object per sample), not both and not neither"
            )
        return self

    def field_lists(self) -> list[list[Any]]:
        """The samples as one list per field of SAMPLE_FIELDS (None for a missing latency)."""
        if self.columns is not None:
            n = len(self.columns.t_ms)
            cols = self.columns
            return [v if (v := getattr(cols, f)) is not None else [None] * n for f in SAMPLE_FIELDS]
        rows = self.samples or []
        return [[s.get(f) for s in rows] for f in SAMPLE_FIELDS]  # type: ignore[misc]


def sample_columns(samples: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Samples as objects -> the `columns` of a SampleBatch (what a worker posts). A latency
    that no sample has is left out."""
    out: dict[str, list[Any]] = {}
    for name in SAMPLE_FIELDS:
        values = [s.get(name) for s in samples]
        if (name.endswith("_us") or name == "temp_dc") and all(v is None for v in values):
            continue
        out[name] = values
    return out


class Control(BaseModel):
    """The api's reply to every worker post: whether the reviewer cancelled the run."""

    cancel: bool
    stored: int = 0


class StepStart(BaseModel):
    command: str | None = None
    job_file: str | None = Field(
        None,
        description="The job file fio runs: the run's, with its target set to the path the "
        "worker's interlock resolved and checked. Stored as the step's job file.",
    )


class StepFinish(BaseModel):
    status: Literal["done", "failed", "cancelled", "skipped"]
    output: str | None = Field(None, description="fio's final JSON, verbatim.")
    stderr: str | None = None
    error: str | None = None
    logs: dict[str, Any] | None = Field(
        None, description="fio's window logs, or a purge/TRIM/steady-state record."
    )
    metrics: list[ResultOut] = Field(
        default_factory=list, description="Results measured by the worker (TRIM GB/s...)."
    )
    fingerprint: dict[str, Any] | None = None


class RunFinish(BaseModel):
    status: Literal["done", "failed", "cancelled"]
    error: str | None = None


class Heartbeat(BaseModel):
    progress: float | None = Field(None, ge=0, le=1)
    step_id: int | None = None


class EnvironmentIn(BaseModel):
    environment: dict[str, Any]
