"""The safety interlock through the whole stack: a run queued on a target that must not be
written ends `failed` with the rule that refused it, before any step starts, and the target's
contents are unchanged (checksum before and after). Real loop devices, filesystems and swap."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Stack, register_drive, reported_device, wait_run
from worker.devices import identify

pytestmark = pytest.mark.e2e

PARAMS = {"span": "16m", "runtime_s": 1, "seq_runtime_s": 1, "patterns": ["incompressible"]}


def needs_root() -> None:
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("loop devices need root and losetup")


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    needs_root()
    backing = tmp_path / "backing.img"
    with open(backing, "wb") as f:
        f.truncate(64 * 1024 * 1024)
        f.write(os.urandom(1 << 20))  # something to protect
    dev = subprocess.run(
        ["losetup", "-f", "--show", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


def register(stack: Stack, target: str, serial: str, *, name: str) -> dict:
    """Register `target` on bench local, as the bench reports it (clean, not in use)."""
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": target,
                "serial": serial,
                "vendor": "drivelab",
                "model": f"interlock test {name}",
                "capacity_bytes": 64 * 1024 * 1024,
                "simulated": True,
            },
            sandbox=stack.data_dir / "targets",
        )
    assert r.status_code == 201, r.text
    return r.json()


def refused_in_use(stack: Stack, target: str, why: str, *, name: str) -> None:
    """Once the bench reports `target` in use (`why` in its reasons), registering it is
    refused, saying so."""
    with stack.client() as c:
        deadline = time.monotonic() + 60
        entry = reported_device(c, "local", target)
        while why not in " ".join(entry["in_use"]):
            assert time.monotonic() < deadline, entry
            time.sleep(0.2)
            entry = reported_device(c, "local", target)
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": target,
                "vendor": "drivelab",
                "model": f"interlock test {name} in use",
                "capacity_bytes": 64 * 1024 * 1024,
            },
            refused=True,
        )
    assert r.status_code == 422 and "is in use" in r.json()["detail"], r.text
    assert why in r.json()["detail"], r.text


def attempt(stack: Stack, drive: dict) -> dict:
    """Queue four-corners on a registered drive, confirmed: refused by the interlock."""
    serial = drive["serial"]
    with stack.client() as c:
        run = c.post(
            "/api/runs",
            json={
                "plan": "four-corners",
                "drive_id": drive["id"],
                "params": PARAMS,
                "confirm_serial": serial,
            },
        )
        assert run.status_code == 201, run.text
        final = wait_run(c, run.json()["id"], timeout=60)
    assert final["status"] == "failed"
    assert final["error"].startswith("safety interlock: refusing to write")
    assert all(s["started_at"] is None for s in final["steps"])
    return final


def refused_while_mounted(stack: Stack, disk: str, filesystem: str, mnt: Path, *, name: str) -> str:
    """Make a filesystem on `filesystem` (the disk or one of its partitions), mount it
    read-only at `mnt` (so the checksum holds still) and try to run on `disk`: refused by the
    mounted rule, nothing written. The disk is registered while it is free; once mounted, the
    bench reports it in use and registering it is refused too. The run's error."""
    drive = register(stack, disk, identify(disk).serial, name=name)
    subprocess.run(["mkfs.ext4", "-q", "-F", filesystem], check=True, capture_output=True)
    mnt.mkdir()
    subprocess.run(["mount", "-o", "ro", filesystem, str(mnt)], check=True)
    try:
        refused_in_use(stack, disk, "(rule: mounted)", name=name)
        before = sha256(disk)
        run = attempt(stack, drive)
        assert "(rule: mounted)" in run["error"], run["error"]
        assert sha256(disk) == before
        return run["error"]
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_mounted_filesystem(stack: Stack, loop: str, tmp_path: Path) -> None:
    mnt = tmp_path / "mnt"
    error = refused_while_mounted(stack, loop, loop, mnt, name="mounted")
    assert f"it is mounted at {mnt} " in error


def test_mounted_where_the_path_holds_a_line_separator(
    stack: Stack, loop: str, tmp_path: Path
) -> None:
    """/proc/self/mountinfo holds mount points as they are but for spaces, tabs, newlines and
    backslashes: a USB stick labelled with U+2028 is mounted at such a path. Such a mount had
    made every check fail (a ValueError, as a worker error); it is the rule that says so."""
    mnt = tmp_path / "USB\u2028STICK\xa0LABEL"
    error = refused_while_mounted(stack, loop, loop, mnt, name="mounted odd name")
    assert f"it is mounted at {mnt} " in error


def test_mounted_partition(stack: Stack, tmp_path: Path) -> None:
    """The whole disk is registered, one of its partitions is mounted (read-only, so the
    checksum holds still): writing the disk would write under the filesystem."""
    needs_root()
    if shutil.which("sfdisk") is None:
        pytest.skip("sfdisk is not installed (apt-get install fdisk)")
    backing = tmp_path / "partitioned.img"
    with open(backing, "wb") as f:
        f.truncate(64 * 1024 * 1024)
    subprocess.run(
        ["sfdisk", "-q", str(backing)],
        input="label: dos\nstart=2048, type=83\n",
        text=True,
        check=True,
        capture_output=True,
    )
    dev = subprocess.run(
        ["losetup", "-f", "--show", "-P", str(backing)], capture_output=True, text=True, check=True
    ).stdout.strip()
    mnt = tmp_path / "mnt"
    partition = f"{dev}p1"
    added = False
    try:
        if not Path("/sys/class/block", Path(partition).name).exists():
            subprocess.run(["partx", "-a", dev], check=True, capture_output=True)
            added = True
        deadline = time.monotonic() + 5
        while not Path(partition).exists():
            assert time.monotonic() < deadline, f"{partition} did not appear"
            time.sleep(0.05)
        error = refused_while_mounted(stack, dev, partition, mnt, name="partition mounted")
        assert f"its partition {Path(partition).name} is mounted at {mnt}" in error
    finally:
        if added:
            subprocess.run(["partx", "-d", dev], check=False)
        subprocess.run(["losetup", "-d", dev], check=False)


def swap_used_kib(device: str) -> int:
    """How much of `device` the kernel has swapped to (/proc/swaps), in KiB."""
    real = os.path.realpath(device)
    for line in Path("/proc/swaps").read_text().splitlines()[1:]:
        fields = line.split()
        if fields and os.path.realpath(fields[0]) == real:
            return int(fields[3])
    return 0


def test_swap(stack: Stack, loop: str) -> None:
    """The kernel itself may swap to the device while the run is refused (a busy machine): the
    whole device's checksum is then compared only when /proc/swaps showed no use of it at any
    moment; its swap header page (which fio's first write or a purge would destroy) is
    compared always."""
    drive = register(stack, loop, identify(loop).serial, name="swap")
    subprocess.run(["mkswap", "-q", loop], check=True, capture_output=True)
    on = subprocess.run(["swapon", loop], capture_output=True, text=True)
    if on.returncode != 0:
        pytest.skip(f"swapon is not permitted here: {on.stderr.strip()}")
    used = [swap_used_kib(loop)]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.02):
            used.append(swap_used_kib(loop))

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        with open(loop, "rb") as f:
            header = f.read(4096)
        before = sha256(loop)
        watcher.start()
        refused_in_use(stack, loop, "(rule: swap)", name="swap")
        run = attempt(stack, drive)
        stop.set()
        watcher.join(5)
        assert "(rule: swap)" in run["error"]
        with open(loop, "rb") as f:
            assert f.read(4096) == header
        used.append(swap_used_kib(loop))
        if not any(used):
            assert sha256(loop) == before
    finally:
        stop.set()
        subprocess.run(["swapoff", loop], check=False)


def test_wrong_serial(stack: Stack, loop: str, tmp_path: Path) -> None:
    """A serial the device does not report is refused at registration; a drive registered
    with the right one whose loop device is then attached to another file is refused by the
    interlock (the device now reports another serial)."""
    with stack.client() as c:
        reported_device(c, "local", loop, identify(loop).serial)
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": loop,
                "serial": "S6XXNX0R999999",
                "vendor": "drivelab",
                "model": "interlock test serial",
                "capacity_bytes": 64 * 1024 * 1024,
            },
            refused=True,
        )
    assert r.status_code == 422, r.text
    assert f"reports serial {identify(loop).serial} at {loop}, not S6XXNX0R999999" in r.text
    assert "drivelab devices --bench local" in r.json()["detail"]
    drive = register(stack, loop, identify(loop).serial, name="serial")
    other = tmp_path / "other.img"
    with open(other, "wb") as f:
        f.write(os.urandom(1 << 20))
        f.truncate(64 * 1024 * 1024)
    subprocess.run(["losetup", "-d", loop], check=True)
    subprocess.run(["losetup", loop, str(other)], check=True)
    before = sha256(loop)
    run = attempt(stack, drive)
    assert "(rule: serial-mismatch)" in run["error"] and identify(loop).serial in run["error"]
    assert sha256(loop) == before


def test_file_outside_the_sandbox(stack: Stack, tmp_path: Path) -> None:
    """A file outside the sandbox is not in the bench's report: registering it is refused.
    A sandbox file registered, then replaced by a symlink to the outside file: the interlock
    refuses it."""
    target = tmp_path / "outside.img"
    with open(target, "wb") as f:
        f.write(os.urandom(1 << 20))
        f.truncate(64 * 1024 * 1024)
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": str(target),
                "vendor": "drivelab",
                "model": "interlock test outside",
                "capacity_bytes": 64 * 1024 * 1024,
            },
            refused=True,
        )
    assert r.status_code == 422, r.text
    assert f"bench local reports no device or sandbox file at {target}" in r.json()["detail"]
    link = stack.data_dir / "targets" / "outside-link.img"
    drive = stack.add_drive(link, "interlock test outside link", size=64 * 1024 * 1024)
    link.unlink()
    link.symlink_to(target)
    try:
        before = sha256(str(target))
        run = attempt(stack, drive)
        assert "(rule: outside-sandbox)" in run["error"]
        assert sha256(str(target)) == before
    finally:
        link.unlink()


def test_symlink_into_dev_from_the_sandbox(stack: Stack, loop: str) -> None:
    """A sandbox file registered, then replaced by a symlink to a block device."""
    link = stack.data_dir / "targets" / "innocent.img"
    drive = stack.add_drive(link, "interlock test symlink", size=64 * 1024 * 1024)
    link.unlink()
    link.symlink_to(loop)
    try:
        before = sha256(loop)
        run = attempt(stack, drive)
        assert "(rule: outside-sandbox)" in run["error"]
        assert sha256(loop) == before
    finally:
        link.unlink()


def test_a_model_larger_than_the_device_is_refused_before_any_step(stack: Stack) -> None:
    """The catalog says 128 MiB, the target holds 64 MiB: a whole-drive plan would run fio past
    the end. The worker measures the target and fails the run, saying what to correct."""
    target = stack.data_dir / "targets" / "shrunk.img"
    with open(target, "wb") as f:
        f.write(os.urandom(1 << 20))
        f.truncate(64 * 1024 * 1024)
    before = sha256(str(target))
    serial = identify(target).serial
    try:
        with stack.client() as c:
            r = register_drive(
                c,
                {
                    "bench": "local",
                    "target_path": str(target),
                    "serial": serial,
                    "vendor": "drivelab",
                    "model": "span test 128m",
                    "capacity_bytes": 128 * 1024 * 1024,
                    "simulated": True,
                },
            )
            assert r.status_code == 201, r.text
            run = c.post(
                "/api/runs",
                json={"plan": "hdtach", "drive_id": r.json()["id"], "confirm_serial": serial},
            )
            assert run.status_code == 201, run.text
            final = wait_run(c, run.json()["id"], timeout=60)
        assert final["status"] == "failed", final
        assert f"{target} holds 67108864 bytes (64.0 MiB)" in final["error"]
        assert "would reach byte 134217728" in final["error"]
        assert "correct the model's capacity" in final["error"]
        assert all(s["started_at"] is None for s in final["steps"])
        assert sha256(str(target)) == before
    finally:
        target.unlink()
