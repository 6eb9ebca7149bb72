"""Write hitching: stalls in a fine-grained throughput series (METHODS.md, plan 8; also the
sustained write after a TRIM in plan 7). Pure: numbers in, plain dicts out.

The series is regular: one value per window (100 ms from fio's bandwidth log after the job, or
1 s live), with the windows in which nothing completed already filled with 0
(worker.fio.logs.parse_window_log), because fio writes no row for them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Gaps between stall starts whose spread (max - min) is within this share of their median make
# a regular cadence ("one stall every 20 s").
REGULAR_SPREAD = 0.2


def find_stalls(values: Sequence[float], window_ms: int, *, rel_threshold: float = 0.1) -> dict:
    """Stalls, their count, durations and cadence.

    A window is stalled when its value is 0 or below `rel_threshold` (10%) x the median of the
    non-zero windows: the reviews' "0 MB/s or below 10% of the median". The median is taken
    without the zero windows so that many stalls cannot drag the reference down, and it is a
    median rather than a mean so that catch-up bursts after a stall do not raise it. 10% is the
    reviews' figure: low enough that ordinary window-to-window variation does not count, high
    enough that a window which completed only a few I/Os does. Missing values (None/NaN) are 0,
    as fio's missing rows are.

    Consecutive stalled windows form one stall. Times are from the start of the series: window
    i covers [i, i + 1) x window_ms, so a stall's `start_s` is its first window's index x the
    window, and its `duration_s` the number of windows x the window (the resolution is one
    window; a pause is seen as the windows that completed nothing or nearly nothing).

    `period_s` is the median gap between consecutive stall starts (None with fewer than 2
    stalls); `period_regular` is True when the spread (max - min) of those gaps is within 20%
    of that median and there are at least 2 gaps (one gap shows no cadence), so a periodic
    flush (one stall every 20 s) is told from scattered hiccups. Returns `median`,
    `threshold`, `stalls` ([{"start_s", "duration_s"}]), `count`, `longest_s`, `total_s`,
    `period_s`, `period_regular`. With no non-zero window the median and threshold are 0 and
    the whole series is one stall.
    """
    if window_ms <= 0:
        raise ValueError("window_ms must be positive")
    v = np.asarray(values, dtype=float)  # None reads as NaN
    v = np.where(np.isfinite(v), v, 0.0)
    nonzero = v[v != 0]
    median = float(np.median(nonzero)) if nonzero.size else 0.0
    threshold = rel_threshold * median
    stalled = (v == 0) | (v < threshold)
    # Runs of stalled windows: starts where stalled begins, ends where it stops.
    padded = np.concatenate(([False], stalled, [False])).astype(np.int8)
    edges = np.diff(padded)
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    # Whole windows x window_ms, divided once: 3 x 100 ms is 0.3 s, not 0.30000000000000004.
    n_windows = ends - starts
    stalls = [
        {"start_s": int(s) * window_ms / 1000.0, "duration_s": int(n) * window_ms / 1000.0}
        for s, n in zip(starts, n_windows, strict=True)
    ]
    period_s: float | None = None
    regular = False
    if starts.size >= 2:
        gaps = np.diff(starts) * window_ms / 1000.0
        period_s = float(np.median(gaps))
        spread = float(gaps.max() - gaps.min())
        regular = bool(gaps.size >= 2 and spread <= REGULAR_SPREAD * period_s + 1e-9)
    return {
        "median": median,
        "threshold": threshold,
        "stalls": stalls,
        "count": len(stalls),
        "longest_s": int(n_windows.max()) * window_ms / 1000.0 if n_windows.size else 0.0,
        "total_s": int(n_windows.sum()) * window_ms / 1000.0,
        "period_s": period_s,
        "period_regular": regular,
    }
