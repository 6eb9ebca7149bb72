"""Where a running simulated drive says what it is: one JSON file per loop device in
STATE_DIR, written by its controller and removed when it stops. The worker reads it to put
fio into the drive's cgroup; `drivelab sim list` reads it to show what runs."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

STATE_DIR = Path(os.environ.get("DRIVELAB_SIM_STATE_DIR", "/run/drivelab/sim"))


class SimError(Exception):
    """A simulated drive that cannot be used as it is; the message says what to do."""


@dataclass(frozen=True)
class SimState:
    device: str  # /dev/loopN
    name: str  # loopN
    devno: str  # MAJ:MIN
    backing_file: str
    size_bytes: int
    cgroup: str
    throttle: str  # which kernel interface shapes it
    controller_pid: int
    profile: dict[str, Any]
    events: str  # JSON lines of what the controller did
    label: str
    # A stable name for the drive, as udev gives real drives (/dev/disk/by-id/...): register
    # it by this, since loop device numbers are reused by the next drive attached.
    link: str = ""
    # The drive's temperature sensor, a file of millidegrees Celsius like hwmon's temp1_input
    # (worker.sim.thermal); "" for a drive without one.
    sensor: str = ""

    @property
    def target(self) -> str:
        """The path to register the drive by: its by-id link, else the loop device."""
        return self.link or self.device

    @property
    def procs(self) -> Path:
        return Path(self.cgroup) / "cgroup.procs"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def state_path(name: str) -> Path:
    return STATE_DIR / f"{name}.json"


def write_state(state: SimState) -> None:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    path = state_path(state.name)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state.as_dict(), indent=1))
    tmp.replace(path)


def read_state(name: str) -> SimState | None:
    try:
        data = json.loads(state_path(name).read_text())
    except (OSError, ValueError):
        return None
    try:
        return SimState(**data)
    except TypeError:
        return None


def running() -> list[SimState]:
    if not STATE_DIR.is_dir():
        return []
    out = []
    for path in sorted(STATE_DIR.glob("*.json")):
        state = read_state(path.stem)
        if state is not None:
            out.append(state)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cgroup_for(name: str, backing_file: str | None) -> Path | None:
    """The cgroup.procs file of the simulated drive on loop device `name`, None when the
    device is not a simulated drive. SimError when it was one whose controller is gone: fio
    would then write to it unthrottled and report a drive that does not exist."""
    state = read_state(name)
    if state is None:
        return None
    if backing_file is None or not backing_file.startswith(state.backing_file):
        return None  # the loop device was detached and attached to something else since
    if not _alive(state.controller_pid) or not Path(state.cgroup).is_dir():
        raise SimError(
            f"{state.device} is the simulated drive '{state.label}', but its controller (pid "
            f"{state.controller_pid}) is not running: start it again with `drivelab sim start`"
        )
    return state.procs
