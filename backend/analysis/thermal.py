"""Whether heat explains a step-down: the drive's temperature, its thresholds and its thermal
counters around the moment the speed fell. Pure: numbers in, plain dicts out.

`attribute` decides `heat` for one step-down at `at_s` (seconds from the step's start):

- "thermal" when, around the step-down, one of these holds (the first that does is the
  `basis`):
  * "counters": a throttle counter of the NVMe SMART log (thm_temp1/2_trans_count,
    thm_temp1/2_total_time, warning_temp_time, critical_comp_time) rose between two readings
    whose interval meets [at_s - COUNTER_WINDOW_S, at_s + COUNTER_WINDOW_S];
  * "threshold": the temperature at the step-down was at or above a threshold the controller
    reports (TMT1/TMT2 where the host set them, WCTEMP, CCTEMP, MXTMT), within HOT_MARGIN_C
    (sensors report whole degrees);
  * "peak": the temperature had risen (by RISE_C or more in the RISE_WINDOW_S before) to a
    peak within PEAK_NEAR_S of the step-down, and fell (by FALL_C or more) in the FALL_WINDOW_S
    after it while the speed stayed down (medians of the readings: noise and whole degrees
    make a plateau look like a one-degree peak). Not where the peak is COOL_MARGIN_C or more
    below the drive's own thresholds. Without thresholds or counters (simulated drives, SATA
    drives) this is the only evidence there is, and the words say so.
- "not thermal" when the drive has a sensor, its temperature at the step-down was known and
  at least COOL_MARGIN_C below every threshold (without thresholds: below GENERIC_COOL_C, cooler
  than the drives' throttle points), no counter rose and the temperature did not peak there:
  then the step-down is the drive's own (its SLC cache running out, garbage collection).
- "unknown" otherwise, said with the reason and never guessed: no sensor (every reading None),
  no reading within NEAR_S of the step-down, or a temperature near a threshold (or warm on a
  drive without thresholds) without a counter that rose or a peak.

What it cannot tell: a drive that throttles without raising its counters or the temperature it
reports (a throttle on a sensor the host does not see, on power, on a NAND die's own
temperature) looks exactly like a cache that ran out, and is called "not thermal" when it is
cool. On the other hand a cache that runs out on a drive that happens to be hot is called
"thermal" by the threshold rule; and with a peak as the only evidence, a cache step-down on a
warm drive (writing slower heats it less, so its temperature falls after any drop) can look
like a throttle. The words always say which evidence was used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

# Counters are read every 5 s (worker.temperature.COUNTERS_EVERY_S): a rise in a reading
# interval that meets at_s +- this is "at that point".
COUNTER_WINDOW_S = 3.0
THROTTLE_COUNTERS = (
    "thm_temp1_trans_count",
    "thm_temp2_trans_count",
    "thm_temp1_total_time",
    "thm_temp2_total_time",
    "warning_temp_time",
    "critical_comp_time",
)
# The temperature at the step-down: the reading nearest to it within this many seconds.
NEAR_S = 3.0
HOT_MARGIN_C = 1.0
COOL_MARGIN_C = 5.0
# No thresholds reported: cooler than this is cooler than drives throttle at.
GENERIC_COOL_C = 45.0
RISE_C = 2.0
RISE_WINDOW_S = 60.0
PEAK_NEAR_S = 2.0
FALL_C = 1.0
FALL_WINDOW_S = 10.0
# The thresholds in the order they are named when several are crossed: the host's own first.
THRESHOLDS = (
    ("TMT1", "tmt1_c"),
    ("TMT2", "tmt2_c"),
    ("WCTEMP", "wctemp_c"),
    ("CCTEMP", "cctemp_c"),
    ("MXTMT", "mxtmt_c"),
)
COUNTER_WORDS = {
    "thm_temp1_trans_count": "thermal management level 1 entered",
    "thm_temp2_trans_count": "thermal management level 2 entered",
    "thm_temp1_total_time": "time at thermal management level 1",
    "thm_temp2_total_time": "time at thermal management level 2",
    "warning_temp_time": "minutes above WCTEMP",
    "critical_comp_time": "minutes above CCTEMP",
}


def _readings(t_s: Sequence[float], temp_c: Sequence[float | None]) -> list[tuple[float, float]]:
    if len(t_s) != len(temp_c):
        raise ValueError(f"t_s and temp_c must be of one length: {len(t_s)} {len(temp_c)}")
    return [
        (float(t), float(c))
        for t, c in zip(t_s, temp_c, strict=True)
        if c is not None and math.isfinite(c) and math.isfinite(t)
    ]


def _thresholds(thresholds: Mapping[str, Any] | None) -> list[tuple[str, float]]:
    out = []
    for name, key in THRESHOLDS:
        value = (thresholds or {}).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            out.append((name, float(value)))
    return out


def counter_rises(
    counters: Mapping[str, Sequence[Any]] | None, at_s: float, window_s: float = COUNTER_WINDOW_S
) -> tuple[bool, list[dict[str, Any]]]:
    """(whether counters were read around at_s, the throttle counters that rose there with by
    how much). `counters` is the step's thermal log's: t_ms since the step's start and one list
    per counter (None where a reading lacked it)."""
    if not counters or not counters.get("t_ms"):
        return False, []
    t = [float(v) / 1000.0 for v in counters["t_ms"]]
    lo, hi = at_s - window_s, at_s + window_s
    # Reading intervals (t[i-1], t[i]] that meet the window.
    pairs = [i for i in range(1, len(t)) if t[i - 1] < hi and t[i] >= lo]
    covered = bool(pairs) or any(lo <= x <= hi for x in t)
    rose = []
    for name in THROTTLE_COUNTERS:
        values = counters.get(name)
        if not values or len(values) != len(t):
            continue
        by: float = 0
        for i in pairs:
            a, b = values[i - 1], values[i]
            if isinstance(a, int | float) and isinstance(b, int | float) and b > a:
                by += b - a
        if by > 0:
            rose.append({"name": name, "by": by, "words": COUNTER_WORDS[name]})
    return covered, rose


def _rate(value: float | None, unit: str) -> str:
    if value is None:
        return "?"
    if unit == "MB/s" and value >= 1000:
        return f"{value / 1000:.1f} GB/s"
    if unit == "IOPS":
        return f"{value:,.0f} IOPS"
    return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"


def _change(from_rate: float | None, to_rate: float | None, unit: str) -> str:
    if from_rate is None and to_rate is None:
        return ""
    return f", from {_rate(from_rate, unit)} to {_rate(to_rate, unit)}"


def attribute(
    at_s: float,
    t_s: Sequence[float],
    temp_c: Sequence[float | None],
    thresholds: Mapping[str, Any] | None = None,
    counters: Mapping[str, Sequence[Any]] | None = None,
    *,
    until_s: float | None = None,
    from_rate: float | None = None,
    to_rate: float | None = None,
    unit: str = "MB/s",
) -> dict[str, Any]:
    """Whether heat explains the step-down at `at_s` s (see the module's docstring).

    `t_s`/`temp_c` are the step's temperature series (None: no reading), `thresholds` the
    controller's (worker.temperature.thresholds: wctemp_c, cctemp_c, mxtmt_c, ...; any may be
    missing), `counters` the thermal log's counter readings, `until_s` when the lower level
    ended (the speed came back up; None: it stayed down), `from_rate`/`to_rate` the levels
    either side in `unit`, for the words.

    Returns `heat` ("thermal", "not thermal", "unknown"), `basis` ("counters", "threshold",
    "peak", "cool" or None), `at_s`, `temp_c` (the reading nearest the step-down, None without
    one within NEAR_S), `peak_c`, `threshold` ({"name", "c"} crossed, else None), `nearest`
    (the lowest threshold, {"name", "c"}, None without thresholds), `counters` ([{"name", "by",
    "words"}] that rose), `counters_read` (whether counters cover the moment) and `words`.
    """
    readings = _readings(t_s, temp_c)
    limits = _thresholds(thresholds)
    nearest = min(limits, key=lambda x: x[1]) if limits else None
    counters_read, rose = counter_rises(counters, at_s)
    near = [r for r in readings if abs(r[0] - at_s) <= NEAR_S]
    temp = min(near, key=lambda r: abs(r[0] - at_s))[1] if near else None
    peak = _peak(readings, at_s, until_s)
    if peak is not None and nearest is not None and peak <= nearest[1] - COOL_MARGIN_C:
        peak = None  # well below the drive's own thresholds: a peak there is not a throttle
    crossed = [(n, c) for n, c in limits if temp is not None and temp >= c - HOT_MARGIN_C]
    threshold = min(crossed, key=lambda x: x[1]) if crossed else None
    out: dict[str, Any] = {
        "heat": "unknown",
        "basis": None,
        "at_s": at_s,
        "temp_c": temp,
        "peak_c": peak,
        "threshold": {"name": threshold[0], "c": threshold[1]} if threshold else None,
        "nearest": {"name": nearest[0], "c": nearest[1]} if nearest else None,
        "counters": rose,
        "counters_read": counters_read,
        "words": "",
    }
    change = _change(from_rate, to_rate, unit)
    when = f"after {at_s:.0f} s"
    at_temp = f" at {temp:.0f} °C" if temp is not None else ""
    if rose:
        what = ", ".join(f"{r['words']} +{r['by']:g}" for r in rose)
        out.update(heat="thermal", basis="counters")
        out["words"] = f"throttled{at_temp} {when}{change} (the drive's counters: {what})"
        return out
    if threshold is not None:
        assert temp is not None
        out.update(heat="thermal", basis="threshold")
        note = "; no throttle counter rose" if counters_read else ""
        out["words"] = (
            f"throttled{at_temp} {when}{change} ({threshold[0]} {threshold[1]:.0f} °C{note})"
        )
        return out
    if peak is not None:
        out.update(heat="thermal", basis="peak")
        alone = (
            ""
            if limits or counters_read
            else "; the drive reports no thresholds: the peak is the only evidence"
        )
        out["words"] = (
            f"throttled at {peak:.0f} °C {when}{change} (the temperature rose to a peak at the "
            f"drop and fell while the speed stayed down{alone})"
        )
        return out
    if not readings:
        out["words"] = "the drive reports no temperature"
        if counters_read:
            out["words"] += " (no throttle counter rose)"
        return out
    if temp is None:
        out["words"] = f"no temperature reading within {NEAR_S:g} s of the step-down"
        return out
    counters_note = "no throttle counter rose" if counters_read else "no throttle counters"
    cause = "(the SLC cache or garbage collection)"
    if nearest is not None:
        if temp <= nearest[1] - COOL_MARGIN_C:
            out.update(heat="not thermal", basis="cool")
            out["words"] = (
                f"{temp:.0f} °C, below {nearest[0]} {nearest[1]:.0f} °C, {counters_note} {cause}"
            )
        else:
            out["words"] = (
                f"{temp:.0f} °C, near {nearest[0]} {nearest[1]:.0f} °C, {counters_note}: "
                "cannot tell"
            )
        return out
    if temp < GENERIC_COOL_C:
        out.update(heat="not thermal", basis="cool")
        out["words"] = (
            f"{temp:.0f} °C, no peak at the drop, {counters_note}; the drive reports no "
            f"thresholds; below {GENERIC_COOL_C:.0f} °C is cooler than drives are set to "
            f"throttle at {cause}"
        )
        return out
    out["words"] = (
        f"{temp:.0f} °C, the drive reports no thresholds and the temperature did not peak at the "
        "drop: cannot tell"
    )
    return out


def _peak(readings: list[tuple[float, float]], at_s: float, until_s: float | None) -> float | None:
    """The temperature's peak at the step-down when it rose to it before and fell after it
    while the speed stayed down, else None. Medians, not single readings: a sensor's noise and
    whole degrees make a plateau look like a peak of one degree."""
    around = [c for t, c in readings if abs(t - at_s) <= PEAK_NEAR_S]
    if not around:
        return None
    top = float(np.median(around))
    before = [c for t, c in readings if at_s - RISE_WINDOW_S <= t < at_s - PEAK_NEAR_S]
    end = at_s + FALL_WINDOW_S if until_s is None else min(until_s, at_s + FALL_WINDOW_S)
    after = [c for t, c in readings if at_s + PEAK_NEAR_S < t <= end]
    if not before or len(after) < 2:
        return None
    # The later half of what follows: where a fall has shown, if there is one.
    late = float(np.median(after[len(after) // 2 :]))
    if top - min(before) < RISE_C or top - late < FALL_C:
        return None
    # A peak, not a shoulder of a rise that goes on: nothing after is clearly hotter.
    if max(after) > top + FALL_C:
        return None
    return max(around)


def heat_words(heat: Mapping[str, Any] | None) -> str:
    """A heat attribution in words as the Run page and the Report say it: "heat: throttled at
    78 °C after 94 s, from 6.8 to 2.1 GB/s", "not heat: 41 °C, below WCTEMP 70 °C, ...",
    "heat unknown: the drive reports no temperature"."""
    if not heat:
        return ""
    prefix = {"thermal": "heat", "not thermal": "not heat"}.get(str(heat.get("heat")))
    return f"{prefix or 'heat unknown'}: {heat.get('words', '')}"
