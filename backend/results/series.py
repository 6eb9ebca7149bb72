"""Chart series of a step, downsampled on the server to about the chart's width with min/max
per bucket, so every stall and outlier survives; full resolution on request."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.downsample import minmax_downsample
from backend.core.errors import InvalidParams, NotFound
from backend.runs.models import SAMPLE_COLUMNS, Sample, Step
from backend.runs.service import get_run, run_step

DEFAULT_POINTS = 650

# metric -> (unit, value of one stored interval)
SAMPLE_METRICS: dict[str, tuple[str, Any]] = {
    "read_mbps": ("MB/s", lambda s: s.read_bytes / s.dt_ms / 1000),
    "write_mbps": ("MB/s", lambda s: s.write_bytes / s.dt_ms / 1000),
    "read_iops": ("IOPS", lambda s: s.read_ios / s.dt_ms * 1000),
    "write_iops": ("IOPS", lambda s: s.write_ios / s.dt_ms * 1000),
    "read_lat_mean_us": ("µs", lambda s: s.read_lat_mean_us),
    "write_lat_mean_us": ("µs", lambda s: s.write_lat_mean_us),
    "read_lat_p99_us": ("µs", lambda s: s.read_lat_p99_us),
    "write_lat_p99_us": ("µs", lambda s: s.write_lat_p99_us),
}
LOG_METRICS = {"log_bw": ("bw", "MB/s", 1e-6), "log_iops": ("iops", "IOPS", 1.0)}


def _step(session: Session, run_id: int, step_id: int, hide_embargoed: bool = False) -> Step:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    return run_step(session, run_id, step_id)


def _sample_rows(session: Session, step_id: int) -> list[Any]:
    """A step's samples as plain rows, oldest first: a chart reads thousands of them, and
    building ORM objects for them took longer than everything else the request does."""
    columns = [getattr(Sample, c) for c in SAMPLE_COLUMNS if c not in ("run_id", "step_id")]
    return list(
        session.execute(select(*columns).where(Sample.step_id == step_id).order_by(Sample.t_ms))
    )


def series(
    session: Session,
    run_id: int,
    step_id: int,
    metric: str,
    points: int | None,
    x: str = "time",
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    step = _step(session, run_id, step_id, hide_embargoed)
    if x == "position":
        curve = (step.analysis or {}).get("hdtach")
        if not curve:
            raise InvalidParams(
                f"step {step.name} is not an HD Tach pass: x=position needs one", field="x"
            )
        xs, ys, unit = curve["position_pct"], curve["mbps"], "MB/s"
        metric = f"{(step.analysis or {}).get('direction', 'write')}_mbps"
    elif metric in SAMPLE_METRICS:
        unit, fn = SAMPLE_METRICS[metric]
        rows = [(s.t_ms / 1000, fn(s)) for s in _sample_rows(session, step.id)]
        xs = [t for t, v in rows if v is not None]
        ys = [v for _t, v in rows if v is not None]
    elif metric.split(":")[0] in LOG_METRICS:
        kind, unit, scale = LOG_METRICS[metric.split(":")[0]]
        direction = metric.split(":")[1] if ":" in metric else "write"
        log = ((step.logs or {}).get(kind)) or {}
        if not log:
            raise NotFound(f"step {step.name} has no {kind} log", field="metric")
        xs = [t / 1000 for t in log["t_ms"]]
        ys = [v * scale for v in log.get(direction, [])]
    else:
        choices = ", ".join([*SAMPLE_METRICS, "log_bw:write", "log_iops:write"])
        raise InvalidParams(f"unknown metric {metric!r}: choose one of {choices}", field="metric")
    total = len(xs)
    if points is not None and points < 4:
        raise InvalidParams(
            "points must be at least 4 (or omit it for full resolution)", field="points"
        )
    if points is not None and total > points:
        xs, ys = minmax_downsample(xs, ys, points)
    return {
        "run_id": run_id,
        "step_id": step.id,
        "step": step.name,
        "metric": metric,
        "unit": unit,
        "x": "position_pct" if x == "position" else "t_s",
        "total_points": total,
        "downsampled": len(xs) < total,
        "points": [[a, b] for a, b in zip(xs, ys, strict=True)],
    }


def to_csv(data: dict[str, Any]) -> str:
    lines = [f"{data['x']},{data['metric']}"]
    lines += [f"{x:g},{y:.6g}" for x, y in data["points"]]
    return "\n".join(lines) + "\n"
