"""The simulated drive's SLC cache that refills when idle (worker.sim.profile.Cache): where it
runs out, what an idle gap gives back, and the events that record both (the known answer)."""

from __future__ import annotations

import pytest

from worker.sim.profile import MB, PROFILES, Cache, Counters, Level, Profile, Simulation

SIZE = 256 * 2**20
MiB = 2**20
CACHE = Cache(size_bytes=48 * MiB, fast_mbps=40, slow_mbps=10, refill_bps=4 * MiB)
PROFILE = Profile("c", "t", (Level(100, 10),), cache=CACHE)
TICK = 0.005


class Drive:
    """Feeds the simulation a device that writes at whatever limit it sets, tick by tick."""

    def __init__(self, profile: Profile = PROFILE) -> None:
        self.sim = Simulation(profile, SIZE)
        self.t = 0.0
        self.written = 0
        self.ios = 0
        self.discarded = 0
        self.events: list[dict] = []
        self.bps = self._tick(0)

    def _tick(self, nbytes: int) -> int:
        self.written += nbytes
        self.ios += nbytes // (128 * 1024)
        c = Counters(self.written, self.ios, self.discarded)
        limits, ev = self.sim.step(self.t, c, 1000.0 + self.t)
        self.events += ev
        return int(limits.write_bps or 0)

    def write(self, nbytes: int) -> None:
        """Write `nbytes` sequentially at the limit (a tick's worth at a time)."""
        left = nbytes
        while left > 0:
            self.t += TICK
            step = min(left, int(self.bps * TICK))
            left -= step
            self.bps = self._tick(step)

    def idle(self, seconds: float) -> None:
        end = self.t + seconds
        while self.t < end:
            self.t += TICK
            self.bps = self._tick(0)

    def purge(self) -> None:
        self.t += TICK
        self.discarded += SIZE
        self.bps = self._tick(0)

    def of(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == kind]


def test_the_cache_runs_out_after_its_size_and_the_speed_falls() -> None:
    d = Drive()
    assert d.bps == 40 * MB
    d.write(40 * MiB)
    assert d.bps == 40 * MB and d.sim.cache_bytes == pytest.approx(8 * MiB, abs=1)
    d.write(10 * MiB)
    assert d.bps == 10 * MB and d.sim.cache_bytes == 0
    (empty,) = d.of("cache-empty")
    # Recorded to the byte, however the tick's writes straddled it.
    assert empty["empty_at"] == 48 * MiB and empty["burst_empty_at"] == 48 * MiB
    assert [e["cache_bytes"] for e in d.of("cache-burst")] == [48 * MiB]
    assert [e["mbps"] for e in d.of("level")] == [40, 10]


def test_idle_refills_the_cache_at_its_rate_up_to_its_size() -> None:
    d = Drive()
    d.write(SIZE)  # a whole fill: the cache is empty
    d.idle(3.0)
    d.write(MiB)
    burst = d.of("cache-burst")[-1]
    assert burst["idle_s"] == pytest.approx(3.0, abs=2 * TICK)
    assert burst["cache_bytes"] == pytest.approx(12 * MiB, rel=0.01)
    assert d.bps == 40 * MB
    d.write(20 * MiB)  # past the 11 MiB left
    empty = d.of("cache-empty")[-1]
    assert empty["burst_empty_at"] == pytest.approx(burst["cache_bytes"], abs=1)
    assert d.bps == 10 * MB
    # A long idle fills it to its size, no more.
    d.idle(30.0)
    d.write(MiB)
    assert d.of("cache-burst")[-1]["cache_bytes"] == 48 * MiB


def test_gaps_shorter_than_a_burst_end_do_not_refill() -> None:
    """The kernel's throttle lets slow writes through in bursts about 0.1 s apart: that is
    writing, not idle."""
    d = Drive()
    d.write(SIZE // 2)
    for _ in range(50):
        d.idle(0.5)
        d.write(2 * MiB)
    assert d.sim.cache_bytes == 0 and d.bps == 10 * MB
    assert len(d.of("cache-burst")) == 1


def test_a_purge_makes_the_cache_whole_again() -> None:
    d = Drive()
    d.write(SIZE)
    d.purge()
    assert d.sim.cache_bytes == 48 * MiB
    d.idle(1.5)
    d.write(MiB)
    assert d.bps == 40 * MB and d.of("cache-burst")[-1]["cache_bytes"] == 48 * MiB


def test_the_controller_wakes_when_the_cache_will_run_out() -> None:
    d = Drive()
    d.write(40 * MiB)
    assert d.sim.seconds_to_next_change(d.t, 40 * MB) == pytest.approx(8 * MiB / (40 * MB))


def test_the_slc_recovery_profile_round_trips_and_says_what_it_does() -> None:
    p = PROFILES["slc-recovery"]
    assert p.cache is not None and p.cache.size_bytes == 48 * MiB
    assert Profile.from_dict(p.as_dict()) == p
    assert "SLC cache of 48 MiB" in p.describe()[0]
    with pytest.raises(ValueError, match="two speeds"):
        Profile("x", "t", (Level(100, 10),), cache=Cache(MiB, 0, 10, 1))
    with pytest.raises(ValueError, match="negative"):
        Profile("x", "t", (Level(100, 10),), cache=Cache(MiB, 10, 1, -1))
