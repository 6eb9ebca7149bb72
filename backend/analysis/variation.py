"""Run-to-run variation of one metric over repeated runs. Pure: numbers in, a dict out.

A review quotes a drive's figure as the mean of repeated runs and says how far apart they were:
the spread tells the reader whether a 3% lead over another drive means anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from backend.analysis.significance import LEVEL, t_quantile


def variation(values: Sequence[float | None]) -> dict:
    """`count`, `mean`, `stddev`, `min`, `max`, `spread_pct`, and `low`..`high`, the 95%
    confidence interval of the mean (Student's t; None under two values), of repeated
    measurements.

    `stddev` is the sample standard deviation (ddof=1): a handful of runs is a sample of the
    runs the drive could produce, and ddof=0 would understate the spread of, say, 3 runs by
    18%; it is 0 for a single value. `spread_pct` is (max - min) / mean x 100, the range as a
    share of the mean (None when the mean is 0). Missing values (None/NaN) are skipped, as a
    failed run has no figure; with none left, count is 0 and everything else None.
    """
    # Plain Python, not numpy: a comparison calls this for every drive of every metric (2,000
    # times for 10 drives and the whole suite) with a handful of values, where numpy's
    # per-call overhead is 10x the arithmetic. fsum is exact, so the mean is as good as numpy's.
    v = [float(x) for x in values if x is not None]
    if not all(map(math.isfinite, v)):
        v = [x for x in v if math.isfinite(x)]
    n = len(v)
    if n == 0:
        return {
            "count": 0,
            **dict.fromkeys(("mean", "stddev", "min", "max", "spread_pct", "low", "high")),
        }
    mean = math.fsum(v) / n
    lo, hi = min(v), max(v)
    stddev = math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    half = t_quantile(LEVEL, n - 1) * stddev / math.sqrt(n) if n > 1 else None
    return {
        "count": n,
        "mean": mean,
        "stddev": stddev,
        "min": lo,
        "max": hi,
        "spread_pct": (hi - lo) / mean * 100.0 if mean != 0 else None,
        "low": mean - half if half is not None else None,
        "high": mean + half if half is not None else None,
    }
