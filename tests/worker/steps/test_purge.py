"""Purge on real loop devices and files, and the NVMe and ATA command paths with fake runners
(this machine has neither kind of drive)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.worker.steps.conftest import (
    MiB,
    Target,
    pattern,
    read_direct,
    root_disk_info,
    write,
)
from worker import devices, steps
from worker.devices import DeviceInfo
from worker.steps import StepError, StepStopped, purge, trim

# The package re-exports the functions under the modules' names, so reach the modules this way.
purge_module = importlib.import_module("worker.steps.purge")
trim_module = importlib.import_module("worker.steps.trim")

# --- real targets ----------------------------------------------------------------------------


def test_purge_loop_device_discards_the_whole_device(loop_target: Callable[..., Target]) -> None:
    target = loop_target(64 * MiB)
    spans = [(0, 4 * MiB), (20 * MiB, 8 * MiB), (60 * MiB, 4 * MiB)]
    for offset, length in spans:
        write(target.path, offset, pattern(length))
        assert read_direct(target.path, offset, length) == pattern(length)
    blocks_before = os.stat(target.file).st_blocks
    assert blocks_before * 512 >= 16 * MiB  # the writes really reached the backing file

    result = purge(target.info)

    assert result.method == "blkdiscard"
    assert result.detail.startswith(
        f"BLKDISCARD of bytes 0-{64 * MiB} of {target.path}, as `blkdiscard {target.path}` "
        "(fallback: loop transport"
    )
    assert result.seconds > 0
    assert result.as_dict() == {
        "method": "blkdiscard",
        "seconds": result.seconds,
        "detail": result.detail,
    }
    for offset, length in spans:
        assert read_direct(target.path, offset, length) == bytes(length)
    with open(target.file, "rb") as f:
        assert f.read() == bytes(64 * MiB)
    assert os.stat(target.file).st_blocks <= blocks_before // 100


def test_purge_file_punches_the_whole_file(file_target: Callable[..., Target]) -> None:
    target = file_target(32 * MiB)
    write(target.path, 0, pattern(6 * MiB))
    write(target.path, 30 * MiB, pattern(2 * MiB))
    assert os.stat(target.file).st_blocks * 512 >= 8 * MiB

    result = purge(target.info)

    assert result.method == "file-punch"
    assert result.detail == (
        f"fallocate --punch-hole --keep-size --offset 0 --length {32 * MiB} {target.path}"
    )
    st = os.stat(target.file)
    assert st.st_size == 32 * MiB
    assert st.st_blocks <= 8  # at most a block of extent metadata
    with open(target.file, "rb") as f:
        assert f.read() == bytes(32 * MiB)


def test_purge_and_trim_refuse_the_root_disk_before_touching_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = root_disk_info()
    if info is None:
        pytest.skip("no block device backs / here (overlay or network root)")

    def runner(cmd: list[str]) -> subprocess.CompletedProcess[str]:
        pytest.fail(f"purge ran {cmd} on the root disk")

    def discard(*args: object) -> float:
        pytest.fail(f"trim discarded {args} on the root disk")

    monkeypatch.setattr(trim_module, "discard_block", discard)
    # Whatever transport the root disk has, every path must stop at the same check.
    for transport in (info.transport, "nvme", "sata", "virtio"):
        with pytest.raises(StepError, match="root filesystem / lives on"):
            purge(dataclasses.replace(info, transport=transport), runner=runner)
    with pytest.raises(StepError, match=f"refusing to erase {info.path}"):
        trim(info, 0, 1 * MiB)


def test_purge_refuses_a_device_that_writes_through_to_the_root_disk(
    host: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loop device over a loop device writes to the lower one: if the lower one held `/`,
    the upper one must be refused too (the root disk itself is never attached here)."""
    lower = host.attach(host.sparse_file("lower.img", 16 * MiB))
    upper = host.attach(Path(lower))
    monkeypatch.setattr(steps, "root_devices", lambda: {Path(lower).name})

    def runner(cmd: list[str]) -> subprocess.CompletedProcess[str]:
        pytest.fail(f"purge ran {cmd}")

    with pytest.raises(StepError, match=f"writing it changes {Path(lower).name}"):
        purge(devices.identify(upper), runner=runner)


def test_purge_stops_before_erasing_when_asked(file_target: Callable[..., Target]) -> None:
    target = file_target(4 * MiB)
    write(target.path, 0, pattern(MiB))
    with pytest.raises(StepStopped):
        purge(target.info, should_stop=lambda: True)
    assert read_direct(target.path, 0, MiB) == pattern(MiB)


# --- NVMe and ATA with fake runners ----------------------------------------------------------


def fake_drive(path: str, transport: str, **fields: Any) -> DeviceInfo:
    name = Path(path).name
    values: dict[str, Any] = {
        "path": path,
        "kind": "block",
        "name": name,
        "model": "Fake SSD",
        "serial": "FAKE0001",
        "firmware": "1.0",
        "size_bytes": 1 << 40,
        "logical_sector": 512,
        "physical_sector": 4096,
        "rotational": False,
        "transport": transport,
        "backing_file": None,
        "discard_max_bytes": 1 << 31,
        "scheduler": "none",
        "partitions": (),
        "holders": (),
    }
    return DeviceInfo(**(values | fields))


Reply = subprocess.CompletedProcess[str] | Exception


class FakeRunner:
    """Records every command; answers from a table of (command prefix -> replies), the last
    reply of a list repeating. Unknown commands fail the test."""

    def __init__(self, replies: dict[tuple[str, ...], Reply | list[Reply]]) -> None:
        self.replies = {k: v if isinstance(v, list) else [v] for k, v in replies.items()}
        self.commands: list[list[str]] = []

    def __call__(self, cmd: list[str]) -> subprocess.CompletedProcess[str]:
        self.commands.append(cmd)
        for prefix, replies in self.replies.items():
            if tuple(cmd[: len(prefix)]) == prefix:
                reply = replies.pop(0) if len(replies) > 1 else replies[0]
                if isinstance(reply, Exception):
                    raise reply
                return subprocess.CompletedProcess(
                    cmd, reply.returncode, reply.stdout, reply.stderr
                )
        pytest.fail(f"unexpected command {cmd}")


def ok(stdout: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess([], 0, stdout, "")


def failed(stderr: str, code: int = 1) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess([], code, "", stderr)


MISSING = FileNotFoundError(2, "No such file or directory")


class FakeDiscard:
    """Stands in for the BLKDISCARD ioctl on the fake drives; records (offset, length)."""

    def __init__(self, error: OSError | None = None) -> None:
        self.calls: list[tuple[int, int]] = []
        self.error = error

    def __call__(self, offset: int, length: int) -> float:
        self.calls.append((offset, length))
        if self.error:
            raise self.error
        return 0.25


def id_ctrl(oacs: int, fna: int = 0, sanicap: int = 0) -> subprocess.CompletedProcess[str]:
    """A trimmed `nvme id-ctrl -o json` (nvme-cli 2.x prints these keys as numbers)."""
    body = {"vid": 5197, "sn": "FAKE0001", "mn": "Fake SSD", "fr": "1.0", "nn": 1}
    return ok(json.dumps(body | {"oacs": oacs, "fna": fna, "sanicap": sanicap}))


def sanitize_log(status: int, sprog: int) -> subprocess.CompletedProcess[str]:
    """`nvme sanitize-log /dev/nvme0 -o json` as nvme-cli 2.x prints it."""
    words = {1: "completed successfully", 2: "in progress", 3: "failed"}.get(status, "never")
    sstat = {"global_erased": 0, "no_cmplted_passes": 0, "status": f"({status}) {words}"}
    return ok(json.dumps({"nvme0": {"sprog": sprog, "sstat": sstat, "cdw10_info": 0}}))


@pytest.fixture
def guard_calls(monkeypatch: pytest.MonkeyPatch) -> list[DeviceInfo]:
    """The fake drives do not exist, so the system-disk check (tested above on real devices)
    is replaced by one that records that purge called it first."""
    calls: list[DeviceInfo] = []
    monkeypatch.setattr(purge_module, "refuse_system_disk", calls.append)
    monkeypatch.setattr(purge_module, "_POLL_S", 0.0)
    return calls


NVME = fake_drive("/dev/nvme0n1", "nvme")
SATA = fake_drive("/dev/sdz", "sata")


def test_nvme_format_with_user_data_erase(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner({("nvme", "id-ctrl"): id_ctrl(oacs=0x17), ("nvme", "format"): ok()})
    result = purge(NVME, runner=runner)
    assert guard_calls == [NVME]
    assert runner.commands == [
        ["nvme", "id-ctrl", "/dev/nvme0", "-o", "json"],
        ["nvme", "format", "/dev/nvme0n1", "--ses=1", "--force"],
    ]
    assert result.method == "nvme-format-ses1"
    assert result.detail == "nvme format /dev/nvme0n1 --ses=1 --force"


def test_nvme_sanitize_is_polled_until_done(guard_calls: list[DeviceInfo]) -> None:
    progression = [sanitize_log(2, 0), sanitize_log(2, 30000), sanitize_log(1, 65535)]
    runner = FakeRunner(
        {
            ("nvme", "id-ctrl"): id_ctrl(oacs=0, sanicap=0x3),  # no Format NVM; block erase
            ("nvme", "sanitize-log"): progression,
            ("nvme", "sanitize"): ok(),
        }
    )
    result = purge(NVME, runner=runner)
    log = ["nvme", "sanitize-log", "/dev/nvme0", "-o", "json"]
    assert runner.commands == [
        ["nvme", "id-ctrl", "/dev/nvme0", "-o", "json"],
        ["nvme", "sanitize", "/dev/nvme0", "-a", "2"],
        log,
        log,
        log,
    ]
    assert result.method == "nvme-sanitize"
    assert result.detail.startswith("nvme sanitize /dev/nvme0 -a 2, then")
    assert "polled 3 times" in result.detail


def test_nvme_sanitize_uses_crypto_erase_and_old_log_format(guard_calls: list[DeviceInfo]) -> None:
    old_style = [ok('{"nvme0": {"sprog": 100, "sstat": 2}}'), ok('{"sprog": 65535, "sstat": 257}')]
    runner = FakeRunner(
        {
            ("nvme", "id-ctrl"): id_ctrl(oacs=0, sanicap=0x1),
            ("nvme", "sanitize-log"): old_style,
            ("nvme", "sanitize"): ok(),
        }
    )
    assert purge(NVME, runner=runner).method == "nvme-sanitize"
    assert ["nvme", "sanitize", "/dev/nvme0", "-a", "4"] in runner.commands


def test_nvme_sanitize_failure_is_reported(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {
            ("nvme", "id-ctrl"): id_ctrl(oacs=0, sanicap=0x2),
            ("nvme", "sanitize-log"): [sanitize_log(2, 10), sanitize_log(3, 0)],
            ("nvme", "sanitize"): ok(),
        }
    )
    with pytest.raises(StepError, match="sanitize of /dev/nvme0 failed"):
        purge(NVME, runner=runner)


def test_stopping_during_a_sanitize_says_the_drive_carries_on(
    guard_calls: list[DeviceInfo],
) -> None:
    runner = FakeRunner(
        {
            ("nvme", "id-ctrl"): id_ctrl(oacs=0, sanicap=0x2),
            ("nvme", "sanitize-log"): sanitize_log(2, 32768),
            ("nvme", "sanitize"): ok(),
        }
    )
    asked = iter([False, False, True])  # on entry, before the sanitize, after the first poll
    with pytest.raises(StepStopped, match=r"50% done\): the drive finishes the sanitize"):
        purge(NVME, runner=runner, should_stop=lambda: next(asked))


def test_nvme_refuses_a_format_that_would_erase_other_namespaces(
    guard_calls: list[DeviceInfo], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        purge_module, "_nvme_topology", lambda info: ("nvme0", ("nvme0n1", "nvme0n2"))
    )
    runner = FakeRunner({("nvme", "id-ctrl"): id_ctrl(oacs=0x2, fna=0x1)})
    with pytest.raises(StepError, match=r"other namespaces \(nvme0n2\)"):
        purge(NVME, runner=runner)
    assert [c[:2] for c in runner.commands] == [["nvme", "id-ctrl"]]

    # A format that applies to this namespace only is fine.
    runner = FakeRunner({("nvme", "id-ctrl"): id_ctrl(oacs=0x2, fna=0), ("nvme", "format"): ok()})
    assert purge(NVME, runner=runner).method == "nvme-format-ses1"


def test_nvme_without_nvme_cli_falls_back_to_blkdiscard_and_says_so(
    guard_calls: list[DeviceInfo],
) -> None:
    runner = FakeRunner({("nvme",): MISSING})
    discard = FakeDiscard()
    result = purge(NVME, runner=runner, discard=discard)
    assert runner.commands == [["nvme", "id-ctrl", "/dev/nvme0", "-o", "json"]]
    assert discard.calls == [(0, NVME.size_bytes)]
    assert result.method == "blkdiscard" and result.seconds == 0.25
    assert "nvme-cli is not installed" in result.detail


HDPARM_I = """
/dev/sdz:

ATA device, with non-removable media
\tModel Number:       Fake SSD 870
\tSerial Number:      FAKE0001
\tFirmware Revision:  1.0
Commands/features:
\tEnabled\tSupported:
\t   *\tSecurity Mode feature set
Security:\x20
\tMaster password revision code = 65534
\t\tsupported
\tnot\tenabled
\tnot\tlocked
\t{frozen}
\tnot\texpired: security count
\t\tsupported: enhanced erase
\t2min for SECURITY ERASE UNIT. 2min for ENHANCED SECURITY ERASE UNIT.
Logical Unit WWN Device Identifier: 5002538f00000000
Checksum: correct
"""
NOT_FROZEN = HDPARM_I.format(frozen="not\tfrozen")
FROZEN = HDPARM_I.format(frozen="\tfrozen")
ENABLED = NOT_FROZEN.replace("\tnot\tenabled", "\t\tenabled")


def test_parse_ata_security() -> None:
    security = purge_module.parse_ata_security(NOT_FROZEN)
    assert security == purge_module.AtaSecurity(
        supported=True,
        enhanced_erase=True,
        erase_time="2min for SECURITY ERASE UNIT. 2min for ENHANCED SECURITY ERASE UNIT.",
    )
    frozen = purge_module.parse_ata_security(FROZEN)
    assert frozen is not None and frozen.frozen and not frozen.enabled
    assert purge_module.parse_ata_security("/dev/sdz:\n ATA device\n") is None


def test_ata_security_erase(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {
            ("hdparm", "-I"): ok(NOT_FROZEN),
            ("hdparm", "--user-master", "u", "--security-set-pass"): ok(),
            ("hdparm", "--user-master", "u", "--security-erase"): ok(),
        }
    )
    result = purge(SATA, runner=runner)
    set_pass = ["hdparm", "--user-master", "u", "--security-set-pass", "drivelab", "/dev/sdz"]
    erase = ["hdparm", "--user-master", "u", "--security-erase", "drivelab", "/dev/sdz"]
    identify = ["hdparm", "-I", "/dev/sdz"]
    assert runner.commands == [identify, set_pass, erase, identify]
    assert result.method == "ata-security-erase"
    assert result.detail.startswith(" ".join(set_pass) + " && " + " ".join(erase))
    assert "2min for SECURITY ERASE UNIT" in result.detail


def test_frozen_ata_drive_is_refused_without_falling_back(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner({("hdparm", "-I"): ok(FROZEN)})
    with pytest.raises(StepError) as caught:
        purge(SATA, runner=runner)
    assert caught.value.message == (
        "drive /dev/sdz (serial FAKE0001) is frozen: ATA security erase is refused until it is "
        "unfrozen (suspend/resume the machine or hot-plug the drive), or choose blkdiscard"
    )
    assert runner.commands == [["hdparm", "-I", "/dev/sdz"]]  # no password, no blkdiscard


def test_ata_drive_with_a_password_is_refused(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner({("hdparm", "-I"): ok(ENABLED)})
    with pytest.raises(StepError, match="already has an ATA security password"):
        purge(SATA, runner=runner)
    assert len(runner.commands) == 1


def test_failed_ata_erase_removes_the_temporary_password(guard_calls: list[DeviceInfo]) -> None:
    runner = FakeRunner(
        {
            ("hdparm", "-I"): ok(NOT_FROZEN),
            ("hdparm", "--user-master", "u", "--security-set-pass"): ok(),
            ("hdparm", "--user-master", "u", "--security-erase"): failed("Input/output error", 5),
            ("hdparm", "--user-master", "u", "--security-disable"): ok(),
        }
    )
    with pytest.raises(StepError, match="Input/output error.*temporary password was removed"):
        purge(SATA, runner=runner)
    assert runner.commands[-1] == [
        "hdparm",
        "--user-master",
        "u",
        "--security-disable",
        "drivelab",
        "/dev/sdz",
    ]


def test_sata_without_hdparm_falls_back_to_blkdiscard_and_says_so(
    guard_calls: list[DeviceInfo],
) -> None:
    runner = FakeRunner({("hdparm",): MISSING})
    discard = FakeDiscard()
    result = purge(SATA, runner=runner, discard=discard)
    assert runner.commands == [["hdparm", "-I", "/dev/sdz"]]
    assert discard.calls == [(0, SATA.size_bytes)]
    assert result.method == "blkdiscard"
    assert "hdparm is not installed" in result.detail


def test_fallback_on_a_drive_without_discard_is_an_error(guard_calls: list[DeviceInfo]) -> None:
    drive = fake_drive("/dev/vdz", "virtio", discard_max_bytes=0)
    runner = FakeRunner({})
    discard = FakeDiscard()
    with pytest.raises(StepError, match=r"does not support discard \(discard_max_bytes is 0\)"):
        purge(drive, runner=runner, discard=discard)
    assert runner.commands == [] and discard.calls == []


def test_failed_blkdiscard_is_reported(guard_calls: list[DeviceInfo]) -> None:
    discard = FakeDiscard(OSError(5, "Input/output error"))
    drive = fake_drive("/dev/vdz", "virtio")
    with pytest.raises(
        StepError,
        match=r"BLKDISCARD of the whole of /dev/vdz \(1099511627776 bytes\) failed: Input/output",
    ):
        purge(drive, runner=FakeRunner({}), discard=discard)
    assert discard.calls == [(0, drive.size_bytes)]
