"""What every run records about the drive (METHODS.md, "What every run records").

SMART (smartctl), NVMe Identify Controller (nvme-cli), the link speed, and a write fingerprint:
a small record that changes whenever anything writes to the target, so the api can tell
whether a drive is still in the state a run left it in (purged, filled, tortured).

Nothing here writes to the target or raises for a missing tool or an unreadable attribute:
what cannot be read is None.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from worker import devices
from worker.devices import DeviceInfo
from worker.temperature import drive_thermal

_TIMEOUT_S = 30.0
NVME_DATA_UNIT = 512_000  # an NVMe "data unit" is 1000 512-byte units
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
# Filesystem timestamps come from a clock that ticks every few milliseconds, so two writes in
# one tick can leave the same ctime. A fingerprint taken within this long of the last change
# waits it out, so any later write gets a later ctime.
_CLOCK_TICK_NS = 20_000_000


def _run_json(cmd: list[str]) -> dict[str, Any] | None:
    """Run a tool that prints JSON; None when it is missing, hangs or prints no JSON object.

    smartctl's exit status is a bit mask that is non-zero for healthy drives with logged
    errors, so the output is parsed whatever the status.
    """
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    try:
        data = json.loads(done.stdout)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _is_drive(info: DeviceInfo) -> bool:
    """A physical drive (not a file, loop device or RAM disk): one that has SMART."""
    return info.kind == "block" and info.transport not in ("loop", "file")


# --- SMART -----------------------------------------------------------------------------------


def _ata_attribute(data: dict[str, Any], *ids: int) -> dict[str, Any] | None:
    table = (data.get("ata_smart_attributes") or {}).get("table") or []
    return next((row for row in table if row.get("id") in ids), None)


def _ata_bytes_written(data: dict[str, Any], sector: int) -> int | None:
    """Host writes from ATA attribute 241 (or 246), whose unit depends on its vendor name."""
    row = _ata_attribute(data, 241, 246)
    if row is None:
        return None
    raw = (row.get("raw") or {}).get("value")
    if not isinstance(raw, int):
        return None
    name = str(row.get("name", "")).lower()
    match = re.search(r"(\d+)\s*mib", name)
    if match:
        return raw * int(match.group(1)) * (1 << 20)
    if "gib" in name or name.endswith("_gb"):
        return raw * (1 << 30)
    if "lba" in name or "sector" in name:
        return raw * sector
    return None


def _summary(data: dict[str, Any], info: DeviceInfo) -> dict[str, Any]:
    """The fields a review reports, lifted out of smartctl's JSON."""
    nvme = data.get("nvme_smart_health_information_log") or {}
    temperature = (data.get("temperature") or {}).get("current", nvme.get("temperature"))
    units = nvme.get("data_units_written")
    sector = (data.get("logical_block_size") or info.logical_sector) or 512
    row = _ata_attribute(data, 241, 246)
    return {
        "model": data.get("model_name"),
        "serial": data.get("serial_number"),
        "firmware": data.get("firmware_version"),
        "passed": (data.get("smart_status") or {}).get("passed"),
        "temperature_c": temperature,
        "power_on_hours": (data.get("power_on_time") or {}).get("hours"),
        "data_written_bytes": (
            units * NVME_DATA_UNIT if isinstance(units, int) else _ata_bytes_written(data, sector)
        ),
        # Raw counters for comparing before and after: NVMe counts every write command.
        "host_writes": {
            "data_units_written": units,
            "host_write_commands": nvme.get("host_writes"),
            "ata_attribute": (row.get("raw") or {}).get("value") if row else None,
        },
    }


def smart(info: DeviceInfo) -> dict[str, Any] | None:
    """`smartctl --json -a DEV`: a summary (temperature, data written, ...) and the full output
    under "smartctl"; None for files and loop devices, or when smartctl is missing or fails."""
    if not _is_drive(info):
        return None
    data = _run_json(["smartctl", "--json", "-a", info.path])
    # Exit status bits 0 and 1: bad command line, or the device could not be opened.
    if data is None or (data.get("smartctl") or {}).get("exit_status", 0) & 0b11:
        return None
    return {**_summary(data, info), "smartctl": data}


def nvme_id_ctrl(info: DeviceInfo) -> dict[str, Any] | None:
    """`nvme id-ctrl DEV -o json` for NVMe drives; None otherwise or when nvme-cli is missing."""
    if info.kind != "block" or info.transport != "nvme":
        return None
    return _run_json(["nvme", "id-ctrl", info.path, "-o", "json"])


# --- link speed ------------------------------------------------------------------------------


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def _pcie_link(info: DeviceInfo) -> str | None:
    """'8.0 GT/s PCIe x4' from the PCI function of the namespace's controller."""
    block = devices.block_dir(info.name)
    candidates = [block / "device" / "device"]  # namespace -> controller -> PCI function
    match = re.match(r"(nvme\d+)", info.name)
    if match:  # with native multipath the namespace hangs off its subsystem instead
        candidates.append(devices.SYSFS / "class" / "nvme" / match.group(1) / "device")
    for directory in candidates:
        speed = _read(directory / "current_link_speed")
        if speed:
            width = _read(directory / "current_link_width")
            return f"{speed} x{width}" if width else speed
    return None


def _sata_link(smart_data: dict[str, Any] | None) -> str | None:
    if not smart_data:
        return None
    speed = (smart_data.get("smartctl") or {}).get("interface_speed") or {}
    current = (speed.get("current") or {}).get("string")
    maximum = (speed.get("max") or {}).get("string")
    if current and maximum and current != maximum:
        return f"{current} (max {maximum})"
    return current or maximum


def _link_speed(info: DeviceInfo, smart_data: dict[str, Any] | None) -> str | None:
    if info.kind != "block":
        return None
    if info.transport == "nvme":
        return _pcie_link(info)
    return _sata_link(smart_data)


def link_speed(info: DeviceInfo) -> str | None:
    """NVMe: PCIe speed and width from sysfs; SATA and others: smartctl's interface speed."""
    if info.kind != "block" or info.transport in ("loop", "file"):
        return None
    return _link_speed(info, None if info.transport == "nvme" else smart(info))


# --- write fingerprint -----------------------------------------------------------------------


def _boot_id() -> str | None:
    return _read(BOOT_ID)


def _file_stamp(path: str) -> dict[str, Any] | None:
    """Identity, size and change times of a file; waits out the timestamp clock's tick first
    when the file changed just now (see _CLOCK_TICK_NS)."""
    try:
        st = os.stat(path)
        wait_ns = st.st_ctime_ns + _CLOCK_TICK_NS - time.time_ns()
        if 0 < wait_ns <= _CLOCK_TICK_NS:  # (a ctime in the future is a clock step: no wait)
            time.sleep(wait_ns / 1e9)
            st = os.stat(path)
    except OSError:
        return None
    return {
        "dev": st.st_dev,
        "ino": st.st_ino,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
    }


def _flush(path: str) -> bool:
    """Write back the device's dirty page cache, so writes still in memory show in its stat
    counters (and, for a loop device, in its backing file). Changes no data."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.fsync(fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _io_counters(name: str) -> dict[str, int] | None:
    """Sectors written and discarded since boot, from /sys/block/X/stat.

    Request counts are left out on purpose: a cache flush (our own fsync included) counts as
    a write request of no sectors, and it changes no data.
    """
    text = _read(devices.block_dir(name) / "stat")
    if text is None:
        return None
    fields = [int(f) for f in text.split()]
    counters = {"write_sectors": fields[6]}
    if len(fields) >= 15:  # discard fields, Linux 4.18+
        counters["discard_sectors"] = fields[13]
    return counters


def write_fingerprint(info: DeviceInfo) -> dict[str, Any]:
    """A record that changes whenever anything writes to the target (see unchanged_since).

    - file: {"kind": "file", "size", "mtime_ns", "ctime_ns", ...};
    - loop device: its backing file's record, plus the device's write and discard counters
      from /sys/block/loopN/stat and the boot id;
    - drive: the device's counters and the boot id, plus SMART host-write counters when
      smartctl can read them.
    Block devices are flushed first (fsync on a read-only descriptor) so that writes still in
    the page cache are counted.
    """
    if info.kind != "block":
        return {"kind": "file", "path": info.path, **(_file_stamp(info.path) or {})}
    flushed = _flush(info.path)
    record: dict[str, Any] = {
        "kind": "loop" if info.transport == "loop" else "block",
        "path": info.path,
        "serial": info.serial,
        "boot_id": _boot_id(),
        "flushed": flushed,
        "io": _io_counters(info.name),
    }
    if info.transport == "loop":
        backing = devices.loop_backing_file(info.name)
        record["backing_file"] = backing
        record["backing"] = _file_stamp(backing) if backing else None
    else:
        data = smart(info)
        record["smart_host_writes"] = data["host_writes"] if data else None
    return record


def _known(values: dict[str, Any] | None) -> bool:
    return values is not None and any(v is not None for v in values.values())


def unchanged_since(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """True only when nothing can have written to the target between the two fingerprints.

    Anything that cannot be compared counts as a change. After a reboot the kernel counters
    start again, so a loop device is judged by its backing file alone and a drive by its SMART
    host-write counters (False when they are not available).
    """
    kind = before.get("kind")
    if kind != after.get("kind") or before.get("path") != after.get("path"):
        return False
    if kind == "file":
        keys = ("dev", "ino", "size", "mtime_ns", "ctime_ns")
        return all(k in before for k in keys) and all(before[k] == after.get(k) for k in keys)
    if before.get("serial") != after.get("serial") or not (
        before.get("flushed") and after.get("flushed")
    ):
        return False
    same_boot = before.get("boot_id") is not None and before.get("boot_id") == after.get("boot_id")
    counters_same = same_boot and before.get("io") is not None and before["io"] == after.get("io")
    if kind == "loop":
        backing_same = (
            before.get("backing") is not None
            and before.get("backing_file") == after.get("backing_file")
            and before["backing"] == after.get("backing")
        )
        return backing_same and (counters_same or not same_boot)
    smart_before, smart_after = before.get("smart_host_writes"), after.get("smart_host_writes")
    smart_same = _known(smart_before) and smart_before == smart_after
    if same_boot:
        return counters_same and (smart_same or not _known(smart_before))
    return smart_same


def hwmon_temperature(info: DeviceInfo) -> float | None:
    """The drive's temperature in °C as the kernel's hwmon shows it (NVMe: the controller's
    Composite Temperature; drivetemp for SATA), or None."""
    if info.kind != "block":
        return None
    directory = devices.block_dir(info.name, devices.SYSFS) / "device"
    match = re.match(r"(nvme\d+)", info.name)
    candidates = [directory]
    if match:
        candidates.append(devices.SYSFS / "class" / "nvme" / match.group(1))
    for base in candidates:
        sensors = [*base.glob("hwmon*/temp1_input"), *base.glob("hwmon/hwmon*/temp1_input")]
        for sensor in sorted(sensors):
            raw = _read(sensor)
            if raw and raw.lstrip("-").isdigit():
                return int(raw) / 1000
    return None


# --- the record ------------------------------------------------------------------------------


def drive_record(info: DeviceInfo) -> dict[str, Any]:
    """Everything a run's environment records about the drive: what the system reports
    (DeviceInfo), SMART, NVMe Identify Controller and the link speed. Model and firmware that
    sysfs does not show are filled in from SMART or Identify Controller."""
    smart_data = smart(info)
    ident = nvme_id_ctrl(info)
    record: dict[str, Any] = info.as_dict()
    for key, smart_key, ident_key in (("model", "model", "mn"), ("firmware", "firmware", "fr")):
        if not record.get(key):
            found = (smart_data or {}).get(smart_key) or (ident or {}).get(ident_key)
            record[key] = found.strip() if isinstance(found, str) else found
    record["smart"] = smart_data
    record["nvme_id_ctrl"] = ident
    record["hwmon_temperature_c"] = hwmon_temperature(info)
    record["thermal"] = drive_thermal(info, ident)
    record["link_speed"] = _link_speed(info, smart_data)
    return record
