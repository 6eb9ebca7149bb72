"""The interlock tried as an attacker would, through the whole stack, on loop devices only.

Each case registers a target, queues a plan and does what a careless or unlucky lab does
(swaps the drive while the plan idles, names it with colons, registers a relative path, passes
parameters fio rejects), then checks the checksum of every device that must stay untouched and
the rule named in the run's error. test_interlock.py has the up-front cases (mounted, swap,
wrong serial, outside the sandbox, a symlink from the sandbox into /dev).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, register_drive, wait_run
from tests.faults.conftest import queue
from tests.worker.conftest import Host, MiB, loop_backing_files, sha256_of
from worker.devices import identify

pytestmark = pytest.mark.e2e

FOUR_CORNERS = {"span": "8m", "runtime_s": 1, "seq_runtime_s": 1, "patterns": ["incompressible"]}
# purge, passes, torture, passes, idle, passes, TRIM, passes: the drive is swapped in the idle.
OVER_TIME = {"span": "8m", "torture_runtime_s": 1, "idle_s": 4}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    with ExitStack() as cleanup:
        yield Host(tmp_path, cleanup)


def protected(host: Host, name: str) -> Path:
    """A sparse file with a random first MiB: something to protect."""
    path = host.sparse_file(name, 16 * MiB)
    with open(path, "r+b") as f:
        f.write(os.urandom(MiB))
    return path


def register(stack: Stack, target: str, serial: str, name: str) -> dict:
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": target,
                "serial": serial,
                "vendor": "drivelab",
                "model": f"interlock matrix {name}",
                "capacity_bytes": 16 * MiB,
                "simulated": True,
            },
        )
    assert r.status_code == 201, r.text
    return r.json()


def wait_for_running_step(c: httpx.Client, run_id: int, kind: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = c.get(f"/api/runs/{run_id}").json()
        for step in run["steps"]:
            if step["kind"] == kind and step["status"] == "running":
                return step
        assert run["status"] in ("queued", "running"), run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} never ran a {kind} step")


def job_files(c: httpx.Client, run_id: int) -> list[str]:
    return [j["job_file"] for j in c.get(f"/api/runs/{run_id}/jobs").json()]


# --- the drive changes while the plan idles -----------------------------------------------


def test_a_loop_device_detached_during_the_idle_is_never_written_again(
    stack: Stack, host: Host
) -> None:
    """The reviewer detaches the drive's loop device during the idle and attaches it to another
    file. The run holds the device, so the kernel defers the detach and refuses the attach;
    the run fails at the end of the idle, naming the rule, and neither file is written after."""
    drive_file = protected(host, "drive.img")
    victim = protected(host, "victim.img")
    device = host.attach(drive_file)
    drive = register(stack, device, identify(device).serial, "detached")
    victim_before = sha256_of(victim)
    with stack.client() as c:
        run_id = queue(c, drive, "performance-over-time", OVER_TIME)["id"]
        wait_for_running_step(c, run_id, "idle")
        drive_before = sha256_of(drive_file)
        subprocess.run(["losetup", "-d", device], check=True)
        swap = subprocess.run(["losetup", device, str(victim)], capture_output=True, text=True)
        run = wait_run(c, run_id, timeout=120)
    assert swap.returncode != 0 and "busy" in swap.stderr, swap  # the hold kept it bound
    assert run["status"] == "failed", run
    assert run["error"].startswith("safety interlock: at the end of step idle"), run["error"]
    assert "(rule: detached)" in run["error"]
    after_idle = run["steps"][[s["kind"] for s in run["steps"]].index("idle") + 1 :]
    assert all(s["started_at"] is None for s in after_idle)
    assert sha256_of(victim) == victim_before
    assert sha256_of(drive_file) == drive_before
    # Once the run let go, the detach asked for during the idle took place.
    deadline = time.monotonic() + 10
    while Path(device).name in loop_backing_files() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert loop_backing_files().get(Path(device).name) != str(drive_file)


def test_a_by_id_link_repointed_during_the_idle_is_refused(stack: Stack, host: Host) -> None:
    """udev moves names: the registered by-id style link now leads to another drive."""
    drive_device = host.attach(protected(host, "drive.img"))
    victim_device = host.attach(protected(host, "victim.img"))
    links = host.root / "by-id"
    links.mkdir()
    link = links / "nvme-drivelab_TEST_S6XXNX0R123456"
    link.symlink_to(drive_device)
    drive = register(stack, str(link), identify(drive_device).serial, "repointed")
    victim_before = sha256_of(victim_device)
    with stack.client() as c:
        run_id = queue(c, drive, "performance-over-time", OVER_TIME)["id"]
        wait_for_running_step(c, run_id, "idle")
        moved = links / "moved"
        moved.symlink_to(victim_device)
        moved.replace(link)
        run = wait_run(c, run_id, timeout=120)
    assert run["status"] == "failed", run
    assert run["error"].startswith("safety interlock: at the end of step idle"), run["error"]
    # The link leads to a drive with another serial: the first rule to fail says so.
    assert "(rule: serial-mismatch)" in run["error"]
    assert sha256_of(victim_device) == victim_before


def test_the_held_drive_cannot_be_formatted_or_mounted_during_the_run(
    stack: Stack, host: Host
) -> None:
    """While a run holds the drive, mkfs and mount are refused by the kernel (O_EXCL), and the
    run goes on to the end."""
    drive_file = protected(host, "drive.img")
    device = host.attach(drive_file)
    drive = register(stack, device, identify(device).serial, "held")
    mnt = host.root / "mnt"
    mnt.mkdir()
    with stack.client() as c:
        run_id = queue(c, drive, "performance-over-time", OVER_TIME)["id"]
        wait_for_running_step(c, run_id, "idle")
        mkfs = subprocess.run(["mkfs.ext4", "-q", "-F", device], capture_output=True, text=True)
        mount = subprocess.run(["mount", device, str(mnt)], capture_output=True, text=True)
        run = wait_run(c, run_id, timeout=120)
    assert mkfs.returncode != 0 and "in use" in mkfs.stderr, mkfs
    assert mount.returncode != 0, mount
    assert run["status"] == "done", run
    assert run["environment"]["target"] == {
        "registered": device,
        "resolved": device,
        "kind": "block",
        "device": f"7:{os.minor(os.stat(device).st_rdev)}",
        "held": "exclusive (O_EXCL)",
    }


def test_a_sandbox_file_replaced_during_the_idle_is_refused(stack: Stack) -> None:
    target = stack.data_dir / "targets" / "replaced.img"
    drive = stack.add_drive(target, "interlock matrix replaced", size=16 * MiB)
    with stack.client() as c:
        run_id = queue(c, drive, "performance-over-time", OVER_TIME)["id"]
        wait_for_running_step(c, run_id, "idle")
        fresh = target.with_name("fresh.img")
        with open(fresh, "wb") as f:
            f.truncate(16 * MiB)
        fresh.replace(target)
        run = wait_run(c, run_id, timeout=120)
    try:
        assert run["status"] == "failed", run
        assert "(rule: serial-mismatch)" in run["error"], run["error"]
        with open(target, "rb") as f:
            assert f.read() == bytes(16 * MiB)  # the new file was never written
    finally:
        target.unlink()


# --- names that fio reads differently ------------------------------------------------------


def test_a_colon_in_a_file_target_is_one_file_for_fio(stack: Stack, host: Host) -> None:
    """fio splits filename= on ':': TARGETS/c:/dev/loopN used to make it write /dev/loopN."""
    victim_device = host.attach(protected(host, "victim.img"))
    target = stack.data_dir / "targets" / "c:" / victim_device.lstrip("/")
    target.parent.mkdir(parents=True)
    drive = stack.add_drive(target, "interlock matrix colon file", size=16 * MiB)
    victim_before = sha256_of(victim_device)
    try:
        with stack.client() as c:
            run = wait_run(c, queue(c, drive, "four-corners", FOUR_CORNERS)["id"], timeout=120)
            jobs = job_files(c, run["id"])
        assert run["status"] == "done", run
        assert sha256_of(victim_device) == victim_before
        escaped = str(target).replace(":", "\\:")
        assert jobs and all(f"filename={escaped}\n" in job for job in jobs)
        assert os.stat(target).st_blocks > 0  # the sandbox file is what was written
    finally:
        target.unlink()


def test_a_by_path_link_with_colons_is_written_through_its_device(stack: Stack, host: Host) -> None:
    """A by-path style name: fio is given the device it resolves to, the one that was checked,
    and writes no stray files named after the pieces between the colons."""
    drive_file = protected(host, "drive.img")
    device = host.attach(drive_file)
    links = host.root / "by-path"
    links.mkdir()
    link = links / "pci-0000:00:05.0-nvme-1"
    link.symlink_to(device)
    drive = register(stack, str(link), identify(device).serial, "by-path")
    before = sha256_of(drive_file)
    with stack.client() as c:
        run = wait_run(c, queue(c, drive, "four-corners", FOUR_CORNERS)["id"], timeout=120)
        jobs = job_files(c, run["id"])
    assert run["status"] == "done", run
    assert sha256_of(drive_file) != before  # the registered drive was tested
    assert jobs and all(f"filename={device}\n" in job for job in jobs)
    workdir = stack.data_dir / "runs" / str(run["id"])
    assert sorted(p.suffix for p in workdir.iterdir() if p.is_file()) == [".fio"] * len(jobs)


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("../../dev/loop1", "it is relative"),
        ("dev/loop1", "it is relative"),
        ("/dev/../dev/loop1", ". or .. components"),
        ("/dev//loop1", "contains //"),
        ("/srv/drives/a;b.img", "contains ';'"),
        ("/srv/drives/${HOME}.img", "contains '$'"),
        ("/srv/drives/a\nb.img", "control character 0x0a"),
        (" /dev/loop1", "starts or ends with a blank"),
    ],
)
def test_targets_fio_would_read_differently_are_refused_at_registration(
    stack: Stack, target: str, problem: str
) -> None:
    with stack.client() as c:
        before = c.get("/api/drives").json()
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": target,
                "serial": "S6XXNX0R123456",
                "vendor": "drivelab",
                "model": "interlock matrix names",
                "capacity_bytes": 16 * MiB,
            },
        )
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "target_path"
        assert problem in r.json()["detail"]
        assert c.get("/api/drives").json() == before
        # Moving a registered drive to such a name is refused the same way.
        drive = stack.add_drive(stack.data_dir / "targets" / "names.img", "names", size=MiB)
        r = c.patch(f"/api/drives/{drive['id']}", json={"target_path": target})
        assert r.status_code == 422 and problem in r.json()["detail"], r.text
        assert c.get(f"/api/drives/{drive['id']}").json()["target_path"] == drive["target_path"]


def test_another_drive_at_a_registered_path_does_not_take_over_its_history(
    stack: Stack,
) -> None:
    """Loop numbers and /dev/sdX names are reused by the next drive attached: registering a
    drive with another serial at a registered path must not hand it the first one's runs."""
    path = stack.data_dir / "targets" / "reused-name.img"
    first = stack.add_drive(path, "interlock matrix first at a path", size=MiB)
    with stack.client() as c:
        r = c.post(
            "/api/drives",
            json={
                "bench": "local",
                "target_path": str(path),
                "serial": "S6XXNX0R000002",
                "vendor": "drivelab",
                "model": "interlock matrix second at a path",
                "capacity_bytes": MiB,
            },
        )
        assert r.status_code == 409, r.text
        assert f"drive {first['id']}" in r.json()["detail"]
        assert "/dev/disk/by-id/" in r.json()["detail"]
        kept = c.get(f"/api/drives/{first['id']}").json()
        assert kept["serial"] == first["serial"] and kept["model"] == first["model"]
        # The same drive registered again is an update, as before.
        assert stack.add_drive(path, "interlock matrix first at a path")["id"] == first["id"]
    path.unlink()


# --- parameters fio rejects ----------------------------------------------------------------

CUSTOM = {"profile": "custom", "rwmixread": 50, "percentage_random": 50, "iodepth": 1}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({**CUSTOM, "bssplit": "４k/100"}, "bssplit"),
        ({**CUSTOM, "bssplit": "99999999999999999999k/100"}, "bssplit"),
        ({"profile": "light", "randseed": 10**30}, "randseed"),
        ({"profile": "light", "span": "８m"}, "span"),
    ],
)
def test_parameters_fio_rejects_are_refused_before_anything_is_queued(
    stack: Stack, host: Host, params: dict, field: str
) -> None:
    device = host.attach(protected(host, "drive.img"))
    drive = register(stack, device, identify(device).serial, f"params {field}")
    before = sha256_of(device)
    with stack.client() as c:
        r = c.post(
            "/api/runs",
            json={
                "plan": "trace-replay",
                "drive_id": drive["id"],
                "params": {"span": "8m", "runtime_s": 1, **params},
                "confirm_serial": drive["serial"],
            },
        )
        assert r.status_code == 422, r.text
        assert field in r.json()["detail"]
        assert c.get(f"/api/drives/{drive['id']}").json()["active_run_id"] is None
    assert sha256_of(device) == before
