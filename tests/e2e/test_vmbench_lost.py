"""The virtual bench loses its worker, then itself: the worker killed mid-run and started
again puts back the write cache the run had turned off; a namespace swapped during an idle step
is refused; the guest killed mid-run leaves the run `lost` with its samples kept, and the guest
started again takes the next run. One guest (booted twice), on the "vm" xdist worker."""

from __future__ import annotations

import time

import pytest

from tests.conftest import Stack
from tests.e2e.vm import (
    Bench,
    boot,
    cache_on,
    queue,
    register_vm_drive,
    vm_bench,  # noqa: F401 - the module's guest
    wait_run,
)
from worker.vmbench import SERIAL_NVME, SERIAL_NVME_SPARE

# A guest under TCG on a busy machine: its boot (in the first test's setup) and slow drives
# take longer than the suite's 300 s per test.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

WSAT_LONG = {"span": "96m", "round_s": 1, "max_s": 900, "capacity_multiple": 16, "threads": 1,
             "profile": "enterprise"}  # fmt: skip


@pytest.fixture(scope="module")
def nvme(stack: Stack, vm_bench: Bench) -> dict:  # noqa: F811
    return register_vm_drive(stack, vm_bench.name, "/dev/nvme0n1", short_name="vm-lost ns1")


def wait_step(c, run_id: int, name: str, timeout: float = 600) -> dict:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        run = c.get(f"/api/runs/{run_id}").json()
        step = next((s for s in run["steps"] if s["name"] == name), None)
        if step and step["started_at"]:
            return run
        assert run["status"] in ("queued", "running"), run
        assert time.monotonic() < deadline, run
        time.sleep(1)


def samples_of(c, run: dict) -> int:  # type: ignore[no-untyped-def]
    r = c.get(f"/api/runs/{run['id']}/samples")
    assert r.status_code == 200, r.text
    return len(r.json())


def test_a_killed_worker_puts_the_write_cache_back_when_it_starts_again(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    assert cache_on(vm) is True
    with stack.client() as c:
        run = queue(c, nvme, "pts-wsat", WSAT_LONG)
        wait_step(c, run["id"], "rounds")
        assert cache_on(vm) is False
        vm.kill_worker()  # SIGKILL: nothing runs in the worker after this; the guest restarts it
        run = wait_run(c, run["id"], until=("lost", "failed", "done", "cancelled"), timeout=600)
        assert run["status"] == "lost", run
    # The restarted worker put the setting back before taking anything else, and said so (it
    # logs what it put back once every recorded setting is done: the drive can show the cache
    # on a moment before the line is written).
    said = f"run {run['id']}: write cache of /dev/nvme0n1 ({nvme['serial']}) put back"
    deadline = time.monotonic() + 300
    while cache_on(vm) is not True or said not in (vm.ctl / "worker.log").read_text():
        assert time.monotonic() < deadline, vm.exec(f"tail -n 30 {vm.ctl}/worker.log")
        time.sleep(2)
    assert cache_on(vm) is True
    # The killed worker's fio lives on in the guest until its time is up: end it, so that the
    # next test's run can hold the namespace.
    vm.exec("for p in $(pidof fio); do kill -9 $p; done", check=False)


def test_a_guest_killed_mid_run_is_lost_and_the_bench_comes_back(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    # Four corners without the prewrite: its first step reads for minutes, a sample a second.
    long = {"span": "32m", "runtime_s": 900, "seq_runtime_s": 1, "prewrite": False}
    with stack.client() as c:
        run = queue(c, nvme, "four-corners", long)
        first = wait_step(c, run["id"], "randread-4k-qd3")
        deadline = time.monotonic() + 300
        while samples_of(c, first) < 3:  # a few samples stored
            assert time.monotonic() < deadline, "no samples from the guest's run"
            time.sleep(2)
        vm.kill()
        run = wait_run(c, run["id"], timeout=600)
        assert run["status"] == "lost", run
        assert samples_of(c, run) > 0
    # Started again, the bench takes the next run.
    boot(vm, stack, vm_bench.name)
    with stack.client() as c:
        run = queue(c, nvme, "four-corners", {"span": "8m", "runtime_s": 1, "seq_runtime_s": 1})
        run = wait_run(c, run["id"], timeout=900)
    assert run["status"] == "done", run


def test_a_namespace_swapped_during_an_idle_step_is_refused(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    """The registered namespace's controller is removed (QEMU monitor device_del) while the
    plan idles, and another controller attached in its place takes the name /dev/nvme0n1."""
    vm = vm_bench.vm
    params = {"span": "16m", "torture_runtime_s": 1, "idle_s": 120}
    with stack.client() as c:
        run = queue(c, nvme, "performance-over-time", params)
        idle = next((s for s in run["steps"] if s["kind"] == "idle"), None)
        assert idle is not None, run["steps"]
        wait_step(c, run["id"], idle["name"])
        assert vm.monitor("device_del nvme0") == ""
        deadline = time.monotonic() + 180
        while SERIAL_NVME in vm.exec("cat /sys/class/nvme/*/serial", check=False):
            assert time.monotonic() < deadline, "the guest did not let go of nvme0"
            time.sleep(1)
        vm.monitor(f"device_add nvme,id=nvme9,serial={SERIAL_NVME_SPARE},drive=spare")
        deadline = time.monotonic() + 180
        while SERIAL_NVME_SPARE not in vm.exec("cat /sys/class/nvme/*/serial", check=False):
            assert time.monotonic() < deadline, "the new controller did not appear"
            time.sleep(1)
        run = wait_run(c, run["id"], timeout=600)
    assert run["status"] == "failed", run
    assert run["error"].startswith("safety interlock"), run["error"]
    assert "/dev/nvme0n1" in run["error"], run["error"]
    assert run["steps"][-1]["started_at"] is None  # nothing after the idle step ran
