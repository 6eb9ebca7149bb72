"""Simulated drives with a known answer, through the whole stack on a busy CPU: HD Tach
step-downs, stalls of write hitching and of the write after a TRIM, the consistency drop-off
(worker.sim.selftest: the same self-test `drivelab sim selftest` runs on a bench).

Needs root, a block throttle (cgroup v1 blkio or v2 io) and tmpfs; skipped, saying which is
missing, without them. The runs go at once on five drives and take about a minute."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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


# A spinning process of busy_cpu: it spins once it holds its core's slot (a lock file shared
# by every test process of the machine), for at most 10 minutes from its start.
SPIN = """
import fcntl, sys, time
end = time.monotonic() + 600
slot = open(sys.argv[1], "w")
fcntl.flock(slot, fcntl.LOCK_EX)
while time.monotonic() < end:
    pass
"""
SPIN_SLOTS = Path(tempfile.gettempdir()) / "drivelab-busy-cpu"


@pytest.fixture(scope="module")
def busy_cpu() -> Iterator[int]:
    """One spinning process per core of the machine for as long as the module's runs last:
    the numbers must hold on a busy host. Per core of the machine, not per module: with the
    test run's workers, several such modules run at once, and each spinning its own set
    stacked four to six spinners on two cores, a host far busier than the one each module
    describes. Each spinner waits for its core's slot (a lock), so a module that starts while
    another spins takes the cores over as that one ends."""
    n = os.cpu_count() or 1
    SPIN_SLOTS.mkdir(exist_ok=True)
    procs = [
        subprocess.Popen([sys.executable, "-c", SPIN, str(SPIN_SLOTS / f"core-{k}.lock")])
        for k in range(n)
    ]
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


def test_each_drive_knows_how_long_the_host_held_fio_up(selftest: list[Case]) -> None:
    """Every reading of the trace carries the running total of fio's waits for a core
    (worker.sim.held), never decreasing, at most the time the drive ran."""
    from worker.sim.truth import HELD, TRACE_COLUMNS

    for case in selftest:
        assert case.sim is not None and case.sim.events_path is not None
        lines = case.sim.events_path.with_suffix(".trace").read_text().splitlines()
        assert lines and all(len(line.split()) == TRACE_COLUMNS for line in lines), case.name
        trace = case.sim.trace()
        held = trace[:, HELD]
        assert (held[1:] >= held[:-1]).all(), case.name
        assert 0.0 <= held[-1] <= trace[-1, 0] - trace[0, 0], (case.name, held[-1])
