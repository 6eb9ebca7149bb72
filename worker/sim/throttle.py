"""The kernel's block throttle, through a cgroup of our own: cgroup v1 `blkio.throttle.*` or
cgroup v2 `io.max`, whichever this machine has (v2 where its io controller is available).

Only processes in the cgroup are throttled, and only on the devices that have a rule, so the
simulated drive's fio runs in the cgroup (worker.fio.runner puts it there before fio starts).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path

from worker.sim.profile import Limits

PROC_MOUNTS = Path("/proc/self/mounts")


class ThrottleUnavailable(Exception):
    """No block throttle that we may use here; the message says what is missing."""


def _mounts(kind: str) -> list[tuple[Path, set[str]]]:
    out: list[tuple[Path, set[str]]] = []
    try:
        text = PROC_MOUNTS.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == kind:
            out.append((Path(fields[1].replace("\\040", " ")), set(fields[3].split(","))))
    return out


class Throttle:
    """One cgroup with block throttle rules for one device."""

    version = ""

    def __init__(self, root: Path, name: str, devno: str) -> None:
        self.root = root
        self.path = root / name
        self.devno = devno
        self._applied: Limits | None = None

    @property
    def procs(self) -> Path:
        """Write a pid here to move that process into the cgroup."""
        return self.path / "cgroup.procs"

    def create(self) -> None:
        self.path.mkdir()

    def apply(self, limits: Limits) -> None:
        if limits != self._applied:
            self._write(limits)
            self._applied = limits

    def _write(self, limits: Limits) -> None:
        raise NotImplementedError

    def remove(self) -> None:
        """Move any process left in the cgroup to the parent, then remove the cgroup."""
        if not self.path.exists():
            return
        with contextlib.suppress(OSError):
            self._write(Limits(None, None, None))
        for _ in range(50):
            try:
                pids = self.procs.read_text().split()
            except OSError:
                pids = []
            for pid in pids:
                with contextlib.suppress(OSError):
                    (self.path.parent / "cgroup.procs").write_text(pid)
            try:
                self.path.rmdir()
                return
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    return
                if exc.errno != errno.EBUSY:
                    raise
            time.sleep(0.05)
        self.path.rmdir()


class V1Blkio(Throttle):
    """cgroup v1: one file per limit; "MAJ:MIN 0" removes a rule (unlimited)."""

    version = "cgroup v1 blkio.throttle"

    def _write(self, limits: Limits) -> None:
        for name, value in (
            ("blkio.throttle.write_bps_device", limits.write_bps),
            ("blkio.throttle.write_iops_device", limits.write_iops),
            ("blkio.throttle.read_bps_device", limits.read_bps),
        ):
            (self.path / name).write_text(f"{self.devno} {int(value or 0)}\n")


# cgroup v2's io.max takes no limit below 2: kernels from 5.9 to 6.9 answer "wbps=1" or
# "wiops=1" with EINVAL (blk-throttle's tg_set_limit required val > 1), and 0 with ERANGE on
# every kernel. 2 bytes/s holds a 4 KiB write for over half an hour: a stall all the same.
V2_MIN = 2


class V2Io(Throttle):
    """cgroup v2: one `io.max` line per device, "max" for unlimited."""

    version = "cgroup v2 io.max"

    def create(self) -> None:
        parent = self.path.parent
        control = parent / "cgroup.subtree_control"
        try:
            if "io" not in control.read_text().split():
                control.write_text("+io")
        except OSError as exc:
            raise ThrottleUnavailable(
                f"cgroup v2: cannot enable the io controller for the cgroups in {parent} "
                f"({exc.strerror or exc}): cgroup v2 enables a controller for child cgroups "
                "only where no process is (in a container, its own root cgroup holds the "
                "container's processes); run on the host, or where the io controller is "
                "enabled in cgroup.subtree_control"
            ) from None
        super().create()

    def _write(self, limits: Limits) -> None:
        def v(x: int | None) -> str:
            return "max" if x is None else str(max(V2_MIN, int(x)))

        line = (
            f"{self.devno} rbps={v(limits.read_bps)} wbps={v(limits.write_bps)} "
            f"riops=max wiops={v(limits.write_iops)}\n"
        )
        (self.path / "io.max").write_text(line)


def detect() -> tuple[type[Throttle], Path]:
    """The throttle to use and the cgroup root to create ours in, or ThrottleUnavailable with
    what is missing. cgroup v2 with the io controller first (most machines today), else the v1
    blkio hierarchy (which then owns the io controller)."""
    reasons = []
    for mount, _opts in _mounts("cgroup2"):
        controllers = (mount / "cgroup.controllers").read_text().split() if mount.exists() else []
        if "io" in controllers:
            return V2Io, mount
        reasons.append(f"cgroup v2 at {mount} has no io controller (it is bound to cgroup v1)")
    for mount, opts in _mounts("cgroup"):
        if "blkio" in opts and (mount / "blkio.throttle.write_bps_device").exists():
            return V1Blkio, mount
    if not reasons:
        reasons.append("no cgroup v2 mount with the io controller")
    reasons.append("no cgroup v1 blkio hierarchy with blkio.throttle.* files")
    raise ThrottleUnavailable("no block throttle: " + "; ".join(reasons))


def make_throttle(name: str, devno: str) -> Throttle:
    kind, root = detect()
    return kind(root, name, devno)


def can_write_cgroups() -> bool:
    return os.geteuid() == 0
