"""Performance consistency and torture scores (METHODS.md, plans 3 and 4). Pure: numbers in,
plain dicts out.

The series is one IOPS value per second of a long 4K random write (2000 s for plan 3, 20 or
60 minutes for plan 4). The reviews quote the last 400 s: by then the drive has left its
fresh-out-of-box state and garbage collection sets the pace, so the mean, its spread and the
worst seconds say how consistent the drive is under sustained load.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from backend.analysis import changepoints

PERCENTILES = (1, 5, 50, 95, 99)


def _pairs(t_s: Sequence[float], values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(t, value) as float arrays sorted by t, without the pairs where either is missing
    (None or NaN): a missing value is unknown, not 0, for a per-second IOPS series."""
    if len(t_s) != len(values):
        raise ValueError(f"t_s and values differ in length: {len(t_s)} != {len(values)}")
    # numpy reads None as NaN for a float dtype.
    t = np.asarray(t_s, dtype=float)
    y = np.asarray(values, dtype=float)
    keep = np.isfinite(t) & np.isfinite(y)
    t, y = t[keep], y[keep]
    order = np.argsort(t, kind="stable")
    return t[order], y[order]


def iops_stats(t_s: Sequence[float], iops: Sequence[float], *, last_s: float = 400.0) -> dict:
    """Scores of the last `last_s` seconds of a per-second IOPS series (plan 3: "mean IOPS of the
    last 400 s, its standard deviation and mean/stddev, minimum").

    The window holds the samples with t > t_end - last_s, where t_end is the last sample's time:
    strictly greater, so that a series with one sample a second counts exactly `last_s` samples
    whether its stamps are the ends of the intervals (1..2000 -> 1601..2000) or their starts
    (0..1999 -> 1600..1999). Including t == t_end - last_s would add a 401st second from before
    the window.

    `stddev` is the population standard deviation (ddof=0): the window's seconds are all the
    seconds of that window, not a sample of them. `mean_over_stddev` is the reviews' consistency
    figure (higher is steadier), None when the stddev is 0. The percentiles (numpy's linear
    interpolation) are of the per-second values, so p1 is "the slowest 1% of seconds", the
    figure that shows GC pauses a mean hides. Missing samples (None/NaN) are left out. With no
    sample in the window every statistic is None and n is 0.
    """
    t, y = _pairs(t_s, iops)
    if t.size == 0:
        empty = ("mean", "stddev", "min", "max", "mean_over_stddev")
        return {
            "window_start_s": None,
            "window_end_s": None,
            "n": 0,
            **dict.fromkeys(empty),
            **{f"p{p}": None for p in PERCENTILES},
        }
    t_end = float(t[-1])
    start = t_end - last_s
    # Stamps are often computed as ms / 1000: tolerate rounding at the window's start.
    in_window = t > start + 1e-9 * max(1.0, abs(t_end))
    w = y[in_window]
    mean = float(w.mean())
    stddev = float(w.std())
    pcts = np.percentile(w, PERCENTILES)
    return {
        "window_start_s": start,
        "window_end_s": t_end,
        "n": int(w.size),
        "mean": mean,
        "stddev": stddev,
        "min": float(w.min()),
        "max": float(w.max()),
        "mean_over_stddev": mean / stddev if stddev > 0 else None,
        **{f"p{p}": float(v) for p, v in zip(PERCENTILES, pcts, strict=True)},
    }


def dropoff(
    dt_s: ArrayLike,
    ios: ArrayLike,
    *,
    ratio: float = 0.5,
    min_time_s: float = 5.0,
    min_rel_change: float = 0.2,
) -> dict:
    """When the drive leaves its fresh-out-of-box (FOB) level: the "cliff" of a consistency run,
    where the free blocks run out and garbage collection starts to throttle the writes.

    The levels come from backend.analysis.changepoints on the run's intervals (duration, I/Os
    completed): levels closer than `min_rel_change` are one, and a level must hold for
    `min_time_s` (a GC hiccup of a second is not a level). Each level's IOPS is the median of
    its seconds (a write stall covering most of one second does not pull it down). The FOB
    level is the first one; the drop-off is the first change to a level at most `ratio` x FOB,
    placed where the lines of cumulative I/Os against time of the two levels meet, finer than
    one interval (a 1 s series places a drop at 13.65 s, not at 13 or 14).

    Returns `dropoff_s` (seconds from the run's start, None when it never drops), `fob_iops`,
    `after_iops` and `levels` ([{"start_s", "end_s", "iops"}]).
    """
    found = changepoints.levels(dt_s, ios, min_rel_change=min_rel_change, min_time_s=min_time_s)
    segments = found["segments"]
    out: dict = {
        "dropoff_s": None,
        "fob_iops": segments[0]["median_rate"] if segments else None,
        "after_iops": None,
        "levels": [
            {"start_s": seg["start_s"], "end_s": seg["end_s"], "iops": seg["median_rate"]}
            for seg in segments
        ],
        "ratio": ratio,
        "min_time_s": min_time_s,
    }
    if not segments or not segments[0]["median_rate"] > 0:
        return out
    fob = segments[0]["median_rate"]
    for change, after in zip(found["changes"], segments[1:], strict=False):
        if after["median_rate"] <= ratio * fob:
            out["dropoff_s"] = change["t_s"]
            out["after_iops"] = after["median_rate"]
            break
    return out
