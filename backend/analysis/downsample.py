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
    # np.array_split's sizes: n // n_buckets each, the first n % n_buckets one larger. The
    # buckets of each size are the rows of a 2-D view, so the minimum and maximum of every
    # bucket come from one argmin and one argmax per size (both keep the first of ties),
    # not two numpy calls per bucket.
    size, extra = divmod(n, n_buckets)
    split = extra * (size + 1)
    i_min = np.concatenate(
        (
            np.argmin(ya[:split].reshape(extra, size + 1), axis=1),
            np.argmin(ya[split:].reshape(n_buckets - extra, size), axis=1),
        )
    )
    i_max = np.concatenate(
        (
            np.argmax(ya[:split].reshape(extra, size + 1), axis=1),
            np.argmax(ya[split:].reshape(n_buckets - extra, size), axis=1),
        )
    )
    starts = np.arange(n_buckets, dtype=np.intp) * size + np.minimum(
        np.arange(n_buckets, dtype=np.intp), extra
    )
    i_min += starts
    i_max += starts
    # Each bucket's two points in index order; one when the lowest is also the highest.
    pairs = np.stack((np.minimum(i_min, i_max), np.maximum(i_min, i_max)), axis=1)
    keep_pair = np.ones_like(pairs, dtype=bool)
    keep_pair[:, 1] = i_min != i_max
    idx = pairs[keep_pair]
    return xa[idx].tolist(), ya[idx].tolist()
