from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from backend.core.deps import CurrentUser
from backend.plans.base import Plan
from backend.plans.catalog import PLANS, get_plan

router = APIRouter(prefix="/api/plans", tags=["plans"])


class PlanOut(BaseModel):
    key: str
    title: str
    description: str
    destructive: bool
    params_schema: dict[str, Any]


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
