from __future__ import annotations

import pytest

from backend.analysis.mixed import summarize


def point(pct: int, read: float, write: float, bs: int = 4096) -> dict:
    return {
        "write_pct": pct,
        "step": f"mixed-random-4k-qd4-w{pct}",
        "read_mbps": read,
        "write_mbps": write,
        "read_iops": read * 1e6 / bs,
        "write_iops": write * 1e6 / bs,
    }


def test_average_lowest_and_highest_of_the_measured_shares() -> None:
    # min(R / (1 - x), W / x) with R = 400, W = 200: 400, 444, 400, 250, 200 MB/s.
    pts = [point(100, 0, 200), point(0, 400, 0), point(10, 400, 44.4), point(50, 200, 200),
           point(80, 62.5, 250)]  # fmt: skip
    found = summarize("random", pts)
    assert found is not None
    assert [p["write_pct"] for p in found["points"]] == [0, 10, 50, 80, 100]
    assert [p["mbps"] for p in found["points"]] == pytest.approx([400, 444.4, 400, 312.5, 200])
    assert found["avg_mbps"] == pytest.approx((400 + 444.4 + 400 + 312.5 + 200) / 5)
    assert found["avg_iops"] == pytest.approx(found["avg_mbps"] * 1e6 / 4096)
    assert (found["min_write_pct"], found["min_mbps"]) == (100, pytest.approx(200))
    assert (found["max_write_pct"], found["max_mbps"]) == (10, pytest.approx(444.4))
    note = found["note"]
    assert "4K random QD4" in note and "lowest 200 MB/s at 100% writes" in note
    assert "highest 444 MB/s at 10% writes" in note and "(-50%)" in note
    assert "cannot" in note or "does not show" in note


def test_a_missing_direction_is_zero_and_no_points_is_none() -> None:
    assert summarize("sequential", []) is None
    found = summarize("sequential", [{"write_pct": 0, "read_mbps": 300.0}])
    assert found is not None
    assert found["points"][0]["write_mbps"] == 0.0 and found["avg_mbps"] == 300.0
    assert "lowest" not in found["note"]  # one share has no curve to speak of
