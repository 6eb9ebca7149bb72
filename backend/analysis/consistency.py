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


def dropoff_time(
    t_s: Sequence[float],
    iops: Sequence[float],
    *,
    fob_s: float = 10.0,
    ratio: float = 0.5,
    hold_s: float = 5.0,
) -> float | None:
    """When the drive leaves its fresh-out-of-box (FOB) level: the "cliff" of a consistency run,
    where the free blocks run out and garbage collection starts to throttle the writes.

    - FOB level: the median IOPS of the samples in the first `fob_s` seconds
      (t < t_first + fob_s); a median, so one slow first second does not lower it.
    - The drop-off is the first sample that is below `ratio` x FOB AND from which the median of
      the following `hold_s` seconds (the samples with t in [t, t + hold_s)) is also below it.
      The median makes a single slow second (a GC hiccup) not count, while a drop that holds
      for hold_s is found at its first second, not hold_s / 2 earlier or later as a centred
      or trailing rolling median would place it.
    - Only windows that fit in the series are considered (t + hold_s <= last t + one sample
      spacing), so a short final interval cannot produce a drop-off.

    Returns the drop-off time in the series' own time base, or None when the series never
    drops, is empty, or has a FOB level <= 0.
    """
    if fob_s <= 0 or hold_s <= 0:
        raise ValueError("fob_s and hold_s must be positive")
    t, y = _pairs(t_s, iops)
    if t.size == 0:
        return None
    fob = y[t < t[0] + fob_s]
    level = float(np.median(fob))
    if not level > 0:
        return None
    threshold = ratio * level
    spacing = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    last = float(t[-1]) + spacing
    below = y < threshold
    # The hold window of sample i is [t_i, t_i + hold_s): indices i .. ends[i] - 1.
    ends = np.searchsorted(t, t + hold_s, side="left")
    for i in np.flatnonzero(below):
        if t[i] + hold_s > last + 1e-9 * max(1.0, abs(last)):
            break
        if np.median(y[i : ends[i]]) < threshold:
            return float(t[i])
    return None
