"""The figures of the QD1 burst plan (backend.plans.bursts), derived on each test's summary step
(the idle after its last burst) when it ends: every burst's IOPS and MB/s from fio's totals of
that burst's own run (its bytes over its own runtime, not diluted by the idle), their mean, the
slowest and fastest burst and their spread, and the idle each burst had before it, measured on
fio's clock (from the end of the burst before to this burst's start)."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.plans.bursts import BURST_ROLE, PREFILL_ROLE
from backend.results.models import Result
from backend.runs.models import Step

Metric = tuple[str, float, str]


def _window_s(output: str | None) -> tuple[float, float] | None:
    """(start, end) of a fio step's job in epoch seconds, from its final JSON: printed at
    `timestamp_ms`, after the job ran `job_runtime` ms."""
    with contextlib.suppress(ValueError, TypeError, KeyError):
        final = json.loads(output or "")
        runtime = max(int(j.get("job_runtime", 0)) for j in final["jobs"]) / 1000.0
        end = int(final["timestamp_ms"]) / 1000.0
        return end - runtime, end
    return None


def summarize(bursts: list[dict[str, Any]], direction: str) -> dict[str, Any]:
    """Mean, slowest, fastest and spread (standard deviation over the mean, %) of the bursts'
    IOPS and MB/s. Pure: rows with `iops` and `mbps` in, a dict out."""
    out: dict[str, Any] = {"bursts": len(bursts), "direction": direction}
    for key in ("iops", "mbps"):
        values = [float(b[key]) for b in bursts]
        mean = sum(values) / len(values)
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
        out[f"{key}_mean"] = mean
        out[f"{key}_min"] = min(values)
        out[f"{key}_max"] = max(values)
        out[f"{key}_spread_pct"] = 100.0 * std / mean if mean > 0 else 0.0
    return out


def note(summary: dict[str, Any], label: str) -> str:
    """The finding in words, with what the method can and cannot see."""
    unit, key = ("MB/s", "mbps") if "128K" in label else ("IOPS", "iops")
    fmt = (lambda v: f"{v:.1f}") if unit == "MB/s" else (lambda v: f"{v:,.0f}")
    idle = summary.get("idle_min_s")
    text = (
        f"{label}: {fmt(summary[f'{key}_mean'])} {unit} over {summary['bursts']} "
        f"burst{'s' if summary['bursts'] != 1 else ''} "
        f"(slowest {fmt(summary[f'{key}_min'])}, fastest {fmt(summary[f'{key}_max'])}, spread "
        f"{summary[f'{key}_spread_pct']:.1f}%)"
    )
    if idle is not None:
        text += f", at least {idle:.1f} s idle before each"
    return text + (
        "; each burst is timed by fio to the millisecond and includes fio's own time per I/O "
        "(the host's, at QD1); a burst shorter than 0.1 s is known to 1% or worse"
    )


def derive_bursts(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """A test's figures on its summary step: its finished bursts, from fio's totals."""
    test = step.params.get("test")
    direction = "read" if str(test).endswith("-read") else "write"
    steps = list(
        session.scalars(
            select(Step)
            # Not the logs nor the stderr: the fio outputs give the bursts' clocks.
            .options(load_only(Step.id, Step.name, Step.status, Step.params, Step.output))
            .where(Step.run_id == step.run_id, Step.idx < step.idx)
            .order_by(Step.idx)
        )
    )
    mine = [
        s
        for s in steps
        if s.status == "done"
        and s.params.get("role") == BURST_ROLE
        and s.params.get("test") == test
    ]
    wanted = [f"{direction}_{m}" for m in ("iops", "mbps", "bytes", "runtime_s", "lat_mean_us")]
    values: dict[int, dict[str, float]] = {s.id: {} for s in mine}
    for step_id, metric, value in session.execute(
        select(Result.step_id, Result.metric, Result.value).where(
            Result.step_id.in_(list(values)), Result.metric.in_(wanted)
        )
    ):
        if step_id is not None:
            values[step_id][metric.removeprefix(f"{direction}_")] = value
    # The fio step before each burst (the burst before it, or the prefill): the idle between.
    fio_steps = [
        s
        for s in steps
        if s.status == "done" and s.params.get("role") in (BURST_ROLE, PREFILL_ROLE)
    ]
    before = {}
    for prev_step, next_step in zip(fio_steps, fio_steps[1:], strict=False):
        before[next_step.id] = prev_step
    rows: list[dict[str, Any]] = []
    for s in mine:
        v = values[s.id]
        if "iops" not in v or "mbps" not in v:
            continue
        row: dict[str, Any] = {"step": s.name, "burst": int(s.params.get("burst") or 0), **v}
        this = _window_s(s.output)
        prev = before.get(s.id)
        last = _window_s(prev.output) if prev is not None else None
        if this is not None:
            row["start_epoch_s"] = this[0]
        if this is not None and last is not None and this[0] > last[1]:
            row["idle_before_s"] = this[0] - last[1]
        rows.append(row)
    if not rows:
        return [], {}
    summary = summarize(rows, direction)
    idles = [r["idle_before_s"] for r in rows if "idle_before_s" in r]
    summary["idle_min_s"] = min(idles) if idles else None
    label = str(step.params.get("burst_label") or test)
    metrics: list[Metric] = [
        (f"{direction}_iops", summary["iops_mean"], "IOPS"),
        (f"{direction}_mbps", summary["mbps_mean"], "MB/s"),
        (f"{direction}_iops_min", summary["iops_min"], "IOPS"),
        (f"{direction}_iops_max", summary["iops_max"], "IOPS"),
        (f"{direction}_mbps_min", summary["mbps_min"], "MB/s"),
        (f"{direction}_mbps_max", summary["mbps_max"], "MB/s"),
        ("burst_spread_pct", summary["iops_spread_pct"], "%"),
        ("bursts", float(summary["bursts"]), "bursts"),
    ]
    if summary["idle_min_s"] is not None:
        metrics.append(("burst_idle_min_s", summary["idle_min_s"], "s"))
    analysis = {
        "bursts": {
            "test": test,
            "label": label,
            **summary,
            "idle_s": step.params.get("seconds"),
            "rows": rows,
            "note": note(summary, label),
        }
    }
    return metrics, analysis
