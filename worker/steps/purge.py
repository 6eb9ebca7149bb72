"""Purge: return the drive to its fresh-out-of-box state (METHODS.md, SNIA PTS "Purge").

In order of preference: NVMe Format with Secure Erase Settings 1 (user data erase), else an
NVMe sanitize polled to completion; ATA security erase for SATA drives (refused, not skipped,
when the drive is frozen); a discard of the whole device as the fallback, recorded as such; a
hole punched over the whole file for simulated drives. `PurgeResult.method` records what ran
and `detail` the exact commands, and why a preferred method was not available.

Every command goes through `runner`, so the NVMe and ATA paths can be tested with canned
outputs, and so nothing touches a device before `refuse_system_disk` has passed. The fallback
discard goes through `discard`: during a run, the exclusive descriptor the worker holds on the
drive (worker.guard), since `blkdiscard`, which opens the device exclusively too, would be
refused while the run holds it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from worker import devices
from worker.devices import DeviceInfo
from worker.steps import StepError, StepStopped, block_name_of, refuse_system_disk
from worker.steps.trim import Discard, discard_block, punch_file

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]

# The ATA password set for the erase. It is fixed and recorded in the detail, so if the worker
# dies between setting it and the erase, the reviewer can unlock the drive with
# `hdparm --user-master u --security-disable drivelab DEV`.
ATA_PASSWORD = "drivelab"

_POLL_S = 2.0  # sanitize-log polling interval
_SANITIZE_START_S = 60.0  # a sanitize that has not shown up in the log by then did not start

# Identify Controller bits (NVMe base specification).
_OACS_FORMAT = 0x2  # Format NVM supported
_FNA_ALL_NAMESPACES = 0x1  # a format applies to every namespace of the controller
_SANICAP_CRYPTO = 0x1
_SANICAP_BLOCK = 0x2

# Sanitize Status (SSTAT bits 2:0).
_SANITIZE_NEVER, _SANITIZE_DONE, _SANITIZE_RUNNING, _SANITIZE_FAILED = 0, 1, 2, 3
_SANITIZE_DONE_NO_DEALLOC = 4


@dataclass(frozen=True)
class PurgeResult:
    method: str  # "nvme-format-ses1" | "nvme-sanitize" | "ata-security-erase" | "blkdiscard"
    #              | "file-punch"
    seconds: float
    detail: str  # what was run, e.g. the exact command line

    def as_dict(self) -> dict[str, object]:
        return {"method": self.method, "seconds": self.seconds, "detail": self.detail}


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    # stdin is not a terminal, so blkdiscard does not stop to ask about a filesystem signature.
    return subprocess.run(
        cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    )


def purge(
    info: DeviceInfo,
    *,
    should_stop: Callable[[], bool] = lambda: False,
    runner: Runner = _run,
    discard: Discard | None = None,
) -> PurgeResult:
    """Purge the target that the safety interlock returned as `info`.

    `discard(offset, length)` discards a range of the device and returns the seconds it took;
    by default the device is opened exclusively for it (`trim.discard_block`).

    Raises StepError when the target is the system disk, when the drive refuses (an ATA drive
    that is frozen or already has a password, an NVMe controller whose format or sanitize would
    also erase other namespaces) or a command fails, and StepStopped when `should_stop()` turns
    true before the erase starts or while a sanitize is being polled.
    """
    refuse_system_disk(info)
    if should_stop():
        raise StepStopped(f"stopped before purging {info.path}")
    if info.kind != "block":
        return _punch_whole_file(info)
    fallback = _Fallback(info, discard or partial(discard_block, info.path))
    if info.transport == "nvme":
        return _purge_nvme(info, runner, should_stop, fallback)
    if info.transport == "sata":
        return _purge_ata(info, runner, should_stop, fallback)
    return fallback(f"{info.transport or 'unknown'} transport: no secure erase command for it")


# --- helpers ---------------------------------------------------------------------------------


def _attempt(runner: Runner, cmd: list[str]) -> subprocess.CompletedProcess[str] | None:
    """Run `cmd`; None when its program is not installed."""
    try:
        return runner(cmd)
    except FileNotFoundError:
        return None


def _failed(cmd: list[str], done: subprocess.CompletedProcess[str]) -> str:
    output = (done.stderr or done.stdout or "").strip().splitlines()
    return f"`{shlex.join(cmd)}` failed with status {done.returncode}: " + (
        "; ".join(output[-3:]) or "no message"
    )


def _check(runner: Runner, cmd: list[str]) -> subprocess.CompletedProcess[str]:
    done = _attempt(runner, cmd)
    if done is None:
        raise StepError(f"{cmd[0]} is not installed, so `{shlex.join(cmd)}` cannot run")
    if done.returncode != 0:
        raise StepError(_failed(cmd, done))
    return done


def _punch_whole_file(info: DeviceInfo) -> PurgeResult:
    size = os.stat(info.path).st_size
    started = time.perf_counter()
    if size:
        punch_file(info.path, 0, size)
        fd = os.open(info.path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    detail = (
        f"fallocate --punch-hole --keep-size --offset 0 --length {size} {shlex.quote(info.path)}"
    )
    return PurgeResult("file-punch", time.perf_counter() - started, detail)


def _discard_max_bytes(info: DeviceInfo) -> int | None:
    """The device's discard limit now, falling back to what the interlock saw."""
    name = block_name_of(info.path)
    try:
        return int(
            (devices.block_dir(name or info.name) / "queue" / "discard_max_bytes").read_text()
        )
    except (OSError, ValueError):
        return info.discard_max_bytes


@dataclass(frozen=True)
class _Fallback:
    """Discard the whole device, the fallback; called with why nothing better was used."""

    info: DeviceInfo
    discard: Discard

    def __call__(self, why: str) -> PurgeResult:
        info = self.info
        if _discard_max_bytes(info) == 0:
            raise StepError(
                f"{info.path} cannot be purged: {why}, and it does not support discard "
                "(discard_max_bytes is 0)"
            )
        size = _device_size(info)
        try:
            seconds = self.discard(0, size)
        except OSError as exc:
            raise StepError(
                f"BLKDISCARD of the whole of {info.path} ({size} bytes) failed: {exc.strerror}"
            ) from None
        detail = (
            f"BLKDISCARD of bytes 0-{size} of {info.path}, as `blkdiscard {info.path}` "
            f"(fallback: {why})"
        )
        return PurgeResult("blkdiscard", seconds, detail)


def _device_size(info: DeviceInfo) -> int:
    """The device's size now (sysfs counts 512-byte sectors), or what the interlock saw."""
    name = block_name_of(info.path) or info.name
    try:
        return int((devices.block_dir(name) / "size").read_text()) * 512
    except (OSError, ValueError):
        return info.size_bytes


# --- NVMe ------------------------------------------------------------------------------------


def _nvme_topology(info: DeviceInfo) -> tuple[str, tuple[str, ...]]:
    """(controller name, every namespace block device sharing it) from sysfs.

    With native NVMe multipath a namespace hangs off its subsystem, whose controllers and
    namespaces are listed together; otherwise off its controller.
    """
    parent = (devices.block_dir(info.name) / "device").resolve()
    entries = sorted(p.name for p in parent.iterdir()) if parent.is_dir() else []
    namespaces = tuple(n for n in entries if re.fullmatch(r"nvme\d+(c\d+)?n\d+", n))
    if re.fullmatch(r"nvme\d+", parent.name):
        return parent.name, namespaces or (info.name,)
    controllers = [n for n in entries if re.fullmatch(r"nvme\d+", n)]
    if controllers:
        return controllers[0], namespaces or (info.name,)
    match = re.match(r"(nvme\d+)", info.name)
    return (match.group(1) if match else info.name), (info.name,)


def _int(value: object) -> int:
    try:
        return int(str(value), 0)
    except ValueError:
        return 0


def _purge_nvme(
    info: DeviceInfo, runner: Runner, should_stop: Callable[[], bool], fallback: _Fallback
) -> PurgeResult:
    controller, namespaces = _nvme_topology(info)
    ctrl_path = f"/dev/{controller}"
    id_cmd = ["nvme", "id-ctrl", ctrl_path, "-o", "json"]
    done = _attempt(runner, id_cmd)
    if done is None:
        return fallback("nvme-cli is not installed (apt-get install nvme-cli)")
    if done.returncode != 0:
        return fallback(_failed(id_cmd, done))
    try:
        ident = json.loads(done.stdout)
    except json.JSONDecodeError:
        return fallback(f"`{shlex.join(id_cmd)}` printed no JSON")
    oacs, fna, sanicap = (_int(ident.get(k, 0)) for k in ("oacs", "fna", "sanicap"))
    can_format = bool(oacs & _OACS_FORMAT)
    sanact = 2 if sanicap & _SANICAP_BLOCK else 4 if sanicap & _SANICAP_CRYPTO else None
    if not can_format and sanact is None:
        why = f"{controller} supports neither Format NVM nor a block or crypto erase sanitize"
        return fallback(why)
    # A sanitize always erases the whole subsystem, a format all namespaces when FNA bit 0 says
    # so; the interlock vouched for this namespace only.
    whole_controller = not can_format or bool(fna & _FNA_ALL_NAMESPACES)
    others = sorted(set(namespaces) - {info.name})
    if others and whole_controller:
        raise StepError(
            f"refusing to purge {info.path}: a format or sanitize of {controller} would also "
            f"erase its other namespaces ({', '.join(others)}); purge with blkdiscard instead"
        )
    if should_stop():
        raise StepStopped(f"stopped before purging {info.path}")
    if can_format:
        cmd = ["nvme", "format", info.path, "--ses=1", "--force"]
        started = time.perf_counter()
        _check(runner, cmd)
        return PurgeResult("nvme-format-ses1", time.perf_counter() - started, shlex.join(cmd))
    assert sanact is not None
    return _sanitize(info, ctrl_path, sanact, runner, should_stop)


def _sanitize_state(stdout: str) -> tuple[int, int] | None:
    """(SSTAT status, SPROG progress out of 65535) from `nvme sanitize-log -o json`.

    nvme-cli 2.x prints {"nvme0": {"sprog": N, "sstat": {"status": "(1) ...", ...}}}; older
    versions print "sstat" as a number.
    """
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and "sprog" not in data:
        data = next((v for v in data.values() if isinstance(v, dict) and "sprog" in v), None)
    if not isinstance(data, dict):
        return None
    sstat = data.get("sstat")
    if isinstance(sstat, dict):
        match = re.match(r"\s*\(?(\d+)", str(sstat.get("status", "")))
        status = int(match.group(1)) if match else -1
    else:
        status = _int(sstat) & 0x7
    return status, _int(data.get("sprog", 0))


def _sanitize(
    info: DeviceInfo,
    ctrl_path: str,
    sanact: int,
    runner: Runner,
    should_stop: Callable[[], bool],
) -> PurgeResult:
    cmd = ["nvme", "sanitize", ctrl_path, "-a", str(sanact)]
    log_cmd = ["nvme", "sanitize-log", ctrl_path, "-o", "json"]
    started = time.perf_counter()
    _check(runner, cmd)
    polls = 0
    while True:
        state = _sanitize_state(_check(runner, log_cmd).stdout)
        polls += 1
        if state is None:
            raise StepError(f"`{shlex.join(log_cmd)}` printed no sanitize status")
        status, progress = state
        if status in (_SANITIZE_DONE, _SANITIZE_DONE_NO_DEALLOC):
            break
        if status == _SANITIZE_FAILED:
            raise StepError(
                f"the sanitize of {ctrl_path} failed (sanitize log status 3); the drive stays "
                f"in a failed state until a sanitize succeeds or `nvme sanitize {ctrl_path} "
                "-a 1` exits that state"
            )
        if status == _SANITIZE_NEVER and time.perf_counter() - started > _SANITIZE_START_S:
            raise StepError(f"the sanitize of {ctrl_path} was accepted but never started")
        if status not in (_SANITIZE_NEVER, _SANITIZE_RUNNING):
            raise StepError(f"unexpected sanitize status {status} for {ctrl_path}")
        if should_stop():
            raise StepStopped(
                f"stopped while {ctrl_path} was sanitizing ({progress / 65535:.0%} done): the "
                "drive finishes the sanitize on its own and refuses I/O until then"
            )
        time.sleep(_POLL_S)
    detail = f"{shlex.join(cmd)}, then `{shlex.join(log_cmd)}` polled {polls} times until done"
    return PurgeResult("nvme-sanitize", time.perf_counter() - started, detail)


# --- ATA -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AtaSecurity:
    """The Security section of `hdparm -I`."""

    supported: bool = False
    enabled: bool = False
    locked: bool = False
    frozen: bool = False
    expired: bool = False
    enhanced_erase: bool = False
    erase_time: str | None = None


def parse_ata_security(identify: str) -> AtaSecurity | None:
    """Read the "Security:" section of `hdparm -I` output; None when there is none.

    Lines are "\\tsupported", "\\tnot\\tenabled", "\\t\\tfrozen", "\\tnot\\texpired: security
    count", "\\t\\tsupported: enhanced erase", "\\t2min for SECURITY ERASE UNIT. ...".
    """
    lines = identify.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("Security:")), None)
    if start is None:
        return None
    flags: dict[str, bool] = {}
    erase_time = None
    for line in lines[start + 1 :]:
        if line and not line[0].isspace():
            break  # the next section
        words = line.split()
        if not words:
            continue
        negated = words[0] == "not"
        text = " ".join(words[1:] if negated else words)
        if "SECURITY ERASE UNIT" in text:
            erase_time = text
            continue
        key = {
            "supported": "supported",
            "enabled": "enabled",
            "locked": "locked",
            "frozen": "frozen",
            "expired: security count": "expired",
            "supported: enhanced erase": "enhanced_erase",
        }.get(text)
        if key:
            flags[key] = not negated
    return AtaSecurity(**flags, erase_time=erase_time)


def _purge_ata(
    info: DeviceInfo, runner: Runner, should_stop: Callable[[], bool], fallback: _Fallback
) -> PurgeResult:
    drive = f"drive {info.path} (serial {info.serial})"
    identify = ["hdparm", "-I", info.path]
    done = _attempt(runner, identify)
    if done is None:
        return fallback("hdparm is not installed (apt-get install hdparm)")
    if done.returncode != 0:
        return fallback(_failed(identify, done))
    security = parse_ata_security(done.stdout)
    if security is None or not security.supported:
        return fallback(f"{drive} does not support ATA security erase")
    if security.frozen:
        raise StepError(
            f"{drive} is frozen: ATA security erase is refused until it is unfrozen "
            "(suspend/resume the machine or hot-plug the drive), or choose blkdiscard"
        )
    if security.locked or security.enabled:
        raise StepError(
            f"{drive} already has an ATA security password set"
            f"{' and is locked' if security.locked else ''}: unlock and disable it "
            "(hdparm --security-unlock / --security-disable with that password) and purge again"
        )
    if security.expired:
        raise StepError(
            f"{drive} refuses security commands until it is power-cycled (security count expired)"
        )
    if should_stop():
        raise StepStopped(f"stopped before purging {info.path}")
    set_pass = ["hdparm", "--user-master", "u", "--security-set-pass", ATA_PASSWORD, info.path]
    erase = ["hdparm", "--user-master", "u", "--security-erase", ATA_PASSWORD, info.path]
    started = time.perf_counter()
    _check(runner, set_pass)
    done = _attempt(runner, erase)
    if done is None or done.returncode != 0:
        message = _failed(erase, done) if done else "hdparm disappeared"
        raise StepError(
            f"ATA security erase of {drive} failed: {message}; " + _disable(info, runner)
        )
    seconds = time.perf_counter() - started
    after = _attempt(runner, identify)
    left = parse_ata_security(after.stdout) if after and after.returncode == 0 else None
    note = ""
    if left is not None and left.enabled:
        note = f"; the password was still set afterwards: {_disable(info, runner)}"
    detail = f"{shlex.join(set_pass)} && {shlex.join(erase)}"
    if security.erase_time:
        detail += f" (drive's estimate: {security.erase_time})"
    return PurgeResult("ata-security-erase", seconds, detail + note)


def _disable(info: DeviceInfo, runner: Runner) -> str:
    """Remove the temporary password after a failure; says whether that worked."""
    cmd = ["hdparm", "--user-master", "u", "--security-disable", ATA_PASSWORD, info.path]
    done = _attempt(runner, cmd)
    if done is not None and done.returncode == 0:
        return f"the temporary password was removed ({shlex.join(cmd)})"
    return (
        f"the temporary password {ATA_PASSWORD!r} is still set: remove it with `{shlex.join(cmd)}`"
    )


__all__ = ["ATA_PASSWORD", "AtaSecurity", "PurgeResult", "parse_ata_security", "purge"]
