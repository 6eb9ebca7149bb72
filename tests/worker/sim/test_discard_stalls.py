"""Stalls owed to deleted files' TRIMs (worker.sim.profile.DiscardStalls): how many a deletion
owes, when the writes that follow stand still, and that a purge owes none."""

from __future__ import annotations

import pytest

from tests.worker.sim.test_cache import SIZE, TICK, Drive, MiB
from worker.sim.profile import PROFILES, DiscardStalls, Level, Profile

RULE = DiscardStalls(per_bytes=12 * MiB, duration_s=1.5, gap_s=1.0)
PROFILE = Profile("d", "t", (Level(100, 20),), discard_stalls=RULE)


def discard(drive: Drive, nbytes: int, ticks: int = 1) -> None:
    """`nbytes` discarded over `ticks` ticks (a deletion's TRIMs come as many requests)."""
    for _ in range(ticks):
        drive.t += TICK
        drive.discarded += nbytes // ticks
        drive.bps = drive._tick(0)


def stalls(drive: Drive) -> list[tuple[float, float]]:
    starts = [e for e in drive.events if e["kind"] == "stall-start"]
    return [(e["t"], e["duration_s"]) for e in starts if e["stall"] == "discard"]


def test_a_deletion_owes_one_stall_per_12_mib_added_up_across_ticks() -> None:
    drive = Drive(PROFILE)
    drive.write(8 * MiB)
    discard(drive, 32 * MiB, ticks=64)
    assert drive.sim.owed_stalls == 2  # 32 // 12, the 8 MiB left over carried
    assert [e["owed"] for e in drive.of("stalls-owed")] == [1, 1]
    discard(drive, 4 * MiB)
    assert drive.sim.owed_stalls == 3  # 8 + 4 carried make the third


def test_the_owed_stalls_come_with_the_writes_that_follow_gap_apart() -> None:
    drive = Drive(PROFILE)
    discard(drive, 24 * MiB, ticks=8)
    drive.idle(5.0)  # nothing written: nothing stalls, the stalls wait for writes
    assert stalls(drive) == []
    began = drive.t
    drive.write(150 * MiB)
    found = stalls(drive)
    assert len(found) == 2
    (t1, d1), (t2, d2) = found
    assert (d1, d2) == (1.5, 1.5)
    assert t1 - began == pytest.approx(1.0 + MiB / 20e6, abs=3 * TICK)
    assert t2 - (t1 + 1.5) == pytest.approx(1.0, abs=2 * TICK)
    # Writes stood still for the stalls: 150 MiB at 20 MB/s plus 3 s.
    assert drive.t - began == pytest.approx(150 * MiB / 20e6 + 3.0, abs=0.1)
    assert drive.sim.owed_stalls == 0


def test_a_purge_resets_and_owes_nothing() -> None:
    drive = Drive(PROFILE)
    drive.write(8 * MiB)
    drive.purge()
    assert 2 * 12 * MiB <= SIZE  # a purge discards far more than a stall's worth
    assert drive.sim.owed_stalls == 0
    drive.write(60 * MiB)
    assert stalls(drive) == []


def test_the_profile_for_the_file_copy_has_the_rule_and_round_trips() -> None:
    p = PROFILES["discard-stalls"]
    assert p.discard_stalls == RULE
    assert Profile.from_dict(p.as_dict()) == p
    assert any("deleted files" in line for line in p.describe())
    with pytest.raises(ValueError, match="discard stalls"):
        Profile("x", "t", (Level(100, 1),), discard_stalls=DiscardStalls(0, 1.0, 1.0))


def test_a_journal_commits_few_kib_do_not_start_the_owed_stalls_clock() -> None:
    drive = Drive(PROFILE)
    discard(drive, 24 * MiB, ticks=8)
    drive.write(64 * 1024)  # the deletion's metadata, written as the journal commits
    drive.idle(3.0)
    assert stalls(drive) == []
    began = drive.t
    drive.write(60 * MiB)
    (t1, _d1), (_t2, _d2) = stalls(drive)
    # 1 MiB of the data starts the clock (0.05 s at 20 MB/s), then 1 s to the first stall.
    assert t1 - began == pytest.approx(1.0 + MiB / 20e6, abs=3 * TICK)
