from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse, Response

from backend.core.deps import CurrentUser, SessionDep
from backend.core.errors import InvalidParams
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives.service import sees_embargoed
from backend.results import article as art
from backend.results import compare as cmp
from backend.results import compare_charts as charts
from backend.results import compare_series as cser
from backend.results import qos, qos_compare
from backend.results import series as ser
from backend.results.compare_parts import json_with_raw
from backend.results.schemas import (
    Article,
    CompareCharts,
    CompareLatency,
    CompareSeries,
    CompareSweeps,
    Comparison,
    Pair,
    RunQos,
    StepLatencyOut,
    ValueComparison,
)

router = APIRouter(tags=["results"], route_class=FiniteJSONRoute)


def _ids(text: str, field: str) -> list[int]:
    try:
        ids = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InvalidParams(
            f"{field} is a comma-separated list of ids, e.g. 1,2,3", field=field
        ) from None
    if not ids:
        raise InvalidParams(f"{field} is empty: give at least one id, e.g. 1,2,3", field=field)
    return ids


@router.get("/api/runs/{run_id}/series", response_model=None)
def run_series(
    run_id: int,
    session: SessionDep,
    user: CurrentUser,
    step_id: int,
    metric: str = "write_mbps",
    points: int | None = Query(ser.DEFAULT_POINTS, description="about the chart width"),
    full: bool = Query(False, description="every stored point, no downsampling"),
    x: str = Query("time", pattern="^(time|position)$"),
    format: str = Query("json", pattern="^(json|csv)$"),
) -> Any:
    """A step's series for a chart: by time (samples, or fio's window logs with
    metric=log_bw:write) or, for HD Tach passes, by position (x=position). Downsampled to
    `points` keeping each bucket's minimum and maximum, so stalls and spikes survive."""
    data = ser.series(
        session,
        run_id,
        step_id,
        metric,
        None if full else points,
        x,
        hide_embargoed=not sees_embargoed(user),
    )
    if format == "csv":
        return PlainTextResponse(ser.to_csv(data), media_type="text/csv")
    return data


# The services return plain dicts that the response models describe. /api/compare answers
# its dict serialised as is (cmp.compare_json): validating 2,000 rows against the model took
# 30 ms of the ~70 ms a 10-drive comparison over the whole suite cost (tests check the model
# accepts it).


@router.get("/api/compare", response_model=Comparison)
def compare(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    metrics: str | None = Query(None, description="plan:step:metric,...; all when omitted"),
    under_review: int | None = None,
    aggregate: str = Query("latest", pattern="^(latest|mean)$"),
    rows: str | None = Query(
        None,
        description="metric ids or patterns (fnmatch: four-corners:*:read_iops) whose rows to "
        "give, comma-separated; the other metrics are listed with no rows. All when omitted.",
    ),
) -> Any:
    """For each metric, one row per drive (best first) with run-to-run variation, the drive
    under review marked, and warnings when conditions differ (fio version, ioengine, OP, host,
    resumed runs, simulated drives). With `rows`, only the metrics a page draws carry rows:
    the Compare page asks the rows of its bars and lists the other metrics by name."""
    wanted = [m for m in metrics.split(",") if m] if metrics else None
    body = cmp.compare_json(
        session,
        _ids(drives, "drives"),
        wanted,
        under_review,
        aggregate,
        hide_embargoed=not sees_embargoed(user),
        rows=None if rows is None else [r for r in rows.split(",") if r],
    )
    return Response(body, media_type="application/json")


@router.get("/api/compare/charts", response_model=CompareCharts)
def compare_charts(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    under_review: int | None = None,
) -> Any:
    """Every chart of a comparison as it first opens, in one answer: the series of HD Tach,
    consistency (no and 25% over-provisioning), transfer size, write hitching and TRIM
    performance (each as GET /api/compare/series gives it), the latency tests and the first
    one's distributions, the queue-depth sweeps, PTS and the price table. The Compare, Report
    and Shared pages ask this once instead of once per chart."""
    data = charts.compare_charts(
        session,
        _ids(drives, "drives"),
        under_review,
        hide_embargoed=not sees_embargoed(user),
        raw=True,
    )
    return Response(json_with_raw(data), media_type="application/json")


@router.get("/api/compare/article", response_model=Article)
def compare_article(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    under_review: int | None = None,
    currency: str = Query("USD", pattern="^[A-Z]{3}$"),
    firmware: list[str] | None = Query(
        None,
        description="one drive's firmware versions to compare as if they were drives, the "
        "one under review last: drives=7&firmware=1.01&firmware=1.02",
    ),
) -> Any:
    """The review in article order, in one answer: the drives (capacity in GB, firmware,
    price), a headline table of the figures reviewers quote with the drive under review's
    difference to each other drive, the findings in words per drive (step-downs, stalls,
    drop-off, steady state; what was not measured said so), and an appendix of every other
    result grouped by plan and test in natural order, units scaled. Built from the results
    and analyses stored when each step finished, never from the samples.

    With `firmware` (two versions or more, and one drive): a column per version of the
    drive's runs that recorded it, computed exactly as drives are, the version given last
    under review against the others (`by_firmware` names the drive)."""
    return art.article(
        session,
        _ids(drives, "drives"),
        under_review,
        currency,
        firmware=firmware or (),
        hide_embargoed=not sees_embargoed(user),
    )


@router.get("/api/compare/pair", response_model=Pair)
def compare_pair(session: SessionDep, user: CurrentUser, a: int, b: int) -> Any:
    """Two drives side by side: every metric both have, with b's difference from a in percent."""
    return cmp.pair(session, a, b, hide_embargoed=not sees_embargoed(user))


@router.get("/api/compare/value", response_model=ValueComparison)
def compare_value(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    metric: str = Query(..., description="plan:step:metric"),
    currency: str = Query("USD", pattern="^[A-Z]{3}$"),
) -> Any:
    """Performance per dollar for any metric: each drive's value over its model's lowest
    current price (latest observation per retailer)."""
    return cmp.per_dollar(
        session,
        _ids(drives, "drives"),
        metric,
        currency,
        hide_embargoed=not sees_embargoed(user),
    )


@router.get("/api/compare/series", response_model=CompareSeries)
def compare_series(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    plan: str = Query(
        ..., description=", ".join(cser.PLAN_KINDS), pattern=f"^({'|'.join(cser.PLAN_KINDS)})$"
    ),
    metric: str | None = Query(
        None, description="consistency: write_iops (default), read_iops, write_mbps, read_mbps"
    ),
    points: int = Query(
        ser.DEFAULT_POINTS,
        description=f"about the chart width, per series: 4 to {cser.MAX_POINTS}",
        json_schema_extra={"minimum": 4, "maximum": cser.MAX_POINTS},
    ),
    op_percent: int | None = Query(None, description="only runs with this over-provisioning"),
) -> Any:
    """One chart family for several drives in one request: each drive's latest finished run
    of the plan, the series of its charted steps (consistency: IOPS against time; HD Tach
    and TRIM validation: MB/s against position; write hitching and TRIM performance: MB/s
    against time with the stalls; transfer size: MB/s against transfer size, read and
    write; mixed: MB/s against the share of writes, random and sequential; thermal: MB/s and
    °C against time over the whole run) downsampled with min/max per bucket, and the run's
    conditions and provenance."""
    # A plain dict that the response model describes, serialised as it is: validating ten
    # drives' thousands of points took as long as computing them (tests check the model
    # accepts every kind of answer).
    data = cser.compare_series(
        session,
        _ids(drives, "drives"),
        plan,
        metric,
        points,
        op_percent,
        hide_embargoed=not sees_embargoed(user),
        raw=True,
    )
    return Response(json_with_raw(data), media_type="application/json")


@router.get("/api/runs/{run_id}/qos", response_model=RunQos)
def run_qos(run_id: int, session: SessionDep, user: CurrentUser) -> Any:
    """Latency QoS of every fio step of the run: mean, p50 ... p99.999 (from fio's json+
    histogram; None with a reason where the I/O count cannot support a percentile) and
    fio's exact maximum, per direction and for all I/O; for a qd-sweep run also IOPS and
    latency against queue depth and its figures per workload."""
    return qos.run_qos(session, run_id, hide_embargoed=not sees_embargoed(user))


@router.get("/api/runs/{run_id}/steps/{step_id}/latency", response_model=StepLatencyOut)
def step_latency(
    run_id: int,
    step_id: int,
    session: SessionDep,
    user: CurrentUser,
    per_decade: int = Query(20, description="histogram bins per decade of latency"),
    format: str = Query("json", pattern="^(json|csv)$"),
) -> Any:
    """A step's latency distribution: a histogram on log-spaced bins and the exceedance
    curve (share of I/Os slower than each latency), per direction."""
    data = qos.step_latency(
        session, run_id, step_id, per_decade, hide_embargoed=not sees_embargoed(user)
    )
    if format == "csv":
        return PlainTextResponse(qos.latency_csv(data), media_type="text/csv")
    return data


@router.get("/api/compare/latency", response_model=CompareLatency)
def compare_latency(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    plan: str = Query(..., description="plan key, e.g. qd-sweep"),
    step: str = Query(..., description="step name, e.g. randread-4k-qd32"),
    under_review: int | None = None,
) -> Any:
    """One step's latency distribution for several drives (each drive's latest finished run
    of the plan): QoS figures, histogram and exceedance curve, with the conditions and
    provenance of each run and warnings where they differ."""
    return qos_compare.compare_latency(
        session,
        _ids(drives, "drives"),
        plan,
        step,
        under_review,
        hide_embargoed=not sees_embargoed(user),
    )


@router.get("/api/compare/qd-sweep", response_model=CompareSweeps)
def compare_qd_sweeps(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    under_review: int | None = None,
) -> Any:
    """Queue-depth sweeps of several drives (each drive's latest finished qd-sweep run): per
    workload IOPS, MB/s and tail latency at each queue depth and the sweep's figures, with
    each run's conditions and warnings where they differ."""
    return qos_compare.compare_sweeps(
        session, _ids(drives, "drives"), under_review, hide_embargoed=not sees_embargoed(user)
    )


@router.get("/api/compare/latency/steps", response_model=list[str])
def compare_latency_steps(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    plan: str = Query(..., description="plan key, e.g. qd-sweep"),
) -> Any:
    """The steps with a latency histogram in the drives' latest runs of the plan."""
    ids = _ids(drives, "drives")
    found = cmp._drives(session, ids, not sees_embargoed(user))
    return qos_compare.step_names(session, list(found), plan)
