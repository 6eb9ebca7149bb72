"""Device identity on real loop devices and files, checked against the system's own tools."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from worker import devices


def loop_serial(backing: Path) -> str:
    """The documented LOOP- serial, computed independently of worker.devices."""
    st = os.stat(backing)
    return "LOOP-" + hashlib.sha256(f"{st.st_dev}:{st.st_ino}".encode()).hexdigest()[:12]


def blockdev(flag: str, device: str) -> int:
    return int(
        subprocess.run(
            ["blockdev", flag, device], capture_output=True, text=True, check=True
        ).stdout
    )


def root_disk_name() -> str | None:
    """Whole disk under `/` via stat and /sys/dev/block (independent of mountinfo parsing)."""
    st = os.stat("/")
    node = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if not node.exists():
        return None
    node = node.resolve()
    return node.parent.name if (node / "partition").exists() else node.name


def test_identify_loop_device(host: Any) -> None:
    file = host.sparse_file("drive.img", size=64 << 20)
    device = host.attach(file)
    info = devices.identify(device)
    assert (info.kind, info.path, info.name) == ("block", device, Path(device).name)
    assert info.size_bytes == 64 << 20 == blockdev("--getsize64", device)
    assert info.logical_sector == blockdev("--getss", device)
    assert info.physical_sector == blockdev("--getpbsz", device)
    assert info.backing_file == str(file)
    assert info.transport == "loop"
    assert info.serial == loop_serial(file)
    assert info.partitions == () and info.holders == ()
    queue = Path("/sys/block", info.name, "queue", "scheduler").read_text()
    assert f"[{info.scheduler}]" in queue or queue.strip() == info.scheduler


def test_loop_serial_is_stable_and_differs_per_backing_file(host: Any) -> None:
    first = host.attach(host.sparse_file("a.img"))
    second = host.attach(host.sparse_file("b.img"))
    assert devices.identify(first).serial == devices.identify(first).serial
    assert devices.identify(first).serial != devices.identify(second).serial


def test_identify_follows_symlinks_to_the_device(host: Any, tmp_path: Path) -> None:
    device = host.attach(host.sparse_file("drive.img"))
    link = tmp_path / "by-id-link"
    link.symlink_to(device)
    assert devices.identify(link) == devices.identify(device)


def test_identify_file(tmp_path: Path) -> None:
    file = tmp_path / "sim.img"
    with open(file, "wb") as f:
        f.truncate(32 << 20)
    info = devices.identify(file)
    st = os.stat(file)
    serial = "SIM-" + hashlib.sha256(f"{st.st_dev}:{st.st_ino}".encode()).hexdigest()[:12]
    assert (info.kind, info.path, info.name, info.serial) == ("file", str(file), "sim.img", serial)
    assert info.size_bytes == 32 << 20
    assert info.transport == "file" and info.backing_file is None


def test_identify_refuses_partitions_and_character_devices(host: Any) -> None:
    _, partition = host.attach_partitioned(host.sparse_file("partitioned.img"))
    with pytest.raises(ValueError, match="partition"):
        devices.identify(partition)
    with pytest.raises(ValueError, match="neither"):
        devices.identify("/dev/null")


def test_partitions_are_listed_on_the_disk(host: Any) -> None:
    device, partition = host.attach_partitioned(host.sparse_file("partitioned.img"))
    info = devices.identify(device)
    assert info.partitions == (Path(partition).name,)
    assert devices.parent_disk(Path(partition).name) == info.name


def test_list_block_devices_includes_attached_loops_only(host: Any) -> None:
    device = host.attach(host.sparse_file("drive.img"))
    listed = {info.name: info for info in devices.list_block_devices()}
    assert listed[Path(device).name].backing_file is not None
    loops = [info for name, info in listed.items() if name.startswith("loop")]
    assert all(info.backing_file for info in loops), "a detached loop device was listed"
    assert not any(name.startswith(("ram", "zram")) for name in listed)


def test_list_block_devices_includes_the_root_disk() -> None:
    name = root_disk_name()
    if name is None:
        pytest.skip("no block device backs / here (overlay or network root)")
    assert name in {info.name for info in devices.list_block_devices()}


def test_as_dict_is_json_ready(tmp_path: Path) -> None:
    file = tmp_path / "sim.img"
    file.write_bytes(b"\0" * 4096)
    data = devices.identify(file).as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["partitions"] == [] and data["size_bytes"] == 4096


def test_mountinfo_decodes_mount_points_with_spaces(host: Any, tmp_path: Path) -> None:
    device = host.attach(host.sparse_file("drive.img"))
    mount_point = host.mount(device, tmp_path / "lab data")
    st = os.stat(device)
    mine = [m for m in devices.mountinfo() if m.mount_point == str(mount_point)]
    assert [(m.devno, m.fstype, m.source) for m in mine] == [
        ((os.major(st.st_rdev), os.minor(st.st_rdev)), "ext4", device)
    ]
    assert devices.mount_of(mount_point / "sub" / "dir") == mine[0]


def test_mountinfo_and_swaps_are_cut_where_the_kernel_cuts_them(tmp_path: Path) -> None:
    """Lines end at "\\n" and fields at one space: a mount point may hold U+2028 (which
    splitlines cuts at) or U+00A0 (which split() cuts at). One such mount anywhere on the host
    had made every check fail with "ValueError: '-' is not in list"."""
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    lines = [
        "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw",
        "40 22 7:3 / /media/USB\u2028STICK rw shared:2 - vfat /dev/loop3 rw",
        "41 22 7:4 / /srv/lab\xa0data rw shared:3 - ext4 /dev/loop4 rw",
        "42 22 7:5 / /srv/lab\\040data rw shared:4 - ext4 /dev/loop5 rw",
    ]
    (proc / "self" / "mountinfo").write_text("\n".join(lines) + "\n")
    mounts = devices.mountinfo(proc)
    assert [(m.devno, m.mount_point, m.source) for m in mounts[1:]] == [
        ((7, 3), "/media/USB\u2028STICK", "/dev/loop3"),
        ((7, 4), "/srv/lab\xa0data", "/dev/loop4"),
        ((7, 5), "/srv/lab data", "/dev/loop5"),
    ]
    assert devices.mount_of("/srv/lab\xa0data/x", proc) == mounts[2]
    (proc / "swaps").write_text(
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
        "/swap\u2028file                            file\t\t1024\t\t0\t\t-2\n"
        "/dev/loop6\t\t\t\t\tpartition\t1024\t\t0\t\t-3\n"
    )
    assert devices.swaps(proc) == ["/swap\u2028file", "/dev/loop6"]


def test_swaps_lists_an_active_swap_device(host: Any) -> None:
    device = host.attach(host.sparse_file("swap.img"))
    host.swapon(device)
    assert device in devices.swaps()


def test_mountinfo_is_read_again_when_a_line_is_not_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """While other processes mount and unmount, a read of mountinfo came back with a line
    without its separator: the file is read again, and a line that stays broken is an error
    (never skipped: the safety interlock must see every mount)."""
    whole = "27 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/root rw\n"
    torn = whole + "31 27 7:3 / /mnt/lab\\040data rw,relatime shared:9\n"
    reads = iter([torn, torn, whole + "31 27 7:3 / /mnt/lab\\040data rw - ext4 /dev/loop3 rw\n"])
    monkeypatch.setattr(devices, "_read", lambda _path: next(reads).strip())
    mounts = devices.mountinfo(tmp_path)
    assert [(m.mount_point, m.fstype, m.source) for m in mounts] == [
        ("/", "ext4", "/dev/mapper/root"),
        ("/mnt/lab data", "ext4", "/dev/loop3"),
    ]
    monkeypatch.setattr(devices, "_read", lambda _path: torn.strip())
    with pytest.raises(OSError, match="not whole after 5 reads: '31 27 7:3"):
        devices.mountinfo(tmp_path)
