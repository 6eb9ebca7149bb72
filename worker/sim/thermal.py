"""A simulated drive's temperature and thermal throttle: the known answer for drivelab's
temperature readings and for telling a thermal step-down from a cache one. Pure: no I/O (the
controller, worker.sim.controller, writes the sensor file and the events).

The model is a first-order one, as a drive with a heatsink behaves to a first approximation:

    dT/dt = heat_c_per_mb x (MB written per second) - (T - ambient_c) / cooling_tau_s

so a sustained write at R MB/s heats the drive towards ambient_c + heat_c_per_mb x R x
cooling_tau_s, and an idle drive cools back towards ambient_c with the time constant
cooling_tau_s. Above throttle_c the drive throttles: its writes (and reads) go no faster than
throttle_mbps, until it has cooled below release_c (hysteresis, as firmware does it).

The temperature is written to a sensor file in millidegrees Celsius, as the kernel's hwmon
shows a drive's (temp1_input), and the simulated drive's state file says where it is: the
worker reads it through the same code as a real drive's hwmon sensor (worker.temperature).
With `external`, the controller does not compute the temperature but reads it from the sensor
file, which a test or a reviewer's rig writes: the drive throttles on that temperature.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

MB = 1_000_000


@dataclass(frozen=True)
class Thermal:
    """How a simulated drive heats, cools and throttles (see the module's docstring)."""

    ambient_c: float
    heat_c_per_mb: float  # °C of heating per MB written, before cooling
    cooling_tau_s: float  # time constant of the cooling towards ambient_c
    throttle_c: float  # throttle when the temperature reaches this
    release_c: float  # and release when it falls below this
    throttle_mbps: float  # the speed limit while throttled (writes and reads)
    start_c: float | None = None  # the temperature at start (default: ambient_c)
    external: bool = False  # the sensor file is written from outside; the model only reads it

    def __post_init__(self) -> None:
        if not self.release_c < self.throttle_c:
            raise ValueError(
                f"thermal: release_c ({self.release_c:g}) must be below throttle_c "
                f"({self.throttle_c:g}), or the throttle would never release"
            )
        if self.cooling_tau_s <= 0 or self.heat_c_per_mb < 0 or self.throttle_mbps <= 0:
            raise ValueError(
                "thermal: cooling_tau_s and throttle_mbps must be positive, heat_c_per_mb at "
                "least 0"
            )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def steady_c(self, mbps: float) -> float:
        """The temperature a sustained `mbps` heats the drive to."""
        return self.ambient_c + self.heat_c_per_mb * mbps * self.cooling_tau_s

    def describe(self) -> list[str]:
        lines = [
            f"throttles to {self.throttle_mbps:g} MB/s at {self.throttle_c:g} °C, releases "
            f"below {self.release_c:g} °C"
        ]
        if self.external:
            lines.append("its temperature is written to its sensor file from outside")
        else:
            lines.append(
                f"heats {self.heat_c_per_mb:g} °C per MB written, cools towards "
                f"{self.ambient_c:g} °C (time constant {self.cooling_tau_s:g} s)"
            )
        return lines


@dataclass
class ThermalState:
    """The model, running: feed it the time and the bytes written (and read) since the last
    tick, get whether the drive is throttled and the engage/release events."""

    model: Thermal
    temp_c: float = math.nan
    throttled: bool = False
    _last: float | None = None
    engaged: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if math.isnan(self.temp_c):
            self.temp_c = self.model.ambient_c if self.model.start_c is None else self.model.start_c

    def step(
        self, now: float, moved_bytes: int, wall: float, external_c: float | None = None
    ) -> list[dict[str, Any]]:
        """Advance to `now` (monotonic seconds) with `moved_bytes` written since the last
        tick; with an external sensor, `external_c` is its reading. The events of the tick:
        thermal-throttle (engaged) and thermal-release, each with the wall time and the
        temperature."""
        m = self.model
        if m.external:
            if external_c is not None:
                self.temp_c = external_c
        elif self._last is not None:
            dt = max(0.0, now - self._last)
            # Exact for constant heating over the tick: T -> T_inf + (T - T_inf) e^(-dt/tau).
            rate = moved_bytes / MB / dt if dt > 0 else 0.0
            target = m.ambient_c + m.heat_c_per_mb * rate * m.cooling_tau_s
            self.temp_c = target + (self.temp_c - target) * math.exp(-dt / m.cooling_tau_s)
        self._last = now
        events: list[dict[str, Any]] = []
        if not self.throttled and self.temp_c >= m.throttle_c:
            self.throttled = True
            events.append(self._event("thermal-throttle", now, wall, mbps=m.throttle_mbps))
        elif self.throttled and self.temp_c < m.release_c:
            self.throttled = False
            events.append(self._event("thermal-release", now, wall))
        return events

    def _event(self, kind: str, now: float, wall: float, **extra: Any) -> dict[str, Any]:
        return {"kind": kind, "t": now, "wall": wall, "temp_c": round(self.temp_c, 3), **extra}

    def limit_bps(self) -> int | None:
        """The thermal speed limit now (bytes/s), None when not throttled."""
        return int(self.model.throttle_mbps * MB) if self.throttled else None

    @property
    def millidegrees(self) -> int:
        return round(self.temp_c * 1000)


def write_sensor(path: Path, millidegrees: int) -> None:
    """The sensor file as hwmon's temp1_input reads: an integer of millidegrees Celsius and
    a newline, replaced whole so that a reader never sees half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{millidegrees}\n")
    tmp.replace(path)


def read_sensor(path: Path) -> float | None:
    """°C from a sensor file of millidegrees; None when it is missing or not a number."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    try:
        return int(text) / 1000.0
    except ValueError:
        return None


def limited(limit: int | None, thermal: int | None) -> int | None:
    """The lower of a limit (None: unlimited) and the thermal limit."""
    if thermal is None:
        return limit
    return thermal if limit is None else min(limit, thermal)


# The sensor file and the trace are written this often (hwmon's own sensors update about
# once a second; a reader gets a value at most this old).
SENSOR_EVERY_S = 0.05


class SensorWriter:
    """The thermal model of a running simulated drive: each tick, the bytes the device wrote
    heat it; the throttle's engage and release go into the controller's events (with wall time
    and temperature); the sensor file gets the temperature in millidegrees, and the trace file
    a line "wall °C throttled" every SENSOR_EVERY_S, the temperature the sensor had."""

    def __init__(self, model: Thermal, sensor: Path, trace: Path) -> None:
        self.model = model
        self.state = ThermalState(model)
        self.sensor = sensor
        sensor.parent.mkdir(parents=True, exist_ok=True)
        # An external sensor's file is the rig's; the controller writes the start value only
        # where there is none yet, and removes only a file it created.
        self._owned = not model.external or read_sensor(sensor) is None
        if self._owned:
            write_sensor(sensor, self.state.millidegrees)
        self._trace = open(trace, "a")  # noqa: SIM115 (closed by close)
        self._device_written: int | None = None
        self._next = -math.inf
        self._flushed = 0.0

    def step(
        self,
        now: float,
        wall: float,
        device_written: int,
        written: int,
        limits: Any,
        events: list[dict[str, Any]],
    ) -> Any:
        """`limits` (worker.sim.profile.Limits) with the thermal limit applied; the tick's
        thermal events appended to `events`. `device_written` is the device's own counter,
        `written` what the profile counts since the drive's last reset."""
        moved = 0 if self._device_written is None else max(0, device_written - self._device_written)
        self._device_written = device_written
        due = now >= self._next
        external = read_sensor(self.sensor) if self.model.external and due else None
        for e in self.state.step(now, moved, wall, external):
            e["written"] = written
            events.append(e)
            due = True
        if due:
            self._next = now + SENSOR_EVERY_S
            if not self.model.external:
                write_sensor(self.sensor, self.state.millidegrees)
            self._trace.write(f"{wall:.4f} {self.state.temp_c:.3f} {int(self.state.throttled)}\n")
            if now - self._flushed > 0.5:
                self._trace.flush()
                self._flushed = now
        cap = self.state.limit_bps()
        if cap is None:
            return limits
        return dataclasses.replace(
            limits,
            write_bps=limited(limits.write_bps, cap),
            read_bps=limited(limits.read_bps, cap),
        )

    def close(self) -> None:
        self._trace.close()
        if self._owned:
            self.sensor.unlink(missing_ok=True)


def load_trace(lines: Sequence[str]) -> np.ndarray:
    """The thermal trace's lines as an array of rows (wall, °C, throttled 0/1)."""
    rows = [[float(v) for v in line.split()] for line in lines if line.count(" ") == 2]
    return np.asarray(rows, dtype=np.float64).reshape(-1, 3)


def temperatures_between(trace: np.ndarray, start: float, end: float) -> tuple[float, float]:
    """(lowest, highest) °C the sensor had from wall time `start` to `end`, counting the
    reading in force at `start`; (nan, nan) when the trace does not reach that far."""
    if trace.size == 0 or start > trace[-1, 0]:
        return math.nan, math.nan
    first = max(0, int(np.searchsorted(trace[:, 0], start, side="right")) - 1)
    last = int(np.searchsorted(trace[:, 0], end, side="right"))
    temps = trace[first : max(last, first + 1), 1]
    return float(temps.min()), float(temps.max())


def throttle_spans(events: Sequence[dict[str, Any]]) -> list[tuple[float, float | None]]:
    """(engaged, released) wall times of the thermal throttle from the controller's events;
    released is None while it is still engaged."""
    spans: list[tuple[float, float | None]] = []
    for e in events:
        if e.get("kind") == "thermal-throttle":
            spans.append((float(e["wall"]), None))
        elif e.get("kind") == "thermal-release" and spans and spans[-1][1] is None:
            spans[-1] = (spans[-1][0], float(e["wall"]))
    return spans
