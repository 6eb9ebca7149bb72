"""Results a review quotes, derived from stored fio outputs, samples and logs by the pure code
in backend.analysis when a step ends."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.consistency import dropoff, iops_stats
from backend.analysis.fio_results import job_runtime_ms
from backend.analysis.hdtach import step_downs, throughput_vs_position
from backend.analysis.intervals import fold_short_tail
from backend.analysis.slc import cache_size, recovered
from backend.analysis.stalls import (
    confirm_with_samples,
    sample_intervals,
    stalls_in_samples,
    stalls_in_window_log,
)
from backend.analysis.trace import replay_metrics, size_breakdown
from backend.plans.as_ssd import SCORE_ROLE as AS_SSD_SCORE_ROLE
from backend.plans.bursts import SUMMARY_ROLE as BURSTS_SUMMARY_ROLE
from backend.plans.desktop_preset import SUMMARY_ROLE
from backend.plans.file_copy import ROLE as FILE_COPY_ROLE
from backend.plans.full_drive import FULL_ROLE
from backend.plans.mixed import STEP_ROLE as MIXED_STEP
from backend.plans.mixed import SUMMARY_ROLE as MIXED_SUMMARY
from backend.plans.pts_dirth import POINTS_ROLE
from backend.plans.slc_cache import FILL_ROLE, REFILL_ROLE
from backend.pts.derive import derive_points, derive_rounds, derive_xsr
from backend.pts.service import ROUNDS_ROLES
from backend.results import heat
from backend.results.bursts import derive_bursts
from backend.results.file_copy import derive_file_copy
from backend.results.fullstate import derive_full
from backend.results.thermal import ROLES as THERMAL_ROLES
from backend.runs.models import SAMPLE_ROWS, Step
from backend.traces.models import Trace

Metric = tuple[str, float, str]

log = logging.getLogger("drivelab.results")

STALL_ROLES = ("hitch-seq", "hitch-rand", "trim-followup-write")


# While `derive` runs, the samples each step's analysis read, by step id, in session.info: the
# heat attribution (and any analysis after the first) reads them from there, not again.
_DERIVING = "drivelab.derive_samples"


def step_samples(session: Session, step_id: int) -> list[Any]:
    """A step's samples as rows (attributes named as Sample's columns), oldest first, whether
    they are still rows of `samples` or packed."""
    held: dict[int, list[Any]] | None = session.info.get(_DERIVING)
    if held is not None and step_id in held:
        return held[step_id]
    c = SAMPLE_ROWS.c
    rows = list(session.execute(select(*c).where(c.step_id == step_id).order_by(c.t_ms)))
    if held is not None:
        held[step_id] = rows
    return rows


def _direction(step: Step) -> str:
    rw = str(step.params.get("rw", ""))
    return "read" if rw in ("read", "randread") else "write"


def derive(
    session: Session, step: Step, final: dict[str, Any] | None
) -> tuple[list[Metric], dict[str, Any]]:
    """(scalar metrics, structured analysis) for a finished step, by its role; every step-down
    found says whether heat explains it (backend.results.heat)."""
    session.info[_DERIVING] = {}
    try:
        metrics, analysis = _derive(session, step, final)
        try:
            heat.attach(session, step, analysis)
        except Exception as exc:  # noqa: BLE001 - the step-downs are kept whatever happens here
            log.exception("heat attribution of step %s failed", step.id)
            analysis["heat_error"] = f"{exc.__class__.__name__}: {exc}"
    finally:
        session.info.pop(_DERIVING, None)
    return metrics, analysis


def _derive(
    session: Session, step: Step, final: dict[str, Any] | None
) -> tuple[list[Metric], dict[str, Any]]:
    role = str(step.params.get("role") or "")
    if role in ("consistency", "torture"):
        return _consistency(session, step)
    if role.startswith("hdtach"):
        return _hdtach(session, step)
    if role in (FILL_ROLE, REFILL_ROLE):
        return _slc(session, step, final)
    if role == FULL_ROLE:
        return derive_full(session, step, final)
    if role in STALL_ROLES:
        return _stalls(session, step)
    if role in ("trace-replay", "trace-profile") and final is not None:
        return _trace(session, step, final)
    if role in ROUNDS_ROLES and step.params.get("track"):
        return derive_rounds(session, step)
    if role == POINTS_ROLE:
        return derive_points(session, step)
    if role.startswith("xsr-"):
        return derive_xsr(session, step)
    if role == SUMMARY_ROLE:
        from backend.results.desktop import derive_desktop  # noqa: PLC0415 - as derive_sweep

        return derive_desktop(session, step)
    if role == AS_SSD_SCORE_ROLE:
        from backend.results.as_ssd import derive_as_ssd  # noqa: PLC0415 - as derive_desktop

        return derive_as_ssd(session, step)
    if role in THERMAL_ROLES:
        return THERMAL_ROLES[role](session, step)
    if role == BURSTS_SUMMARY_ROLE:
        return derive_bursts(session, step)
    if role == MIXED_STEP:
        from backend.results.mixed import derive_mixed_step  # noqa: PLC0415 - as derive_sweep

        return derive_mixed_step(step, final)
    if role == MIXED_SUMMARY:
        from backend.results.mixed import derive_mixed  # noqa: PLC0415 - as derive_sweep

        return derive_mixed(session, step)
    if role == FILE_COPY_ROLE:
        return derive_file_copy(session, step)
    if role == "qd-sweep-summary":
        from backend.results.qos import derive_sweep  # noqa: PLC0415 - qos imports this module

        return derive_sweep(session, step)
    return [], {}


def _consistency(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    samples = step_samples(session, step.id)
    if len(samples) < 2:
        return [], {}
    t_ms, dt_ms, (ios,) = fold_short_tail(
        [s.t_ms for s in samples], [s.dt_ms for s in samples], [s.write_ios for s in samples]
    )
    t = [x / 1000 for x in t_ms]
    iops = [n / (d / 1000) for n, d in zip(ios, dt_ms, strict=True)]
    stats = iops_stats(t, iops, last_s=400.0)
    drop = dropoff([d / 1000 for d in dt_ms], ios)
    metrics: list[Metric] = [
        ("iops_mean_last400", stats["mean"], "IOPS"),
        ("iops_stddev_last400", stats["stddev"], "IOPS"),
        ("iops_min_last400", stats["min"], "IOPS"),
        ("iops_p1_last400", stats["p1"], "IOPS"),
        ("iops_p99_last400", stats["p99"], "IOPS"),
    ]
    if stats["mean_over_stddev"] is not None:
        metrics.append(("iops_mean_over_stddev_last400", stats["mean_over_stddev"], "ratio"))
    if drop["dropoff_s"] is not None:
        metrics.append(("dropoff_s", drop["dropoff_s"], "s"))
    if drop["fob_iops"] is not None:
        metrics.append(("fob_iops", drop["fob_iops"], "IOPS"))
    return metrics, {"consistency": stats, "dropoff_s": drop["dropoff_s"], "dropoff": drop}


def _hdtach(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    span = int(step.params.get("span_bytes") or 0)
    samples = step_samples(session, step.id)
    if not span or not samples:
        return [], {}
    direction = _direction(step)
    dt = [s.dt_ms / 1000 for s in samples]
    nbytes = [s.read_bytes if direction == "read" else s.write_bytes for s in samples]
    curve = throughput_vs_position(dt, nbytes, span, resolution_pct=0.5)
    # Levels from whole intervals: fio's short final one folded into the one before.
    _t, dt_ms, (folded,) = fold_short_tail(
        [s.t_ms for s in samples], [s.dt_ms for s in samples], nbytes
    )
    found = step_downs([d / 1000 for d in dt_ms], folded, span)
    steps = found["step_downs"]
    metrics: list[Metric] = [
        (f"hdtach_{direction}_avg_mbps", curve["average_mbps"], "MB/s"),
        ("hdtach_coverage_pct", curve["coverage_pct"], "%"),
        (f"hdtach_{direction}_step_downs", len(steps), "step-downs"),
    ]
    if steps:
        first = steps[0]
        metrics += [
            (f"hdtach_{direction}_first_step_down_pct", first["at_pct"], "%"),
            (f"hdtach_{direction}_first_step_down_gb", first["at_gb"], "GB"),
            (f"hdtach_{direction}_before_step_down_mbps", first["from_mbps"], "MB/s"),
            (f"hdtach_{direction}_after_step_down_mbps", first["to_mbps"], "MB/s"),
        ]
    return metrics, {"hdtach": curve, "direction": direction, **found}


def _fio_window_s(final: dict[str, Any] | None) -> tuple[float, float] | None:
    """(start, end) of a fio step's job in epoch seconds, from its final JSON: printed at
    `timestamp_ms`, after the job ran `job_runtime` ms."""
    if not final or "timestamp_ms" not in final or not final.get("jobs"):
        return None
    runtime = max(job_runtime_ms(j) for j in final["jobs"]) / 1000.0
    end = int(final["timestamp_ms"]) / 1000.0
    return end - runtime, end


def _slc(
    session: Session, step: Step, final: dict[str, Any] | None
) -> tuple[list[Metric], dict[str, Any]]:
    """An SLC cache fill's cache size, or a refill's recovered cache (backend.analysis.slc),
    from the pass's throughput against GB written, as an HD Tach write pass's. A refill also
    gets the idle the drive really had (`idle_measured_s`): from the end of the pass before it
    to its own start on fio's clock, longer than its idle step by the time between steps."""
    metrics, analysis = _hdtach(session, step)
    if not analysis:
        return [], {}
    span = int(step.params["span_bytes"])
    curve = analysis["hdtach"]
    written = curve["coverage_pct"] / 100.0 * span
    avg = curve["average_mbps"]
    metrics = [("slc_avg_mbps", avg, "MB/s")] if avg is not None else []
    if step.params.get("role") == FILL_ROLE:
        found = cache_size(analysis, span, written)
        if found["cache_gb"] is not None:
            metrics += [
                ("slc_cache_gb", found["cache_gb"], "GB"),
                ("slc_cache_mbps", found["cache_mbps"], "MB/s"),
                ("slc_after_cache_mbps", found["after_mbps"], "MB/s"),
            ]
        return metrics, {**analysis, "slc": {"kind": "fill", **found}}
    fill = session.scalars(
        select(Step).where(Step.run_id == step.run_id, Step.params["role"].as_string() == FILL_ROLE)
    ).first()
    fill_slc = ((fill.analysis or {}).get("slc") if fill is not None else None) or None
    found = recovered(analysis, span, written, fill_slc)
    found["idle_s"] = step.params.get("idle_s")
    before = session.scalars(
        select(Step)
        .where(
            Step.run_id == step.run_id,
            Step.idx < step.idx,
            Step.params["role"].as_string().in_((FILL_ROLE, REFILL_ROLE)),
        )
        .order_by(Step.idx.desc())
    ).first()
    this = _fio_window_s(final)
    prev = None
    if before is not None:
        with contextlib.suppress(ValueError):
            prev = _fio_window_s(json.loads(before.output or ""))
    if this is not None and prev is not None and this[0] > prev[1]:
        found["idle_measured_s"] = this[0] - prev[1]
        metrics.append(("slc_idle_measured_s", found["idle_measured_s"], "s"))
    if found["recovered_gb"] is not None:
        metrics += [
            ("slc_recovered_gb", found["recovered_gb"], "GB"),
            ("slc_recovered_at_least", 1.0 if found["at_least"] else 0.0, "flag"),
        ]
    return metrics, {**analysis, "slc": {"kind": "refill", **found}}


def _job_runtime_ms(step: Step) -> float | None:
    """The job's runtime from fio's final JSON, the end of the step on fio's clock."""
    try:
        final = json.loads(step.output or "")
    except ValueError:
        return None
    runtimes = [job_runtime_ms(j) for j in final.get("jobs", ())]
    return float(max(runtimes)) if runtimes else None


def _stalls(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """Stalls from fio's window log (100 ms) when the step has one, else from its status
    snapshots (about 1 s)."""
    logs = step.logs or {}
    bw = logs.get("bw") or {}
    window = int(logs.get("window_ms") or bw.get("window_ms") or 0)
    direction = _direction(step)
    values = bw.get(direction)
    samples = step_samples(session, step.id)
    snapshots = (
        [s.t_ms for s in samples],
        [s.dt_ms for s in samples],
        [s.read_bytes if direction == "read" else s.write_bytes for s in samples],
    )
    if window and values and bw.get("t_ms"):
        found = stalls_in_window_log(bw["t_ms"], values, window, end_ms=_job_runtime_ms(step))
        if len(samples) >= 2:
            found = confirm_with_samples(found, sample_intervals(*snapshots))
    elif len(samples) >= 2:
        found = stalls_in_samples(*snapshots)
    else:
        return [], {}
    metrics: list[Metric] = [
        ("stall_count", found["count"], "stalls"),
        ("stall_longest_s", found["longest_s"], "s"),
        ("stall_total_s", found["total_s"], "s"),
    ]
    if found["period_s"] is not None:
        metrics.append(("stall_period_s", found["period_s"], "s"))
    return metrics, {"stalls": found}


def _trace(
    session: Session, step: Step, final: dict[str, Any]
) -> tuple[list[Metric], dict[str, Any]]:
    m = replay_metrics(final)
    metrics: list[Metric] = [
        ("replay_mbps", m["mbps"], "MB/s"),
        ("replay_read_mbps", m["read_mbps"], "MB/s"),
        ("replay_write_mbps", m["write_mbps"], "MB/s"),
        ("replay_read_share_pct", m["read_share_pct"], "%"),
    ]
    if m.get("busy_s") is not None:
        metrics.append(("replay_busy_s", m["busy_s"], "s"))
    analysis: dict[str, Any] = {"replay": m}
    trace_id = step.params.get("trace_id")
    if trace_id:
        row = session.execute(
            select(Trace.format, Trace.data).where(Trace.id == int(trace_id))
        ).first()
        if row is not None and row.format.startswith("iolog"):
            with contextlib.suppress(UnicodeDecodeError, ValueError):
                analysis["sizes"] = size_breakdown(row.data.decode("utf-8"))
    return metrics, analysis
