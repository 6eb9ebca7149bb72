"""`/api/admin/retention`: the lab's retention setting, and compacting old runs now (admins)."""

from __future__ import annotations

from fastapi import APIRouter

from backend.core.deps import Admin, SessionDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.retention import service
from backend.retention.models import RetentionPolicy
from backend.retention.schemas import CompactIn, CompactOut, RetentionPolicyIn, RetentionPolicyOut

router = APIRouter(prefix="/api/admin/retention", tags=["retention"], route_class=FiniteJSONRoute)


def _out(session: SessionDep, policy: RetentionPolicy) -> RetentionPolicyOut:
    eligible = service.eligible_runs(session, policy.days) if policy.days else None
    return RetentionPolicyOut(
        days=policy.days,
        points=policy.points,
        updated_at=policy.updated_at,
        updated_by=policy.updated_by,
        eligible_runs=eligible,
    )


@router.get("", response_model=RetentionPolicyOut)
def get_retention(session: SessionDep, _admin: Admin) -> RetentionPolicyOut:
    """The retention period, and how many finished runs it would compact now."""
    return _out(session, service.get_policy(session))


@router.put("", response_model=RetentionPolicyOut)
def put_retention(body: RetentionPolicyIn, session: SessionDep, admin: Admin) -> RetentionPolicyOut:
    """Set the retention period (recorded in the audit log). Nothing is compacted until
    `POST /api/admin/retention/compact` or `drivelab retention compact` runs."""
    return _out(session, service.set_policy(session, admin, body.days, body.points))


@router.post("/compact", response_model=CompactOut)
def compact(body: CompactIn, session: SessionDep, admin: Admin) -> CompactOut:
    """Compact the samples and window logs of runs that finished more than `days` ago; every
    result, analysis and fio JSON output stays as it is. Recorded in the audit log."""
    done = service.compact(session, admin, days=body.days, points=body.points, limit=body.limit)
    return CompactOut(**done.as_dict())
