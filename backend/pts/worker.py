"""What a bench worker asks of the api for a SNIA PTS run besides posting its rounds
(backend.runs.worker_service stores those): the IOPS points at which a DIRTH or ECW sweep's
dedicated runs are made."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from backend.analysis import pts
from backend.benches.models import Bench
from backend.core.errors import Conflict, InvalidParams
from backend.plans.pts_dirth import POINTS_ROLE
from backend.pts.derive import sweep_di
from backend.runs.worker_service import run_step_of, running_run


def point_runs(session: Session, bench: Bench, run_id: int, step_id: int) -> list[dict[str, Any]]:
    """The distinct TC x QD points of the sweep's maximum, middle and minimum IOPS points,
    computed from its stored rounds by the code the report uses (backend.pts.derive.sweep_di):
    asked again when a run is resumed, it gives the same points."""
    run = running_run(session, bench, run_id)
    step = run_step_of(run, step_id)
    if step.params.get("role") != POINTS_ROLE:
        raise InvalidParams(
            f"step {step.id} ({step.name}) of run {run_id} is not a sweep's point runs",
            field="step_id",
        )
    name = step.params.get("sweep")
    sweep = next((s for s in run.steps if s.name == name), None)
    if sweep is None or sweep.status != "done":
        state = "missing" if sweep is None else sweep.status
        raise Conflict(
            f"the sweep {name!r} of run {run_id} is {state}: the IOPS points come from its "
            "finished rounds"
        )
    di = sweep_di(session, sweep)
    runs = pts.point_runs(di) if di else []
    if not runs:
        raise Conflict(f"the sweep {name!r} of run {run_id} found no IOPS point to run")
    return runs
