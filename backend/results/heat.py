"""Whether heat explains each step-down a step's analysis found (backend.analysis.thermal),
attached as `heat` beside it when the step ends:

- HD Tach passes: analysis["step_downs"][i] (a position: its time is when the pass's
  cumulative bytes over the samples reached it, kept as `at_s`);
- the consistency drop-off: analysis["dropoff"]["heat"];
- any analysis[key]["step_downs"][i] that carries `at_s` (seconds from the step's start), e.g.
  the thermal plan's findings["thermal"]["step_downs"].

The evidence is the step's own: the temperature of its samples (temp_dc, None without a
sensor), the thermal counters of its log (logs["thermal"]["counters"], NVMe) and the
thresholds the run's environment recorded for the drive (environment.drive.thermal.thresholds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.thermal import attribute
from backend.runs.models import Run, Step


def _thresholds(environment: dict[str, Any] | None) -> dict[str, Any] | None:
    drive = (environment or {}).get("drive") or {}
    thermal = drive.get("thermal") if isinstance(drive, dict) else None
    found = (thermal or {}).get("thresholds") if isinstance(thermal, dict) else None
    return found if isinstance(found, dict) else None


def time_at_bytes(
    t_ms: Sequence[float], dt_ms: Sequence[float], nbytes: Sequence[float]
) -> Callable[[float], float]:
    """A function: bytes moved since the step's start -> seconds from the step's start, when
    the samples' cumulative bytes first reached them (linear within a sample's interval)."""
    ends = np.asarray(t_ms, dtype=float) / 1000.0
    starts = ends - np.asarray(dt_ms, dtype=float) / 1000.0
    cum = np.concatenate(([0.0], np.cumsum(np.asarray(nbytes, dtype=float))))
    times = np.concatenate((starts[:1], ends))

    def at(amount: float) -> float:
        j = int(np.searchsorted(cum, amount, side="left"))
        j = min(max(j, 1), cum.size - 1)
        b0, b1 = cum[j - 1], cum[j]
        frac = (amount - b0) / (b1 - b0) if b1 > b0 else 1.0
        return float(times[j - 1] + min(max(frac, 0.0), 1.0) * (times[j] - times[j - 1]))

    return at


def _has_step_downs(analysis: dict[str, Any]) -> bool:
    if analysis.get("step_downs"):
        return True
    drop = analysis.get("dropoff")
    if isinstance(drop, dict) and drop.get("dropoff_s") is not None:
        return True
    return any(isinstance(v, dict) and v.get("step_downs") for v in analysis.values())


def attach(session: Session, step: Step, analysis: dict[str, Any]) -> None:
    """Add `heat` to every step-down of the step's `analysis` (in place)."""
    if not analysis or not _has_step_downs(analysis):
        return
    from backend.results.service import step_samples  # noqa: PLC0415 - service calls this

    samples = step_samples(session, step.id)
    if not samples:
        return
    thresholds = _thresholds(session.scalar(select(Run.environment).where(Run.id == step.run_id)))
    thermal_log = (step.logs or {}).get("thermal") or {}
    counters = thermal_log.get("counters") if isinstance(thermal_log, dict) else None
    t_s = [s.t_ms / 1000.0 for s in samples]
    temps = [None if s.temp_dc is None else s.temp_dc / 10.0 for s in samples]

    def heat(at_s: float, **kw: Any) -> dict[str, Any]:
        return attribute(at_s, t_s, temps, thresholds, counters, **kw)

    downs = analysis.get("step_downs")
    if isinstance(downs, list) and all(isinstance(d, dict) and "at_gb" in d for d in downs):
        _hdtach(analysis, samples, heat)
    drop = analysis.get("dropoff")
    if isinstance(drop, dict) and drop.get("dropoff_s") is not None:
        at = float(drop["dropoff_s"])
        drop["heat"] = heat(
            at,
            until_s=_level_end(drop.get("levels"), at),
            from_rate=drop.get("fob_iops"),
            to_rate=drop.get("after_iops"),
            unit="IOPS",
        )
    for value in analysis.values():
        if not isinstance(value, dict) or not isinstance(value.get("step_downs"), list):
            continue
        for sd in value["step_downs"]:
            if isinstance(sd, dict) and isinstance(sd.get("at_s"), int | float):
                if sd.get("until_s") is None:
                    sd_until = _level_end(value.get("levels"), float(sd["at_s"]))
                else:
                    sd_until = sd["until_s"]
                sd["heat"] = heat(
                    float(sd["at_s"]), until_s=sd_until, from_rate=sd.get("from_mbps"),
                    to_rate=sd.get("to_mbps"),
                )  # fmt: skip


def _level_end(levels: Any, at_s: float) -> float | None:
    """When the level that starts at a step-down ends, from levels of {"start_s", "end_s"};
    None when it is the last (the speed stayed down to the end) or there are none."""
    if not isinstance(levels, list):
        return None
    after = [
        lv for lv in levels
        if isinstance(lv, dict) and isinstance(lv.get("start_s"), int | float)
        and lv["start_s"] >= at_s - 0.5
    ]  # fmt: skip
    return float(after[0]["end_s"]) if len(after) > 1 else None


def _hdtach(
    analysis: dict[str, Any], samples: list[Any], heat: Callable[..., dict[str, Any]]
) -> None:
    direction = analysis.get("direction")
    nbytes = [s.read_bytes if direction == "read" else s.write_bytes for s in samples]
    at = time_at_bytes([s.t_ms for s in samples], [s.dt_ms for s in samples], nbytes)
    span_gb_per_pct = None
    levels = analysis.get("levels") or []
    for sd in analysis["step_downs"]:
        sd["at_s"] = at(sd["at_gb"] * 1e9)
        if span_gb_per_pct is None and sd["at_pct"] > 0:
            span_gb_per_pct = sd["at_gb"] / sd["at_pct"]
        # The level after the step-down ends where the next change is; the last one with the pass.
        until = None
        after = [lv for lv in levels if lv["from_pct"] >= sd["at_pct"] - 1e-3]
        if len(after) > 1 and span_gb_per_pct:
            until = at(after[0]["to_pct"] * span_gb_per_pct * 1e9)
        sd["heat"] = heat(
            sd["at_s"], until_s=until, from_rate=sd["from_mbps"], to_rate=sd["to_mbps"]
        )
