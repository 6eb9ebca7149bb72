"""HD Tach-style throughput against position (METHODS.md, plan 5). Pure: numbers in, plain
dicts out.

A pass is sequential from offset 0, so the position of a byte is the cumulative number of
bytes transferred before it divided by the span; time plays no part in the position. The
intervals are fio's status snapshots (every 100 ms for these steps), each with its exact
duration and byte count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from backend.analysis import changepoints


def _levels(dt_s: Sequence[float], nbytes: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    dt = np.asarray(dt_s, dtype=float)
    b = np.asarray(nbytes, dtype=float)
    if dt.shape != b.shape or dt.ndim != 1:
        raise ValueError(f"dt_s and nbytes must be 1-D and of one length: {dt.shape} {b.shape}")
    if not (np.all(np.isfinite(dt)) and np.all(np.isfinite(b))):
        raise ValueError("dt_s and nbytes must be finite: a missing interval shifts positions")
    if np.any(dt < 0) or np.any(b < 0):
        raise ValueError("dt_s and nbytes must not be negative")
    return dt, b


def throughput_vs_position(
    dt_s: Sequence[float],
    nbytes: Sequence[float],
    span_bytes: int,
    *,
    resolution_pct: float = 0.5,
) -> dict:
    """Throughput in bins of `resolution_pct` % of the span, from consecutive intervals
    (duration, bytes) of a sequential pass that starts at offset 0.

    Each interval moves the position from the cumulative bytes before it to the cumulative bytes
    after it, at a constant rate within the interval (all fio tells us). A bin's MB/s
    (10^6 B/s) is the bytes transferred in the bin divided by the time spent in it, with an
    interval that straddles bin edges split in proportion to its bytes on each side. This is
    exact for bytes (the bins add up to the total) and keeps each bin a true average, whatever
    the snapshot spacing: an interval covering several bins gives them its own rate, several
    intervals inside one bin are averaged by bytes over time, never by averaging their rates.

    An interval with no bytes (nothing completed: the drive stalled) stays at one position:
    its time is charged to the bin that the next byte goes to, so a stall shows as a
    slower bin where it happened. Time after the last byte goes to the last bin with data.

    Returns `position_pct` (bin centres), `mbps`, `bytes` and `seconds` per bin (bins without
    data are omitted), `resolution_pct`, `average_mbps` (total bytes / total time, None without
    time) and `coverage_pct` (the position reached: 100 for a full pass; more than 100 if the
    pass wrapped, whose extra bins continue past 100 rather than overlap the start).
    """
    if span_bytes <= 0:
        raise ValueError("span_bytes must be positive")
    if not resolution_pct > 0:
        raise ValueError("resolution_pct must be positive")
    dt, b = _levels(dt_s, nbytes)
    cum_b = np.concatenate(([0.0], np.cumsum(b)))
    cum_t = np.concatenate(([0.0], np.cumsum(dt)))
    total_b = float(cum_b[-1])
    total_t = float(cum_t[-1])
    out: dict = {
        "position_pct": [],
        "mbps": [],
        "bytes": [],
        "seconds": [],
        "resolution_pct": resolution_pct,
        "average_mbps": total_b / total_t / 1e6 if total_t > 0 else None,
        "coverage_pct": total_b / span_bytes * 100.0,
    }
    if total_b <= 0:
        return out
    n_bins = max(1, math.ceil(total_b / span_bytes * 100.0 / resolution_pct - 1e-9))
    # Bin k covers [edge_k, edge_k+1) bytes; the last bin ends at the last byte.
    edges = span_bytes * (np.arange(n_bins + 1) * resolution_pct) / 100.0
    edges[-1] = total_b
    edges[:-1] = np.minimum(edges[:-1], total_b)
    # Time at which the position first reaches each edge: in the interval j with
    # cum_b[j-1] < edge <= cum_b[j] (so zero-byte intervals at the edge come after it).
    j = np.searchsorted(cum_b, edges, side="left")
    j = np.clip(j, 1, cum_b.size - 1)
    b0, b1 = cum_b[j - 1], cum_b[j]
    t0, t1 = cum_t[j - 1], cum_t[j]
    frac = np.where(b1 > b0, (edges - b0) / np.where(b1 > b0, b1 - b0, 1.0), 0.0)
    t_edge = t0 + np.clip(frac, 0.0, 1.0) * (t1 - t0)
    t_edge[0] = 0.0  # stalls before the first byte belong to the first bin
    t_edge[-1] = total_t  # trailing stalls belong to the last bin
    bin_bytes = np.diff(edges)
    bin_time = np.diff(t_edge)
    centres = (np.arange(n_bins) + 0.5) * resolution_pct
    keep = (bin_bytes > 0) & (bin_time > 0)
    out["position_pct"] = [float(v) for v in centres[keep]]
    out["mbps"] = [float(v) for v in bin_bytes[keep] / bin_time[keep] / 1e6]
    out["bytes"] = [float(v) for v in bin_bytes[keep]]
    out["seconds"] = [float(v) for v in bin_time[keep]]
    return out


# A step-down is a sustained drop: the speed falls by at least MIN_DROP (20%) and both levels
# last at least MIN_SPAN_PCT (2%) of the span.
MIN_DROP = 0.2
MIN_SPAN_PCT = 2.0


def step_downs(
    dt_s: Sequence[float],
    nbytes: Sequence[float],
    span_bytes: int,
    *,
    min_drop: float = MIN_DROP,
    min_span_pct: float = MIN_SPAN_PCT,
) -> dict:
    """Where the sustained speed of a sequential pass steps down, e.g. an SLC write cache that
    runs out: a pass at 1000 MB/s that drops to ~200 MB/s after 25% gives a step-down at 25%.

    The levels and changes come from backend.analysis.changepoints on the pass's intervals
    (duration, bytes), whose cumulative bytes give the position: each level is the speed while
    data moved (stalls left out), each change is where the lines of cumulative bytes against
    time of the two levels meet, finer than one interval. Levels closer than `min_drop` are one
    level, and a level must last `min_span_pct` % of the span; a step-down is a change to a
    level at most (1 - min_drop) x the one before. Up-steps delimit levels and are not
    reported; a flat series (noise well within min_drop) or a gradual ramp gives none.

    Returns `step_downs` ([{"at_pct", "at_gb", "from_mbps", "to_mbps"}]: position in % of the
    span and in GB (10^9 B) written from the pass's start), `levels` ([{"from_pct", "to_pct",
    "mbps"}]) and the rule (`min_drop`, `min_span_pct`, `method`).
    """
    if span_bytes <= 0:
        raise ValueError("span_bytes must be positive")
    if not 0 < min_drop < 1:
        raise ValueError("min_drop must be between 0 and 1")
    if not min_span_pct > 0:
        raise ValueError("min_span_pct must be positive")
    dt, b = _levels(dt_s, nbytes)
    found = changepoints.levels(
        dt, b, min_rel_change=min_drop, min_amount=span_bytes * min_span_pct / 100.0
    )
    pct = 100.0 / span_bytes
    steps = [
        {
            "at_pct": c["amount"] * pct,
            "at_gb": c["amount"] / 1e9,
            "from_mbps": c["before"] / 1e6,
            "to_mbps": c["after"] / 1e6,
        }
        for c in found["changes"]
        if c["before"] > 0 and c["after"] <= (1.0 - min_drop) * c["before"]
    ]
    levels = [
        {
            "from_pct": seg["start_amount"] * pct,
            "to_pct": seg["end_amount"] * pct,
            "mbps": seg["rate"] / 1e6,
        }
        for seg in found["segments"]
    ]
    return {
        "step_downs": steps,
        "levels": levels,
        "min_drop": min_drop,
        "min_span_pct": min_span_pct,
        "method": found["method"],
    }
