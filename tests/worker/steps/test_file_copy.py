"""The file copy's filesystem (worker.steps.file_copy) on real loop devices: made and mounted on
exactly the held device, only inside a namespace of its own, never in the host's mount table;
gone, and the device claimed exclusively again, when the step ends; gone too when the worker
is killed outright; and an unregistered loop device beside it is never touched."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from backend.plans.base import DriveContext
from backend.plans.catalog import compile_plan
from tests.worker.conftest import Host, MiB, sha256_of
from worker.devices import identify
from worker.fio.pin import FS_MOUNT_POINT
from worker.fio.runner import run_fio
from worker.guard import HeldTarget
from worker.steps.file_copy import delete_files, discarded_bytes, mounted, settle_discards

SIZE = 256 * MiB
PARAMS = {"file_size": "4m", "copy_size": "16m", "delete_size": "8m", "purge": False}


def devno(device: str) -> str:
    st = os.stat(device)
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def mounts_of(number: str) -> list[str]:
    """Every process's mount table line that mounts device `number` (major:minor)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            lines = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
        except OSError:
            continue
        out += [f"{pid}: {ln}" for ln in lines if ln.split()[2] == number]
    return out


def acquire(device: str, tmp_path: Path) -> HeldTarget:
    sandbox, data = tmp_path / "sandbox", tmp_path / "data"
    sandbox.mkdir(exist_ok=True)
    data.mkdir(exist_ok=True)
    serial = identify(device).serial
    return HeldTarget.acquire(
        device, registered_serial=serial, sandbox=sandbox, data_dir=data, destructive=True,
        confirmed_serial=serial,
    )  # fmt: skip


def exclusive_free(device: str) -> bool:
    try:
        fd = os.open(device, os.O_RDONLY | os.O_EXCL)
    except OSError as exc:
        assert exc.errno == errno.EBUSY
        return False
    os.close(fd)
    return True


def test_the_copy_runs_on_the_held_device_alone_and_leaves_nothing_mounted(
    host: Host, tmp_path: Path
) -> None:
    device = host.attach(host.sparse_file("drive.img", SIZE))
    victim_file = host.sparse_file("victim.img", 64 * MiB)
    with open(victim_file, "r+b") as f:
        f.write(os.urandom(MiB))
    victim = host.attach(victim_file)
    before = sha256_of(victim)
    target = acquire(device, tmp_path)
    host.later(target.release)
    _p, _params, steps = compile_plan(
        "file-copy", PARAMS, DriveContext(device, SIZE, identify(device).serial)
    )
    p = steps[0].params
    number = devno(device)
    with mounted(target, p["fs"], p["mkfs_options"], p["mount_options"]) as fs:
        # Mounted in the keeper's namespace, with online discard, and not in the host's.
        seen = mounts_of(number)
        assert seen and all(FS_MOUNT_POINT in ln and "discard" in ln for ln in seen), seen
        own = Path("/proc/self/mountinfo").read_text().splitlines()
        assert not [ln for ln in own if ln.split()[2] == number]
        assert not exclusive_free(device)  # the mount holds it exclusively
        workdir = tmp_path / "work"
        runs = [("sources", p["sources_job_file"]), *p["copy_job_files"].items()]
        for name, job in runs:
            if name == "copy-2":
                gone = discarded_bytes(target.info.name)
                delete_files(fs, p["deleted_files"], workdir)
                settle_discards(target.info.name, lambda: False)
                # The deletions' TRIMs reached the device: its own counter.
                assert discarded_bytes(target.info.name) - gone >= 8 * MiB
            enter, fds = fs.enter()
            out = run_fio(job, workdir, name, on_samples=lambda *_: None,
                          should_stop=lambda: False, enter=enter, enter_fds=fds)  # fmt: skip
            assert out.ok, out.stderr
            assert sum(s.write_bytes for s in out.samples) == 16 * MiB
    assert fs.log["unmounted"] and fs.log["keeper_status"] == 0
    assert mounts_of(number) == []
    # The run holds the device exclusively again: nobody else may have it.
    assert not exclusive_free(device)
    target.verify("after the copy")
    target.release()
    assert exclusive_free(device)
    assert sha256_of(victim) == before
    # The files were on the held device: its filesystem has them.
    listing = subprocess.run(
        ["debugfs", "-R", "ls -l /", device], capture_output=True, text=True, check=True
    ).stdout
    assert "copy-2.3" in listing and "src.0" in listing and "copy-1.0" not in listing


def test_a_killed_worker_leaves_nothing_mounted(host: Host, tmp_path: Path) -> None:
    """A worker killed outright (SIGKILL) while its filesystem is mounted: the keeper sees its
    stdin close and unmounts, and the namespace goes with its last process."""
    device = host.attach(host.sparse_file("drive.img", SIZE))
    ready = tmp_path / "ready"
    script = f"""
import sys, time
from pathlib import Path
sys.path.insert(0, {str(Path.cwd())!r})
from tests.worker.steps.test_file_copy import acquire
from worker.steps.file_copy import mounted
target = acquire({device!r}, Path({str(tmp_path)!r}))
with mounted(target, "ext4", ["-F", "-q"], "discard"):
    Path({str(ready)!r}).write_text("mounted")
    time.sleep(600)
"""
    worker = subprocess.Popen([sys.executable, "-c", script], cwd=Path.cwd())
    host.later(lambda: worker.poll() is None and worker.kill())
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert worker.poll() is None and time.monotonic() < deadline, "never mounted"
        time.sleep(0.05)
    number = devno(device)
    assert mounts_of(number)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    deadline = time.monotonic() + 20
    while (mounts_of(number) or not exclusive_free(device)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mounts_of(number) == []
    assert exclusive_free(device)


def test_a_file_target_is_refused_before_anything_is_made() -> None:
    from worker.steps import StepError

    file_target = SimpleNamespace(info=SimpleNamespace(kind="file"), namespace=True,
                                  path="/srv/sandbox/sim.img")  # fmt: skip
    with (
        pytest.raises(StepError, match="needs a block device"),
        mounted(file_target, "ext4", [], "discard"),  # type: ignore[arg-type]
    ):
        pass
