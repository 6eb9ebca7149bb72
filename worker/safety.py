"""The safety interlock: the last check before a bench writes to a drive.

A benchmark that writes to the wrong disk destroys someone's data, so `check_target` refuses
unless every rule holds (DESIGN.md, "Safety interlock"). Each refusal names the device and the
rule, so the reviewer knows what to fix. Nothing here opens the target: the checks read /proc,
/sys and `stat` only, so they are safe to run against any device, including the root disk.

The caller must then write to `DeviceInfo.path`, the resolved path that was checked.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from worker import devices
from worker.devices import PROC, SYSFS, UDEV, DeviceInfo, DevNo


class InterlockError(Exception):
    """A rule of the interlock failed; nothing was written.

    `rule` is a short stable key (for the api and tests), `message` a sentence a person can act
    on, naming the device and the rule.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def _refuse(target: str, rule: str, reason: str) -> InterlockError:
    return InterlockError(rule, f"refusing to write {target}: {reason} (rule: {rule})")


@dataclass(frozen=True)
class _Roots:
    """Where to read the system from; tests may point these at a fabricated tree."""

    sysfs: Path = SYSFS
    proc: Path = PROC
    udev: Path = UDEV


# --- what depends on what ------------------------------------------------------------------


def _dependencies(name: str, roots: _Roots) -> set[str]:
    """Every block device whose contents `name` depends on.

    A partition depends on its disk, a dm/md device on its slaves, and a loop device on its
    backing file, hence on the device holding that file (or the device itself when the backing
    "file" is a block device).
    """
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        pending.extend(devices.slaves(current, roots.sysfs))
        parent = devices.parent_disk(current, roots.sysfs)
        if parent:
            pending.append(parent)
        backing = devices.loop_backing_file(current, roots.sysfs)
        if backing:
            pending.extend(_devices_holding(backing, roots))
    return seen


def _devices_holding(path: str, roots: _Roots) -> tuple[str, ...]:
    """The block device a path is (when it is a device node) or lives on (via its mount)."""
    path = path.removesuffix(" (deleted)")
    block = _block_name_of_node(path, roots)
    if block:
        return (block,)
    mount = devices.mount_of(path, roots.proc)
    return devices.block_names_of_mount(mount, roots.sysfs) if mount else ()


def _block_name_of_node(path: str, roots: _Roots) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    return devices.name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)), roots.sysfs)


def _written_by(name: str, roots: _Roots) -> set[str]:
    """Every block device whose blocks a write to `name` can change.

    Writing a disk writes its partitions, writing a dm/md device writes its slaves, and writing
    a loop device whose backing "file" is a block device writes that device. A loop device over
    a regular file writes only that file, so a simulated drive on the root filesystem is fine.
    """
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        pending.extend(devices.partitions(current, roots.sysfs))
        pending.extend(devices.slaves(current, roots.sysfs))
        backing = devices.loop_backing_file(current, roots.sysfs)
        block = _block_name_of_node(backing, roots) if backing else None
        if block:
            pending.append(block)
    return seen


def _members(info: DeviceInfo, roots: _Roots) -> dict[str, DevNo]:
    """The device and its partitions, by name, with their device numbers."""
    names = (info.name, *info.partitions)
    numbers = {name: devices.devno_of(name, roots.sysfs) for name in names}
    return {name: devno for name, devno in numbers.items() if devno is not None}


def _which(info: DeviceInfo, name: str) -> str:
    """'it' for the device itself, 'its partition X' for one of its partitions."""
    return "it" if name == info.name else f"its partition {name}"


# --- the rules, in the order they are checked ----------------------------------------------


def _check_confirmed(
    target: str, destructive: bool, registered_serial: str, confirmed: str | None
) -> None:
    if not destructive:
        return
    if confirmed is None or not confirmed.strip():
        raise _refuse(
            target,
            "not-confirmed",
            f"the plan is destructive and the run carries no confirmation; type the drive's "
            f"serial {registered_serial!r} to confirm",
        )
    if confirmed.strip() != registered_serial:
        raise _refuse(
            target,
            "not-confirmed",
            f"the plan is destructive and the confirmation {confirmed.strip()!r} does not match "
            f"the registered serial {registered_serial!r}",
        )


def _check_registered(target: str, registered_target: str) -> None:
    if os.path.abspath(target) != os.path.abspath(registered_target):
        raise _refuse(
            target,
            "not-registered",
            f"this bench's registered drive is {registered_target}",
        )


def _inside(path: str, directory: str) -> bool:
    return path != directory and Path(path).is_relative_to(directory)


def _check_kind(target: str, sandbox: Path, roots: _Roots) -> str:
    """Return the resolved path if it is a sandboxed regular file or a whole block device.

    A path named inside the sandbox is a file target whatever it points to, so a symlink
    planted in the sandbox cannot redirect a simulated drive onto a real device.
    """
    resolved = os.path.realpath(target)
    try:
        st = os.stat(resolved)
    except OSError:
        raise _refuse(target, "not-whole-device", "it does not exist") from None
    if stat.S_ISREG(st.st_mode) or _inside(os.path.abspath(target), os.path.abspath(sandbox)):
        _check_sandboxed_file(target, resolved, st, sandbox)
    else:
        _check_whole_block_device(target, resolved, roots)
    return resolved


def _check_sandboxed_file(target: str, resolved: str, st: os.stat_result, sandbox: Path) -> None:
    sandbox_real = os.path.realpath(sandbox)
    if not _inside(resolved, sandbox_real):
        where = f"it resolves to {resolved}, which is" if resolved != target else "it is"
        raise _refuse(target, "outside-sandbox", f"{where} outside the sandbox {sandbox_real}")
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(target, "not-whole-device", "it is not a regular file")
    if st.st_nlink > 1:
        # A hard link is the same file under another name, which may be outside the sandbox
        # (a database's file, a disk image): nothing in the path says where its data belongs.
        raise _refuse(
            target,
            "hard-link",
            f"it has {st.st_nlink} names (hard links), so its blocks are also another file's, "
            "possibly one outside the sandbox; give the simulated drive a file of its own",
        )


def _check_whole_block_device(target: str, resolved: str, roots: _Roots) -> None:
    st = os.stat(resolved)
    if not stat.S_ISBLK(st.st_mode):
        kind = "a character device" if stat.S_ISCHR(st.st_mode) else "not a device"
        raise _refuse(
            target,
            "not-whole-device",
            f"it is {kind}; only a whole block device or a file in the sandbox can be tested",
        )
    name = devices.name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)), roots.sysfs)
    if name is None:
        raise _refuse(target, "not-whole-device", f"{resolved} is not a block device in sysfs")
    if devices.is_partition(name, roots.sysfs):
        disk = devices.parent_disk(name, roots.sysfs)
        raise _refuse(
            target, "not-whole-device", f"it is a partition of {disk}, not a whole device"
        )


def _check_not_backing(
    target: str, info: DeviceInfo, directory: Path, rule: str, what: str, roots: _Roots
) -> None:
    """Refuse when writing the target would change a device that `directory` depends on."""
    mount = devices.mount_of(directory, roots.proc)
    if mount is None:
        return
    needed: set[str] = set()
    for name in devices.block_names_of_mount(mount, roots.sysfs):
        needed |= _dependencies(name, roots)
    hit = sorted(_written_by(info.name, roots) & needed)
    if not hit:
        return
    via = "it" if info.name in hit else f"it writes through to {hit[0]}, which"
    raise _refuse(target, rule, f"{via} backs {what} {directory}")


def _check_not_mounted(target: str, info: DeviceInfo, roots: _Roots) -> None:
    members = _members(info, roots)
    by_number = {devno: name for name, devno in members.items()}
    for mount in devices.mountinfo(roots.proc):
        name = by_number.get(mount.devno) or _member_named(mount.source, members, roots)
        if name:
            raise _refuse(
                target, "mounted", f"{_which(info, name)} is mounted at {mount.mount_point}"
            )


def _member_named(path: str, members: dict[str, DevNo], roots: _Roots) -> str | None:
    """The member whose device node `path` is (mount sources, swap entries), if any."""
    if not path.startswith("/"):
        return None
    name = _block_name_of_node(path, roots)
    return name if name in members else None


def _check_not_swap(target: str, info: DeviceInfo, roots: _Roots) -> None:
    members = _members(info, roots)
    for path in devices.swaps(roots.proc):
        name = _member_named(path, members, roots)
        if name:
            raise _refuse(target, "swap", f"{_which(info, name)} is in use as swap ({path})")


def _check_no_holders(target: str, info: DeviceInfo, roots: _Roots) -> None:
    for name in (info.name, *info.partitions):
        users = devices.holders(name, roots.sysfs)
        if users:
            raise _refuse(
                target,
                "holder",
                f"{_which(info, name)} is part of {', '.join(users)} (md, LVM or device-mapper)",
            )


def _check_file_not_swap(target: str, info: DeviceInfo, roots: _Roots) -> None:
    for path in devices.swaps(roots.proc):
        if devices.same_file(path, info.path):
            raise _refuse(target, "swap", f"{info.path} is in use as a swap file")


def _check_file_not_loop_backing(target: str, info: DeviceInfo, roots: _Roots) -> None:
    """A file under an attached loop device is in use by it, like a disk under dm."""
    for name in devices.loops_backed_by(info.path, roots.sysfs):
        raise _refuse(target, "holder", f"it is the backing file of /dev/{name}")


def _check_serial(target: str, info: DeviceInfo, registered_serial: str) -> None:
    if not info.serial:
        raise _refuse(
            target,
            "no-serial",
            "it reports no serial number, so it cannot be matched to the registered drive",
        )
    if info.serial != registered_serial:
        raise _refuse(
            target,
            "serial-mismatch",
            f"it reports serial {info.serial!r} but the registered drive is {registered_serial!r}",
        )


def check_target(
    target: str,
    *,
    registered_target: str,
    registered_serial: str,
    sandbox: Path,
    data_dir: Path,
    destructive: bool,
    confirmed_serial: str | None,
    sysfs: Path = SYSFS,
    proc: Path = PROC,
    udev: Path = UDEV,
) -> DeviceInfo:
    """Check every interlock rule for `target` and return what it is, or raise InterlockError.

    Rules, checked in this order (the first failure is raised): not-confirmed, not-registered,
    outside-sandbox / not-whole-device / hard-link, backs-root, backs-data-dir, mounted, swap,
    holder, no-serial, serial-mismatch. A file target (a simulated drive) must be a regular file
    inside the sandbox after resolving symlinks, with no other name (a hard link); the device
    rules (backs-*, mounted) do not apply to
    it, but it is refused while it is a swap file or the backing file of a loop device.
    """
    roots = _Roots(sysfs=sysfs, proc=proc, udev=udev)
    _check_confirmed(target, destructive, registered_serial, confirmed_serial)
    _check_registered(target, registered_target)
    resolved = _check_kind(target, sandbox, roots)
    info = devices.identify(resolved, sysfs=sysfs, udev=udev)
    if info.kind == "block":
        _check_not_backing(target, info, Path("/"), "backs-root", "the root filesystem", roots)
        _check_not_backing(target, info, data_dir, "backs-data-dir", "the data directory", roots)
        _check_not_mounted(target, info, roots)
        _check_not_swap(target, info, roots)
        _check_no_holders(target, info, roots)
    else:
        _check_file_not_swap(target, info, roots)
        _check_file_not_loop_backing(target, info, roots)
    _check_serial(target, info, registered_serial)
    return info


@dataclass(frozen=True)
class SystemView:
    """What `refusals` compares every device with, read once for a whole device report: the
    devices that the root filesystem and the data directory depend on."""

    needed: tuple[tuple[str, frozenset[str]], ...]  # (what, devices it depends on)
    roots: _Roots


def system_view(
    data_dir: Path, *, sysfs: Path = SYSFS, proc: Path = PROC, udev: Path = UDEV
) -> SystemView:
    roots = _Roots(sysfs=sysfs, proc=proc, udev=udev)
    needed = []
    for directory, what in ((Path("/"), "the root filesystem"), (data_dir, "the data directory")):
        mount = devices.mount_of(directory, roots.proc)
        deps: set[str] = set()
        if mount is not None:
            for name in devices.block_names_of_mount(mount, roots.sysfs):
                deps |= _dependencies(name, roots)
        needed.append((f"{what} {directory}", frozenset(deps)))
    return SystemView(needed=tuple(needed), roots=roots)


def refusals(info: DeviceInfo, view: SystemView) -> tuple[str | None, list[str]]:
    """Why the interlock would refuse this block device whatever is registered: (the reason
    it is the disk the system runs from, or None; the reasons it is in use now). The same
    rules as `check_target` (backs-root, backs-data-dir, mounted, swap, holder), gathered
    instead of stopping at the first, for the bench's device report: registration refuses
    these disks before any run is queued on them."""
    roots = view.roots
    target = info.path
    system: str | None = None
    written = _written_by(info.name, roots)
    for what, needed in view.needed:
        hit = sorted(written & needed)
        if hit and system is None:
            via = "it" if info.name in hit else f"it writes through to {hit[0]}, which"
            system = f"{via} backs {what}"
    in_use: list[str] = []
    for rule in (_check_not_mounted, _check_not_swap, _check_no_holders):
        try:
            rule(target, info, roots)
        except InterlockError as exc:
            in_use.append(exc.message)
    return system, in_use
