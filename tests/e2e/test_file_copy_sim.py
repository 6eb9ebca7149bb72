"""A file copy after deletions through the whole stack on a busy CPU, with a known answer: plan
file-copy on the simulated "discard-stalls" drive (20 MB/s writes; writes stand still 1.5 s per
12 MiB of deleted files' TRIMs). The first copy must find no standstill, the repeated copy the
two the 32 MiB of deletions owe, each where and as long as the device's own counters show its
writes stopped (worker.sim.selftest check_file_copy). And a copy that is cancelled, or whose fio
fails, leaves nothing mounted anywhere and the device free. Needs what the simulated drives
need; skipped, saying which is missing, without."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_simulated_drives import MISSING, busy_cpu  # noqa: F401 - the fixture
from worker.sim.controller import SimDrive
from worker.sim.selftest import Case, file_copy_case, register, run_selftest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]


@pytest.fixture(scope="module")
def copied(stack: Stack, busy_cpu: int, tmp_path_factory: pytest.TempPathFactory) -> Case:  # noqa: F811
    with stack.client() as c:
        (case,) = run_selftest(
            c, "local", Path(tmp_path_factory.mktemp("copy")), selected=[file_copy_case()],
            timeout=300,
        )  # fmt: skip
    for check in case.checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.what}: truth {check.truth}, "
              f"found {check.found}")  # fmt: skip
    print(f"the host held a process up for {case.host_worst_s:.3f} s at most")
    return case


def test_the_standstills_are_what_the_drive_did_after_the_deletions(copied: Case) -> None:
    failed = [f"{c.what}: truth {c.truth}, found {c.found}" for c in copied.checks if not c.ok]
    assert copied.checks and not failed, [*failed, f"host held up {copied.host_worst_s:.2f} s"]
    assert copied.run is not None
    step = next(s for s in copied.run["steps"] if s["kind"] == "file-copy")
    found = step["findings"]["file_copy"]
    # The model owed two stalls to 32 MiB of discards; the first copy had nothing to digest.
    assert found["first"]["count"] == 0
    assert found["repeated"]["count"] == 2
    assert found["repeated"]["total_s"] == pytest.approx(3.0, abs=0.6)
    assert found["words"][1].startswith("the repeated copy stood still twice for ")
    assert found["words"][1].endswith("after 0.0336 GB were deleted")
    metrics = {r["metric"]: r["value"] for r in step["results"]}
    assert metrics["file_copy_repeated_standstills"] == 2
    assert metrics["file_copy_first_standstills"] == 0
    assert metrics["file_copy_discarded_bytes"] >= 24 * 2**20  # two stalls' worth: 2 x 12 MiB


def mounts_of(devno: str) -> list[str]:
    """Every process's mount table line that mounts device `devno` (major:minor)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            lines = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
        except OSError:
            continue  # gone meanwhile
        out += [f"{pid}: {ln}" for ln in lines if ln.split()[2] == devno]
    return out


def keepers_of(device: str) -> list[int]:
    """The file copy's namespace keepers of `device` (worker.fio.pin --keep-fs)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--keep-fs" in argv and device.encode() in argv:
            found.append(int(pid))
    return found


def in_namespace_of(keeper: int, comm: str) -> list[int]:
    """Processes named `comm` in the keeper's mount namespace (the copy's fio). None while the
    keeper has not yet left the host's namespace: every fio of the machine (other tests') is in
    that one, and this module kills what it finds."""
    try:
        ns = os.readlink(f"/proc/{keeper}/ns/mnt")
    except OSError:
        return []
    if ns == os.readlink("/proc/self/ns/mnt"):
        return []
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            same = os.readlink(f"/proc/{pid}/ns/mnt") == ns
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if same and name == comm and int(pid) != keeper:
            found.append(int(pid))
    return found


@pytest.fixture
def copying(
    stack: Stack, busy_cpu: int, tmp_path: Path  # noqa: F811
) -> Iterator[tuple[httpx.Client, Case, int]]:
    """A file copy under way on a simulated drive of its own: (client, case, keeper pid), once
    copy 1 is running in the keeper's namespace."""
    case = Case(
        "file copy stopped", "discard-stalls", 384 * 2**20, "file-copy",
        {"file_size": "8m", "copy_size": "96m", "delete_size": "32m"},
    )  # fmt: skip
    case.sim = SimDrive(case.profile, case.size, tmp_path, label=case.name).start()
    try:
        with stack.client() as c:
            case.drive = register(c, "local", case)
            run = c.post("/api/runs", json={
                "plan": "file-copy", "drive_id": case.drive["id"], "params": case.params,
                "confirm_serial": case.drive["serial"],
            }).json()  # fmt: skip
            case.run = run
            device = os.path.realpath(case.sim.device)
            deadline = time.monotonic() + 120
            keeper, fio = None, []
            while time.monotonic() < deadline and not fio:
                keeper = next(iter(keepers_of(device)), None)
                fio = in_namespace_of(keeper, "fio") if keeper else []
                time.sleep(0.1)
            assert keeper and fio, "the copy never started"
            yield c, case, keeper
    finally:
        case.sim.stop()


def left_nothing(case: Case, keeper: int) -> None:
    """Nothing of the copy's filesystem is left: no process mounts the device, the keeper and
    its namespace are gone, and the device can be claimed exclusively again."""
    assert case.sim is not None
    device = os.path.realpath(case.sim.device)
    st = os.stat(device)
    devno = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    assert mounts_of(devno) == []
    assert not Path(f"/proc/{keeper}").exists() and keepers_of(device) == []
    # The worker lets go of the device as the run ends, just after it reports the end.
    deadline = time.monotonic() + 10
    while True:
        try:
            fd = os.open(device, os.O_RDONLY | os.O_EXCL)  # EBUSY if mounted or held anywhere
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    os.close(fd)


def test_a_cancelled_copy_leaves_nothing_mounted(copying: tuple[httpx.Client, Case, int]) -> None:
    c, case, keeper = copying
    assert case.run is not None
    # While it runs, the filesystem is mounted in the keeper's namespace only, never here.
    assert case.sim is not None
    st = os.stat(os.path.realpath(case.sim.device))
    devno = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    seen = mounts_of(devno)
    assert seen and all(ln.split(":")[0].isdigit() for ln in seen)
    host = Path("/proc/self/mountinfo").read_text().splitlines()
    assert not [ln for ln in host if ln.split()[2] == devno]
    assert c.post(f"/api/runs/{case.run['id']}/cancel").status_code == 200
    run = wait_run(c, case.run["id"], timeout=60)
    assert run["status"] == "cancelled", run
    left_nothing(case, keeper)


def test_a_failing_fio_leaves_nothing_mounted(copying: tuple[httpx.Client, Case, int]) -> None:
    c, case, keeper = copying
    assert case.run is not None
    for pid in in_namespace_of(keeper, "fio"):
        os.kill(pid, signal.SIGKILL)  # the copy's own fio: it dies mid-copy
    run = wait_run(c, case.run["id"], timeout=60)
    assert run["status"] == "failed", run
    step = next(s for s in run["steps"] if s["kind"] == "file-copy")
    assert "fio exited with status" in (step["error"] or ""), step["error"]
    left_nothing(case, keeper)
