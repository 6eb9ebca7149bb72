"""Every table of drivelab, imported in one place for Alembic and the tests."""

from backend.benches.models import Bench
from backend.core.db import Base
from backend.drives.models import DriveModel, DriveSample
from backend.prices.models import Price
from backend.results.models import Result
from backend.runs.models import Run, Sample, Step
from backend.traces.models import Trace
from backend.users.models import User

__all__ = [
    "Base",
    "Bench",
    "DriveModel",
    "DriveSample",
    "Price",
    "Result",
    "Run",
    "Sample",
    "Step",
    "Trace",
    "User",
]
