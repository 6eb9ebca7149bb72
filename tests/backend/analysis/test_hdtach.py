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


def noisy_pass(
    levels: list[tuple[float, float]],
    *,
    seed: int,
    noise: float = 0.5,
    stalls: tuple[float, ...] = (),
    span: float = SPAN,
) -> tuple[np.ndarray, np.ndarray]:
    """A sequential pass as fio's 100 ms snapshots see it on a busy host: levels [(until % of
    the span, B/s)], snapshots 100-240 ms apart, and each snapshot's bytes off by up to `noise`
    of a snapshot's worth, made up in the next one (fio descheduled, then catching up: the
    cumulative bytes stay exact). `stalls`: seconds at which the drive stops for 0.5 s."""
    rng = np.random.default_rng(seed)
    edges = [0.0] + [u / 100 * span for u, _ in levels]
    rates = [r for _, r in levels]
    # Time at which each position boundary is reached, without stalls.
    t_edges = np.concatenate(([0.0], np.cumsum(np.diff(edges) / rates)))

    def position(t: np.ndarray) -> np.ndarray:
        shift = np.zeros_like(t)
        for s in stalls:
            shift += np.clip(t - s, 0.0, 0.5)
        return np.interp(t - shift, t_edges, edges)

    end = t_edges[-1] + 0.5 * len(stalls)
    times = np.cumsum(rng.uniform(0.1, 0.24, int(end / 0.1) + 10))
    times = np.concatenate(([0.0], times[times < end], [end]))
    cum = position(times)
    lag = rng.uniform(0.0, noise, cum.size) * np.gradient(cum)
    lag[0] = lag[-1] = 0.0
    cum = np.maximum.accumulate(cum - lag)
    return np.diff(times), np.diff(cum)


def test_one_step_down_at_the_end_of_the_cache() -> None:
    dt, nbytes = cache_pass()
    found = step_downs(dt, nbytes, SPAN)
    assert len(found["step_downs"]) == 1
    step = found["step_downs"][0]
    assert step["at_pct"] == pytest.approx(25.0, abs=0.1)
    assert step["at_gb"] == pytest.approx(0.5, abs=0.002)
    assert step["from_mbps"] == pytest.approx(1000.0, rel=0.01)
    assert step["to_mbps"] == pytest.approx(200.0, rel=0.01)
    assert found["min_drop"] == 0.2 and found["min_span_pct"] == 2.0
    assert [round(lv["mbps"]) for lv in found["levels"]] == [1000, 200]


@pytest.mark.parametrize("seed", range(10))
def test_the_steps_are_found_through_noise_and_stalls(seed: int) -> None:
    """An SLC cache that runs out twice, on a busy host (snapshots off by up to half their
    bytes, made up in the next), with two 0.5 s stalls: the simulated drive's slc-cache profile
    on 192 MiB. (A stall in the 2.5 s first level, on top of this much noise, lowers its level by
    about 6%: too little of it is left to fit once the stall is taken out.)"""
    dt, nbytes = noisy_pass(
        [(30, 24e6), (80, 12e6), (100, 6e6)], seed=seed, stalls=(6.0, 13.0), span=201e6
    )
    found = step_downs(dt, nbytes, 201_000_000)
    steps = found["step_downs"]
    assert [round(s["at_pct"], -1) for s in steps] == [30, 80], found
    for step, at, before, after in zip(steps, (30, 80), (24, 12), (12, 6), strict=True):
        assert step["at_pct"] == pytest.approx(at, abs=1.0)
        assert step["from_mbps"] == pytest.approx(before, rel=0.05)
        assert step["to_mbps"] == pytest.approx(after, rel=0.05)


def test_a_stall_in_a_level_does_not_move_it() -> None:
    dt, nbytes = noisy_pass(
        [(30, 24e6), (80, 12e6), (100, 6e6)], seed=0, stalls=(1.2, 6.0), span=201e6, noise=0.0
    )
    found = step_downs(dt, nbytes, 201_000_000)
    assert [round(lv["mbps"], 2) for lv in found["levels"]] == [24.0, 12.0, 6.0]
    assert [round(s["at_pct"], 2) for s in found["step_downs"]] == [30.0, 80.0]


@pytest.mark.parametrize("seed", range(20))
def test_a_flat_noisy_series_has_no_step(seed: int) -> None:
    dt, nbytes = noisy_pass([(100, 40e6)], seed=seed, stalls=(2.0, 4.5), span=256e6)
    found = step_downs(dt, nbytes, 256_000_000)
    assert found["step_downs"] == [], found


def test_a_gradual_slowdown_is_not_a_step() -> None:
    # 1000 -> 500 MB/s over the span, in 200 small levels of 0.5% each.
    levels = [((k + 1) * 0.5, (1000 - 2.5 * k) * 1e6) for k in range(200)]
    dt, nbytes = noisy_pass(levels, seed=1, noise=0.0)
    assert step_downs(dt, nbytes, SPAN)["step_downs"] == []


BIG = 60_000_000_000  # 60 GB: a 10% level at 3000 MB/s lasts 2 s, 10 to 20 snapshots


def test_two_steps_and_a_recovery() -> None:
    dt, nbytes = noisy_pass([(10, 3000e6), (40, 1500e6), (100, 600e6)], seed=2, noise=0.0, span=BIG)
    steps = step_downs(dt, nbytes, BIG)["step_downs"]
    assert [round(s["at_pct"], 1) for s in steps] == [10.0, 40.0]
    assert [(round(s["from_mbps"]), round(s["to_mbps"])) for s in steps] == [
        (3000, 1500),
        (1500, 600),
    ]
    # A slow stretch that recovers: the step down is reported, the recovery is not.
    dt, nbytes = noisy_pass([(30, 1000e6), (50, 200e6), (100, 1000e6)], seed=2, noise=0.0)
    steps = step_downs(dt, nbytes, SPAN)["step_downs"]
    assert [(round(s["at_pct"], 1), round(s["to_mbps"])) for s in steps] == [(30.0, 200)]


def test_min_drop_and_min_span_are_honoured() -> None:
    dt, nbytes = noisy_pass([(50, 1000e6), (100, 850e6)], seed=3, noise=0.0)  # a 15% drop
    assert step_downs(dt, nbytes, SPAN)["step_downs"] == []
    assert len(step_downs(dt, nbytes, SPAN, min_drop=0.1)["step_downs"]) == 1
    dt, nbytes = noisy_pass([(1, 300e6), (100, 100e6)], seed=3, noise=0.0, span=BIG)  # 1%
    assert step_downs(dt, nbytes, BIG)["step_downs"] == []
    steps = step_downs(dt, nbytes, BIG, min_span_pct=0.5)["step_downs"]
    assert [round(s["at_pct"], 1) for s in steps] == [1.0]
    with pytest.raises(ValueError):
        step_downs(dt, nbytes, SPAN, min_drop=1.5)


@pytest.mark.parametrize(
    ("recording", "changes", "levels"),
    [
        # Drive A: its 0.6 s stall at 73% came as one 0.7 s snapshot at a third of the level's
        # rate, and made a 7.7 MB/s level between 69% and 77% before late snapshots were known.
        ("hdtach_late_snapshot.json", [(27.8, 28.8), (70.8, 72.4)], [80.0, 40.0, 20.0]),
        # Drive B: its 1 s stall at 97% came as one 1.1 s snapshot and fio's 62 ms final one;
        # the rate "around" them, taken from copies of the last rates, made a 6.3 MB/s level.
        ("hdtach_stall_at_the_end.json", [(41.4, 42.4)], [60.0, 35.0]),
        # Drive B again: a hold-up of fio and its catch-up burst two snapshots before the
        # change, and 35/70 MB/s snapshots after it. The lines of the whole levels met at 35.3%
        # (the hold-up); the local lines, fitted again around where they meet, at 40.4%. After
        # the change fio's bytes show 39.0 MB/s (from 41.7% to the end, 4.0 s: the throttle let
        # 70 MB/s through in every other snapshot), not the profile's 35.
        ("hdtach_holdup_before_the_change.json", [(39.9, 40.9)], [60.0, 39.0]),
        # The self-test's SLC cache on a busy host: fio held up 0.26 s and the throttle let it
        # catch up at once. Left out of the level's time the hold-up made it 25.3 MB/s; the
        # device bent at 31.76% and 80.98%.
        ("hdtach_catch_up_after_a_holdup.json", [(30.76, 32.76), (79.98, 81.98)], [24, 12, 6]),
    ],
)
def test_a_stall_fio_reported_late_is_not_a_level(
    recording: str, changes: list[tuple[float, float]], levels: list[float]
) -> None:
    """Recorded passes of the quick demo's simulated drives on a busy host
    (tests/backend/analysis/data, with what each drive did): fio printed nothing during a
    stall and then one long snapshot. That snapshot is a stall and the data it moved, not a
    level; the step-downs are where the snapshots themselves show the speed change."""
    import json
    from pathlib import Path

    rec = json.loads((Path(__file__).parent / "data" / recording).read_text())
    dt = np.asarray(rec["dt_s"])
    nbytes = np.asarray(rec["write_mbps"]) * 1e6 * dt
    found = step_downs(dt, nbytes, rec["span_bytes"])
    steps = found["step_downs"]
    assert len(steps) == len(changes), found["levels"]
    for step, (lo, hi) in zip(steps, changes, strict=True):
        assert lo <= step["at_pct"] <= hi
    assert [lv["mbps"] for lv in found["levels"]] == pytest.approx(levels, rel=0.05)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("at_pct", [30.0, 50.0, 70.0])
def test_a_holdup_made_up_at_once_is_no_step_down(seed: int, at_pct: float) -> None:
    """A read pass at 40 MB/s on a busy host: nothing completed for 1.4 s (fio's snapshots
    went on, empty), then the throttle standing for the drive let the 56 MB it had not passed
    through at once, and 40 MB/s after. The drive kept 40 MB/s over the stretch: one level,
    no step-down. (Left out of the level's time, the hold-up made the level before it 58 MB/s
    and a step-down to 40 that the drive never made, in the self-test on a busy host.)"""
    rng = np.random.default_rng(seed)
    rate, span, hold = 40e6, 192 * 2**20, 1.4
    dt = rng.uniform(0.1, 0.2, 400)
    nbytes = rate * dt * rng.uniform(0.9, 1.1, dt.size)
    cum = np.cumsum(nbytes)
    k = int(np.searchsorted(cum, at_pct / 100 * span))
    held = max(1, round(hold / 0.1))
    dt = np.concatenate((dt[:k], np.full(held, 0.1), dt[k:]))
    nbytes = np.concatenate((nbytes[:k], np.zeros(held), nbytes[k:]))
    nbytes[k + held] += rate * hold  # the catch-up
    cum = np.cumsum(nbytes)
    end = int(np.searchsorted(cum, span)) + 1
    dt, nbytes = dt[:end], nbytes[:end]
    nbytes[-1] -= cum[end - 1] - span
    found = step_downs(dt, nbytes, span)
    assert found["step_downs"] == [], found["levels"]
    assert [lv["mbps"] for lv in found["levels"]] == pytest.approx([40.0], rel=0.05)


def test_a_stall_not_made_up_stays_out_of_the_level() -> None:
    """The same pass with the 1.4 s of nothing not made up (the drive stopped): the level is
    still 40 MB/s, the speed while data moved, and the stall is no step-down either."""
    rng = np.random.default_rng(1)
    dt = rng.uniform(0.1, 0.2, 400)
    nbytes = 40e6 * dt
    k = 60
    dt = np.concatenate((dt[:k], np.full(14, 0.1), dt[k:]))
    nbytes = np.concatenate((nbytes[:k], np.zeros(14), nbytes[k:]))
    span = int(nbytes[:300].sum())
    found = step_downs(dt[:300], nbytes[:300], span)
    assert found["step_downs"] == []
    assert [lv["mbps"] for lv in found["levels"]] == pytest.approx([40.0], rel=0.02)


@pytest.mark.parametrize("seed", range(4))
def test_a_stall_at_the_start_does_not_hide_a_short_cache(seed: int) -> None:
    """The quick demo's drive C: the purge's 2 s stall before the pass's first byte, then its
    cache at 50 MB/s for 30% of a 256 MiB drive (1.6 s), then 30 MB/s. The stall is not made
    up (the intervals after it run at the cache's speed, no faster): the cache is a level and
    its end a step-down."""
    rng = np.random.default_rng(seed)
    span = 256 * 2**20
    dt = rng.uniform(0.1, 0.15, 200)
    edge = 0.3 * span
    rates, moved = [], 0.0
    for d in dt:
        r = 50e6 if moved < edge else 30e6
        rates.append(r)
        moved += r * d
    nbytes = np.asarray(rates) * dt * rng.uniform(0.95, 1.05, dt.size)
    # Where the cache ran out: the bytes before the first interval at 30 MB/s.
    at_pct = nbytes[: rates.index(30e6)].sum() / span * 100
    dt = np.concatenate((np.full(20, 0.1), dt))
    nbytes = np.concatenate((np.zeros(20), nbytes))
    cum = np.cumsum(nbytes)
    end = int(np.searchsorted(cum, span)) + 1
    dt, nbytes = dt[:end], nbytes[:end]
    nbytes[-1] -= cum[end - 1] - span
    found = step_downs(dt, nbytes, span)
    assert len(found["step_downs"]) == 1, found["levels"]
    assert found["step_downs"][0]["at_pct"] == pytest.approx(at_pct, abs=1.0)
    assert [lv["mbps"] for lv in found["levels"]] == pytest.approx([50.0, 30.0], rel=0.05)
