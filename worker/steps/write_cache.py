"""The drive's volatile write cache, set for a SNIA PTS profile (Enterprise: disabled where
the drive allows it; Client: enabled) and put back at the end of the run.

- NVMe: the Volatile Write Cache feature (Feature Identifier 06h), `nvme get-feature -f 6`
  and `nvme set-feature -f 6 -v 0|1`, without saving it: a drive that is power-cycled comes
  back with its own default.
- SATA and SCSI/SAS drives: `hdparm -W` to read it, `hdparm -W0|-W1` to set it.
- Anything else (a loop device, a virtual disk, a file): nothing to set; recorded as such.

What was found, what was asked and what was done is recorded with the step: the report's
header states it. Every command goes through `runner`, so the NVMe and ATA paths are tested
with canned outputs.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass

from worker.devices import DeviceInfo
from worker.steps import StepError, refuse_system_disk

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]

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
        get = ["nvme", "get-feature", info.path, "-f", "6"]
        put = ["nvme", "set-feature", info.path, "-f", "6", "-v", "1" if enabled else "0"]
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
    info: DeviceInfo, enabled: bool, *, asked: bool | None = None, runner: Runner = _run
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
    if after != enabled:
        raise StepError(
            f"`{shlex.join(put)}` succeeded but the drive now reports {check}: its write "
            "cache is not as the test needs it"
        )
    return WriteCacheResult(
        True, method, before, after, asked, f"{seen}; `{shlex.join(put)}`; {check}"
    )
