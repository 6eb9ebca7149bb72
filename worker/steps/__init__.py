"""Steps a plan runs besides fio: purge, TRIM and idle (METHODS.md, plans 3, 5, 6, 7, SNIA PTS).

Every function here that erases or discards takes the `DeviceInfo` that the safety interlock
(`worker.safety.check_target`) returned, and refuses on its own, before running anything, when
the target is the disk that holds `/` (`refuse_system_disk`): a second, independent check in
case a caller ever skips or misuses the interlock.
"""

from __future__ import annotations

import os
import stat

from worker import devices
from worker.devices import DeviceInfo


class StepError(Exception):
    """A step could not run or failed; `message` says why in words a reviewer can act on."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StepStopped(StepError):
    """The run was cancelled or the worker is stopping while the step was running."""


def block_name_of(path: str) -> str | None:
    """Kernel name of the block device node at `path`, None when it is not one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    return devices.name_of_devno((os.major(st.st_rdev), os.minor(st.st_rdev)))


def _closure(names: set[str], *, upward: bool) -> set[str]:
    """Block devices related to `names`: a disk and its partitions (parent disk when `upward`,
    partitions otherwise), dm/md members, and the device behind a loop device, which is the
    device node it is attached to or, for a regular backing file, the device holding the file
    when `upward` (what the file's contents depend on)."""
    seen: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending.extend(devices.slaves(name))
        if upward:
            parent = devices.parent_disk(name)
            if parent:
                pending.append(parent)
        else:
            pending.extend(devices.partitions(name))
            parent = devices.parent_disk(name)  # writing a partition writes its disk
            if parent:
                pending.append(parent)
        backing = devices.loop_backing_file(name)
        if backing:
            backing = backing.removesuffix(" (deleted)")
            node = block_name_of(backing)
            if node:
                pending.append(node)
            elif upward:
                mount = devices.mount_of(backing)
                if mount:
                    pending.extend(devices.block_names_of_mount(mount))
    return seen


def root_devices() -> set[str]:
    """Every block device the root filesystem depends on (empty when `/` is not on one, as in
    a container on overlayfs)."""
    mount = devices.mount_of("/")
    if mount is None:
        return set()
    return _closure(set(devices.block_names_of_mount(mount)), upward=True)


def refuse_system_disk(info: DeviceInfo) -> None:
    """Raise StepError when erasing or discarding `info` could change the disk behind `/`.

    Files are checked to still be regular files. For block devices the device is looked up
    again from its path, so a stale or hand-made DeviceInfo whose name and path disagree is
    judged by both. Reads /proc and /sys only.
    """
    if info.kind != "block":
        try:
            mode = os.stat(info.path).st_mode
        except OSError as exc:
            raise StepError(f"cannot use {info.path}: {exc.strerror}") from None
        if not stat.S_ISREG(mode):
            raise StepError(f"refusing to erase {info.path}: it is no longer a regular file")
        return
    node = block_name_of(info.path)
    if node is None:
        raise StepError(f"refusing to erase {info.path}: it is not a block device any more")
    written = _closure({info.name, node}, upward=False)
    hit = sorted(written & root_devices())
    if hit:
        raise StepError(
            f"refusing to erase {info.path}: writing it changes {', '.join(hit)}, which the "
            "root filesystem / lives on (this is the machine's system disk)"
        )


# The step functions import StepError from this module, so they are imported after it is
# defined.
from worker.steps.idle import idle  # noqa: E402
from worker.steps.purge import PurgeResult, purge  # noqa: E402
from worker.steps.trim import TrimResult, trim  # noqa: E402

__all__ = [
    "PurgeResult",
    "StepError",
    "StepStopped",
    "TrimResult",
    "block_name_of",
    "idle",
    "purge",
    "refuse_system_disk",
    "root_devices",
    "trim",
]
