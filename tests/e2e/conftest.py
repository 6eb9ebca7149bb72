"""Fixtures shared by the end-to-end modules."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

import pytest

from tests.conftest import Stack


@dataclass
class Demo:
    out: subprocess.CompletedProcess[str]
    drives: list[dict]  # its simulated drives A, B and C


@pytest.fixture(scope="session")
def quick_demo(stack: Stack) -> Demo:
    """`drivelab demo --quick` with three simulated drives of 128 MiB, once per session:
    test_demo checks what it loaded and ran, test_compare_ui charts it (the two run on one
    xdist worker: SHARED_WORKER in tests/conftest.py)."""
    out = stack.cli(
        "demo", "--quick", "--drives", "3", "--size", "128m", "--wait", "--timeout", "240",
        timeout=300,
    )  # fmt: skip
    with stack.client() as c:
        drives = [
            d
            for d in c.get("/api/drives").json()
            if re.search(r"/demo-[abc]-128m\.img$", d["target_path"])
        ]
    return Demo(out, sorted(drives, key=lambda d: d["target_path"]))
