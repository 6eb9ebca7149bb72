"""Figures a review quotes from a queue-depth sweep. Pure: points in, dict out.

Each point is one closed-loop fio step at a queue depth: its IOPS (fio's totals) and the p99
of all its completions (read and write together, from fio's json+ histogram). Two figures:

- the lowest queue depth that reaches `share` (95%) of the sweep's peak IOPS: where the
  drive's parallelism is used up;
- the highest measured IOPS whose p99 stays at or under a latency target, with the next
  deeper point that misses it (the answer lies between the two, at this sweep's resolution).
  Only measured points count: the curve between them is not interpolated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def sweep_figures(
    points: Sequence[Mapping[str, Any]],
    target_us: float,
    share: float = 0.95,
    low_qds: Sequence[int] = (1, 2, 4),
) -> dict[str, Any]:
    """`points`: {qd, iops, p99_us (None when unknown)} in any order. `low_qd_iops`: the mean
    IOPS of the `low_qds` depths (the low-QD score a desktop feels), None unless every one of
    them was swept."""
    pts = sorted(points, key=lambda p: p["qd"])
    if not pts:
        return {"points": 0}
    peak = max(pts, key=lambda p: p["iops"])
    reaching = [p for p in pts if p["iops"] >= share * peak["iops"]]
    out: dict[str, Any] = {
        "points": len(pts),
        "peak_iops": peak["iops"],
        "peak_qd": peak["qd"],
        "share": share,
        "qd_at_share_of_peak": reaching[0]["qd"],
        "iops_at_share_of_peak": reaching[0]["iops"],
        "target_us": target_us,
        "iops_under_target": None,
        "qd_under_target": None,
        "p99_under_target_us": None,
        "next_over_target": None,
    }
    low = {p["qd"]: p["iops"] for p in pts if p["qd"] in low_qds}
    out["low_qd_iops"] = sum(low.values()) / len(low) if len(low) == len(low_qds) else None
    out["low_qds"] = list(low_qds)
    passing = [p for p in pts if p.get("p99_us") is not None and p["p99_us"] <= target_us]
    if passing:
        best = max(passing, key=lambda p: p["iops"])
        out["iops_under_target"] = best["iops"]
        out["qd_under_target"] = best["qd"]
        out["p99_under_target_us"] = best["p99_us"]
        over = [
            p
            for p in pts
            if p["qd"] > best["qd"] and p.get("p99_us") is not None and p["p99_us"] > target_us
        ]
        if over:
            out["next_over_target"] = {k: over[0][k] for k in ("qd", "iops", "p99_us")}
    return out
