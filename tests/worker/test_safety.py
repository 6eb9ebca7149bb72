"""The safety interlock against real conditions: loop devices that are mounted, partitioned,
used as swap, held by device-mapper; symlinks out of the sandbox; the disk backing `/`.

Every refusal is checked twice: the rule key and message, and a checksum of the target's
contents before and after, so a refusal that wrote something would still fail the test.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import io
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from worker import devices, safety
from worker.devices import DeviceInfo
from worker.safety import InterlockError, check_target

Guard = Callable[..., AbstractContextManager[None]]


def expected_serial(prefix: str, path: Path) -> str:
    """The documented pseudo-serial, computed independently of worker.devices."""
    st = os.stat(path)
    return f"{prefix}-" + hashlib.sha256(f"{st.st_dev}:{st.st_ino}".encode()).hexdigest()[:12]


@dataclass
class Interlock:
    """Calls check_target with a bench's sandbox and data directory; asserts on refusals."""

    sandbox: Path
    data_dir: Path
    unchanged: Guard

    def check(self, target: str | Path, serial: str, **overrides: Any) -> DeviceInfo:
        kwargs: dict[str, Any] = {
            "registered_target": str(target),
            "registered_serial": serial,
            "sandbox": self.sandbox,
            "data_dir": self.data_dir,
            "destructive": False,
            "confirmed_serial": None,
        }
        return check_target(str(target), **(kwargs | overrides))

    def refuses(
        self,
        rule: str,
        target: str | Path,
        serial: str,
        *,
        watch: list[str | Path],
        **overrides: Any,
    ) -> InterlockError:
        with self.unchanged(*watch), pytest.raises(InterlockError) as caught:
            self.check(target, serial, **overrides)
        error = caught.value
        assert error.rule == rule, error.message
        assert error.message.startswith(f"refusing to write {target}: ")
        assert error.message.endswith(f"(rule: {rule})")
        assert str(error) == error.message
        return error


@dataclass
class Drive:
    file: Path
    device: str
    serial: str


@pytest.fixture
def interlock(tmp_path: Path, unchanged: Guard) -> Interlock:
    sandbox = tmp_path / "sandbox"
    data_dir = tmp_path / "data"
    sandbox.mkdir()
    data_dir.mkdir()
    return Interlock(sandbox, data_dir, unchanged)


@pytest.fixture
def drive(host: Any) -> Drive:
    """A clean 64 MiB loop device over a sparse file."""
    file = host.sparse_file("drive.img")
    return Drive(file, host.attach(file), expected_serial("LOOP", file))


@pytest.fixture
def sim_file(interlock: Interlock) -> Path:
    """A 64 MiB simulated drive inside the sandbox."""
    path = interlock.sandbox / "sim.img"
    with open(path, "wb") as f:
        f.truncate(64 << 20)
    return path


def root_disk() -> str | None:
    """The whole disk holding `/`, from /proc/self/mountinfo; None inside e.g. an overlay."""
    devno = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[4] == "/":
            devno = fields[2]
    if devno is None or not Path(f"/sys/dev/block/{devno}").exists():
        return None
    node = Path(f"/sys/dev/block/{devno}").resolve()
    name = node.parent.name if (node / "partition").exists() else node.name
    return f"/dev/{name}"


# --- passing targets -------------------------------------------------------------------------


def test_clean_loop_device_passes(interlock: Interlock, drive: Drive) -> None:
    info = interlock.check(drive.device, drive.serial)
    assert (info.kind, info.path, info.serial) == ("block", drive.device, drive.serial)
    assert info.size_bytes == 64 << 20
    assert info.backing_file == str(drive.file)


def test_confirmed_destructive_run_passes(interlock: Interlock, drive: Drive) -> None:
    info = interlock.check(
        drive.device, drive.serial, destructive=True, confirmed_serial=f" {drive.serial} "
    )
    assert info.serial == drive.serial


def test_sandboxed_file_passes(interlock: Interlock, sim_file: Path) -> None:
    serial = expected_serial("SIM", sim_file)
    info = interlock.check(sim_file, serial)
    assert (info.kind, info.path, info.serial) == ("file", str(sim_file), serial)
    assert info.size_bytes == 64 << 20


# --- refusals, in rule order -----------------------------------------------------------------


@pytest.mark.parametrize("confirmation", [None, "", "S3Z9NX0K"])
def test_destructive_run_needs_the_registered_serial(
    interlock: Interlock, drive: Drive, confirmation: str | None
) -> None:
    error = interlock.refuses(
        "not-confirmed",
        drive.device,
        drive.serial,
        watch=[drive.device],
        destructive=True,
        confirmed_serial=confirmation,
    )
    assert drive.serial in error.message


def test_confirmation_is_checked_before_anything_else(interlock: Interlock, drive: Drive) -> None:
    interlock.refuses(
        "not-confirmed",
        drive.device,
        "WRONG",
        watch=[drive.device],
        registered_target="/dev/elsewhere",
        destructive=True,
        confirmed_serial=None,
    )


def test_unregistered_path_is_refused(interlock: Interlock, drive: Drive, host: Any) -> None:
    registered = host.attach(host.sparse_file("registered.img"))
    error = interlock.refuses(
        "not-registered",
        drive.device,
        drive.serial,
        watch=[drive.device],
        registered_target=registered,
    )
    assert registered in error.message


def test_file_outside_sandbox_is_refused(interlock: Interlock, tmp_path: Path) -> None:
    outside = tmp_path / "outside.img"
    outside.write_bytes(b"\0" * 4096)
    interlock.refuses("outside-sandbox", outside, expected_serial("SIM", outside), watch=[outside])


def test_dotdot_out_of_sandbox_is_refused(interlock: Interlock, tmp_path: Path) -> None:
    outside = tmp_path / "outside.img"
    outside.write_bytes(b"\0" * 4096)
    sneaky = f"{interlock.sandbox}/../outside.img"
    interlock.refuses("outside-sandbox", sneaky, expected_serial("SIM", outside), watch=[outside])


def test_sandbox_symlink_to_outside_file_is_refused(interlock: Interlock, tmp_path: Path) -> None:
    outside = tmp_path / "outside.img"
    outside.write_bytes(b"\0" * 4096)
    link = interlock.sandbox / "link.img"
    link.symlink_to(outside)
    error = interlock.refuses(
        "outside-sandbox", link, expected_serial("SIM", outside), watch=[outside]
    )
    assert str(outside) in error.message


def test_sandbox_hard_link_to_outside_file_is_refused(interlock: Interlock, tmp_path: Path) -> None:
    """A hard link resolves to itself, inside the sandbox, and has the outside file's inode, so
    its serial too: only its link count tells that its blocks are another file's."""
    outside = tmp_path / "outside.img"
    outside.write_bytes(os.urandom(4096))
    link = interlock.sandbox / "linked.img"
    os.link(outside, link)
    error = interlock.refuses("hard-link", link, expected_serial("SIM", outside), watch=[outside])
    assert "2 names (hard links)" in error.message
    link.unlink()  # one name again: a file of its own
    assert interlock.check(outside.rename(link), expected_serial("SIM", link)).path == str(link)


def test_sandbox_symlink_to_loop_device_is_refused(interlock: Interlock, drive: Drive) -> None:
    link = interlock.sandbox / "sim.img"
    link.symlink_to(drive.device)
    error = interlock.refuses("outside-sandbox", link, drive.serial, watch=[drive.device])
    assert drive.device in error.message


@pytest.mark.parametrize("target", ["/dev/null", "/dev/zero"])
def test_character_device_is_refused(interlock: Interlock, target: str) -> None:
    interlock.refuses("not-whole-device", target, "", watch=[])


def test_directory_and_missing_file_in_sandbox_are_refused(interlock: Interlock) -> None:
    directory = interlock.sandbox / "dir"
    directory.mkdir()
    interlock.refuses("not-whole-device", directory, "SIM-x", watch=[])
    interlock.refuses("not-whole-device", interlock.sandbox / "missing.img", "SIM-x", watch=[])


def test_partition_is_refused(interlock: Interlock, host: Any) -> None:
    file = host.sparse_file("partitioned.img")
    device, partition = host.attach_partitioned(file)
    error = interlock.refuses(
        "not-whole-device", partition, expected_serial("LOOP", file), watch=[device]
    )
    assert "partition" in error.message


def test_root_disk_is_refused(interlock: Interlock) -> None:
    """Only reads: check_target never opens its target, so calling it on / is safe."""
    disk = root_disk()
    if disk is None:
        pytest.skip("no block device backs / here (overlay or network root)")
    serial = devices.identify(disk).serial
    error = interlock.refuses(
        "backs-root", disk, serial, watch=[], destructive=True, confirmed_serial=serial
    )
    assert "root filesystem" in error.message


def test_device_holding_the_data_dir_is_refused(
    interlock: Interlock, drive: Drive, host: Any, tmp_path: Path
) -> None:
    mounted = host.mount(drive.device, tmp_path / "labdata")
    error = interlock.refuses(
        "backs-data-dir", drive.device, drive.serial, watch=[drive.device], data_dir=mounted
    )
    assert str(mounted) in error.message


def test_mounted_device_is_refused(
    interlock: Interlock, drive: Drive, host: Any, tmp_path: Path
) -> None:
    mount_point = host.mount(drive.device, tmp_path / "mnt")
    error = interlock.refuses("mounted", drive.device, drive.serial, watch=[drive.device])
    assert f"it is mounted at {mount_point}" in error.message


def test_mounted_partition_is_refused(interlock: Interlock, host: Any, tmp_path: Path) -> None:
    file = host.sparse_file("partitioned.img")
    device, partition = host.attach_partitioned(file)
    mount_point = host.mount(partition, tmp_path / "mnt")
    error = interlock.refuses("mounted", device, expected_serial("LOOP", file), watch=[device])
    name = Path(partition).name
    assert f"its partition {name} is mounted at {mount_point}" in error.message


def test_mounted_wins_over_a_wrong_serial(
    interlock: Interlock, drive: Drive, host: Any, tmp_path: Path
) -> None:
    host.mount(drive.device, tmp_path / "mnt")
    interlock.refuses("mounted", drive.device, "LOOP-000000000000", watch=[drive.device])


def test_swap_device_is_refused(interlock: Interlock, drive: Drive, host: Any) -> None:
    host.swapon(drive.device)
    error = interlock.refuses("swap", drive.device, drive.serial, watch=[drive.device])
    assert "swap" in error.message


def test_swap_file_in_sandbox_is_refused(interlock: Interlock, host: Any) -> None:
    swap_file = interlock.sandbox / "swap.img"
    swap_file.write_bytes(b"\0" * (16 << 20))  # swapon refuses files with holes
    swap_file.chmod(0o600)
    host.swapon(swap_file)
    interlock.refuses("swap", swap_file, expected_serial("SIM", swap_file), watch=[swap_file])


def test_file_under_a_loop_device_is_refused(
    interlock: Interlock, sim_file: Path, host: Any
) -> None:
    loop = host.attach(sim_file)
    error = interlock.refuses(
        "holder", sim_file, expected_serial("SIM", sim_file), watch=[sim_file]
    )
    assert loop in error.message


def test_device_mapper_holder_is_refused(interlock: Interlock, drive: Drive, host: Any) -> None:
    host.device_mapper_linear(drive.device, f"drivelab-test-{os.getpid()}")
    error = interlock.refuses("holder", drive.device, drive.serial, watch=[drive.device])
    assert "dm-" in error.message


def test_loop_device_with_deleted_backing_file_has_no_serial(
    interlock: Interlock, host: Any
) -> None:
    file = host.sparse_file("doomed.img")
    device = host.attach(file)
    serial = expected_serial("LOOP", file)
    file.unlink()
    interlock.refuses("no-serial", device, serial, watch=[device])


def test_wrong_serial_is_refused(interlock: Interlock, drive: Drive) -> None:
    error = interlock.refuses(
        "serial-mismatch", drive.device, "LOOP-000000000000", watch=[drive.device]
    )
    assert drive.serial in error.message and "LOOP-000000000000" in error.message


# --- how the checks read ---------------------------------------------------------------------


def test_checks_never_open_the_target(
    interlock: Interlock, drive: Drive, sim_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[tuple[str, object]] = []
    real_os_open, real_open = os.open, builtins.open

    def spy_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append((os.fspath(path), flags))
        return real_os_open(path, flags, *args, **kwargs)

    def spy_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened.append((os.fspath(file) if not isinstance(file, int) else str(file), mode))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy_os_open)
    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(io, "open", spy_open)
    interlock.check(drive.device, drive.serial, destructive=True, confirmed_serial=drive.serial)
    interlock.check(sim_file, expected_serial("SIM", sim_file))
    with pytest.raises(InterlockError):
        interlock.check(drive.device, "LOOP-000000000000")

    assert opened, "the spies saw no reads of /sys or /proc, so they are not wired in"
    paths = {path for path, _ in opened}
    assert drive.device not in paths and str(sim_file) not in paths


# --- resolution through device-mapper, on a fabricated sysfs (no dm in every kernel) --------


def _fake_block(sysfs: Path, rel: str, devno: str, partition: bool = False) -> Path:
    directory = sysfs / "devices" / rel
    (directory / "holders").mkdir(parents=True)
    (directory / "slaves").mkdir()
    (directory / "dev").write_text(devno + "\n")
    if partition:
        (directory / "partition").write_text("2\n")
    name = directory.name
    (sysfs / "class" / "block").mkdir(parents=True, exist_ok=True)
    (sysfs / "dev" / "block").mkdir(parents=True, exist_ok=True)
    (sysfs / "class" / "block" / name).symlink_to(directory)
    (sysfs / "dev" / "block" / devno).symlink_to(directory)
    return directory


def test_backs_root_resolves_device_mapper_slaves_to_their_disk(tmp_path: Path) -> None:
    """/ on dm-0, built from vdb2: writing vdb must be refused, writing vdc allowed."""
    sysfs, proc = tmp_path / "sys", tmp_path / "proc"
    dm = _fake_block(sysfs, "virtual/block/dm-0", "253:0")
    _fake_block(sysfs, "pci/block/vdb", "252:16")
    vdb2 = _fake_block(sysfs, "pci/block/vdb/vdb2", "252:18", partition=True)
    _fake_block(sysfs, "pci/block/vdc", "252:32")
    (dm / "slaves" / "vdb2").touch()
    (vdb2 / "holders" / "dm-0").touch()
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text("27 1 253:0 / / rw - ext4 /dev/mapper/root rw\n")
    roots = safety._Roots(sysfs=sysfs, proc=proc)

    vdb = DeviceInfo(
        path="/dev/vdb",
        kind="block",
        name="vdb",
        model=None,
        serial="X",
        firmware=None,
        size_bytes=0,
        logical_sector=512,
        physical_sector=512,
        rotational=False,
        transport="virtio",
        backing_file=None,
        discard_max_bytes=None,
        scheduler=None,
        partitions=devices.partitions("vdb", sysfs),
        holders=(),
    )
    with pytest.raises(InterlockError) as caught:
        safety._check_not_backing("/dev/vdb", vdb, Path("/"), "backs-root", "the root fs", roots)
    assert caught.value.rule == "backs-root"
    vdc = dataclasses.replace(vdb, name="vdc", path="/dev/vdc", partitions=())
    safety._check_not_backing("/dev/vdc", vdc, Path("/"), "backs-root", "the root fs", roots)
    assert devices.holders("vdb2", sysfs) == ("dm-0",)
    assert devices.partitions("vdb", sysfs) == ("vdb2",)
