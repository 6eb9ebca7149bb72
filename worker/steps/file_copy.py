"""A filesystem on the held device, for the file copy (backend.plans.file_copy).

Safety (the README's "Safety interlock"): the filesystem is made and mounted on exactly the
device the interlock checked and holds, and nowhere but in a mount namespace of its own:

- the worker keeps the device open for the whole step, but without its exclusive claim
  (HeldTarget.shared: the kernel lets mkfs and mount have a device only when nobody else holds
  it exclusively); the mount then holds it exclusively itself;
- a keeper process (worker.fio.pin.keeper_argv) pins the held descriptor at the device's
  kernel name in a private /dev, as for fio, runs mkfs on that name and mounts it at
  FS_MOUNT_POINT inside that private /dev: no name anyone else can change, no mount in the
  host's table;
- fio and the deletions join that namespace (worker.fio.pin.join_prefix) through a descriptor
  of it the worker holds, so they reach the mounted files and nothing else of the device;
- the keeper waits on its stdin: when the step ends (done, failed, cancelled) the worker closes
  it and the keeper unmounts; when the worker dies the pipe closes all the same. A mount
  namespace's mounts go away with its last process (and the worker's descriptor of it), so a
  keeper that is killed outright leaves nothing mounted either.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from worker import devices
from worker.fio.pin import FS_MOUNT_POINT, join_prefix, keeper_argv
from worker.guard import HeldTarget
from worker.steps import StepError, StepStopped

SECTOR = 512
KEEPER_READY_S = 600.0  # mkfs of a large drive with its inode tables written at once
KEEPER_EXIT_S = 60.0


@dataclass
class Filesystem:
    """The step's filesystem while it is mounted: `enter` is the prefix (and its descriptors)
    that runs a command in its namespace."""

    keeper: subprocess.Popen[bytes]
    ns_fd: int
    log: dict[str, Any] = field(default_factory=dict)

    def enter(self) -> tuple[list[str], tuple[int, ...]]:
        return join_prefix(self.ns_fd), (self.ns_fd,)


def _keeper_stderr(proc: subprocess.Popen[bytes]) -> str:
    if proc.stderr is None:
        return ""
    return proc.stderr.read().decode("utf-8", errors="replace").strip()[-2000:]


@contextlib.contextmanager
def mounted(
    target: HeldTarget,
    fstype: str,
    mkfs_options: list[str],
    mount_options: str,
    should_stop: Callable[[], bool] = lambda: False,
) -> Any:
    """Make and mount the filesystem (see the module's doc); yields a Filesystem. On exit the
    keeper unmounts and ends, and the device is claimed exclusively again; `log` then says
    how it went ("unmounted", the keeper's status)."""
    if target.info.kind != "block" or not target.namespace:
        raise StepError(
            "a file copy needs a block device and a mount namespace (a worker running as root): "
            f"{target.path} is {'a file' if target.info.kind != 'block' else 'a block device'}"
            + ("" if target.namespace else " and this worker cannot make a namespace")
        )
    with target.shared():
        pin = target.pins()[0]
        started = time.monotonic()
        keeper = subprocess.Popen(
            keeper_argv(pin, fstype, mkfs_options, mount_options),
            pass_fds=[pin.fd],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        fs: Filesystem | None = None
        try:
            assert keeper.stdout is not None
            line = _read_line(keeper, KEEPER_READY_S, should_stop)
            if line != "ready" and should_stop():
                keeper.kill()
                keeper.wait()
                raise StepStopped("cancelled while the filesystem was being made")
            if line != "ready":
                keeper.kill()
                keeper.wait()
                raise StepError(
                    f"the filesystem could not be made or mounted on {target.path}: "
                    f"{_keeper_stderr(keeper) or f'status {keeper.returncode}'}"
                )
            ns_fd = os.open(f"/proc/{keeper.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
            if os.fstat(ns_fd).st_ino == os.stat("/proc/self/ns/mnt").st_ino:
                os.close(ns_fd)
                raise StepError("the filesystem's keeper is not in a namespace of its own")
            fs = Filesystem(keeper, ns_fd)
            fs.log = {
                "fs": fstype,
                "mkfs_options": mkfs_options,
                "mount_options": mount_options,
                "mount_point": FS_MOUNT_POINT,
                "mkfs_mount_s": round(time.monotonic() - started, 3),
            }
            yield fs
        finally:
            if keeper.stdin is not None:
                keeper.stdin.close()  # the keeper unmounts and exits
            try:
                status = keeper.wait(timeout=KEEPER_EXIT_S)
            except subprocess.TimeoutExpired:
                keeper.kill()
                status = keeper.wait()
            if fs is not None:
                os.close(fs.ns_fd)
                fs.log["keeper_status"] = status
                fs.log["unmounted"] = status == 0
                if status != 0:
                    fs.log["keeper_stderr"] = _keeper_stderr(keeper)


def _read_line(
    proc: subprocess.Popen[bytes], timeout_s: float, should_stop: Callable[[], bool]
) -> str:
    """The keeper's first line of output, "" when it ended, said nothing in `timeout_s`, or
    the step was stopped meanwhile."""
    import selectors

    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    try:
        while not sel.select(timeout=0.5):
            if should_stop() or time.monotonic() > deadline:
                return ""
        return proc.stdout.readline().decode("utf-8", errors="replace").strip()
    finally:
        sel.close()


def discarded_bytes(name: str) -> int:
    """The device's discarded bytes so far (/sys/block/NAME/stat, field 14: sectors)."""
    fields = (devices.block_dir(name) / "stat").read_text().split()
    return int(fields[13]) * SECTOR if len(fields) > 13 else 0


DISCARD_SETTLE_S = 0.5
DISCARD_SETTLE_MAX_S = 60.0


def settle_discards(name: str, should_stop: Callable[[], bool]) -> float:
    """Wait until the device's discard counter has not moved for DISCARD_SETTLE_S (at most
    DISCARD_SETTLE_MAX_S); returns the seconds waited."""
    began = time.monotonic()
    last, since = discarded_bytes(name), began
    while time.monotonic() - began < DISCARD_SETTLE_MAX_S and not should_stop():
        time.sleep(0.05)
        now = discarded_bytes(name)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= DISCARD_SETTLE_S:
            break
    return time.monotonic() - began


def delete_files(fs: Filesystem, names: list[str], workdir: Path) -> float:
    """Delete `names` from the filesystem and sync it, so its journal commits and the online
    discards are sent; returns the seconds it took. StepError when it fails."""
    prefix, fds = fs.enter()
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = subprocess.run(
        [*prefix, "sh", "-c", 'cd "$0" && rm -- "$@" && sync -f .', FS_MOUNT_POINT, *names],
        pass_fds=fds,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise StepError(f"deleting the copies failed: {done.stderr.strip()[-500:]}")
    return time.monotonic() - started
