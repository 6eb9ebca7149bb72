"""What a simulated drive really did: the known answer that drivelab's findings are checked
against. Pure: the controller's events and trace in, plain dicts out.

The controller records every change it makes (events) and the device's own counters every
tick (trace: wall time, bytes written and write I/Os since the drive started, about 200 a
second). The profile says where a level should change; the kernel's throttle then carries the
allowance that fio had not used yet over to the new limit, so the device's speed changes a
little later (seen: 0.26 s later, 2.1% of the span, at 20 -> 14 MB/s on a busy host). So a
change's truth is taken from the device's counters: a segmented regression of the written
bytes (or I/Os) against time over the 1 s on each side of the controller's change, two
lines that meet at a break, the break where they fit best; the levels on either side are
lines (Theil-Sen) over 3 s. This is the device's view at 5 ms resolution, independent of fio,
its snapshots and drivelab's analysis (which works from fio's view: 100 ms or 1 s
snapshots).

Lines over the 3 s on each side, where they meet, were the truth before: a host that held fio
up just before the change and the throttle letting it catch up (its allowance carries over)
put the device's counters above the line before, and the lines' meeting a whole percent of
the span after the bend the counters show (32.8% for a bend at 31.7%).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# The windows of the line fits: this long before and after the change, leaving out this much
# right next to it.
FIT_S = 3.0
GUARD_S = 0.3
# The segmented regression: over this long on each side of the controller's change (ten of the
# throttle's 0.1 s slices: the bend, not the levels around it), its break at a reading from the
# change to 3 x GUARD_S after it: the controller records the time before it sets the throttle,
# which carries a change out late, never early (a break before it is the host holding the
# writes up there: seen at 78.2% for a change at 80.2%).
SEGMENT_S = 1.0


def _line(t: np.ndarray, y: np.ndarray) -> tuple[float, float] | None:
    """(slope, intercept) by Theil-Sen: fio held up for a moment on a busy host, or a burst
    the throttle lets through, does not tilt it."""
    if t.size < 10 or np.ptp(t) <= 0:
        return None
    from backend.analysis.changepoints import _fit

    intercept, slope = _fit(t, y)
    return slope, intercept


def _segmented(t: np.ndarray, y: np.ndarray, breaks: np.ndarray) -> tuple[float, float] | None:
    """(t, y) of the break of the continuous two-line least-squares fit of y against t whose
    break, one of `breaks`, leaves the smallest squared error."""
    best: tuple[float, float, float] | None = None
    for tb in breaks:
        x = np.column_stack([np.ones_like(t), np.minimum(t - tb, 0.0), np.maximum(t - tb, 0.0)])
        coef = np.linalg.lstsq(x, y, rcond=None)[0]
        sse = float(((x @ coef - y) ** 2).sum())
        if best is None or sse < best[0]:
            best = (sse, float(tb), float(coef[0]))
    return None if best is None else (best[1], best[2])


def effective_change(
    trace: np.ndarray, wall: float, column: int, *, until: float | None = None
) -> dict[str, float] | None:
    """Where the device's rate changed around the controller's change at `wall`, from `column`
    (1 bytes written, 2 write I/Os) against time: the break of a segmented regression over
    SEGMENT_S on each side (`wall`, `at`), and the rates before and after it from Theil-Sen
    lines over FIT_S. None when there is too little data on a side (the device idle)."""
    t = trace[:, 0]
    y = trace[:, column]
    end = wall + FIT_S if until is None else min(wall + FIT_S, until)
    before = (t > wall - FIT_S) & (t < wall - GUARD_S)
    after = (t > wall + GUARD_S) & (t < end)
    lb, la = _line(t[before] - wall, y[before]), _line(t[after] - wall, y[after])
    if lb is None or la is None or lb[0] == la[0]:
        return None
    near = (t > wall - SEGMENT_S) & (t < min(wall + SEGMENT_S, end))
    tn = t[near] - wall
    found = _segmented(tn, y[near], tn[(tn >= 0.0) & (tn <= 3 * GUARD_S)])
    if found is None:
        return None
    x, at = found
    return {"wall": wall + x, "at": at, "rate_before": lb[0], "rate_after": la[0]}


def load_trace(lines: Sequence[str]) -> np.ndarray:
    """The controller's trace as rows of (wall time, bytes written since the last reset, write
    I/Os, bytes read since the drive started, seconds the host held the drive's processes up
    since it started: worker.sim.held); traces without the later columns read 0."""
    rows = [[float(v) for v in line.split()] for line in lines if line.strip()]
    rows = [row + [0.0] * (TRACE_COLUMNS - len(row)) for row in rows]
    return np.array(rows, dtype=float).reshape(-1, TRACE_COLUMNS)


TRACE_COLUMNS = 5
HELD = 4  # the trace's column of worker.sim.held's running total


def fio_held(trace: np.ndarray, wall0: float, wall1: float) -> float:
    """How long the host held the drive's processes (fio) up between two wall times, in
    seconds: time fio was ready to run (to reap a completion, to issue the next write) and
    did not. What fio measured in that time shows the host as well as the drive."""
    if trace.size == 0 or wall1 <= wall0:
        return 0.0
    t, y = trace[:, 0], trace[:, HELD]
    return float(np.interp(wall1, t, y) - np.interp(wall0, t, y))


def held_share(trace: np.ndarray, wall0: float, wall1: float) -> float:
    """The share of the time between two wall times the host held fio up (fio_held over its
    length): the room a rate measured over that time has below the drive's."""
    return fio_held(trace, wall0, wall1) / max(wall1 - wall0, 1e-9)


def level_changes(
    events: Sequence[dict[str, Any]], trace: np.ndarray, span_bytes: int
) -> list[dict[str, float]]:
    """Every write-speed level change: the profile's nominal position (`nominal_pct`), where the
    controller applied it (`applied_pct`), and where the device's speed really changed
    (`at_pct`, with the MB/s before and after from the device's counters)."""
    out = []
    levels = [e for e in events if e["kind"] == "level"]
    for prev, e in zip(levels, levels[1:], strict=False):
        found = effective_change(trace, e["wall"], 1)
        item = {
            "nominal_pct": float(prev["until_pct"]),
            "applied_pct": e["applied_written"] / span_bytes * 100.0,
            "profile_from_mbps": float(prev["mbps"]),
            "profile_to_mbps": float(e["mbps"]),
        }
        if found is not None:
            item.update(
                at_pct=found["at"] / span_bytes * 100.0,
                from_mbps=found["rate_before"] / 1e6,
                to_mbps=found["rate_after"] / 1e6,
                wall=found["wall"],
            )
        out.append(item)
    return out


def cliff(events: Sequence[dict[str, Any]], trace: np.ndarray) -> dict[str, float] | None:
    """When the random-write IOPS fell (the consistency cliff), from the device's counters."""
    for e in events:
        if e["kind"] == "cliff":
            found = effective_change(trace, e["wall"], 2)
            out = {"applied_wall": e["wall"]}
            if found is not None:
                out.update(
                    wall=found["wall"], iops_before=found["rate_before"],
                    iops_after=found["rate_after"],
                )  # fmt: skip
            return out
    return None


def stalls(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every write stall the controller made: kind ("periodic" or "trim"), wall start, length."""
    out = []
    start: dict[str, Any] | None = None
    for e in events:
        if e["kind"] == "stall-start":
            start = e
        elif e["kind"] == "stall-end" and start is not None:
            out.append(
                {
                    "kind": start["stall"],
                    "wall": start["wall"],
                    "duration_s": e["wall"] - start["wall"],
                }
            )
            start = None
    return out


# A gap between two rises of the device's counter is a stop when it is this many usual gaps
# long and at least GAP_S: the throttle lets writes through every 0.1 s or every tick (5 ms),
# depending on the limit; a 0.1 s rhythm is not a stall.
STOP_GAPS = 2.5
GAP_S = 0.15
# Writes that resume for less than one of fio's windows between two stops leave one stall.
RESUME_S = 0.1
# A rise of the counters below this share of the usual one is an I/O let through, not writing.
LEAK_SHARE = 0.1
# A device stall this long is left out of a level's rate (backend.analysis.stalls.MIN_STALL_S).
LEVEL_STALL_S = 0.3
# The controller reads the counters every tick (5 ms): a gap this long between two readings
# means the host held it up.
UNREAD_S = 0.1


def device_stalls(
    trace: np.ndarray, start: float, end: float, *, min_s: float, column: int = 1
) -> list[dict[str, float]]:
    """Where the device's writes stopped for at least `min_s` between wall times `start` and
    `end`, from its own counters: [{"wall", "duration_s"}]. `column`: 1 writes, 3 reads.

    This is what reached the device, whoever held the writes up: the profile's stalls, and also
    the kernel's throttle resuming late after one, or the host holding fio or the loop device's
    worker up. The throttle lets the writes through in bursts (every tick, or about every
    0.1 s), so the counters rise in steps: a stop is a gap between two rises of STOP_GAPS usual
    gaps and GAP_S or longer, and it lasts the gap less one usual gap (the time the device was
    not writing beyond its usual rhythm, what fio's 100 ms windows see as idle). Stops with
    less than RESUME_S of writing between them are one stall, and a stall lasts `min_s` or
    longer.

    A stop is only what the counters were seen standing still: the controller reads them every
    tick, but a busy host holds it up too (seen: 0.39 s without a reading), and the rise read
    after such a gap happened somewhere in it. So a gap between rises counts up to the reading
    before the second rise, and one tick."""
    t, y = trace[:, 0], trace[:, column]
    keep = (t >= start - 1.0) & (t <= end + 1.0)
    t, y = t[keep], y[keep]
    if t.size < 4:
        return []
    tick = float(np.median(np.diff(t)))
    # Rows whose reading rose by a tenth of the usual rise or more: the throttle lets a single
    # I/O through in the middle of a 1 byte/s stall now and then (seen: 128 KiB 1 s into a
    # 1.5 s stall), which is no writing (fio's windows see it below 10% of the median rate).
    dy = np.diff(y)
    usual_rise = float(np.median(dy[dy > 0])) if np.any(dy > 0) else 0.0
    rising = np.flatnonzero((dy > 0) & (dy >= LEAK_SHARE * usual_rise)) + 1
    inside = rising[(t[rising] > start) & (t[rising] < end)]
    if rising.size < 3:
        return []
    # Writes that had not begun at `start`, or had ended before `end`, stopped there: the last
    # reading at or before `end` is as far as the counters were seen standing still.
    last = t[t <= end]
    tail = min(end, float(last[-1]) + tick) if last.size else end
    rises = np.concatenate(([start], t[inside], [end]))
    seen = np.concatenate(([start], np.minimum(t[inside], t[inside - 1] + tick), [tail]))
    gaps = np.diff(rises)
    usual = float(np.median(gaps))
    still = seen[1:] - rises[:-1]  # how long the counters were seen not rising after each rise
    runs: list[list[float]] = []
    for k in np.flatnonzero(still >= max(STOP_GAPS * usual, GAP_S)):
        begin, stop = float(rises[k]), float(rises[k] + still[k]) - usual
        if runs and begin - runs[-1][1] < RESUME_S:
            runs[-1][1] = stop
        else:
            runs.append([begin, stop])
    out = []
    for begin, stop in runs:
        begin, stop = max(begin, start), min(stop, end)
        if stop - begin >= min_s:
            out.append({"wall": begin, "duration_s": stop - begin})
    return out


def wall_at(trace: np.ndarray, column: int, end: float, span: float, position: float) -> float:
    """When a sequential pass of `span` bytes that ended by wall time `end` was at `position`
    bytes, from the device's counter (`column` 1 written, 3 read): the counter at the pass's end
    less the span is where it began."""
    t, y = trace[:, 0], trace[:, column]
    last = float(np.interp(end, t, y))
    # Bytes written count from the device's last reset: only the stretch up to `end` that rises
    # to `last` without a reset in it.
    drops = np.flatnonzero((np.diff(y) < 0) & (t[1:] <= end))
    first = int(drops[-1]) + 1 if drops.size else 0
    t, y = t[first:], y[first:]
    return float(np.interp(last - span + position, y, t))


def device_rate(trace: np.ndarray, column: int, wall0: float, wall1: float) -> float:
    """Bytes a second the device moved (`column` 1 written, 3 read) between two wall times,
    its stalls of LEVEL_STALL_S or longer left out, as the analysis leaves the stalls fio saw
    out of a level. Shorter stops stay in: the throttle makes up for them right after.

    A stall the controller did not see is left out too: where a busy host held the controller
    up (no reading for UNREAD_S or longer), the counters rose across the gap by what the
    device moved somewhere in it, and the rest of the gap, beyond that at the rate around it,
    was a stop (seen: everything held 1.4 s, the device too, and a 40 MB/s pass read as 30
    with the gap in its time). A gap whose rise the rate explains held no stall."""
    t, y = trace[:, 0], trace[:, column]
    if wall1 <= wall0:
        return 0.0
    inside = (t >= wall0) & (t <= wall1)
    if inside.sum() < 2:
        return 0.0
    ti, yi = t[inside], y[inside]
    moved = float(yi[-1] - yi[0])
    span = float(ti[-1] - ti[0])
    seen = device_stalls(trace, wall0, wall1, min_s=LEVEL_STALL_S, column=column)
    stalled = sum(d["duration_s"] for d in seen)
    gaps = []
    for k in np.flatnonzero(np.diff(ti) >= UNREAD_S):
        a, b = float(ti[k]), float(ti[k + 1])
        # What of the gap a stall the counters did show already covers.
        covered = sum(
            max(0.0, min(b, d["wall"] + d["duration_s"]) - max(a, d["wall"])) for d in seen
        )
        gaps.append((b - a, float(yi[k + 1] - yi[k]), covered))
    rate = moved / max(span - stalled, 1e-9)
    for _round in range(3):  # the rate around the gaps, with what they held left out
        unseen = 0.0
        for length, rise, covered in gaps:
            stop = length - rise / max(rate, 1e-9)
            if stop >= LEVEL_STALL_S:
                unseen += max(0.0, stop - covered)
        rate = moved / max(span - stalled - unseen, 1e-9)
    return rate


def active_rate_range(
    trace: np.ndarray, column: int, wall0: float, wall1: float
) -> tuple[float, float]:
    """The device's bytes a second between its first and its last move within two wall
    times, as the readings bound it: (slowest, fastest). The move began between the last
    reading before its first rise and the first after it, and ended between the last reading
    below its final value and the first at it; readings are 5 ms apart, as far apart as the
    host held the reader up, and a short job's rate is known no better than that. The slowest
    is active_rate's."""
    t, y = trace[:, 0], trace[:, column]
    inside = (t >= wall0) & (t <= wall1)
    ti, yi = t[inside], y[inside]
    rises = np.flatnonzero(np.diff(yi) > 0)
    if rises.size == 0:
        return 0.0, 0.0
    first, last = int(rises[0]), int(rises[-1]) + 1
    moved = float(yi[last] - yi[first])
    longest = float(ti[last] - ti[first])
    shortest = float(ti[last - 1] - ti[first + 1])
    slow = moved / longest if longest > 0 else 0.0
    fast = moved / shortest if shortest > 0 else slow
    return slow, max(slow, fast)


def active_rate(trace: np.ndarray, column: int, wall0: float, wall1: float) -> float:
    """Bytes a second the device moved (`column` 1 written, 3 read) between its first and its
    last move within two wall times: the device's own time for a short job, not a window from
    fio's clock (fio prints its end tens of ms after the job's, a tenth of a 1 s job). From the
    last reading before the first rise to the reading that ends the last one: the slowest of
    active_rate_range."""
    return active_rate_range(trace, column, wall0, wall1)[0]
