"""The job file a worker reports for a step must be the stored one, retargeted only: a file
copy's job files have no target (files on the step's own filesystem) and must match exactly."""

from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.base import DriveContext
from backend.plans.catalog import compile_plan
from backend.runs.models import Step
from backend.runs.worker_service import _job_file_run

DRIVE = DriveContext("/dev/disk/by-id/x", 2 * 1024**3, "S")


def stored(kind: str, job_file: str) -> Step:
    return Step(id=1, name="s", kind=kind, job_file=job_file, params={})


def test_a_file_copys_job_file_is_taken_as_stored_and_only_so() -> None:
    _p, _params, steps = compile_plan(
        "file-copy", {"file_size": "8m", "copy_size": "64m", "purge": False}, DRIVE
    )
    job = steps[0].job_file or ""
    assert _job_file_run(stored("file-copy", job), job) == job
    changed = job.replace("directory=/dev/drivelab-fs", "directory=/")
    with pytest.raises(InvalidParams, match="differs from the run's"):
        _job_file_run(stored("file-copy", job), changed)
    # Another step kind without a target is refused as before.
    with pytest.raises(InvalidParams, match="differs from the run's"):
        _job_file_run(stored("fio", job), job)
