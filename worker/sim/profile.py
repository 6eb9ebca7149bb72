"""A simulated drive's behaviour, and what drivelab should find on it. Pure: no I/O.

A profile says how fast the simulated drive may go, as a function of what has been written to
it and of time, the way a real SSD's firmware does:

- write speed levels by the fraction of the device written since it was last reset (an SLC
  cache running out, a "performance mode" that ends): 60 MB/s until 25%, 30 MB/s until 80%...;
- an IOPS limit that falls after N bytes of random writes (small blocks: at most 64 KiB per
  I/O on average) with jitter: the consistency cliff, when the free blocks run out and garbage
  collection sets the pace;
- periodic write stalls (a flush every P seconds for D seconds), on a clock that starts with
  the first write after an idle second; and a stall while a large TRIM is digested;
- stalls owed to smaller discards (deleted files' TRIMs, DiscardStalls): the writes that
  follow stand still once per so many bytes discarded, as drives that digest TRIMs while they
  write (PC Perspective's File Copy Test on the OCZ Vector 180);
- a temperature and a thermal throttle (worker.sim.thermal): heat from what is written,
  cooling towards an ambient temperature, a speed limit above one temperature until the drive
  cools below another; the temperature in a sensor file the worker reads like hwmon's.

A discard of at least half the device (a purge or a whole-span TRIM) resets it: the written
fraction and the random-write count go back to 0, as on a drive whose cache and free blocks
are free again.

`Simulation` turns a profile and the device's counters (sectors written and discarded, write
I/Os, from /sys/block/loopN/stat) into throttle limits and events, tick by tick; the
controller (worker.sim.controller) applies the limits with the kernel's block throttle.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from worker.sim.thermal import Thermal

MB = 1_000_000
# Average I/O size at or below which writes count as random (small-block) writes.
SMALL_WRITE_BYTES = 64 * 1024
# A stall's limit: 1 byte/s (cgroup v2's io.max takes 2 at least, worker.sim.throttle), so a
# stalled 4 KiB write would wait over half an hour.
STALL_BPS = 1
# Writes that start after this long without any are a new burst: the stall clock restarts.
IDLE_RESET_S = 1.0
# A discard of at least this share of the device resets it (purge, whole-span TRIM).
RESET_DISCARD_SHARE = 0.5
# Stalls owed to discards (DiscardStalls) start their clock once this much has been written:
# a journal commit's metadata after a deletion is not yet the writes that digest them.
OWED_START_BYTES = 2**20
JITTER_EVERY_S = 0.2


@dataclass(frozen=True)
class Level:
    """Write speed `mbps` (10^6 B/s) until `until_pct` % of the device is written."""

    until_pct: float
    mbps: float


@dataclass(frozen=True)
class Cliff:
    """Random-write IOPS: `fob_iops` until `after_bytes` of random writes, then `steady_iops`,
    each redrawn every 0.2 s within +-`jitter` (a share) of its level."""

    after_bytes: int
    fob_iops: float
    steady_iops: float
    jitter: float = 0.0


@dataclass(frozen=True)
class Stalls:
    """Writes stop for `duration_s` every `period_s` seconds of writing."""

    period_s: float
    duration_s: float


@dataclass(frozen=True)
class DiscardStalls:
    """Discards that do not reset the drive (under RESET_DISCARD_SHARE of it in one tick: a
    deletion's TRIMs) owe one write stall of `duration_s` for every `per_bytes` of them,
    added up across ticks. The owed stalls come once the drive writes again: the first
    `gap_s` after OWED_START_BYTES (1 MiB) more were written, each next one `gap_s` after the
    one before ends (whether or not writes went on meanwhile)."""

    per_bytes: int
    duration_s: float
    gap_s: float


@dataclass(frozen=True)
class Cache:
    """An SLC write cache that refills when the drive is idle: writes go at `fast_mbps` while
    it holds any of its `size_bytes`, at `slow_mbps` once it is empty; each idle second gives
    `refill_bps` bytes of it back, up to its size. Idle is no writes for IDLE_RESET_S (a burst's
    end: the kernel's throttle lets slow writes through in bursts about 0.1 s apart, which is
    not idle), and then the whole time since the last write counts. A reset (purge) empties
    the drive: the cache is whole again. With a cache, the write levels are not used."""

    size_bytes: int
    fast_mbps: float
    slow_mbps: float
    refill_bps: float


@dataclass(frozen=True)
class Profile:
    name: str
    title: str
    write_levels: tuple[Level, ...]
    read_mbps: float | None = None
    cliff: Cliff | None = None
    stalls: Stalls | None = None
    # Writes stall for this long after a discard of at least half the device.
    trim_stall_s: float = 0.0
    # Each level's speed is redrawn every 0.2 s within +- this share (noise, not steps).
    bw_jitter: float = 0.0
    # And at the start of each burst of writes (after an idle second: a run, a step) within
    # +- this share, uniformly (a standard deviation of share / sqrt(3)): run-to-run noise, as
    # a real drive's state and housekeeping differ from run to run; 0.2 s noise averages out
    # over a run, this does not.
    burst_jitter: float = 0.0
    seed: int = 1
    thermal: Thermal | None = None
    cache: Cache | None = None
    discard_stalls: DiscardStalls | None = None

    def __post_init__(self) -> None:
        if not self.write_levels:
            raise ValueError(f"profile {self.name}: at least one write level")
        edges = [lv.until_pct for lv in self.write_levels]
        if edges != sorted(edges) or edges[-1] < 100:
            raise ValueError(
                f"profile {self.name}: levels must end in increasing order, the last at 100% "
                f"or beyond (got {edges})"
            )
        if any(lv.mbps <= 0 for lv in self.write_levels):
            raise ValueError(f"profile {self.name}: every level needs a positive MB/s")
        if self.stalls and not 0 < self.stalls.duration_s < self.stalls.period_s:
            raise ValueError(f"profile {self.name}: a stall must be shorter than its period")
        sc = self.cache
        if sc and not (sc.size_bytes > 0 and sc.fast_mbps > 0 and sc.slow_mbps > 0):
            raise ValueError(f"profile {self.name}: a cache needs a size and two speeds")
        if sc and sc.refill_bps < 0:
            raise ValueError(f"profile {self.name}: a cache's refill rate cannot be negative")
        ds = self.discard_stalls
        if ds and not (ds.per_bytes > 0 and ds.duration_s > 0 and ds.gap_s > 0):
            raise ValueError(f"profile {self.name}: discard stalls need a size, a length, a gap")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        d = dict(data)
        d["write_levels"] = tuple(Level(**lv) for lv in d.get("write_levels", ()))
        if d.get("cliff"):
            d["cliff"] = Cliff(**d["cliff"])
        if d.get("stalls"):
            d["stalls"] = Stalls(**d["stalls"])
        if d.get("thermal"):
            d["thermal"] = Thermal(**d["thermal"])
        if d.get("cache"):
            d["cache"] = Cache(**d["cache"])
        if d.get("discard_stalls"):
            d["discard_stalls"] = DiscardStalls(**d["discard_stalls"])
        return cls(**d)

    def level_at(self, fraction: float) -> Level:
        pct = fraction * 100.0
        for lv in self.write_levels:
            if pct < lv.until_pct:
                return lv
        return self.write_levels[-1]

    def expected_step_downs(self) -> list[dict[str, float]]:
        """The step-downs of a sequential write pass over the whole device from a reset state:
        the level boundaries where the speed falls."""
        out = []
        for a, b in zip(self.write_levels, self.write_levels[1:], strict=False):
            if b.mbps < a.mbps and a.until_pct < 100:
                out.append({"at_pct": a.until_pct, "from_mbps": a.mbps, "to_mbps": b.mbps})
        return out

    def describe(self) -> list[str]:
        """What the profile does, in lines a reviewer reads (`drivelab sim profiles`)."""
        lines = []
        start = 0.0
        sc = self.cache
        if sc:
            lines.append(
                f"an SLC cache of {sc.size_bytes / 2**20:g} MiB: writes at {sc.fast_mbps:g} MB/s "
                f"while it holds any, {sc.slow_mbps:g} MB/s once it is empty; "
                f"{sc.refill_bps / 2**20:g} MiB of it back per idle second"
            )
        for lv in self.write_levels if not sc else ():
            last = lv is self.write_levels[-1]
            end = "the end" if last and lv.until_pct >= 100 else f"{lv.until_pct:g}%"
            lines.append(f"writes at {lv.mbps:g} MB/s from {start:g}% to {end} of the device")
            start = lv.until_pct
        if self.bw_jitter:
            lines.append(f"write speed varies within +-{self.bw_jitter * 100:g}% (noise)")
        if self.burst_jitter:
            lines.append(
                f"each burst of writes runs within +-{self.burst_jitter * 100:g}% of that speed "
                "(run-to-run noise)"
            )
        lines.append(f"reads at {self.read_mbps:g} MB/s" if self.read_mbps else "reads unthrottled")
        if self.cliff and self.cliff.fob_iops == self.cliff.steady_iops:
            lines.append(f"writes at most {self.cliff.fob_iops:g} IOPS")
        elif self.cliff:
            c = self.cliff
            lines.append(
                f"random writes at {c.fob_iops:g} IOPS, {c.steady_iops:g} IOPS after "
                f"{c.after_bytes / 2**20:g} MiB of them (+-{c.jitter * 100:g}%)"
            )
        if self.stalls:
            lines.append(
                f"writes stall for {self.stalls.duration_s:g} s every "
                f"{self.stalls.period_s:g} s of writing"
            )
        if self.trim_stall_s:
            lines.append(f"writes stall for {self.trim_stall_s:g} s after a whole-span TRIM")
        if self.discard_stalls:
            ds = self.discard_stalls
            lines.append(
                f"writes stall for {ds.duration_s:g} s per {ds.per_bytes / 2**20:g} MiB of smaller "
                f"discards (deleted files), one every {ds.gap_s:g} s of writing"
            )
        if self.thermal:
            lines += self.thermal.describe()
        return lines


@dataclass(frozen=True)
class Limits:
    """Throttle limits: None is unlimited."""

    write_bps: int | None
    write_iops: int | None
    read_bps: int | None


@dataclass
class Counters:
    """Cumulative counters of the device (from /sys/block/NAME/stat), in bytes and I/Os."""

    written: int
    write_ios: int
    discarded: int
    read: int = 0


@dataclass
class Simulation:
    """The profile's state machine: feed it the time and the device's counters, get the
    limits to apply and the events that happened (level changes, the cliff, stalls, resets).

    `now` is any monotonic clock in seconds; `wall` (epoch seconds) is only recorded in events,
    so that they can be compared with fio's timestamps.
    """

    profile: Profile
    size_bytes: int
    written: int = 0  # bytes written since the last reset
    written_offset: int = 0  # the device's written counter at the last reset
    random_written: int = 0  # bytes of small-block writes since the last reset
    _last: Counters | None = None
    _last_write_at: float | None = None
    _anchor: float | None = None  # start of the current burst of writes (stall clock)
    _next_stall: float | None = None
    _stall_until: float | None = None
    _stall_kind: str = ""
    _jitter_at: float = -math.inf
    _bw_factor: float = 1.0
    _burst_factor: float = 1.0
    _iops_factor: float = 1.0
    _level: Level | None = None
    _cliffed: bool = False
    _rng: random.Random = field(default_factory=random.Random)
    cache_bytes: float = 0.0  # what the SLC cache holds free now (profile.cache)
    _burst_written: int = 0
    _cache_at_write: float = 0.0  # what it held at the last write (refills count from there)
    owed_stalls: int = 0  # profile.discard_stalls: stalls owed to discards, not yet served
    _discard_carry: int = 0  # discarded bytes short of the next owed stall
    _owed_at: float | None = None  # when the next owed stall starts (set by a write)
    _owed_written: int = 0  # bytes written since stalls were owed, until their clock starts
    _last_d_written: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.profile.seed)
        if self.profile.cache:
            self.cache_bytes = self._cache_at_write = float(self.profile.cache.size_bytes)

    # -- the tick --------------------------------------------------------------------------

    def step(self, now: float, c: Counters, wall: float) -> tuple[Limits, list[dict[str, Any]]]:
        events: list[dict[str, Any]] = []

        def event(kind: str, **extra: Any) -> None:
            events.append(
                {
                    "kind": kind,
                    "t": now,
                    "wall": wall,
                    "written": self.written,
                    "random_written": self.random_written,
                    **extra,
                }
            )

        if self._last is None:
            self.written_offset = c.written  # a loop device's counters outlive its detach
        prev = self._last or c
        self._last = c
        d_written = max(0, c.written - prev.written)
        d_ios = max(0, c.write_ios - prev.write_ios)
        d_discarded = max(0, c.discarded - prev.discarded)

        if d_discarded >= RESET_DISCARD_SHARE * self.size_bytes:
            self.written = 0
            self.written_offset = c.written
            self.random_written = 0
            self._cliffed = False
            self._anchor = None
            self._next_stall = None
            if self.profile.cache:
                self.cache_bytes = self._cache_at_write = float(self.profile.cache.size_bytes)
            event("reset", discarded=d_discarded)
            if self.profile.trim_stall_s > 0:
                self._start_stall(now, self.profile.trim_stall_s, "trim", event)

        elif d_discarded and self.profile.discard_stalls:
            self._owe(d_discarded, event)

        if d_written:
            self.written += d_written
            if d_ios and d_written / d_ios <= SMALL_WRITE_BYTES:
                self.random_written += d_written

        if self.profile.cache:
            self._cache(now, d_written, event)

        self._stall_clock(now, d_written > 0, event)
        if self.owed_stalls:
            self._last_d_written = d_written
            self._serve_owed(now, event)

        level = self.profile.level_at(self.written / self.size_bytes)
        if self.profile.cache:
            sc = self.profile.cache
            level = Level(100, sc.fast_mbps if self.cache_bytes > 0 else sc.slow_mbps)
        if level != self._level:
            event("level", mbps=level.mbps, until_pct=level.until_pct)
            self._level = level
        cliff = self.profile.cliff
        if cliff and not self._cliffed and self.random_written >= cliff.after_bytes:
            self._cliffed = True
            event("cliff", iops=cliff.steady_iops)

        if now >= self._jitter_at + JITTER_EVERY_S:
            self._jitter_at = now
            self._bw_factor = self._draw(self.profile.bw_jitter)
            self._iops_factor = self._draw(cliff.jitter if cliff else 0.0)

        read_bps = int(self.profile.read_mbps * MB) if self.profile.read_mbps else None
        if self.stalled(now):
            return Limits(STALL_BPS, None, read_bps), events
        write_bps = int(level.mbps * MB * self._bw_factor * self._burst_factor)
        iops = None
        if cliff:
            base = cliff.steady_iops if self._cliffed else cliff.fob_iops
            iops = max(1, int(base * self._iops_factor))
        return Limits(write_bps, iops, read_bps), events

    def stalled(self, now: float) -> bool:
        return self._stall_until is not None and now < self._stall_until

    def seconds_to_next_change(self, now: float, write_bps: float) -> float:
        """How long until the state may change at the current write rate: the controller
        sleeps no longer than this, so a level boundary is met within one tick."""
        waits = [math.inf]
        if self._stall_until is not None and now < self._stall_until:
            waits.append(self._stall_until - now)
        if self._next_stall is not None:
            waits.append(self._next_stall - now)
        if self.owed_stalls and self._owed_at is not None:
            waits.append(self._owed_at - now)
        if self.profile.cache:
            if write_bps > 0 and self.cache_bytes > 0:
                waits.append(self.cache_bytes / write_bps)
        elif write_bps > 0 and self._level is not None and self._level.until_pct < 100:
            left = self._level.until_pct / 100.0 * self.size_bytes - self.written
            waits.append(left / write_bps)
        return max(0.0, min(waits))

    # -- internals ---------------------------------------------------------------------------

    def _cache(self, now: float, d_written: int, event: Any) -> None:
        """The SLC cache's tick: idle time since the last write refills it (once idle has
        lasted IDLE_RESET_S); writes use it up. Events: "cache-burst" at the first write after
        idle (what the cache held as the burst began), "cache-empty" when it runs out (the
        bytes written since the reset and in the burst then)."""
        c = self.profile.cache
        assert c is not None
        last = self._last_write_at
        if last is not None and now - last >= IDLE_RESET_S:
            self.cache_bytes = min(
                float(c.size_bytes), self._cache_at_write + c.refill_bps * (now - last)
            )
        if not d_written:
            return
        if last is None or now - last >= IDLE_RESET_S:
            self._burst_written = 0
            event("cache-burst", cache_bytes=self.cache_bytes, idle_s=None if last is None
                  else now - last)  # fmt: skip
        self._burst_written += d_written
        had = self.cache_bytes
        self.cache_bytes = max(0.0, self.cache_bytes - d_written)
        self._cache_at_write = self.cache_bytes
        if had > 0 and self.cache_bytes <= 0:
            # It ran out `had` bytes into this tick's writes.
            event(
                "cache-empty",
                empty_at=self.written - d_written + had,
                burst_empty_at=self._burst_written - d_written + had,
            )

    def _owe(self, discarded: int, event: Any) -> None:
        ds = self.profile.discard_stalls
        assert ds is not None
        self._discard_carry += discarded
        owed, self._discard_carry = divmod(self._discard_carry, ds.per_bytes)
        if owed:
            self.owed_stalls += owed
            event("stalls-owed", owed=owed, discarded=discarded)

    def _serve_owed(self, now: float, event: Any) -> None:
        """The next owed stall once the drive has written `gap_s` since the last one (or since
        writes began after the discards)."""
        ds = self.profile.discard_stalls
        assert ds is not None
        if self.stalled(now):
            return
        if self._owed_at is None:
            # A journal commit's few KiB (the deletion's own metadata) are no writes of data.
            self._owed_written += self._last_d_written
            if self._owed_written >= OWED_START_BYTES:
                self._owed_at = now + ds.gap_s
            return
        if now >= self._owed_at:
            self.owed_stalls -= 1
            self._start_stall(now, ds.duration_s, "discard", event)
            self._owed_at = now + ds.duration_s + ds.gap_s if self.owed_stalls else None
            self._owed_written = 0

    def _draw(self, jitter: float) -> float:
        return 1.0 + jitter * (2.0 * self._rng.random() - 1.0) if jitter else 1.0

    def _start_stall(self, now: float, seconds: float, kind: str, event: Any) -> None:
        self._stall_until = now + seconds
        self._stall_kind = kind
        event("stall-start", stall=kind, duration_s=seconds)

    def _stall_clock(self, now: float, wrote: bool, event: Any) -> None:
        if self._stall_until is not None and now >= self._stall_until:
            event("stall-end", stall=self._stall_kind)
            self._stall_until = None
            self._last_write_at = now  # the stall was part of the burst
        if self.stalled(now):
            self._last_write_at = now
            return
        stalls = self.profile.stalls
        if wrote:
            idle = self._last_write_at is None or now - self._last_write_at >= IDLE_RESET_S
            if idle or self._anchor is None:
                self._anchor = now
                if stalls:
                    self._next_stall = now + stalls.period_s
                self._burst_factor = self._draw(self.profile.burst_jitter)
                event("burst", factor=self._burst_factor)
            self._last_write_at = now
        if stalls and self._next_stall is not None and now >= self._next_stall:
            if self._last_write_at is not None and now - self._last_write_at < IDLE_RESET_S:
                self._start_stall(now, stalls.duration_s, "periodic", event)
                self._next_stall += stalls.period_s
            else:
                self._next_stall = None  # idle: the next write starts a new burst


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "slc-cache",
            "an SLC cache that runs out twice: 24 MB/s, 12 MB/s from 30%, 6 MB/s from 80%",
            (Level(30, 24), Level(80, 12), Level(100, 6)),
            read_mbps=40,
        ),
        Profile(
            "performance-mode",
            "a fast mode that ends at 40%: 20 MB/s, then 14 MB/s",
            (Level(40, 20), Level(100, 14)),
            read_mbps=60,
        ),
        Profile(
            "hitching",
            "40 MB/s with a 1.5 s write stall every 6 s, and 2 s after a whole-span TRIM",
            (Level(100, 40),),
            read_mbps=80,
            cliff=Cliff(after_bytes=2**62, fob_iops=3000, steady_iops=3000),
            stalls=Stalls(period_s=6.0, duration_s=1.5),
            trim_stall_s=2.0,
        ),
        Profile(
            "consistency-cliff",
            "random writes at 3000 IOPS that fall to 800 (+-20%) after 160 MiB of them",
            (Level(100, 80),),
            read_mbps=80,
            cliff=Cliff(after_bytes=160 * 2**20, fob_iops=3000, steady_iops=800, jitter=0.2),
            seed=3,
        ),
        # An SLC cache of 48 MiB that refills at 3 MiB per idle second (plan slc-cache): a fill
        # of 192 MiB writes 2.5 s in the cache (the change points need 3 blocks of the
        # snapshots: 1.1 s of this 21 s fill) and 19 s after it; refills after 3, 6 and 9 s
        # idle get back 9-27 MiB and a little more (the time between steps is idle too), 0.5 s
        # or more at 20 MB/s.
        Profile(
            "slc-recovery",
            "an SLC cache of 48 MiB at 20 MB/s, 8 MB/s after it, refilled at 3 MiB per idle second",
            (Level(100, 8),),
            read_mbps=80,
            cache=Cache(size_bytes=48 * 2**20, fast_mbps=20, slow_mbps=8, refill_bps=3 * 2**20),
        ),
        # Short QD1 bursts (plan qd1-bursts): reads at 20 MB/s, writes at 10 MB/s, no cache, no
        # stalls: every burst's MB/s is the throttle's, or fio's own pace at QD1 where a busy
        # host cannot keep up (4K random: 4,883 IOPS to read, 2,441 to write).
        Profile(
            "qd1-bursts",
            "reads at 20 MB/s, writes at 10 MB/s, nothing else: the speed of every burst",
            (Level(100, 10),),
            read_mbps=20,
        ),
        # Fast until its whole capacity has been written once since the purge, then slow: the
        # free blocks have run out and garbage collection sets the pace, as on a full drive
        # (plan full-drive). The empty state writes about half the 128 MiB drive (its pre-write
        # and 1 s tests), all at 40 MB/s; the fill to 80% crosses 100%, so the full state's
        # writes run at 10 MB/s. 4K random writes are held to 4000 IOPS (16.4 MB/s) on the
        # empty drive and to the 10 MB/s level on the full one: a fall of 39%, 75% for 128K
        # sequential writes; reads at 80 MB/s in both states.
        Profile(
            "full-drive",
            "40 MB/s until the capacity has been written once since the purge, then 10 MB/s; "
            "4K writes at most 4000 IOPS",
            (Level(100, 40), Level(400, 10)),
            read_mbps=80,
            cliff=Cliff(after_bytes=2**62, fob_iops=4000, steady_iops=4000),
        ),
        # A drive without a heatsink under a sustained write: 40 MB/s heats it towards 63.8 °C,
        # it throttles to 8 MB/s at 50 °C (8.8 s into a write from 35 °C), cools below 46 °C
        # 6.8 s later, and heats up again in 3 s: a saw-tooth, as TechPowerUp's charts show.
        Profile(
            "thermal-throttle",
            "40 MB/s that heats the drive: throttled to 8 MB/s at 50 °C until it cools below 46 °C",
            (Level(100, 40),),
            read_mbps=80,
            thermal=Thermal(
                ambient_c=35,
                heat_c_per_mb=0.06,
                cooling_tau_s=12,
                throttle_c=50,
                release_c=46,
                throttle_mbps=8,
            ),
        ),
        # Flat speeds, reads and writes throttled apart (plan mixed): at a share x of writes
        # the total is min(R / (1 - x), W / x) with R = 20 and W = 10 MB/s, highest (30 MB/s)
        # at a third of writes, lowest at 100% writes (10 MB/s).
        Profile(
            "mixed",
            "flat 10 MB/s writes and 20 MB/s reads, throttled apart, no cliff or stalls",
            (Level(100, 10),),
            read_mbps=20,
        ),
        # Deleted files' TRIMs that the drive digests while it writes (plan file-copy): a copy
        # after 32 MiB of deletions (ext4's online discard) stands still twice for 1.5 s, 1 s
        # into it and 1 s after the first standstill ends; 12 MiB per stall, so a deletion's
        # discards a few MiB short of or past 32 MiB owe the same two.
        Profile(
            "discard-stalls",
            "20 MB/s; writes stand still 1.5 s per 12 MiB of deleted files' TRIMs",
            (Level(100, 20),),
            read_mbps=60,
            discard_stalls=DiscardStalls(per_bytes=12 * 2**20, duration_s=1.5, gap_s=1.0),
        ),
        # Its temperature comes from outside: a test or a reviewer's rig writes millidegrees to
        # the sensor file (`drivelab sim list` shows where), and the drive throttles on it.
        Profile(
            "thermal-sensor",
            "40 MB/s, throttled to 10 MB/s while its sensor file (written from outside) reads "
            "70 °C or more, until it reads below 65 °C",
            (Level(100, 40),),
            read_mbps=80,
            thermal=Thermal(
                ambient_c=40,
                heat_c_per_mb=0,
                cooling_tau_s=1,
                throttle_c=70,
                release_c=65,
                throttle_mbps=10,
                external=True,
            ),
        ),
    )
}

# The demo's drives (backend/demo.py): each a different SLC cache, consistency cliff and
# stall pattern, so that the Compare page has step-downs, drop-offs and stalls to show.
DEMO_PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "demo-a",
            "demo drive A: an SLC cache that runs out twice, a cliff after 192 MiB of random "
            "writes, a 0.6 s stall every 4 s",
            (Level(25, 80), Level(70, 40), Level(100, 20)),
            read_mbps=250,
            # The cliffs of A and B come 8-12 s into the quick demo's 20 s consistency run (found
            # at 10.8-11.2 s and, for B at 192 MiB, 9.6-12.0 s on a busy host): the drop-off
            # method needs 5 s of each level with the stalls left out, and after 128 MiB drive
            # B's FOB level held 5.9 s with a 1 s stall in it (no drop-off in 3 of 8 runs).
            cliff=Cliff(after_bytes=192 * 2**20, fob_iops=6000, steady_iops=1500, jitter=0.15),
            stalls=Stalls(period_s=4.0, duration_s=0.6),
            trim_stall_s=1.0,
            seed=11,
        ),
        Profile(
            "demo-b",
            "demo drive B: a fast mode to 40%, a later and milder cliff, a 1 s stall every 6 s",
            (Level(40, 60), Level(100, 35)),
            read_mbps=200,
            cliff=Cliff(after_bytes=160 * 2**20, fob_iops=5000, steady_iops=2000, jitter=0.1),
            stalls=Stalls(period_s=6.0, duration_s=1.0),
            seed=12,
        ),
        Profile(
            "demo-c",
            "demo drive C: a small cache, a deep cliff, no stalls but 2 s after a TRIM",
            # The cache lasts 1.6 s of the quick demo's 256 MiB drives, after the 2 s stall that
            # the purge before the pass starts: at 100 MB/s to 15% of a 128 MiB drive it lasted
            # 0.19 s, less than the three 100 ms snapshots a level needs.
            (Level(30, 50), Level(100, 30)),
            read_mbps=300,
            cliff=Cliff(after_bytes=192 * 2**20, fob_iops=8000, steady_iops=1000, jitter=0.25),
            trim_stall_s=2.0,
            seed=13,
        ),
    )
}
