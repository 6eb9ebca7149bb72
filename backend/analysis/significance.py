"""Whether a difference between two drives (or two firmware versions) is real. Pure: numbers in,
numbers out; plain Python, checked against scipy.stats in the tests.

A review compares means of repeated runs. Two runs of one drive differ by the drive's own noise
(the SLC cache's state, the host, the controller's housekeeping), so a 1.5% lead between two
single runs says nothing, and a 3% lead over five runs each may be solid. drivelab says so with:

- a 95% confidence interval of each mean (Student's t, n - 1 degrees of freedom), shown where a
  figure has at least two runs measured alike;
- Welch's t-test for the difference of two means (no assumption that both drives are equally
  noisy; Welch-Satterthwaite degrees of freedom), with the 95% interval of the difference as a
  share of the reference's mean;
- the Benjamini-Hochberg adjustment over every difference shown at once (a comparison shows
  hundreds of metrics: at p < 0.05 each, one in twenty equal figures would be called different;
  the adjustment keeps the expected share of false calls among the calls at 5%);
- a practical threshold (1% of the reference by default), tested rather than compared: a
  difference is called better or worse only when the runs show, at the adjusted 5% level, that
  it is LARGER than the threshold (a one-sided minimum-effect test: t = (|difference| -
  threshold) / standard error), else "within noise". Comparing the point estimate with a
  threshold (2%) instead calls a true 0.5% lead "better" in about 5% of comparisons of five
  runs a side with 2% run-to-run noise; the tested 1% threshold does so in about 2.5%, and
  finds a true 3% lead in about 68% of comparisons of ten runs a side and 92% of twenty
  (simulated in tests/backend/analysis/test_significance.py).
  With one run on either side there is no noise estimate: "1 run: significance unknown".

What it cannot see: runs that differ for a reason repeated runs share (the same host
interference every time, a drive state that each run leaves for the next) look like signal;
drivelab pools only runs measured under the same conditions, which limits, not removes, that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

LEVEL = 0.95
PRACTICAL_PCT = 1.0  # a difference must be shown larger than this share of the reference
ALPHA = 0.05  # false discovery rate over the differences shown at once
STABLE_RSD_PCT = 2.5  # "until stable": repeat while the relative standard deviation is >= this

Verdict = Literal["better", "worse", "within noise", "1 run: significance unknown"]
UNKNOWN: Verdict = "1 run: significance unknown"


def _finite(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def _mean_var(v: list[float]) -> tuple[float, float]:
    n = len(v)
    mean = math.fsum(v) / n
    var = math.fsum((x - mean) ** 2 for x in v) / (n - 1) if n > 1 else 0.0
    return mean, var


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom (df may be fractional)."""
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


@lru_cache(maxsize=4096)
def t_quantile(level: float, df: float) -> float:
    """The t such that P(|T| <= t) = level (two-sided), by bisection on the distribution."""
    target = 1.0 - level
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def mean_interval(values: Sequence[float | None], level: float = LEVEL) -> dict | None:
    """`mean`, `low`, `high` of the mean's confidence interval, `count`; None under two values."""
    v = _finite(values)
    if len(v) < 2:
        return None
    mean, var = _mean_var(v)
    half = t_quantile(level, len(v) - 1) * math.sqrt(var / len(v))
    return {"count": len(v), "mean": mean, "low": mean - half, "high": mean + half}


def rsd_pct(values: Sequence[float | None]) -> float | None:
    """Relative standard deviation (sample, ddof=1) in % of the mean; None under two values."""
    v = _finite(values)
    if len(v) < 2:
        return None
    mean, var = _mean_var(v)
    if mean == 0:
        return None
    return math.sqrt(var) / abs(mean) * 100.0


def welch(
    candidate: Sequence[float | None],
    reference: Sequence[float | None],
    level: float = LEVEL,
    practical_pct: float = PRACTICAL_PCT,
) -> dict | None:
    """Welch's t-test of candidate against reference: `diff_pct` (candidate's mean over the
    reference's, -1, in %), its interval `low_pct`..`high_pct`, `t`, `df`, `p` (two-sided, that
    the means differ at all) and `p_practical` (one-sided, that |difference| exceeds
    practical_pct of the reference's mean). None when either side has fewer than two values or
    the reference's mean is 0."""
    a, b = _finite(candidate), _finite(reference)
    if len(a) < 2 or len(b) < 2:
        return None
    ma, va = _mean_var(a)
    mb, vb = _mean_var(b)
    if mb == 0:
        return None
    sa, sb = va / len(a), vb / len(b)
    se2 = sa + sb
    diff = ma - mb
    if se2 == 0.0:
        # Both sides without any spread (a simulated drive whose throttle is exact): the
        # difference is exactly what it is.
        t = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        df = float(len(a) + len(b) - 2)
        p = 1.0 if diff == 0 else 0.0
        half = 0.0
        excess = abs(diff) - practical_pct / 100.0 * abs(mb)
        p_practical = 0.0 if excess > 0 else 1.0
    else:
        se = math.sqrt(se2)
        t = diff / se
        df = se2 * se2 / (
            (sa * sa / (len(a) - 1) if sa else 0.0) + (sb * sb / (len(b) - 1) if sb else 0.0)
        )
        p = t_two_sided_p(t, df)
        half = t_quantile(level, df) * se
        t_excess = (abs(diff) - practical_pct / 100.0 * abs(mb)) / se
        tail = t_two_sided_p(t_excess, df) / 2.0
        p_practical = tail if t_excess > 0 else 1.0 - tail
    scale = 100.0 / abs(mb)
    return {
        "diff_pct": diff * scale,
        "low_pct": (diff - half) * scale,
        "high_pct": (diff + half) * scale,
        "t": t,
        "df": df,
        "p": p,
        "p_practical": p_practical,
    }


def adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (q), in the input's order; None stays None."""
    indexed = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m = len(indexed)
    out: list[float | None] = [None] * len(pvalues)
    running = 1.0
    for rank in range(m, 0, -1):
        p, i = indexed[rank - 1]
        running = min(running, p * m / rank)
        out[i] = min(1.0, running)
    return out


def verdict(
    test: dict | None, q: float | None, higher_is_better: bool | None, alpha: float = ALPHA
) -> Verdict | None:
    """What a comparison may say of the candidate against the reference, given q: the
    adjusted `p_practical` of the test. None: the metric has no better direction (bytes moved,
    purge seconds)."""
    if higher_is_better is None:
        return None
    if test is None or q is None:
        return UNKNOWN
    if q >= alpha:
        return "within noise"
    ahead = test["diff_pct"] > 0
    return "better" if ahead == higher_is_better else "worse"


def stable(values: Sequence[float | None], threshold_pct: float = STABLE_RSD_PCT) -> bool:
    """True when at least two values vary by less than threshold_pct (relative std dev)."""
    r = rsd_pct(values)
    return r is not None and r < threshold_pct
