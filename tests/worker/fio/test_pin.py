"""worker.fio.pin on its own: fio opens the held descriptor in every section, whatever happens
to the name meanwhile, in both ways of handing it over, with real fio and loop devices."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.worker.conftest import Host, MiB, sha256_of
from worker.fio.pin import PIN_FAILED, Pin, argv_prefix, fio_name, namespace_available

SECTIONS = 6


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    if os.geteuid() != 0:
        pytest.skip("loop devices and mount namespaces need root")
    with ExitStack() as cleanup:
        yield Host(tmp_path, cleanup)


def job(name: str, sections: int = SECTIONS, runtime_ms: int = 300) -> str:
    """Sections that each open `name` again (stonewall), writing for `runtime_ms` each."""
    head = f"[global]\nioengine=psync\ndirect=1\nfilename={name}\nsize=4m\nbs=64k\n"
    body = "".join(
        f"[s{i}]\nrw=randwrite\ntime_based=1\nruntime={runtime_ms}ms\nstonewall\n"
        for i in range(sections)
    )
    return head + body


def run_fio(workdir: Path, text: str, pins: list[Pin], *, namespace: bool) -> dict:
    (workdir / "job.fio").write_text(text)
    done = subprocess.run(
        [*argv_prefix(pins, namespace=namespace), "fio", "--output-format=json", "job.fio"],
        pass_fds=[p.fd for p in pins],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def written(result: dict) -> int:
    return sum(j["write"]["io_bytes"] for j in result["jobs"])


def swap_after(delay_s: float, action: object) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay_s), action()))  # type: ignore[operator]
    thread.start()
    return thread


@pytest.mark.parametrize("namespace", [True, False], ids=["namespace", "descriptor"])
def test_a_file_replaced_by_a_symlink_between_sections_is_not_followed(
    host: Host, tmp_path: Path, namespace: bool
) -> None:
    if namespace and not namespace_available():
        pytest.skip("this machine cannot make a mount namespace")
    victim_file = host.sparse_file("victim.img", 8 * MiB)
    victim = host.attach(victim_file)
    before = sha256_of(victim)
    target = host.sparse_file("target.img", 8 * MiB)
    fd = os.open(target, os.O_RDONLY | os.O_CLOEXEC)
    try:
        name = fio_name(fd, kind="file", kernel_name="", file_name=str(target), namespace=namespace)

        def swap() -> None:
            target.rename(target.with_name("moved.img"))
            target.symlink_to(victim)

        thread = swap_after(0.5, swap)
        result = run_fio(tmp_path, job(name), [Pin(fd, name)], namespace=namespace)
        thread.join()
    finally:
        os.close(fd)
    assert target.is_symlink()  # the name changed during the run
    assert len(result["jobs"]) == SECTIONS and written(result) > 0
    assert sha256_of(victim) == before
    assert os.stat(target.with_name("moved.img")).st_blocks > 0  # the held file took it all


def test_a_block_device_keeps_its_kernel_name_and_fios_disk_statistics(
    host: Host, tmp_path: Path
) -> None:
    """In a namespace, fio is given the kernel's own name, so the job file is the stored one
    and fio finds the device for disk_util, as it does without a pin."""
    if not namespace_available():
        pytest.skip("this machine cannot make a mount namespace")
    device = host.attach(host.sparse_file("drive.img", 8 * MiB))
    fd = os.open(device, os.O_RDWR | os.O_EXCL | os.O_CLOEXEC)
    try:
        name = fio_name(
            fd, kind="block", kernel_name=Path(device).name, file_name=device, namespace=True
        )
        assert name == device
        pinned = run_fio(tmp_path, job(name, 2), [Pin(fd, name)], namespace=True)
    finally:
        os.close(fd)
    plain = run_fio(tmp_path, job(device, 2), [], namespace=False)
    assert [d["name"] for d in pinned["disk_util"]] == [Path(device).name]
    assert [d["name"] for d in plain["disk_util"]] == [Path(device).name]


def test_a_device_node_remade_outside_the_namespace_is_not_seen_inside(
    host: Host, tmp_path: Path
) -> None:
    """A node re-made with another major:minor under the registered alias while fio runs."""
    if not namespace_available():
        pytest.skip("this machine cannot make a mount namespace")
    drive = host.attach(host.sparse_file("drive.img", 8 * MiB))
    victim = host.attach(host.sparse_file("victim.img", 8 * MiB))
    before = sha256_of(victim)
    fd = os.open(drive, os.O_RDWR | os.O_EXCL | os.O_CLOEXEC)
    try:
        name = fio_name(
            fd, kind="block", kernel_name=Path(drive).name, file_name="", namespace=True
        )
        alias = tmp_path / "alias"
        os.mknod(alias, 0o600 | 0o060000, os.stat(drive).st_rdev)

        def remake() -> None:
            alias.unlink()
            os.mknod(alias, 0o600 | 0o060000, os.stat(victim).st_rdev)

        thread = swap_after(0.5, remake)
        result = run_fio(tmp_path, job(name), [Pin(fd, name)], namespace=True)
        thread.join()
    finally:
        os.close(fd)
    assert written(result) > 0
    assert sha256_of(victim) == before


def test_a_pin_that_cannot_be_made_stops_before_fio_starts(tmp_path: Path) -> None:
    if not namespace_available():
        pytest.skip("this machine cannot make a mount namespace")
    fd = os.open("/dev/null", os.O_RDONLY)
    marker = tmp_path / "ran"
    try:
        done = subprocess.run(
            [*argv_prefix([Pin(fd, "/etc/not-under-dev")], namespace=True), "touch", str(marker)],
            pass_fds=(fd,),
            capture_output=True,
            text=True,
        )
    finally:
        os.close(fd)
    assert done.returncode == PIN_FAILED
    assert "fio was not started" in done.stderr and "/etc/not-under-dev" in done.stderr
    assert not marker.exists()


def test_the_namespace_leaves_the_hosts_mounts_alone(host: Host, tmp_path: Path) -> None:
    if not namespace_available():
        pytest.skip("this machine cannot make a mount namespace")
    target = host.sparse_file("t.img", 8 * MiB)
    fd = os.open(target, os.O_RDONLY | os.O_CLOEXEC)
    try:
        name = fio_name(fd, kind="file", kernel_name="", file_name=str(target), namespace=True)
        run_fio(tmp_path, job(name, 1, 100), [Pin(fd, name)], namespace=True)
    finally:
        os.close(fd)
    assert "drivelab-fio" not in Path("/proc/self/mountinfo").read_text()
    assert not Path("/dev/drivelab").exists()
