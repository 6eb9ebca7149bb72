"""Chart series of a step, downsampled on the server to about the chart's width with min/max
per bucket, so every stall and outlier survives; full resolution on request."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.downsample import minmax_downsample
from backend.analysis.intervals import fold_short_tail
from backend.analysis.stalls import window_log_points
from backend.core.errors import InvalidParams, NotFound
from backend.runs.models import SAMPLE_COLUMNS, SAMPLE_ROWS, Step
from backend.runs.service import get_run, run_step

DEFAULT_POINTS = 650

# rate metric -> (unit, the sample column counted, factor): value = count / dt_ms x factor
RATE_METRICS: dict[str, tuple[str, str, float]] = {
    "read_mbps": ("MB/s", "read_bytes", 1e-3),
    "write_mbps": ("MB/s", "write_bytes", 1e-3),
    "read_iops": ("IOPS", "read_ios", 1e3),
    "write_iops": ("IOPS", "write_ios", 1e3),
}
# metric -> (unit, value of one stored interval)
SAMPLE_METRICS: dict[str, tuple[str, Any]] = {
    **{name: (unit, None) for name, (unit, _c, _f) in RATE_METRICS.items()},
    "read_lat_mean_us": ("µs", lambda s: s.read_lat_mean_us),
    "write_lat_mean_us": ("µs", lambda s: s.write_lat_mean_us),
    "read_lat_p99_us": ("µs", lambda s: s.read_lat_p99_us),
    "write_lat_p99_us": ("µs", lambda s: s.write_lat_p99_us),
    "read_lat_max_us": ("µs", lambda s: s.read_lat_max_us),
    "write_lat_max_us": ("µs", lambda s: s.write_lat_max_us),
    # The drive's temperature (stored in tenths of a degree); seconds without a reading (no
    # sensor) are left out, never drawn as 0.
    "temp_c": ("°C", lambda s: None if s.temp_dc is None else s.temp_dc / 10.0),
}
LOG_METRICS = {"log_bw": ("bw", "MB/s", 1e-6), "log_iops": ("iops", "IOPS", 1.0)}


def log_points(
    logs: dict[str, Any] | None, kind: str, direction: str
) -> tuple[list[float], list[float]] | None:
    """A window log (kind bw or iops) of one direction as a chart draws it, (t_s, value):
    rows at their own times and the time without a row at 0 (analysis.stalls.
    window_log_points); a log that retention compacted is stored as those points already.
    None when the step has no such log."""
    log = (logs or {}).get(kind) or {}
    if not log:
        return None
    packed = log.get("compacted")
    if packed is not None:
        one = packed.get(direction) or {}
        return list(one.get("t_s") or []), list(one.get("v") or [])
    window = int((logs or {}).get("window_ms") or log.get("window_ms") or 0)
    values = [float(v or 0) for v in log.get(direction, [])]
    t_ms = log.get("t_ms") or [i * window for i in range(len(values))]
    if window > 0:
        return window_log_points(t_ms, values, window)
    return [t / 1000 for t in t_ms], values


def _step(session: Session, run_id: int, step_id: int, hide_embargoed: bool = False) -> Step:
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    return run_step(session, run_id, step_id)


def _sample_rows(session: Session, step_id: int) -> list[Any]:
    """A step's samples as plain rows, oldest first: a chart reads thousands of them, and
    building ORM objects for them took longer than everything else the request does."""
    c = SAMPLE_ROWS.c
    columns = [c[name] for name in SAMPLE_COLUMNS if name not in ("run_id", "step_id")]
    return list(session.execute(select(*columns).where(c.step_id == step_id).order_by(c.t_ms)))


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
    elif metric in RATE_METRICS:
        # The last interval, when short (fio's final summary), folded into the one before.
        unit, column, factor = RATE_METRICS[metric]
        rows = _sample_rows(session, step.id)
        t_ms, dt_ms, (counts,) = fold_short_tail(
            [r.t_ms for r in rows], [r.dt_ms for r in rows], [getattr(r, column) for r in rows]
        )
        xs = [t / 1000 for t in t_ms]
        ys = [c / d * factor for c, d in zip(counts, dt_ms, strict=True)]
    elif metric in SAMPLE_METRICS:
        unit, fn = SAMPLE_METRICS[metric]
        rows = _sample_rows(session, step.id)
        kept, _dt, _ = fold_short_tail([r.t_ms for r in rows], [r.dt_ms for r in rows])
        # A short last interval's latency is left out: it cannot be weighted into the one before.
        pairs = [(r.t_ms / 1000, fn(r)) for r in rows[: len(kept)]]
        xs = [t for t, v in pairs if v is not None]
        ys = [v for _t, v in pairs if v is not None]
    elif metric.split(":")[0] in LOG_METRICS:
        kind, unit, scale = LOG_METRICS[metric.split(":")[0]]
        direction = metric.split(":")[1] if ":" in metric else "write"
        got = log_points(step.logs, kind, direction)
        if got is None:
            raise NotFound(f"step {step.name} has no {kind} log", field="metric")
        xs, ys = got
        ys = [v * scale for v in ys]
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
