"""`/api/shares`: read-only public links to comparisons."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from backend.core.deps import Reviewer, SessionDep, StateDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.prices import schemas as price_schemas
from backend.prices.service import price_table
from backend.pts.compare import compare_pts
from backend.pts.schemas import PtsComparison
from backend.results import compare_charts as charts
from backend.results import compare_series as cser
from backend.results.compare_parts import json_with_raw
from backend.results.schemas import (
    CompareCharts,
    CompareLatency,
    CompareSeries,
    CompareSweeps,
    Comparison,
    ValueComparison,
)
from backend.results.series import DEFAULT_POINTS
from backend.shares import service
from backend.shares.models import Share
from backend.shares.schemas import (
    NewShare,
    ShareCreate,
    SharedComparison,
    SharedDrive,
    ShareOut,
)
from backend.users.auth_router import public_base

router = APIRouter(prefix="/api/shares", tags=["shares"], route_class=FiniteJSONRoute)


def share_out(s: Share, created_by: str | None, drive_names: list[str] | None = None) -> ShareOut:
    return ShareOut(
        id=s.id,
        title=s.title,
        drives=s.drive_ids,
        metrics=s.metrics,
        added_metrics=s.added_metrics,
        under_review=s.under_review,
        created_by=created_by,
        created_at=s.created_at,
        revoked_at=s.revoked_at,
        views=s.views or 0,
        last_viewed_at=s.last_viewed_at,
        drive_names=drive_names or [],
    )


@router.post("", response_model=NewShare, status_code=201)
def create_share(
    data: ShareCreate, request: Request, session: SessionDep, state: StateDep, user: Reviewer
) -> NewShare:
    """A read-only link to a comparison of drives, for people without an account (an editor,
    a vendor). The token is unguessable and shown once; revoke it with DELETE."""
    share, token = service.create_share(session, data, user)
    base = public_base(request, state)
    return NewShare(
        **share_out(share, user.name).model_dump(),
        token=token,
        url=f"{base}/api/shares/{token}",
        page_url=f"{base}/shared/{token}",
    )


@router.get("", response_model=list[ShareOut])
def list_shares(session: SessionDep, _user: Reviewer) -> list[ShareOut]:
    """Every share, newest first, revoked ones too (their tokens are not stored, so not
    shown): who made it, when, the drives compared and how often it was opened."""
    shares = service.list_shares(session)
    names = service.drive_names(session, {d for s, _n in shares for d in s.drive_ids})
    return [
        share_out(s, name, [names.get(d, f"drive {d} (deleted)") for d in s.drive_ids])
        for s, name in shares
    ]


@router.get("/{token}", response_model=SharedComparison)
def read_share(token: str, session: SessionDep) -> SharedComparison:
    """The shared comparison, without signing in: as GET /api/compare, computed now, leaving
    out drives under embargo. 404 once revoked."""
    share, under_review, comparison = service.shared_comparison(session, token)
    service.count_view(session, share)
    _share, drives, _review = service.live_share(session, token)
    return SharedComparison(
        title=share.title,
        created_at=share.created_at,
        under_review=under_review,
        added_metrics=share.added_metrics,
        drives=[SharedDrive(**d) for d in service.shared_drives(session, drives)],
        comparison=Comparison.model_validate(comparison),
    )


@router.get("/{token}/series", response_model=CompareSeries)
def read_share_series(
    token: str,
    session: SessionDep,
    plan: str = Query(
        ..., description=", ".join(cser.PLAN_KINDS), pattern=f"^({'|'.join(cser.PLAN_KINDS)})$"
    ),
    metric: str | None = None,
    points: int = Query(
        DEFAULT_POINTS, json_schema_extra={"minimum": 4, "maximum": cser.MAX_POINTS}
    ),
    op_percent: int | None = None,
) -> Any:
    """A chart of the shared comparison (HD Tach, consistency, transfer size, stalls), as
    GET /api/compare/series gives it for the share's drives, without signing in."""
    return service.shared_series(session, token, plan, metric, points, op_percent)


@router.get("/{token}/charts", response_model=CompareCharts)
def read_share_charts(token: str, session: SessionDep) -> Any:
    """Every chart of the shared comparison as it first opens, in one answer (as GET
    /api/compare/charts gives it for the share's drives), without signing in."""
    _share, drives, under_review = service.live_share(session, token)
    if not drives:
        return charts.empty_charts(under_review)
    data = charts.compare_charts(session, drives, under_review, hide_embargoed=True, raw=True)
    return Response(json_with_raw(data), media_type="application/json")


@router.get("/{token}/value", response_model=ValueComparison)
def read_share_value(
    token: str,
    session: SessionDep,
    metric: str = Query(..., description="plan:step:metric"),
    currency: str = Query("USD", pattern="^[A-Z]{3}$"),
) -> Any:
    """Performance per dollar of the shared comparison's drives, without signing in."""
    return service.shared_value(session, token, metric, currency)


@router.get("/{token}/pts", response_model=PtsComparison)
def read_share_pts(token: str, session: SessionDep) -> Any:
    """SNIA PTS results of the shared comparison's drives (as GET /api/compare/pts), without
    signing in."""
    _share, drives, under_review = service.live_share(session, token)
    return compare_pts(session, drives, under_review, hide_embargoed=True)


@router.get("/{token}/latency", response_model=CompareLatency)
def read_share_latency(
    token: str,
    session: SessionDep,
    plan: str = Query(..., description="plan key, e.g. qd-sweep"),
    step: str = Query(..., description="step name, e.g. randread-4k-qd32"),
) -> Any:
    """Latency QoS of one test for the shared comparison's drives (as GET
    /api/compare/latency), without signing in."""
    return service.shared_latency(session, token, plan, step)


@router.get("/{token}/qd-sweep", response_model=CompareSweeps)
def read_share_sweeps(token: str, session: SessionDep) -> Any:
    """Queue-depth sweeps of the shared comparison's drives (as GET /api/compare/qd-sweep),
    without signing in."""
    return service.shared_sweeps(session, token)


@router.get("/{token}/latency/steps", response_model=list[str])
def read_share_latency_steps(
    token: str,
    session: SessionDep,
    plan: str = Query(..., description="plan key, e.g. qd-sweep"),
) -> Any:
    """The steps with a latency histogram in the shared drives' latest runs of the plan."""
    return service.shared_latency_steps(session, token, plan)


@router.get("/{token}/prices", response_model=price_schemas.PriceTable)
def read_share_prices(
    token: str, session: SessionDep, currency: str = Query("USD", pattern="^[A-Z]{3}$")
) -> price_schemas.PriceTable:
    """The review's price table by capacity class (models under embargo left out), for the
    shared comparison's readers."""
    service.live_share(session, token)
    return price_table(session, currency, hide_embargoed=True)


@router.delete("/{token}", status_code=204)
def revoke_share(token: str, session: SessionDep, _user: Reviewer) -> None:
    """Revoke a share by its token or its id: the link answers 404 from now on."""
    service.revoke_share(session, token)
