"""The bench's device report on this machine's real devices, loop devices and files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.worker.test_devices import loop_serial, root_disk_name
from worker import devices
from worker.report import device_report, signature


def by_path(report: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["path"]: entry for entry in report}


def test_sandbox_files_are_reported_simulated_with_their_serials(tmp_path: Path) -> None:
    sandbox = tmp_path / "targets"
    (sandbox / "sub").mkdir(parents=True)
    a = sandbox / "a.img"
    b = sandbox / "sub" / "b.img"
    for f in (a, b):
        with open(f, "wb") as out:
            out.truncate(1 << 20)
    (sandbox / "link.img").symlink_to(a)
    report = by_path(device_report(sandbox, tmp_path))
    json.dumps(list(report.values()))  # JSON-ready as posted
    for f in (a, b):
        entry = report[str(f)]
        assert entry["kind"] == "file" and entry["simulated"] and not entry["emulated"]
        assert entry["serial"] == devices.identify_file(str(f)).serial
        assert entry["size_bytes"] == 1 << 20
        assert entry["system"] is None and entry["in_use"] == []
    assert str(sandbox / "link.img") not in report  # a symlink is not a file of its own


def test_a_hard_link_in_the_sandbox_is_reported_in_use(tmp_path: Path) -> None:
    sandbox = tmp_path / "targets"
    sandbox.mkdir()
    outside = tmp_path / "outside.img"
    outside.write_bytes(b"x" * 4096)
    os.link(outside, sandbox / "linked.img")
    entry = by_path(device_report(sandbox, tmp_path))[str(sandbox / "linked.img")]
    assert entry["in_use"] == ["it has 2 names (hard links)"]


def test_the_root_disk_is_reported_as_the_system_disk(tmp_path: Path) -> None:
    name = root_disk_name()
    if name is None:
        pytest.skip("no block device backs / here (overlay or network root)")
    report = device_report(tmp_path / "none", tmp_path)
    entry = next(e for e in report if e["name"] == name)
    assert entry["system"] and "backs the root filesystem /" in entry["system"]
    assert not entry["simulated"]


def test_a_loop_device_is_simulated_and_its_backing_file_in_use(host: Any) -> None:
    sandbox = host.root / "targets"
    backing = host.sparse_file("targets/drive.img", 16 << 20)
    device = host.attach(backing)
    report = by_path(device_report(sandbox, host.root))
    loop = report[device]
    assert loop["simulated"] and loop["transport"] == "loop"
    assert loop["serial"] == loop_serial(backing)
    assert loop["system"] is None and loop["in_use"] == []
    assert report[str(backing)]["in_use"] == [f"it is the backing file of {device}"]


def test_a_mounted_loop_device_is_reported_in_use(host: Any) -> None:
    device = host.attach(host.sparse_file("fs.img", 16 << 20))
    mnt = host.mount(device, host.root / "mnt")
    entry = by_path(device_report(host.root / "none", host.root))[device]
    expected = f"refusing to write {device}: it is mounted at {mnt} (rule: mounted)"
    assert entry["in_use"] == [expected]


def test_the_signature_changes_with_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of the sandbox alone: the machine's own block devices, mounts and /dev/disk names are
    left out (other tests attach loop devices and make links meanwhile)."""
    import worker.report as report

    for name in ("sys/block", "proc", "by-id", "by-path"):
        (tmp_path / name).mkdir(parents=True)
    monkeypatch.setattr(report, "BY_ID", tmp_path / "by-id")
    monkeypatch.setattr(report, "BY_PATH", tmp_path / "by-path")
    fake = {"sysfs": tmp_path / "sys", "proc": tmp_path / "proc"}
    sandbox = tmp_path / "targets"
    sandbox.mkdir()
    before = signature(sandbox, **fake)
    assert signature(sandbox, **fake) == before
    (sandbox / "new.img").write_bytes(b"")
    assert signature(sandbox, **fake) != before
