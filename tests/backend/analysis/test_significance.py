"""The statistics behind "better", "worse" and "within noise", against scipy.stats."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats

from backend.analysis import significance as sig


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7, 12.3, 30, 200])
@pytest.mark.parametrize("t", [0.01, 0.5, 1.0, 2.0, 2.776, 4.0, 12.0])
def test_two_sided_p_matches_scipy(df: float, t: float) -> None:
    want = 2 * stats.t.sf(t, df)
    assert sig.t_two_sided_p(t, df) == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert sig.t_two_sided_p(-t, df) == pytest.approx(want, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("df", [1, 2, 4, 5.5, 9, 29, 1000])
def test_quantile_matches_scipy(df: float) -> None:
    assert sig.t_quantile(0.95, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-9)


def test_mean_interval_matches_scipy() -> None:
    v = [101.0, 98.5, 100.2, 99.1, 102.4]
    got = sig.mean_interval(v)
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=stats.tmean(v), scale=stats.sem(v))
    assert got is not None and got["count"] == 5
    assert (got["low"], got["high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert sig.mean_interval([100.0]) is None
    assert sig.mean_interval([100.0, None, float("nan")]) is None


@pytest.mark.parametrize("seed", range(6))
def test_welch_matches_scipy(seed: int) -> None:
    rng = random.Random(seed)
    a = [rng.gauss(103, 2 + seed) for _ in range(3 + seed)]
    b = [rng.gauss(100, 1 + seed / 2) for _ in range(2 + 2 * seed)]
    got = sig.welch(a, b)
    want = stats.ttest_ind(a, b, equal_var=False)
    assert got is not None
    assert got["t"] == pytest.approx(want.statistic, rel=1e-9)
    assert got["p"] == pytest.approx(want.pvalue, rel=1e-7)
    ci = want.confidence_interval(0.95)
    mb = sum(b) / len(b)
    assert got["low_pct"] == pytest.approx(ci.low / mb * 100, rel=1e-7)
    assert got["high_pct"] == pytest.approx(ci.high / mb * 100, rel=1e-7)
    assert got["diff_pct"] == pytest.approx((sum(a) / len(a) / mb - 1) * 100)


def test_practical_p_is_a_one_sided_test_against_the_threshold() -> None:
    a, b = [104.0, 103.0, 105.5, 103.9], [100.0, 101.2, 99.5, 100.4]
    got = sig.welch(a, b, practical_pct=1.0)
    mb = sum(b) / len(b)
    shifted = [x - 0.01 * mb for x in a]  # the candidate less the threshold
    want = stats.ttest_ind(shifted, b, equal_var=False, alternative="greater")
    assert got["p_practical"] == pytest.approx(want.pvalue, rel=1e-7)


def test_welch_without_spread_and_with_one_run() -> None:
    assert sig.welch([100.0, 100.0], [100.0, 100.0])["p"] == 1.0
    exact = sig.welch([103.0, 103.0], [100.0, 100.0])
    assert exact["p"] == 0.0 and exact["diff_pct"] == pytest.approx(3.0)
    assert sig.welch([103.0], [100.0, 101.0]) is None
    assert sig.welch([1.0, 2.0], [0.0, 0.0]) is None


def test_adjust_matches_scipy_false_discovery_control() -> None:
    rng = random.Random(7)
    ps = [rng.random() ** 3 for _ in range(40)]
    want = stats.false_discovery_control(ps, method="bh")
    got = sig.adjust([*ps[:20], None, *ps[20:]])
    assert got[20] is None
    assert [g for g in got if g is not None] == pytest.approx(list(want), rel=1e-12)


def test_verdicts() -> None:
    big = sig.welch([103.1, 102.9, 103.0, 103.2], [100.0, 100.1, 99.9, 100.0])
    assert sig.verdict(big, 0.001, higher_is_better=True) == "better"
    assert sig.verdict(big, 0.001, higher_is_better=False) == "worse"
    assert sig.verdict(big, 0.2, higher_is_better=True) == "within noise"
    small = sig.welch([101.0, 101.1, 100.9], [100.0, 100.1, 99.9])
    assert small["p_practical"] > 0.05  # 1.0% is not shown to exceed the 1% threshold
    assert sig.verdict(None, None, higher_is_better=True) == sig.UNKNOWN
    assert sig.verdict(big, 0.001, higher_is_better=None) is None


def _trial(rng: random.Random, a_mean: float, b_mean: float, n: int, jitter: float) -> dict:
    a = [rng.gauss(a_mean, a_mean * jitter) for _ in range(n)]
    b = [rng.gauss(b_mean, b_mean * jitter) for _ in range(n)]
    test = sig.welch(a, b)
    assert test is not None
    return test


def test_known_answer_3_percent_found_and_covered() -> None:
    """100 vs 103 MB/s with 2% jitter: with ten repeats a side the 3% is called better in most
    trials, and the 95% interval covers the true 3% in about 95% of them."""
    rng = random.Random(2026)
    trials = [_trial(rng, 103, 100, 10, 0.02) for _ in range(400)]
    called = sum(sig.verdict(t, t["p_practical"], True) == "better" for t in trials)
    covered = sum(t["low_pct"] <= 3.0 <= t["high_pct"] for t in trials)
    assert called / len(trials) > 0.6
    assert 0.92 <= covered / len(trials) <= 0.98
    assert not any(sig.verdict(t, t["p_practical"], True) == "worse" for t in trials)


def test_known_answer_half_percent_and_self_rarely_called() -> None:
    """100 vs 100.5 and a drive against itself: the practical threshold and the test together
    call a difference in well under 5% of trials of five runs a side with 2% run-to-run noise,
    and less often than a threshold compared with the point estimate."""
    rng = random.Random(5)
    for a_mean in (100.5, 100.0):
        trials = [_trial(rng, a_mean, 100, 5, 0.02) for _ in range(1000)]
        calls = [sig.verdict(t, t["p_practical"], True) for t in trials]
        false_calls = calls.count("better") + calls.count("worse")
        naive = sum(t["p"] < 0.05 and abs(t["diff_pct"]) > 2 for t in trials)
        assert false_calls <= 0.035 * len(trials)
        assert false_calls < naive


def test_rsd_and_stable() -> None:
    want = stats.variation([100, 102, 98], ddof=1) * 100
    assert sig.rsd_pct([100, 102, 98]) == pytest.approx(want)
    assert sig.stable([100, 100.5, 99.7]) and not sig.stable([100, 110, 95])
    assert not sig.stable([100]) and sig.rsd_pct([0.0, 0.0]) is None
    assert math.isclose(sig.rsd_pct([1.0, 1.0]), 0.0)
