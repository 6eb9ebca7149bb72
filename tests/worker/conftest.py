"""Real block-device fixtures for the worker tests: sparse files, loop devices, mounts, swap.

Everything a test sets up is undone in reverse order at teardown, even when the test fails,
and the session ends by checking that no loop device is still attached to a file of ours.
Only files created under pytest's tmp directory and loop devices attached to them are ever
written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

import pytest

MiB = 1 << 20


def run(*cmd: str, stdin: str | None = None) -> str:
    """Run a system tool, failing the test with its stderr when it fails."""
    done = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.strip()


def sha256_of(path: str | Path) -> str:
    """Checksum of a file or device's whole contents, read only."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(MiB):
            digest.update(chunk)
    return digest.hexdigest()


def loop_backing_files() -> dict[str, str]:
    """Attached loop devices and their backing files, read from sysfs."""
    found = {}
    for entry in Path("/sys/block").glob("loop*/loop/backing_file"):
        try:
            found[entry.parent.parent.name] = entry.read_text().strip()
        except OSError:
            # Detached meanwhile (other tests attach and detach theirs at any time): the file
            # is gone, or still listed and its device gone (ENODEV, seen in CI).
            continue
    return found


def _require_root_and_losetup() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to attach loop devices, mount and swapon")
    if shutil.which("losetup") is None:
        pytest.skip("losetup (util-linux) is not installed")
    if not Path("/dev/loop-control").exists():
        pytest.skip("kernel has no loop device support (/dev/loop-control missing)")


def _wait_for(path: str, timeout: float = 5.0) -> None:
    """Device nodes of new partitions appear asynchronously; wait for one."""
    deadline = time.monotonic() + timeout
    while not Path(path).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} did not appear within {timeout} s")
        time.sleep(0.05)


def _retry(action: Callable[[], object], attempts: int = 100) -> None:
    """Teardown steps can race with the kernel releasing a device; retried for up to 10 s
    (CI: a partition just unmounted was still busy for partx -d after 2 s)."""
    for attempt in range(attempts):
        try:
            action()
            return
        except RuntimeError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.1)


def _detach(device: str, file: Path) -> None:
    """Detach `device` if it is still attached to `file`: a test may have detached it, and the
    number may since belong to somebody else's file."""
    backing = loop_backing_files().get(Path(device).name, "")
    if backing.removesuffix(" (deleted)") == str(file):
        run("losetup", "-d", device)


class Host:
    """Sets up real storage conditions and registers how to undo each one."""

    def __init__(self, root: Path, cleanup: ExitStack) -> None:
        self.root = root
        self._cleanup = cleanup

    def symlink(self, link: Path, target: str | Path) -> Path:
        """`link` -> `target`, removed at the end of the test."""
        link.symlink_to(target)
        self.later(lambda: link.unlink(missing_ok=True))
        return link

    def later(self, undo: Callable[[], object]) -> None:
        """Run `undo` at the end of the test."""
        self._cleanup.callback(undo)

    def sparse_file(self, name: str, size: int = 64 * MiB) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(size)
        return path

    def attach(self, file: Path, *, partscan: bool = False) -> str:
        """Attach a loop device to `file`; detached at teardown."""
        args = ["losetup", "-f", "--show", *(["-P"] if partscan else []), str(file)]
        device = run(*args)
        self._cleanup.callback(_retry, lambda: _detach(device, file))
        return device

    def mount(self, device: str, mount_point: Path) -> Path:
        """Make an ext4 filesystem on `device` and mount it read-only (so checksums stay put)."""
        run("mkfs.ext4", "-q", "-F", device)
        mount_point.mkdir(parents=True, exist_ok=True)
        run("mount", "-o", "ro", device, str(mount_point))
        self._cleanup.callback(_retry, lambda: run("umount", str(mount_point)))
        return mount_point

    def swapon(self, target: str | Path) -> None:
        run("mkswap", "-q", str(target))
        run("swapon", str(target))
        self._cleanup.callback(_retry, lambda: run("swapoff", str(target)))

    def attach_partitioned(self, file: Path) -> tuple[str, str]:
        """Write a DOS label with one Linux partition into `file`, attach it with partition
        scanning, and return the loop device and its first partition."""
        if shutil.which("sfdisk") is None:
            pytest.skip("sfdisk is not installed (apt-get install fdisk)")
        run("sfdisk", "-q", str(file), stdin="label: dos\nstart=2048, type=83\n")
        device = self.attach(file, partscan=True)
        partition = f"{device}p1"
        if not Path("/sys/class/block", Path(partition).name).exists():
            # Kernels built without partition-table parsers: read the table in user space and
            # add the partition with the BLKPG ioctl instead.
            run("partx", "-a", device)
            self._cleanup.callback(_retry, lambda: run("partx", "-d", device))
        _wait_for(partition)
        return device, partition

    def device_mapper_linear(self, device: str, name: str) -> str:
        """A dm-linear device over `device`, removed at teardown; skips without dm support."""
        if shutil.which("dmsetup") is None:
            pytest.skip("dmsetup is not installed (apt-get install dmsetup)")
        if "device-mapper" not in Path("/proc/devices").read_text():
            pytest.skip("this kernel has no device-mapper driver (not in /proc/devices)")
        sectors = int(run("blockdev", "--getsz", device))
        run("dmsetup", "create", name, "--table", f"0 {sectors} linear {device} 0")
        self._cleanup.callback(_retry, lambda: run("dmsetup", "remove", name))
        return f"/dev/mapper/{name}"


@pytest.fixture(scope="session")
def no_leaked_loop_devices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """After all tests: nothing of ours may still be mounted or attached to a loop device."""
    base = str(tmp_path_factory.getbasetemp())
    yield
    # `losetup -d` of a device that another process has open (another test worker listing
    # the machine's block devices, say) only marks it to go when that process closes it: a
    # detach the kernel completes a moment later is no leak.
    deadline = time.monotonic() + 10
    while True:
        leaked = {dev: f for dev, f in loop_backing_files().items() if f.startswith(base)}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    leaked_mounts = [line for line in mounts if f" {base}" in line]
    assert not leaked, f"loop devices left attached: {leaked}"
    assert not leaked_mounts, f"mounts left behind: {leaked_mounts}"


@pytest.fixture
def host(tmp_path: Path, no_leaked_loop_devices: None) -> Iterator[Host]:
    """Real loop devices, mounts and swap for one test, undone in reverse order."""
    _require_root_and_losetup()
    with ExitStack() as cleanup:
        yield Host(tmp_path, cleanup)


@pytest.fixture
def unchanged() -> Callable[..., AbstractContextManager[None]]:
    """Context manager asserting the given targets' contents are identical afterwards."""

    @contextmanager
    def guard(*paths: str | Path) -> Iterator[None]:
        before = {str(p): sha256_of(p) for p in paths}
        yield
        after = {str(p): sha256_of(p) for p in paths}
        assert after == before, "a refused target was modified"

    return guard
