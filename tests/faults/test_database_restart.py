"""Fault: PostgreSQL restarts in the middle of a run (down for a few seconds)."""

from __future__ import annotations

import pytest

from tests.conftest import Stack, wait_run
from tests.faults.conftest import (
    assert_samples_cover_steps,
    log_lines,
    queue,
    restart_postgres,
    running_step,
    sim_drive,
    wait_until,
)

pytestmark = pytest.mark.e2e

# Two 5 s steps of sustained writes.
PARAMS = {"span": "64m", "runtime_s": 5}
DOWN_S = 3.0


def test_a_run_outlives_a_database_restart_without_losing_a_sample(fault_stack: Stack) -> None:
    s = fault_stack
    with s.client() as c:
        run = queue(c, sim_drive(c), "write-hitching", PARAMS)
        wait_until(lambda: running_step(c, run["id"], 2), 30, "the run's first samples")
        down = restart_postgres(s.data_dir, DOWN_S)
        print(f"\nPostgreSQL down {down:.1f} s")
        run = wait_run(c, run["id"], timeout=90)
        assert run["status"] == "done", run["error"]
        assert_samples_cover_steps(c, run)
    # The worker's posts failed while the database was down, and were sent again.
    failed = [ln for ln in log_lines(s, f"api /api/worker/runs/{run['id']}/") if "failed (5" in ln]
    assert failed, "no post of the worker failed: the database was never missed"
    # The api did not hold the database's downtime against the worker.
    assert log_lines(s, "the database answers again")
