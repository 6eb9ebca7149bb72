"""Every table of drivelab, imported in one place for Alembic and the tests."""

from backend.audit.models import AuditEvent
from backend.benches.models import Bench
from backend.core.db import Base
from backend.drives.models import DriveModel, DriveSample
from backend.prices.models import Price
from backend.pts.models import StepRound
from backend.results.models import Result, RunDigest, StepChart, StepLatency
from backend.retention.models import RetentionPolicy
from backend.runs.models import Run, Sample, Step
from backend.shares.models import Share
from backend.traces.models import Trace
from backend.users.models import ApiToken, LoginLink, LoginSession, User

__all__ = [
    "ApiToken",
    "AuditEvent",
    "Base",
    "Bench",
    "DriveModel",
    "DriveSample",
    "LoginLink",
    "LoginSession",
    "Price",
    "Result",
    "RetentionPolicy",
    "Run",
    "RunDigest",
    "Sample",
    "Share",
    "Step",
    "StepChart",
    "StepLatency",
    "StepRound",
    "Trace",
    "User",
]
