"""The run's hold on its target (worker.guard) against real loop devices and files: what the
exclusive hold keeps others from doing, and what the check before every write notices."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from tests.worker.conftest import MiB, sha256_of
from worker.client import ApiClient
from worker.devices import identify
from worker.executor import (
    WRITING_KINDS,
    WorkerContext,
    _execute_step,
    _fio_refusal,
    _RunControl,
)
from worker.guard import HeldTarget
from worker.safety import InterlockError
from worker.step_runner import RUNNERS

Guard = Callable[..., AbstractContextManager[None]]


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    sandbox, data_dir = tmp_path / "sandbox", tmp_path / "data"
    sandbox.mkdir()
    data_dir.mkdir()
    return sandbox, data_dir


@pytest.fixture
def hold(dirs: tuple[Path, Path]) -> Iterator[Callable[..., HeldTarget]]:
    """acquire() for a destructive run the reviewer confirmed; released at teardown."""
    held: list[HeldTarget] = []

    def make(target: str | Path, serial: str | None = None) -> HeldTarget:
        serial = serial or identify(target).serial
        h = HeldTarget.acquire(
            str(target),
            registered_serial=serial,
            sandbox=dirs[0],
            data_dir=dirs[1],
            destructive=True,
            confirmed_serial=serial,
        )
        held.append(h)
        return h

    yield make
    for h in held:
        h.release()


def refused(rule: str, action: Callable[[], object]) -> InterlockError:
    with pytest.raises(InterlockError) as caught:
        action()
    assert caught.value.rule == rule, caught.value.message
    assert caught.value.message.endswith(f"(rule: {rule})")
    return caught.value


def test_a_held_device_cannot_be_claimed_mounted_or_reattached(
    host: Any, hold: Callable[..., HeldTarget], unchanged: Guard
) -> None:
    file = host.sparse_file("drive.img")
    device = host.attach(file)
    other = host.sparse_file("other.img")
    target = hold(device)
    assert target.path == device and target.record()["held"] == "exclusive (O_EXCL)"
    with unchanged(file, other):
        with pytest.raises(OSError) as excl:
            os.open(device, os.O_RDONLY | os.O_EXCL)
        assert excl.value.errno == errno.EBUSY
        mkfs = subprocess.run(["mkfs.ext4", "-q", "-F", device], capture_output=True, text=True)
        assert mkfs.returncode != 0 and "in use" in mkfs.stderr
        attach = subprocess.run(["losetup", device, str(other)], capture_output=True, text=True)
        assert attach.returncode != 0 and "busy" in attach.stderr
    target.verify("before step fill")  # nothing changed: the checks pass
    target.release()
    os.close(os.open(device, os.O_RDONLY | os.O_EXCL))  # released: free again


def test_a_partition_of_a_held_device_cannot_be_mounted(
    host: Any, hold: Callable[..., HeldTarget], tmp_path: Path
) -> None:
    device, partition = host.attach_partitioned(host.sparse_file("disk.img"))
    subprocess.run(["mkfs.ext4", "-q", "-F", partition], check=True, capture_output=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    target = hold(device)
    mount = subprocess.run(["mount", partition, str(mnt)], capture_output=True, text=True)
    assert mount.returncode != 0 and "busy" in mount.stderr, mount
    target.verify("before step fill")


def test_a_device_held_exclusively_by_another_program_is_refused(
    host: Any, hold: Callable[..., HeldTarget]
) -> None:
    device = host.attach(host.sparse_file("drive.img"))
    fd = os.open(device, os.O_RDONLY | os.O_EXCL)
    try:
        error = refused("in-use", lambda: hold(device))
        assert f"{device} is held by another program" in error.message
    finally:
        os.close(fd)


def test_a_file_held_by_another_run_is_refused(
    dirs: tuple[Path, Path], hold: Callable[..., HeldTarget], tmp_path: Path
) -> None:
    """Two drives registered on one file (a path and a link to it) never run at once."""
    sim = dirs[0] / "sim.img"
    with open(sim, "wb") as f:
        f.truncate(MiB)
    link = dirs[0] / "alias.img"
    link.symlink_to(sim)
    first = hold(sim)
    refused("in-use", lambda: hold(link))
    first.release()
    hold(link).release()


def test_a_detach_during_the_run_is_noticed_before_the_next_write(
    host: Any, hold: Callable[..., HeldTarget]
) -> None:
    device = host.attach(host.sparse_file("drive.img"))
    target = hold(device)
    subprocess.run(["losetup", "-d", device], check=True)  # deferred while held
    error = refused("detached", lambda: target.verify("before step write-pass"))
    assert error.message.startswith(f"before step write-pass: refusing to write {device}: ")
    assert "was detached during the run" in error.message


def test_a_link_that_now_leads_to_another_device_is_refused(
    host: Any, hold: Callable[..., HeldTarget], tmp_path: Path
) -> None:
    """Two loop devices over one file report the same serial: only the device number tells
    the link now leads somewhere else."""
    file = host.sparse_file("drive.img")
    first, second = host.attach(file), host.attach(file)
    link = tmp_path / "by-id-link"
    link.symlink_to(first)
    target = hold(link)
    assert target.path == first
    moved = tmp_path / "moved"
    moved.symlink_to(second)
    moved.replace(link)
    error = refused("device-changed", lambda: target.verify("before step trim"))
    assert f"it now leads to {second}" in error.message


def test_a_replaced_file_is_refused(
    dirs: tuple[Path, Path], hold: Callable[..., HeldTarget]
) -> None:
    sim = dirs[0] / "sim.img"
    with open(sim, "wb") as f:
        f.truncate(8 * MiB)
    target = hold(sim)
    assert target.record() == {
        "registered": str(sim),
        "resolved": str(sim),
        "kind": "file",
        "held": "open",
        # fio opens the held file, not its name (worker.fio.pin).
        "fio_opens": "/dev/drivelab/sim.img" if target.namespace else target.pins()[0].path,
        "fio_pinned_by": "mount namespace" if target.namespace else "descriptor",
    }
    fresh = dirs[0] / "fresh.img"
    with open(fresh, "wb") as f:
        f.truncate(8 * MiB)
    fresh.replace(sim)
    refused("serial-mismatch", lambda: target.verify("before step fill"))


def test_a_target_name_fio_cannot_carry_is_refused(
    dirs: tuple[Path, Path], hold: Callable[..., HeldTarget]
) -> None:
    sim = dirs[0] / "a;b.img"
    with open(sim, "wb") as f:
        f.truncate(MiB)
    error = refused("target-name", lambda: hold(sim))
    assert "contains ';'" in error.message


def test_fio_gets_the_checked_path_with_colons_escaped(
    dirs: tuple[Path, Path], hold: Callable[..., HeldTarget]
) -> None:
    sim = dirs[0] / "c:" / "dev" / "loop7"
    sim.parent.mkdir(parents=True)
    with open(sim, "wb") as f:
        f.truncate(MiB)
    target = hold(sim)
    job = "[global]\nfilename=/somewhere/else\n\n[write]\nrw=write\n"
    escaped = str(sim).replace(":", "\\:")
    assert target.job_file(job) == f"[global]\nfilename={escaped}\n\n[write]\nrw=write\n"


def test_discard_goes_through_the_held_descriptor(
    host: Any, hold: Callable[..., HeldTarget]
) -> None:
    file = host.sparse_file("drive.img", 16 * MiB)
    with open(file, "r+b") as f:
        f.write(b"\xa5" * (4 * MiB))
    device = host.attach(file)
    target = hold(device)
    target.discard(MiB, 2 * MiB)
    with open(device, "rb") as f:
        data = f.read(4 * MiB)
    assert data[:MiB] == b"\xa5" * MiB
    assert data[MiB : 3 * MiB] == bytes(2 * MiB)
    assert data[3 * MiB :] == b"\xa5" * MiB
    assert sha256_of(file) == sha256_of(device)


@pytest.mark.parametrize("kind", sorted(set(RUNNERS) - {"idle"}))
def test_every_writing_step_checks_the_target_before_it_starts(
    kind: str, host: Any, hold: Callable[..., HeldTarget], tmp_path: Path
) -> None:
    """The executor checks before every step that may write (every kind but idle, whose end is
    checked): with the by-id
    link now leading to another drive, the step fails naming the rule before it is started
    (the api is never told of it: this worker's client points nowhere) and neither drive
    is written."""
    drive, victim = (
        host.sparse_file("drive.img", 16 * MiB),
        host.sparse_file("victim.img", 16 * MiB),
    )
    for f in (drive, victim):
        with open(f, "r+b") as out:
            out.write(os.urandom(MiB))
    drive_device, victim_device = host.attach(drive), host.attach(victim)
    link = tmp_path / "nvme-drivelab_TEST_S6XXNX0R123456"
    link.symlink_to(drive_device)
    target = hold(link)
    moved = tmp_path / "moved"
    moved.symlink_to(victim_device)
    moved.replace(link)
    before = (sha256_of(drive), sha256_of(victim))
    job = "[global]\nfilename=/x\nsize=1m\n\n[write]\nrw=write\n"
    step = {
        "id": 1,
        "idx": 0,
        "name": f"a-{kind}",
        "kind": kind,
        "status": "pending",
        "params": {"offset": 0, "length": MiB, "max_rounds": 5, "enabled": False},
        "job_file": job if kind.startswith("fio") else None,
    }
    client = ApiClient("http://127.0.0.1:9", None, retry_for_s=0)
    ctx = WorkerContext(client=client, bench="t", data_dir=tmp_path, sandbox=tmp_path / "sb")
    try:
        status, error = _execute_step(ctx, 1, step, target, tmp_path, _RunControl())
    finally:
        client.close()
    assert status == "failed"
    assert error is not None and error.startswith(
        f"safety interlock: before step a-{kind}: refusing to write {link}: "
    ), error
    assert "(rule: serial-mismatch)" in error
    assert (sha256_of(drive), sha256_of(victim)) == before
    assert kind in WRITING_KINDS


def test_a_run_whose_ioengine_cannot_run_here_is_refused_before_the_first_write(
    dirs: tuple[Path, Path], hold: Callable[..., HeldTarget], tmp_path: Path
) -> None:
    """A purge and a fill would otherwise run before fio fails on the ioengine."""
    sim = dirs[0] / "sim.img"
    with open(sim, "wb") as f:
        f.write(os.urandom(MiB))
    before = sha256_of(sim)
    target = hold(sim)
    job = "[global]\nfilename=/x\nioengine=nbd\nsize=64k\n\n[fill]\nrw=write\n"
    steps = [
        {"name": "purge", "kind": "purge", "status": "pending", "params": {}, "job_file": None},
        {"name": "fill", "kind": "fio", "status": "pending", "params": {}, "job_file": job},
    ]
    client = ApiClient("http://127.0.0.1:9", None, retry_for_s=0)
    ctx = WorkerContext(client=client, bench="t", data_dir=tmp_path, sandbox=dirs[0])
    try:
        refusal = _fio_refusal(ctx, {"steps": steps}, target, tmp_path / "run")
    finally:
        client.close()
    assert refusal is not None and refusal.startswith(
        "fio cannot do I/O with ioengine nbd on this bench (fio: nbd: uri parameter"
    ), refusal
    assert refusal.endswith("nothing was written")
    assert sha256_of(sim) == before
