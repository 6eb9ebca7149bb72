"""Series of repeats: one plan queued on a drive N times, or until its figures are stable.

A review quotes the mean of repeated runs, and drivelab's comparisons test differences against
the runs' own spread (backend.analysis.significance): a series gives them the runs. Each
repeat is queued when the one before finishes, ahead of the drive's other waiting runs, with
the parameters and confirmed serial the series was queued with.

"Until stable" judges the plan's MB/s and IOPS figures (what reviews quote; percentile
latencies vary far more from run to run and would keep almost any series going to its
maximum): after at least `min_runs` finished runs, the series stops as `stable` once each such
figure that every run produced has a relative standard deviation (ddof=1) under `rsd_pct`, or
as `not stable` at `max_runs`, saying which figure varied most. A repeat that fails, is
cancelled or lost stops the series (`stopped`); the finished runs stay.

What it cannot see: a drift that every repeat shares (the drive warming up, filling, a cache
that never recovers between repeats) can look stable run to run; the consistency and thermal
plans measure those.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.significance import rsd_pct
from backend.core.db import utcnow
from backend.core.deps import AppState
from backend.core.errors import Conflict, NotFound
from backend.results.models import Result
from backend.results.names import names
from backend.runs.models import Run, RunSeries, Step
from backend.runs.schemas import RunCreate, SeriesFigure, SeriesOut
from backend.users.models import User

log = logging.getLogger(__name__)

JUDGED_UNITS = ("MB/s", "IOPS")


def start(session: Session, state: AppState, data: RunCreate, user: User | None) -> Run:
    """The series and its first run (checked and queued as a single run would be)."""
    from backend.runs.service import queue_run

    spec = data.repeat
    assert spec is not None
    series = RunSeries(
        plan=data.plan,
        drive_id=data.drive_id,
        params=data.params,
        confirmed_serial=(data.confirm_serial or "").strip() or None,
        until_stable=spec.until_stable,
        max_runs=spec.max_runs if spec.until_stable else spec.times,
        min_runs=spec.min_runs if spec.until_stable else spec.times,
        rsd_pct=spec.rsd_pct,
        status="running",
        created_by=user.id if user else None,
    )
    session.add(series)
    session.flush()
    return queue_run(
        session,
        state,
        data.plan,
        data.drive_id,
        data.params,
        data.confirm_serial,
        user,
        series_id=series.id,
        series_index=1,
    )


def _runs(session: Session, series_id: int) -> list[Run]:
    from backend.runs.service import _run_query

    return list(
        session.scalars(_run_query().where(Run.series_id == series_id).order_by(Run.series_index))
    )


def figures(session: Session, runs: list[Run]) -> list[SeriesFigure]:
    """The judged figures every finished run of the series has, least stable first."""
    done = [r.id for r in runs if r.status == "done"]
    if not done:
        return []
    rows = session.execute(
        select(Result.run_id, Step.name, Result.metric, Result.value, Result.unit)
        .join(Step, Step.id == Result.step_id)
        .where(Result.run_id.in_(done), Result.unit.in_(JUDGED_UNITS))
    ).all()
    plan = runs[0].plan
    by: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    for run_id, step, metric, value, unit in rows:
        by[f"{plan}:{step}:{metric}", unit][run_id] = value
    out = [
        SeriesFigure(
            metric=mid,
            name=names(mid)["title"],
            unit=unit,
            values=[per_run[r] for r in done],
            rsd_pct=rsd_pct([per_run[r] for r in done]),
        )
        for (mid, unit), per_run in by.items()
        if len(per_run) == len(done)
    ]
    out.sort(key=lambda f: -(f.rsd_pct or 0.0))
    return out


def _end(series: RunSeries, status: str, reason: str) -> None:
    series.status = status
    series.reason = reason
    series.finished_at = utcnow()
    log.info("series %s %s: %s", series.id, status, reason)


def after_run(session: Session, state: AppState, run: Run) -> Run | None:
    """A run reached its final status: end the series or queue its next repeat (returned)."""
    if run.series_id is None:
        return None
    series = session.get(RunSeries, run.series_id, with_for_update=True)
    if series is None or series.status != "running":
        return None
    runs = _runs(session, series.id)
    if run.status != "done":
        _end(
            series,
            "stopped",
            f"repeat {run.series_index} {run.status}: the series stops; its "
            f"{sum(r.status == 'done' for r in runs)} finished runs are kept",
        )
        return None
    done = sum(r.status == "done" for r in runs)
    if series.until_stable and done >= series.min_runs:
        found = figures(session, runs)
        worst = found[0] if found else None
        if worst is not None and (worst.rsd_pct or 0.0) < series.rsd_pct:
            _end(
                series,
                "stable",
                f"every MB/s and IOPS figure varies by less than {series.rsd_pct:g}% over "
                f"{done} runs (most: {worst.name}, {worst.rsd_pct or 0.0:.2f}%)",
            )
            return None
        if done >= series.max_runs:
            why = (
                f"{worst.name} still varies by {worst.rsd_pct or 0.0:.2f}%"
                if worst is not None
                else "the plan gives no MB/s or IOPS figure to judge"
            )
            _end(series, "not stable", f"{done} runs, the most asked: {why}")
            return None
    elif not series.until_stable and done >= series.max_runs:
        _end(series, "done", f"{done} runs, as asked")
        return None
    from backend.runs.service import queue_run

    user = session.get(User, series.created_by) if series.created_by else None
    try:
        return queue_run(
            session,
            state,
            series.plan,
            series.drive_id,
            series.params,
            series.confirmed_serial,
            user,
            series_id=series.id,
            series_index=max(r.series_index or 0 for r in runs) + 1,
        )
    except Exception as exc:  # noqa: BLE001 - a repeat that can no longer be queued ends it
        _end(series, "stopped", f"the next repeat could not be queued: {exc}")
        return None


def get_series(session: Session, series_id: int) -> RunSeries:
    series = session.get(RunSeries, series_id)
    if series is None:
        raise NotFound(f"series {series_id} not found")
    return series


def series_out(session: Session, series: RunSeries) -> SeriesOut:
    from backend.runs.service import summary

    runs = _runs(session, series.id)
    return SeriesOut(
        id=series.id,
        plan=series.plan,
        drive_id=series.drive_id,
        until_stable=series.until_stable,
        max_runs=series.max_runs,
        min_runs=series.min_runs,
        rsd_pct=series.rsd_pct,
        status=series.status,  # type: ignore[arg-type]
        reason=series.reason,
        runs=[summary(r) for r in runs],
        figures=figures(session, runs),
        created_at=series.created_at,
        finished_at=series.finished_at,
    )


def stop(session: Session, state: AppState, series_id: int, user: User | None) -> RunSeries:
    """Stop the series: its waiting or running repeat is cancelled; finished runs stay."""
    from backend.runs.service import cancel_run

    series = get_series(session, series_id)
    if series.status != "running":
        raise Conflict(f"series {series_id} is already {series.status}: nothing to stop")
    _end(series, "stopped", "stopped by the reviewer; its finished runs are kept")
    for run in _runs(session, series_id):
        if run.status in ("queued", "running"):
            cancel_run(session, state, run.id, user)
    return series
