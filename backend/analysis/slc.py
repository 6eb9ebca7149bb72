"""The SLC write cache from sequential passes (backend.plans.slc_cache): its size in a fill
and what of it an idle gap gave back, in a refill. Pure: step_downs results in, plain dicts
out.

A pass's cache is the GB written before its first step-down (backend.analysis.hdtach
step_downs), with the speeds before and after. Where the method cannot see: a level must last
MIN_SPAN_PCT (2%) of the pass, and three of the blocks of snapshots the change points are
looked for in (backend.analysis.changepoints: blocks of at most 0.5 s, so up to 1.5 s of
writing, MIN_LEVEL_S), so a cache smaller than 2% of the pass, or written in less time, shows
no step-down; a refill without a step-down either ran at the cache's speed to its end (the
cache recovered at least the whole refill) or at the speed after it (nothing recovered, or
less than the refill can see): its one level is compared with the fill's two.
"""

from __future__ import annotations

import math
from typing import Any

from backend.analysis.changepoints import BLOCK_S, MIN_POINTS
from backend.analysis.hdtach import MIN_SPAN_PCT

# The longest a level may need to last to be seen (three blocks of at most 0.5 s).
MIN_LEVEL_S = MIN_POINTS * BLOCK_S


def _resolution_gb(span_bytes: int, min_span_pct: float) -> float:
    return span_bytes * min_span_pct / 100.0 / 1e9


def _single_level(found: dict[str, Any]) -> float | None:
    """The pass's speed when it has no step-down: its longest level (by share of the pass)."""
    levels = found.get("levels") or []
    if not levels:
        return None
    return float(max(levels, key=lambda lv: lv["to_pct"] - lv["from_pct"])["mbps"])


def cache_size(found: dict[str, Any], span_bytes: int, written_bytes: float) -> dict[str, Any]:
    """The cache a fill found: `found` is step_downs() of the fill (span `span_bytes`), which
    wrote `written_bytes`. `cache_gb` (None without a step-down), `cache_mbps` and
    `after_mbps` (the speeds before and after it), `resolution_gb` (the smallest cache a
    step-down can show) and `note` in words."""
    min_span = float(found.get("min_span_pct", MIN_SPAN_PCT))
    res = _resolution_gb(span_bytes, min_span)
    out: dict[str, Any] = {
        "span_gb": span_bytes / 1e9,
        "written_gb": written_bytes / 1e9,
        "resolution_gb": res,
        "cache_gb": None,
        "cache_mbps": None,
        "after_mbps": None,
        "level_mbps": None,
    }
    downs = found.get("step_downs") or []
    if downs:
        first = downs[0]
        out.update(
            cache_gb=float(first["at_gb"]),
            cache_mbps=float(first["from_mbps"]),
            after_mbps=float(first["to_mbps"]),
            note=(
                f"{first['at_gb']:.3g} GB written at {first['from_mbps']:.0f} MB/s before the "
                f"speed stepped down to {first['to_mbps']:.0f} MB/s"
            ),
        )
        return out
    out["level_mbps"] = _single_level(found)
    out["note"] = (
        "no step-down: no cache, a cache that lasted the whole fill "
        f"({written_bytes / 1e9:.3g} GB), or one smaller than {res:.3g} GB (2% of the fill) "
        f"or written in less than {MIN_LEVEL_S:g} s, that this fill cannot see"
    )
    return out


def _closer_to(level: float, a: float, b: float) -> bool:
    """Whether `level` is nearer `a` than `b` on a log scale (speeds are ratios)."""
    return abs(math.log(level / a)) <= abs(math.log(level / b))


def recovered(
    found: dict[str, Any], span_bytes: int, written_bytes: float, fill: dict[str, Any] | None
) -> dict[str, Any]:
    """The cache a refill found after an idle gap: `found` is step_downs() of the refill
    (span `span_bytes`, `written_bytes` written), `fill` the fill's cache_size() (its speeds
    tell a refill at cache speed from one at the speed after the cache).

    `state`: "step-down" (`recovered_gb` before the first step-down), "whole" (the refill ran
    at the cache's speed throughout: at least `recovered_gb`, all it wrote), "none" (it ran at
    the speed after the cache: less than `resolution_gb`, recorded as 0) or "unknown" (no
    step-down here nor in the fill to compare with: `recovered_gb` None)."""
    min_span = float(found.get("min_span_pct", MIN_SPAN_PCT))
    res = _resolution_gb(span_bytes, min_span)
    out: dict[str, Any] = {
        "span_gb": span_bytes / 1e9,
        "written_gb": written_bytes / 1e9,
        "resolution_gb": res,
        "recovered_gb": None,
        "at_least": False,
        "cache_mbps": None,
        "after_mbps": None,
        "level_mbps": None,
    }
    downs = found.get("step_downs") or []
    if downs:
        first = downs[0]
        out.update(
            state="step-down",
            recovered_gb=float(first["at_gb"]),
            cache_mbps=float(first["from_mbps"]),
            after_mbps=float(first["to_mbps"]),
            note=(
                f"{first['at_gb']:.3g} GB at {first['from_mbps']:.0f} MB/s before the speed "
                f"stepped down to {first['to_mbps']:.0f} MB/s"
            ),
        )
        return out
    level = _single_level(found)
    out["level_mbps"] = level
    fast = (fill or {}).get("cache_mbps")
    slow = (fill or {}).get("after_mbps")
    if level is None or level <= 0 or not fast or not slow:
        out.update(
            state="unknown",
            note="no step-down, and no fill step-down to compare its speed with",
        )
        return out
    if _closer_to(level, fast, slow):
        out.update(
            state="whole",
            recovered_gb=written_bytes / 1e9,
            at_least=True,
            cache_mbps=level,
            note=(
                f"the whole refill ran at cache speed ({level:.0f} MB/s): at least "
                f"{written_bytes / 1e9:.3g} GB recovered"
            ),
        )
    else:
        out.update(
            state="none",
            recovered_gb=0.0,
            after_mbps=level,
            note=(
                f"none recovered: the refill ran at the speed after the cache ({level:.0f} "
                f"MB/s); a cache under {res:.3g} GB (2% of the refill) or written in less than "
                f"{MIN_LEVEL_S:g} s cannot be seen"
            ),
        )
    return out
