"""Property-based fuzzing of the whole OpenAPI schema against a running api (schemathesis):
no input may cause a 5xx, and every 4xx says what to fix (a non-empty JSON `detail`).

Runs against a private stack so random cancels and uploads never touch other tests' runs.
`make test` runs a bounded number of examples per operation within a time budget; `make fuzz`
runs many more (DRIVELAB_FUZZ_EXAMPLES, DRIVELAB_FUZZ_SECONDS)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import (
    ROOT,
    Stack,
    create_local_database,
    local_services_available,
    start_stack,
    stop_stack,
)

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get("DRIVELAB_FUZZ_EXAMPLES", "20"))
SECONDS = int(os.environ.get("DRIVELAB_FUZZ_SECONDS", "120"))


@pytest.fixture(scope="module")
def fuzz_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = Path(tmp_path_factory.mktemp("fuzz")) / "data"
    env: dict[str, str] = {}
    cleanup = []
    if local_services_available() and os.environ.get("DRIVELAB_TEST_EMBEDDED") != "1":
        db = create_local_database()
        env = {"DRIVELAB_DATABASE_URL": db.url}  # and the stack's own Redis
        cleanup = [db.drop]
    stack = start_stack(data_dir, env, sim_size="256m")
    try:
        yield stack
    finally:
        stop_stack(stack)
        for fn in cleanup:
            fn()


def test_api_never_fails_and_always_explains(fuzz_stack: Stack, tmp_path: Path) -> None:
    st = Path(sys.executable).with_name("st")
    report = tmp_path / "fuzz.junit.xml"
    out = subprocess.run(
        [
            str(st),
            "run",
            f"{fuzz_stack.api_url}/api/openapi.json",
            "--header",
            f"Authorization: Bearer {fuzz_stack.token}",
            "--checks",
            "not_a_server_error,says_what_to_fix",
            "--exclude-path-regex",
            "/events$",
            "--max-examples",
            str(EXAMPLES),
            "--max-time",
            str(SECONDS),
            "--request-timeout",
            "30",
            "--seed",
            os.environ.get("DRIVELAB_FUZZ_SEED", "20261121"),
            "--report",
            "junit",
            "--report-junit-path",
            str(report),
            "--no-color",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=SECONDS + 300,
        env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks", "PYTHONPATH": str(ROOT)},
    )
    tail = "\n".join((out.stdout + out.stderr).splitlines()[-80:])
    assert out.returncode == 0, f"schemathesis found problems:\n{tail}"
    assert "operations" in out.stdout.lower() or report.exists(), tail
