"""The bench's device report: what a reviewer may register on this bench.

Every whole block device (serial, model, firmware, capacity, transport, LBA size, the stable
/dev/disk/by-id and by-path names that lead to it), whether it is the disk the system runs
from or in use (mounted, swap, holders, partitions in use: the interlock's own rules,
`safety.refusals`),
whether it is simulated (a loop device) or emulated (a virtual machine's controller), and the
files in the sandbox with their serials. The worker posts it with its hello when it starts and
whenever it changes (main._report_loop); the api keeps the latest one per bench and registers
drives only from it.

Only reads /sys, /proc, /dev/disk/by-id and the sandbox's directory entries, like devices.py.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

from worker import devices, safety
from worker.devices import SYSFS, UDEV

log = logging.getLogger("drivelab.worker.report")

BY_ID = Path("/dev/disk/by-id")
BY_PATH = Path("/dev/disk/by-path")
DMI_VENDOR = Path("/sys/class/dmi/id/sys_vendor")
# Files listed from the sandbox at most, in name order (a report stays small).
MAX_FILES = 200
# Models of QEMU's emulated controllers (NVMe "QEMU NVMe Ctrl", ATA "QEMU HARDDISK").
_EMULATED_MODELS = ("QEMU",)


def _links(directories: tuple[Path, ...] = (BY_ID, BY_PATH)) -> dict[str, list[str]]:
    """Kernel name -> the stable names (/dev/disk/by-id/..., by-path/...) that lead to it."""
    found: dict[str, list[str]] = {}
    for directory in directories:
        try:
            entries = sorted(os.listdir(directory))
        except OSError:
            continue
        for entry in entries:
            link = directory / entry
            try:
                st = os.stat(link)  # a symlink's device, or a device node's own
            except OSError:
                continue
            if not stat.S_ISBLK(st.st_mode):
                continue
            name = devices.name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)))
            if name is not None:
                found.setdefault(name, []).append(str(link))
    return found


def machine_is_virtual(dmi_vendor: Path = DMI_VENDOR) -> bool:
    """This bench is a QEMU guest (a virtual bench): its drives are emulated controllers."""
    try:
        return dmi_vendor.read_text().strip().upper().startswith("QEMU")
    except OSError:
        return False


def block_entry(
    info: devices.DeviceInfo, links: list[str], *, view: safety.SystemView, virtual: bool
) -> dict[str, Any]:
    system, in_use = safety.refusals(info, view)
    simulated = info.transport == "loop"
    emulated = not simulated and (
        virtual or (info.model or "").upper().startswith(_EMULATED_MODELS)
    )
    return {
        **info.as_dict(),
        "links": links,
        "system": system,
        "in_use": in_use,
        "simulated": simulated,
        "emulated": emulated,
    }


def _key(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def file_entries(sandbox: Path, *, sysfs: Path = SYSFS) -> list[dict[str, Any]]:
    """The regular files in the sandbox (symlinks are not followed), as simulated drives."""
    entries: list[dict[str, Any]] = []
    swaps = {_key(p): p for p in devices.swaps()}
    loops: dict[tuple[int, int] | None, list[str]] = {}
    for name in os.listdir(sysfs / "block"):
        backing = devices.loop_backing_file(name, sysfs) if name.startswith("loop") else None
        if backing and not backing.endswith(" (deleted)"):
            loops.setdefault(_key(backing), []).append(name)
    swaps.pop(None, None)
    loops.pop(None, None)
    for root, dirs, files in os.walk(sandbox):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if len(entries) >= MAX_FILES:
                return entries  # the first MAX_FILES, in name order
            info = devices.identify_file(path)
            key = (st.st_dev, st.st_ino)
            in_use = [f"it is the backing file of /dev/{n}" for n in sorted(loops.get(key, []))]
            if key in swaps:
                in_use.append(f"it is in use as a swap file ({swaps[key]})")
            if st.st_nlink > 1:
                in_use.append(f"it has {st.st_nlink} names (hard links)")
            entries.append(
                {
                    **info.as_dict(),
                    "links": [],
                    "system": None,
                    "in_use": in_use,
                    "simulated": True,
                    "emulated": False,
                }
            )
    return entries


def _read(path: Path | str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _listdir(path: Path | str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def signature(sandbox: Path, *, sysfs: Path = SYSFS, proc: Path = Path("/proc")) -> int:
    """A cheap fingerprint of what the report depends on (which block devices exist, what
    loop devices are attached to, their partitions and holders, mounts, swaps, the by-id and
    by-path names, the sandbox's files): the report is computed again when it changes."""
    parts: list[object] = [_read(proc / "self" / "mountinfo"), _read(proc / "swaps")]
    for name in _listdir(sysfs / "block"):
        parts += [
            name,
            _listdir(sysfs / "block" / name),
            _listdir(sysfs / "block" / name / "holders"),
        ]
        if name.startswith("loop"):
            parts.append(_read(sysfs / "block" / name / "loop" / "backing_file"))
    for directory in (BY_ID, BY_PATH):
        for entry in _listdir(directory):
            try:
                st = os.stat(directory / entry)
            except OSError:
                continue
            parts.append((entry, st.st_ino, st.st_rdev))
    for root, dirs, files in os.walk(sandbox):
        dirs.sort()
        for name in sorted(files):
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            parts.append((root, name, st.st_ino, st.st_size, st.st_nlink, st.st_mode))
    return hash(repr(parts))


def device_report(
    sandbox: Path, data_dir: Path, *, sysfs: Path = SYSFS, udev: Path = UDEV
) -> list[dict[str, Any]]:
    """Block devices, then sandbox files: one JSON-ready dict each."""
    links = _links()
    virtual = machine_is_virtual()
    view = safety.system_view(data_dir, sysfs=sysfs, udev=udev)
    report = [
        block_entry(info, links.get(info.name, []), view=view, virtual=virtual)
        for info in devices.list_block_devices(sysfs=sysfs, udev=udev)
    ]
    if sandbox.is_dir():
        report += file_entries(sandbox, sysfs=sysfs)
    return report
