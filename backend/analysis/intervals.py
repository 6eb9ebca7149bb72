"""Per-interval series of a step, as charts, exports and metrics read them. Pure.

A step's samples end with fio's final summary, whose interval runs from the last status
snapshot to the job's end: 30 ms of a 15 s job, say. Its rate is true but says little (a few
I/Os, or none), and drawn as a point a second apart from the others it is a cliff or a spike at
the end of every chart. So a last interval shorter than half the typical one is folded into the
interval before it, weighted by its real length: the two become one interval from the start of
the first to the job's end, with their amounts added. Nothing is lost and nothing is invented;
charts, CSV exports and metrics all read the series through `fold_short_tail`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SHORT_TAIL = 0.5  # of the median interval


def fold_short_tail(
    t_ms: Sequence[float], dt_ms: Sequence[float], *amounts: Sequence[float]
) -> tuple[list[float], list[float], list[list[float]]]:
    """(t_ms, dt_ms, [amounts...]) with a short last interval folded into the one before."""
    t, dt, cols = fold_short_tail_arrays(t_ms, dt_ms, *amounts)
    return t.tolist(), dt.tolist(), [c.tolist() for c in cols]


def fold_short_tail_arrays(
    t_ms: Sequence[float] | np.ndarray,
    dt_ms: Sequence[float] | np.ndarray,
    *amounts: Sequence[float] | np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """fold_short_tail on float64 arrays (new ones; the inputs are left as they are)."""
    t = np.array(t_ms, dtype=np.float64)
    dt = np.array(dt_ms, dtype=np.float64)
    cols = [np.array(col, dtype=np.float64) for col in amounts]
    if any(len(c) != len(t) for c in cols) or len(dt) != len(t):
        raise ValueError("t_ms, dt_ms and the amounts differ in length")
    if len(t) >= 3 and dt[-1] < SHORT_TAIL * float(np.median(dt[:-1])):
        dt[-2] += dt[-1]
        t[-2] = t[-1]  # the interval before it now ends where the job ended
        for c in cols:
            c[-2] += c[-1]
        t, dt, cols = t[:-1], dt[:-1], [c[:-1] for c in cols]
    return t, dt, cols
