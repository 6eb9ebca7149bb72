"""Every chart of a comparison in one answer (GET /api/compare/charts and a shared link's
/charts): what the Compare, Report and Shared pages draw below the bars on first open.

The pages used to ask for each chart family separately (six series, the latency tests, the
queue-depth sweeps, PTS, prices): ~15 calls per open that queued in the api behind each other.
This answers them together with the same services, so each part is exactly what its own
endpoint gives; a chart whose control is changed (another HD Tach source, another latency
test) still asks its own endpoint.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.prices.service import price_table
from backend.pts.compare import compare_pts
from backend.results import chart_digests
from backend.results.compare import _drives
from backend.results.compare_series import (
    DEFAULT_METRIC,
    PLAN_KINDS,
    SERIES_STEP_COLUMNS,
    charted,
    compare_series,
    draw_steps,
    latest_runs_once,
)
from backend.results.qos_compare import compare_latency, compare_sweeps, step_names
from backend.runs.models import Run, Step

# The series each chart asks for on first open (plan, metric, points, op_percent): the
# frontend's components ask for exactly these (frontend/src/api/results/charts.ts).
FIRST_SERIES: tuple[tuple[str, str | None, int, int | None], ...] = (
    ("hdtach", None, 400, None),
    ("consistency", None, 2000, 0),
    ("consistency", None, 2000, 25),
    ("transfer-size", None, 650, None),
    ("write-hitching", None, 1000, None),
    ("trim-performance", None, 1000, None),
)
# The latency chart's first test: qd-sweep's when the drives have one, else four corners';
# the first measured step, not a pre-write or preconditioning pass (compare-qos.tsx).
SWEEP_PLAN = "qd-sweep"
FALLBACK_PLAN = "four-corners"
NOT_MEASURED = re.compile(r"^(prewrite|fill|precondition)")
CURRENCY = "USD"


def first_latency_step(names: list[str]) -> str | None:
    measured = [n for n in names if not NOT_MEASURED.match(n)]
    return measured[0] if measured else (names[0] if names else None)


def compare_charts(
    session: Session,
    drive_ids: list[int],
    under_review: int | None,
    *,
    hide_embargoed: bool,
    raw: bool = False,
) -> dict[str, Any]:
    """The first-open data of every chart for these drives (see the module's docstring); with
    `raw`, the kept chart entries as their JSON text (compare_series)."""
    with latest_runs_once(session):
        return _charts(session, drive_ids, under_review, hide_embargoed=hide_embargoed, raw=raw)


def _charts(
    session: Session,
    drive_ids: list[int],
    under_review: int | None,
    *,
    hide_embargoed: bool,
    raw: bool,
) -> dict[str, Any]:
    found = _drives(session, drive_ids, hide_embargoed)
    series = [
        {
            "plan": plan,
            "metric": metric,
            "points": points,
            "op_percent": op,
            "answer": compare_series(
                session,
                drive_ids,
                plan,
                metric,
                points,
                op,
                hide_embargoed=hide_embargoed,
                drives_found=found,
                raw=raw,
            ),
        }
        for plan, metric, points, op in FIRST_SERIES
    ]
    steps = {SWEEP_PLAN: step_names(session, list(found), SWEEP_PLAN)}
    plan = SWEEP_PLAN if steps[SWEEP_PLAN] else FALLBACK_PLAN
    if plan not in steps:
        steps[plan] = step_names(session, list(found), plan)
    step = first_latency_step(steps[plan])
    latency = (
        compare_latency(session, drive_ids, plan, step, under_review, hide_embargoed=hide_embargoed)
        if step
        else None
    )
    return {
        "drives": drive_ids,
        "under_review": under_review,
        "series": series,
        "latency_steps": [{"plan": p, "steps": s} for p, s in steps.items()],
        "latency": latency,
        "qd_sweep": compare_sweeps(session, drive_ids, under_review, hide_embargoed=hide_embargoed),
        "pts": compare_pts(session, drive_ids, under_review, hide_embargoed=hide_embargoed),
        "prices": price_table(session, CURRENCY, hide_embargoed=hide_embargoed).model_dump(
            mode="json"
        ),
    }


def make_for_run(session: Session, run_id: int) -> int:
    """Draw the first-open charts of a run that just finished done (FIRST_SERIES of its
    plan) and keep them (chart_digests), so that the first comparison that shows it reads them
    instead of its samples and window logs; returns how many step entries were drawn."""
    run = session.get(Run, run_id)
    if run is None or run.status != "done":
        return 0
    charts = {(metric, points) for plan, metric, points, _op in FIRST_SERIES if plan == run.plan}
    kind = PLAN_KINDS.get(run.plan)
    if not charts or kind not in chart_digests.KINDS:
        return 0
    steps = [
        s
        for s in session.scalars(
            select(Step)
            .options(load_only(*SERIES_STEP_COLUMNS, raiseload=True))
            .where(Step.run_id == run_id, Step.status == "done")
            .order_by(Step.idx)
        )
        if charted(kind, str(s.params.get("role") or ""))
    ]
    drawn = 0
    for metric, points in sorted(charts, key=str):
        drawn += len(
            draw_steps(session, kind, steps, metric or DEFAULT_METRIC[kind], points, raw=True)
        )
    return drawn


def empty_charts(under_review: int | None) -> dict[str, Any]:
    """A shared link whose drives are all under embargo now: every chart empty."""
    return {
        "drives": [],
        "under_review": under_review,
        "series": [],
        "latency_steps": [],
        "latency": None,
        "qd_sweep": {"plan": SWEEP_PLAN, "drives": [], "missing": [], "warnings": []},
        "pts": None,
        "prices": None,
    }
