"""Fixtures shared by the end-to-end modules."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

import pytest

from tests.conftest import Stack
from worker.sim.selftest import HostWatch


@dataclass
class Demo:
    out: subprocess.CompletedProcess[str]
    drives: list[dict]  # its simulated drives A, B and C, by label
    host_worst_s: float  # the longest the host held a process up while the demo ran


@pytest.fixture(scope="session")
def quick_demo(stack: Stack) -> Demo:
    """`drivelab demo --quick` with three drives of 256 MiB (its own default), once per
    session: simulated drives (worker.sim) as root with cgroups, sparse files elsewhere.
    test_demo checks what it loaded and ran, test_compare_ui charts it (the two run on one
    xdist worker: SHARED_WORKER in tests/conftest.py). The drives are the ones the demo says it
    registered."""
    with HostWatch() as watch:
        out = stack.cli(
            "demo", "--quick", "--drives", "3", "--size", "256m", "--wait", "--timeout", "400",
            timeout=430,
        )  # fmt: skip
    ids = [int(m) for m in re.findall(r"^simulated drive (\d+):", out.stdout, re.MULTILINE)]
    with stack.client() as c:
        drives = [d for d in c.get("/api/drives").json() if d["id"] in ids]
    return Demo(out, sorted(drives, key=lambda d: d["label"]), watch.worst_s)
