"""A mixed random or mixed sequential part's figures from its steps (backend.plans.mixed): MB/s
against the share of writes, the average over the shares (AnandTech's bar), the curve's lowest
and highest points, in words. Pure: points in, a dict out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PART_WORDS = {"random": "4K random QD4", "sequential": "128K sequential QD1"}


def _mbps(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def summarize(part: str, points: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """`points`: one per step, each {write_pct, read_mbps, write_mbps, read_iops, write_iops}
    (fio's totals of the step; a direction that did no I/O is 0). None without any point.

    The average is the plain mean of the shares' MB/s (each share weighs the same, as in
    AnandTech's bar, whatever its step's length); the lowest and highest points are measured
    shares, not an interpolation between them."""
    if not points:
        return None
    rows: list[dict[str, Any]] = []
    for p in sorted(points, key=lambda p: p["write_pct"]):
        read, write = float(p.get("read_mbps") or 0.0), float(p.get("write_mbps") or 0.0)
        row: dict[str, Any] = {
            "write_pct": int(p["write_pct"]),
            "step": p.get("step"),
            "read_mbps": read,
            "write_mbps": write,
            "mbps": read + write,
            "read_iops": float(p.get("read_iops") or 0.0),
            "write_iops": float(p.get("write_iops") or 0.0),
        }
        row["iops"] = row["read_iops"] + row["write_iops"]
        rows.append(row)
    n = len(rows)
    avg = sum(r["mbps"] for r in rows) / n
    avg_iops = sum(r["iops"] for r in rows) / n
    low = min(rows, key=lambda r: r["mbps"])
    high = max(rows, key=lambda r: r["mbps"])
    words = PART_WORDS.get(part, part)
    note = (
        f"{words}: {_mbps(avg)} MB/s on average over {n} share{'s' if n != 1 else ''} of writes "
        f"({', '.join(str(r['write_pct']) for r in rows)}%)"
    )
    if n > 1:
        note += (
            f"; lowest {_mbps(low['mbps'])} MB/s at {low['write_pct']}% writes, highest "
            f"{_mbps(high['mbps'])} MB/s at {high['write_pct']}% writes"
        )
        if rows[0]["mbps"] > 0:
            change = (rows[-1]["mbps"] / rows[0]["mbps"] - 1) * 100
            note += (
                f"; {_mbps(rows[-1]['mbps'])} MB/s at {rows[-1]['write_pct']}% writes against "
                f"{_mbps(rows[0]['mbps'])} at {rows[0]['write_pct']}% ({change:+.0f}%)"
            )
    note += (
        ". Each share is one step's average: a cache that runs out within a step lowers its "
        "share, it does not show as a change inside the step."
    )
    return {
        "part": part,
        "points": rows,
        "avg_mbps": avg,
        "avg_iops": avg_iops,
        "min_mbps": low["mbps"],
        "min_write_pct": low["write_pct"],
        "max_mbps": high["mbps"],
        "max_write_pct": high["write_pct"],
        "note": note,
    }
