from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from backend.results.schemas import Comparison


class ShareCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    drives: list[int] = Field(min_length=1, max_length=50, description="Drive ids to compare.")
    metrics: list[str] | None = Field(
        None, max_length=500, description="plan:step:metric names; every metric when omitted."
    )
    added_metrics: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="plan:step:metric names added as charts of their own on the Compare page "
        '("Add a metric"); the shared page draws them after the headline ones.',
    )
    under_review: int | None = Field(None, description="The drive under review, highlighted.")
    title: str = Field(min_length=1, max_length=200)


class ShareOut(BaseModel):
    id: int
    title: str
    drives: list[int]
    metrics: list[str] | None
    added_metrics: list[str]
    under_review: int | None
    created_by: str | None
    created_at: datetime
    revoked_at: datetime | None
    views: int = Field(0, description="times the shared page was opened")
    last_viewed_at: datetime | None = None
    drive_names: list[str] = Field(
        default_factory=list, description="the drives compared, named as the pages name them"
    )


class NewShare(ShareOut):
    token: str = Field(description="Shown once; only its sha256 is stored.")
    url: str = Field(description="The read-only link: GET it without signing in (JSON).")
    page_url: str = Field(description="The same comparison as a page: open it without signing in.")


class SharedDrive(BaseModel):
    id: int
    label: str
    short_name: str | None
    simulated: bool


class SharedComparison(BaseModel):
    title: str
    created_at: datetime
    under_review: int | None
    added_metrics: list[str] = Field(
        default_factory=list, description="Metrics drawn as charts after the headline ones."
    )
    drives: list[SharedDrive] = Field(
        default_factory=list,
        description="The drives compared, in the order chosen, without those under embargo.",
    )
    comparison: Comparison = Field(
        description="As GET /api/compare returns it, without drives under embargo."
    )
