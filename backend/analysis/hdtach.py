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


def _medians(part: np.ndarray) -> tuple[float, float]:
    """The median and the upper median (the higher middle value; equal for an odd count)."""
    ordered = np.sort(part)
    n = ordered.size
    upper = float(ordered[n // 2])
    return (upper if n % 2 else float(ordered[n // 2 - 1] + upper) / 2.0), upper


def step_downs(
    position_pct: Sequence[float],
    mbps: Sequence[float],
    *,
    min_drop: float = 0.25,
    min_span_pct: float = 2.0,
) -> list[dict]:
    """Where the sustained speed steps down, e.g. the end of an SLC write cache: a write pass at
    1000 MB/s that drops to ~200 MB/s after 25% filled gives [{"at_pct": 25.0, "from_mbps":
    ~1000, "to_mbps": ~200}].

    Method (medians throughout, so noise and single slow bins do not make steps):
    1. At each point, the median of the `min_span_pct` % before it and of the `min_span_pct` %
       from it on (clipped at the ends of the data, down to half that width).
    2. A candidate down step where after <= (1 - min_drop) x before; a candidate up step where
       the reverse holds (up steps are found only to delimit the levels, never reported).
       With an even count the window on the lower side uses its upper median, so a strict
       majority of it must be low: slow bins, or a dip over no more than half the window,
       make no candidate.
    3. Each run of consecutive candidates is one change, placed by a robust change-point fit:
       with the levels before and after the run (the medians of the windows outside it), the
       split within the run that minimises the points' distances to the level of their side,
       each capped at half the step, i.e. beyond the midpoint a point counts as misplaced,
       however far: a stalled bin next to the step cannot drag the step onto itself. It is
       reported as the boundary between two bins (the midpoint of their centres), so a step
       at a bin edge is found exactly.
    4. Changes closer than `min_span_pct` keep the larger one. The levels are the medians of the
       whole segments between changes. A down step is reported when both segments around it
       span at least `min_span_pct` (a level must last that long to be sustained: pass a
       smaller value for a very small cache) and the segment after is still at most
       (1 - min_drop) x the segment before; those medians are from/to.
    A flat series (noise well within min_drop) or a gradual ramp (under min_drop per
    min_span_pct) gives no step.
    """
    if not 0 < min_drop < 1:
        raise ValueError("min_drop must be between 0 and 1")
    if not min_span_pct > 0:
        raise ValueError("min_span_pct must be positive")
    pos = np.asarray(position_pct, dtype=float)
    y = np.asarray(mbps, dtype=float)
    if pos.shape != y.shape:
        raise ValueError("position_pct and mbps differ in length")
    keep = np.isfinite(pos) & np.isfinite(y)
    pos, y = pos[keep], y[keep]
    order = np.argsort(pos, kind="stable")
    pos, y = pos[order], y[order]
    if pos.size < 4:
        return []
    h = min_span_pct
    half = float(np.median(np.diff(pos))) / 2.0
    keep_ratio = 1.0 - min_drop

    # 1-2: candidate changes, +1 up, -1 down, 0 none. Window before i: y[starts[i]:i],
    # after: y[i:stops[i]].
    starts = np.searchsorted(pos, pos - h, side="left")
    stops = np.searchsorted(pos, pos + h, side="left")
    kind = np.zeros(pos.size, dtype=int)
    for i in range(1, pos.size):
        if pos[i] - (pos[0] - half) < h / 2 or pos[-1] + half - pos[i] < h / 2:
            continue
        if starts[i] >= i:
            continue  # a gap wider than the window (bins without data)
        m_before = _medians(y[starts[i] : i])
        m_after = _medians(y[i : stops[i]])
        # The lower side's upper median: a strict majority of that window must be low, so a
        # dip over half a window is not a step. Stalls on the higher side can only lower its
        # median, which makes a step harder to find, never a false one.
        if m_before[0] > 0 and m_after[1] <= keep_ratio * m_before[0]:
            kind[i] = -1
        elif m_after[0] > 0 and m_before[1] <= keep_ratio * m_after[0]:
            kind[i] = 1

    # 3: one change per run of candidates, placed by a capped-distance fit.
    changes: list[tuple[int, float]] = []  # (index of the first point after, contrast)
    i = 1
    while i < pos.size:
        if kind[i] == 0:
            i += 1
            continue
        a = i
        while i + 1 < pos.size and kind[i + 1] == kind[a]:
            i += 1
        b = i
        i += 1
        level_before = _medians(y[starts[a] : a])[0]
        level_after = _medians(y[b : stops[b]])[0]
        cap = abs(level_before - level_after) / 2.0
        # Only the points between the candidate splits change sides: the cost of a split is
        # theirs, each the capped distance to the level of the side it falls on.
        between = y[a : b + 1]
        cost_before = np.minimum(np.abs(between - level_before), cap)
        cost_after = np.minimum(np.abs(between - level_after), cap)
        costs = [
            float(cost_before[: s - a].sum() + cost_after[s - a :].sum()) for s in range(a, b + 2)
        ]
        best = a + int(np.argmin(costs))
        if best >= pos.size:
            best = pos.size - 1
        contrast = max(level_before, level_after) / max(min(level_before, level_after), 1e-12)
        changes.append((best, contrast))

    # 4: changes closer than min_span_pct keep the larger one.
    kept: list[tuple[int, float]] = []
    for change in changes:
        if kept and pos[change[0]] - pos[kept[-1][0]] < h:
            if change[1] > kept[-1][1]:
                kept[-1] = change
            continue
        kept.append(change)

    bounds = [0] + [c[0] for c in kept] + [pos.size]
    # Position of the boundary before point i (the data's ends for 0 and n).
    mids = np.concatenate(([pos[0] - half], (pos[:-1] + pos[1:]) / 2.0, [pos[-1] + half]))
    steps: list[dict] = []
    for n, (idx, _) in enumerate(kept, start=1):
        start, end = bounds[n - 1], bounds[n + 1]
        if min(mids[idx] - mids[start], mids[end] - mids[idx]) < h - 1e-9:
            continue
        before = float(np.median(y[start:idx]))
        after = float(np.median(y[idx:end]))
        if before > 0 and after <= keep_ratio * before:
            steps.append(
                {
                    "at_pct": float(mids[idx]),
                    "from_mbps": before,
                    "to_mbps": after,
                }
            )
    return steps
