"""Hold a run's target for the whole run, and check it again before every write.

`worker.safety.check_target` decides whether a target may be written. A run lasts hours, and
meanwhile drives are swapped in hot-swap bays, `/dev/sdX` names move after a bus reset, a loop
device is detached and attached to another file, a by-id link is re-pointed. So for a run the
worker:

1. checks the target once with every rule, then opens it and holds it open until the run ends.
   A block device is opened exclusively (O_EXCL): while it is held the kernel refuses to mount
   it, to make it part of md, LVM or device-mapper, to attach its loop device to another file,
   and any other exclusive opener (a second drivelab, mkfs, blkdiscard). A file (a simulated
   drive) is locked with flock, which a second run on the same file respects;
2. before every step that writes (purge, fill, every fio job, TRIM) and at the end of idle
   steps, checks every rule again from what the system reports now (serial, mounts, swap,
   holders), and that the registered path still leads to the device or file it holds
   ("device-changed") and that nobody detached it meanwhile ("detached");
3. gives fio the object it holds, not a name: fio reopens `filename=` at the start of every
   section of a job file, so a name checked before fio started could mean another device by
   its next section. worker.fio.pin binds the held descriptor at the kernel's own name of the
   device (`/dev/loop4`, never an alias such as a by-id link or a node made elsewhere) in a
   mount namespace of fio's own, or hands fio `/proc/self/fd/N`; either way every section of
   the fio process opens the device or file that was checked. The job file stored with the run
   names a block device by that kernel name and a file by its resolved path, with `:` escaped
   as fio's `filename=` requires.

Any failure raises InterlockError naming the rule, before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import os
import stat
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.plans.base import retarget_job_file, target_path_problem
from worker import devices
from worker.devices import DeviceInfo
from worker.fio.pin import Pin, fio_name, namespace_available
from worker.safety import InterlockError, check_target

BLKDISCARD = 0x1277  # _IO(0x12, 119) in linux/fs.h; argument: u64 start, u64 length in bytes


@dataclass(frozen=True)
class _Rules:
    """What check_target needs besides the path: the run's registration and confirmation."""

    registered_target: str
    registered_serial: str
    sandbox: Path
    data_dir: Path
    destructive: bool
    confirmed_serial: str | None


def _refuse(target: str, rule: str, reason: str) -> InterlockError:
    return InterlockError(rule, f"refusing to write {target}: {reason} (rule: {rule})")


def _devno(st: os.stat_result) -> str:
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def _loop_autoclear(name: str) -> bool:
    """A loop device whose detach was asked for while it is open has autoclear set: it goes
    away when the last opener closes it."""
    flag = devices.block_dir(name) / "loop" / "autoclear"
    try:
        return flag.read_text().strip() == "1"
    except OSError:
        return False


class HeldTarget:
    """The run's target, held open from `acquire` until `release`.

    `info` is what the last check found; `path` the resolved path fio is given.
    """

    def __init__(self, rules: _Rules, info: DeviceInfo, fd: int) -> None:
        self._rules = rules
        self._fd = fd
        self.info = info
        self.held = os.fstat(fd)
        self._autoclear = info.kind == "block" and _loop_autoclear(info.name)
        # How fio is handed the held descriptor (worker.fio.pin): a name in a mount namespace
        # of its own where this worker may make one, /proc/self/fd/N elsewhere.
        self.namespace = namespace_available()

    # --- the run's lifetime ------------------------------------------------------------------

    @classmethod
    def acquire(
        cls,
        registered_target: str,
        *,
        registered_serial: str,
        sandbox: Path,
        data_dir: Path,
        destructive: bool,
        confirmed_serial: str | None,
    ) -> HeldTarget:
        """Check every rule, open the target (exclusively for a block device) and check again,
        so nothing can slip in between the check and the open."""
        rules = _Rules(
            registered_target, registered_serial, sandbox, data_dir, destructive, confirmed_serial
        )
        problem = target_path_problem(registered_target)
        if problem:
            raise _refuse(registered_target, "target-name", f"{problem}; register it again")
        info = _check(rules)
        fd = _open(info, registered_target)
        target = cls(rules, _kernel_named(info), fd)
        try:
            target.verify("before the first step")
        except BaseException:
            target.release()
            raise
        return target

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @contextlib.contextmanager
    def shared(self, settle_s: float = 10.0) -> Iterator[None]:
        """The held block device held without its exclusive claim for a while: the file copy
        (worker.steps.file_copy) makes a filesystem on it and mounts it in a mount namespace of
        its own, and the kernel gives a mount (and mkfs) the device only when no one else holds
        it exclusively. The device stays open all along (a non-exclusive descriptor reopened
        from the held one, so the very same device: a loop device cannot be re-attached to
        another file meanwhile, a detach shows as autoclear), and `pins` keep naming it. On
        exit it is claimed exclusively again, through the same descriptor, retrying for up to
        `settle_s` while the namespace's mount goes away; InterlockError "in-use" if someone
        else claimed it meanwhile."""
        if self.info.kind != "block":
            raise ValueError("only a block device is held exclusively")
        shared = os.open(f"/proc/self/fd/{self._fd}", os.O_RDWR | os.O_CLOEXEC)
        if os.fstat(shared).st_rdev != self.held.st_rdev:
            os.close(shared)
            raise _refuse(self._rules.registered_target, "device-changed", "reopened as another")
        os.close(self._fd)
        self._fd = shared
        try:
            yield
        finally:
            deadline = time.monotonic() + settle_s
            while True:
                try:
                    fd = os.open(
                        f"/proc/self/fd/{shared}", os.O_RDWR | os.O_EXCL | os.O_CLOEXEC
                    )
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        raise _in_use(self._rules.registered_target, self.info) from None
                    time.sleep(0.05)
            os.close(shared)
            self._fd = fd

    def __enter__(self) -> HeldTarget:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    # --- before every write ------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The target as the run's job files and device tools name it: a block device by the
        kernel's own name (`/dev/loop4`, whatever alias it was registered under), a file by
        its resolved path."""
        return self.info.path

    def pins(self) -> list[Pin]:
        """The held descriptor and the name fio is given for it (worker.fio.pin), for a
        process about to run fio; the descriptor is passed to it (`pass_fds`)."""
        name = fio_name(
            self._fd,
            kind=self.info.kind,
            kernel_name=self.info.name,
            file_name=self.info.path,
            namespace=self.namespace,
        )
        return [Pin(self._fd, name)]

    def verify(self, when: str) -> DeviceInfo:
        """Every rule again, as the system reports it now, and the same device or file as the
        one held. Raises InterlockError naming the rule, its message starting with `when`
        ("before step fill")."""
        try:
            info = _check(self._rules)
            self._same_as_held(info)
            info = _kernel_named(info)
            self._kernel_node_agrees(info)
        except InterlockError as exc:
            raise InterlockError(exc.rule, f"{when}: {exc.message}") from None
        self.info = info
        return info

    def _kernel_node_agrees(self, info: DeviceInfo) -> None:
        """The kernel's node of the held device, which device tools (nvme, hdparm) are given,
        must be that device: a node re-made there with another major:minor is refused."""
        if info.kind != "block":
            return
        try:
            now = os.stat(info.path)
        except FileNotFoundError:
            return  # no node under the kernel's name: fio gets the held descriptor anyway
        except OSError as exc:
            raise _refuse(
                self._rules.registered_target, "device-changed", f"{info.path}: {exc.strerror}"
            ) from None
        if not stat.S_ISBLK(now.st_mode) or now.st_rdev != self.held.st_rdev:
            raise _refuse(
                self._rules.registered_target,
                "device-changed",
                f"{info.path}, the kernel's name of the held device {_devno(self.held)}, is "
                f"now {'device ' + _devno(now) if stat.S_ISBLK(now.st_mode) else 'not a device'}",
            )

    def _same_as_held(self, info: DeviceInfo) -> None:
        target = self._rules.registered_target
        try:
            now = os.stat(info.path)
        except OSError as exc:
            raise _refuse(target, "device-changed", f"{info.path}: {exc.strerror}") from None
        if info.kind == "block":
            if not stat.S_ISBLK(self.held.st_mode) or now.st_rdev != self.held.st_rdev:
                raise _refuse(
                    target,
                    "device-changed",
                    f"it now leads to {info.path} (device {_devno(now)}), not to the device "
                    f"the run has held since it started (device {_devno(self.held)}): was the "
                    "drive swapped or renamed?",
                )
            if _loop_autoclear(info.name) and not self._autoclear:
                raise _refuse(
                    target,
                    "detached",
                    f"{info.path} was detached during the run (it goes away when the run "
                    "lets go of it)",
                )
        elif (now.st_dev, now.st_ino) != (self.held.st_dev, self.held.st_ino):
            raise _refuse(
                target,
                "device-changed",
                f"{info.path} is no longer the file the run has held since it started (it was "
                "replaced or recreated)",
            )

    def job_file(self, job_file: str) -> str:
        """A step's job file as stored with the run: its target named as `path` says, so a
        reviewer runs it by hand on the same device."""
        return retarget_job_file(job_file, self.path)

    def fio_job_file(self, job_file: str) -> str:
        """A step's job file as fio is given it: its target named as `pins` says. For a block
        device in a namespace this is the stored job file itself."""
        return retarget_job_file(job_file, self.pins()[0].path)

    def discard(self, offset: int, length: int) -> float:
        """BLKDISCARD through the held, exclusive descriptor (what `blkdiscard -o OFF -l LEN`
        does); returns the seconds the call took."""
        if self.info.kind != "block":
            raise ValueError("only a block device is discarded; a file gets a hole punched")
        argument = struct.pack("QQ", offset, length)
        started = time.perf_counter()
        fcntl.ioctl(self._fd, BLKDISCARD, argument)
        return time.perf_counter() - started

    def record(self) -> dict[str, Any]:
        """What the run's environment records of the target."""
        out: dict[str, Any] = {
            "registered": self._rules.registered_target,
            "resolved": self.path,
            "kind": self.info.kind,
            "fio_opens": self.pins()[0].path,
            "fio_pinned_by": "mount namespace" if self.namespace else "descriptor",
        }
        if self.info.kind == "block":
            out["device"] = _devno(self.held)
            out["held"] = "exclusive (O_EXCL)"
        else:
            out["held"] = "open"
        return out


def _check(rules: _Rules) -> DeviceInfo:
    info = check_target(
        rules.registered_target,
        registered_target=rules.registered_target,
        registered_serial=rules.registered_serial,
        sandbox=rules.sandbox,
        data_dir=rules.data_dir,
        destructive=rules.destructive,
        confirmed_serial=rules.confirmed_serial,
    )
    problem = target_path_problem(info.path)
    if problem:
        raise _refuse(
            rules.registered_target,
            "target-name",
            f"it resolves to {info.path!r}, and {problem}",
        )
    return info


def _kernel_named(info: DeviceInfo) -> DeviceInfo:
    """`info` of a block device with its path set to the kernel's own name of it (from its
    major:minor in sysfs): `/dev/loop4`, never the alias it was registered or resolved as."""
    if info.kind != "block":
        return info
    return dataclasses.replace(info, path="/dev/" + info.name.replace("!", "/"))


def _open(info: DeviceInfo, target: str) -> int:
    """A block device opened exclusively; a file opened and locked (flock), so two drives
    registered on one file do not run at once."""
    if info.kind == "block":
        flags = os.O_RDWR | os.O_EXCL | os.O_CLOEXEC
    else:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(info.path, flags)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            raise _in_use(target, info) from None
        raise _refuse(
            target, "not-whole-device", f"cannot open {info.path}: {exc.strerror}"
        ) from None
    if info.kind != "block":
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise _in_use(target, info) from None
    return fd


def _in_use(target: str, info: DeviceInfo) -> InterlockError:
    return _refuse(
        target,
        "in-use",
        f"{info.path} is held by another program (mounted, claimed by md, LVM or "
        "device-mapper, or tested by another run)",
    )
