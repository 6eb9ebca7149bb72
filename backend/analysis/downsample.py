"""Downsampling of chart series to about the chart's width (DESIGN.md, performance targets:
~650 points, keep every stall and outlier, never plain averaging). Pure: numbers in, lists out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _floats(values: Sequence[float | None]) -> np.ndarray:
    """A float array with None as NaN (numpy converts None to NaN for a float dtype)."""
    return np.asarray(values, dtype=float)


def minmax_downsample(
    x: Sequence[float], y: Sequence[float], n_points: int
) -> tuple[list[float], list[float]]:
    """At most `n_points` points that draw the same envelope as the full series.

    Min/max per bucket: the points are split by index into n_points // 2 buckets of (nearly)
    equal size, and each bucket contributes its lowest and its highest point, in their original
    order (one point when they are the same point); bucket sizes differ by at most one, the
    larger ones first (np.array_split's rule). An average per bucket would lift a 100 ms stall
    at 0 to a shallow dip and flatten a single spike into a bump; the min and max keep every
    stall and every outlier at its true value and position, so the chart at ~650 points shows
    what the 1M points hold. Ties keep the first point.

    Points with x or y missing (None or NaN, or infinite) are skipped first. When the rest
    already fits in n_points it is returned as it is. The buckets follow the input order, which
    is x order for a time or position series.
    """
    if n_points < 4:
        raise ValueError("n_points must be at least 4")
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} != {len(y)}")
    xa = _floats(x)
    ya = _floats(y)
    keep = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[keep], ya[keep]
    n = xa.size
    if n <= n_points:
        return xa.tolist(), ya.tolist()
    n_buckets = n_points // 2
    # np.array_split's sizes: n // n_buckets each, the first n % n_buckets one larger.
    size, extra = divmod(n, n_buckets)
    sizes = np.full(n_buckets, size, dtype=np.intp)
    sizes[:extra] += 1
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    picks: list[int] = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        part = ya[lo:hi]
        i_min = lo + int(np.argmin(part))
        i_max = lo + int(np.argmax(part))
        if i_min == i_max:
            picks.append(i_min)
        else:
            picks.extend(sorted((i_min, i_max)))
    idx = np.asarray(picks, dtype=np.intp)
    return xa[idx].tolist(), ya[idx].tolist()
