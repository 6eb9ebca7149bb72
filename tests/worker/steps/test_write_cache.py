"""The volatile write cache for the SNIA PTS profiles: NVMe feature 06h and hdparm -W with fake
runners (this machine has neither kind of drive), and real loop devices and files, which have
none to set."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.worker.steps.conftest import MiB, Target
from tests.worker.steps.test_purge import MISSING, FakeRunner, failed, fake_drive, ok
from worker.devices import DeviceInfo
from worker.steps import StepError
from worker.steps.write_cache import (
    parse_hdparm,
    parse_nvme_feature,
    restore_pending,
    set_write_cache,
)

write_cache_module = importlib.import_module("worker.steps.write_cache")


@pytest.fixture
def guarded(monkeypatch: pytest.MonkeyPatch) -> list[DeviceInfo]:
    """The fake drives' paths do not exist: record the system-disk check instead of running it
    (the loop and file test below runs it for real)."""
    calls: list[DeviceInfo] = []
    monkeypatch.setattr(write_cache_module, "refuse_system_disk", calls.append)
    return calls


NVME_ON = "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n"
# As nvme-cli 2.3 prints it (printf's "%#010x" writes no 0x for 0; recorded from QEMU's
# controller, tests/fixtures/qemu-guest/nvme-get-feature-6-off.txt).
NVME_OFF = "get-feature:0x06 (Volatile Write Cache), Current value:00000000\n"
HDPARM_ON = "\n/dev/sdz:\n write-caching =  1 (on)\n"
HDPARM_OFF = "\n/dev/sdz:\n write-caching =  0 (off)\n"


def test_outputs_are_read_as_the_tools_print_them() -> None:
    assert parse_nvme_feature(NVME_ON) is True and parse_nvme_feature(NVME_OFF) is False
    assert parse_nvme_feature("Current value:7") is True
    assert parse_nvme_feature("no such feature") is None
    assert parse_hdparm(HDPARM_ON) is True and parse_hdparm(HDPARM_OFF) is False
    assert parse_hdparm("HDIO_GET_WCACHE failed") is None


def test_nvme_cache_is_disabled_and_checked(guarded: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {
            ("nvme", "get-feature"): [ok(NVME_ON), ok(NVME_OFF)],
            ("nvme", "set-feature"): ok("set-feature:0x06, value:0"),
        }
    )
    info = fake_drive("/dev/nvme9n1", "nvme")
    result = set_write_cache(info, False, asked=False, runner=runner)
    assert runner.commands[1] == [
        "nvme", "set-feature", "/dev/nvme9n1", "-f", "6", "--namespace-id", "4294967295", "-v", "0"
    ]  # fmt: skip
    assert (result.supported, result.before, result.after) == (True, True, False)
    assert result.method == "nvme-feature-06h" and "set-feature" in result.detail
    assert guarded == [info]  # the system-disk check ran before any command


def test_sata_cache_already_as_asked_is_left_alone(guarded: list[DeviceInfo]) -> None:
    runner = FakeRunner({("hdparm", "-W"): ok(HDPARM_ON)})
    result = set_write_cache(fake_drive("/dev/sdz", "sata"), True, asked=True, runner=runner)
    assert runner.commands == [["hdparm", "-W", "/dev/sdz"]]
    assert (result.supported, result.before, result.after) == (True, True, True)
    assert "already so" in result.detail


def test_a_drive_that_refuses_keeps_its_cache_and_says_so(guarded: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {
            ("hdparm", "-W0"): failed("SG_IO: bad/missing sense data"),
            ("hdparm", "-W"): ok(HDPARM_ON),
        }
    )
    result = set_write_cache(fake_drive("/dev/sdz", "sata"), False, asked=False, runner=runner)
    assert not result.supported and result.before is True and result.after is True
    assert "refused" in result.detail and "SG_IO" in result.detail


def test_missing_tools_leave_the_cache_unknown(guarded: list[DeviceInfo]) -> None:
    runner = FakeRunner({("nvme",): MISSING})
    result = set_write_cache(fake_drive("/dev/nvme9n1", "nvme"), False, runner=runner)
    assert not result.supported and result.before is None
    assert "nvme is not installed" in result.detail


def test_a_setting_that_does_not_hold_fails_the_step(guarded: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {("hdparm", "-W0"): ok(""), ("hdparm", "-W"): [ok(HDPARM_ON), ok(HDPARM_ON)]}
    )
    with pytest.raises(StepError, match="not as the test needs it"):
        set_write_cache(fake_drive("/dev/sdz", "sata"), False, runner=runner)


def test_loop_devices_and_files_have_no_cache_to_set(
    loop_target: Callable[..., Target], file_target: Callable[..., Target]
) -> None:
    for target in (loop_target(16 * MiB), file_target(16 * MiB)):
        result = set_write_cache(target.info, False, asked=False)
        assert not result.supported and result.method == "none"
        assert "sets no write cache" in result.detail and result.asked is False


# --- putting back what a lost run changed ----------------------------------------------------


def pending(runs: Path, run_id: int, serial: str, *, restored: bool = False) -> Path:
    record = runs / str(run_id) / "write-cache.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps(
            {"supported": True, "method": "nvme-feature-06h", "before": True, "after": False,
             "asked": False, "detail": "", "path": "/dev/nvme9n1", "serial": serial,
             "run_id": run_id, "restored": restored}  # fmt: skip
        )
    )
    return record


def test_a_restarted_worker_puts_back_the_cache_a_lost_run_turned_off(
    guarded: list[DeviceInfo], tmp_path: Path
) -> None:
    drive = dataclasses.replace(fake_drive("/dev/nvme9n1", "nvme"), serial="S-NOW")
    mine = pending(tmp_path, 7, "S-NOW")
    other = pending(tmp_path, 8, "S-GONE")  # another drive is on that path now
    done = pending(tmp_path, 9, "S-NOW", restored=True)  # put back by its run already
    runner = FakeRunner(
        {
            ("nvme", "get-feature"): [ok(NVME_OFF), ok(NVME_ON)],
            ("nvme", "set-feature"): ok("set-feature:0x06, value:1"),
        }
    )
    said = restore_pending(tmp_path, lambda path: drive, runner=runner)
    assert [c[1] for c in runner.commands] == ["get-feature", "set-feature", "get-feature"]
    assert runner.commands[1][-2:] == ["-v", "1"]
    assert said[0].startswith("run 7: write cache of /dev/nvme9n1 (S-NOW) put back")
    assert "run 8: /dev/nvme9n1 now reports serial 'S-NOW', not 'S-GONE'" in said[1]
    assert len(said) == 2
    assert json.loads(mine.read_text())["restored"] is True
    assert json.loads(other.read_text())["restored"] is False
    assert json.loads(done.read_text())["restored"] is True
    # Done once: a second start finds nothing of run 7 to put back.
    runner.commands.clear()
    assert len(restore_pending(tmp_path, lambda path: drive, runner=runner)) == 1
    assert runner.commands == []
