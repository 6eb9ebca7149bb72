"""A file copy's standstills (PC Perspective's File Copy Test; backend.plans.file_copy). Pure.

A copy's throughput is what its writer completed in each interval of fio's status snapshots
(every 100 ms: exact cumulative bytes, worker.fio.stream). A standstill is a time in which the
copy moved (nearly) nothing, found as backend.analysis.stalls finds write stalls: against the
median pace of the intervals that moved data, an interval at most 10% of it (or idle for at
least half its length) is stalled, consecutive ones make one standstill timed from its idle
time, and one shorter than 0.3 s is counted apart (`short_count`).

The copy's clock starts at the snapshot in which its writer first completed bytes (the
reader, started with it, runs ahead while the writer creates its first file): a standstill
before the first write completes is a late start, not counted.

What it can see: standstills of 0.3 s or more, placed and timed to about a snapshot (0.1 s),
from what fio completed, so from what the drive did with the copy's writes. What it cannot:
a pause shorter than 0.3 s (fio's own threads are held up that long on a busy host); a slow
patch above 10% of the median pace (that is a slowdown, in the throughput curve, not a
standstill); and why the copy stood still: that the deletions' TRIMs caused it is told by the
first copy having none and the repeated one having them, not by this analysis.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from backend.analysis.stalls import stalls_in_samples

MB = 1_000_000


def copy_summary(t_ms: ArrayLike, dt_ms: ArrayLike, write_bytes: ArrayLike) -> dict[str, Any]:
    """One copy: where it starts (`start_ms`, on the clock of `t_ms`: its first write), its
    bytes, seconds, mean MB/s (10^6 B/s) and standstills (`standstills`: [{"start_s",
    "duration_s"}] from the copy's start, `count`, `total_s`, `longest_s`, the `median_mbps`
    pace they are judged against, and the short ones counted apart)."""
    t = np.asarray(t_ms, dtype=float)
    dt = np.asarray(dt_ms, dtype=float)
    w = np.asarray(write_bytes, dtype=float)
    # The copy starts with its writer: fio starts the reader and the writer together, and the
    # writer's first write comes a little later (it creates its first file), which is no
    # standstill of the drive. Intervals before the first one with written bytes are left out
    # and the clock starts where they end.
    first = int(np.argmax(w > 0)) if np.any(w > 0) else 0
    t0 = float(t[first] - dt[first]) if t.size else 0.0
    t, dt, w = t[first:] - t0, dt[first:], w[first:]
    moved = float(w.sum())
    seconds = float(t[-1]) / 1000.0 if t.size else 0.0
    found = stalls_in_samples(t, dt, w)
    return {
        "start_ms": round(t0, 3),
        "bytes": moved,
        "seconds": round(seconds, 3),
        "mbps": round(moved / seconds / MB, 3) if seconds > 0 else 0.0,
        "median_mbps": round(found["median"] / MB, 3),
        "standstills": found["stalls"],
        "count": found["count"],
        "total_s": found["total_s"],
        "longest_s": found["longest_s"],
        "short_count": found["short_count"],
        "short_total_s": found["short_total_s"],
        "min_standstill_s": found["min_stall_s"],
        "rel_threshold": found["rel_threshold"],
    }


def _gb(n: float) -> str:
    return f"{n / 1e9:.3g} GB"


def _times(count: int) -> str:
    return "once" if count == 1 else "twice" if count == 2 else f"{count} times"


def _copy_words(name: str, copy: dict[str, Any]) -> str:
    if copy["count"] == 0:
        return f"{name} did not stand still ({copy['mbps']:.0f} MB/s on average)"
    longest = f", the longest {copy['longest_s']:.1f} s" if copy["count"] > 1 else ""
    return (
        f"{name} stood still {_times(copy['count'])} for {copy['total_s']:.1f} s in all"
        f"{longest} ({copy['mbps']:.0f} MB/s on average)"
    )


def findings(first: dict[str, Any], repeated: dict[str, Any], deleted_bytes: float) -> list[str]:
    """The copies in words: "the repeated copy stood still 4 times for 12.0 s in all after
    10.7 GB were deleted"."""
    out = [
        _copy_words("the first copy", first),
        _copy_words("the repeated copy", repeated) + f" after {_gb(deleted_bytes)} were deleted",
    ]
    if repeated["count"] > first["count"] or repeated["total_s"] > first["total_s"] + 0.5:
        out.append(
            f"after the deletions the copy stood still {repeated['total_s']:.1f} s, against "
            f"{first['total_s']:.1f} s before them"
        )
    out.append(
        f"standstills of {first['min_standstill_s']:g} s or more below "
        f"{first['rel_threshold']:.0%} of the copy's median pace are seen, to about 0.1 s"
    )
    return out
