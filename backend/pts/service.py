"""SNIA PTS runs: their rounds as the worker posts them, and the report of a run.

Every figure comes from fio's outputs through backend.analysis.pts: each round's element
figures are derived when the round is stored, the measurement window's histograms when the
step ends (backend.pts.derive), and the report reads both.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from backend.analysis import pts
from backend.core.errors import InvalidParams, NotFound
from backend.plans.catalog import PLANS
from backend.pts.models import StepRound
from backend.runs.models import Run, Step
from backend.runs.service import get_run

PTS_PLANS = (
    "pts-iops",
    "pts-throughput",
    "pts-latency",
    "pts-wsat",
    "pts-hir",
    "pts-xsr",
    "pts-dirth",
    "pts-ecw",
    "pts-cbw",
)
ROUNDS_ROLES = ("pts-rounds", "pts-wsat", "pts-hir-wait")
# Steps whose fio runs are posted one by one as rounds.
ROUND_KINDS = ("fio-rounds", "fio-points")


def save_round(
    session: Session, run: Run, step: Step, number: int, output: str, t_start: int, t_end: int
) -> bool:
    """Store a round (once: a resent round changes nothing); whether it was new. A
    demand-intensity sweep's dedicated point runs (`fio-points`) are stored as rounds too:
    one per point."""
    if step.kind not in ROUND_KINDS:
        raise InvalidParams(f"step {step.id} ({step.name}) is a {step.kind} step, not rounds")
    if session.get(StepRound, (step.id, number)) is not None:
        return False
    try:
        final = json.loads(output)
    except json.JSONDecodeError as exc:
        raise InvalidParams(f"round {number} is not fio's JSON: {exc}", field="output") from None
    if not isinstance(final, dict) or not isinstance(final.get("jobs"), list):
        raise InvalidParams(f"round {number} is not fio's JSON: it has no jobs", field="output")
    session.add(
        StepRound(
            step_id=step.id,
            round=number,
            run_id=run.id,
            t_start_ms=t_start,
            t_end_ms=t_end,
            summary=pts.round_summary(final),
            output_gz=gzip.compress(output.encode(), compresslevel=6),
        )
    )
    session.flush()
    return True


def round_rows(session: Session, step_id: int) -> list[StepRound]:
    """A step's rounds, first first, without their outputs."""
    return list(
        session.scalars(
            select(StepRound)
            .where(StepRound.step_id == step_id)
            .order_by(StepRound.round)
            .options(defer(StepRound.output_gz))
        )
    )


def tracked_values(step: Step, rows: list[StepRound]) -> list[float]:
    track = step.params.get("track") or {}
    return [pts.tracked_value(r.summary, track["element"], track["metric"]) for r in rows]


def convergence(step: Step, rows: list[StepRound]) -> dict[str, Any]:
    p = step.params
    return pts.convergence(
        tracked_values(step, rows),
        window=int(p.get("window", 5)),
        excursion_pct=float(p.get("excursion_pct", 20)),
        slope_pct=float(p.get("slope_pct", 10)),
    )


def live_round(step: Step, rows: list[StepRound]) -> dict[str, Any]:
    """The `round` event a run's viewers get when a round ends."""
    values = tracked_values(step, rows)
    return {
        "step_id": step.id,
        "round": rows[-1].round if rows else 0,
        "values": values,
        "convergence": convergence(step, rows),
    }


def _step_of(session: Session, run_id: int, step_id: int, hide_embargoed: bool) -> Step:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    step = session.scalar(select(Step).where(Step.id == step_id, Step.run_id == run_id))
    if step is None:
        raise NotFound(f"run {run_id} has no step {step_id}", field="step_id")
    return step


def list_rounds(
    session: Session, run_id: int, step_id: int, *, hide_embargoed: bool = False
) -> list[dict[str, Any]]:
    step = _step_of(session, run_id, step_id, hide_embargoed)
    return [
        {
            "round": r.round,
            "t_start_ms": r.t_start_ms,
            "t_end_ms": r.t_end_ms,
            "elements": r.summary,
        }
        for r in round_rows(session, step.id)
    ]


def round_output(
    session: Session, run_id: int, step_id: int, number: int, *, hide_embargoed: bool = False
) -> str:
    step = _step_of(session, run_id, step_id, hide_embargoed)
    row = session.get(StepRound, (step.id, number))
    if row is None:
        raise NotFound(f"step {step.id} ({step.name}) has no round {number}", field="round")
    return gzip.decompress(row.output_gz).decode()


def round_outputs(session: Session, step_id: int, numbers: list[int]) -> list[dict[str, Any]]:
    """fio's final JSON of the given rounds, parsed."""
    rows = session.scalars(
        select(StepRound.output_gz)
        .where(StepRound.step_id == step_id, StepRound.round.in_(numbers))
        .order_by(StepRound.round)
    )
    return [json.loads(gzip.decompress(blob)) for blob in rows]


def plan_title(key: str) -> str:
    plan = PLANS.get(key)
    return plan.title if plan else key
