"""Fault: the job cannot run. fio itself fails (the target's filesystem is full), or the target
vanished after it was registered (the interlock refuses it before fio starts)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Stack, start_stack, stop_stack, wait_run
from tests.faults.conftest import HEARTBEAT_TIMEOUT_S, queue

pytestmark = pytest.mark.e2e

PARAMS = {
    "span": "64m",
    "runtime_s": 1,
    "seq_runtime_s": 1,
    "prewrite": True,
    "patterns": ["incompressible"],
}


OLDER_FIO = """#!/bin/sh
# The bench's fio is older than the api host's and does not know buffer_compress_chunk: it
# refuses job files with that option, as such a fio does, and is the machine's fio otherwise.
for arg in "$@"; do
  case "$arg" in
    *.fio)
      if grep -q '^buffer_compress_chunk=' "$arg"; then
        echo "fio: failed parsing buffer_compress_chunk=4096" >&2
        exit 1
      fi ;;
  esac
done
exec fio "$@"
"""


def older_fio(directory: Path) -> Path:
    path = directory / "fio"
    path.write_text(OLDER_FIO)
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def fault_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Nothing is killed here: both tests share a private stack."""
    base = tmp_path_factory.mktemp("fio-fails")
    data_dir = base / "data"
    env = {
        "DRIVELAB_HEARTBEAT_TIMEOUT_S": str(HEARTBEAT_TIMEOUT_S),
        "DRIVELAB_FIO_BINARY": str(older_fio(base)),
    }
    stack = start_stack(data_dir, env, sim_size="256m")
    try:
        yield stack
    finally:
        stop_stack(stack)


@pytest.fixture
def tiny_filesystem(fault_stack: Stack, tmp_path: Path) -> Iterator[Path]:
    """A 32 MiB ext4 filesystem mounted inside the worker's sandbox."""
    if os.geteuid() != 0 or not (shutil.which("mkfs.ext4") and shutil.which("mount")):
        pytest.skip("a tiny filesystem needs root, mkfs.ext4 and mount (loop devices)")
    image = tmp_path / "tiny-fs.img"
    with open(image, "wb") as f:
        f.truncate(32 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    mountpoint = fault_stack.data_dir / "targets" / "tiny"
    mountpoint.mkdir()
    subprocess.run(["mount", "-o", "loop", str(image), str(mountpoint)], check=True)
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def test_fio_failing_ends_the_run_failed_with_its_message(
    fault_stack: Stack, tiny_filesystem: Path
) -> None:
    """A 256 MiB sparse file on a 32 MiB filesystem: the pre-write runs out of space."""
    drive = fault_stack.add_drive(
        tiny_filesystem / "drive.img", "Drive on a full fs", size=256 << 20
    )
    with fault_stack.client() as c:
        run = wait_run(c, queue(c, drive, "four-corners", PARAMS)["id"], timeout=60)
    print(f"\n{run['error']}")
    assert run["status"] == "failed"
    assert run["error"].startswith("step prewrite: fio exited with status 1: ")
    # fio's message once, not once per request that was in flight.
    assert run["error"].count("No space left on device: write offset=") == 1
    prewrite, *rest = run["steps"]
    assert prewrite["status"] == "failed" and "No space left on device" in prewrite["error"]
    assert "fio: io_u error on file" in prewrite["stderr"]
    assert all(st["status"] == "skipped" for st in rest)


def test_a_vanished_target_is_refused_before_fio_with_a_clear_message(
    fault_stack: Stack,
) -> None:
    target = fault_stack.data_dir / "targets" / "vanished.img"
    drive = fault_stack.add_drive(target, "Vanished drive", size=64 << 20)
    with fault_stack.client() as c:
        target.unlink()
        run = wait_run(c, queue(c, drive, "four-corners", PARAMS)["id"], timeout=60)
    print(f"\n{run['error']}")
    assert run["status"] == "failed"
    assert run["error"].startswith(f"safety interlock: refusing to write {target}")
    assert all(st["status"] == "skipped" and st["started_at"] is None for st in run["steps"])


def test_a_job_file_the_benchs_fio_rejects_fails_the_run_before_any_write(
    fault_stack: Stack,
) -> None:
    """The api's fio accepts the compressible pattern, the bench's does not: the worker asks its
    own fio before the first write, so the drive is not purged or filled for nothing."""
    target = fault_stack.data_dir / "targets" / "older-fio.img"
    with open(target, "wb") as f:
        f.write(os.urandom(1 << 20))
        f.truncate(64 << 20)
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    drive = fault_stack.add_drive(target, "Drive on a bench with an older fio")
    params = {**PARAMS, "patterns": ["compressible"]}
    with fault_stack.client() as c:
        run = wait_run(c, queue(c, drive, "four-corners", params)["id"], timeout=60)
    assert run["status"] == "failed", run
    assert run["error"].startswith("step randwrite-4k-qd3-compressible: fio rejects its job file ")
    assert "failed parsing buffer_compress_chunk=4096" in run["error"]
    assert run["error"].endswith("nothing was written")
    assert all(st["started_at"] is None for st in run["steps"])
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before
    target.unlink()
