"""What a worker gets as a step's params when it claims a run (backend.runs.worker_service
worker_params): a thermal run resumed after a heat phase finished tells its cool phase where
that heat phase began, so that the cool phase can end once the drive is back near it on a
worker that did not run the heat phase."""

from __future__ import annotations

from typing import Any

from backend.plans.thermal import COOL_ROLE, HEAT_ROLE
from backend.runs.models import Step
from backend.runs.worker_service import worker_params


def _step(idx: int, role: str, status: str, logs: dict[str, Any] | None = None) -> Step:
    params = {"role": role, "within_c": 2} if role == COOL_ROLE else {"role": role}
    return Step(idx=idx, kind="fio", name=f"s{idx}", params=params, status=status, logs=logs)


def _heat(idx: int, status: str, start_c: float | None) -> Step:
    logs = {"thermal_phase": {"start_c": start_c, "until_c": None}} if status == "done" else None
    return _step(idx, HEAT_ROLE, status, logs)


def test_a_cool_phase_after_a_finished_heat_phase_gets_its_start() -> None:
    steps = [_heat(0, "done", 41.5), _step(1, COOL_ROLE, "pending"),
             _heat(2, "pending", None), _step(3, COOL_ROLE, "pending")]  # fmt: skip
    got = worker_params(steps)
    assert got[1]["phase_start_c"] == 41.5
    # The second heat phase runs on this worker, which keeps its own start.
    assert "phase_start_c" not in got[3]
    # The stored params are not changed.
    assert "phase_start_c" not in steps[1].params


def test_each_cool_phase_gets_the_heat_phase_just_before_it() -> None:
    steps = [_heat(0, "done", 35.0), _step(1, COOL_ROLE, "done"),
             _heat(2, "done", 38.2), _step(3, COOL_ROLE, "cancelled")]  # fmt: skip
    got = worker_params(steps)
    assert "phase_start_c" not in got[1]  # done: not run again
    assert got[3]["phase_start_c"] == 38.2


def test_no_start_without_a_reading_or_for_other_plans() -> None:
    no_sensor = [_heat(0, "done", None), _step(1, COOL_ROLE, "pending")]
    assert "phase_start_c" not in worker_params(no_sensor)[1]
    other = [Step(idx=0, kind="fio", name="a", params={"role": "hdtach-write"}, status="done")]
    assert worker_params(other) == [{"role": "hdtach-write"}]
