from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from backend.core.deps import CurrentUser, SessionDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives.service import sees_embargoed
from backend.pts import report as pts_report
from backend.pts import service
from backend.pts.compare import compare_pts
from backend.pts.schemas import PtsComparison, PtsReport, RoundOut
from backend.results.router import _ids

router = APIRouter(tags=["pts"], route_class=FiniteJSONRoute)


@router.get("/api/runs/{run_id}/pts", response_model=PtsReport)
def get_report(run_id: int, session: SessionDep, user: CurrentUser) -> Any:
    """A SNIA PTS run's report: the specification's header fields (sponsor, drive, firmware,
    capacity, purge, preconditioning, convergence, host and fio), the steady-state
    convergence and measurement window of each rounds step with the window's table, and the
    test's own series. Live while the run goes on."""
    return pts_report.report(session, run_id, hide_embargoed=not sees_embargoed(user))


@router.get("/api/runs/{run_id}/steps/{step_id}/rounds", response_model=list[RoundOut])
def get_rounds(run_id: int, step_id: int, session: SessionDep, user: CurrentUser) -> Any:
    """Every round of a PTS rounds step so far, with each element's figures."""
    return service.list_rounds(session, run_id, step_id, hide_embargoed=not sees_embargoed(user))


@router.get(
    "/api/runs/{run_id}/steps/{step_id}/rounds/{number}/output",
    response_class=Response,
    responses={200: {"content": {"application/json": {}}}},
)
def get_round_output(
    run_id: int, step_id: int, number: int, session: SessionDep, user: CurrentUser
) -> Response:
    """fio's final JSON of one round, byte for byte as fio printed it."""
    text = service.round_output(
        session, run_id, step_id, number, hide_embargoed=not sees_embargoed(user)
    )
    return Response(text, media_type="application/json")


@router.get("/api/compare/pts", response_model=PtsComparison)
def compare(
    session: SessionDep,
    user: CurrentUser,
    drives: str = Query(..., description="drive ids, e.g. 1,2,3"),
    under_review: int | None = None,
) -> Any:
    """SNIA PTS results of several drives: each drive's latest finished run of each PTS test,
    as the reports' tables (IOPS by block size and mix, MB/s, response times, WSAT and HIR
    IOPS). Differences are taken against the drive under review (else the first)."""
    return compare_pts(
        session, _ids(drives, "drives"), under_review, hide_embargoed=not sees_embargoed(user)
    )
