"""A drive model's figures by firmware version: what a firmware update changed, and whether the
change is real (GET /api/models/{id}/firmware).

The firmware of a run is what the drive reported when the run started (when it reported none,
the one registered for it then: compare._run_info). For each metric, the runs of every drive of
the model measured under the same conditions as the latest (all but the firmware: span, block
size, queue depth, drive state, OP, fio version, ...) are pooled by firmware version; each
version's mean comes with its 95% interval, and each version is tested against the one before it
(in the order they were first run) with Welch's test and the practical threshold of
backend.analysis.significance, Benjamini-Hochberg over all the model's changes at once: an
improvement or a regression is called only when significant, else "within noise"; one run of
either version: unknown. Each drive's versions are listed too: any two open as an article of
that drive (backend.results.article.firmware_article).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from backend.analysis import significance
from backend.analysis.variation import variation
from backend.drives.catalog_service import get_model as get_catalog_model
from backend.drives.models import DriveSample
from backend.drives.service import capacity_label, drive_label
from backend.results import compare as cmp
from backend.results.names import is_performance, lower_is_better
from backend.results.names import names as metric_names

WORDS = {"better": "improvement", "worse": "regression"}
# The version of a run whose drive reported none and has none registered.
NOT_REPORTED = "not reported"


def _without_firmware(items: Any) -> Any:
    return tuple((k, v) for k, v in items if k != "firmware")


def history(session: Session, model_id: int, *, hide_embargoed: bool = False) -> dict[str, Any]:
    model = get_catalog_model(session, model_id, hide_embargoed=hide_embargoed)
    drives = {
        d.id: d
        for d in session.scalars(
            select(DriveSample)
            .where(DriveSample.model_id == model.id)
            .options(joinedload(DriveSample.model))
        )
    }
    runs = cmp._runs(session, list(drives)) if drives else []
    info: dict[int, Any] = {}
    run_cond: dict[int, dict[str, Any]] = {}
    for run in runs:
        info[run.id], run_cond[run.id] = cmp._run_info(run, drives[run.drive_id])
    run_ids = [r.id for r in runs]
    step_cond = cmp._step_conditions(cmp._steps(session, run_ids), run_cond) if runs else {}
    rows = cmp._with_variants(cmp._rows(session, run_ids), runs) if runs else []
    # The versions in the order they were first run.
    first_at: dict[str, Any] = {}
    for run in sorted(runs, key=lambda r: (r.finished_at, r.id)):
        fw = info[run.id].firmware or NOT_REPORTED
        first_at.setdefault(fw, run.finished_at)
    order = list(first_at)
    # metric -> [(firmware, conditions without firmware, value)], oldest run first
    by_metric: dict[str, list[tuple[str, Any, float]]] = defaultdict(list)
    units: dict[str, str] = {}
    for mid, _drive, run_id, value, unit, step_id in rows:
        found = step_cond.get(step_id)
        if found is None:
            continue
        by_metric[mid].append(
            (info[run_id].firmware or NOT_REPORTED, _without_firmware(found[0]), value)
        )
        units[mid] = unit
    shaped = []
    family: cmp.Family = []
    for mid in sorted(by_metric):
        entries = by_metric[mid]
        latest = entries[-1][1]
        pools: dict[str, list[float]] = defaultdict(list)
        for fw, c, value in entries:
            if c == latest:
                pools[fw].append(value)
        versions = [fw for fw in order if fw in pools]
        if len(versions) < 2:
            continue
        unit = units[mid]
        lower = lower_is_better(mid, unit)
        higher = (not lower) if is_performance(mid) else None
        for before, after in zip(versions, versions[1:], strict=False):
            family.append(((mid, before, after), pools[after], pools[before], higher))
        shaped.append((mid, unit, lower, versions, pools))
    tested = cmp._versus(family) if family else {}
    metrics = []
    for mid, unit, lower, versions, pools in shaped:
        changes = []
        for before, after in zip(versions, versions[1:], strict=False):
            t = dict(tested[mid, before, after])
            verdict = t.pop("verdict")
            changes.append(
                {
                    "from_firmware": before,
                    "to_firmware": after,
                    "from_runs": t.pop("runs"),
                    "to_runs": t.pop("review_runs"),
                    **t,
                    "verdict": WORDS.get(verdict, verdict) if verdict else None,
                }
            )
        metrics.append(
            {
                "metric": mid,
                "names": metric_names(mid),
                "unit": unit,
                "lower_is_better": lower,
                "performance": is_performance(mid),
                "by_firmware": [{"firmware": fw, "runs": variation(pools[fw])} for fw in versions],
                "changes": changes,
            }
        )
    return {
        "model_id": model.id,
        "label": f"{model.vendor} {model.model} {capacity_label(model.capacity_bytes)}",
        "simulated": model.simulated,
        "firmwares": [
            {
                "firmware": fw,
                "first_run_at": first_at[fw],
                "runs": sum((info[r.id].firmware or NOT_REPORTED) == fw for r in runs),
            }
            for fw in order
        ],
        "drives": [
            {
                "drive_id": d.id,
                "name": d.short_name or drive_label(d),
                "firmwares": list(
                    dict.fromkeys(
                        info[r.id].firmware or NOT_REPORTED
                        for r in sorted(runs, key=lambda r: (r.finished_at, r.id))
                        if r.drive_id == d.id
                    )
                ),
            }
            for d in sorted(drives.values(), key=lambda d: d.id)
            if any(r.drive_id == d.id for r in runs)
        ],
        "metrics": metrics,
        "method": (
            "Runs pooled by firmware under the latest result's conditions (all but firmware); "
            "each version against the one before: Welch's t-test, a difference called only when "
            f"shown larger than {significance.PRACTICAL_PCT:g}% (one-sided), q < "
            f"{significance.ALPHA:g} after Benjamini-Hochberg over all the model's changes."
        ),
    }
