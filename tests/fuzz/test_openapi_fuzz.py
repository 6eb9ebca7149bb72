"""Property-based fuzzing of the whole OpenAPI schema against a running api (schemathesis),
with every check it has: no input causes a 5xx, answers match the schema (statuses, headers,
bodies), schema-valid input is accepted and invalid input refused, every 4xx says what to
fix (a non-empty JSON `detail`), and every JSON body sent again with NaN, Infinity or 1e400 in
one place is refused with a 422 naming that place.

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


# Operations that can take the fuzzer's own credentials away (revoke its token, disable or
# demote its user): fuzzed in a run of their own, after the others, so that losing the token
# there cannot leave the rest untested.
CREDENTIAL_OPERATIONS = (
    "revoke_my_token_api_auth_tokens__token_id__delete",
    "revoke_token_api_users__user_id__tokens__token_id__delete",
    "update_user_api_users__user_id__patch",
)
CONFIG = Path(__file__).with_name("schemathesis.toml")


def _schemathesis(stack: Stack, report: Path, seconds: int, *selection: str) -> tuple[int, str]:
    st = Path(sys.executable).with_name("st")
    out = subprocess.run(
        [
            str(st),
            "--config-file",
            str(CONFIG),
            "run",
            f"{stack.api_url}/api/openapi.json",
            "--header",
            f"Authorization: Bearer {stack.token}",
            "--checks",
            "all",
            "--exclude-path-regex",
            "/events$",
            *selection,
            "--max-examples",
            str(EXAMPLES),
            "--max-time",
            str(seconds),
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
        timeout=seconds + 300,
        env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks", "PYTHONPATH": str(ROOT)},
    )
    return out.returncode, out.stdout + out.stderr


def test_api_never_fails_and_always_explains(fuzz_stack: Stack, tmp_path: Path) -> None:
    """Every schemathesis check (no 5xx, statuses, headers and bodies as documented, valid
    input accepted, invalid refused, methods and Allow, auth...) plus drivelab's own
    (tests/fuzz/hooks.py): says_what_to_fix, and refuses_non_finite_numbers, which sends each
    JSON body again with NaN, Infinity or 1e400 in one place of it."""
    others = [a for op in CREDENTIAL_OPERATIONS for a in ("--exclude-operation-id", op)]
    own = [a for op in CREDENTIAL_OPERATIONS for a in ("--include-operation-id", op)]
    # schemathesis repeats fuzzing and stateful testing until its time budget is spent, so each
    # run lasts its budget: the three credential operations get a quarter of the others' (at
    # SECONDS=120, 30 s, in which every phase, stateful included, ran on each of the three).
    budgets = {"others": SECONDS, "credentials": max(30, SECONDS // 4)}
    for name, selection in (("others", others), ("credentials", own)):
        report = tmp_path / f"fuzz-{name}.junit.xml"
        status, output = _schemathesis(fuzz_stack, report, budgets[name], *selection)
        (tmp_path / f"fuzz-{name}.txt").write_text(output)
        # The failures, each with how to reproduce it, then the summary.
        failures = output.split("WARNINGS ===", 1)[0].splitlines()[-400:]
        summary = output.splitlines()[-40:]
        report_text = "\n".join([*failures, "...", *summary])
        assert status == 0, f"schemathesis found problems ({name}):\n{report_text}"
        assert "operations" in output.lower() or report.exists(), "\n".join(summary)
