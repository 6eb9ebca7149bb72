"""Series of repeats (backend.runs.series): queued with POST /api/runs and `repeat`."""

from __future__ import annotations

from fastapi import APIRouter

from backend.core.deps import CurrentUser, Reviewer, SessionDep, StateDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives.service import get_drive, sees_embargoed
from backend.runs import series
from backend.runs.schemas import SeriesOut

router = APIRouter(prefix="/api/series", tags=["runs"], route_class=FiniteJSONRoute)


@router.get("/{series_id}", response_model=SeriesOut)
def get_series(series_id: int, session: SessionDep, user: CurrentUser) -> SeriesOut:
    """The series' runs, its status (running, stable, not stable, done, stopped) and why, and
    the MB/s and IOPS figures its stability is judged on."""
    found = series.get_series(session, series_id)
    hide = not sees_embargoed(user)
    # The drive's model under embargo: hidden as its runs are (GET /api/runs/{id}).
    if hide:
        get_drive(session, found.drive_id, hide_embargoed=True)
    return series.series_out(session, found)


@router.post("/{series_id}/stop", response_model=SeriesOut)
def stop_series(series_id: int, session: SessionDep, state: StateDep, user: Reviewer) -> SeriesOut:
    """Stop the series: its waiting or running repeat is cancelled, its finished runs stay."""
    found = series.stop(session, state, series_id, user)
    return series.series_out(session, found)
