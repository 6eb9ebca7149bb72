"""The drive's temperature beside every sample (worker.temperature): the readings' parsing on
what QEMU's NVMe controller and AHCI disk really print (tests/fixtures/qemu-guest, recorded in
the virtual bench's guest: nvme-cli 2.3, smartctl 7.3, Linux 6.1), the sensor found by drive
kind in a sysfs tree laid out as the kernel's, and the sampler's thread."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.worker.test_driveinfo import fake_drive
from worker import devices, temperature
from worker.temperature import Sampler, Source

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "qemu-guest"


def recorded(name: str) -> str:
    return (RECORDED / name).read_text()


def test_hwmon_millidegrees_of_the_qemu_controller() -> None:
    # QEMU's controller reports 323 K; the kernel's hwmon shows it as 49850 millidegrees.
    assert temperature.millidegrees(recorded("hwmon-temp1_input.txt")) == 49.85
    assert temperature.millidegrees("-1500\n") == -1.5
    assert temperature.millidegrees("") is None
    assert temperature.millidegrees("N/A") is None


def test_nvme_smart_log_temperature_is_kelvin_and_agrees_with_hwmon() -> None:
    log = json.loads(recorded("nvme-smart-log.json"))
    assert log["temperature"] == 323
    assert temperature.smart_log_temperature(log) == pytest.approx(49.85)
    hwmon = temperature.millidegrees(recorded("hwmon-temp1_input.txt"))
    assert temperature.smart_log_temperature(log) == pytest.approx(hwmon, abs=0.01)
    # A controller with no sensor reports 0 K: no temperature, not -273 °C.
    assert temperature.smart_log_temperature({"temperature": 0}) is None


def test_nvme_smart_log_thermal_counters() -> None:
    counters = temperature.smart_log_counters(json.loads(recorded("nvme-smart-log.json")))
    assert counters == dict.fromkeys(temperature.THERMAL_COUNTERS, 0)
    # nvme-cli 2.x prints some counters as strings.
    got = temperature.smart_log_counters({"thm_temp1_trans_count": "7", "warning_temp_time": 3})
    assert got["thm_temp1_trans_count"] == 7 and got["warning_temp_time"] == 3
    assert got["critical_comp_time"] is None


def test_thresholds_of_the_qemu_controller() -> None:
    got = temperature.thresholds(json.loads(recorded("nvme-id-ctrl.json")))
    assert got is not None
    assert got["wctemp_k"] == 343 and got["wctemp_c"] == pytest.approx(69.85)
    assert got["cctemp_k"] == 373 and got["cctemp_c"] == pytest.approx(99.85)
    # QEMU has no host-controlled thermal management: its bounds are 0, reported as None.
    assert got["hctma"] is False and got["mntmt_c"] is None and got["mxtmt_c"] is None
    assert temperature.thresholds(None) is None


def test_smartctl_temperature_of_the_qemu_sata_disk() -> None:
    data = json.loads(recorded("smartctl-sata.json"))
    assert temperature.smartctl_temperature(data) == 31
    # Without smartctl's own summary: attribute 190's raw value, low byte (min/max above it).
    del data["temperature"]
    assert temperature.smartctl_temperature(data) == 31
    table = {"ata_smart_attributes": {"table": [{"id": 194, "raw": {"value": 0x2A0014_0028}}]}}
    assert temperature.smartctl_temperature(table) == 0x28
    assert temperature.smartctl_temperature({}) is None


def _hwmon(root: Path, where: str, sensors: dict[int, tuple[str, int]]) -> Path:
    d = root / where
    d.mkdir(parents=True)
    for n, (label, milli) in sensors.items():
        (d / f"temp{n}_input").write_text(f"{milli}\n")
        if label:
            (d / f"temp{n}_label").write_text(f"{label}\n")
    return d


def test_nvme_reads_the_controllers_hwmon_composite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(devices, "SYSFS", tmp_path)
    (tmp_path / "class" / "block" / "nvme0n1" / "device").mkdir(parents=True)
    d = _hwmon(tmp_path, "class/nvme/nvme0/hwmon3",
               {1: ("Composite", 49850), 2: ("Sensor 1", 55100), 3: ("", 41000)})  # fmt: skip
    info = fake_drive("/dev/nvme0n1", "nvme")
    source = temperature.find_source(info, tmp_path)
    assert source == Source("hwmon", str(d / "temp1_input"), 1.0, "Composite", "/dev/nvme0")
    assert source.read() == 49.85
    sensors = temperature.hwmon_sensors(d)
    assert [(s["sensor"], s["label"], s["c"]) for s in sensors] == [
        ("temp1", "Composite", 49.85),
        ("temp2", "Sensor 1", 55.1),
        ("temp3", "", 41.0),
    ]


def test_nvme_without_hwmon_reads_the_smart_log(tmp_path: Path) -> None:
    (tmp_path / "class" / "block" / "nvme1n1" / "device").mkdir(parents=True)
    source = temperature.find_source(fake_drive("/dev/nvme1n1", "nvme"), tmp_path)
    assert source is not None
    assert (source.kind, source.path, source.every_s) == ("nvme-smart-log", "/dev/nvme1", 1.0)


def test_sata_reads_drivetemp_or_smartctl_every_ten_seconds(tmp_path: Path) -> None:
    (tmp_path / "class" / "block" / "sda" / "device").mkdir(parents=True)
    source = temperature.find_source(fake_drive("/dev/sda", "sata"), tmp_path)
    assert source is not None
    assert (source.kind, source.path, source.every_s) == ("smartctl", "/dev/sda", 10.0)
    _hwmon(tmp_path, "class/block/sda/device/hwmon/hwmon1", {1: ("", 31000)})
    source = temperature.find_source(fake_drive("/dev/sda", "sata"), tmp_path)
    assert source is not None and source.kind == "hwmon" and source.read() == 31.0


def test_files_and_plain_loop_devices_have_no_sensor(tmp_path: Path) -> None:
    virtio = fake_drive("/dev/vda", "virtio")
    (tmp_path / "class" / "block" / "vda" / "device").mkdir(parents=True)
    assert temperature.find_source(virtio, tmp_path) is None
    target = tmp_path / "target.img"
    target.write_bytes(b"\0" * 4096)
    assert temperature.find_source(devices.identify_file(str(target)), tmp_path) is None
    sampler = Sampler(None).start()
    assert sampler.current_dc() is None and sampler.log() is None
    sampler.stop()


def wait_for(cond: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.01)


def test_the_sampler_reads_in_its_own_thread_and_never_waits(tmp_path: Path) -> None:
    sensor = tmp_path / "temp1_input"
    sensor.write_text("42500\n")
    reads: list[float] = []
    done: list[float] = []
    gate = threading.Event()

    class Slow(Source):
        """A command's reading (nvme-cli on a busy controller) that takes a while: the first
        one is held until the test lets it go."""

        def read(self) -> float | None:
            reads.append(time.monotonic())
            gate.wait(60)
            done.append(time.monotonic())
            return temperature.millidegrees(sensor.read_text())

    sampler = Sampler(Slow("nvme-smart-log", str(sensor), 0.2)).start()
    try:
        # Starting does not wait for the reading, nor does asking for the temperature: both
        # answer while the first reading is still held (order, not time: a busy host is slow).
        assert sampler.current_dc() is None
        assert done == [] and not gate.is_set()
        gate.set()
        wait_for(lambda: sampler.current_dc() is not None, "the first reading")
        assert sampler.current_dc() == 425
        sensor.write_text("43260\n")
        wait_for(lambda: sampler.current_dc() == 433, "the changed reading")  # 43.26 °C
        wait_for(lambda: len(reads) >= 3, "a third reading")
    finally:
        sampler.stop()
    log = sampler.log()
    assert log is not None and log["readings"] >= 3 and log["source"]["path"] == str(sensor)


def test_an_hwmon_sensor_is_read_at_once_for_the_first_samples(tmp_path: Path) -> None:
    sensor = tmp_path / "temp1_input"
    sensor.write_text("49850\n")
    with Sampler(Source("hwmon", str(sensor), 1.0)) as sampler:
        assert sampler.current_dc() == 499  # 49.85 °C: halves round up


def test_a_stale_reading_is_no_temperature(tmp_path: Path) -> None:
    now = [100.0]
    sampler = Sampler(Source("hwmon", str(tmp_path / "none"), 1.0), clock=lambda: now[0])
    sampler._latest = (100.0, 50.0)
    assert sampler.current_dc() == 500
    now[0] = 100.0 + temperature.STALE_INTERVALS + 1.1
    assert sampler.current_dc() is None


def test_a_reading_carries_the_time_it_was_taken(tmp_path: Path) -> None:
    """A thermal plan's cool phase places each sample at its reading's time."""
    now = [100.0]
    sampler = Sampler(Source("hwmon", str(tmp_path / "none"), 1.0), clock=lambda: now[0])
    assert sampler.reading() is None
    sampler._latest = (99.4, 47.25)
    assert sampler.reading() == (99.4, 47.25)
    now[0] = 99.4 + temperature.STALE_INTERVALS + 1.1
    assert sampler.reading() is None  # stale, as current_c


def test_a_slow_smart_log_does_not_hold_the_temperature_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An NVMe drive's thermal counters come from nvme-cli, which took seconds on an emulated
    controller of a busy host: the hwmon temperature is still read every interval meanwhile,
    so no sample of the step goes without it (before, the two shared one thread and the
    reading went stale while smart-log ran)."""
    sensor = tmp_path / "temp1_input"
    sensor.write_text("49850\n")
    release = threading.Event()
    calls: list[float] = []

    def slow_run_json(argv: list[str]) -> dict | None:
        calls.append(time.monotonic())
        release.wait(60)
        return {"warning_temp_time": 0}

    monkeypatch.setattr(temperature, "run_json", slow_run_json)
    source = Source("hwmon", str(sensor), 0.1, counters_device="/dev/nvme0")
    sampler = Sampler(source).start()
    try:
        wait_for(lambda: bool(calls), "reading of the counters")
        readings = sampler.readings
        sensor.write_text("51000\n")
        # smart-log is still running: the temperature moves on regardless.
        wait_for(lambda: sampler.current_dc() == 510, "reading of the new temperature")
        assert sampler.readings > readings and not release.is_set()
    finally:
        release.set()
        sampler.stop()
