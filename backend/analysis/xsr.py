"""SNIA PTS cross-stimulus recovery (XSR): how long a drive takes to settle after the workload
changes. Pure: numbers in, plain dicts out.

XSR writes sequentially, then randomly, then sequentially again. At each transition the new
stimulus begins, and a drive rarely goes straight to the speed it will hold: random writes
after sequential ones start fast (free blocks left by the sequential writes) and fall when
garbage collection sets the pace; sequential writes after random ones start slow (the
fragmentation is cleaned up as they go) and rise.

**Recovery time**: the time from the transition (the new stimulus's start, on fio's clock of
its step) to the start of the new stimulus's last sustained level, the level its throughput
settles at and holds until the stimulus ends. A stimulus with a single level has recovered at
once (0 s).

The levels are those of backend.analysis.changepoints.levels, the analysis that finds the HD
Tach step-downs and the consistency drop-off, on the stimulus's intervals (length and bytes
written): levels closer than `min_rel_change` are one, a level lasts at least `min_time_s`
(by default MIN_LEVEL_INTERVALS intervals, or MIN_LEVEL_SHARE of the stimulus when that is
longer: a one-second hiccup in an 8-hour stimulus is not a level), and the start of a level is
where the lines of cumulative bytes against time of it and of the level before meet, finer
than one interval. A gradual recovery (a ramp rather than a step) is cut where those lines
meet, about the middle of the ramp.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from backend.analysis import changepoints

MIN_REL_CHANGE = 0.2
MIN_LEVEL_INTERVALS = 3
MIN_LEVEL_SHARE = 0.005


def default_min_time(dt_s: ArrayLike) -> float:
    """The shortest sustained level of a stimulus: MIN_LEVEL_INTERVALS intervals, or
    MIN_LEVEL_SHARE of its length when that is longer."""
    dt = np.asarray(dt_s, dtype=float)
    dt = dt[dt > 0]
    if dt.size == 0:
        return 0.0
    return float(max(MIN_LEVEL_INTERVALS * np.median(dt), MIN_LEVEL_SHARE * dt.sum()))


def recovery(
    dt_s: ArrayLike,
    amounts: ArrayLike,
    *,
    min_rel_change: float = MIN_REL_CHANGE,
    min_time_s: float | None = None,
) -> dict:
    """The levels of one stimulus (`dt_s`: each interval's length from the stimulus's start,
    `amounts`: bytes, or I/Os, completed in it) and its recovery time (see the module doc).

    Returns `recovery_s` (None when nothing was written), `levels` ([{"start_s", "end_s",
    "rate"}], rate in amount per second: the median of the level's blocks, as the drop-off's
    levels), `settled_rate` and `initial_rate` (the last and first levels' rates), `held_s`
    (how long the settled level lasted, to the stimulus's end), `duration_s` and the rule
    (`min_rel_change`, `min_time_s`, `method`)."""
    dt = np.asarray(dt_s, dtype=float)
    if min_time_s is None:
        min_time_s = default_min_time(dt)
    found = changepoints.levels(dt, amounts, min_rel_change=min_rel_change, min_time_s=min_time_s)
    segments = found["segments"]
    duration = float(dt[dt > 0].sum()) if dt.size else 0.0
    out: dict = {
        "recovery_s": None,
        "levels": [
            {"start_s": s["start_s"], "end_s": s["end_s"], "rate": s["median_rate"]}
            for s in segments
        ],
        "settled_rate": None,
        "initial_rate": None,
        "held_s": None,
        "duration_s": duration,
        "min_rel_change": min_rel_change,
        "min_time_s": min_time_s,
        "method": found["method"],
    }
    if not segments:
        return out
    last = segments[-1]
    out["recovery_s"] = float(last["start_s"])
    out["settled_rate"] = float(last["median_rate"])
    out["initial_rate"] = float(segments[0]["median_rate"])
    out["held_s"] = float(last["end_s"] - last["start_s"])
    return out


def transitions(stimuli: Sequence[dict]) -> list[dict]:
    """The transitions between consecutive stimuli, each stimulus a dict with `name`,
    `settled_rate` and `recovery_s` (its own, from `recovery`): [{"from", "to",
    "recovery_s", "before_rate" (the level the previous stimulus had settled at),
    "settled_rate", "ratio" (settled over before)}]."""
    out = []
    for before, after in zip(stimuli, stimuli[1:], strict=False):
        b, a = before.get("settled_rate"), after.get("settled_rate")
        out.append(
            {
                "from": before.get("name"),
                "to": after.get("name"),
                "recovery_s": after.get("recovery_s"),
                "before_rate": b,
                "settled_rate": a,
                "ratio": a / b if (a is not None and b) else None,
            }
        )
    return out
