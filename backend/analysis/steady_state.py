"""SNIA PTS steady state. Pure: numbers in, numbers out.

A window of rounds is steady when both hold (METHODS.md, SNIA PTS):
- data excursion: max - min <= excursion_pct% of the window's average;
- slope excursion: |least-squares slope| x (window - 1), the change of the fit line across the
  window ("slope x 4" for 5 rounds), <= slope_pct% of the window's average.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _window_stats(y: np.ndarray, first_round: int) -> dict[str, Any]:
    """Average, range and least-squares fit of one window; x is the 1-based round number."""
    x = np.arange(first_round, first_round + y.size, dtype=float)
    average = float(y.mean())
    value_range = float(y.max() - y.min())
    if y.size >= 2:
        slope, intercept = (float(v) for v in np.polyfit(x, y, 1))
    else:
        slope, intercept = 0.0, average
    slope_excursion = abs(slope) * (y.size - 1)
    return {
        "average": average,
        "range": value_range,
        "range_pct": value_range / average * 100.0 if average > 0 else None,
        "slope": slope,
        "slope_excursion": slope_excursion,
        "slope_excursion_pct": slope_excursion / average * 100.0 if average > 0 else None,
        "fit": [intercept, slope],
        "band": [average * 0.9, average * 1.1],
    }


def _steady(stats: dict[str, Any], n: int, excursion_pct: float, slope_pct: float) -> bool:
    average = stats["average"]
    if n < 2 or not np.isfinite(average) or average <= 0:
        return False
    return bool(
        stats["range"] <= excursion_pct / 100.0 * average
        and stats["slope_excursion"] <= slope_pct / 100.0 * average
    )


def is_steady(
    values: Sequence[float],
    *,
    excursion_pct: float = 20.0,
    slope_pct: float = 10.0,
    window: int | None = None,
) -> bool:
    """Whether the window is steady. The caller passes the window (`values[-5:]`), or every
    round so far with `window`, in which case fewer than `window` rounds are never steady.
    Fewer than 2 values, or a non-positive average, are never steady."""
    y = np.asarray(values, dtype=float)
    if window is not None:
        if y.size < window:
            return False
        y = y[-window:]
    if y.size < 2 or not np.all(np.isfinite(y)):
        return False
    return _steady(_window_stats(y, 1), y.size, excursion_pct, slope_pct)


def steady_state_report(
    values: Sequence[float],
    *,
    window: int = 5,
    excursion_pct: float = 20.0,
    slope_pct: float = 10.0,
) -> dict[str, Any]:
    """The convergence report of a series of rounds (one value per round, round 1 first).

    `round` is the first 1-based round at which the window ending there is steady (None when
    none is); `window` is [first, last] round of that window, or of the last window when the
    series never became steady. The statistics describe that window; `fit` is
    [intercept, slope] of value = intercept + slope x round, so the fit line can be drawn on
    the round axis, and `band` is the average +-10%.
    """
    if window < 2:
        raise ValueError("window must be at least 2 rounds")
    y = np.asarray(values, dtype=float)
    steady_round: int | None = None
    for end in range(window, y.size + 1):
        part = y[end - window : end]
        if np.all(np.isfinite(part)) and _steady(
            _window_stats(part, end - window + 1), window, excursion_pct, slope_pct
        ):
            steady_round = end
            break
    end = steady_round if steady_round is not None else y.size
    start = max(1, end - window + 1)
    report: dict[str, Any] = {
        "steady": steady_round is not None,
        "round": steady_round,
        "rounds": int(y.size),
        "window": [start, end],
        "excursion_pct": excursion_pct,
        "slope_pct": slope_pct,
    }
    if y.size == 0:
        empty = ("average", "range", "range_pct", "slope", "slope_excursion", "slope_excursion_pct")
        return {**report, "window": None, "fit": None, "band": None, **dict.fromkeys(empty)}
    report.update(_window_stats(y[start - 1 : end], start))
    return report
