"""drivelab's parsers on what the tools really print for a real controller driver: outputs
recorded in the virtual bench's guest (worker/vmbench.py; nvme-cli 2.3 with libnvme 1.3,
smartctl 7.3, hdparm 9.65, Linux 6.1) from QEMU's NVMe controller and AHCI disk, kept in
tests/fixtures/qemu-guest/. tests/e2e/test_vmbench.py runs the same tools live."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.worker.steps.test_purge import FakeRunner, guard_calls, ok  # noqa: F401
from tests.worker.test_driveinfo import fake_drive
from worker import devices, driveinfo
from worker.devices import DeviceInfo
from worker.steps import purge
from worker.steps.purge import parse_ata_security
from worker.steps.write_cache import parse_hdparm, parse_nvme_feature, set_write_cache

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "qemu-guest"
NVME = fake_drive("/dev/nvme0n1", "nvme")
SATA = fake_drive("/dev/sda", "sata")


def recorded(name: str) -> str:
    return (RECORDED / name).read_text()


def test_smartctl_json_of_the_nvme_controller() -> None:
    data = json.loads(recorded("smartctl-nvme.json"))
    summary = driveinfo._summary(data, NVME)
    log = data["nvme_smart_health_information_log"]
    # smartctl gives °C (the controller's 323 K) and numbers; data units of 512,000 bytes.
    assert summary["temperature_c"] == 50 == log["temperature"]
    assert summary["data_written_bytes"] == log["data_units_written"] * 512_000 > 0
    assert summary["host_writes"]["host_write_commands"] == log["host_writes"]
    assert summary["model"] == "QEMU NVMe Ctrl" and summary["serial"] == "DLVM-NVME-0001"
    assert summary["passed"] is True


def test_nvme_cli_smart_log_gives_kelvin_and_counters_as_strings() -> None:
    """nvme-cli 2.x prints the 128-bit counters as strings and the temperature in kelvin: the
    same log as smartctl's above, which drivelab reads instead."""
    nvme = json.loads(recorded("nvme-smart-log.json"))
    smart = json.loads(recorded("smartctl-nvme.json"))["nvme_smart_health_information_log"]
    assert isinstance(nvme["data_units_written"], str)
    assert int(nvme["data_units_written"]) == smart["data_units_written"]
    assert nvme["temperature"] - 273 == smart["temperature"]
    hwmon_c = int(recorded("hwmon-temp1_input.txt")) / 1000
    assert hwmon_c == pytest.approx(nvme["temperature"] - 273.15)


def test_smartctl_json_of_the_sata_disk() -> None:
    summary = driveinfo._summary(json.loads(recorded("smartctl-sata.json")), SATA)
    assert summary["model"] == "QEMU SATA drivelab"
    assert summary["serial"] == "DLVM-SATA-0001" and summary["firmware"] == "2.5+"
    assert summary["temperature_c"] is not None


def test_ata_identify_from_the_vpd_page_gives_the_whole_model(tmp_path: Path) -> None:
    page = bytes(int(b, 16) for b in recorded("vpd_pg89-sata.hex").split())
    (tmp_path / "vpd_pg89").write_bytes(page)
    assert devices.ata_identify(tmp_path) == {
        "serial": "DLVM-SATA-0001",
        "firmware": "2.5+",
        "model": "QEMU SATA drivelab",  # sysfs's INQUIRY model: "QEMU SATA drivel"
    }
    assert devices.ata_identify(tmp_path / "none") == {}


def test_write_cache_readings() -> None:
    assert parse_nvme_feature(recorded("nvme-get-feature-6.txt")) is True
    # Off has no 0x: "Current value:00000000" (printf's %#x of 0).
    assert parse_nvme_feature(recorded("nvme-get-feature-6-off.txt")) is False
    assert parse_hdparm(recorded("hdparm-W-sata.txt")) is True


def test_the_sata_disk_has_no_ata_security_feature_set() -> None:
    assert parse_ata_security(recorded("hdparm-I-sata.txt")) is None


def test_purge_of_the_recorded_controller_formats_with_secure_erase(
    guard_calls: list[DeviceInfo],  # noqa: F811
) -> None:
    ctrl = json.loads(recorded("nvme-id-ctrl.json"))
    assert ctrl["sanicap"] == 0 and ctrl["oacs"] & 0x2 and not ctrl["fna"] & 0x1
    runner = FakeRunner(
        {("nvme", "id-ctrl"): ok(recorded("nvme-id-ctrl.json")), ("nvme", "format"): ok()}
    )
    result = purge(NVME, runner=runner)
    assert result.method == "nvme-format-ses1"
    assert runner.commands[-1] == ["nvme", "format", "/dev/nvme0n1", "--ses=1", "--force"]


def test_write_cache_off_on_the_recorded_controller(monkeypatch: pytest.MonkeyPatch) -> None:
    replies = [recorded("nvme-get-feature-6.txt"), recorded("nvme-get-feature-6-off.txt")]
    commands: list[list[str]] = []

    def runner(cmd: list[str]) -> subprocess.CompletedProcess[str]:
        commands.append(cmd)
        out = replies.pop(0) if cmd[1] == "get-feature" else ""
        return subprocess.CompletedProcess(cmd, 0, out, "")

    monkeypatch.setattr("worker.steps.write_cache.refuse_system_disk", lambda info: None)
    result = set_write_cache(NVME, False, asked=False, runner=runner)
    assert (result.before, result.after, result.method) == (True, False, "nvme-feature-06h")
    # The broadcast NSID: with nsid 1 QEMU's controller refused it, "Feature Identifier not
    # namespace specific (0x410f)".
    assert commands[1] == [
        "nvme", "set-feature", "/dev/nvme0n1", "-f", "6", "--namespace-id", "4294967295", "-v", "0"
    ]  # fmt: skip


def test_qemus_drives_are_known_as_emulated(tmp_path: Path) -> None:
    import dataclasses

    sysfs = tmp_path / "sys"
    ctrl = sysfs / "class" / "block" / "nvme0n1" / "device" / "device"
    ctrl.mkdir(parents=True)
    (ctrl / "vendor").write_text("0x1b36\n")  # the PCI vendor of QEMU's NVMe controller
    nvme = dataclasses.replace(NVME, model="Some NVMe")
    assert devices.emulated(nvme, sysfs=sysfs)
    (ctrl / "vendor").write_text("0x144d\n")  # Samsung
    assert not devices.emulated(nvme, sysfs=sysfs)
    assert devices.emulated(dataclasses.replace(SATA, model="QEMU SATA drivelab"), sysfs=sysfs)
