"""drivelab's device layer against real controller drivers: QEMU's NVMe controller (two
namespaces) and AHCI disk in a guest whose own Linux, nvme-cli, smartctl and hdparm talk to them
as to hardware, with the worker inside it as a remote bench of the session's stack (api and
database on the host). One guest for the module (tests/e2e/vm.py: vm_bench).

Namespace 2 is never registered: its backing file on the host reads the same before the first
test and after the last (test_zz_...)."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import Stack
from tests.e2e.vm import (
    Bench,
    cache_on,
    queue,
    register_vm_drive,
    sha256_of,
    vm_bench,  # noqa: F401 - the module's guest
    wait_run,
)
from worker.vmbench import MODEL_SATA, SERIAL_NVME, SERIAL_SATA

# A guest under TCG on a busy machine: its boot (in the first test's setup) and slow drives
# take longer than the suite's 300 s per test.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

MiB = 1024 * 1024
NVME_UNIT = 512_000  # NVMe SMART data units: thousands of 512-byte units, rounded up


@pytest.fixture(scope="module")
def untouched(vm_bench: Bench) -> str:  # noqa: F811
    """sha256 of the unregistered namespace's backing file, before any test wrote anything."""
    return sha256_of(vm_bench.vm.image("nvme-ns2"))


@pytest.fixture(scope="module")
def nvme(stack: Stack, vm_bench: Bench, untouched: str) -> dict:  # noqa: F811
    return register_vm_drive(stack, vm_bench.name, "/dev/nvme0n1", short_name="vm nvme ns1")


@pytest.fixture(scope="module")
def sata(stack: Stack, vm_bench: Bench, untouched: str) -> dict:  # noqa: F811
    return register_vm_drive(stack, vm_bench.name, "/dev/sda", short_name="vm sata")


def devices(stack: Stack, bench: str) -> dict[str, dict]:
    with stack.client() as c:
        return {d["path"]: d for d in c.get(f"/api/benches/{bench}/devices").json()}


def results(step: dict) -> dict[str, float]:
    return {r["metric"]: r["value"] for r in step["results"]}


def test_identity_comes_from_the_controller(stack: Stack, vm_bench: Bench, nvme: dict) -> None:  # noqa: F811
    vm = vm_bench.vm
    ctrl = vm.exec_json("nvme id-ctrl /dev/nvme0 -o json")
    ns1 = vm.exec_json("nvme id-ns /dev/nvme0n1 -o json")
    seen = devices(stack, vm_bench.name)
    one, two, disk = seen["/dev/nvme0n1"], seen["/dev/nvme0n2"], seen["/dev/sda"]
    assert ctrl["sn"].strip() == one["serial"] == SERIAL_NVME
    assert ctrl["mn"].strip() == one["model"] == "QEMU NVMe Ctrl"
    assert ctrl["fr"].strip() == one["firmware"]
    assert one["transport"] == "nvme" and one["size_bytes"] == 128 * MiB
    lbaf = ns1["lbafs"][ns1["flbas"] & 0xF]
    assert one["logical_sector"] == 2 ** lbaf["ds"] == 512
    assert ns1["nsze"] * 512 == one["size_bytes"]
    # The second namespace of the same controller is another target: the interlock must not
    # take it for the registered one, so it does not carry the same identity.
    assert two["size_bytes"] == 64 * MiB and two["serial"] != one["serial"]
    assert two["serial"].startswith(SERIAL_NVME)
    # ATA IDENTIFY, not the 16 characters of the SCSI INQUIRY that libata makes of it.
    assert disk["serial"] == SERIAL_SATA and disk["transport"] == "sata"
    assert disk["model"] == MODEL_SATA
    assert one["emulated"] and two["emulated"] and disk["emulated"]
    assert nvme["serial"] == SERIAL_NVME and nvme["simulated"] and nvme["emulated"]


def test_smart_data_units_written_grow_by_what_fio_wrote(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    with stack.client() as c:
        run = wait_run(c, queue(c, nvme, "hdtach", {"span": "16m"})["id"])
        assert run["status"] == "done", run
        env = c.get(f"/api/runs/{run['id']}").json()["environment"]
        written = sum(results(s).get("write_bytes", 0) for s in run["steps"])
    before = env["drive"]["smart"]["smartctl"]["nvme_smart_health_information_log"]
    after = env["smart_after"]["smartctl"]["nvme_smart_health_information_log"]
    grown = after["data_units_written"] - before["data_units_written"]
    assert written == 16 * MiB  # one full-span write pass (and a read pass)
    # Both counts are rounded up, so the growth is the written bytes' units rounded up or down.
    assert math.floor(written / NVME_UNIT) <= grown <= math.ceil(written / NVME_UNIT), (
        grown, written / NVME_UNIT,
    )  # fmt: skip
    assert env["smart_after"]["data_written_bytes"] - env["drive"]["smart"][
        "data_written_bytes"
    ] == grown * NVME_UNIT


def test_temperature_from_hwmon_and_smart_agree_and_is_kept(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    hwmon = vm.exec("cat /sys/class/nvme/nvme0/hwmon*/temp1_input")
    log = vm.exec_json("nvme smart-log /dev/nvme0 -o json")
    kelvin = log["temperature"]
    celsius = int(hwmon.strip()) / 1000
    assert celsius == pytest.approx(kelvin - 273.15, abs=0.01)
    with stack.client() as c:
        runs = c.get("/api/runs", params={"drive_id": nvme["id"]}).json()
        items = runs["items"] if isinstance(runs, dict) else runs
        env = c.get(f"/api/runs/{items[0]['id']}").json()["environment"]
    smart = env["drive"]["smart"]
    assert smart["temperature_c"] == round(kelvin - 273.15)
    assert env["drive"].get("hwmon_temperature_c") == pytest.approx(celsius, abs=0.01)


def test_every_sample_carries_the_controllers_temperature(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    """The worker in the guest reads the real nvme driver's hwmon sensor once a second: every
    sample of a run on /dev/nvme0n1 carries the temperature QEMU's controller reports, and it
    agrees with nvme-cli's SMART log; the run's environment has the controller's thresholds."""
    vm = vm_bench.vm
    celsius = int(vm.exec("cat /sys/class/nvme/nvme0/hwmon*/temp1_input").strip()) / 1000
    kelvin = vm.exec_json("nvme smart-log /dev/nvme0 -o json")["temperature"]
    ctrl = vm.exec_json("nvme id-ctrl /dev/nvme0 -o json")
    with stack.client() as c:
        runs = c.get("/api/runs", params={"drive_id": nvme["id"]}).json()
        items = runs["items"] if isinstance(runs, dict) else runs
        run = c.get(f"/api/runs/{items[0]['id']}").json()
        samples = c.get(f"/api/runs/{run['id']}/samples").json()
        fio_steps = [s["id"] for s in run["steps"] if s["kind"] == "fio"]
        logs = [c.get(f"/api/runs/{run['id']}/steps/{i}/logs").json() for i in fio_steps]
    temps = [s["temp_c"] for s in samples if s["step_id"] in fio_steps]
    assert temps and all(t is not None for t in temps), temps
    # Stored in tenths of a degree: 49.85 °C is 49.9.
    assert all(abs(t - celsius) <= 0.05 + 1e-9 for t in temps), (set(temps), celsius)
    assert all(abs(t - (kelvin - 273.15)) <= 0.05 + 1e-9 for t in temps), (set(temps), kelvin)
    thermal = run["environment"]["drive"]["thermal"]
    assert thermal["source"]["kind"] == "hwmon"
    assert thermal["source"]["path"].endswith("/temp1_input")
    assert thermal["thresholds"]["wctemp_k"] == ctrl["wctemp"]
    assert thermal["thresholds"]["wctemp_c"] == pytest.approx(ctrl["wctemp"] - 273.15)
    assert thermal["thresholds"]["cctemp_k"] == ctrl["cctemp"]
    composite = thermal["sensors"][0]
    assert composite["sensor"] == "temp1" and composite["c"] == pytest.approx(celsius)
    # The SMART log's thermal counters, read through nvme-cli during each step (QEMU's are 0).
    for log in logs:
        counters = log["thermal"]["counters"]
        assert log["thermal"]["source"]["kind"] == "hwmon" and log["thermal"]["readings"] >= 1
        assert counters["t_ms"] and set(counters["warning_temp_time"]) == {0}, counters
        assert set(counters["thm_temp1_trans_count"]) == {0}, counters


def test_purge_formats_the_namespace_with_secure_erase(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    ctrl = vm.exec_json("nvme id-ctrl /dev/nvme0 -o json")
    assert ctrl["sanicap"] == 0  # QEMU's controller advertises no sanitize
    with stack.client() as c:
        run = queue(c, nvme, "trim-validation", {"span": "16m", "torture_runtime_s": 1})
        run = wait_run(c, run["id"])
        assert run["status"] == "done", run
        purge = run["steps"][0]
        assert purge["kind"] == "purge"
        evidence = c.get(f"/api/runs/{run['id']}/steps/{purge['id']}/logs").json()
    text = json.dumps(evidence)
    assert "nvme-format-ses1" in text and "nvme format /dev/nvme0n1 --ses=1" in text, text
    # The Format itself, by the worker's purge in the guest: the namespace reads zeros after.
    vm.exec("dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=8 oflag=direct status=none")
    assert vm.exec("cmp -n 8388608 /dev/nvme0n1 /dev/zero", check=False).strip()
    vm.exec(
        "cd / && PYTHONPATH=" + str(_root()) + " " + str(_root() / ".venv/bin/python") + " -c "
        "'from worker.devices import identify; from worker.steps.purge import purge; "
        "print(purge(identify(\"/dev/nvme0n1\")).as_dict())'"
    )
    assert vm.exec("cmp -n 134217728 /dev/nvme0n1 /dev/zero && echo zeros").strip() == "zeros"


def test_ata_secure_erase_is_refused_on_a_disk_without_the_security_feature(
    stack: Stack, vm_bench: Bench, sata: dict  # noqa: F811
) -> None:
    identify = vm_bench.vm.exec("hdparm -I /dev/sda")
    assert "Security:" not in identify or "not\tsupported" in identify
    with stack.client() as c:
        run = queue(c, sata, "trim-validation", {"span": "8m", "torture_runtime_s": 1})
        run = wait_run(c, run["id"])
        purge = run["steps"][0]
        evidence = c.get(f"/api/runs/{run['id']}/steps/{purge['id']}/logs").json()
    text = json.dumps(evidence) + (run["error"] or "")
    assert "does not support ATA security erase" in text, (run, evidence)


def test_trim_performance_discards_on_the_namespace(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    with stack.client() as c:
        params = {"span": "32m", "amounts": ["8m"], "followup_s": 1}
        run = queue(c, nvme, "trim-performance", params)
        run = wait_run(c, run["id"])
    assert run["status"] == "done", run
    trims = [s for s in run["steps"] if s["kind"] == "trim"]
    assert [results(t)["trim_bytes"] for t in trims] == [8 * MiB, 32 * MiB]
    # DSM deallocate: QEMU's namespace reads zeros where it was deallocated.
    assert vm_bench.vm.exec("cmp -n 33554432 /dev/nvme0n1 /dev/zero && echo zeros", check=False)


def test_write_cache_off_for_the_plan_then_restored(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    assert cache_on(vm) is True
    params = {"span": "16m", "round_s": 1, "max_s": 6, "capacity_multiple": 1, "threads": 1,
              "profile": "enterprise"}  # fmt: skip
    with stack.client() as c:
        run = wait_run(c, queue(c, nvme, "pts-wsat", params)["id"])
        assert run["status"] == "done", run
        steps = {s["name"]: s for s in run["steps"]}
        off = c.get(f"/api/runs/{run['id']}/steps/{steps['write-cache']['id']}/logs").json()
        back = c.get(
            f"/api/runs/{run['id']}/steps/{steps['write-cache-restore']['id']}/logs"
        ).json()
    assert off["write_cache"]["before"] is True and off["write_cache"]["after"] is False, off
    assert back["write_cache"]["restored"] and back["write_cache"]["after"] is True, back
    assert cache_on(vm) is True


def test_write_cache_restored_after_a_cancelled_run(
    stack: Stack, vm_bench: Bench, nvme: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    params = {"span": "96m", "round_s": 1, "max_s": 600, "capacity_multiple": 16, "threads": 1,
              "profile": "enterprise"}  # fmt: skip
    with stack.client() as c:
        run = queue(c, nvme, "pts-wsat", params)
        wait_for_rounds(c, run["id"])
        assert cache_on(vm) is False
        assert c.post(f"/api/runs/{run['id']}/cancel").status_code in (200, 202)
        run = wait_run(c, run["id"])
    assert run["status"] == "cancelled", run
    assert cache_on(vm) is True


def wait_for_rounds(c, run_id: int) -> None:  # type: ignore[no-untyped-def]
    import time

    deadline = time.monotonic() + 600
    while True:
        run = c.get(f"/api/runs/{run_id}").json()
        rounds = next((s for s in run["steps"] if s["name"] == "rounds"), None)
        if rounds and rounds["started_at"]:
            return
        assert run["status"] in ("queued", "running"), run
        assert time.monotonic() < deadline, run
        time.sleep(1)


def test_a_mounted_partition_is_refused(
    stack: Stack, vm_bench: Bench, sata: dict  # noqa: F811
) -> None:
    vm = vm_bench.vm
    vm.exec(
        "echo 'start=2048, size=32768, type=83' | sfdisk -q /dev/sda && "
        "mkfs.ext4 -q -F /dev/sda1 && mkdir -p /mnt/p && mount /dev/sda1 /mnt/p"
    )
    try:
        with stack.client() as c:
            run = wait_run(c, queue(c, sata, "trim-validation", {"span": "8m"})["id"])
        assert run["status"] == "failed", run
        assert run["error"].startswith("safety interlock"), run["error"]
        assert "mounted" in run["error"] and "sda1" in run["error"], run["error"]
    finally:
        vm.exec("umount /mnt/p; wipefs -q -a /dev/sda1; wipefs -q -a /dev/sda", check=False)


def test_zz_the_unregistered_namespace_was_never_written(
    vm_bench: Bench, untouched: str  # noqa: F811
) -> None:
    assert sha256_of(vm_bench.vm.image("nvme-ns2")) == untouched


def _root():  # type: ignore[no-untyped-def]
    from tests.conftest import ROOT

    return ROOT
