"""Latency QoS across drives, for Compare: one test's latency distribution on each drive (QoS
figures, histogram, exceedance curve) and each drive's queue-depth sweep (its points and figures
per workload), with the conditions and provenance an exported chart states and warnings where
they differ. The figures are each run's own QoS (backend.results.qos): fio's IOPS and the
percentiles of each step's stored histogram."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis.qd_sweep import sweep_figures
from backend.core.errors import InvalidParams
from backend.drives.service import drive_label
from backend.results import conditions as cond
from backend.results.compare import _drives
from backend.results.compare_series import _conditions, _latest_runs
from backend.results.models import StepLatency
from backend.results.qos import (
    SWEEP_ROLE,
    _distributions,
    _latency_rows,
    _rates,
    _step_entry,
    sweep_points,
)
from backend.runs.models import Step


def latest_runs_and_steps(
    session: Session,
    drive_ids: list[int],
    plan: str,
    under_review: int | None,
    *,
    hide_embargoed: bool,
) -> tuple[dict[int, Any], dict[int, Any], dict[int, list[Step]]]:
    """The drives compared (checked: at least one, the drive under review among them), each
    one's latest finished run of the plan (see compare_series._latest_runs) and those runs'
    steps in order, their parameters loaded and nothing else."""
    if not drive_ids:
        raise InvalidParams("choose at least one drive: ?drives=1,2,3", field="drives")
    drives = _drives(session, drive_ids, hide_embargoed)
    if under_review is not None and under_review not in drives:
        raise InvalidParams(
            f"under_review {under_review} is not one of the compared drives", field="under_review"
        )
    runs = _latest_runs(session, list(drives), plan, None)
    run_steps: dict[int, list[Step]] = defaultdict(list)
    if runs:
        for s in session.scalars(
            select(Step)
            .options(
                load_only(
                    Step.id,
                    Step.run_id,
                    Step.idx,
                    Step.kind,
                    Step.name,
                    Step.status,
                    Step.params,
                    raiseload=True,
                )
            )
            .where(Step.run_id.in_([r[0].id for r in runs.values()]))
            .order_by(Step.run_id, Step.idx)
        ):
            run_steps[s.run_id].append(s)
    return drives, runs, run_steps


def compare_latency(
    session: Session,
    drive_ids: list[int],
    plan: str,
    step: str,
    under_review: int | None = None,
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """For each drive, its latest finished run of the plan and that run's step named `step`:
    QoS figures, histogram and exceedance curve, with the conditions and provenance an
    exported chart states, and warnings where conditions differ."""
    if not step:
        raise InvalidParams("choose a step by name, e.g. randread-4k-qd32", field="step")
    drives, runs, run_steps = latest_runs_and_steps(
        session, drive_ids, plan, under_review, hide_embargoed=hide_embargoed
    )
    wanted: dict[int, Step] = {}
    befores: dict[int, str] = {}
    for steps in run_steps.values():
        states = cond.state_before(
            [(s.kind, s.name, s.params.get("role"), s.status == "done") for s in steps]
        )
        befores.update({s.id: b for s, b in zip(steps, states, strict=True)})
        for s in steps:
            if s.name == step and s.status == "done":
                wanted[s.run_id] = s
    rows = _latency_rows(session, [s.id for s in wanted.values()])
    out: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    notes: list[tuple[str, Any, bool]] = []
    for drive_id in dict.fromkeys(drive_ids):
        drive = drives[drive_id]
        label = drive_label(drive)
        found = runs.get(drive_id)
        chosen = wanted.get(found[0].id) if found else None
        if found is None or chosen is None or not rows.get(chosen.id):
            reason = f"no finished {plan} run" if found is None else f"no step {step} with latency"
            missing.append({"drive_id": drive_id, "label": label,
                            "short_name": drive.short_name, "reason": reason})  # fmt: skip
            continue
        run, firmware, fio_version, host, resumed = found
        out.append(
            {
                "drive_id": drive_id,
                "label": label,
                "short_name": drive.short_name,
                "simulated": drive.model.simulated,
                "under_review": drive_id == under_review,
                "run_id": run.id,
                "step_id": chosen.id,
                "step_label": str(chosen.params.get("label") or chosen.name),
                "conditions": _conditions(run, firmware, fio_version, [chosen], befores, drive),
                **_distributions(rows[chosen.id]),
            }
        )
        notes.append((drive.short_name or drive.model.model, host, resumed))
    warnings = cond.warnings(
        [(d["short_name"] or drives[d["drive_id"]].model.model,
          tuple(d["conditions"]["compared"].items())) for d in out],
        notes,
    )  # fmt: skip
    return {"plan": plan, "step": step, "drives": out, "missing": missing, "warnings": warnings}


def step_names(session: Session, drive_ids: list[int], plan: str) -> list[str]:
    """The names of the steps with a latency histogram in the drives' latest runs of plan."""
    runs = _latest_runs(session, drive_ids, plan, None)
    if not runs:
        return []
    names = session.scalars(
        select(Step.name)
        .join(StepLatency, StepLatency.step_id == Step.id)
        .where(Step.run_id.in_([r[0].id for r in runs.values()]))
        .order_by(Step.idx)
    )
    return list(dict.fromkeys(names))


# --- queue-depth sweeps ------------------------------------------------------------------

PLAN = "qd-sweep"


def _depths(points: list[dict[str, Any]], numjobs: int) -> str:
    """The queue depths a workload was swept at, as a condition: "QD1, 8" or "QD1, 4 x 2 jobs"."""
    text = "QD" + ", ".join(str(p["qd"]) for p in points)
    return text + (f" x {numjobs} jobs" if numjobs > 1 else "")


def compare_sweeps(
    session: Session,
    drive_ids: list[int],
    under_review: int | None = None,
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """For each drive, its latest finished qd-sweep run: per workload the points and the
    figures (peak IOPS, the lowest QD reaching 95% of it, the highest IOPS whose p99 meets
    the run's latency target), with the run's conditions. Warnings name every condition the
    drives' sweeps differ in, the queue depths swept and the latency target among them."""
    drives, runs, run_steps = latest_runs_and_steps(
        session, drive_ids, PLAN, under_review, hide_embargoed=hide_embargoed
    )
    sweep_ids = [
        s.id
        for steps in run_steps.values()
        for s in steps
        if s.params.get("role") == SWEEP_ROLE and s.status == "done"
    ]
    rows = _latency_rows(session, sweep_ids)
    rates = _rates(session, sweep_ids)
    out: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    compared: list[tuple[str, cond.Items]] = []
    notes: list[tuple[str, Any, bool]] = []
    targets: dict[float, list[str]] = defaultdict(list)
    for drive_id in dict.fromkeys(drive_ids):
        drive = drives[drive_id]
        label = drive_label(drive)
        name = drive.short_name or drive.model.model
        found = runs.get(drive_id)
        steps = run_steps.get(found[0].id, []) if found else []
        sweep = [s for s in steps if s.id in rows and rows[s.id]]
        if found is None or not sweep:
            missing.append(
                {
                    "drive_id": drive_id,
                    "label": label,
                    "short_name": drive.short_name,
                    "reason": f"no finished {PLAN} run" if found is None else "no measured points",
                }
            )
            continue
        run, firmware, fio_version, host, resumed = found
        entries = [_step_entry(s, rows[s.id], rates.get(s.id, {})) for s in sweep]
        target = float(run.params.get("latency_target_us") or 1000.0)
        numjobs = int(sweep[0].params.get("numjobs", 1) or 1)
        points = sweep_points(entries)
        workloads = [
            {"workload": w, "points": pts, "figures": sweep_figures(pts, target)}
            for w, pts in points.items()
        ]
        befores = dict(
            zip(
                [s.id for s in steps],
                cond.state_before(
                    [(s.kind, s.name, s.params.get("role"), s.status == "done") for s in steps]
                ),
                strict=True,
            )
        )
        conditions = _conditions(run, firmware, fio_version, [sweep[0]], befores, drive)
        # A sweep's queue depth is the list it was swept at, not its first point's.
        conditions["compared"]["queue depth"] = _depths(next(iter(points.values())), numjobs)
        out.append(
            {
                "drive_id": drive_id,
                "label": label,
                "short_name": drive.short_name,
                "simulated": drive.model.simulated,
                "under_review": drive_id == under_review,
                "run_id": run.id,
                "numjobs": numjobs,
                "latency_target_us": target,
                "conditions": conditions,
                "workloads": workloads,
            }
        )
        compared.append((name, tuple(conditions["compared"].items())))
        notes.append((name, host, resumed))
        targets[target].append(name)
    warnings = cond.warnings(compared, notes)
    if len(targets) > 1:
        warnings.append(
            "measured against different latency targets: "
            + "; ".join(f"{t:g} µs ({', '.join(sorted(n))})" for t, n in sorted(targets.items()))
        )
    return {"plan": PLAN, "drives": out, "missing": missing, "warnings": warnings}
