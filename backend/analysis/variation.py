"""Run-to-run variation of one metric over repeated runs. Pure: numbers in, a dict out.

A review quotes a drive's figure as the mean of repeated runs and says how far apart they were:
the spread tells the reader whether a 3% lead over another drive means anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def variation(values: Sequence[float]) -> dict:
    """`count`, `mean`, `stddev`, `min`, `max` and `spread_pct` of repeated measurements.

    `stddev` is the sample standard deviation (ddof=1): a handful of runs is a sample of the
    runs the drive could produce, and ddof=0 would understate the spread of, say, 3 runs by
    18%; it is 0 for a single value. `spread_pct` is (max - min) / mean x 100, the range as a
    share of the mean (None when the mean is 0). Missing values (None/NaN) are skipped, as a
    failed run has no figure; with none left, count is 0 and everything else None.
    """
    v = np.asarray(values, dtype=float)  # None reads as NaN
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {"count": 0, **dict.fromkeys(("mean", "stddev", "min", "max", "spread_pct"))}
    mean = float(v.mean())
    lo, hi = float(v.min()), float(v.max())
    return {
        "count": int(v.size),
        "mean": mean,
        "stddev": float(v.std(ddof=1)) if v.size > 1 else 0.0,
        "min": lo,
        "max": hi,
        "spread_pct": (hi - lo) / mean * 100.0 if mean != 0 else None,
    }
