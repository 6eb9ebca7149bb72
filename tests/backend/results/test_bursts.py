"""The QD1 burst figures from bursts' own fio totals (backend.results.bursts): pure parts."""

from __future__ import annotations

import json
import math

import pytest

from backend.results.bursts import _window_s, note, summarize


def test_the_mean_slowest_fastest_and_spread_of_the_bursts() -> None:
    rows = [{"iops": 10_000.0, "mbps": 40.96}, {"iops": 12_000.0, "mbps": 49.152},
            {"iops": 14_000.0, "mbps": 57.344}]  # fmt: skip
    s = summarize(rows, "read")
    assert s["bursts"] == 3 and s["direction"] == "read"
    assert s["iops_mean"] == pytest.approx(12_000)
    assert (s["iops_min"], s["iops_max"]) == (10_000, 14_000)
    std = math.sqrt((2000**2 * 2) / 3)
    assert s["iops_spread_pct"] == pytest.approx(100 * std / 12_000)
    assert s["mbps_mean"] == pytest.approx(49.152)
    # One burst: no spread.
    assert summarize(rows[:1], "write")["iops_spread_pct"] == 0


def test_the_note_says_the_figure_the_spread_and_what_it_cannot_see() -> None:
    s = summarize([{"iops": 9000.0, "mbps": 36.9}, {"iops": 11000.0, "mbps": 45.1}], "read")
    s["idle_min_s"] = 4.1
    text = note(s, "4K random read, QD1")
    assert text.startswith("4K random read, QD1: 10,000 IOPS over 2 bursts (slowest 9,000")
    assert "at least 4.1 s idle before each" in text and "1% or worse" in text
    seq = note(summarize([{"iops": 100.0, "mbps": 13.1}], "write"), "128K sequential write, QD1")
    assert "13.1 MB/s over 1 burst " in seq


def test_a_burst_window_is_its_runtime_before_fio_printed() -> None:
    final = {"timestamp_ms": 1_700_000_010_500, "jobs": [{"job_runtime": 750}]}
    start, end = _window_s(json.dumps(final)) or (0, 0)
    assert end == pytest.approx(1_700_000_010.5) and start == pytest.approx(1_700_000_009.75)
    assert _window_s("not json") is None and _window_s(None) is None


def test_the_report_says_each_tests_mean_in_words() -> None:
    from backend.results.article import burst_words

    tests = [
        {"test": "rnd4k-q1-read", "label": "4K random read, QD1", "iops_mean": 12_345.0,
         "mbps_mean": 50.6, "iops_spread_pct": 3.2},
        {"test": "seq128k-q1-write", "label": "128K sequential write, QD1", "iops_mean": 11_000.0,
         "mbps_mean": 1441.7, "iops_spread_pct": 7.9},
    ]  # fmt: skip
    text = burst_words(tests)
    assert text.startswith("QD1 bursts: 4K random read 12.3K IOPS, 128K sequential write ")
    assert "MB/s" in text and "7.9%" in text
