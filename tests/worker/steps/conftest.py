"""Targets for the purge and TRIM tests, passed through the real safety interlock.

Loop devices come from tests/worker/conftest.py's `host` fixture (sparse files under pytest's
tmp directory, detached at teardown); simulated drives are sparse files in a sandbox.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from worker import devices
from worker.devices import DeviceInfo
from worker.safety import check_target

MiB = 1 << 20
PATTERN = b"\xa5\x5a drivelab \x01\x02\x03\x04 "  # no zero run as long as a sector


@dataclass
class Target:
    """A target the interlock accepted for a destructive run, and the file holding its data."""

    info: DeviceInfo
    file: Path  # the backing file of a loop device, or the simulated drive itself

    @property
    def path(self) -> str:
        return self.info.path


def pattern(length: int) -> bytes:
    return (PATTERN * (length // len(PATTERN) + 1))[:length]


def write(path: str, offset: int, data: bytes) -> None:
    """Write through the target (a loop device or a file) and make it durable."""
    fd = os.open(path, os.O_WRONLY)
    try:
        assert os.pwrite(fd, data, offset) == len(data)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_direct(path: str, offset: int, length: int) -> bytes:
    """Read what the device (or file) holds, bypassing the page cache (O_DIRECT)."""
    buffer = mmap.mmap(-1, length)  # page aligned, as O_DIRECT needs
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        assert os.preadv(fd, [buffer], offset) == length
        return bytes(buffer)
    finally:
        os.close(fd)
        buffer.close()


def interlocked(path: str | Path, sandbox: Path) -> DeviceInfo:
    """What check_target returns for a destructive run the reviewer confirmed."""
    serial = devices.identify(path).serial
    return check_target(
        str(path),
        registered_target=str(path),
        registered_serial=serial,
        sandbox=sandbox,
        data_dir=sandbox.parent / "data",
        destructive=True,
        confirmed_serial=serial,
    )


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    path = tmp_path / "sandbox"
    path.mkdir()
    (tmp_path / "data").mkdir()
    return path


@pytest.fixture
def loop_target(host: Any, sandbox: Path) -> Callable[..., Target]:
    """A loop device over a new sparse file, as the interlock returns it."""

    def make(size: int = 64 * MiB, name: str = "drive.img") -> Target:
        file = host.sparse_file(name, size)
        device = host.attach(file)
        return Target(interlocked(device, sandbox), file)

    return make


@pytest.fixture
def file_target(sandbox: Path) -> Callable[..., Target]:
    """A simulated drive: a sparse file inside the sandbox, as the interlock returns it."""

    def make(size: int = 64 * MiB, name: str = "sim.img") -> Target:
        file = sandbox / name
        with open(file, "wb") as f:
            f.truncate(size)
        return Target(interlocked(file, sandbox), file)

    return make


def root_disk_info() -> DeviceInfo | None:
    """DeviceInfo of the whole disk holding `/` (read only), None when no disk backs `/`."""
    mount = devices.mount_of("/")
    names = devices.block_names_of_mount(mount) if mount else ()
    if not names:
        return None
    name = devices.parent_disk(names[0]) or names[0]
    return devices.identify(f"/dev/{name}")
