"""What a run records about its drive: write fingerprints on real files and loop devices, and
SMART parsing from canned smartctl output (this machine has no drive smartctl can read)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from worker import devices, driveinfo
from worker.devices import DeviceInfo
from worker.driveinfo import unchanged_since, write_fingerprint

MiB = 1 << 20


def pwrite(path: str | Path, offset: int, data: bytes, *, sync: bool = True) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, data, offset)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


@pytest.fixture
def sim_file(tmp_path: Path) -> DeviceInfo:
    path = tmp_path / "sim.img"
    with open(path, "wb") as f:
        f.truncate(16 * MiB)
    return devices.identify(path)


@pytest.fixture
def loop(host: Any) -> DeviceInfo:
    return devices.identify(host.attach(host.sparse_file("drive.img", 16 * MiB)))


# --- write fingerprints ----------------------------------------------------------------------


def test_file_fingerprint_is_stable_without_writes(sim_file: DeviceInfo) -> None:
    before = write_fingerprint(sim_file)
    assert before["kind"] == "file"
    assert {"size", "mtime_ns", "ctime_ns"} <= before.keys()
    assert before["size"] == 16 * MiB
    with open(sim_file.path, "rb") as f:
        f.read(MiB)  # reading is not writing
    assert unchanged_since(before, write_fingerprint(sim_file))


def test_file_fingerprint_changes_after_every_write(sim_file: DeviceInfo) -> None:
    """Even writes that follow each other within one tick of the filesystem's clock."""
    for i in range(20):
        before = write_fingerprint(sim_file)
        pwrite(sim_file.path, i * 4096, b"x", sync=False)
        assert not unchanged_since(before, write_fingerprint(sim_file)), f"write {i} missed"


def test_file_fingerprint_changes_when_the_file_is_replaced(sim_file: DeviceInfo) -> None:
    before = write_fingerprint(sim_file)
    replacement = sim_file.path + ".new"
    with open(replacement, "wb") as f:
        f.truncate(16 * MiB)
    os.utime(replacement, ns=(before["mtime_ns"], before["mtime_ns"]))
    os.replace(replacement, sim_file.path)
    assert not unchanged_since(before, write_fingerprint(sim_file))


def test_loop_fingerprint_is_stable_without_writes(loop: DeviceInfo) -> None:
    before = write_fingerprint(loop)
    assert before["kind"] == "loop"
    assert before["flushed"] is True
    assert before["backing"]["size"] == 16 * MiB
    with open(loop.path, "rb") as f:
        f.read(MiB)
    after = write_fingerprint(loop)
    assert after["io"] == before["io"]
    assert unchanged_since(before, after)


def test_loop_fingerprint_changes_after_a_write_through_the_device(loop: DeviceInfo) -> None:
    before = write_fingerprint(loop)
    pwrite(loop.path, 3 * MiB, b"\x5a" * 8192)
    after = write_fingerprint(loop)
    assert after["io"]["write_sectors"] >= before["io"]["write_sectors"] + 16
    assert after["backing"]["mtime_ns"] > before["backing"]["mtime_ns"]
    assert not unchanged_since(before, after)


def test_loop_fingerprint_counts_writes_still_in_the_page_cache(loop: DeviceInfo) -> None:
    """A buffered write that nobody synced is flushed by the fingerprint, so it still counts."""
    before = write_fingerprint(loop)
    pwrite(loop.path, 5 * MiB, b"\xa5" * 4096, sync=False)
    after = write_fingerprint(loop)
    assert after["io"]["write_sectors"] > before["io"]["write_sectors"]
    assert not unchanged_since(before, after)


def test_loop_fingerprint_changes_after_a_discard(loop: DeviceInfo) -> None:
    from worker.steps import trim

    pwrite(loop.path, 0, b"\x5a" * MiB)
    before = write_fingerprint(loop)
    trim(loop, 0, MiB)
    after = write_fingerprint(loop)
    assert after["io"]["discard_sectors"] >= before["io"]["discard_sectors"] + MiB // 512
    assert not unchanged_since(before, after)


def test_loop_fingerprint_survives_a_reboot_only_through_its_backing_file(
    loop: DeviceInfo,
) -> None:
    before = write_fingerprint(loop)
    rebooted = before | {"boot_id": "another-boot", "io": {"write_sectors": 0}}
    assert unchanged_since(before, rebooted)  # counters restart; the file did not change
    pwrite(loop.path, 0, b"x" * 4096)
    after = write_fingerprint(loop) | {"boot_id": "another-boot"}
    assert not unchanged_since(before, after)


def block_record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": "block",
        "path": "/dev/nvme0n1",
        "serial": "S1",
        "boot_id": "boot-1",
        "flushed": True,
        "io": {"write_sectors": 800, "discard_sectors": 0},
        "smart_host_writes": {
            "data_units_written": 1000,
            "host_write_commands": 5000,
            "ata_attribute": None,
        },
    }
    return record | changes


@pytest.mark.parametrize(
    ("after", "unchanged"),
    [
        (block_record(), True),
        (block_record(io={"write_sectors": 808, "discard_sectors": 0}), False),
        (block_record(io={"write_sectors": 800, "discard_sectors": 8}), False),
        (block_record(serial="S2"), False),  # another drive under the same name
        (block_record(flushed=False), False),
        (block_record(boot_id="boot-2"), True),  # rebooted: SMART host writes decide
        (
            block_record(
                boot_id="boot-2",
                smart_host_writes={
                    "data_units_written": 1000,
                    "host_write_commands": 5001,
                    "ata_attribute": None,
                },
            ),
            False,
        ),
        (block_record(smart_host_writes=None), False),
        ({"kind": "file", "path": "/dev/nvme0n1"}, False),
    ],
)
def test_unchanged_since_for_drives(after: dict[str, Any], unchanged: bool) -> None:
    assert unchanged_since(block_record(), after) is unchanged


def test_rebooted_drive_without_smart_counts_as_changed() -> None:
    before = block_record(smart_host_writes=None)
    assert unchanged_since(before, block_record(smart_host_writes=None))
    assert not unchanged_since(before, block_record(smart_host_writes=None, boot_id="boot-2"))


# --- SMART, Identify Controller, link speed --------------------------------------------------


def test_no_smart_or_nvme_data_for_loop_devices_and_files(
    loop: DeviceInfo, sim_file: DeviceInfo
) -> None:
    for info in (loop, sim_file):
        assert driveinfo.smart(info) is None
        assert driveinfo.nvme_id_ctrl(info) is None
        assert driveinfo.link_speed(info) is None


def test_drive_record_of_a_loop_device(loop: DeviceInfo) -> None:
    record = driveinfo.drive_record(loop)
    assert record == loop.as_dict() | {
        "smart": None,
        "nvme_id_ctrl": None,
        "link_speed": None,
        "hwmon_temperature_c": None,
        # A plain loop device has no sensor: said (source None), never a temperature of 0.
        "thermal": {"source": None, "sensors": [], "thresholds": None},
    }


def fake_drive(path: str, transport: str) -> DeviceInfo:
    return DeviceInfo(
        path=path,
        kind="block",
        name=Path(path).name,
        model=None,
        serial="S1",
        firmware=None,
        size_bytes=1 << 40,
        logical_sector=512,
        physical_sector=4096,
        rotational=False,
        transport=transport,
        backing_file=None,
        discard_max_bytes=1 << 31,
        scheduler="none",
        partitions=(),
        holders=(),
    )


NVME_SMART = {
    "smartctl": {"version": [7, 3], "exit_status": 0},
    "device": {"name": "/dev/nvme0n1", "type": "nvme", "protocol": "NVMe"},
    "model_name": "Fake NVMe SSD 990",
    "serial_number": "S1",
    "firmware_version": "4B2QJXD7",
    "smart_status": {"passed": True},
    "nvme_smart_health_information_log": {
        "temperature": 41,
        "data_units_written": 2_000_000,
        "host_writes": 123_456,
    },
    "temperature": {"current": 41},
    "power_on_time": {"hours": 321},
}

SATA_SMART = {
    "smartctl": {"version": [7, 3], "exit_status": 0},
    "device": {"name": "/dev/sdz", "type": "sat", "protocol": "ATA"},
    "model_name": "Fake SATA SSD 870",
    "serial_number": "S1",
    "firmware_version": "SVT02B6Q",
    "logical_block_size": 512,
    "interface_speed": {
        "max": {"sata_value": 14, "string": "6.0 Gb/s", "units_per_second": 60},
        "current": {"sata_value": 2, "string": "3.0 Gb/s", "units_per_second": 30},
    },
    "smart_status": {"passed": True},
    "ata_smart_attributes": {
        "table": [
            {"id": 9, "name": "Power_On_Hours", "raw": {"value": 1000}},
            {"id": 241, "name": "Total_LBAs_Written", "raw": {"value": 4_000_000}},
        ]
    },
    "temperature": {"current": 33},
    "power_on_time": {"hours": 1000},
}


def test_smart_summary_of_an_nvme_drive(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def run_json(cmd: list[str]) -> dict[str, Any] | None:
        calls.append(cmd)
        return NVME_SMART if cmd[0] == "smartctl" else {"mn": "Fake NVMe SSD 990 ", "fr": "4B2"}

    monkeypatch.setattr(driveinfo, "_run_json", run_json)
    drive = fake_drive("/dev/nvme0n1", "nvme")
    data = driveinfo.smart(drive)
    assert calls == [["smartctl", "--json", "-a", "/dev/nvme0n1"]]
    assert data is not None
    assert data["temperature_c"] == 41
    assert data["data_written_bytes"] == 2_000_000 * 512_000
    assert data["host_writes"]["host_write_commands"] == 123_456
    assert data["smartctl"] is NVME_SMART

    record = driveinfo.drive_record(drive)
    assert ["nvme", "id-ctrl", "/dev/nvme0n1", "-o", "json"] in calls
    assert record["model"] == "Fake NVMe SSD 990"  # sysfs had none: filled in from SMART
    assert record["nvme_id_ctrl"] == {"mn": "Fake NVMe SSD 990 ", "fr": "4B2"}


def test_smart_summary_and_link_speed_of_a_sata_drive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driveinfo, "_run_json", lambda cmd: SATA_SMART)
    drive = fake_drive("/dev/sdz", "sata")
    data = driveinfo.smart(drive)
    assert data is not None
    assert data["temperature_c"] == 33
    assert data["data_written_bytes"] == 4_000_000 * 512
    assert data["host_writes"]["ata_attribute"] == 4_000_000
    assert driveinfo.link_speed(drive) == "3.0 Gb/s (max 6.0 Gb/s)"
    assert driveinfo.nvme_id_ctrl(drive) is None


def test_smart_is_none_when_smartctl_cannot_open_the_drive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failure = {"smartctl": {"exit_status": 2, "messages": [{"string": "Permission denied"}]}}
    monkeypatch.setattr(driveinfo, "_run_json", lambda cmd: failure)
    assert driveinfo.smart(fake_drive("/dev/sdz", "sata")) is None


def test_missing_tools_give_none_not_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    nvme = fake_drive("/dev/nvme0n1", "nvme")
    assert driveinfo.smart(nvme) is None
    assert driveinfo.nvme_id_ctrl(nvme) is None
    sata = dataclasses.replace(nvme, path="/dev/sdz", name="sdz", transport="sata")
    assert driveinfo.link_speed(sata) is None
