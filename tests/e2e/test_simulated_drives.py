"""Simulated drives with a known answer, through the whole stack on a busy CPU: HD Tach
step-downs, stalls of write hitching and of the write after a TRIM, the consistency drop-off
(worker.sim.selftest: the same self-test `drivelab sim selftest` runs on a bench).

Needs root, a block throttle (cgroup v1 blkio or v2 io) and tmpfs; skipped, saying which is
missing, without them. The runs go at once on five drives and take about a minute."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Stack
from worker.sim.controller import requirements
from worker.sim.selftest import Case, run_selftest

MISSING = requirements()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(bool(MISSING), reason="simulated drives: missing " + "; ".join(MISSING)),
]


@pytest.fixture(scope="module")
def busy_cpu() -> Iterator[int]:
    """One spinning process per core for as long as the module's runs last (at most 10
    minutes): the numbers must hold on a busy host."""
    n = os.cpu_count() or 1
    spin = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end: pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(n)]
    try:
        yield n
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture(scope="module")
def selftest(stack: Stack, busy_cpu: int, tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    with stack.client() as c:
        done = run_selftest(c, "local", Path(tmp_path_factory.mktemp("sim")), timeout=480)
    for case in done:
        for check in case.checks:
            print(f"{'ok  ' if check.ok else 'FAIL'} {case.name}: {check.what}: "
                  f"truth {check.truth}, found {check.found}")  # fmt: skip
    print(f"the host held a process up for {done[0].host_worst_s:.3f} s at most")
    return done


def _failed(case: Case) -> list[str]:
    """The failed checks, and how long the host held a process up during the runs. No skip on
    a busy host: the known answer is the drive's own counters, so a hold-up of fio is in it as
    much as in fio's output, and the numbers must hold there."""
    failed = [f"{c.what}: truth {c.truth}, found {c.found}" for c in case.checks if not c.ok]
    return [*failed, f"the host held a process up for {case.host_worst_s:.2f} s"] if failed else []


def _case(done: list[Case], plan: str, profile: str | None = None) -> Case:
    return next(c for c in done if c.plan == plan and (profile is None or c.profile == profile))


@pytest.mark.parametrize("profile", ["slc-cache", "performance-mode"])
def test_hdtach_step_downs_are_where_the_drive_slowed(selftest: list[Case], profile: str) -> None:
    case = _case(selftest, "hdtach", profile)
    failed = _failed(case)
    assert case.checks and not failed, failed
    assert any("position" in c.what for c in case.checks)


def test_write_hitching_stalls(selftest: list[Case]) -> None:
    case = _case(selftest, "write-hitching")
    failed = _failed(case)
    assert case.checks and not failed, failed
    assert any("period" in c.what for c in case.checks)


def test_stalls_of_the_write_after_a_trim(selftest: list[Case]) -> None:
    case = _case(selftest, "trim-performance")
    failed = _failed(case)
    assert case.checks and not failed, failed


def test_consistency_dropoff(selftest: list[Case]) -> None:
    case = _case(selftest, "consistency")
    failed = _failed(case)
    assert case.checks and not failed, failed


def test_the_runs_are_labelled_simulated(selftest: list[Case]) -> None:
    assert all(c.run is not None and c.run["simulated"] for c in selftest)
