"""The simulated drive's state machine (pure), its known answer from a trace, and the two
kernel interfaces of the throttle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from worker.sim import throttle, truth
from worker.sim.profile import (
    MB,
    PROFILES,
    STALL_BPS,
    Cliff,
    Counters,
    Level,
    Limits,
    Profile,
    Simulation,
    Stalls,
)
from worker.sim.throttle import V1Blkio, V2Io

SIZE = 100 * 2**20


def drive(profile: Profile) -> tuple[Simulation, list[dict]]:
    return Simulation(profile, SIZE), []


def test_levels_follow_the_share_written() -> None:
    sim, events = drive(PROFILES["slc-cache"])
    written = 0
    seen = []
    for t in range(200):
        written += SIZE // 100  # 1% a tick
        limits, ev = sim.step(t * 0.01, Counters(written, t, 0), 1000.0 + t)
        events += ev
        seen.append(limits.write_bps)
    assert seen[28] == 24 * MB and seen[30] == 12 * MB and seen[80] == 6 * MB
    assert [e["mbps"] for e in events if e["kind"] == "level"] == [24, 12, 6]
    assert limits.read_bps == 40 * MB


def test_a_large_discard_resets_the_drive_and_can_stall_it() -> None:
    profile = Profile("p", "t", (Level(50, 40), Level(100, 10)), trim_stall_s=2.0)
    sim = Simulation(profile, SIZE)
    sim.step(0.0, Counters(0, 0, 0), 0.0)
    limits, _ = sim.step(1.0, Counters(int(0.6 * SIZE), 10, 0), 1.0)
    assert limits.write_bps == 10 * MB
    limits, ev = sim.step(2.0, Counters(int(0.6 * SIZE), 10, SIZE), 2.0)
    assert {e["kind"] for e in ev} >= {"reset", "stall-start"}
    assert limits.write_bps == STALL_BPS
    limits, ev = sim.step(4.1, Counters(int(0.6 * SIZE), 10, SIZE), 4.1)
    assert limits.write_bps == 40 * MB and any(e["kind"] == "stall-end" for e in ev)
    # A small discard (a partial TRIM) does not reset.
    limits, ev = sim.step(5.0, Counters(int(1.2 * SIZE), 20, SIZE + SIZE // 10), 5.0)
    assert limits.write_bps == 10 * MB and not any(e["kind"] == "reset" for e in ev)


def test_random_writes_reach_the_cliff_and_sequential_ones_do_not_count() -> None:
    profile = Profile("p", "t", (Level(100, 80),), cliff=Cliff(10 * 2**20, 3000, 800))
    sim = Simulation(profile, SIZE)
    sim.step(0.0, Counters(0, 0, 0), 0.0)
    limits, _ = sim.step(1.0, Counters(20 * 2**20, 160, 0), 1.0)  # 128 KiB writes
    assert limits.write_iops == 3000 and sim.random_written == 0
    limits, ev = sim.step(2.0, Counters(31 * 2**20, 160 + 2816, 0), 2.0)  # 4 KiB writes
    assert limits.write_iops == 800 and any(e["kind"] == "cliff" for e in ev)


def test_stalls_come_every_period_of_writing_and_restart_after_idle() -> None:
    profile = Profile("p", "t", (Level(100, 40),), stalls=Stalls(6.0, 1.5))
    sim = Simulation(profile, SIZE)
    written, starts = 0, []
    for k in range(2000):  # 20 s of writing, ticks of 10 ms
        t = k * 0.01
        limits, ev = sim.step(t, Counters(written, k, 0), t)
        if limits.write_bps != STALL_BPS:
            written += 400_000
        starts += [round(e["t"], 2) for e in ev if e["kind"] == "stall-start"]
    # 6 s after the first tick that saw writes (t = 0.01), and every 6 s of writing after it.
    assert starts == [6.01, 12.01, 18.01]
    # Two idle seconds, then writes again: the clock starts again with them.
    _l, ev = sim.step(22.0, Counters(written + 400_000, 2001, 0), 22.0)
    assert [e["kind"] for e in ev] == ["burst"]
    assert sim._next_stall == pytest.approx(28.0)


def test_each_burst_of_writes_draws_its_own_speed() -> None:
    """burst_jitter: one speed for a whole burst (a run), another for the next, within the
    share and recorded in the burst's event; the 0.2 s noise stays off."""
    profile = Profile("p", "t", (Level(100, 20),), burst_jitter=0.02, seed=7)
    sim = Simulation(profile, SIZE)
    sim.step(-5.0, Counters(0, 0, 0), 0.0)
    written, factors = 0, []
    for burst in range(20):
        start = burst * 10.0
        seen = set()
        for k in range(300):  # 3 s of writing, then 7 s idle
            t = start + k * 0.01
            written += 1000
            limits, ev = sim.step(t, Counters(written, int(t * 100), 0), t)
            seen.add(limits.write_bps)
            factors += [e["factor"] for e in ev if e["kind"] == "burst"]
        assert len(seen) == 1  # steady within the burst
        assert seen == {int(20 * MB * factors[-1])}
    assert len(factors) == 20 and len(set(factors)) == 20
    assert all(0.98 <= f <= 1.02 for f in factors)
    assert PROFILES["slc-cache"].burst_jitter == 0.0  # the known profiles keep their answers
    assert any("run-to-run" in line for line in profile.describe())


def test_profiles_are_checked_and_round_trip() -> None:
    with pytest.raises(ValueError):
        Profile("bad", "t", (Level(50, 40),))  # does not reach 100%
    with pytest.raises(ValueError):
        Profile("bad", "t", (Level(100, 40),), stalls=Stalls(1.0, 2.0))
    for p in PROFILES.values():
        assert Profile.from_dict(p.as_dict()) == p
        assert p.describe()
    assert PROFILES["slc-cache"].expected_step_downs() == [
        {"at_pct": 30, "from_mbps": 24, "to_mbps": 12},
        {"at_pct": 80, "from_mbps": 12, "to_mbps": 6},
    ]


def test_the_known_answer_is_where_the_device_changed_speed() -> None:
    """The device's counters change slope 0.26 s after the controller's change (the throttle
    carries unused allowance over): the truth is the device's, from its counters."""
    t = np.arange(0, 6, 0.005)
    switch = 3.26
    written = np.where(t < switch, 20e6 * t, 20e6 * switch + 14e6 * (t - switch))
    trace = np.column_stack([1000 + t, written, written / 131072])
    events = [
        {"kind": "level", "wall": 1000.0, "until_pct": 40, "mbps": 20, "applied_written": 0},
        {"kind": "level", "wall": 1003.0, "until_pct": 100, "mbps": 14,
         "applied_written": 60e6},
    ]  # fmt: skip
    (change,) = truth.level_changes(events, trace, int(163e6))
    assert change["at_pct"] == pytest.approx(20e6 * switch / 163e6 * 100, abs=0.01)
    assert change["applied_pct"] == pytest.approx(60e6 / 163e6 * 100)
    assert change["from_mbps"] == pytest.approx(20) and change["to_mbps"] == pytest.approx(14)
    stalls = truth.stalls(
        [
            {"kind": "stall-start", "wall": 10.0, "stall": "periodic"},
            {"kind": "stall-end", "wall": 11.5},
        ]
    )
    assert stalls == [{"kind": "periodic", "wall": 10.0, "duration_s": 1.5}]


def _staircase(t: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """Bytes written as the throttle lets them through: in bursts every 0.1 s."""
    smooth = np.concatenate(([0.0], np.cumsum(rate[1:] * np.diff(t))))
    slices = np.floor(t / 0.1) * 0.1
    return np.interp(slices, t, smooth)


def test_the_known_answer_is_where_the_counters_bend_after_a_catch_up() -> None:
    """A host that held the writes up before a change (23 MB/s instead of 24) and the throttle
    letting them catch up 0.15 s before it (2 MB at once): the device's counters bend at the
    change, 117.2 MB. Lines over the 3 s on each side met 2.4 MB (1.2% of a 192 MiB span)
    later: the line before is below the counters after the catch-up. The known answer must be
    within half the self-test's tolerance (1% of the span) of the bend."""
    t = np.arange(0, 9, 0.005)
    rate = np.where(t < 4.8, 23e6, np.where(t < 5.0, 24e6, 12e6))
    written = _staircase(t, rate) + np.where(t >= 4.85, 2e6, 0.0)
    bend = float(np.interp(5.0, t, written))
    trace = np.column_stack([1000 + t, written, written / 131072])
    found = truth.effective_change(trace, 1004.95, 1)
    assert found is not None
    assert abs(found["at"] - bend) <= 0.005 * 192 * 2**20, (found["at"], bend)
    assert found["rate_before"] == pytest.approx(23e6, rel=0.02)
    assert found["rate_after"] == pytest.approx(12e6, rel=0.02)


def test_device_stalls_are_what_the_counters_were_seen_standing_still() -> None:
    """A 1.5 s stall is found with its length, less the throttle's usual 0.1 s between bursts;
    a controller held up for 0.39 s (no reading) while the device wrote is no stall."""
    t = np.arange(0, 20, 0.005)
    rate = np.where((t >= 6.0) & (t < 7.5), 0.0, 40e6)
    written = _staircase(t, rate)
    trace = np.column_stack([1000 + t, written, written / 131072, np.zeros_like(t)])
    (stall,) = truth.device_stalls(trace, 1000.0, 1020.0, min_s=0.3)
    assert stall["wall"] == pytest.approx(1006.0, abs=0.11)
    assert stall["duration_s"] == pytest.approx(1.5, abs=0.11)
    held = (t > 11.6) & (t < 11.99)  # the controller read nothing for 0.39 s
    assert [s["wall"] for s in truth.device_stalls(trace[~held], 1000.0, 1020.0, min_s=0.1)] == [
        pytest.approx(1006.0, abs=0.11)
    ]
    # One 128 KiB write let through 1 s into the stall: still one stall, of its whole length.
    leak = trace.copy()
    leak[:, 1] += np.where(t >= 7.0, 131072, 0)
    (stall,) = truth.device_stalls(leak, 1000.0, 1020.0, min_s=0.3)
    assert stall["duration_s"] == pytest.approx(1.5, abs=0.11)


def test_throttle_files_of_both_cgroup_versions(tmp_path: Path) -> None:
    """cgroup v1 writes one file per limit (0: no limit); v2 one io.max line ("max"). The
    machine running the tests has one of the two: the other is checked on its file format."""
    v1 = V1Blkio(tmp_path, "v1", "7:3")
    v1.create()
    v1.apply(Limits(24 * MB, None, 40 * MB))
    assert (v1.path / "blkio.throttle.write_bps_device").read_text() == "7:3 24000000\n"
    assert (v1.path / "blkio.throttle.write_iops_device").read_text() == "7:3 0\n"
    assert (v1.path / "blkio.throttle.read_bps_device").read_text() == "7:3 40000000\n"
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    v2 = V2Io(tmp_path, "v2", "7:3")
    v2.create()
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+io"
    v2.apply(Limits(24 * MB, 800, 40 * MB))
    assert (v2.path / "io.max").read_text() == (
        "7:3 rbps=40000000 wbps=24000000 riops=max wiops=800\n"
    )
    # A stall: io.max takes no limit below 2 (EINVAL for 1 on kernels 5.9 to 6.9).
    v2.apply(Limits(STALL_BPS, 1, None))
    assert (v2.path / "io.max").read_text() == "7:3 rbps=max wbps=2 riops=max wiops=2\n"
    # Removing the rule: every limit "max".
    v2._write(Limits(None, None, None))
    assert (v2.path / "io.max").read_text() == "7:3 rbps=max wbps=max riops=max wiops=max\n"
    # The io controller already enabled for the children: subtree_control is left alone.
    (tmp_path / "cgroup.subtree_control").write_text("cpu io memory\n")
    V2Io(tmp_path, "v2b", "7:3").create()
    assert (tmp_path / "cgroup.subtree_control").read_text() == "cpu io memory\n"


def _mounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    mounts = tmp_path / "mounts"
    mounts.write_text("".join(f"{line}\n" for line in lines))
    monkeypatch.setattr(throttle, "PROC_MOUNTS", mounts)


def test_the_throttle_is_found_in_either_cgroup_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/proc/self/mounts as each kind of machine has it: cgroup v2 with the io controller
    (systemd's default), a hybrid one whose io controller is bound to v1 blkio (this one), and
    one with neither, which is told what is missing."""
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    _mounts(tmp_path, monkeypatch, [f"cgroup2 {v2} cgroup2 rw,nosuid,nodev,noexec 0 0"])
    assert throttle.detect() == (V2Io, v2)

    unified, blkio = tmp_path / "unified", tmp_path / "blkio"
    unified.mkdir()
    blkio.mkdir()
    (unified / "cgroup.controllers").write_text("\n")
    (blkio / "blkio.throttle.write_bps_device").write_text("")
    hybrid = [
        f"cgroup2 {unified} cgroup2 rw,relatime 0 0",
        f"cgroup {tmp_path / 'cpu'} cgroup rw,relatime,cpu 0 0",
        f"cgroup {blkio} cgroup rw,relatime,blkio 0 0",
    ]
    _mounts(tmp_path, monkeypatch, hybrid)
    assert throttle.detect() == (V1Blkio, blkio)

    _mounts(tmp_path, monkeypatch, hybrid[:2])
    with pytest.raises(throttle.ThrottleUnavailable) as exc:
        throttle.detect()
    assert str(exc.value) == (
        f"no block throttle: cgroup v2 at {unified} has no io controller (it is bound to "
        "cgroup v1); no cgroup v1 blkio hierarchy with blkio.throttle.* files"
    )


def test_a_v2_cgroup_that_cannot_enable_io_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a container its root cgroup holds processes, and cgroup v2 refuses to enable a
    controller for its children (EBUSY): the simulated drive says so instead of failing."""
    control = tmp_path / "cgroup.subtree_control"
    control.write_text("cpu\n")
    real = Path.write_text

    def busy(self: Path, text: str, *args: object, **kw: object) -> int:
        if self == control:
            raise OSError(16, "Device or resource busy")
        return real(self, text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", busy)
    with pytest.raises(throttle.ThrottleUnavailable, match="cannot enable the io controller"):
        V2Io(tmp_path, "v2", "7:3").create()
    assert not (tmp_path / "v2").exists()


def test_requirements_name_what_is_missing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from worker.sim import controller

    monkeypatch.setattr(controller.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(controller.shutil, "which", lambda _name: None)
    _mounts(tmp_path, monkeypatch, [])
    missing = controller.requirements(tmp_path / "no-tmpfs")
    assert missing == [
        "root (loop devices and cgroups need it): run as root",
        "losetup (util-linux)",
        "no block throttle: no cgroup v2 mount with the io controller; no cgroup v1 blkio "
        "hierarchy with blkio.throttle.* files",
        f"a writable tmpfs at {tmp_path / 'no-tmpfs'}",
    ]
