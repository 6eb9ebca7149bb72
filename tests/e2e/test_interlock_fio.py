"""Inside one fio process, fio writes exactly the drive the interlock checked.

fio opens `filename=` again at the start of every section of a job file: a PTS round is one fio
process with 9 sections (pts-latency) or 56 (pts-iops). Each case here changes what the
target's name means while such a step runs (the sandbox file replaced by a symlink to another
device, a device node re-made with another major:minor, the target's directory renamed, a bind
mount over the name, a hard link or a FIFO moved over the file), then checks that the device
or file that must stay untouched is unchanged (its checksum, and for a device the sectors the
kernel counted as written), that the step that was running finished on the drive it was
checked against, and that the next write was refused naming the rule. worker.fio.pin is what
makes this hold; tests/worker/fio/test_pin.py checks it on its own.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, register_drive, wait_run
from tests.e2e.test_interlock_matrix import job_files, protected
from tests.faults.conftest import queue, samples
from tests.worker.conftest import Host, MiB, sha256_of
from worker.devices import identify

pytestmark = pytest.mark.e2e

# One round of pts-latency is one fio process of 9 sections of element_s seconds each.
PTS_LATENCY = {"span": "32m", "element_s": 1, "max_rounds": 5, "precondition_loops": 1}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    with ExitStack() as cleanup:
        yield Host(tmp_path, cleanup)


class Victim:
    """A loop device over a file with random contents: what a redirected fio would write."""

    def __init__(self, host: Host) -> None:
        self.file = protected(host, "victim.img")
        self.device = host.attach(self.file)
        self.before = self.state()

    def sectors_written(self) -> int:
        stat = Path(f"/sys/block/{Path(self.device).name}/stat").read_text().split()
        return int(stat[6])

    def state(self) -> tuple[str, int]:
        return sha256_of(self.device), self.sectors_written()

    def untouched(self) -> bool:
        return self.state() == self.before


def wait_for_samples(c: httpx.Client, run_id: int, kind: str, timeout: float = 120) -> dict:
    """The run's running step of `kind` once fio has reported from it (fio is running)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = c.get(f"/api/runs/{run_id}").json()
        assert run["status"] in ("queued", "running"), run
        for step in run["steps"]:
            running = step["kind"] == kind and step["status"] == "running"
            if running and samples(c, run_id, step["id"]):
                return step
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never ran a {kind} step")


def step_of(run: dict, step_id: int) -> dict:
    return next(s for s in run["steps"] if s["id"] == step_id)


def refused_after(run: dict, step: dict, rule: str) -> None:
    """The run failed before a write after the step that was running when the name changed,
    naming `rule`; the step itself ran to its end on the checked drive, and neither the
    refused step nor anything after it started."""
    assert run["status"] == "failed", run
    assert f"(rule: {rule})" in run["error"], run["error"]
    found = re.match(r"safety interlock: before step (\S+): ", run["error"])
    assert found, run["error"]
    names = [s["name"] for s in run["steps"]]
    refused = names.index(found.group(1))
    assert refused > names.index(step["name"]), run["error"]
    assert all(s["started_at"] is None for s in run["steps"][refused:]), run["steps"]


# --- a PTS round: one fio process, nine sections ------------------------------------------


def symlink_to(victim: Victim) -> Callable[[Path], None]:
    def swap(target: Path) -> None:
        target.rename(target.with_name(target.name + ".orig"))
        target.symlink_to(victim.device)

    return swap


def rename_directory(victim: Victim) -> Callable[[Path], None]:
    def swap(target: Path) -> None:
        directory = target.parent
        directory.rename(directory.with_name(directory.name + ".orig"))
        directory.mkdir()
        target.symlink_to(victim.device)

    return swap


def test_a_sandbox_file_replaced_by_a_symlink_during_a_pts_round_is_never_redirected(
    stack: Stack, host: Host
) -> None:
    """The issue's first case: targets/x.img moved aside and a symlink to another device put
    in its place while round 1 of pts-latency runs. Round 1 goes on writing the file it was
    checked against; round 2 is refused (outside-sandbox); the other device is untouched."""
    victim = Victim(host)
    target = stack.data_dir / "targets" / "pts-symlink.img"
    drive = stack.add_drive(target, "pinned pts symlink", size=32 * MiB)
    held = target.with_name(target.name + ".orig")
    try:
        with stack.client() as c:
            run_id = queue(c, drive, "pts-latency", PTS_LATENCY)["id"]
            step = wait_for_samples(c, run_id, "fio-rounds")
            symlink_to(victim)(target)
            run = wait_run(c, run_id, timeout=180)
            jobs = job_files(c, run_id)
        refused_after_round(run, step, "outside-sandbox")
        assert victim.untouched()
        # The stored job files name the checked file, as a reviewer would run them by hand.
        assert jobs and all(f"filename={target}\n" in job for job in jobs)
        assert os.stat(held).st_blocks > 0  # what fio wrote went into the held file
    finally:
        target.unlink(missing_ok=True)
        held.unlink(missing_ok=True)


def refused_after_round(run: dict, step: dict, rule: str) -> None:
    """A steady-state loop is refused before a round after the first: round 1 ran to its end."""
    assert run["status"] == "failed", run
    found = re.match(rf"safety interlock: before \d\d-{step['name']}-r(\d+): ", run["error"])
    assert found and int(found.group(1)) >= 2, run["error"]
    assert f"(rule: {rule})" in run["error"], run["error"]
    ids = [s["id"] for s in run["steps"]]
    later = run["steps"][ids.index(step["id"]) + 1 :]
    assert later and all(s["started_at"] is None for s in later)


def test_a_device_node_outside_dev_is_written_by_its_kernel_name_and_never_remade(
    stack: Stack, host: Host
) -> None:
    """The issue's second case: a node made with mknod outside /dev, registered under the
    serial of the loop device it names. The job files say the kernel's /dev/loopN; re-made with
    another minor during round 1, that other device is never written, and round 2 is refused."""
    drive_file = protected(host, "drive.img")
    device = host.attach(drive_file)
    victim = Victim(host)
    # In /dev/disk/by-id, where the bench's report finds a drive's stable names.
    node = Path("/dev/disk/by-id") / f"drivelab-test-node-{secrets.token_hex(3)}"
    node.parent.mkdir(parents=True, exist_ok=True)
    rdev = os.stat(device).st_rdev
    os.mknod(node, 0o600 | 0o060000, rdev)  # S_IFBLK
    host.later(lambda: node.unlink(missing_ok=True))
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": str(node),
                "serial": identify(device).serial,
                "vendor": "drivelab",
                "model": "pinned mknod",
                "capacity_bytes": 16 * MiB,
                "simulated": True,
            },
            sandbox=stack.data_dir / "targets",
        )
        assert r.status_code == 201, r.text
        drive = r.json()
        params = {**PTS_LATENCY, "span": "16m"}
        run_id = queue(c, drive, "pts-latency", params)["id"]
        step = wait_for_samples(c, run_id, "fio-rounds")
        node.unlink()
        os.mknod(node, 0o600 | 0o060000, os.stat(victim.device).st_rdev)
        run = wait_run(c, run_id, timeout=180)
        jobs = job_files(c, run_id)
    refused_after_round(run, step, "serial-mismatch")
    assert victim.untouched()
    assert jobs and all(f"filename={device}\n" in job for job in jobs)
    assert str(node) not in "".join(jobs)
    assert run["environment"]["target"]["resolved"] == device


@pytest.mark.parametrize(
    ("swap", "rule"),
    [
        (symlink_to, "outside-sandbox"),
        (rename_directory, "outside-sandbox"),
    ],
    ids=["symlink", "directory-renamed"],
)
def test_a_name_changed_during_a_pts_iops_round(
    stack: Stack, host: Host, swap: Callable[[Victim], Callable[[Path], None]], rule: str
) -> None:
    """pts-iops: a round is one fio process of block sizes x mixes sections (56 by default)."""
    victim = Victim(host)
    directory = stack.data_dir / "targets" / f"iops-{swap.__name__}"
    directory.mkdir()
    target = directory / "x.img"
    drive = stack.add_drive(target, f"pinned pts-iops {swap.__name__}", size=16 * MiB)
    # Six sections a round (three block sizes, two mixes): each opens the target again.
    params = {
        "span": "16m",
        "element_s": 1,
        "max_rounds": 5,
        "precondition_loops": 1,
        "block_sizes": ["4k", "64k", "1m"],
        "mixes": ["65/35", "0/100"],
    }
    try:
        with stack.client() as c:
            run_id = queue(c, drive, "pts-iops", params)["id"]
            step = wait_for_samples(c, run_id, "fio-rounds")
            swap(victim)(target)
            run = wait_run(c, run_id, timeout=300)
        refused_after_round(run, step, rule)
        assert victim.untouched()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(directory.with_name(directory.name + ".orig"), ignore_errors=True)
