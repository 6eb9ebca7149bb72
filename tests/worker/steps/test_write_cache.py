"""The volatile write cache for the SNIA PTS profiles: NVMe feature 06h and hdparm -W with fake
runners (this machine has neither kind of drive), and real loop devices and files, which have
none to set."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest

from tests.worker.steps.conftest import MiB, Target
from tests.worker.steps.test_purge import MISSING, FakeRunner, failed, fake_drive, ok
from worker.devices import DeviceInfo
from worker.steps import StepError
from worker.steps.write_cache import parse_hdparm, parse_nvme_feature, set_write_cache

write_cache_module = importlib.import_module("worker.steps.write_cache")


@pytest.fixture
def guarded(monkeypatch: pytest.MonkeyPatch) -> list[DeviceInfo]:
    """The fake drives' paths do not exist: record the system-disk check instead of running it
    (the loop and file test below runs it for real)."""
    calls: list[DeviceInfo] = []
    monkeypatch.setattr(write_cache_module, "refuse_system_disk", calls.append)
    return calls


NVME_ON = "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n"
NVME_OFF = "get-feature:0x06 (Volatile Write Cache), Current value:0x00000000\n"
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
    assert runner.commands[1] == ["nvme", "set-feature", "/dev/nvme9n1", "-f", "6", "-v", "0"]
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
