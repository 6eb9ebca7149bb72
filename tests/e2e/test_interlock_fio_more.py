"""Inside one fio process, fio writes exactly the drive the interlock checked: the target
covered or replaced in other ways during a PTS round, and a symlink swapped in during a step of
the plans that run one fio process per point. test_interlock_fio.py has the helpers and the
cases of a replaced name, a re-made device node and a renamed directory (split in two modules
so that the test run spreads them over two workers)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import psutil
import pytest

from tests.conftest import Stack, wait_run
from tests.e2e.test_interlock_fio import (
    PTS_LATENCY,
    Victim,
    refused_after,
    refused_after_round,
    step_of,
    symlink_to,
    wait_for_samples,
)
from tests.e2e.test_interlock_matrix import protected
from tests.faults.conftest import fio_processes, queue
from tests.worker.conftest import Host, MiB, sha256_of

pytestmark = pytest.mark.e2e


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    with ExitStack() as cleanup:
        yield Host(tmp_path, cleanup)


# --- every other way to change the name, during a round --------------------------------


def bind_mount(victim: Victim) -> Callable[[Path], None]:
    def swap(target: Path) -> None:  # undone by the test's `finally`
        subprocess.run(["mount", "--bind", victim.device, str(target)], check=True)

    return swap


def hard_link(outside: Path) -> Callable[[Path], None]:
    def swap(target: Path) -> None:
        fresh = target.with_name("fresh")
        os.link(outside, fresh)
        fresh.replace(target)

    return swap


def fifo(target: Path) -> None:
    fresh = target.with_name("fresh")
    os.mkfifo(fresh)
    fresh.replace(target)


@pytest.mark.parametrize("case", ["bind-mount", "hard-link", "fifo"])
def test_a_file_target_covered_or_replaced_during_a_pts_round(
    stack: Stack, host: Host, case: str
) -> None:
    """A bind mount of another device over the file, a hard link to a file outside the
    sandbox moved over it, a FIFO moved over it: round 1 goes on with the held file; the next
    round is refused by the rule that names what the target has become."""
    victim = Victim(host)
    outside = protected(host, "outside.img")
    outside_before = sha256_of(outside)
    target = stack.data_dir / "targets" / f"pinned-{case}.img"
    drive = stack.add_drive(target, f"pinned {case}", size=16 * MiB)
    swap, rule = {
        "bind-mount": (bind_mount(victim), "not-whole-device"),
        "hard-link": (hard_link(outside), "hard-link"),
        "fifo": (fifo, "not-whole-device"),
    }[case]
    try:
        with stack.client() as c:
            run_id = queue(c, drive, "pts-latency", {**PTS_LATENCY, "span": "16m"})["id"]
            step = wait_for_samples(c, run_id, "fio-rounds")
            swap(target)
            run = wait_run(c, run_id, timeout=180)
        refused_after_round(run, step, rule)
        assert victim.untouched()
        assert sha256_of(outside) == outside_before
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)
        target.unlink(missing_ok=True)


# --- plans whose steps are one fio run each: the swap during a step ------------------------

ONE_RUN_PLANS = {
    "qd-sweep": (
        {
            "span": "16m",
            "workloads": ["randwrite"],
            "queue_depths": [1, 2, 4],
            "idle_s": 0,  # the next step writes: refused before it (idle steps: test_interlock)
            "runtime_s": 4,
            "precondition_loops": 1,
            "precondition_random_s": 0,
        },
        "randwrite-4k-qd1",
    ),
    # 512-byte writes: slow enough on a file that the step is still running when the name moves.
    "transfer-size": ({"span": "16m", "sizes": ["512", "64k", "1m"], "runtime_s": 4}, "write-512"),
    "four-corners": (
        {"span": "16m", "runtime_s": 4, "seq_runtime_s": 2, "patterns": ["incompressible"]},
        "randread-4k-qd3",
    ),
}


def running_fio(workdir: Path, job: str) -> bool:
    """A fio process of the run (in its directory) runs this job file."""
    for proc in fio_processes(workdir):
        try:
            if job in proc.cmdline():
                return True
        except psutil.NoSuchProcess:
            continue
    return False


@pytest.mark.parametrize("plan", sorted(ONE_RUN_PLANS))
def test_a_symlink_swapped_in_during_a_step_of_a_one_run_plan(
    stack: Stack, host: Host, plan: str
) -> None:
    """qd-sweep, transfer-size and four-corners run one fio process per point: the step that
    was running ends on the held file with its results, the next step is refused."""
    params, name = ONE_RUN_PLANS[plan]
    victim = Victim(host)
    target = stack.data_dir / "targets" / f"pinned-{plan}.img"
    drive = stack.add_drive(target, f"pinned {plan}", size=16 * MiB)
    held = target.with_name(target.name + ".orig")
    try:
        with stack.client() as c:
            run = queue(c, drive, plan, params)
            step = next(s for s in run["steps"] if s["name"] == name)
            # The swap while the step's fio runs: seen from here (its process, by its job
            # file), not from the api's samples, which a busy host can deliver after the
            # 4 s step has ended.
            workdir = stack.data_dir / "runs" / str(run["id"])
            job = f"{step['idx']:02d}-{name}.fio"
            deadline = time.monotonic() + 300
            while not running_fio(workdir, job):
                status = c.get(f"/api/runs/{run['id']}").json()["status"]
                assert status in ("queued", "running"), f"run {status} before {job} ran"
                assert time.monotonic() < deadline, f"no fio of {job} in 300 s"
                time.sleep(0.02)
            symlink_to(victim)(target)
            run = wait_run(c, run["id"], timeout=180)
        finished = step_of(run, step["id"])
        refused_after(run, step, "outside-sandbox")
        assert finished["status"] == "done", finished
        assert finished["results"], f"step {name} finished without results"
        assert victim.untouched()
    finally:
        target.unlink(missing_ok=True)
        held.unlink(missing_ok=True)
