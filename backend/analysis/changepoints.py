"""Sustained levels of a rate and where they change: an HD Tach pass's write speed against
position, a consistency run's IOPS against time, a drive's recovery after a workload changes.
Pure: numbers in, plain dicts out.

The input is what fio measures exactly: consecutive intervals on fio's clock, each with its
length and the amount (bytes or I/Os) completed in it. The rate of a single interval is noisy
(on a busy host fio's 100 ms snapshots of a steady 60 MB/s write read 17 to 101 MB/s: fio
was descheduled, then caught up), but the cumulative amount against time is exact at every
interval's end. So:

1. Candidate changes: PELT (`ruptures`, penalised least squares on the log of each interval's
   rate; the log makes a 50% drop the same size at 1000 and at 30 MB/s) with a penalty from
   the series' own noise (BIC: 2 x sigma^2 x log n, sigma from the median absolute deviation of
   successive log rates). PELT may find too many; the next step decides.
2. Levels: adjacent segments whose levels differ by less than `min_rel_change` are merged,
   and so are segments shorter than `min_amount` / `min_time` (into the neighbour closer in
   level), smallest first, until every level is distinct and sustained.
3. Each level is the slope of a line through the cumulative amount against time over its
   segment (Theil-Sen: robust to what is left of a stall or a burst; an amount over a time, not
   an average of noisy rates), and each change is where the lines of the two segments meet: a
   position and a time finer than one interval.
   Stalls (intervals that found.stalls.find_stalls calls stalled) are taken out of the time
   axis first, so a level is the speed while the drive moves data and a stall next to a change
   does not move it; they stay in the times reported. So is the idle part of a snapshot fio
   printed late (LATE): the time its data would have taken at the rate around it is kept.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

MIN_POINTS = 3  # blocks per segment that PELT may consider
# An interval is stalled when its rate is at most STALL_SHARE of the median of the
# STALL_CONTEXT intervals around it (the reviews' "below 10% of the median", locally, so that a
# slow level is not a stall).
STALL_SHARE = 0.1
STALL_CONTEXT = 11
# fio prints a status snapshot late only when the job was held up (the drive stalled, or the
# host held fio up): an interval more than LATE times the median interval, slower than the
# intervals around it, holds a stall. Its data moved at about the rate around it; the rest of
# its time was the stall (seen: a 0.6 s stall in 100 ms snapshots came as one 0.7 s interval
# at a third of the level's rate, not as idle intervals, and made a level of its own).
LATE = 2.0
# ... unless the CATCH_UP intervals after it make its shortfall up (see `levels`): an
# interval over BURST times the pace around is a catch-up.
CATCH_UP = 3
BURST = 1.5
SHARP_BLOCKS = 3
# Candidates are looked for in blocks of intervals: BLOCKS in the series, at most BLOCK_S long,
# at least one interval.
BLOCKS = 60
BLOCK_S = 0.5
MAX_BLOCKS = 2000
PELT_CANDIDATES = 200
MAX_FIT_POINTS = 400
# A change is placed where local lines meet: through the intervals within this many blocks
# (and at least this many intervals) of it on each side.
LOCAL_BLOCKS = 8
LOCAL_INTERVALS = 4
LOCAL_ROUNDS = 8  # fits of the local lines around where they meet


def _noise(z: np.ndarray) -> float:
    if z.size < 3:
        return 0.0
    d = np.diff(z)
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / np.sqrt(2.0))


def _pelt(z: np.ndarray) -> list[int]:
    """Indices where a new segment starts (excluding 0), by PELT on z."""
    import ruptures as rpt  # a heavy import, only when a series is analysed

    n = z.size
    if n < 2 * MIN_POINTS:
        return []
    sigma = max(_noise(z), 1e-3)
    # ruptures' PELT takes time with the square of the candidates: at most PELT_CANDIDATES
    # of them (0.3 s); the line fits then place each change within its interval.
    jump = max(1, -(-n // PELT_CANDIDATES))
    algo = rpt.Pelt(model="l2", min_size=MIN_POINTS, jump=jump).fit(z.reshape(-1, 1))
    bkps = algo.predict(pen=2.0 * sigma**2 * np.log(n))
    return [int(b) for b in bkps[:-1]]


def _fit(tau: np.ndarray, cum: np.ndarray) -> tuple[float, float]:
    """(intercept, slope) of cum against tau: Theil-Sen (the median of the slopes between pairs
    of points), so that what is left of a stall, or a burst, does not tilt the line."""
    if tau.size < 2 or np.ptp(tau) <= 0:
        return float(cum.mean()) if cum.size else 0.0, 0.0
    if tau.size > MAX_FIT_POINTS:  # evenly spaced points: the pairs grow with the square
        pick = np.linspace(0, tau.size - 1, MAX_FIT_POINTS).round().astype(int)
        tau, cum = tau[pick], cum[pick]
    i, j = np.triu_indices(tau.size, k=1)
    dx = tau[j] - tau[i]
    ok = dx > 0
    slope = float(np.median((cum[j][ok] - cum[i][ok]) / dx[ok]))
    return float(np.median(cum - slope * tau)), slope


def _around(rate: np.ndarray) -> np.ndarray:
    """The median rate of the STALL_CONTEXT intervals around each one: centred on it, and
    near either end the first or last STALL_CONTEXT (a window padded with copies of the last
    rates took a stall at the end of a pass as the rate around it)."""
    if rate.size <= STALL_CONTEXT:
        return np.full(rate.size, float(np.median(rate)))
    medians = np.median(np.lib.stride_tricks.sliding_window_view(rate, STALL_CONTEXT), axis=1)
    first = np.clip(np.arange(rate.size) - STALL_CONTEXT // 2, 0, rate.size - STALL_CONTEXT)
    return medians[first]


def _caught_up(
    dt: np.ndarray, a: np.ndarray, stalled: np.ndarray, active: np.ndarray
) -> np.ndarray:
    """`active` with time given back to each run of stalled intervals that the CATCH_UP
    intervals after it make up: what they move beyond the level after the run, at that level. Such
    a run held less of a stall of the drive, or none: fio (or the throttle standing for a
    drive) was held up while the drive kept its pace, and the drive then let it catch up at
    once, a rate limit carrying its unused allowance over. Left out, a level would be the
    catch-up's rate (seen on a busy host: 25.3 MB/s for a drive at 24 after a late snapshot,
    and a read pass at 40 MB/s read as 58 up to a 1.4 s hold-up with nothing completed and a
    catch-up burst after it, then 40: a step-down the drive never made)."""
    out = active.copy()
    i = 0
    while i < dt.size:
        if not stalled[i]:
            i += 1
            continue
        j = i
        while j < dt.size and stalled[j]:
            j += 1
        # The pace it would have kept: bytes over time of the intervals that moved data within
        # STALL_CONTEXT on each side, bursts (over BURST x their median) left out; not the
        # median around the run's own intervals, which a long stall drags down (after a 2 s
        # stall at a pass's start everything looked a surplus). A catch-up is an interval of
        # the CATCH_UP after the run over BURST x that pace; its bytes beyond the pace are what
        # the drive moved during the run.
        side = [
            k
            for k in (*range(max(0, i - STALL_CONTEXT), i), *range(j, j + STALL_CONTEXT))
            if k < dt.size and not stalled[k]
        ]
        if not side:
            i = j
            continue
        rates = a[side] / dt[side]
        calm = np.asarray(side)[rates <= BURST * float(np.median(rates))]
        pace = float(a[calm].sum() / dt[calm].sum())
        nxt = np.arange(j, min(j + CATCH_UP, dt.size))
        burst = nxt[a[nxt] > BURST * pace * dt[nxt]]
        give = float((a[burst] - pace * dt[burst]).sum()) / max(pace, 1e-300)
        for k in range(i, j):
            back = min(float(dt[k] - active[k]), give)
            out[k] += back
            give -= back
        i = j
    return out


def levels(
    dt_s: ArrayLike,
    amounts: ArrayLike,
    *,
    min_rel_change: float,
    min_amount: float = 0.0,
    min_time_s: float = 0.0,
) -> dict:
    """The sustained levels of consecutive intervals (`dt_s` long, `amounts` completed in each)
    and the changes between them; see the module's doc for the method.

    Returns `segments` ([{"start_s", "end_s", "start_amount", "end_amount", "rate",
    "median_rate"}], rate in amount per second while moving data, the slope of the line; the
    median of its blocks' rates beside it), `changes` ([{"t_s", "amount", "before", "after",
    "ratio"}], where `t_s` is on the series' clock from its first interval's start and `amount`
    the cumulative amount there) and the parameters used. A series shorter than two segments
    of MIN_POINTS intervals has one level.
    """
    if not 0 < min_rel_change < 1:
        raise ValueError("min_rel_change must be between 0 and 1")
    dt = np.asarray(dt_s, dtype=float)
    a = np.asarray(amounts, dtype=float)
    if dt.shape != a.shape or dt.ndim != 1:
        raise ValueError("dt_s and amounts must be 1-D and of one length")
    if np.any(~np.isfinite(dt)) or np.any(~np.isfinite(a)) or np.any(dt < 0) or np.any(a < 0):
        raise ValueError("dt_s and amounts must be finite and not negative")
    params = {
        "min_rel_change": min_rel_change,
        "min_amount": min_amount,
        "min_time_s": min_time_s,
        "method": "PELT (ruptures, l2 on log rate) + merge + cumulative line fits",
    }
    keep = dt > 0
    dt, a = dt[keep], a[keep]
    if a.sum() <= 0:
        return {"segments": [], "changes": [], **params}
    t_end = np.cumsum(dt)
    cum = np.cumsum(a)
    rate = a / dt
    # Stalls (nothing or nearly nothing completed: at most STALL_SHARE of the rate around them)
    # leave the time axis of everything below, tau, so that a level is the speed while data
    # moves and a stall is not a level. They stay in the times reported.
    around = _around(rate)
    core = rate <= STALL_SHARE * around
    # A stall rarely starts or ends on an interval's edge: the intervals next to one that were
    # mostly idle (below half the rate around) belong to it, and the next ones out lose their
    # idle time too.
    for _grow in range(2):
        near = np.zeros_like(core)
        near[1:] |= core[:-1]
        near[:-1] |= core[1:]
        core = core | (near & (rate < 0.5 * around))
    near = np.zeros_like(core)
    near[1:] |= core[:-1]
    near[:-1] |= core[1:]
    late = (dt > LATE * float(np.median(dt))) & (rate < around)
    stalled = core | (near & (rate < around)) | late
    active = np.where(stalled, np.minimum(dt, a / np.maximum(around, 1e-300)), dt)
    tau = np.cumsum(active)
    # The levels' speeds are taken on an axis that gives stalls made up at once their time
    # back (_caught_up); where the levels change is found on tau.
    credited = np.cumsum(_caught_up(dt, a, stalled, active))
    total = float(tau[-1])
    if total <= 0:
        return {"segments": [], "changes": [], **params}

    # 1. Candidates on blocks of intervals: one interval's rate swings with when fio ran and
    #    the throttle let data through; a block's rate (its amount over its time) is steady.
    #    Block k covers intervals bounds[k]:bounds[k + 1].
    block_s = min(max(total / BLOCKS, float(np.median(active[~stalled]))), BLOCK_S)
    block_s = max(block_s, total / MAX_BLOCKS)
    block_of = np.floor(np.concatenate(([0.0], tau[:-1])) / block_s + 1e-9).astype(int)
    bounds = [0, *np.flatnonzero(np.diff(block_of)) + 1, dt.size]
    block_rate = np.array(
        [
            a[i:j].sum() / active[i:j].sum() if active[i:j].sum() > 0 else 0.0
            for i, j in zip(bounds, bounds[1:], strict=False)
        ]
    )
    floor = 0.01 * float(np.median(block_rate[block_rate > 0])) if np.any(block_rate > 0) else 1.0
    z = np.log(np.maximum(block_rate, floor))
    starts = [bounds[k] for k in [0, *_pelt(z)]] + [dt.size]  # interval indices

    block_starts = np.asarray(bounds[:-1])

    def seg_rate(i0: int, i1: int) -> float:
        inside = block_rate[np.searchsorted(block_starts, i0) : np.searchsorted(block_starts, i1)]
        if inside.size:
            return float(np.median(inside))
        return float(a[i0:i1].sum() / max(active[i0:i1].sum(), 1e-300))

    def too_short(i0: int, i1: int) -> bool:
        # Also shorter than MIN_POINTS blocks: what the snapshots can resolve as a level (2% of
        # a 40 MB/s pass over 200 MB is a single 100 ms snapshot).
        time = float(active[i0:i1].sum())
        return (
            float(a[i0:i1].sum()) < min_amount
            or time < min_time_s
            or time < MIN_POINTS * block_s * (1 - 1e-9)
        )

    # 2. Merge until every boundary separates distinct, sustained levels.
    while len(starts) > 2:
        rates = [max(seg_rate(starts[k], starts[k + 1]), 1e-12) for k in range(len(starts) - 1)]
        contrasts = [abs(np.log(rates[k + 1] / rates[k])) for k in range(len(rates) - 1)]
        weakest = int(np.argmin(contrasts))
        if contrasts[weakest] < -np.log(1.0 - min_rel_change):
            del starts[weakest + 1]
            continue
        short = [k for k in range(len(rates)) if too_short(starts[k], starts[k + 1])]
        if not short:
            break
        k = min(short, key=lambda j: float(a[starts[j] : starts[j + 1]].sum()))
        if k == 0:
            del starts[1]
        elif k == len(rates) - 1:
            del starts[k]
        else:
            del starts[k if contrasts[k - 1] <= contrasts[k] else k + 1]

    def fit(k: int, axis: np.ndarray | None = None) -> tuple[float, float]:
        sel = np.arange(starts[k], starts[k + 1])
        sel = sel[~stalled[sel]]
        # Leave out the intervals next to a change (they may straddle it) where the segment is
        # long enough to spare them.
        edge = 2 if sel.size >= 8 else 1 if sel.size >= 4 else 0
        first = edge if k > 0 else min(edge, 1)
        last = sel.size - (edge if k < len(starts) - 2 else min(edge, 1))
        return _fit((tau if axis is None else axis)[sel[first:last]], cum[sel[first:last]])

    # 3. Lines through the cumulative amount against tau, and the changes where they meet; the
    #    intervals are then reassigned to the side of the meeting point and the lines fitted
    #    again, until the changes stay put (PELT placed them only to a block).
    def refine() -> tuple[list[tuple[float, float]], list[float]]:
        lines: list[tuple[float, float]] = []
        crossings: list[float] = []
        for _round in range(8):
            lines = [fit(k) for k in range(len(starts) - 1)]
            crossings = []
            moved = False
            for k in range(len(lines) - 1):
                (c0, s0), (c1, s1) = lines[k], lines[k + 1]
                lo = tau[(starts[k] + starts[k + 1]) // 2]
                hi = tau[min((starts[k + 1] + starts[k + 2]) // 2, dt.size - 1)]
                x = (c1 - c0) / (s0 - s1) if s0 != s1 else tau[starts[k + 1] - 1]
                x = float(min(max(x, lo), hi))
                crossings.append(x)
                new = int(np.searchsorted(tau, x, side="right"))
                new = min(max(new, starts[k] + 1), starts[k + 2] - 1)
                if new != starts[k + 1]:
                    starts[k + 1] = new
                    moved = True
            if not moved:
                break
        return lines, crossings

    # 4. A change must be a step: the rates next to it, over half the shorter of its two
    #    segments (at least SHARP_BLOCKS blocks and the minimum length), must differ by
    #    min_rel_change too, or it is a gradual slope that the lines cut into pieces. The least
    #    sharp such change is merged away, and again.
    def local(x: float, width: float, after: bool) -> float:
        x0, x1 = (x, min(x + width, total)) if after else (max(x - width, 0.0), x)
        if x1 <= x0:
            return 0.0
        return float(np.interp(x1, tau, cum) - np.interp(x0, tau, cum)) / (x1 - x0)

    def fit_points(k: int) -> int:
        sel = np.arange(starts[k], starts[k + 1])
        return int((~stalled[sel]).sum())

    while True:
        lines, crossings = refine()
        # Refining can leave a segment with too little in it to be a level: merge it away.
        thin = [
            k
            for k in range(len(starts) - 1)
            if fit_points(k) < 2 or too_short(starts[k], starts[k + 1])
        ]
        if thin and len(starts) > 2:
            k = min(thin, key=lambda j: float(a[starts[j] : starts[j + 1]].sum()))
            del starts[1 if k == 0 else k]
            continue
        # Levels that the fitted lines put closer than min_rel_change are one level, on tau or
        # on the credited axis (a hold-up made up at once is no change of the drive's speed).
        speeds = [[s for _c, s in lines]]
        if np.any(credited != tau):
            speeds.append([fit(k, credited)[1] for k in range(len(starts) - 1)])
        weak = [
            (min(abs(np.log(max(v[k + 1], 1e-300) / max(v[k], 1e-300))) for v in speeds), k)
            for k in range(len(lines) - 1)
        ]
        if weak and min(weak)[0] < -np.log(1.0 - min_rel_change):
            del starts[min(weak)[1] + 1]
            continue
        dull = []
        for k, x in enumerate(crossings):
            rate_here = max(lines[k][1], lines[k + 1][1], 1e-300)
            left = x - (crossings[k - 1] if k > 0 else 0.0)
            right = (crossings[k + 1] if k + 1 < len(crossings) else total) - x
            width = max(
                SHARP_BLOCKS * block_s, min_time_s, min_amount / rate_here, min(left, right) / 2
            )
            before, after = local(x, width, False), local(x, width, True)
            contrast = abs(np.log(max(after, 1e-300) / max(before, 1e-300)))
            if contrast < -np.log(1.0 - min_rel_change):
                dull.append((contrast, k))
        if not dull:
            break
        del starts[min(dull)[1] + 1]

    # 5. Where each change is: the lines of the whole segments give the levels, but a level is
    #    rarely flat (a drive's fresh-out-of-box IOPS sag before the cliff), and a line through
    #    a whole sagging segment, carried to its end, meets the next one early or late. So the
    #    change is where local lines meet: each through the intervals of its side within
    #    LOCAL_BLOCKS blocks (at least LOCAL_INTERVALS intervals) of the change, as the device
    #    ran just before and just after it. Where they meet, the local lines are fitted again
    #    around the new point, until it stays put (LOCAL_ROUNDS at most): a hold-up of fio and
    #    its catch-up shortly before a change pull the whole lines' crossing early, and local
    #    lines around that crossing then still mix the old level into the new one (seen: 35.3%
    #    instead of 40.4%, tests/backend/analysis/data/hdtach_holdup_before_the_change.json).
    def local_line(k: int, x: float, after: bool) -> tuple[float, float]:
        # The intervals of segment k and the one across the change from it that lie wholly on
        # this side of x (not the one straddling it), near it: once the meeting point has
        # moved, intervals that the whole lines gave to the other segment are on this side.
        sel = np.arange(starts[k - 1] if after else starts[k], starts[k + 1 if after else k + 2])
        sel = sel[~stalled[sel]]
        begins = tau[sel] - active[sel]
        if after:
            keep = begins >= x - 1e-9
            sel, distance = sel[keep], begins[keep] - x
        else:
            keep = tau[sel] <= x + 1e-9
            sel = sel[keep]
            distance = x - tau[sel]
        if sel.size:
            width = max(LOCAL_BLOCKS * block_s, LOCAL_INTERVALS * float(np.median(active[sel])))
            sel = sel[distance <= width]
        if sel.size < MIN_POINTS:
            return lines[k]
        return _fit(tau[sel], cum[sel])

    meets = []
    for k, x in enumerate(crossings):
        lo = tau[(starts[k] + starts[k + 1]) // 2]
        hi = tau[min((starts[k + 1] + starts[k + 2]) // 2, dt.size - 1)]
        c0, s0 = lines[k]
        for _round in range(LOCAL_ROUNDS):
            (b0, r0), (b1, r1) = local_line(k, x, False), local_line(k + 1, x, True)
            if not (r0 > r1 if lines[k][1] > lines[k + 1][1] else r0 < r1):
                break
            moved = float(min(max((b1 - b0) / (r0 - r1), lo), hi))
            c0, s0 = b0, r0
            done = abs(moved - x) < 1e-9
            x = moved
            if done:
                break
        crossings[k] = x
        meets.append(c0 + s0 * crossings[k])

    if np.any(credited != tau):
        lines = [fit(k, credited) for k in range(len(starts) - 1)]

    changes = []
    for k, x in enumerate(crossings):
        (_c0, s0), (_c1, s1) = lines[k], lines[k + 1]
        changes.append(
            {
                "t_s": float(np.interp(x, tau, t_end)),
                "amount": float(meets[k]),
                "before": s0,
                "after": s1,
                "ratio": s1 / s0 if s0 > 0 else None,
            }
        )
    segments = []
    for k, (_c, slope) in enumerate(lines):
        t0 = 0.0 if k == 0 else changes[k - 1]["t_s"]
        t1 = float(t_end[-1]) if k == len(lines) - 1 else changes[k]["t_s"]
        segments.append(
            {
                "start_s": t0,
                "end_s": t1,
                "start_amount": 0.0 if k == 0 else changes[k - 1]["amount"],
                "end_amount": float(cum[-1]) if k == len(lines) - 1 else changes[k]["amount"],
                "rate": slope,
                # The median of the segment's blocks' rates: a level that a stall only partly
                # covering an interval (a 1 s stall in 1 s snapshots) does not pull down, as it
                # pulls down the line through the cumulative amount.
                "median_rate": seg_rate(starts[k], starts[k + 1]),
            }
        )
    return {"segments": segments, "changes": changes, **params}
