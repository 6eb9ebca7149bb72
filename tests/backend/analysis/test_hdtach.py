from __future__ import annotations

import numpy as np
import pytest

from backend.analysis.hdtach import step_downs, throughput_vs_position

SPAN = 2_000_000_000  # 2 GB
FAST, SLOW = 1000e6, 200e6  # B/s


def cache_pass(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """A write pass at 1000 MB/s for the first 25% of the span (an SLC cache), then 200 MB/s, as
    snapshots 5-15 ms apart at random (so intervals straddle the 0.5% bins, 10 MB each, at odd
    places), with one snapshot exactly where the cache runs out."""
    rng = np.random.default_rng(seed)
    t_cache = 0.25 * SPAN / FAST
    t_end = t_cache + 0.75 * SPAN / SLOW
    times = np.cumsum(rng.uniform(0.005, 0.015, 2000))
    times = np.unique(np.concatenate((times[times < t_end], [t_cache, t_end])))
    times = np.concatenate(([0.0], times))

    def position(t: np.ndarray) -> np.ndarray:
        return np.where(t <= t_cache, t * FAST, 0.25 * SPAN + (t - t_cache) * SLOW)

    nbytes = np.diff(position(times))
    return np.diff(times), nbytes


def test_throughput_against_position_of_a_cache_pass() -> None:
    dt, nbytes = cache_pass()
    chart = throughput_vs_position(dt, nbytes, SPAN)
    assert chart["resolution_pct"] == 0.5
    assert len(chart["position_pct"]) == len(chart["mbps"]) == 200  # >= 200 bins at 0.5%
    assert chart["position_pct"][0] == 0.25 and chart["position_pct"][-1] == 99.75
    assert chart["coverage_pct"] == pytest.approx(100.0, abs=1e-9)
    assert chart["average_mbps"] == pytest.approx(nbytes.sum() / dt.sum() / 1e6, rel=1e-12)
    pos = np.array(chart["position_pct"])
    mbps = np.array(chart["mbps"])
    # The rate is constant within every interval, so the bins are exact on both sides.
    assert mbps[pos < 25] == pytest.approx(1000.0, rel=1e-9)
    assert mbps[pos > 25] == pytest.approx(200.0, rel=1e-9)
    # Bytes and time are conserved: every interval is split, never dropped or counted twice.
    assert sum(chart["bytes"]) == pytest.approx(nbytes.sum(), rel=1e-12)
    assert sum(chart["seconds"]) == pytest.approx(dt.sum(), rel=1e-12)
    assert chart["bytes"][:-1] == pytest.approx([SPAN * 0.005] * 199, rel=1e-9)


def test_an_interval_straddling_bin_edges_is_split_by_its_bytes() -> None:
    # span 1e9, bins of 5e6 bytes. Interval 1: 7.5e6 B in 1 s; interval 2: 5e6 B in 1 s.
    chart = throughput_vs_position([1.0, 1.0], [7.5e6, 5e6], 1_000_000_000)
    assert chart["position_pct"] == [0.25, 0.75, 1.25]
    # bin 0: 5e6 B of interval 1 (2/3 s); bin 1: 2.5e6 B of it (1/3 s) + 2.5e6 B of interval 2
    # (0.5 s); bin 2 (partial): 2.5e6 B in 0.5 s.
    assert chart["bytes"] == pytest.approx([5e6, 5e6, 2.5e6])
    assert chart["seconds"] == pytest.approx([2 / 3, 1 / 3 + 0.5, 0.5])
    assert chart["mbps"] == pytest.approx([7.5, 6.0, 5.0])
    assert chart["coverage_pct"] == pytest.approx(1.25)
    assert chart["average_mbps"] == pytest.approx(12.5 / 2)


def test_a_stall_is_charged_to_the_bin_where_it_happened() -> None:
    # 5e6 B in 1 s (exactly bin 0), a 2 s stall with no bytes, 5e6 B in 1 s (bin 1),
    # and a trailing 1 s with nothing after the last byte.
    chart = throughput_vs_position([1.0, 2.0, 1.0, 1.0], [5e6, 0, 5e6, 0], 1_000_000_000)
    assert chart["seconds"] == pytest.approx([1.0, 4.0])
    assert chart["mbps"] == pytest.approx([5.0, 1.25])
    assert sum(chart["seconds"]) == pytest.approx(5.0)


def test_coarse_snapshots_give_every_bin_they_cover_their_rate() -> None:
    # Four snapshots for a whole pass: each covers 50 bins.
    chart = throughput_vs_position([1, 1, 1, 1], [250e6, 250e6, 250e6, 250e6], 1_000_000_000)
    assert len(chart["mbps"]) == 200
    assert chart["mbps"] == pytest.approx([250.0] * 200)


def test_a_pass_that_wrapped_continues_past_100_percent() -> None:
    chart = throughput_vs_position([1.0, 1.0, 1.0], [5e6, 5e6, 5e6], 10_000_000)
    assert chart["coverage_pct"] == 150.0
    assert len(chart["mbps"]) == 300 and chart["position_pct"][-1] == 149.75
    assert chart["mbps"] == pytest.approx([5.0] * 300)


def test_bad_input_is_refused() -> None:
    assert throughput_vs_position([], [], 100)["mbps"] == []
    with pytest.raises(ValueError):
        throughput_vs_position([1.0], [-5.0], 100)
    with pytest.raises(ValueError):
        throughput_vs_position([1.0], [5.0], 0)
    with pytest.raises(ValueError):
        throughput_vs_position([1.0, float("nan")], [5.0, 1.0], 100)


def test_one_step_down_at_the_end_of_the_cache() -> None:
    dt, nbytes = cache_pass()
    chart = throughput_vs_position(dt, nbytes, SPAN)
    steps = step_downs(chart["position_pct"], chart["mbps"])
    assert len(steps) == 1
    assert steps[0]["at_pct"] == pytest.approx(25.0, abs=1.0)
    assert steps[0]["from_mbps"] == pytest.approx(1000.0, rel=0.01)
    assert steps[0]["to_mbps"] == pytest.approx(200.0, rel=0.01)


@pytest.mark.parametrize("seed", range(10))
def test_the_step_is_found_through_noise_and_stalls(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos = (np.arange(200) + 0.5) * 0.5
    mbps = np.where(pos < 25, 1000.0, 200.0) * rng.uniform(0.95, 1.05, pos.size)
    mbps[rng.choice(pos.size, 4, replace=False)] = 0.0  # a few bins with a long stall
    steps = step_downs(pos, mbps)
    assert len(steps) == 1
    assert steps[0]["at_pct"] == pytest.approx(25.0, abs=1.0)
    assert steps[0]["from_mbps"] == pytest.approx(1000.0, rel=0.05)
    assert steps[0]["to_mbps"] == pytest.approx(200.0, rel=0.05)


@pytest.mark.parametrize("seed", range(20))
def test_a_flat_noisy_series_has_no_step(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos = (np.arange(200) + 0.5) * 0.5
    mbps = 1000.0 * rng.uniform(0.95, 1.05, pos.size)
    assert step_downs(pos, mbps) == []
    mbps[rng.choice(pos.size, 3, replace=False)] = 0.0  # isolated slow bins are not steps
    assert step_downs(pos, mbps) == []


def test_a_gradual_slowdown_is_not_a_step() -> None:
    pos = (np.arange(200) + 0.5) * 0.5
    assert step_downs(pos, 1000.0 - 5.0 * pos) == []  # 1000 -> 500 MB/s over the span


def test_two_steps_and_a_recovery() -> None:
    pos = (np.arange(200) + 0.5) * 0.5
    mbps = np.select([pos < 10, pos < 40], [3000.0, 1500.0], 600.0)
    steps = step_downs(pos, mbps)
    assert [s["at_pct"] for s in steps] == [10.0, 40.0]
    assert [(s["from_mbps"], s["to_mbps"]) for s in steps] == [(3000, 1500), (1500, 600)]
    # A slow stretch that recovers: the step down is reported, the recovery is not a step down,
    # and the level after the step is the slow stretch's, not the recovered one's.
    mbps = np.where((pos >= 30) & (pos < 50), 200.0, 1000.0)
    assert step_downs(pos, mbps) == [{"at_pct": 30.0, "from_mbps": 1000.0, "to_mbps": 200.0}]


def test_min_drop_and_min_span_are_honoured() -> None:
    pos = (np.arange(200) + 0.5) * 0.5
    mbps = np.where(pos < 50, 1000.0, 800.0)  # a 20% drop
    assert step_downs(pos, mbps) == []
    assert len(step_downs(pos, mbps, min_drop=0.15)) == 1
    mbps = np.where(pos < 1, 3000.0, 1000.0)  # a 1% cache: shorter than min_span_pct
    assert step_downs(pos, mbps) == []
    assert step_downs(pos, mbps, min_span_pct=0.5) == [
        {"at_pct": 1.0, "from_mbps": 3000.0, "to_mbps": 1000.0}
    ]
