"""The figures of the mixed random / mixed sequential plan (backend.plans.mixed), from fio's
totals: each step's total MB/s and IOPS (reads and writes together) when it ends, and on each
part's summary step the curve against the share of writes and its average
(backend.analysis.mixed)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis.fio_results import direction_summary
from backend.analysis.mixed import summarize
from backend.plans.mixed import STEP_ROLE
from backend.results.models import Result
from backend.runs.models import Step

Metric = tuple[str, float, str]
WANTED = ("read_mbps", "write_mbps", "read_iops", "write_iops")


def derive_mixed_step(step: Step, final: dict[str, Any] | None) -> tuple[list[Metric], dict]:
    """A step's total MB/s (and IOPS for the random part): fio's read and write totals added,
    each fio's own io_bytes over its runtime."""
    if not final:
        return [], {}
    parts = [direction_summary(final, d) for d in ("read", "write")]
    found = [p for p in parts if p is not None]
    if not found:
        return [], {}
    metrics: list[Metric] = [("mixed_mbps", sum(p["mbps"] for p in found), "MB/s")]
    if step.params.get("part") == "random":
        metrics.append(("mixed_iops", sum(p["iops"] for p in found), "IOPS"))
    return metrics, {}


def derive_mixed(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """A part's figures on its summary step, from the run's finished steps of that part."""
    part = str(step.params.get("part") or "")
    steps = [
        s
        for s in session.scalars(
            select(Step)
            .options(load_only(Step.id, Step.name, Step.params))
            .where(Step.run_id == step.run_id, Step.status == "done")
            .order_by(Step.idx)
        )
        if s.params.get("role") == STEP_ROLE and s.params.get("part") == part
    ]
    values: dict[int, dict[str, float]] = {s.id: {} for s in steps}
    if values:
        for step_id, metric, value in session.execute(
            select(Result.step_id, Result.metric, Result.value).where(
                Result.step_id.in_(list(values)), Result.metric.in_(WANTED)
            )
        ):
            if step_id is not None:
                values[step_id][metric] = value
    points = [
        {"write_pct": int(s.params["write_pct"]), "step": s.name, **values[s.id]}
        for s in steps
        if values[s.id]
    ]
    found = summarize(part, points)
    if found is None:
        return [], {}
    metrics: list[Metric] = [
        ("mixed_avg_mbps", found["avg_mbps"], "MB/s"),
        ("mixed_min_mbps", found["min_mbps"], "MB/s"),
        ("mixed_min_write_pct", float(found["min_write_pct"]), "%"),
        ("mixed_max_mbps", found["max_mbps"], "MB/s"),
    ]
    if part == "random":
        metrics.insert(1, ("mixed_avg_iops", found["avg_iops"], "IOPS"))
    return metrics, {"mixed": found}
