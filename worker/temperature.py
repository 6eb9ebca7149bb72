"""The drive's temperature during every step, read once a second beside fio's samples.

Where it comes from, by drive kind (`find_source`):
- NVMe: the controller's hwmon sensor (temp1_input, the Composite Temperature, millidegrees;
  tempN_label names the others), under /sys/block/<ns>/device/hwmon* or
  /sys/class/nvme/nvmeX/hwmon*; where the kernel has no hwmon for it, the SMART / Health log
  (`nvme smart-log -o json`: temperature in kelvin), one command a second.
- SATA: the kernel's drivetemp hwmon sensor where it is loaded, else smartctl (attribute 194,
  else 190) at most every SMARTCTL_EVERY_S: each reading is a command.
- A simulated drive (worker.sim): its sensor file, read as an hwmon temp1_input is; its state
  file says where it is.
- Anything else (a file, a plain loop device): no sensor. Its samples carry None, shown as
  "no sensor", never 0.

On NVMe the SMART log's thermal counters (THERMAL_COUNTERS) are read every COUNTERS_EVERY_S
too, for the step's log; the controller's thresholds (WCTEMP, CCTEMP, the host-controlled
thermal management bounds) once per run, from Identify Controller (`thresholds`).

Reading never holds fio's output up: a `Sampler` reads in a thread of its own, and fio's
samples take the latest reading (`current_dc`), a dictionary lookup.
"""

from __future__ import annotations

import json
import logging
import math
import re
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from worker import devices
from worker.devices import DeviceInfo

log = logging.getLogger("drivelab.worker")

READ_EVERY_S = 1.0
SMARTCTL_EVERY_S = 10.0
COUNTERS_EVERY_S = 5.0
# A reading older than this many of its source's intervals is not the drive's temperature now.
STALE_INTERVALS = 2.5
KELVIN = 273.15
_TIMEOUT_S = 10.0
THERMAL_COUNTERS = (
    "warning_temp_time",
    "critical_comp_time",
    "thm_temp1_trans_count",
    "thm_temp2_trans_count",
    "thm_temp1_total_time",
    "thm_temp2_total_time",
)


# --- parsing (pure) --------------------------------------------------------------------------


def millidegrees(text: str) -> float | None:
    """°C from an hwmon temp*_input (an integer of millidegrees); None for anything else."""
    text = text.strip()
    if not re.fullmatch(r"-?\d+", text):
        return None
    return int(text) / 1000.0


def _int(value: Any) -> int | None:
    """nvme-cli 2.x prints the 128-bit counters as strings, the others as numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def smart_log_temperature(log_data: dict[str, Any]) -> float | None:
    """°C from `nvme smart-log -o json` (its `temperature` is the Composite, in kelvin); None
    when the controller reports 0 (no sensor)."""
    kelvin = _int(log_data.get("temperature"))
    if not kelvin:
        return None
    return round(kelvin - KELVIN, 2)


def smart_log_counters(log_data: dict[str, Any]) -> dict[str, int | None]:
    """The SMART log's thermal counters: minutes above WCTEMP and CCTEMP, and how often and
    how long (seconds) host-controlled thermal management moved to its levels 1 and 2."""
    return {name: _int(log_data.get(name)) for name in THERMAL_COUNTERS}


def smartctl_temperature(data: dict[str, Any]) -> float | None:
    """°C from `smartctl --json`: its own `temperature.current`, else ATA attribute 194
    (Temperature_Celsius) or 190 (Airflow_Temperature_Cel), whose raw value's low byte is the
    current temperature (the higher bytes hold the min and max)."""
    current = (data.get("temperature") or {}).get("current")
    if isinstance(current, int | float) and not isinstance(current, bool):
        return float(current)
    table = (data.get("ata_smart_attributes") or {}).get("table") or []
    for wanted in (194, 190):
        row = next((r for r in table if r.get("id") == wanted), None)
        raw = ((row or {}).get("raw") or {}).get("value")
        if isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw & 0xFF)
    return None


def _celsius(kelvin: Any) -> float | None:
    k = _int(kelvin)
    return round(k - KELVIN, 2) if k else None


def thresholds(id_ctrl: dict[str, Any] | None) -> dict[str, Any] | None:
    """The controller's temperature thresholds from Identify Controller (kelvin, and °C; a
    field the controller leaves 0 is not reported: None): WCTEMP (warning composite: the drive
    starts to throttle or count warning time), CCTEMP (critical), and host-controlled thermal
    management (HCTMA: supported or not; MNTMT/MXTMT, the lowest and highest temperatures the
    host may set its thresholds TMT1/TMT2 to). None for a drive without Identify Controller."""
    if not id_ctrl:
        return None
    out: dict[str, Any] = {"hctma": bool((_int(id_ctrl.get("hctma")) or 0) & 1)}
    for key in ("wctemp", "cctemp", "mntmt", "mxtmt"):
        kelvin = _int(id_ctrl.get(key))
        out[f"{key}_k"] = kelvin or None
        out[f"{key}_c"] = _celsius(kelvin)
    return out


# --- where a drive's temperature is ----------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where one drive's temperature is read: `kind` hwmon (a file of millidegrees: a real
    drive's or a simulated drive's sensor), nvme-smart-log or smartctl (a command), and how
    often (`every_s`)."""

    kind: str
    path: str  # the sensor file, or the device the command reads
    every_s: float
    label: str = ""  # hwmon's temp1_label, where it has one ("Composite")
    counters_device: str | None = None  # NVMe: the controller whose SMART log has counters

    def read(self) -> float | None:
        """°C now, or None when the reading failed."""
        if self.kind == "hwmon":
            try:
                return millidegrees(Path(self.path).read_text())
            except OSError:
                return None
        if self.kind == "nvme-smart-log":
            data = run_json(["nvme", "smart-log", self.path, "-o", "json"])
            return smart_log_temperature(data) if data else None
        if self.kind == "smartctl":
            data = run_json(["smartctl", "--json", "-A", self.path])
            return smartctl_temperature(data) if data else None
        return None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path, "every_s": self.every_s, "label": self.label}


def run_json(cmd: list[str]) -> dict[str, Any] | None:
    """A tool's JSON output; None when it is missing, fails to start, hangs or prints none."""
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=_TIMEOUT_S
        )
        data = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def nvme_controller(name: str) -> str | None:
    """The controller of an NVMe namespace (nvme0n1 -> nvme0), None for other names."""
    match = re.match(r"(nvme\d+)", name)
    return match.group(1) if match else None


def hwmon_dirs(info: DeviceInfo, sysfs: Path | None = None) -> list[Path]:
    """The drive's hwmon directories: the device's own (NVMe namespaces and SATA disks with
    drivetemp) and, for NVMe, the controller's."""
    sysfs = sysfs or devices.SYSFS
    bases = [devices.block_dir(info.name, sysfs) / "device"]
    ctrl = nvme_controller(info.name)
    if ctrl:
        bases.append(sysfs / "class" / "nvme" / ctrl)
    found: list[Path] = []
    for base in bases:
        for d in sorted([*base.glob("hwmon*"), *base.glob("hwmon/hwmon*")]):
            if (d / "temp1_input").exists() and d.resolve() not in {f.resolve() for f in found}:
                found.append(d)
    return found


def hwmon_sensors(directory: Path) -> list[dict[str, Any]]:
    """Every temperature sensor of one hwmon directory: its number, label and °C now."""
    out = []
    for path in sorted(directory.glob("temp*_input"), key=lambda p: int(p.name[4:-6] or 0)):
        label_file = path.with_name(path.name.replace("_input", "_label"))
        try:
            label = label_file.read_text().strip() if label_file.exists() else ""
            value = millidegrees(path.read_text())
        except OSError:
            continue
        out.append({"sensor": path.name[:-6], "label": label, "path": str(path), "c": value})
    return out


def find_source(info: DeviceInfo, sysfs: Path | None = None) -> Source | None:
    """Where the temperature of the drive `info` is read, None when it has no sensor."""
    if info.transport == "loop":
        return _sim_source(info)
    if info.kind != "block":
        return None
    ctrl = nvme_controller(info.name) if info.transport == "nvme" else None
    counters = f"/dev/{ctrl}" if ctrl else None
    for d in hwmon_dirs(info, sysfs):
        label_file = d / "temp1_label"
        label = label_file.read_text().strip() if label_file.exists() else ""
        return Source("hwmon", str(d / "temp1_input"), READ_EVERY_S, label, counters)
    if ctrl:
        return Source("nvme-smart-log", f"/dev/{ctrl}", READ_EVERY_S, "Composite", counters)
    if info.transport in ("sata", "scsi", "usb"):
        return Source("smartctl", info.path, SMARTCTL_EVERY_S)
    return None


def _sim_source(info: DeviceInfo) -> Source | None:
    """A simulated drive's sensor file, as its controller's state file names it."""
    from worker.sim.registry import read_state

    state = read_state(info.name)
    if state is None or not state.sensor:
        return None
    if info.backing_file is None or not info.backing_file.startswith(state.backing_file):
        return None  # the loop device now backs something else
    return Source("hwmon", state.sensor, READ_EVERY_S, "simulated drive")


def drive_thermal(info: DeviceInfo, id_ctrl: dict[str, Any] | None) -> dict[str, Any]:
    """What a run's environment records of the drive's thermal side, once per run: where its
    temperature is read from (None: no sensor), every hwmon sensor it has with its label, and
    the controller's thresholds (NVMe)."""
    source = find_source(info)
    sensors = [s for d in hwmon_dirs(info) for s in hwmon_sensors(d)] if source else []
    return {
        "source": source.as_dict() if source else None,
        "sensors": sensors,
        "thresholds": thresholds(id_ctrl),
    }


# --- reading during a step -------------------------------------------------------------------


@dataclass
class Sampler:
    """Reads `source` every `source.every_s` (and an NVMe controller's thermal counters every
    COUNTERS_EVERY_S) in a thread of its own for as long as the step runs."""

    source: Source | None
    clock: Callable[[], float] = time.monotonic
    counters: dict[str, list[Any]] = field(default_factory=dict)
    _latest: tuple[float, float] | None = None  # (when, °C)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _counters_thread: threading.Thread | None = None
    _started: float = 0.0
    readings: int = 0
    failures: int = 0

    @classmethod
    def for_device(cls, info: DeviceInfo) -> Sampler:
        try:
            source = find_source(info)
        except OSError as exc:
            log.warning("no temperature for %s: %s", info.path, exc)
            source = None
        return cls(source)

    def start(self) -> Sampler:
        self._started = self.clock()
        if self.source is not None and self.source.kind == "hwmon":
            # A file read: the step's first samples get a temperature too. Commands (nvme-cli,
            # smartctl) are left to the thread.
            self._take(self.source.read())
        if self.source is not None:
            self._thread = threading.Thread(target=self._loop, name="temperature", daemon=True)
            self._thread.start()
        if self.source is not None and self.source.counters_device:
            # nvme-cli in a thread of its own: a slow smart-log (seconds on a busy or emulated
            # controller) must not hold the once-a-second temperature up until it goes stale.
            self._counters_thread = threading.Thread(
                target=self._counters_loop, name="thermal-counters", daemon=True
            )
            self._counters_thread.start()
        return self

    def stop(self) -> None:
        """Stop reading. A command still running (smartctl on a busy drive) is not waited for
        beyond a second: it ends by its own timeout, and the step's end is not held up."""
        self._stop.set()
        for thread in (self._thread, self._counters_thread):
            if thread is not None:
                thread.join(1.0)

    def __enter__(self) -> Sampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def current_c(self) -> float | None:
        """The latest reading, None without a sensor or when it is stale (the tool failed)."""
        latest = self._latest
        if latest is None or self.source is None:
            return None
        if self.clock() - latest[0] > STALE_INTERVALS * self.source.every_s + 1.0:
            return None
        return latest[1]

    def reading(self) -> tuple[float, float] | None:
        """The latest reading with the time it was taken (this sampler's clock), None as
        current_c is."""
        latest = self._latest
        return None if latest is None or self.current_c() is None else latest

    def current_dc(self) -> int | None:
        """current_c in tenths of a degree, as samples store it."""
        c = self.current_c()
        # Halves round up (49.85 °C, QEMU's 323 K, is 499), not to even as round() does.
        return None if c is None else math.floor(c * 10 + 0.5)

    def _loop(self) -> None:
        assert self.source is not None
        while not self._stop.is_set():
            began = self.clock()
            self._take(self.source.read())
            self._stop.wait(max(0.0, self.source.every_s - (self.clock() - began)))

    def _counters_loop(self) -> None:
        while not self._stop.is_set():
            began = self.clock()
            self._read_counters(began)
            self._stop.wait(max(0.0, COUNTERS_EVERY_S - (self.clock() - began)))

    def _take(self, value: float | None) -> None:
        if value is None:
            self.failures += 1
        else:
            self._latest = (self.clock(), value)
            self.readings += 1

    def _read_counters(self, at: float) -> None:
        assert self.source is not None and self.source.counters_device
        data = run_json(["nvme", "smart-log", self.source.counters_device, "-o", "json"])
        if not data:
            return
        self.counters.setdefault("t_ms", []).append(round((at - self._started) * 1000))
        for name, value in smart_log_counters(data).items():
            self.counters.setdefault(name, []).append(value)

    def log(self) -> dict[str, Any] | None:
        """What the step's log keeps: where the temperature was read, how many readings
        failed, and the thermal counters over the step (t_ms since the step started)."""
        if self.source is None:
            return None
        out: dict[str, Any] = {
            "source": self.source.as_dict(),
            "readings": self.readings,
            "failed_readings": self.failures,
        }
        if self.counters:
            out["counters"] = self.counters
        return out
