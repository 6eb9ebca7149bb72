from __future__ import annotations

import math

import pytest

from backend.analysis.variation import variation


def test_known_values() -> None:
    # Three runs: mean 100, deviations 0, +10, -10 -> sample variance 200 / 2 = 100.
    assert variation([100.0, 110.0, 90.0]) == {
        "count": 3,
        "mean": 100.0,
        "stddev": 10.0,
        "min": 90.0,
        "max": 110.0,
        "spread_pct": 20.0,
        # 95% interval of the mean: t(0.975, 2 df) = 4.302653 (tables), x 10 / sqrt(3)
        "low": pytest.approx(100.0 - 24.841377),
        "high": pytest.approx(100.0 + 24.841377),
    }


def test_sample_not_population_stddev() -> None:
    result = variation([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert result["mean"] == 5.0
    assert result["stddev"] == pytest.approx(math.sqrt(32 / 7))  # ddof=1; ddof=0 would be 2
    assert result["spread_pct"] == pytest.approx(140.0)


def test_one_value_none_and_zero_mean() -> None:
    one = variation([512.5])
    assert one["count"] == 1 and one["stddev"] == 0.0 and one["spread_pct"] == 0.0
    assert one["low"] is None and one["high"] is None  # no interval from one run
    assert variation([None, 300.0, float("nan"), 500.0])["mean"] == 400.0  # failed runs skipped
    empty = variation([])
    assert empty == {
        "count": 0,
        "mean": None,
        "stddev": None,
        "min": None,
        "max": None,
        "spread_pct": None,
        "low": None,
        "high": None,
    }
    assert variation([-1.0, 1.0])["spread_pct"] is None
