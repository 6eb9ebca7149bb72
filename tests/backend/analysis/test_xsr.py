"""Cross-stimulus recovery times on series whose answer is known: a stimulus written as fio's
one-second intervals (bytes completed in each) of a drive whose speed changes at a known
moment inside a second."""

from __future__ import annotations

import numpy as np
import pytest

from backend.analysis.xsr import default_min_time, recovery, transitions

MB = 1e6


def stimulus(
    levels: list[tuple[float, float]], seconds: float, *, noise: float = 0.03, seed: int = 7
) -> tuple[np.ndarray, np.ndarray]:
    """One-second intervals of a stimulus `seconds` long whose speed is levels[k][1] MB/s from
    levels[k][0] s on (the first at 0), with +-`noise` per second; the last interval is what is
    left of the last second."""
    rng = np.random.default_rng(seed)
    edges = np.arange(0.0, seconds, 1.0)
    ends = np.minimum(edges + 1.0, seconds)
    starts = [t for t, _ in levels] + [np.inf]

    def written(t: float) -> float:  # bytes by time t, exactly
        total = 0.0
        for (t0, mbps), t1 in zip(levels, starts[1:], strict=False):
            total += max(0.0, min(t, t1) - t0) * mbps * MB
        return total

    amounts = np.array([written(b) - written(a) for a, b in zip(edges, ends, strict=True)])
    amounts *= rng.uniform(1 - noise, 1 + noise, amounts.size)
    return ends - edges, amounts


@pytest.mark.parametrize("at_s", [4.1, 6.65, 12.3])
def test_random_writes_recover_when_the_fresh_blocks_run_out(at_s: float) -> None:
    # Random 8 KiB writes after sequential ones: 20 MB/s on free blocks, then 4.9 MB/s.
    dt, b = stimulus([(0.0, 20.5), (at_s, 4.9)], 40.0)
    found = recovery(dt, b)
    assert found["recovery_s"] == pytest.approx(at_s, abs=0.15)
    assert found["initial_rate"] == pytest.approx(20.5 * MB, rel=0.05)
    assert found["settled_rate"] == pytest.approx(4.9 * MB, rel=0.05)
    assert found["held_s"] == pytest.approx(40.0 - at_s, abs=0.15)
    assert len(found["levels"]) == 2


def test_sequential_writes_recover_upwards() -> None:
    # Sequential writes after random ones: slow while fragmented, then the full speed.
    dt, b = stimulus([(0.0, 12.0), (5.3, 40.0)], 25.0)
    found = recovery(dt, b)
    assert found["recovery_s"] == pytest.approx(5.3, abs=0.15)
    assert found["settled_rate"] == pytest.approx(40 * MB, rel=0.05)


def test_recovery_is_the_start_of_the_last_level_not_the_first_change() -> None:
    # Two steps down: the drive settles at the second.
    dt, b = stimulus([(0.0, 40.0), (6.0, 20.0), (14.5, 10.0)], 40.0)
    found = recovery(dt, b)
    assert [round(lv["rate"] / MB) for lv in found["levels"]] == [40, 20, 10]
    assert found["recovery_s"] == pytest.approx(14.5, abs=0.15)


def test_a_stimulus_at_one_level_has_recovered_at_once() -> None:
    dt, b = stimulus([(0.0, 30.0)], 30.0, noise=0.1)
    found = recovery(dt, b)
    assert found["recovery_s"] == 0.0
    assert found["settled_rate"] == pytest.approx(30 * MB, rel=0.05)
    assert found["held_s"] == pytest.approx(30.0)


def test_a_short_dip_or_a_too_small_change_is_not_a_level() -> None:
    # A second and a half slow (shorter than the 3 intervals a level needs), at the start or
    # later, is not a recovery.
    dt, b = stimulus([(0.0, 5.0), (1.5, 30.0)], 30.0)
    assert recovery(dt, b)["recovery_s"] == 0.0
    dt, b = stimulus([(0.0, 30.0), (10.0, 5.0), (12.0, 30.0)], 30.0)
    assert recovery(dt, b)["recovery_s"] == 0.0
    # 10% faster after 8 s: within min_rel_change (20%), one level.
    dt, b = stimulus([(0.0, 30.0), (8.0, 33.0)], 30.0, noise=0.01)
    assert recovery(dt, b)["recovery_s"] == 0.0
    assert recovery(dt, b, min_rel_change=0.05)["recovery_s"] == pytest.approx(8.0, abs=0.3)


def test_the_shortest_level_scales_with_the_stimulus() -> None:
    assert default_min_time(np.ones(30)) == 3.0  # three intervals
    assert default_min_time(np.ones(8 * 3600)) == pytest.approx(144.0)  # 0.5% of 8 h
    # A 100 s transient in an 8-hour stimulus is shorter than a level: no recovery to report;
    # at 300 s it is one.
    for transient, expected in ((100.0, 0.0), (300.0, 300.0)):
        dt, b = stimulus([(0.0, 12.0), (transient, 40.0)], 8 * 3600.0, noise=0.02)
        assert recovery(dt, b)["recovery_s"] == pytest.approx(expected, abs=1.0)


def test_nothing_written_has_no_recovery() -> None:
    assert recovery([], [])["recovery_s"] is None
    assert recovery([1.0, 1.0], [0.0, 0.0])["levels"] == []


def test_transitions_pair_each_stimulus_with_the_one_before() -> None:
    got = transitions(
        [
            {"name": "seq-1", "settled_rate": 40.0, "recovery_s": 0.0},
            {"name": "rand", "settled_rate": 5.0, "recovery_s": 4.1},
            {"name": "seq-2", "settled_rate": 38.0, "recovery_s": 6.0},
        ]
    )
    assert [(t["from"], t["to"], t["recovery_s"]) for t in got] == [
        ("seq-1", "rand", 4.1),
        ("rand", "seq-2", 6.0),
    ]
    assert got[0]["ratio"] == pytest.approx(5.0 / 40.0)
    assert got[1]["before_rate"] == 5.0
