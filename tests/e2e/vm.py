"""The virtual bench in the tests: a QEMU guest (worker/vmbench.py) running a remote bench of
the session's stack, registered with `drivelab benches add` as a lab machine would be.

Both modules that use it (test_vmbench.py, test_vmbench_lost.py) run on one xdist worker of
their own (SHARED_WORKER "vm" in tests/conftest.py): one guest at a time on the machine.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, register_drive
from worker.steps.write_cache import parse_nvme_feature
from worker.vmbench import VmBench, VmBenchConfig, VmBenchError, find_kernel

BOOT_TIMEOUT_S = 900  # TCG on a busy two-core machine: a minute idle, several under load


def vm_tools_problem() -> str | None:
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 is missing: `make vm-tools`"
    try:
        find_kernel()
    except VmBenchError as exc:
        return str(exc)
    return None


@dataclass
class Bench:
    name: str
    token: str
    broker_url: str
    vm: VmBench


def add_bench(stack: Stack, name: str) -> tuple[str, str]:
    """`drivelab benches add NAME`: the token and the broker URL it prints."""
    out = stack.cli("benches", "add", name).stdout
    exports = dict(
        ln.strip().removeprefix("export ").split("=", 1)
        for ln in out.splitlines()
        if ln.strip().startswith("export ")
    )
    return exports["DRIVELAB_TOKEN"], exports["DRIVELAB_BROKER_URL"]


def boot(vm: VmBench, stack: Stack, bench: str) -> None:
    """Start the guest; return once its worker is online with its drives reported."""
    vm.start()
    try:
        vm.wait_ready(BOOT_TIMEOUT_S)
        wait_devices(stack, bench, ["/dev/nvme0n1", "/dev/nvme0n2", "/dev/sda"], vm)
    except BaseException:
        vm.kill()
        raise


@pytest.fixture(scope="module")
def vm_bench(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    problem = vm_tools_problem()
    if problem:
        pytest.fail(f"the virtual bench cannot start: {problem}")
    name = f"vm-{secrets.token_hex(3)}"
    token, broker = add_bench(stack, name)
    run_dir = tmp_path_factory.mktemp("vm-bench")
    vm = VmBench(
        VmBenchConfig(
            bench=name, token=token, broker_url=broker, api_url=stack.api_url, run_dir=run_dir,
            nvme_ns_mib=(128, 64), sata_mib=64,
        )  # fmt: skip
    )
    boot(vm, stack, name)
    try:
        yield Bench(name, token, broker, vm)
    finally:
        vm.stop()


def wait_devices(
    stack: Stack, bench: str, paths: list[str], vm: VmBench | None = None, timeout: float = 300
) -> list[dict]:
    """Until GET /api/benches/{bench}/devices lists every path (the worker says hello every
    10 s with what it sees)."""
    deadline = time.monotonic() + timeout
    with stack.client() as c:
        while True:
            r = c.get(f"/api/benches/{bench}/devices")
            devices = r.json() if r.status_code == 200 else []
            if all(any(d["path"] == p for d in devices) for p in paths):
                return devices
            if time.monotonic() > deadline:
                where = vm.guest_log()[-2000:] if vm else ""
                raise AssertionError(f"bench {bench} did not report {paths}: {devices}\n{where}")
            time.sleep(1)


def register_vm_drive(stack: Stack, bench: str, path: str, *, short_name: str) -> dict:
    """Register a drive of the virtual bench from what its worker reports: wait until
    GET /api/benches/{bench}/devices lists `path`, then POST /api/drives with its serial,
    model, firmware and size. The one place that registers the guest's drives. The api marks
    them emulated from the report (and simulated: results from them are not a product's)."""
    device = next(d for d in wait_devices(stack, bench, [path]) if d["path"] == path)
    with stack.client() as c:
        r = register_drive(
            c,
            {
                "bench": bench,
                "target_path": path,
                "serial": device["serial"],
                "vendor": "QEMU",
                "model": f"{device['model']} (emulated)",
                "firmware": device["firmware"],
                "capacity_bytes": device["size_bytes"],
                "interface": device["transport"],
                "logical_sector": device["logical_sector"],
                "simulated": True,
                "short_name": short_name,
            },
        )
    assert r.status_code == 201, r.text
    return r.json()


def queue(c: httpx.Client, drive: dict, plan: str, params: dict) -> dict:
    r = c.post(
        "/api/runs",
        json={"plan": plan, "drive_id": drive["id"], "params": params,
              "confirm_serial": drive["serial"]},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    return r.json()


def wait_run(
    c: httpx.Client,
    run_id: int,
    until: tuple[str, ...] = ("done", "failed", "cancelled", "lost"),
    timeout: float = 900,
) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        run = c.get(f"/api/runs/{run_id}").json()
        if run["status"] in until:
            return run
        assert time.monotonic() < deadline, f"run {run_id} not {until} in {timeout} s: {run}"
        time.sleep(1)


def cache_on(vm: VmBench) -> bool | None:
    """The NVMe controller's volatile write cache, read in the guest as a reviewer would
    (`nvme get-feature -f 6`; nvme-cli prints "Current value:00000000" for off)."""
    return parse_nvme_feature(vm.exec("nvme get-feature /dev/nvme0n1 -f 6"))


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
