from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from backend.core.deps import CurrentUser, SessionDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.drives.service import get_drive, sees_embargoed
from backend.plans.base import Plan
from backend.plans.catalog import PLANS, get_plan
from backend.runs import service as runs_service

router = APIRouter(prefix="/api/plans", tags=["plans"], route_class=FiniteJSONRoute)


class PlanOut(BaseModel):
    key: str
    title: str
    description: str
    destructive: bool
    params_schema: dict[str, Any]


class EstimateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    drive_id: int = Field(description="Drive sample id, see GET /api/drives.")
    params: dict[str, Any] = Field(default_factory=dict, description="Plan parameters.")


class StepEstimate(BaseModel):
    idx: int
    kind: str
    name: str
    label: str
    estimate_s: float


class PlanEstimate(BaseModel):
    plan: str
    drive_id: int
    destructive: bool
    params: dict[str, Any] = Field(description="The parameters with every default filled in.")
    steps: list[StepEstimate]
    estimate_s: float = Field(description="Sum of the steps' estimates, in seconds.")
    notes: list[str] = Field(description="What the plan leaves out or qualifies on this drive.")


def plan_out(plan: Plan) -> PlanOut:
    return PlanOut(
        key=plan.key,
        title=plan.title,
        description=plan.description,
        destructive=plan.destructive,
        params_schema=plan.params_schema(),
    )


@router.get("", response_model=list[PlanOut])
def list_plans(_user: CurrentUser) -> list[PlanOut]:
    """Every plan: its key, title, whether it writes to the drive, and its parameter schema."""
    return [plan_out(p) for p in PLANS.values()]


@router.get("/{key}", response_model=PlanOut)
def show_plan(key: str, _user: CurrentUser) -> PlanOut:
    return plan_out(get_plan(key))


@router.post("/{key}/estimate", response_model=PlanEstimate)
def estimate_plan(
    key: str, data: EstimateIn, session: SessionDep, user: CurrentUser
) -> PlanEstimate:
    """Compile the plan for a drive without queueing anything: the steps it would run and how
    long each should take. Invalid parameters are refused as POST /api/runs refuses them (422
    with the `field` at fault), so a form can check each value as it is typed."""
    drive = get_drive(session, data.drive_id, hide_embargoed=not sees_embargoed(user))
    plan, params, steps = runs_service.compile_for_drive(session, key, data.params, drive)
    notes = steps[0].params.get("notes", []) if steps else []
    return PlanEstimate(
        plan=plan.key,
        drive_id=drive.id,
        destructive=plan.destructive,
        params=params,
        steps=[
            StepEstimate(
                idx=i,
                kind=s.kind,
                name=s.name,
                label=str(s.params.get("label", s.name)),
                estimate_s=s.estimate_s,
            )
            for i, s in enumerate(steps)
        ],
        estimate_s=sum(s.estimate_s for s in steps),
        notes=[str(n) for n in notes] if isinstance(notes, list) else [str(notes)],
    )
