"""TRIM part of the target and time it (METHODS.md, plans 6 and 7: the "TRIM rate").

Block devices get the BLKDISCARD ioctl, the call `blkdiscard -o OFF -l LEN DEV` makes; files
(simulated drives) get a hole punched with fallocate(2), which is what a loop device does to
its backing file when it receives a discard. Only the discard call itself is timed.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import math
import os
import stat
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from worker import devices
from worker.devices import DeviceInfo
from worker.steps import StepError, block_name_of, refuse_system_disk

BLKDISCARD = 0x1277  # _IO(0x12, 119) in linux/fs.h; argument: u64 start, u64 length in bytes
FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02

# Discards (offset, length) bytes of a block device; returns the seconds the call took.
Discard = Callable[[int, int], float]

_libc = ctypes.CDLL(None, use_errno=True)
_fallocate = _libc.fallocate
_fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
_fallocate.restype = ctypes.c_int


@dataclass(frozen=True)
class TrimResult:
    """The byte range actually discarded (after alignment), how long it took, and how."""

    offset: int
    length: int
    seconds: float
    method: str  # "blkdiscard" | "file-punch"

    @property
    def gbps(self) -> float:
        """The TRIM rate in decimal GB/s."""
        return self.length / max(self.seconds, 1e-9) / 1e9

    def as_dict(self) -> dict[str, object]:
        return {
            "offset": self.offset,
            "length": self.length,
            "seconds": self.seconds,
            "method": self.method,
            "gbps": self.gbps,
        }


@dataclass(frozen=True)
class _Geometry:
    size: int
    unit: int  # discards are aligned to this: discard granularity and logical sector
    discard_max_bytes: int | None  # None for files


def _sys_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _geometry(info: DeviceInfo) -> _Geometry:
    """Size and alignment of the target as the system reports them now (not from `info`,
    which may be older than the last resize or re-attach)."""
    if info.kind != "block":
        st = os.stat(info.path)
        # A hole is only deallocated in whole filesystem blocks, like a drive's granules.
        return _Geometry(size=st.st_size, unit=max(st.st_blksize, 512), discard_max_bytes=None)
    name = block_name_of(info.path)
    if name is None:
        raise StepError(f"cannot TRIM {info.path}: it is not a block device any more")
    queue = devices.block_dir(name) / "queue"
    sectors = _sys_int(devices.block_dir(name) / "size")
    sector = _sys_int(queue / "logical_block_size") or info.logical_sector or 512
    granularity = _sys_int(queue / "discard_granularity") or 0
    unit = math.lcm(sector, granularity) if granularity else sector
    size = sectors * 512 if sectors is not None else info.size_bytes
    return _Geometry(size=size, unit=unit, discard_max_bytes=_sys_int(queue / "discard_max_bytes"))


def _describe_size(size: int) -> str:
    return f"{size} bytes ({size / 1e9:.3f} GB)"


def _align(path: str, geometry: _Geometry, offset: int, length: int | None) -> tuple[int, int]:
    """The part of [offset, offset+length) that can be discarded whole, as (offset, length).

    The range shrinks inward to the alignment unit, so nothing outside the request is ever
    discarded; a range that reaches the end of the target keeps its last, partial unit (the
    size of a block device is a whole number of logical sectors). Raises StepError when the
    range is outside the target or no whole unit of it is left.
    """
    size, unit = geometry.size, geometry.unit
    if length is None:
        length = size - offset
    if offset < 0 or length <= 0 or offset + length > size:
        raise StepError(
            f"cannot TRIM {length} bytes at offset {offset} of {path}: the range must lie "
            f"inside the target, which is {_describe_size(size)}"
        )
    end = offset + length
    start = -(-offset // unit) * unit
    if end != size:
        end = end // unit * unit
    if end <= start:
        raise StepError(
            f"cannot TRIM {length} bytes at offset {offset} of {path}: no whole "
            f"{unit}-byte discard unit lies inside that range"
        )
    return start, end - start


def trim(
    info: DeviceInfo,
    offset: int = 0,
    length: int | None = None,
    *,
    discard: Discard | None = None,
) -> TrimResult:
    """Discard `length` bytes from `offset` (None: to the end of the target) and time it.

    `info` must come from the safety interlock. A block device is discarded through
    `discard(offset, length)`: during a run, the exclusive descriptor the worker holds
    (worker.guard); by default the device is opened exclusively for the call. Raises
    StepError when the target is the system disk, the range is outside it, or it does not
    support discard.
    """
    refuse_system_disk(info)
    geometry = _geometry(info)
    if info.kind == "block" and not geometry.discard_max_bytes:
        raise StepError(
            f"{info.path} does not support discard (its discard_max_bytes is 0): it cannot be "
            "TRIMmed"
        )
    start, count = _align(info.path, geometry, offset, length)
    if info.kind == "block":
        try:
            seconds = (discard or partial(discard_block, info.path))(start, count)
        except OSError as exc:
            raise StepError(
                f"BLKDISCARD of {count} bytes at offset {start} on {info.path} failed: "
                f"{exc.strerror}"
            ) from None
        return TrimResult(offset=start, length=count, seconds=seconds, method="blkdiscard")
    seconds = punch_file(info.path, start, count)
    return TrimResult(offset=start, length=count, seconds=seconds, method="file-punch")


def discard_block(path: str, offset: int, length: int) -> float:
    """BLKDISCARD `length` bytes at `offset` of a block device; returns the seconds it took.

    The device is opened exclusively (O_EXCL), so the kernel refuses it while it is mounted
    or claimed by md, LVM or device-mapper, even if that happened after the interlock ran.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise StepError(
                f"{path} is in use (mounted, or held by md, LVM or device-mapper): refusing to "
                "discard it"
            ) from None
        raise StepError(f"cannot open {path} to discard it: {exc.strerror}") from None
    try:
        if not stat.S_ISBLK(os.fstat(fd).st_mode):
            raise StepError(f"{path} is not a block device any more")
        argument = struct.pack("QQ", offset, length)
        started = time.perf_counter()
        try:
            fcntl.ioctl(fd, BLKDISCARD, argument)
        except OSError as exc:
            raise StepError(
                f"BLKDISCARD of {length} bytes at offset {offset} on {path} failed: {exc.strerror}"
            ) from None
        return time.perf_counter() - started
    finally:
        os.close(fd)


def punch_file(path: str, offset: int, length: int) -> float:
    """Punch a hole of `length` bytes at `offset` in a regular file (its size stays the same);
    returns the seconds the fallocate(2) call took."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        raise StepError(f"cannot open {path} to punch a hole in it: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StepError(f"{path} is not a regular file any more")
        mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
        started = time.perf_counter()
        failed = _fallocate(fd, mode, offset, length) != 0
        seconds = time.perf_counter() - started
        if failed:
            code = ctypes.get_errno()
            reason = (
                "its filesystem does not support punching holes"
                if code == errno.EOPNOTSUPP
                else os.strerror(code)
            )
            raise StepError(f"cannot punch {length} bytes at offset {offset} of {path}: {reason}")
        return seconds
    finally:
        os.close(fd)
