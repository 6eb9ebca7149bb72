"""A copy's standstills from its 100 ms status snapshots, and the words said of them."""

from __future__ import annotations

import pytest

from backend.analysis.file_copy import copy_summary, findings

PACE = 2_000_000  # bytes per 100 ms: 20 MB/s


def snapshots(seconds: float, still: list[tuple[float, float]]) -> tuple[list, list, list]:
    """100 ms intervals at 20 MB/s, with nothing moved in the `still` (start, length) spans."""
    t, dt, moved = [], [], []
    for i in range(round(seconds * 10)):
        start = i / 10
        idle = sum(
            max(0.0, min(start + 0.1, a + d) - max(start, a)) for a, d in still
        )
        t.append(round((start + 0.1) * 1000))
        dt.append(100)
        moved.append(round(PACE * (0.1 - idle) / 0.1))
    return t, dt, moved


def test_a_copy_without_standstills() -> None:
    out = copy_summary(*snapshots(5, []))
    assert out["count"] == 0 and out["total_s"] == 0
    assert out["mbps"] == pytest.approx(20.0) and out["median_mbps"] == pytest.approx(20.0)
    assert out["bytes"] == 50 * PACE and out["seconds"] == 5.0


def test_standstills_are_found_placed_and_timed_to_a_snapshot() -> None:
    out = copy_summary(*snapshots(8, [(1.0, 1.5), (3.5, 1.5)]))
    assert out["count"] == 2
    (a, b) = out["standstills"]
    assert a["start_s"] == pytest.approx(1.0, abs=0.1) and a["duration_s"] == pytest.approx(1.5)
    assert b["start_s"] == pytest.approx(3.5, abs=0.1) and b["duration_s"] == pytest.approx(1.5)
    assert out["total_s"] == pytest.approx(3.0) and out["longest_s"] == pytest.approx(1.5)
    # A standstill that starts inside a snapshot is timed from the bytes that snapshot lacks.
    part = copy_summary(*snapshots(6, [(2.05, 0.8)]))
    assert part["count"] == 1 and part["standstills"][0]["duration_s"] == pytest.approx(0.8)


def test_a_pause_shorter_than_0_3_s_is_counted_apart() -> None:
    out = copy_summary(*snapshots(5, [(2.0, 0.2)]))
    assert out["count"] == 0 and out["short_count"] == 1
    assert out["short_total_s"] == pytest.approx(0.2)


def test_the_words_say_how_often_and_how_long_after_how_much_was_deleted() -> None:
    first = copy_summary(*snapshots(5, []))
    repeated = copy_summary(*snapshots(8, [(1.0, 1.5), (3.5, 1.5)]))
    words = findings(first, repeated, 10 * 2**30)
    assert words[0] == "the first copy did not stand still (20 MB/s on average)"
    assert words[1] == (
        "the repeated copy stood still twice for 3.0 s in all, the longest 1.5 s "
        "(12 MB/s on average) after 10.7 GB were deleted"
    )
    assert "against 0.0 s before them" in words[2]
    assert "0.3 s or more" in words[3]


def test_the_copy_starts_with_its_first_write_not_with_the_reader() -> None:
    """fio starts the reader and the writer together; the writer's first write comes after it
    created its first file: those intervals are no standstill, and the clock starts there."""
    t, dt, moved = snapshots(5, [(2.0, 1.0)])
    late = [100, 200, 300] + [x + 300 for x in t]
    out = copy_summary(late, [100] * 3 + dt, [0, 0, 0] + moved)
    assert out["start_ms"] == 300
    assert out["count"] == 1 and out["standstills"][0]["start_s"] == pytest.approx(2.0, abs=0.1)
    assert out["seconds"] == 5.0
