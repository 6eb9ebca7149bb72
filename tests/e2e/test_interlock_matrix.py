"""The interlock tried as an attacker would, through the whole stack, on loop devices only.

Each case registers a target, queues a plan and does what a careless or unlucky lab does
(swaps the drive while the plan idles or between two rounds, names it with colons, registers a
relative path, passes parameters fio rejects, uploads a trace recorded elsewhere, hard-links a
file into the sandbox, runs a worker with another bench's token), then checks the checksum of
every device that must stay untouched and the rule named in the run's error (or the 422 that
refused it). test_interlock.py has the up-front cases (mounted, a mounted partition, swap,
wrong serial, outside the sandbox, a symlink from the sandbox into /dev).
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.bench.common import stack_database_url
from tests.conftest import Stack, register_drive, reported_device, wait_run
from tests.faults.conftest import queue
from tests.worker.conftest import Host, MiB, loop_backing_files, sha256_of
from worker.client import ApiClient
from worker.devices import identify
from worker.executor import WorkerContext, execute_run

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


def by_id_dir(host: Host) -> Path:
    """/dev/disk/by-id, where the bench's report finds a drive's stable names (links made
    there are removed by the test's cleanup)."""
    links = Path("/dev/disk/by-id")
    links.mkdir(parents=True, exist_ok=True)
    return links


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
            sandbox=stack.data_dir / "targets",
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
    links = by_id_dir(host)
    link = links / f"nvme-drivelab_TEST_S6XXNX0R123456-{secrets.token_hex(3)}"
    host.symlink(link, drive_device)
    drive = register(stack, str(link), identify(drive_device).serial, "repointed")
    victim_before = sha256_of(victim_device)
    with stack.client() as c:
        run_id = queue(c, drive, "performance-over-time", OVER_TIME)["id"]
        wait_for_running_step(c, run_id, "idle")
        moved = links / f"drivelab-test-moved-{secrets.token_hex(3)}"
        moved.symlink_to(victim_device)
        moved.replace(link)
        run = wait_run(c, run_id, timeout=120)
    assert run["status"] == "failed", run
    assert run["error"].startswith("safety interlock: at the end of step idle"), run["error"]
    # The link leads to a drive with another serial: the first rule to fail says so.
    assert "(rule: serial-mismatch)" in run["error"]
    assert sha256_of(victim_device) == victim_before


def test_a_link_repointed_between_two_rounds_is_refused_before_the_next_round(
    stack: Stack, host: Host
) -> None:
    """A PTS loop runs fio once per round, and each round is a write: the target is checked
    before each. The link moves while round 1 runs (fio keeps the device it opened); the next
    round is refused, and neither the victim nor anything after the loop is written."""
    drive_device = host.attach(protected(host, "drive.img"))
    victim_device = host.attach(protected(host, "victim.img"))
    links = by_id_dir(host)
    link = links / f"nvme-drivelab_TEST_S6XXNX0R654321-{secrets.token_hex(3)}"
    host.symlink(link, drive_device)
    drive = register(stack, str(link), identify(drive_device).serial, "rounds")
    victim_before = sha256_of(victim_device)
    params = {"span": "8m", "round_s": 2, "max_rounds": 5, "measurement_s": 1}
    with stack.client() as c:
        run_id = queue(c, drive, "pts-steady-state", params)["id"]
        step = wait_for_running_step(c, run_id, "fio-rounds")
        deadline = time.monotonic() + 60
        while not c.get(f"/api/runs/{run_id}/samples", params={"step_id": step["id"]}).json():
            assert time.monotonic() < deadline, "round 1 wrote no samples"
            time.sleep(0.05)
        moved = links / f"drivelab-test-moved-{secrets.token_hex(3)}"
        moved.symlink_to(victim_device)
        moved.replace(link)
        run = wait_run(c, run_id, timeout=120)
    assert run["status"] == "failed", run
    found = re.match(
        rf"safety interlock: before \d\d-{step['name']}-r(\d+): refusing to write {link}: ",
        run["error"],
    )
    assert found and int(found.group(1)) >= 2, run["error"]
    assert "(rule: serial-mismatch)" in run["error"]
    after = run["steps"][[s["id"] for s in run["steps"]].index(step["id"]) + 1 :]
    assert after and all(s["started_at"] is None for s in after)
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
        # fio is given the held device under its own name in a mount namespace of its own.
        "fio_opens": device,
        "fio_pinned_by": "mount namespace",
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
    links = Path("/dev/disk/by-path")  # where the bench's report finds stable names
    links.mkdir(parents=True, exist_ok=True)
    link = links / f"pci-0000:00:05.0-nvme-{secrets.token_hex(3)}"
    host.symlink(link, device)
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
        ("/srv/drives/a\u2028exec_prerun=touch x/b.img", "U+2028 (line separator)"),
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
            refused=True,
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


def test_a_line_separator_stored_in_a_target_name_never_reaches_fio(
    stack: Stack, tmp_path: Path
) -> None:
    """A name registered before U+2028 was refused: the worker's copy of the job file had cut
    the filename= line at it (splitlines), and what followed became an option of its own, here
    exec_prerun, a command fio runs as the worker's user. Only the api's comparison of the job
    file at the step's start stopped it (a "worker error"). The interlock now refuses the name
    (rule target-name) before anything runs, and the command never does."""
    ran = tmp_path / "ran"
    ran.mkdir()
    sandbox = stack.data_dir / "targets"
    decoy = stack.add_drive(sandbox / f"decoy-{secrets.token_hex(3)}.img", "decoy", size=16 * MiB)
    evil = sandbox / f"d\u2028exec_prerun=touch {ran}" / "drive.img"
    evil.parent.mkdir(parents=True)
    with open(evil, "wb") as f:
        f.truncate(16 * MiB)
    with psycopg.connect(stack_database_url(stack)) as conn:
        conn.execute(
            "UPDATE drive_samples SET target_path = %s, serial = %s WHERE id = %s",
            (str(evil), identify(evil).serial, decoy["id"]),
        )
    try:
        with stack.client() as c:
            drive = c.get(f"/api/drives/{decoy['id']}").json()
            assert drive["target_path"] == str(evil)
            run = wait_run(c, queue(c, drive, "four-corners", FOUR_CORNERS)["id"], timeout=60)
        assert run["status"] == "failed", run
        assert "(rule: target-name)" in run["error"], run["error"]
        assert "U+2028 (line separator)" in run["error"]
        assert all(s["started_at"] is None for s in run["steps"])
        assert list(ran.iterdir()) == []  # the command never ran
        assert os.stat(evil).st_blocks == 0  # nothing was written
    finally:
        with psycopg.connect(stack_database_url(stack)) as conn:
            conn.execute(
                "UPDATE drive_samples SET target_path = %s, serial = %s WHERE id = %s",
                (decoy["target_path"], decoy["serial"], decoy["id"]),
            )
        evil.unlink()


def test_another_drive_at_a_registered_path_does_not_take_over_its_history(
    stack: Stack,
) -> None:
    """Loop numbers and /dev/sdX names are reused by the next drive attached: registering a
    drive with another serial at a registered path must not hand it the first one's runs."""
    path = stack.data_dir / "targets" / "reused-name.img"
    first = stack.add_drive(path, "interlock matrix first at a path", size=MiB)
    # The same drive registered again is an update, as before.
    assert stack.add_drive(path, "interlock matrix first at a path")["id"] == first["id"]
    # Another "drive" at the same name: a new file (a new inode, so a new serial) put there.
    fresh = path.with_name("reused-name.new")
    with open(fresh, "wb") as f:
        f.truncate(MiB)
    os.replace(fresh, path)
    with stack.client() as c:
        entry = reported_device(c, "local", str(path))
        deadline = time.monotonic() + 60
        while entry["serial"] == first["serial"] and time.monotonic() < deadline:
            time.sleep(0.2)
            entry = reported_device(c, "local", str(path))
        assert entry["serial"] != first["serial"]
        r = register_drive(
            c,
            {
                "bench": "local",
                "target_path": str(path),
                "serial": entry["serial"],
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
    path.unlink()


# --- parameters fio rejects ----------------------------------------------------------------

CUSTOM = {"profile": "custom", "rwmixread": 50, "percentage_random": 50, "iodepth": 1}


@pytest.mark.parametrize(
    ("plan", "params", "field"),
    [
        ("trace-replay", {**CUSTOM, "bssplit": "４k/100"}, "bssplit"),
        ("trace-replay", {**CUSTOM, "bssplit": "99999999999999999999k/100"}, "bssplit"),
        ("trace-replay", {"profile": "light", "randseed": 10**30}, "randseed"),
        ("trace-replay", {"profile": "light", "span": "８m"}, "span"),
        # fio refuses a job smaller than its blocks only when it starts: after the fill.
        ("trace-replay", {**CUSTOM, "bssplit": "4k/50,16m/100"}, "bssplit"),
        # Each round's seed is one more: round 2 of this seed is one fio refuses.
        ("pts-wsat", {"randseed": 2**63 - 1, "round_s": 1, "max_s": 5}, "randseed"),
    ],
)
def test_parameters_fio_rejects_are_refused_before_anything_is_queued(
    stack: Stack, host: Host, plan: str, params: dict, field: str
) -> None:
    device = host.attach(protected(host, "drive.img"))
    drive = register(stack, device, identify(device).serial, f"params {field}")
    before = sha256_of(device)
    with stack.client() as c:
        r = c.post(
            "/api/runs",
            json={
                "plan": plan,
                "drive_id": drive["id"],
                "params": {
                    "span": "8m",
                    **({"runtime_s": 1} if plan == "trace-replay" else {}),
                    **params,
                },
                "confirm_serial": drive["serial"],
            },
        )
        assert r.status_code == 422, r.text
        assert field in r.json()["detail"]
        assert c.get(f"/api/drives/{drive['id']}").json()["active_run_id"] is None
    assert sha256_of(device) == before


# --- uploaded traces -----------------------------------------------------------------------


def iolog(*lines: str) -> bytes:
    return ("\n".join(["fio version 2 iolog", *lines, ""])).encode()


def upload(c: httpx.Client, data: bytes) -> httpx.Response:
    return c.post(
        "/api/traces",
        params={"name": f"matrix-{secrets.token_hex(3)}"},
        content=data,
        headers={"content-type": "application/octet-stream"},
    )


def test_a_trace_the_drive_cannot_hold_is_refused_before_anything_is_queued(
    stack: Stack, host: Host
) -> None:
    """A trace recorded on a larger device writes past the end of this one: fio had failed
    with ENOSPC after the fill. Lengths that are not whole sectors fail direct I/O (EINVAL):
    such a trace is refused when it is uploaded."""
    device = host.attach(protected(host, "drive.img"))
    drive = register(stack, device, identify(device).serial, "trace too far")
    before = sha256_of(device)
    with stack.client() as c:
        odd = upload(c, iolog("/x add", "/x open", "/x write 0 4096", "/x write 8192 100"))
        assert odd.status_code == 422, odd.text
        assert "100 bytes is not a whole number of 512-byte sectors" in odd.json()["detail"]
        far = upload(c, iolog("/x add", "/x open", "/x write 0 4096", f"/x write {32 * MiB} 4096"))
        assert far.status_code == 201, far.text
        trace = far.json()
        assert (trace["end_bytes"], trace["align_bytes"]) == (32 * MiB + 4096, 4096)
        r = c.post(
            "/api/runs",
            json={
                "plan": "trace-replay",
                "drive_id": drive["id"],
                "params": {"trace_id": trace["id"], "span": "8m"},
                "confirm_serial": drive["serial"],
            },
        )
        assert r.status_code == 422, r.text
        assert r.json()["field"] == "params.trace_id"
        assert f"reaches byte {32 * MiB + 4096}" in r.json()["detail"]
        assert f"the drive holds {16 * MiB} bytes" in r.json()["detail"]
        assert c.get(f"/api/drives/{drive['id']}").json()["active_run_id"] is None
    assert sha256_of(device) == before


def test_a_trace_naming_another_file_writes_only_the_registered_drive(
    stack: Stack, host: Host
) -> None:
    """An iolog names the files it was recorded on: here a device that must not be written.
    fio is given the checked target as replay_redirect, and writes nothing else."""
    victim = host.attach(protected(host, "victim.img"))
    drive_file = protected(host, "drive.img")
    device = host.attach(drive_file)
    drive = register(stack, device, identify(device).serial, "trace names another")
    victim_before, drive_before = sha256_of(victim), sha256_of(drive_file)
    writes = [f"{victim} write {i * 64 * 1024} 65536" for i in range(16)]
    with stack.client() as c:
        up = upload(c, iolog(f"{victim} add", f"{victim} open", *writes, f"{victim} close"))
        assert up.status_code == 201, up.text
        run = wait_run(
            c,
            queue(c, drive, "trace-replay", {"trace_id": up.json()["id"], "prefill": False})["id"],
            timeout=120,
        )
        jobs = job_files(c, run["id"])
    assert run["status"] == "done", run
    assert jobs and f"replay_redirect={device}\n" in jobs[-1]
    assert sha256_of(victim) == victim_before
    assert sha256_of(drive_file) != drive_before


# --- the sandbox ---------------------------------------------------------------------------


def test_a_sandbox_file_hard_linked_to_a_file_outside_is_refused(
    stack: Stack, tmp_path: Path
) -> None:
    """A hard link in the sandbox resolves to itself and carries the outside file's inode,
    hence its serial: the link count is what tells."""
    outside = tmp_path / "database-file"
    with open(outside, "wb") as f:
        f.write(os.urandom(MiB))
        f.truncate(16 * MiB)
    link = stack.data_dir / "targets" / f"linked-{secrets.token_hex(3)}.img"
    os.link(outside, link)
    before = sha256_of(outside)
    try:
        with stack.client() as c:
            # The bench reports the hard link as in use: registration refuses it.
            entry = reported_device(c, "local", str(link))
            assert "2 names (hard links)" in " ".join(entry["in_use"]), entry
            r = register_drive(
                c,
                {
                    "bench": "local",
                    "target_path": str(link),
                    "serial": entry["serial"],
                    "vendor": "drivelab",
                    "model": f"interlock matrix {link.name}",
                    "capacity_bytes": 16 * MiB,
                },
                refused=True,
            )
            assert r.status_code == 422 and "hard links" in r.json()["detail"], r.text
        # A file of its own registered at the name, then the hard link put in its place.
        link.unlink()
        drive = stack.add_drive(link, f"interlock matrix {link.name}", size=16 * MiB)
        swap = link.with_name(link.name + ".new")
        os.link(outside, swap)
        os.replace(swap, link)
        with stack.client() as c:
            run = wait_run(c, queue(c, drive, "four-corners", FOUR_CORNERS)["id"], timeout=60)
        assert run["status"] == "failed", run
        assert run["error"].startswith("safety interlock: refusing to write"), run["error"]
        assert "(rule: hard-link)" in run["error"] and "2 names (hard links)" in run["error"]
        assert all(s["started_at"] is None for s in run["steps"])
        assert sha256_of(outside) == before
    finally:
        link.unlink()


# --- another bench ---------------------------------------------------------------------------


def new_bench(stack: Stack, name: str) -> str:
    """Add a bench; its worker token."""
    out = stack.cli("benches", "add", name).stdout
    token = next((w.split("=", 1)[1] for w in out.split() if w.startswith("DRIVELAB_TOKEN=")), None)
    assert token, out
    return token


def test_a_worker_with_another_benchs_token_is_refused_the_run(
    stack: Stack, host: Host, tmp_path: Path
) -> None:
    """Benches share the broker, so a worker may be handed another bench's task: the api
    refuses it the run (claim, and every later call), and nothing is written."""
    tag = secrets.token_hex(3)
    owner, other = f"owner-{tag}", f"other-{tag}"
    owner_token = new_bench(stack, owner)  # no worker runs for it: its run stays queued
    other_token = new_bench(stack, other)
    device = host.attach(protected(host, "drive.img"))
    serial = identify(device).serial
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": owner,
                "target_path": device,
                "serial": serial,
                "vendor": "drivelab",
                "model": f"interlock matrix {owner}",
                "capacity_bytes": 16 * MiB,
            },
            bench_token=owner_token,
        )
        assert r.status_code == 201, r.text
        run_id = queue(c, r.json(), "four-corners", FOUR_CORNERS)["id"]
    before = sha256_of(device)
    work = tmp_path / "other-bench"
    client = ApiClient(stack.api_url, other_token, retry_for_s=5)
    try:
        ctx = WorkerContext(client=client, bench=other, data_dir=work, sandbox=work / "targets")
        assert execute_run(ctx, run_id) == "skipped"
    finally:
        client.close()
    with stack.client(token=other_token) as w:
        for path, body in (
            (f"/api/worker/runs/{run_id}/claim", {"worker": "x"}),
            (f"/api/worker/runs/{run_id}/heartbeat", {"progress": 0.5}),
            (f"/api/worker/runs/{run_id}/finish", {"status": "done", "error": None}),
        ):
            r = w.post(path, json=body)
            assert r.status_code == 403, (path, r.text)
            assert f"belongs to bench {owner}, not {other}" in r.json()["detail"]
    with stack.client() as c:
        run = c.get(f"/api/runs/{run_id}").json()
        assert run["status"] == "queued" and run["error"] is None, run
        assert all(s["started_at"] is None for s in run["steps"])
        assert c.post(f"/api/runs/{run_id}/cancel").status_code == 200
    assert sha256_of(device) == before
