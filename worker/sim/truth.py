"""What a simulated drive really did: the known answer that drivelab's findings are checked
against. Pure: the controller's events and trace in, plain dicts out.

The controller records every change it makes (events) and the device's own counters every
tick (trace: wall time, bytes written and write I/Os since the drive started, about 200 a
second). The profile says where a level should change; the kernel's throttle then carries the
allowance that fio had not used yet over to the new limit, so the device's speed changes a
little later (seen: 0.26 s later, 2.1% of the span, at 20 -> 14 MB/s on a busy host). So a
change's truth is taken from the device's counters: lines fitted (Theil-Sen) to the written
bytes (or I/Os) against time over the 3 s before and after the change, and where they meet.
This is the device's view at 5 ms resolution, independent of fio, its snapshots and
drivelab's analysis (which works from fio's view: 100 ms or 1 s snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# The windows of the line fits: this long before and after the change, leaving out this much
# right next to it.
FIT_S = 3.0
GUARD_S = 0.3


def _line(t: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """(slope, intercept) by Theil-Sen: fio held up for a moment on a busy host, or a burst
    the throttle lets through, does not tilt it."""
    if t.size < 10 or np.ptp(t) <= 0:
        return None
    from backend.analysis.changepoints import _fit

    intercept, slope = _fit(t, y)
    return slope, intercept


def effective_change(
    trace: np.ndarray, wall: float, column: int, *, until: float | None = None
) -> dict[str, float] | None:
    """Where the device's rate changed around the controller's change at `wall`: the lines of
    `column` (1 bytes written, 2 write I/Os) against time before and after it, and where they
    meet. None when there is too little data on a side (the device idle)."""
    t = trace[:, 0]
    y = trace[:, column]
    end = wall + FIT_S if until is None else min(wall + FIT_S, until)
    before = (t > wall - FIT_S) & (t < wall - GUARD_S)
    after = (t > wall + GUARD_S) & (t < end)
    lb, la = _line(t[before] - wall, y[before]), _line(t[after] - wall, y[after])
    if lb is None or la is None or lb[0] == la[0]:
        return None
    x = (la[1] - lb[1]) / (lb[0] - la[0])
    x = min(max(x, -GUARD_S), GUARD_S * 3)
    return {
        "wall": wall + x,
        "at": lb[0] * x + lb[1],
        "rate_before": lb[0],
        "rate_after": la[0],
    }


def load_trace(lines: Sequence[str]) -> np.ndarray:
    rows = [[float(v) for v in line.split()] for line in lines if line.strip()]
    return np.array(rows, dtype=float).reshape(-1, 3)


def level_changes(
    events: Sequence[dict[str, Any]], trace: np.ndarray, span_bytes: int
) -> list[dict[str, float]]:
    """Every write-speed level change: the profile's nominal position (`nominal_pct`), where the
    controller applied it (`applied_pct`), and where the device's speed really changed
    (`at_pct`, with the MB/s before and after from the device's counters)."""
    out = []
    levels = [e for e in events if e["kind"] == "level"]
    for prev, e in zip(levels, levels[1:], strict=False):
        found = effective_change(trace, e["wall"], 1)
        item = {
            "nominal_pct": float(prev["until_pct"]),
            "applied_pct": e["applied_written"] / span_bytes * 100.0,
            "profile_from_mbps": float(prev["mbps"]),
            "profile_to_mbps": float(e["mbps"]),
        }
        if found is not None:
            item.update(
                at_pct=found["at"] / span_bytes * 100.0,
                from_mbps=found["rate_before"] / 1e6,
                to_mbps=found["rate_after"] / 1e6,
                wall=found["wall"],
            )
        out.append(item)
    return out


def cliff(events: Sequence[dict[str, Any]], trace: np.ndarray) -> dict[str, float] | None:
    """When the random-write IOPS fell (the consistency cliff), from the device's counters."""
    for e in events:
        if e["kind"] == "cliff":
            found = effective_change(trace, e["wall"], 2)
            out = {"applied_wall": e["wall"]}
            if found is not None:
                out.update(
                    wall=found["wall"], iops_before=found["rate_before"],
                    iops_after=found["rate_after"],
                )  # fmt: skip
            return out
    return None


def stalls(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every write stall the controller made: kind ("periodic" or "trim"), wall start, length."""
    out = []
    start: dict[str, Any] | None = None
    for e in events:
        if e["kind"] == "stall-start":
            start = e
        elif e["kind"] == "stall-end" and start is not None:
            out.append(
                {
                    "kind": start["stall"],
                    "wall": start["wall"],
                    "duration_s": e["wall"] - start["wall"],
                }
            )
            start = None
    return out
