"""The findings of the thermal plan (backend.plans.thermal), derived on each phase's step when
it ends. The pure functions (heat_findings, cool_findings) take the step's samples as columns;
derive_heat and derive_cool read them from the database.

A heat phase:
- its levels of MB/s and the changes between them, by backend.analysis.changepoints.levels on
  the phase's intervals (fio's status snapshots: each interval's length and bytes), with the
  HD Tach passes' rule: a step-down falls by at least MIN_DROP (20%), and a level lasts at
  least MIN_LEVEL_S;
- the first throttle: the phase's first step-down, seconds from the phase's start (fio's
  clock, finer than one interval: where the lines of cumulative bytes of the two levels meet)
  and the temperature of the sample whose interval holds that time; the throttled speed is
  the level after it, MB/s while data moved;
- the peak temperature (the highest sample's), and the time at or above the controller's
  WCTEMP (the sum of the intervals whose temperature was), None when the drive reports no
  WCTEMP (a SATA drive, a simulated drive) or has no sensor: said in `above_wctemp_note`.

A cool phase: the time to recover, seconds from the phase's start until the temperature is
back within `within_c` °C (the plan's cool_within_c, else DEFAULT_WITHIN_C) of where its heat
phase began: linearly between the two samples that straddle the target, None when it never
got there.

A sample's temperature is the worker's latest reading (once a second) when fio printed the
sample: up to a second older than the sample's end. Times found from temperatures are as
fine as that; the throttle's time comes from the bytes, which are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis import changepoints
from backend.analysis.intervals import fold_short_tail
from backend.plans.thermal import COOL_ROLE, DEFAULT_WITHIN_C, HEAT_ROLE
from backend.runs.models import Run, Step

Metric = tuple[str, float, str]

MIN_DROP = 0.2
MIN_LEVEL_S = 2.0
METHOD = "changepoints.levels on the phase's intervals (PELT + merge + cumulative line fits)"


def _temp_at(t_end_s: Sequence[float], temps: Sequence[float | None], at_s: float) -> float | None:
    """The temperature of the sample whose interval holds `at_s` (the last one past the end)."""
    for t, c in zip(t_end_s, temps, strict=True):
        if t >= at_s:
            return c
    return temps[-1] if temps else None


def heat_findings(
    t_ms: Sequence[float],
    dt_ms: Sequence[float],
    nbytes: Sequence[float],
    temps_c: Sequence[float | None],
    *,
    wctemp_c: float | None,
    direction: str = "write",
) -> dict[str, Any]:
    """A heat phase's findings from its samples (interval ends and lengths in ms, bytes moved,
    °C or None); see the module's doc."""
    if not (len(t_ms) == len(dt_ms) == len(nbytes) == len(temps_c)):
        raise ValueError("the sample columns differ in length")
    t_end = [t / 1000 for t in t_ms]
    origin = (t_ms[0] - dt_ms[0]) / 1000 if t_ms else 0.0
    _t, dt_f, (b_f,) = fold_short_tail(list(t_ms), list(dt_ms), list(nbytes))
    found = changepoints.levels(
        [d / 1000 for d in dt_f], b_f, min_rel_change=MIN_DROP, min_time_s=MIN_LEVEL_S
    )
    step_downs = []
    for c in found["changes"]:
        if c["before"] > 0 and c["after"] <= (1.0 - MIN_DROP) * c["before"]:
            at = origin + c["t_s"]
            step_downs.append(
                {
                    "at_s": at,
                    "from_mbps": c["before"] / 1e6,
                    "to_mbps": c["after"] / 1e6,
                    "temp_c": _temp_at(t_end, temps_c, at),
                }
            )
    levels = [
        {"start_s": origin + s["start_s"], "end_s": origin + s["end_s"], "mbps": s["rate"] / 1e6}
        for s in found["segments"]
    ]
    known = [c for c in temps_c if c is not None]
    total_s = sum(dt_ms) / 1000
    out: dict[str, Any] = {
        "kind": "heat",
        "direction": direction,
        "duration_s": total_s,
        "mean_mbps": (sum(nbytes) / 1e6 / total_s) if total_s > 0 else None,
        "start_c": next((c for c in temps_c if c is not None), None),
        "peak_c": max(known) if known else None,
        "end_c": known[-1] if known else None,
        "step_downs": step_downs,
        "levels": levels,
        "first_throttle": step_downs[0] if step_downs else None,
        "throttled_mbps": step_downs[0]["to_mbps"] if step_downs else None,
        "wctemp_c": wctemp_c,
        "above_wctemp_s": None,
        "above_wctemp_note": None,
        "min_drop": MIN_DROP,
        "min_level_s": MIN_LEVEL_S,
        "method": METHOD,
    }
    if not known:
        out["above_wctemp_note"] = "the drive has no temperature sensor"
    elif wctemp_c is None:
        out["above_wctemp_note"] = "the drive reports no WCTEMP (warning temperature)"
    else:
        out["above_wctemp_s"] = sum(
            d / 1000 for d, c in zip(dt_ms, temps_c, strict=True) if c is not None and c >= wctemp_c
        )
    return out


def cool_findings(
    t_ms: Sequence[float],
    temps_c: Sequence[float | None],
    *,
    phase_start_c: float | None,
    within_c: float,
) -> dict[str, Any]:
    """A cool phase's findings from its samples (interval ends in ms since the phase began,
    °C or None) and the temperature its heat phase began at; see the module's doc."""
    if len(t_ms) != len(temps_c):
        raise ValueError("the sample columns differ in length")
    pts = [(t / 1000, c) for t, c in zip(t_ms, temps_c, strict=True) if c is not None]
    target = None if phase_start_c is None else phase_start_c + within_c
    out: dict[str, Any] = {
        "kind": "cool",
        "duration_s": t_ms[-1] / 1000 if t_ms else 0.0,
        "start_c": pts[0][1] if pts else None,
        "end_c": pts[-1][1] if pts else None,
        "min_c": min(c for _t, c in pts) if pts else None,
        "phase_start_c": phase_start_c,
        "within_c": within_c,
        "target_c": target,
        "recover_s": None,
        "recovered": False,
    }
    if target is None or not pts:
        return out
    prev: tuple[float, float] | None = None
    for t, c in pts:
        if c <= target:
            # Already there at the first reading: 0. Else where the line between the readings
            # before and after crosses the target (prev is above it, so prev[1] > c).
            at = 0.0
            if prev is not None:
                at = prev[0] + (t - prev[0]) * (prev[1] - target) / (prev[1] - c)
            out["recover_s"], out["recovered"] = at, True
            break
        prev = (t, c)
    return out


def _columns(session: Session, step_id: int) -> tuple[list[Any], ...]:
    from backend.results.service import step_samples  # noqa: PLC0415 - service imports this

    rows = step_samples(session, step_id)
    temps = [None if s.temp_dc is None else s.temp_dc / 10 for s in rows]
    return (
        [s.t_ms for s in rows],
        [s.dt_ms for s in rows],
        [s.read_bytes for s in rows],
        [s.write_bytes for s in rows],
        temps,
    )


def _wctemp_c(session: Session, step: Step) -> float | None:
    env = session.scalar(select(Run.environment).where(Run.id == step.run_id)) or {}
    thresholds = ((env.get("drive") or {}).get("thermal") or {}).get("thresholds") or {}
    value = thresholds.get("wctemp_c")
    return float(value) if isinstance(value, int | float) else None


def derive_heat(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    t_ms, dt_ms, rb, wb, temps = _columns(session, step.id)
    if len(t_ms) < 2:
        return [], {}
    direction = "read" if step.params.get("rw") == "read" else "write"
    f = heat_findings(t_ms, dt_ms, rb if direction == "read" else wb, temps,
                      wctemp_c=_wctemp_c(session, step), direction=direction)  # fmt: skip
    f["phase"] = int(step.params.get("phase") or 0)
    f["stop"] = ((step.logs or {}).get("thermal_phase") or {}).get("stop") or "time"
    metrics: list[Metric] = [(f"thermal_{direction}_mbps", f["mean_mbps"], "MB/s")]
    metrics.append(("thermal_throttles", float(len(f["step_downs"])), "step-downs"))
    if f["first_throttle"] is not None:
        metrics.append(("thermal_first_throttle_s", f["first_throttle"]["at_s"], "s"))
        metrics.append(("thermal_throttled_mbps", f["throttled_mbps"], "MB/s"))
        if f["first_throttle"]["temp_c"] is not None:
            metrics.append(("thermal_first_throttle_c", f["first_throttle"]["temp_c"], "°C"))
    if f["peak_c"] is not None:
        metrics.append(("thermal_peak_c", f["peak_c"], "°C"))
    if f["above_wctemp_s"] is not None:
        metrics.append(("thermal_above_wctemp_s", f["above_wctemp_s"], "s"))
    return metrics, {"thermal": f}


def derive_cool(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    t_ms, _dt, _rb, _wb, temps = _columns(session, step.id)
    phase = int(step.params.get("phase") or 0)
    heat = session.scalars(
        select(Step)
        .options(load_only(Step.id, Step.params, Step.logs))
        .where(Step.run_id == step.run_id, Step.idx < step.idx)
        .order_by(Step.idx.desc())
    ).all()
    heat_step = next((s for s in heat if s.params.get("role") == HEAT_ROLE), None)
    start_c = None
    if heat_step is not None:
        start_c = ((heat_step.logs or {}).get("thermal_phase") or {}).get("start_c")
        if start_c is None:
            start_c = next((c for c in _columns(session, heat_step.id)[4] if c is not None), None)
    within = float(step.params.get("within_c") or DEFAULT_WITHIN_C)
    f = cool_findings(t_ms, temps, phase_start_c=start_c, within_c=within)
    f["phase"] = phase
    f["stop"] = ((step.logs or {}).get("cool") or {}).get("stop") or "time"
    metrics: list[Metric] = []
    if f["recover_s"] is not None:
        metrics.append(("thermal_recover_s", f["recover_s"], "s"))
    return metrics, {"thermal": f}


ROLES = {HEAT_ROLE: derive_heat, COOL_ROLE: derive_cool}
