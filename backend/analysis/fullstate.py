"""Empty against full: how much a test's speed falls when the drive is full (plan full-drive).
Pure: fio's final JSON of the two steps in, the finding out.

The figures are fio's own totals (backend.analysis.fio_results.direction_summary: io_bytes over
the job's runtime), the same MB/s the two steps report as results, so the drop is exactly what
their bars show. The drop is (empty - full) / empty; a negative drop is a rise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backend.analysis.fio_results import direction_summary

# A difference smaller than this share is said as "about the same", not as a fall or a rise.
SAME_WITHIN = 0.05


def state_words(fill_percent: int) -> str:
    return f"{fill_percent}% full"


def drop(
    test: str,
    direction: str,
    empty_final: Mapping[str, Any],
    full_final: Mapping[str, Any],
    fill_percent: int,
    words: str | None = None,
) -> dict[str, Any] | None:
    """The finding of one test in both states, None when either state moved no data; `words`
    name the test in the sentence (its step name without them)."""
    empty = direction_summary(empty_final, direction)
    full = direction_summary(full_final, direction)
    if empty is None or full is None or empty["mbps"] <= 0:
        return None
    drop_pct = (empty["mbps"] - full["mbps"]) / empty["mbps"] * 100.0
    words = words or test
    full_words = state_words(fill_percent)
    if abs(drop_pct) < SAME_WITHIN * 100:
        said = f"{words} is about the same empty and {full_words} ({drop_pct:+.0f}%)"
    elif drop_pct > 0:
        said = f"{words} falls {drop_pct:.0f}% from empty to {full_words}"
    else:
        said = f"{words} rises {-drop_pct:.0f}% from empty to {full_words}"
    said += (
        f": {empty['mbps']:.1f} MB/s in the first part of an empty drive, {full['mbps']:.1f} "
        f"MB/s over the filled {fill_percent}%"
    )
    return {
        "test": test,
        "direction": direction,
        "fill_percent": fill_percent,
        "empty_mbps": empty["mbps"],
        "full_mbps": full["mbps"],
        "empty_iops": empty["iops"],
        "full_iops": full["iops"],
        "drop_pct": drop_pct,
        "said": said,
        "note": "Measured right after the fill, with no idle: a drive that cleans up or refills "
        "its cache when idle may do better after a pause, which this does not see.",
    }
