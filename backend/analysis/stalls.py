"""Write hitching: stalls in a throughput series (METHODS.md, plan 8; also the sustained write
after a TRIM in plan 7). Pure: numbers in, plain dicts out.

A series is a list of intervals on fio's clock, each with its start, end and mean rate: fio's
window log after the job (`window_log_intervals`, 100 ms windows) or its status snapshots
(`sample_intervals`, about 1 s). Stalls are found from real times, never from a grid:

- The reference is the median rate of the intervals that moved data (a median, so catch-up
  bursts after a stall and the stalls themselves do not move it).
- An interval's idle time is its length times its shortfall from the median,
  dt x (1 - rate / median), i.e. the time in which nothing completed if the rest of it ran at
  the median rate. A 1.5 s stall across 1 s snapshots shows as two slow intervals whose idle
  times add up to 1.5 s.
- An interval is stalled when its rate is at most `rel_threshold` (10%) of the median (the
  reviews' "0 MB/s or below 10% of the median") or when it was idle for at least half its
  length and at least a window, 0.1 s (a long interval that a stall covered only in part).
- Consecutive stalled intervals form one stall, together with the idle time of the interval
  just before and just after them (a stall rarely starts or ends on an interval boundary). Its
  duration is that idle time; it starts where its first idle time starts.
- A stall lasts at least `min_stall_s` (0.3 s); shorter ones are counted apart
  (`short_count`, `short_total_s`): on a busy host fio itself is held up for 0.15-0.23 s now
  and then, and no fio output tells that from a drive that pauses as briefly.

`period_s` is the median gap between consecutive stall starts (None with fewer than 2
stalls); `period_regular` says that the spread (max - min) of those gaps is within 20% of that
median with at least 2 gaps, so a periodic flush (one stall every 20 s) is told from scattered
hiccups.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

# Gaps between stall starts whose spread (max - min) is within this share of their median make
# a regular cadence ("one stall every 20 s").
REGULAR_SPREAD = 0.2
# A gap between window-log rows longer than this many windows had windows without a row.
GAP_WINDOWS = 2.5
# The reviews' window: an interval idle for at least this long (and half its length) stalled.
WINDOW_S = 0.1
# Stalls shorter than this are counted apart (`short_count`): on a busy host, fio's own threads
# are held up for 0.15-0.23 s (seen with two busy processes on two cores), which a window log
# cannot tell from the drive pausing.
MIN_STALL_S = 0.3

Intervals = tuple[np.ndarray, np.ndarray, np.ndarray]


def cadence(starts: list[float]) -> tuple[float | None, bool]:
    """The period of stalls starting at `starts` (s, in order): the median gap between their
    starts (None with fewer than two), and whether it is regular (three or more stalls whose
    gaps' spread is within REGULAR_SPREAD of that median)."""
    if len(starts) < 2:
        return None, False
    gaps = np.diff(starts)
    period_s = round(float(np.median(gaps)), 3)
    spread = float(gaps.max() - gaps.min())
    return period_s, bool(gaps.size >= 2 and spread <= REGULAR_SPREAD * period_s + 1e-9)


def window_log_intervals(
    t_ms: ArrayLike,
    values: ArrayLike,
    window_ms: int,
    *,
    end_ms: float | None = None,
) -> Intervals:
    """(start_s, end_s, rate) of the intervals a window log covers, from its rows' own times.

    fio closes a window at the first sample after `window_ms` has passed and writes a row only
    if something completed in it, so rows are 100-209 ms apart on a busy host and absent while
    the drive stalls. Row i ends at its time and starts where the row before ended (the first
    row: where the job started):
    - a gap of up to 2.5 windows is one window, stretched: its value is its rate throughout;
    - after a longer gap, fio's sampler ran through the gap and found windows without
      completions, and the row covers only its last window: the gap before it is an interval at
      0. Unless the row's rate is below half the median: then the sampler may have been held up
      through the stall (seen: fio's helper thread waits while the job's thread is blocked), and
      the row covered more than its window, up to half the gap at a rate near 0. So a row at
      rate v covers window + (gap - window) x max(0, 0.5 - v / median).
    A zero value (the other direction completed something in that window, this one nothing) is
    a window at 0. Rows above the median after a gap (a rate limiter catching up) do not hide
    the gap: the time without completions is counted, the bytes they carry do not cancel it.

    With `end_ms` (the job's runtime): a last row within 2.5 windows of the end is left out,
    because fio closes that window while the job winds down (seen: 3% of the median in the
    last 100 ms of a steady 20 s write whose status snapshots show no slowdown), unless it
    comes after a gap: then it is all that shows a stall ended before the job did (CI: left
    out, a 1.0 s stall 1.4 s before the end ran on to the end); time after the last row longer
    than 5 windows is an interval at 0: the job ended stalled.
    """
    if window_ms <= 0:
        raise ValueError("window_ms must be positive")
    t = np.asarray(t_ms, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.shape != v.shape:
        raise ValueError(f"t_ms and values differ in length: {t.size} != {v.size}")
    v = np.where(np.isfinite(v), v, 0.0)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    if (
        end_ms is not None
        and t.size > 1
        and end_ms - t[-1] <= GAP_WINDOWS * window_ms
        and t[-1] - t[-2] <= GAP_WINDOWS * window_ms
    ):
        t, v = t[:-1], v[:-1]
    moving = v[v > 0]
    median = float(np.median(moving)) if moving.size else 0.0
    # Each row starts where the row before it ended (the job's start for the first); a row at
    # the time of the one before adds nothing. Vectorised: a 2000 s log has 20,000 rows.
    prev = np.maximum(np.concatenate(([0.0], t[:-1])), 0.0)
    gap = t - prev
    keep = gap > 0
    t, v, prev, gap = t[keep], v[keep], prev[keep], gap[keep]
    long = gap > GAP_WINDOWS * window_ms
    share = np.maximum(0.0, 0.5 - v / median) if median > 0 else np.full(v.shape, 0.5)
    covered = np.where(long, window_ms + (gap - window_ms) * share, gap)
    # Every row's interval, each after a gap preceded by an interval at 0: row i's own
    # interval is at position i + (long gaps up to and including row i).
    own = np.arange(t.size) + np.cumsum(long)
    n = t.size + int(long.sum())
    starts, ends, rates = np.empty(n), np.empty(n), np.zeros(n)
    starts[own], ends[own], rates[own] = t - covered, t, v
    idle = own[long] - 1
    starts[idle], ends[idle] = prev[long], (t - covered)[long]
    last = float(t[-1]) if t.size else 0.0
    if end_ms is not None and end_ms - last > 2 * GAP_WINDOWS * window_ms:
        starts = np.append(starts, last)
        ends = np.append(ends, float(end_ms))
        rates = np.append(rates, 0.0)
    return starts / 1000.0, ends / 1000.0, rates


def sample_intervals(t_ms: ArrayLike, dt_ms: ArrayLike, amounts: ArrayLike) -> Intervals:
    """(start_s, end_s, rate per second) of status-snapshot samples: each ends at `t_ms` and
    lasts `dt_ms` (worker.fio.stream.Sample), with `amounts` (bytes or I/Os) completed in it."""
    t = np.asarray(t_ms, dtype=float)
    dt = np.asarray(dt_ms, dtype=float)
    a = np.asarray(amounts, dtype=float)
    if not t.shape == dt.shape == a.shape:
        raise ValueError("t_ms, dt_ms and amounts differ in length")
    keep = dt > 0
    t, dt, a = t[keep], dt[keep], a[keep]
    return (t - dt) / 1000.0, t / 1000.0, a / (dt / 1000.0)


def find_stalls(
    start_s: ArrayLike,
    end_s: ArrayLike,
    rates: ArrayLike,
    *,
    rel_threshold: float = 0.1,
    min_stall_s: float = MIN_STALL_S,
) -> dict:
    """Stalls, their count, durations and cadence, from intervals (see the module's doc).

    Returns `median`, `threshold` (rel_threshold x median), `rel_threshold`, `min_stall_s`,
    `stalls` ([{"start_s", "duration_s"}], seconds from the job's start, to the ms), `count`,
    `longest_s`, `total_s`, `period_s`, `period_regular`. With no interval that moved data the
    median is 0 and the whole series is one stall.
    """
    if not 0 < rel_threshold < 0.5:
        raise ValueError("rel_threshold must be between 0 and 0.5")
    s = np.asarray(start_s, dtype=float)
    e = np.asarray(end_s, dtype=float)
    r = np.asarray(rates, dtype=float)
    if not s.shape == e.shape == r.shape:
        raise ValueError("start_s, end_s and rates differ in length")
    r = np.where(np.isfinite(r), r, 0.0)
    dt = e - s
    moving = r[r > 0]
    median = float(np.median(moving)) if moving.size else 0.0
    idle = dt * np.clip(1.0 - r / median, 0.0, 1.0) if median > 0 else dt.copy()
    stalled = (r <= rel_threshold * median) | (idle >= np.maximum(WINDOW_S, dt / 2.0))
    padded = np.concatenate(([False], stalled, [False])).astype(np.int8)
    edges = np.diff(padded)
    firsts = np.flatnonzero(edges == 1)
    lasts = np.flatnonzero(edges == -1) - 1
    stalls = []
    for a, b in zip(firsts, lasts, strict=True):
        before = float(idle[a - 1]) if a > 0 and not stalled[a - 1] else 0.0
        after = float(idle[b + 1]) if b + 1 < r.size and not stalled[b + 1] else 0.0
        total = float(idle[a : b + 1].sum()) + before + after
        # Where the stall starts in its first interval: after that interval's active time when
        # the stall goes on into the next one (or into the next interval's idle time); at its
        # start otherwise (a window-log row after a gap completed its bytes at its end).
        runs_on = b > a or after > before
        start = float(s[a]) - before + (float(dt[a] - idle[a]) if runs_on else 0.0)
        stalls.append({"start_s": round(start, 3), "duration_s": round(total, 3)})
    short = [x for x in stalls if x["duration_s"] < min_stall_s]
    stalls = [x for x in stalls if x["duration_s"] >= min_stall_s]
    durations = [x["duration_s"] for x in stalls]
    period_s, regular = cadence([x["start_s"] for x in stalls])
    return {
        "median": median,
        "threshold": rel_threshold * median,
        "rel_threshold": rel_threshold,
        "min_stall_s": min_stall_s,
        "stalls": stalls,
        "count": len(stalls),
        "longest_s": max(durations, default=0.0),
        "total_s": round(sum(durations), 3),
        "period_s": period_s,
        "period_regular": regular,
        "short_count": len(short),
        "short_total_s": round(sum(x["duration_s"] for x in short), 3),
    }


def stalls_in_window_log(
    t_ms: ArrayLike, values: ArrayLike, window_ms: int, *, end_ms: float | None = None
) -> dict:
    """find_stalls on a window log's rows (worker.fio.logs.parse_window_log)."""
    found = find_stalls(*window_log_intervals(t_ms, values, window_ms, end_ms=end_ms))
    return {**found, "source": "window log", "window_ms": window_ms}


def stalls_in_samples(t_ms: ArrayLike, dt_ms: ArrayLike, amounts: ArrayLike) -> dict:
    """find_stalls on status-snapshot samples."""
    found = find_stalls(*sample_intervals(t_ms, dt_ms, amounts))
    return {**found, "source": "status snapshots"}


def window_log_points(
    t_ms: ArrayLike, values: ArrayLike, window_ms: int
) -> tuple[list[float], list[float]]:
    """A window log as a chart draws it: (t_s, value) at each row's time, and where fio wrote no
    row for a while (window_log_intervals) the line at 0 from the gap's start to its end, so a
    stall is drawn as the time at 0 that the analysis counts, not as a slope between rows."""
    starts, ends, rates = window_log_intervals(t_ms, values, window_ms)
    idle = (rates == 0) & (ends - starts > 0)
    # An idle interval is two points (its start and its end at 0), any other one point (its
    # end at its rate), in the intervals' order.
    xs = np.column_stack((np.where(idle, starts, np.nan), ends)).ravel()
    ys = np.column_stack((np.where(idle, 0.0, np.nan), rates)).ravel()
    drawn = ~np.isnan(xs)
    return xs[drawn].tolist(), ys[drawn].tolist()


def confirm_with_samples(found: dict, samples: Intervals) -> dict:
    """Keep the window log's stalls that fio's status snapshots confirm.

    A window-log row after a gap cannot tell a stall from fio's sampler running late on a busy
    host (seen: rows 262-326 ms apart at the normal rate, with 4 busy processes on 2 cores).
    The status snapshots can: fio samples their bytes and runtime at one instant, however late
    it prints them, so a snapshot interval that overlaps a real stall is short of bytes. A
    stall is kept when the snapshots' idle time within it (each overlapping interval's idle
    time, dt x (1 - rate / median), in proportion to the overlap) is at least half its length.
    The others are left out and counted in `unconfirmed`.
    """
    starts, ends, rates = samples
    moving = rates[rates > 0]
    if not found["stalls"] or moving.size == 0:
        return {**found, "unconfirmed": 0}
    median = float(np.median(moving))
    dt = ends - starts
    idle = dt * np.clip(1.0 - rates / median, 0.0, 1.0)
    kept = []
    for stall in found["stalls"]:
        a, b = stall["start_s"], stall["start_s"] + stall["duration_s"]
        overlap = np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0.0, None)
        # The idle time of the intervals it overlaps, no more than the overlap holds, and
        # used up: two stalls in one interval cannot both claim its idle time.
        seen = np.minimum(idle, overlap)
        idle = idle - seen
        if float(seen.sum()) >= stall["duration_s"] / 2:
            kept.append(stall)
    durations = [s["duration_s"] for s in kept]
    period_s, regular = cadence([s["start_s"] for s in kept])
    return {
        **found,
        "stalls": kept,
        "count": len(kept),
        "longest_s": max(durations, default=0.0),
        "total_s": round(sum(durations), 3),
        "period_s": period_s,
        "period_regular": regular,
        "unconfirmed": len(found["stalls"]) - len(kept),
    }
