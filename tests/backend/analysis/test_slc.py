"""The SLC cache and its recovery from synthetic passes with known answers: 100 ms snapshots
(with a little noise) of a pass that writes `cache` bytes at FAST and the rest at SLOW."""

from __future__ import annotations

import numpy as np
import pytest

from backend.analysis.hdtach import step_downs
from backend.analysis.slc import cache_size, recovered

FAST, SLOW = 2000e6, 400e6  # B/s
FILL = 100_000_000_000  # 100 GB
REFILL = 25_000_000_000


def snapshots(span: float, cache: float, *, seed: int = 1) -> tuple[list[float], list[float]]:
    """100 ms intervals (jittered +-10 ms) of a pass over `span` bytes whose first `cache`
    bytes go at FAST, the rest at SLOW, each interval's rate +-2% noise."""
    rng = np.random.default_rng(seed)
    t_cache = cache / FAST
    t_end = t_cache + (span - cache) / SLOW
    times = [0.0]
    while times[-1] < t_end:
        times.append(min(t_end, times[-1] + rng.uniform(0.09, 0.11)))
    t = np.array(times)
    pos = np.where(t <= t_cache, t * FAST, cache + (t - t_cache) * SLOW)
    # Noise on each interval's rate through its duration: the positions stay exact.
    dt = np.diff(t) * (1 + rng.uniform(-0.02, 0.02, t.size - 1))
    return list(dt), list(np.diff(pos))


def found(span: float, cache: float, seed: int = 1) -> tuple[dict, float]:
    dt, nb = snapshots(span, cache, seed=seed)
    return step_downs(dt, nb, int(span)), float(sum(nb))


def test_the_fill_finds_the_cache_size_and_both_speeds() -> None:
    result, written = found(FILL, 24e9)
    fill = cache_size(result, FILL, written)
    assert fill["cache_gb"] == pytest.approx(24.0, rel=0.01)
    assert fill["cache_mbps"] == pytest.approx(2000, rel=0.02)
    assert fill["after_mbps"] == pytest.approx(400, rel=0.02)
    assert fill["resolution_gb"] == pytest.approx(2.0)
    assert fill["written_gb"] == pytest.approx(100.0)
    assert "24 GB" in fill["note"]


def test_a_cache_below_the_resolution_is_not_seen_and_the_finding_says_so() -> None:
    # 1 GB of cache is 1% of the fill: less than the 2% a level must last.
    result, written = found(FILL, 1e9)
    fill = cache_size(result, FILL, written)
    assert fill["cache_gb"] is None
    assert fill["level_mbps"] == pytest.approx(400, rel=0.03)
    assert "2 GB (2% of the fill) or written in less than 1.5 s" in fill["note"]
    # 3 GB is 3% of the fill but only 1.5 s at 2000 MB/s: three 0.5 s blocks of snapshots,
    # the shortest level the change points may find; 4 GB (2 s) is seen.
    result, written = found(FILL, 4e9)
    assert cache_size(result, FILL, written)["cache_gb"] == pytest.approx(4.0, rel=0.03)


@pytest.mark.parametrize("cache_gb", [4.0, 8.0, 12.5, 20.0])
def test_a_refill_finds_the_recovered_cache(cache_gb: float) -> None:
    fill = cache_size(*found(FILL, 24e9)[:1], FILL, FILL)
    result, written = found(REFILL, cache_gb * 1e9, seed=int(cache_gb * 10))
    got = recovered(result, REFILL, written, fill)
    assert got["state"] == "step-down"
    assert got["recovered_gb"] == pytest.approx(cache_gb, rel=0.02)
    assert got["at_least"] is False
    assert got["cache_mbps"] == pytest.approx(2000, rel=0.03)
    assert got["after_mbps"] == pytest.approx(400, rel=0.02)


def test_a_refill_at_cache_speed_throughout_is_at_least_the_refill() -> None:
    fill = cache_size(found(FILL, 24e9)[0], FILL, FILL)
    result, written = found(REFILL, REFILL)  # the whole refill in the cache
    got = recovered(result, REFILL, written, fill)
    assert got["state"] == "whole"
    assert got["at_least"] is True
    assert got["recovered_gb"] == pytest.approx(25.0)
    assert "at least 25 GB" in got["note"]


def test_a_refill_at_the_speed_after_the_cache_recovered_none() -> None:
    fill = cache_size(found(FILL, 24e9)[0], FILL, FILL)
    # 0.2 GB is under 2% of the refill (0.5 GB): unseen, so none.
    result, written = found(REFILL, 0.2e9)
    got = recovered(result, REFILL, written, fill)
    assert got["state"] == "none"
    assert got["recovered_gb"] == 0.0
    assert got["resolution_gb"] == pytest.approx(0.5)
    assert "none recovered" in got["note"] and "0.5 GB" in got["note"]


def test_a_refill_without_a_fill_step_down_is_unknown() -> None:
    fill = cache_size(found(FILL, 0.5e9)[0], FILL, FILL)  # no cache seen in the fill
    result, written = found(REFILL, 0.1e9)
    got = recovered(result, REFILL, written, fill)
    assert got["state"] == "unknown" and got["recovered_gb"] is None
    assert recovered(result, REFILL, written, None)["state"] == "unknown"
