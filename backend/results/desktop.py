"""The figures of the CrystalDiskMark-style preset (backend.plans.desktop_preset), derived on
each test's summary step when it ends: the best of the test's passes, from fio's totals."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.plans.desktop_preset import PASS_ROLE
from backend.results.models import Result
from backend.runs.models import Step

Metric = tuple[str, float, str]


def derive_desktop(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """A test's figures on its summary step: the best of the run's finished passes of that
    test (fio's own MB/s, from its totals), with that pass's IOPS and mean latency."""
    test = step.params.get("test")
    direction = "read" if str(test).endswith("-read") else "write"
    passes = list(
        session.scalars(
            select(Step)
            .options(load_only(Step.id, Step.name, Step.params))
            .where(Step.run_id == step.run_id, Step.status == "done")
            .order_by(Step.idx)
        )
    )
    mine = [s for s in passes if s.params.get("role") == PASS_ROLE and s.params.get("test") == test]
    wanted = [f"{direction}_{m}" for m in ("mbps", "iops", "lat_mean_us")]
    values: dict[int, dict[str, float]] = {s.id: {} for s in mine}
    for step_id, metric, value in session.execute(
        select(Result.step_id, Result.metric, Result.value).where(
            Result.step_id.in_(list(values)), Result.metric.in_(wanted)
        )
    ):
        if step_id is not None:
            values[step_id][metric] = value
    figures = {
        s.id: {m.removeprefix(f"{direction}_"): v for m, v in values[s.id].items()}
        for s in mine
        if f"{direction}_mbps" in values[s.id]
    }
    if not figures:
        return [], {}
    best_id = max(figures, key=lambda i: figures[i]["mbps"])
    best = figures[best_id]
    units = {"mbps": "MB/s", "iops": "IOPS", "lat_mean_us": "µs"}
    metrics: list[Metric] = [
        (f"{direction}_{m}", best[m], unit) for m, unit in units.items() if m in best
    ]
    metrics.append(("passes", float(len(figures)), "passes"))
    number = {s.id: int(s.params.get("pass") or 0) for s in mine}
    rows: list[dict[str, Any]] = [
        {"step": s.name, "number": number[s.id], **figures[s.id]} for s in mine if s.id in figures
    ]
    analysis = {
        "cdm": {
            "test": test,
            "label": step.params.get("cdm_label"),
            "direction": direction,
            "best_pass": number[best_id],
            "passes": rows,
        }
    }
    return metrics, analysis
