"""A simulated drive, running: a loop device over a file in tmpfs, shaped by the kernel's block
throttle from a profile, by one controller process that owns everything it creates.

The controller creates the tmpfs file, attaches the loop device, creates the cgroup, says
where everything is (worker.sim.registry), then every few milliseconds reads the device's
counters (/sys/block/loopN/stat), steps the profile's state machine (worker.sim.profile) and
writes the throttle limits it gives. Every change is appended to an events file (JSON lines):
that is the known answer a run on the drive is checked against. On SIGTERM or SIGINT, or when
its parent exits (--exit-with-parent), it removes the cgroup, detaches the loop device and
deletes the file.

tmpfs rather than a disk filesystem under the loop: a file on disk picks up the host's own
writeback stalls, which are not in the profile.

`SimDrive` starts a controller as a child process and waits until the drive is ready; tests,
`drivelab demo` and `drivelab sim selftest` use it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from worker.sim.held import HeldUp
from worker.sim.profile import PROFILES, Counters, Profile, Simulation
from worker.sim.registry import STATE_DIR, SimError, SimState, state_path, write_state
from worker.sim.thermal import SensorWriter
from worker.sim.throttle import Throttle, ThrottleUnavailable, make_throttle

log = logging.getLogger("drivelab.sim")

TMPFS = Path("/dev/shm")
TICK_S = 0.005
SECTOR = 512


def requirements(tmpfs: Path = TMPFS) -> list[str]:
    """What is missing to run a simulated drive here (empty when nothing is)."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (loop devices and cgroups need it): run as root")
    if shutil.which("losetup") is None:
        missing.append("losetup (util-linux)")
    try:
        from worker.sim.throttle import detect

        detect()
    except ThrottleUnavailable as exc:
        missing.append(str(exc))
    except OSError as exc:
        missing.append(f"cgroups unreadable: {exc}")
    if not tmpfs.is_dir() or not os.access(tmpfs, os.W_OK):
        missing.append(f"a writable tmpfs at {tmpfs}")
    return missing


def read_counters(name: str) -> Counters:
    fields = Path(f"/sys/block/{name}/stat").read_text().split()
    discarded = int(fields[13]) * SECTOR if len(fields) > 13 else 0
    return Counters(
        written=int(fields[6]) * SECTOR,
        write_ios=int(fields[4]),
        discarded=discarded,
        read=int(fields[2]) * SECTOR,
    )


def _losetup(*args: str) -> str:
    out = subprocess.run(["losetup", *args], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise SimError(f"losetup {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout.strip()


BY_ID = Path("/dev/disk/by-id")


def _by_id_link(device: str) -> Path:
    """/dev/disk/by-id/drivelab-sim-<serial>: the drive's serial (from its backing file's
    inode) makes the name unique to this drive, as a real drive's by-id name is."""
    from worker.devices import identify

    BY_ID.mkdir(parents=True, exist_ok=True)
    link = BY_ID / f"drivelab-sim-{identify(device).serial}"
    with contextlib.suppress(FileNotFoundError):
        link.unlink()
    link.symlink_to(device)
    return link


# The kernel's worker threads (kworker) carry out the block throttle's dispatch and the loop
# device's I/O: at the default priority, a busy host holds them up for up to 0.6 s (seen with
# two spinning processes on two cores), and the simulated drive stalls although its profile
# does not. While a simulated drive runs they get this priority, as a real drive's firmware
# runs on its own processor; so does the controller itself (the drive's firmware: its state
# machine, the throttle it sets and the counters it reads, which are the known answer: held up
# at the end of a stall, it read nothing there and the truth came out 0.5 s short). fio is
# the worker's (DRIVELAB_FIO_NICE); everything else stays as it is.
KWORKER_NICE = -10
KWORKER_EVERY_S = 1.0


class KworkerBoost:
    """Raise the kernel worker threads to KWORKER_NICE (those below it, the high-priority
    pools, are left alone), again every KWORKER_EVERY_S for the ones the kernel starts
    meanwhile; `restore` puts back the priority of those still running."""

    def __init__(self) -> None:
        self.changed: dict[int, int] = {}
        self._next = 0.0

    def tick(self, now: float) -> None:
        if now < self._next:
            return
        self._next = now + KWORKER_EVERY_S
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            try:
                if not Path(f"/proc/{pid}/comm").read_text().startswith("kworker/"):
                    continue
                nice = os.getpriority(os.PRIO_PROCESS, pid)
                if nice > KWORKER_NICE:
                    os.setpriority(os.PRIO_PROCESS, pid, KWORKER_NICE)
                    self.changed.setdefault(pid, nice)
            except OSError:
                continue

    def restore(self) -> None:
        """Every kernel worker at KWORKER_NICE back to its own priority (the default pools' 0
        for those another simulated drive raised): the kernel starts none at that value."""
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            with contextlib.suppress(OSError):
                if not Path(f"/proc/{pid}/comm").read_text().startswith("kworker/"):
                    continue
                if os.getpriority(os.PRIO_PROCESS, pid) == KWORKER_NICE:
                    os.setpriority(os.PRIO_PROCESS, pid, self.changed.get(pid, 0))
        self.changed.clear()


class Controller:
    """Everything one simulated drive is, created in `setup` and removed in `teardown`."""

    def __init__(
        self, profile: Profile, size_bytes: int, label: str, events_path: Path | None = None
    ) -> None:
        if size_bytes < 16 * 2**20 or size_bytes % 2**20:
            raise SimError("the simulated drive's size must be a whole number of MiB, >= 16 MiB")
        self.profile = profile
        self.size_bytes = size_bytes
        self.label = label
        self.file = TMPFS / f"drivelab-sim-{os.getpid()}.img"
        self.device: str | None = None
        self.link: Path | None = None
        self.name = ""
        self.throttle: Throttle | None = None
        self.events_path = events_path
        self.state: SimState | None = None
        self._events: Any = None
        self._trace: Any = None
        self.boost = KworkerBoost()
        self.thermal: SensorWriter | None = None

    def setup(self) -> SimState:
        missing = requirements()
        if missing:
            raise SimError("cannot run a simulated drive here: missing " + "; ".join(missing))
        with open(self.file, "wb") as f:
            f.truncate(self.size_bytes)
        self.device = _losetup("-f", "--show", str(self.file))
        self.name = os.path.basename(self.device)
        devno = Path(f"/sys/block/{self.name}/dev").read_text().strip()
        self.link = _by_id_link(self.device)
        throttle = make_throttle(f"drivelab-sim-{self.name}-{os.getpid()}", devno)
        try:
            throttle.create()
        except ThrottleUnavailable as exc:
            raise SimError(str(exc)) from None
        except OSError as exc:
            raise SimError(f"cannot create the cgroup {throttle.path}: {exc}") from None
        self.throttle = throttle
        if self.events_path is None:
            STATE_DIR.mkdir(parents=True, exist_ok=True)
            self.events_path = STATE_DIR / f"{self.name}.events.jsonl"
        self._events = open(self.events_path, "a", buffering=1)  # noqa: SIM115 (closed in teardown)
        # The device's counters every tick: the known answer's own measurement (truth.py).
        self._trace = open(self.events_path.with_suffix(".trace"), "a")  # noqa: SIM115
        if self.profile.thermal is not None:
            self.thermal = SensorWriter(
                self.profile.thermal,
                STATE_DIR / f"{self.name}.temp1_input",
                self.events_path.with_suffix(".thermal"),
            )
        self.state = SimState(
            device=self.device,
            name=self.name,
            devno=devno,
            backing_file=str(self.file),
            size_bytes=self.size_bytes,
            cgroup=str(self.throttle.path),
            throttle=self.throttle.version,
            controller_pid=os.getpid(),
            profile=self.profile.as_dict(),
            events=str(self.events_path),
            label=self.label,
            link=str(self.link),
            sensor=str(self.thermal.sensor) if self.thermal else "",
        )
        write_state(self.state)
        return self.state

    def run(self, should_stop: Any) -> None:
        assert self.throttle is not None and self.state is not None
        with contextlib.suppress(OSError):  # root raises it; anyone else keeps their own
            os.setpriority(os.PRIO_PROCESS, 0, KWORKER_NICE)
        sim = Simulation(self.profile, self.size_bytes)
        # Counters count from the attach: the device starts empty, as a new drive does.
        last_flush = time.monotonic()
        read_offset: int | None = None
        held = HeldUp(self.throttle.procs)
        while not should_stop():
            now = time.monotonic()
            self.boost.tick(now)
            wall = time.time()
            counters = read_counters(self.name)
            limits, events = sim.step(now, counters, wall)
            if self.thermal is not None:
                limits = self.thermal.step(now, wall, counters.written, sim.written, limits, events)
            if read_offset is None:
                read_offset = counters.read
            self._trace.write(
                f"{wall:.4f} {counters.written - sim.written_offset} {counters.write_ios} "
                f"{counters.read - read_offset} {held.tick(now):.4f}\n"
            )
            if now - last_flush > 0.5:
                self._trace.flush()
                last_flush = now
            self.throttle.apply(limits)
            if events:
                # What had been written when the new limits took effect: the kernel's
                # throttle lets bursts through between reading the counters and applying.
                applied = read_counters(self.name).written - sim.written_offset
                for e in events:
                    e["applied_written"] = max(e["written"], applied)
                    self._events.write(json.dumps(e) + "\n")
            wait = sim.seconds_to_next_change(now, float(limits.write_bps or 0))
            time.sleep(min(TICK_S, max(0.0005, wait)))

    def teardown(self) -> None:
        if self.state is not None:
            with contextlib.suppress(OSError):
                state_path(self.state.name).unlink()
        # The last simulated drive to stop puts the kernel's workers back as they were.
        if not any(STATE_DIR.glob("*.json")):
            self.boost.restore()
        if self.link is not None:
            with contextlib.suppress(OSError):
                self.link.unlink()
        if self.throttle is not None:
            try:
                self.throttle.remove()
            except OSError as exc:
                log.warning("could not remove cgroup %s: %s", self.throttle.path, exc)
        if self.device is not None:
            for _ in range(20):
                try:
                    _losetup("-d", self.device)
                    break
                except SimError:
                    time.sleep(0.25)  # still open (a fio finishing)
        with contextlib.suppress(OSError):
            self.file.unlink()
        for f in (self._events, self._trace):
            if f is not None:
                f.close()
        if self.thermal is not None:
            self.thermal.close()


def main(argv: list[str] | None = None) -> int:
    """The controller process (`python -m worker.sim.controller`; `drivelab sim start` runs
    the same in the foreground)."""
    p = argparse.ArgumentParser(prog="python -m worker.sim.controller")
    p.add_argument("profile", help="a built-in profile name or a JSON profile file")
    p.add_argument("--size", type=int, required=True, help="bytes")
    p.add_argument("--label", default="")
    p.add_argument("--events", type=Path)
    p.add_argument("--ready", type=Path, help="write the drive's state here when ready")
    p.add_argument("--exit-with-parent", action="store_true")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s sim %(message)s")
    profile = load_profile(args.profile)
    return serve(profile, args.size, args.label or profile.name, args.events, args.ready,
                 exit_with_parent=args.exit_with_parent)  # fmt: skip


def load_profile(spec: str) -> Profile:
    if spec in PROFILES:
        return PROFILES[spec]
    path = Path(spec)
    if not path.is_file():
        raise SimError(
            f"no profile {spec!r}: choose one of {', '.join(PROFILES)} or give a JSON file"
        )
    try:
        return Profile.from_dict(json.loads(path.read_text()))
    except (ValueError, TypeError) as exc:
        raise SimError(f"{path}: not a profile ({exc})") from None


def serve(
    profile: Profile,
    size_bytes: int,
    label: str,
    events: Path | None,
    ready: Path | None,
    *,
    exit_with_parent: bool = False,
    on_ready: Any = None,
) -> int:
    stop = {"now": False}
    parent = os.getppid()

    def handler(_signum: int, _frame: object) -> None:
        stop["now"] = True

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    with contextlib.suppress(OSError, AttributeError):
        # Keep time like a drive's firmware when the host is busy: the controller mostly
        # sleeps, but each tick must come on time.
        os.setpriority(os.PRIO_PROCESS, 0, -10)
    ctl = Controller(profile, size_bytes, label, events)
    try:
        state = ctl.setup()
        if ready is not None:
            tmp = ready.with_suffix(".tmp")
            tmp.write_text(json.dumps(state.as_dict()))
            tmp.replace(ready)
        if on_ready is not None:
            on_ready(state)
        ctl.run(lambda: stop["now"] or (exit_with_parent and os.getppid() != parent))
    except SimError as exc:
        if ready is not None:
            ready.with_suffix(".error").write_text(str(exc))
        print(f"drivelab sim: {exc}", file=sys.stderr)
        return 2
    finally:
        ctl.teardown()
        for s, h in old.items():
            signal.signal(s, h)
    return 0


class SimDrive:
    """A simulated drive run by a controller child process, for as long as the `with` block:

    with SimDrive("slc-cache", 512 * 2**20, tmp_path) as sim:
        sim.device, sim.events()
    """

    def __init__(self, profile: str | Profile, size_bytes: int, workdir: Path, label: str = ""):
        self.profile = PROFILES[profile] if isinstance(profile, str) else profile
        self.size_bytes = size_bytes
        self.workdir = workdir
        self.label = label or self.profile.name
        self.proc: subprocess.Popen[bytes] | None = None
        self.state: SimState | None = None
        workdir.mkdir(parents=True, exist_ok=True)
        stem = f"sim-{self.profile.name}-{id(self):x}"
        self.events_path = workdir / f"{stem}.events.jsonl"
        self._ready = workdir / f"{stem}.ready.json"
        self._profile_file = workdir / f"{stem}.profile.json"

    @property
    def device(self) -> str:
        assert self.state is not None, "the simulated drive is not running"
        return self.state.device

    def start(self, timeout: float = 30.0) -> SimDrive:
        self._profile_file.write_text(json.dumps(self.profile.as_dict()))
        argv = [sys.executable, "-m", "worker.sim.controller", str(self._profile_file),
                "--size", str(self.size_bytes), "--label", self.label,
                "--events", str(self.events_path), "--ready", str(self._ready),
                "--exit-with-parent"]  # fmt: skip
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        error = self._ready.with_suffix(".error")
        while not self._ready.exists():
            if error.exists():
                self.stop()
                raise SimError(error.read_text())
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SimError(
                    f"the simulated drive's controller did not start (status {self.proc.poll()})"
                )
            time.sleep(0.05)
        self.state = SimState(**json.loads(self._ready.read_text()))
        return self

    def events(self) -> list[dict[str, Any]]:
        if not self.events_path.exists():
            return []
        return [json.loads(line) for line in self.events_path.read_text().splitlines() if line]

    def thermal_trace(self) -> Any:
        """The drive's temperature as its sensor had it (worker.sim.thermal.load_trace): wall
        time, °C, whether the thermal throttle was engaged; empty without a thermal model."""
        from worker.sim.thermal import load_trace

        path = self.events_path.with_suffix(".thermal")
        return load_trace(path.read_text().splitlines() if path.exists() else [])

    def trace(self) -> Any:
        """The device's counters every tick (worker.sim.truth.load_trace): wall time, bytes
        written since the drive started (or its last reset), write I/Os."""
        from worker.sim.truth import load_trace

        path = self.events_path.with_suffix(".trace")
        return load_trace(path.read_text().splitlines() if path.exists() else [])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> SimDrive:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":
    sys.exit(main())
