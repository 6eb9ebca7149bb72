from __future__ import annotations

import json

import pytest

from backend.analysis.steady_state import is_steady, steady_state_report


def test_a_flat_series_is_steady() -> None:
    assert is_steady([1000.0] * 5)
    assert is_steady([1000, 1010, 990, 1005, 995])


def test_a_25_percent_range_is_not_steady() -> None:
    # average 1000, max - min 250: 25% > 20%, no trend.
    values = [1125, 875, 1000, 1000, 1000]
    assert not is_steady(values)
    assert is_steady(values, excursion_pct=30.0)


def test_a_rising_series_with_a_small_range_but_too_steep_a_slope_is_not_steady() -> None:
    # Range 120 = 12% of the average 1000 (within 20%), but the slope is 30 per round:
    # 30 x 4 = 120 = 12% of the average > 10%.
    values = [940, 970, 1000, 1030, 1060]
    report = steady_state_report(values)
    assert report["range_pct"] == pytest.approx(12.0)
    assert report["slope"] == pytest.approx(30.0)
    assert report["slope_excursion"] == pytest.approx(120.0)
    assert not is_steady(values) and not report["steady"]
    # Half the slope passes: 15 x 4 = 60 = 6%.
    assert is_steady([970, 985, 1000, 1015, 1030])


def test_too_few_values_and_non_positive_averages_are_never_steady() -> None:
    assert not is_steady([])
    assert not is_steady([1000.0])
    assert not is_steady([0.0] * 5)
    assert not is_steady([1000.0] * 4, window=5)
    assert is_steady([5000.0, 1000, 1000, 1000, 1000, 1000], window=5)


def test_report_finds_the_round_where_the_series_settles() -> None:
    # Falls from fresh-out-of-box to about 400; rounds 4-8 are the first steady window
    # (rounds 3-7 include 500: range 105 = 24.9% of their average 422).
    values = [1000, 700, 500, 400, 410, 395, 405, 400, 402, 398, 401]
    report = steady_state_report(values)
    assert report["steady"] is True and report["round"] == 8
    assert report["window"] == [4, 8]
    assert report["average"] == pytest.approx(402.0)
    assert report["range"] == pytest.approx(15.0)
    intercept, slope = report["fit"]
    assert slope == report["slope"] == pytest.approx(0.0, abs=2.0)
    # The fit is on the round axis: intercept + slope x round passes through the window.
    assert intercept + slope * 6 == pytest.approx(402.0)
    assert report["band"] == pytest.approx([361.8, 442.2])
    json.dumps(report)
    assert not is_steady(values[2:7]) and is_steady(values[3:8])


def test_report_of_a_series_that_never_settles() -> None:
    values = [1000 - 60 * i for i in range(10)]
    report = steady_state_report(values)
    assert report["steady"] is False and report["round"] is None
    assert report["window"] == [6, 10] and report["rounds"] == 10
    assert report["slope"] == pytest.approx(-60.0)
    short = steady_state_report([1000, 900])
    assert short["steady"] is False and short["window"] == [1, 2]
    empty = steady_state_report([])
    assert empty["steady"] is False and empty["average"] is None
    json.dumps(empty)
