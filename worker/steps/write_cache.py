"""The drive's volatile write cache, set for a SNIA PTS profile (Enterprise: disabled where
the drive allows it; Client: enabled) and put back at the end of the run.

- NVMe: the Volatile Write Cache feature (Feature Identifier 06h), `nvme get-feature -f 6`
  and `nvme set-feature -f 6 -v 0|1` with the broadcast NSID (the cache is the controller's,
  shared by its namespaces), without saving it: a drive that is power-cycled comes
  back with its own default.
- SATA and SCSI/SAS drives: `hdparm -W` to read it, `hdparm -W0|-W1` to set it.
- Anything else (a loop device, a virtual disk, a file): nothing to set; recorded as such.

What was found, what was asked and what was done is recorded with the step: the report's
header states it. Every command goes through `runner`, so the NVMe and ATA paths are tested
with canned outputs.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from worker.devices import DeviceInfo
from worker.steps import StepError, refuse_system_disk

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]

NSID_ALL = "4294967295"  # 0xFFFFFFFF
_NVME_VALUE = re.compile(r"Current value:\s*(0x[0-9a-fA-F]+|\d+)")
_HDPARM_VALUE = re.compile(r"write-caching\s*=\s*(\d)")


@dataclass(frozen=True)
class WriteCacheResult:
    supported: bool
    method: str  # "nvme-feature-06h" | "hdparm" | "none"
    before: bool | None  # enabled before the step; None when unknown
    after: bool | None
    asked: bool | None  # what the step asked for (None: restore)
    detail: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False, timeout=60
    )


def _call(runner: Runner, cmd: list[str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return runner(cmd)
    except FileNotFoundError:
        return None


def parse_nvme_feature(stdout: str) -> bool | None:
    """`nvme get-feature -f 6` output -> whether the volatile write cache is on."""
    m = _NVME_VALUE.search(stdout)
    if not m:
        return None
    return bool(int(m.group(1), 0) & 1)


def parse_hdparm(stdout: str) -> bool | None:
    """`hdparm -W DEV` output (` write-caching =  1 (on)`) -> whether it is on."""
    m = _HDPARM_VALUE.search(stdout)
    return None if m is None else m.group(1) == "1"


def _commands(info: DeviceInfo, enabled: bool) -> tuple[str, list[str], list[str]] | None:
    if info.kind != "block":
        return None
    if info.transport == "nvme":
        # The volatile write cache is the controller's, not a namespace's: Set Features for it
        # with the namespace's own NSID (what nvme-cli sends through a namespace device) is
        # refused, "Feature Identifier not namespace specific" (QEMU's controller, as the
        # specification allows); the broadcast NSID addresses the controller.
        nsid = ["--namespace-id", NSID_ALL]
        get = ["nvme", "get-feature", info.path, "-f", "6", *nsid]
        put = ["nvme", "set-feature", info.path, "-f", "6", *nsid, "-v", "1" if enabled else "0"]
        return "nvme-feature-06h", get, put
    if info.transport in ("sata", "ata", "sas", "scsi", "usb"):
        return "hdparm", ["hdparm", "-W", info.path], ["hdparm", f"-W{int(enabled)}", info.path]
    return None


def _read(runner: Runner, method: str, cmd: list[str]) -> tuple[bool | None, str]:
    done = _call(runner, cmd)
    if done is None:
        return None, f"{cmd[0]} is not installed"
    if done.returncode != 0:
        text = (done.stderr or done.stdout or "").strip().splitlines()
        return None, f"`{shlex.join(cmd)}` failed: {'; '.join(text[-2:]) or done.returncode}"
    parse = parse_nvme_feature if method == "nvme-feature-06h" else parse_hdparm
    value = parse(done.stdout)
    if value is None:
        return None, f"`{shlex.join(cmd)}` did not say whether the cache is on"
    return value, f"`{shlex.join(cmd)}`: {'on' if value else 'off'}"


def set_write_cache(
    info: DeviceInfo,
    enabled: bool,
    *,
    asked: bool | None = None,
    runner: Runner = _run,
    settle_s: float = 5.0,
) -> WriteCacheResult:
    """Set the volatile write cache to `enabled` where the drive allows it. `asked` is what
    the profile asked for (None when this puts back an earlier setting)."""
    refuse_system_disk(info)
    cmds = _commands(info, enabled)
    if cmds is None:
        what = "a file" if info.kind != "block" else f"a {info.transport or 'block'} device"
        return WriteCacheResult(
            False,
            "none",
            None,
            None,
            asked,
            f"{info.path} is {what}: drivelab sets no write cache on it (unchanged)",
        )
    method, get, put = cmds
    before, seen = _read(runner, method, get)
    if before is None:
        return WriteCacheResult(
            False, method, None, None, asked, f"{seen}: the write cache was left as it is"
        )
    if before == enabled:
        return WriteCacheResult(True, method, before, before, asked, f"{seen}; already so")
    done = _call(runner, put)
    if done is None or done.returncode != 0:
        text = "" if done is None else (done.stderr or done.stdout or "").strip()
        return WriteCacheResult(
            False,
            method,
            before,
            before,
            asked,
            f"{seen}; `{shlex.join(put)}` refused ({text or 'not installed'}): the drive "
            "keeps its write cache as it was",
        )
    after, check = _read(runner, method, get)
    # A controller busy with writes may report the new setting a moment later (QEMU's NVMe
    # controller read back "off" right after turning the cache on while a killed run's fio
    # still wrote): read again for a few seconds before calling the change refused.
    deadline = time.monotonic() + settle_s
    while after != enabled and time.monotonic() < deadline:
        time.sleep(0.25)
        after, check = _read(runner, method, get)
    if after != enabled:
        raise StepError(
            f"`{shlex.join(put)}` succeeded but the drive now reports {check}: its write "
            "cache is not as the test needs it"
        )
    return WriteCacheResult(
        True, method, before, after, asked, f"{seen}; `{shlex.join(put)}`; {check}"
    )


def restore_recorded(
    record: Path, info: DeviceInfo, *, runner: Runner = _run
) -> dict[str, object] | None:
    """Put back the setting a write-cache step recorded in `record` on the drive `info` (the
    run's held and verified target); None when the record is absent or already put back.
    Marks the record put back, so that it is done once."""
    try:
        seen = json.loads(record.read_text())
    except (OSError, ValueError):
        return None
    if seen.get("restored") or not seen.get("supported") or seen.get("before") is None:
        return None
    result = set_write_cache(info, bool(seen["before"]), runner=runner)
    done = {**result.as_dict(), "restored": result.after == seen["before"]}
    seen.update(restored=True, restore=done)
    record.write_text(json.dumps(seen))
    return done


def restore_pending(
    runs_dir: Path, identify: Callable[[str], DeviceInfo], *, runner: Runner = _run
) -> list[str]:
    """At a worker's start: put back every write-cache setting that a run on this bench changed
    and did not put back (its worker was killed, the bench lost power), on the drive that still
    reports the serial recorded with it. What was done, one line each, for the log."""
    said: list[str] = []
    for record in sorted(runs_dir.glob("*/write-cache.json")):
        try:
            seen = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if seen.get("restored") or seen.get("before") is None or not seen.get("path"):
            continue
        path, serial, run = seen["path"], seen.get("serial"), seen.get("run_id", record.parent.name)
        try:
            info = identify(path)
        except (OSError, ValueError) as exc:
            said.append(f"run {run}: cannot put back the write cache of {path}: {exc}")
            continue
        if not serial or info.serial != serial:
            said.append(
                f"run {run}: {path} now reports serial {info.serial!r}, not {serial!r}: its "
                "write cache was left alone (the drive that run changed is no longer there)"
            )
            continue
        try:
            done = restore_recorded(record, info, runner=runner)
        except StepError as exc:
            said.append(f"run {run}: putting back the write cache of {path} failed: {exc}")
            continue
        if done is not None:
            said.append(f"run {run}: write cache of {path} ({serial}) put back: {done['detail']}")
    return said
