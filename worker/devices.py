"""Device identity for bench targets: what a path is, which drive it is, and what uses it.

Everything here only reads: /sys, /proc and /run/udev/data, and `stat` on paths. Nothing opens
a device, so it is safe to call on any disk, including the one backing `/`. The roots of those
trees are parameters so unit tests can point them at a fabricated tree; production code and the
main tests use the real system.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SYSFS = Path("/sys")
PROC = Path("/proc")
UDEV = Path("/run/udev/data")

DevNo = tuple[int, int]

_SKIPPED_PREFIXES = ("ram", "zram")
_DELETED_SUFFIX = " (deleted)"


@dataclass(frozen=True)
class DeviceInfo:
    """What a target is, as reported by the system right now.

    `serial` is the identity the safety interlock compares with the registered drive; see
    `identify` for how it is derived for loop devices and files.
    """

    path: str
    kind: str  # "file" | "block"
    name: str
    model: str | None
    serial: str
    firmware: str | None
    size_bytes: int
    logical_sector: int
    physical_sector: int
    rotational: bool | None
    transport: str | None  # "nvme", "sata", "usb", "virtio", "scsi", "loop", "file" or None
    backing_file: str | None
    discard_max_bytes: int | None
    scheduler: str | None
    partitions: tuple[str, ...]
    holders: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready dict (tuples become lists), for reporting drive info to the api."""
        data = dataclasses.asdict(self)
        data["partitions"] = list(self.partitions)
        data["holders"] = list(self.holders)
        return data


@dataclass(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo, reduced to what the interlock needs."""

    devno: DevNo
    mount_point: str
    fstype: str
    source: str


# --- small readers -------------------------------------------------------------------------


def _read(path: Path) -> str | None:
    """Stripped text of a sysfs/proc attribute, or None when absent or unreadable."""
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _unescape(field: str) -> str:
    """Undo the octal escapes (`\\040` for a space) that /proc uses in paths."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_devno(text: str) -> DevNo:
    """'7:3' -> (7, 3)."""
    major, minor = text.split(":")
    return int(major), int(minor)


def file_serial(prefix: str, st: os.stat_result) -> str:
    """Stable pseudo-serial of a file: changes when the file is recreated (new inode)."""
    digest = hashlib.sha256(f"{st.st_dev}:{st.st_ino}".encode()).hexdigest()
    return f"{prefix}-{digest[:12]}"


# --- /proc -----------------------------------------------------------------------------------


# Times /proc/self/mountinfo is read again when a line of it is not whole.
MOUNTINFO_READS = 5


def mountinfo(proc: Path = PROC) -> list[Mount]:
    """Every mount visible to this process, in mount order (later entries sit on top).

    Read as the kernel writes it: lines end at "\\n", fields are separated by one space, and a
    space, tab, newline or backslash in a path is escaped (\\040). A path may hold any other
    character: U+2028 and U+00A0, which splitlines() and split() cut at, had made a line look
    broken ("'-' is not in list": a mount point holding U+2028, such as a USB stick's label,
    failed every check on the machine). Should a read still come back with a line that is not
    whole, the file is read again; a line that stays broken is an error that names it, never
    skipped: the safety interlock must see every mount."""
    bad = ""
    for _attempt in range(MOUNTINFO_READS):
        text = _read(proc / "self" / "mountinfo") or ""
        mounts = []
        for line in filter(None, text.split("\n")):
            fields = line.split(" ")
            if "-" not in fields[6:] or len(fields) < fields.index("-", 6) + 3:
                bad = line
                break
            sep = fields.index("-", 6)
            mounts.append(
                Mount(
                    devno=parse_devno(fields[2]),
                    mount_point=_unescape(fields[4]),
                    fstype=fields[sep + 1],
                    source=_unescape(fields[sep + 2]),
                )
            )
        else:
            return mounts
    raise OSError(
        f"{proc / 'self' / 'mountinfo'}: a line is not whole after {MOUNTINFO_READS} reads: {bad!r}"
    )


def swaps(proc: Path = PROC) -> list[str]:
    """Paths of active swap areas (block devices or swap files) from /proc/swaps."""
    text = _read(proc / "swaps") or ""
    paths = []
    for line in filter(None, text.split("\n")[1:]):
        path = _unescape(re.split(r"[ \t]+", line)[0])
        paths.append(path.removesuffix(_DELETED_SUFFIX))
    return paths


def mount_of(path: str | os.PathLike[str], proc: Path = PROC) -> Mount | None:
    """The mount that holds `path`: the longest mount point containing it, topmost on ties."""
    resolved = Path(os.path.realpath(path))
    best: Mount | None = None
    for mount in mountinfo(proc):
        if resolved.is_relative_to(mount.mount_point) and (
            best is None or len(mount.mount_point) >= len(best.mount_point)
        ):
            best = mount
    return best


# --- /sys ------------------------------------------------------------------------------------


def block_dir(name: str, sysfs: Path = SYSFS) -> Path:
    """The sysfs directory of a block device or partition, symlinks resolved."""
    return (sysfs / "class" / "block" / name).resolve()


def name_of_devno(devno: DevNo, sysfs: Path = SYSFS) -> str | None:
    """Kernel name ('loop3', 'nvme0n1p2') of a block device number, None if it is not one."""
    link = sysfs / "dev" / "block" / f"{devno[0]}:{devno[1]}"
    return link.resolve().name if link.exists() else None


def devno_of(name: str, sysfs: Path = SYSFS) -> DevNo | None:
    text = _read(block_dir(name, sysfs) / "dev")
    return parse_devno(text) if text else None


def is_partition(name: str, sysfs: Path = SYSFS) -> bool:
    return (block_dir(name, sysfs) / "partition").exists()


def parent_disk(name: str, sysfs: Path = SYSFS) -> str | None:
    """The whole disk a partition belongs to (its parent directory in sysfs)."""
    return block_dir(name, sysfs).parent.name if is_partition(name, sysfs) else None


def partitions(name: str, sysfs: Path = SYSFS) -> tuple[str, ...]:
    directory = block_dir(name, sysfs)
    if not directory.is_dir():
        return ()
    return tuple(sorted(p.name for p in directory.iterdir() if (p / "partition").exists()))


def _listing(directory: Path) -> tuple[str, ...]:
    try:
        return tuple(sorted(os.listdir(directory)))
    except OSError:
        return ()


def holders(name: str, sysfs: Path = SYSFS) -> tuple[str, ...]:
    """Devices built on top of this one (dm, md, bcache...): /sys/class/block/X/holders."""
    return _listing(block_dir(name, sysfs) / "holders")


def slaves(name: str, sysfs: Path = SYSFS) -> tuple[str, ...]:
    """Devices this one is built from (the members of a dm or md device)."""
    return _listing(block_dir(name, sysfs) / "slaves")


def loop_backing_file(name: str, sysfs: Path = SYSFS) -> str | None:
    """Backing file of an attached loop device, None when detached or not a loop device."""
    return _read(block_dir(name, sysfs) / "loop" / "backing_file") or None


def loops_backed_by(path: str, sysfs: Path = SYSFS) -> tuple[str, ...]:
    """Attached loop devices whose backing file is `path` (same inode)."""
    found = []
    for name in _listing(sysfs / "block"):
        backing = loop_backing_file(name, sysfs) if name.startswith("loop") else None
        if backing and not backing.endswith(_DELETED_SUFFIX) and same_file(backing, path):
            found.append(name)
    return tuple(found)


def same_file(a: str, b: str) -> bool:
    """True when both paths name the same inode; False if either is missing."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def block_names_of_mount(mount: Mount, sysfs: Path = SYSFS) -> tuple[str, ...]:
    """The block device a mount lives on: by major:minor, else by its source path.

    The source fallback covers filesystems such as btrfs whose mounts carry an anonymous
    device number.
    """
    name = name_of_devno(mount.devno, sysfs)
    if name is None and mount.source.startswith("/"):
        try:
            st = os.stat(mount.source)
        except OSError:
            return ()
        if stat.S_ISBLK(st.st_mode):
            name = name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)), sysfs)
    return (name,) if name else ()


def _scheduler(name: str, sysfs: Path) -> str | None:
    """The active I/O scheduler: the bracketed entry of queue/scheduler."""
    text = _read(block_dir(name, sysfs) / "queue" / "scheduler")
    if not text:
        return None
    match = re.search(r"\[([^\]]+)\]", text)
    return match.group(1) if match else text.split()[0]


def udev_properties(devno: DevNo, udev: Path = UDEV) -> dict[str, str]:
    """The `E:` properties udev recorded for a block device (empty without udev)."""
    text = _read(udev / f"b{devno[0]}:{devno[1]}") or ""
    props = {}
    for line in text.split("\n"):
        if line.startswith("E:") and "=" in line:
            key, _, value = line[2:].partition("=")
            props[key] = value
    return props


# --- identity --------------------------------------------------------------------------------


def _first(*values: str | None) -> str | None:
    return next((v for v in values if v), None)


def _vpd_serial(device_dir: Path) -> str | None:
    """Unit serial number from SCSI VPD page 0x80 (SATA/SAS/USB disks without udev)."""
    try:
        page = (device_dir / "vpd_pg80").read_bytes()
    except OSError:
        return None
    length = int.from_bytes(page[2:4], "big") if len(page) >= 4 else 0
    return page[4 : 4 + length].decode("ascii", "replace").strip() or None


def _loop_serial(name: str, sysfs: Path) -> str:
    """LOOP- serial from the backing file's inode; "" when the file is gone or unreadable."""
    backing = loop_backing_file(name, sysfs)
    if backing is None or backing.endswith(_DELETED_SUFFIX):
        return ""
    try:
        return file_serial("LOOP", os.stat(backing))
    except OSError:
        return ""


def _hardware_serial(name: str, sysfs: Path, props: dict[str, str]) -> str:
    directory = block_dir(name, sysfs)
    serial = _first(
        _read(directory / "device" / "serial"),  # nvme controller, some virtio/mmc
        props.get("ID_SERIAL_SHORT"),
        _read(directory / "serial"),  # virtio-blk
        _vpd_serial(directory / "device"),
    )
    serial = (serial or "").strip()
    nsid = _read_int(directory / "nsid") if name.startswith("nvme") else None
    if serial and nsid is not None and nsid != 1:
        # The serial is the controller's, the same for each of its namespaces; a namespace
        # other than the first is another target, which must not pass for the registered one.
        return f"{serial}-ns{nsid}"
    return serial


def ata_identify(device_dir: Path) -> dict[str, str]:
    """Serial, model and firmware from the ATA IDENTIFY DEVICE data that libata shows in the
    ATA Information VPD page (0x89), in full: sysfs's `model` is the SCSI INQUIRY's, cut to 16
    characters ("Samsung SSD 870 " for "Samsung SSD 870 EVO 1TB"). {} when there is none."""
    try:
        page = (device_dir / "vpd_pg89").read_bytes()
    except OSError:
        return {}
    data = page[60 : 60 + 512]
    if len(data) < 94:
        return {}

    def text(first_word: int, last_word: int) -> str:
        raw = data[first_word * 2 : (last_word + 1) * 2]
        swapped = b"".join(raw[i + 1 : i + 2] + raw[i : i + 1] for i in range(0, len(raw), 2))
        return swapped.decode("ascii", "replace").strip()

    found = {"serial": text(10, 19), "firmware": text(23, 26), "model": text(27, 46)}
    return {k: v for k, v in found.items() if v}


def _transport(name: str, sysfs: Path, props: dict[str, str]) -> str | None:
    """Bus the drive sits on, which matters for reading results (USB bridges, SATA vs NVMe)."""
    if name.startswith("loop"):
        return "loop"
    if name.startswith("nvme"):
        return "nvme"
    bus = props.get("ID_BUS")
    if bus == "ata":
        return "sata"
    if bus:
        return bus
    device_path = str(block_dir(name, sysfs))
    for marker, transport in (("/usb", "usb"), ("/ata", "sata"), ("/virtio", "virtio")):
        if marker in device_path:
            return transport
    return "scsi" if "/host" in device_path else None


def _rotational(name: str, sysfs: Path) -> bool | None:
    value = _read_int(block_dir(name, sysfs) / "queue" / "rotational")
    return None if value is None else value == 1


def identify_block(
    name: str, path: str | None = None, *, sysfs: Path = SYSFS, udev: Path = UDEV
) -> DeviceInfo:
    """DeviceInfo of a whole block device named as in /sys/class/block."""
    directory = block_dir(name, sysfs)
    devno = devno_of(name, sysfs)
    props = udev_properties(devno, udev) if devno else {}
    backing = loop_backing_file(name, sysfs)
    is_loop = name.startswith("loop")
    device = directory / "device"
    queue = directory / "queue"
    ata = {} if is_loop else ata_identify(device)
    return DeviceInfo(
        path=path or "/dev/" + name.replace("!", "/"),
        kind="block",
        name=name,
        model=_first(ata.get("model"), _read(device / "model"), props.get("ID_MODEL")),
        serial=_loop_serial(name, sysfs) if is_loop else _hardware_serial(name, sysfs, props),
        firmware=_first(
            ata.get("firmware"),
            _read(device / "firmware_rev"),
            _read(device / "rev"),
            props.get("ID_REVISION"),
        ),
        size_bytes=(_read_int(directory / "size") or 0) * 512,  # sysfs counts 512 B sectors
        logical_sector=_read_int(queue / "logical_block_size") or 512,
        physical_sector=_read_int(queue / "physical_block_size") or 512,
        rotational=_rotational(name, sysfs),
        transport=_transport(name, sysfs, props),
        backing_file=backing,
        discard_max_bytes=_read_int(queue / "discard_max_bytes"),
        scheduler=_scheduler(name, sysfs),
        partitions=partitions(name, sysfs),
        holders=holders(name, sysfs),
    )


def identify_file(path: str) -> DeviceInfo:
    """DeviceInfo of a regular file used as a simulated drive."""
    st = os.stat(path)
    return DeviceInfo(
        path=path,
        kind="file",
        name=os.path.basename(path),
        model=None,
        serial=file_serial("SIM", st),
        firmware=None,
        size_bytes=st.st_size,
        logical_sector=512,  # O_DIRECT on common filesystems accepts 512 B alignment
        physical_sector=st.st_blksize,
        rotational=None,
        transport="file",
        backing_file=None,
        discard_max_bytes=None,
        scheduler=None,
        partitions=(),
        holders=(),
    )


def identify(path: str | os.PathLike[str], *, sysfs: Path = SYSFS, udev: Path = UDEV) -> DeviceInfo:
    """Identify a regular file or a whole block device (symlinks are resolved first).

    Serial rules, which the safety interlock relies on:
    - real drives report their own serial (sysfs, udev ID_SERIAL_SHORT, or SCSI VPD page 0x80),
      whitespace stripped; an NVMe namespace other than nsid 1 reports its controller's serial
      followed by "-ns" and its nsid (the controller's serial alone cannot tell the namespaces
      of one controller apart);
    - loop devices have none, so theirs is "LOOP-" + the first 12 hex digits of
      sha256(f"{st_dev}:{st_ino}") of the backing file;
    - regular files (simulated drives) get "SIM-" + the same digest of the file itself.
    Recreating a backing file or simulated drive normally gives it a new inode and so a new
    serial, and the interlock then refuses it until it is registered again. That is intended:
    it is a different "drive". Caveat: the digest sees only the inode number, and ext4 (among
    others) hands a freed number to the next file created, so deleting and at once recreating a
    file in the same directory can keep the old serial. Re-attaching a loop device to any other
    existing file always changes it, which is the case that protects real data.
    A device with no readable serial (or a loop device whose backing file was deleted) gets "",
    which the interlock refuses with its own message.

    Raises ValueError for anything else (partitions, character devices, directories) and
    OSError when the path does not exist.
    """
    resolved = os.path.realpath(path)
    st = os.stat(resolved)
    if stat.S_ISREG(st.st_mode):
        return identify_file(resolved)
    if not stat.S_ISBLK(st.st_mode):
        raise ValueError(f"{resolved} is neither a regular file nor a block device")
    name = name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)), sysfs)
    if name is None:
        raise ValueError(f"{resolved} has no entry in {sysfs}/dev/block")
    if is_partition(name, sysfs):
        raise ValueError(f"{resolved} is a partition, not a whole device")
    return identify_block(name, resolved, sysfs=sysfs, udev=udev)


def _listed(name: str, sysfs: Path) -> bool:
    if name.startswith(_SKIPPED_PREFIXES):
        return False
    return not name.startswith("loop") or loop_backing_file(name, sysfs) is not None


QEMU_PCI_VENDOR = "0x1b36"  # Red Hat, Inc.: QEMU's emulated PCI devices (its NVMe controller)


def emulated(info: DeviceInfo, *, sysfs: Path = SYSFS) -> bool:
    """Whether the drive is one a virtual machine emulates (QEMU's NVMe controller, its ATA
    disks): results from it tell nothing of a drive's performance and are labelled so."""
    if info.kind != "block":
        return False
    if info.model and info.model.startswith("QEMU"):
        return True
    device = block_dir(info.name, sysfs) / "device"
    return any(
        _read(p) == QEMU_PCI_VENDOR for p in (device / "device" / "vendor", device / "vendor")
    )


def list_block_devices(*, sysfs: Path = SYSFS, udev: Path = UDEV) -> list[DeviceInfo]:
    """Whole disks a reviewer may pick a target from: /sys/block minus RAM disks and unused
    loop devices. The list includes the root disk on purpose; the interlock refuses it."""
    names: Iterable[str] = _listing(sysfs / "block")
    return [identify_block(n, sysfs=sysfs, udev=udev) for n in names if _listed(n, sysfs)]
