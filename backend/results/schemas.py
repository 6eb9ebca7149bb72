"""Response models of the comparison endpoints: the frontend's types are generated from them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from backend.prices.schemas import PriceTable
from backend.pts.schemas import PtsComparison


class Variation(BaseModel):
    """Run-to-run variation of one drive's metric (backend.analysis.variation)."""

    count: int
    mean: float | None
    stddev: float | None
    min: float | None
    max: float | None
    spread_pct: float | None
    low: float | None = Field(
        description="95% confidence interval of the mean (Student's t), from at least 2 runs."
    )
    high: float | None


class VersusReview(BaseModel):
    """Whether the drive under review differs from this row's drive (backend.analysis.significance):
    Welch's t-test of the two drives' runs measured under the same conditions, the practical
    threshold tested one-sided, Benjamini-Hochberg over the plan's metrics shown at once."""

    review_runs: int
    runs: int
    diff_pct: float | None = Field(
        description="The drive under review's mean over this drive's, -1, in %: None when "
        "either has fewer than 2 runs."
    )
    low_pct: float | None = Field(description="95% confidence interval of diff_pct.")
    high_pct: float | None
    p: float | None = Field(description="Two-sided p of Welch's test: do the means differ at all.")
    q: float | None = Field(
        description="p of the test that |diff_pct| exceeds the practical threshold, adjusted "
        "(Benjamini-Hochberg) over the plan's metrics shown at once."
    )
    verdict: Literal["better", "worse", "within noise", "1 run: significance unknown"] | None = (
        Field(
            description="Of the drive under review: better or worse only when q < 0.05; None "
            "for a figure with no better direction."
        )
    )


Conditions = dict[str, str | None]


class CompareRow(BaseModel):
    drive_id: int
    label: str
    short_name: str | None = Field(description="What charts call the drive, when set.")
    simulated: bool
    embargoed: bool
    under_review: bool
    set_apart: str | None = Field(
        description="Why this row is not ranked with the others (measured over another span "
        "or block size than the drive under review, or than most drives); such rows come "
        "after the ranked ones. None: ranked."
    )
    value: float
    runs: Variation = Field(
        description="Run-to-run variation of the drive's runs measured under the same "
        "conditions as its latest (only those are pooled)."
    )
    other_runs: int = Field(description="Runs of this metric under other conditions, not pooled.")
    run_id: int = Field(description="The latest run: where the value comes from.")
    firmware: str | None = Field(description="Of the latest run: the chart's provenance.")
    fio_version: str | None
    finished_at: datetime | None
    job_sha256: str | None = Field(description="sha256 of the fio job file of the latest run.")
    conditions: Conditions = Field(
        description="What the value was measured under: span, block size, queue depth, "
        "runtime, data pattern, OP, drive state before, fio version, ioengine, firmware, "
        "drive (simulated or real)."
    )
    versus_review: VersusReview | None = Field(
        description="The drive under review against this drive, on this metric: None on the "
        "review's own row, without a drive under review, and on rows set apart."
    )


class MetricNames(BaseModel):
    """A metric in words, for people: raw ids stay in the api and CSV files."""

    plan: str = Field(description="e.g. Four corners")
    test: str = Field(description="e.g. 4K random write QD32, incompressible")
    measure: str = Field(description="e.g. IOPS")
    title: str = Field(description="test: measure, unique within a comparison")


class CompareMetric(BaseModel):
    metric: str = Field(description="plan:step:metric, the step with its variant (@op25)")
    names: MetricNames
    unit: str
    lower_is_better: bool
    performance: bool = Field(
        description="Whether it says how good a drive is (not a runtime or bytes moved)."
    )
    conditions: Conditions = Field(description="The conditions every row shares.")
    differing: list[str] = Field(description="The conditions the rows differ in.")
    rows: list[CompareRow] = Field(
        description="One per drive, best first; the rows set apart last."
    )
    warnings: list[str]


class Comparison(BaseModel):
    aggregate: Literal["latest", "mean"]
    metrics: list[CompareMetric]
    missing: list[str] = Field(description="Asked-for metrics no drive has.")


class PairDrive(BaseModel):
    drive_id: int
    label: str
    short_name: str | None
    simulated: bool


class PairMetric(BaseModel):
    metric: str
    names: MetricNames
    unit: str
    lower_is_better: bool
    performance: bool = Field(description="Only performance metrics are better or worse.")
    a: float
    b: float
    diff_pct: float | None = Field(description="(b - a) / |a| x 100; None when a is 0.")
    conditions: Conditions = Field(description="The conditions both share.")
    differing: dict[str, tuple[str | None, str | None]] = Field(
        description="The conditions A and B were measured under where they differ: (A, B)."
    )
    set_apart: str | None = Field(
        None,
        description="Why A and B are not ranked (neither better nor worse): a span or block "
        "size that differs, e.g. 'span 1 GiB vs 32 MiB'. None when they are.",
    )
    versus: VersusReview | None = Field(
        None,
        description="Whether B differs from A beyond the runs' noise (B in the role of the "
        "drive under review: `better` means B is better). None when set apart.",
    )
    warnings: list[str]


class Pair(BaseModel):
    a: PairDrive
    b: PairDrive
    metrics: list[PairMetric]


class ValueRow(CompareRow):
    price: float
    currency: str
    price_source: str | None
    price_date: str
    per_unit_price: float


class ValueComparison(BaseModel):
    metric: str
    unit: str
    rows: list[ValueRow] = Field(description="Priced drives, best value first.")
    unpriced: list[str] = Field(description="Labels of drives whose model has no price.")


class Stall(BaseModel):
    start_s: float
    duration_s: float


class StepDown(BaseModel):
    at_pct: float
    at_gb: float
    from_mbps: float
    to_mbps: float
    heat: Literal["thermal", "not thermal", "unknown"] | None = Field(
        None,
        description="Whether heat explains it (the run's findings say why); None: found before "
        "drivelab told.",
    )


class StepSeries(BaseModel):
    """One line of a chart: a step's series, downsampled with min/max per bucket."""

    step_id: int
    step: str
    label: str = Field(description="The step's label, e.g. '128K sequential write QD32'.")
    role: str | None
    unit: str
    x: Literal["t_s", "position_pct", "bs_bytes", "write_pct"]
    total_points: int
    downsampled: bool
    points: list[tuple[float, float]]
    stalls: list[Stall] | None = Field(
        None, description="Stalls found in this series (write hitching, writes after TRIM)."
    )
    step_downs: list[StepDown] | None = Field(
        None, description="Step-downs found in this HD Tach pass, at their position in the span."
    )


class RunConditions(BaseModel):
    """What an exported chart states about how the numbers were measured."""

    plan: str
    iodepth: int | None
    span_bytes: int | None
    pattern: str | None = Field(description="Data pattern of the writes, when the run had one.")
    op_percent: int
    firmware: str | None
    fio_version: str | None
    finished_at: datetime | None
    compared: Conditions = Field(
        description="The conditions a comparison compares, as GET /api/compare states them "
        "(of the run's first charted step)."
    )


class DriveSeries(BaseModel):
    drive_id: int
    label: str
    short_name: str | None
    simulated: bool
    run_id: int
    conditions: RunConditions
    series: list[StepSeries]


class MissingSeries(BaseModel):
    drive_id: int
    label: str
    short_name: str | None
    reason: str


class CompareSeries(BaseModel):
    plan: str
    metric: str
    op_percent: int | None
    drives: list[DriveSeries] = Field(description="In the order asked for.")
    missing: list[MissingSeries] = Field(description="Drives without a finished run of the plan.")
    warnings: list[str] = Field(description="Conditions the drives' runs differ in.")


# --- latency QoS ---------------------------------------------------------------------------


class QosFigures(BaseModel):
    """Completion-latency figures of one direction (or all I/O) of a step, in µs."""

    ios: int = Field(description="I/Os fio completed (clat_ns.N).")
    binned_ios: int = Field(description="I/Os in fio's histogram (the percentiles' base).")
    mean_us: float
    min_us: float
    max_us: float = Field(description="fio's exact maximum.")
    percentiles: dict[str, float | None] = Field(
        description="p50 ... p99.999 from fio's json+ histogram; None where the I/O count "
        "cannot support it."
    )
    unsupported: dict[str, str] = Field(description="Why a percentile is None.")


class StepQos(BaseModel):
    step_id: int
    idx: int
    name: str
    label: str
    role: str | None
    workload: str | None
    iodepth: int | None
    numjobs: int | None
    iops: float = Field(description="fio's IOPS, both directions.")
    mbps: float
    directions: dict[str, QosFigures]
    all: QosFigures = Field(description="Read and write together.")


class SweepPoint(BaseModel):
    step_id: int
    qd: int = Field(description="iodepth of each job.")
    total_qd: int = Field(description="iodepth x numjobs.")
    iops: float
    mbps: float
    mean_us: float
    p50_us: float | None
    p99_us: float | None
    p99_9_us: float | None
    p99_99_us: float | None
    max_us: float


class NextOverTarget(BaseModel):
    qd: int
    iops: float
    p99_us: float


class SweepFigures(BaseModel):
    points: int
    peak_iops: float | None = None
    peak_qd: int | None = None
    share: float | None = None
    qd_at_share_of_peak: int | None = Field(
        None, description="The lowest QD reaching `share` (0.95) of the peak IOPS."
    )
    iops_at_share_of_peak: float | None = None
    target_us: float | None = None
    iops_under_target: float | None = Field(
        None, description="The highest measured IOPS whose p99 is at or under the target."
    )
    qd_under_target: int | None = None
    p99_under_target_us: float | None = None
    next_over_target: NextOverTarget | None = Field(
        None, description="The next deeper point, which misses the target."
    )
    low_qd_iops: float | None = Field(
        None,
        description="The low-QD score: the mean IOPS of QD1, 2 and 4 (`low_qds`), when every "
        "one of them was swept.",
    )
    low_qds: list[int] | None = None


class SweepWorkload(BaseModel):
    workload: str
    points: list[SweepPoint]
    figures: SweepFigures


class Sweep(BaseModel):
    latency_target_us: float
    workloads: list[SweepWorkload]


class RunQos(BaseModel):
    run_id: int
    plan: str
    percentiles: list[str]
    steps: list[StepQos] = Field(description="fio steps with a latency histogram, in order.")
    sweep: Sweep | None = Field(description="A qd-sweep run's curves and figures.")


class Distribution(BaseModel):
    qos: QosFigures
    histogram: list[tuple[float, float]] = Field(
        description="[upper bin edge µs, share of I/Os %] on log-spaced bins."
    )
    exceedance: list[tuple[float, float]] = Field(
        description="[latency µs, share of I/Os slower] (1 - CDF)."
    )


class StepLatencyOut(BaseModel):
    step_id: int
    name: str
    per_decade: int
    directions: dict[str, Distribution] = Field(description="read, write and (both) all.")


class DriveLatency(BaseModel):
    drive_id: int
    label: str
    short_name: str | None
    simulated: bool
    under_review: bool
    run_id: int
    step_id: int
    step_label: str
    conditions: RunConditions
    per_decade: int
    directions: dict[str, Distribution]


class CompareLatency(BaseModel):
    plan: str
    step: str
    drives: list[DriveLatency] = Field(description="In the order asked for.")
    missing: list[MissingSeries]
    warnings: list[str]


class DriveSweep(BaseModel):
    drive_id: int
    label: str
    short_name: str | None
    simulated: bool
    under_review: bool
    run_id: int
    numjobs: int
    latency_target_us: float = Field(description="The run's p99 target, µs.")
    conditions: RunConditions = Field(
        description="Of the run's first sweep point; `compared` names the queue depths swept."
    )
    workloads: list[SweepWorkload]


class CompareSweeps(BaseModel):
    plan: str
    drives: list[DriveSweep] = Field(description="In the order asked for.")
    missing: list[MissingSeries] = Field(description="Drives without a finished qd-sweep run.")
    warnings: list[str] = Field(description="Conditions the drives' sweeps differ in.")


class FirmwareVersion(BaseModel):
    firmware: str = Field(description="As the drive reported it at the run's start.")
    first_run_at: datetime | None
    runs: int


class FirmwareFigure(BaseModel):
    firmware: str
    runs: Variation


class FirmwareChange(BaseModel):
    from_firmware: str
    to_firmware: str
    from_runs: int
    to_runs: int
    diff_pct: float | None = Field(description="The later version's mean over the earlier's, -1.")
    low_pct: float | None = Field(description="95% confidence interval of diff_pct.")
    high_pct: float | None
    p: float | None
    q: float | None
    verdict: (
        Literal["improvement", "regression", "within noise", "1 run: significance unknown"] | None
    ) = Field(description="None for a figure with no better direction.")


class FirmwareMetric(BaseModel):
    metric: str
    names: MetricNames
    unit: str
    lower_is_better: bool
    performance: bool
    by_firmware: list[FirmwareFigure] = Field(description="In the order first run.")
    changes: list[FirmwareChange] = Field(description="Each version against the one before.")


class FirmwareDrive(BaseModel):
    drive_id: int
    name: str = Field(description="the short name a reviewer set, else the label")
    firmwares: list[str] = Field(
        description="The versions its finished runs recorded, in the order first run: any two "
        "open as an article (GET /api/compare/article?drives=ID&firmware=A&firmware=B)."
    )


class FirmwareHistory(BaseModel):
    model_id: int
    label: str
    simulated: bool
    firmwares: list[FirmwareVersion] = Field(description="In the order first run.")
    drives: list[FirmwareDrive] = Field(description="The model's drives with a finished run.")
    metrics: list[FirmwareMetric] = Field(
        description="The metrics measured on at least two firmware versions alike."
    )
    method: str


class ArticleDrive(BaseModel):
    id: int = Field(
        description="the column's id (the keys of values, cells, diff): the drive's id, or "
        "with firmware, the version's place in it (1, 2, ...)"
    )
    drive_id: int = Field(description="the drive the column's runs are of")
    name: str = Field(
        description='the short name a reviewer set, else the label; with firmware, "NAME (fw '
        'VERSION)"'
    )
    label: str
    model: str
    simulated: bool
    under_review: bool
    capacity_gb: float = Field(description="10^9 bytes")
    capacity: str = Field(description='"512 GB", "0.268 GB": one way everywhere')
    firmware: str = Field(description='as reported, or "firmware not reported"')
    price: float | None
    price_text: str
    price_per_gb: float | None


class ArticleCell(BaseModel):
    text: str = Field(description='value and unit scaled for the row ("72.0 µs", "1.20 s")')
    best: bool = Field(description="the best ranked performance figure of the row")


class ArticleDiff(BaseModel):
    pct: float = Field(description="the drive under review's difference, % of this drive's")
    verdict: Literal["better", "worse", "within noise", "1 run: significance unknown", "same"] = (
        Field(
            description="Of a measured figure: the significance test's (backend.analysis."
            "significance; better or worse only when real). Of a price: same under 0.5%."
        )
    )
    low_pct: float | None = Field(None, description="95% confidence interval of pct.")
    high_pct: float | None = None


class ArticleRow(BaseModel):
    key: str = Field(description="a headline figure's key, or an appendix row's metric id")
    label: str
    unit: str = Field(description="the unit the cells are shown in")
    lower_is_better: bool
    performance: bool = Field(description="only performance figures are ranked or bolded")
    conditions: str | None = None
    values: dict[str, float | None] = Field(description="drive id -> value in the api's unit")
    cells: dict[str, ArticleCell]
    diff: dict[str, ArticleDiff] = Field(description="drive id -> the reviewed drive vs it")
    set_apart: dict[str, str] = Field(default_factory=dict, description="drive id -> why")


class ArticleFinding(BaseModel):
    topic: Literal[
        "hdtach", "stalls", "consistency", "steady-state", "slc-cache", "thermal", "bursts",
        "mixed", "file-copy", "as-ssd", "demand-intensity", "full-drive",
    ]
    text: str


class ArticleFindings(BaseModel):
    drive_id: int
    findings: list[ArticleFinding]


class ArticleGroup(BaseModel):
    plan: str
    test: str
    warnings: list[str] = Field(description="each once for the group")
    rows: list[ArticleRow]


class Article(BaseModel):
    under_review: int | None = Field(description="the column under review")
    currency: str
    by_firmware: int | None = Field(
        None,
        description="with firmware: the drive whose runs the columns are, one column per "
        "version (the firmware each run recorded), the last given under review; else null",
    )
    drives: list[ArticleDrive]
    headline: list[ArticleRow]
    findings: list[ArticleFindings]
    appendix: list[ArticleGroup]


# --- every chart of a comparison in one answer -------------------------------------------


class FirstSeries(BaseModel):
    plan: str
    metric: str | None = Field(description="As asked of GET /api/compare/series (None: default).")
    points: int
    op_percent: int | None
    answer: CompareSeries = Field(description="What GET /api/compare/series answers for it.")


class LatencySteps(BaseModel):
    plan: str
    steps: list[str] = Field(description="As GET /api/compare/latency/steps answers for the plan.")


class CompareCharts(BaseModel):
    drives: list[int] = Field(description="The drives asked for, in that order.")
    under_review: int | None
    series: list[FirstSeries] = Field(
        description="Each chart family's series as its chart first asks for it."
    )
    latency_steps: list[LatencySteps] = Field(
        description="The latency tests of qd-sweep, and of four-corners when there is no sweep."
    )
    latency: CompareLatency | None = Field(
        description="The first measured latency test of that plan; None when no drive has one."
    )
    qd_sweep: CompareSweeps
    pts: PtsComparison | None
    prices: PriceTable | None = Field(description="The price table in USD.")
