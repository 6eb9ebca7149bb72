"""Every plan's steps are checked against the device's real size before the first step: a
catalog capacity larger than the device would send fio past the device's end."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from backend.plans.catalog import PLANS, compile_plan
from tests.backend.plans.jobfiles import SMALL
from worker.spans import furthest_byte, span_refusal

GiB = 1024**3
# Plans that need no uploaded trace and whose steps all have a span on the drive.
SPANNING = sorted(set(PLANS) - {"trace-replay"})


def steps_of(plan: str, capacity: int) -> list[dict]:
    _p, _params, steps = compile_plan(plan, {}, replace(SMALL, capacity_bytes=capacity))
    return [{**asdict(s), "status": "pending"} for s in steps]


@pytest.mark.parametrize("plan", SPANNING)
def test_a_plan_compiled_for_the_device_fits_it(plan: str) -> None:
    steps = steps_of(plan, 16 * GiB)
    assert max(furthest_byte(s) for s in steps) <= 16 * GiB
    assert span_refusal(steps, 16 * GiB, "/dev/loop7") is None


# Plans whose default span is the whole drive.
@pytest.mark.parametrize("plan", ["hdtach", "consistency", "trim-validation"])
def test_a_plan_compiled_for_a_larger_model_is_refused_naming_step_and_sizes(plan: str) -> None:
    steps = steps_of(plan, 4 * GiB)
    assert max(furthest_byte(s) for s in steps) > 2 * GiB  # whole-drive spans follow capacity
    why = span_refusal(steps, 2 * GiB, "/dev/loop7")
    assert why is not None
    assert "/dev/loop7 holds 2147483648 bytes (2.0 GiB)" in why
    assert any(f"step {s['name']} would reach byte" in why for s in steps)
    assert "correct the model's capacity" in why


def test_offsets_count_and_done_steps_are_skipped() -> None:
    job = "[global]\nioengine=libaio\nsize=1g\n[a]\noffset=1g\n[b]\noffset=0\nsize=512m\n"
    step = {"name": "tail", "kind": "fio", "job_file": job, "status": "pending"}
    assert furthest_byte(step) == 2 * GiB
    assert span_refusal([step], 2 * GiB - 1, "t") is not None
    assert span_refusal([{**step, "status": "done"}], 2 * GiB - 1, "t") is None
    trim = {"name": "trim", "kind": "trim", "params": {"offset": GiB, "length": GiB}}
    assert furthest_byte(trim) == 2 * GiB
    # Percentages are resolved by fio against the real size; an unknown size checks nothing.
    assert furthest_byte({"name": "p", "kind": "fio", "job_file": "[j]\nsize=100%\n"}) == 0
    assert span_refusal([step], 0, "t") is None


def test_a_trace_replay_reaches_as_far_as_its_trace() -> None:
    """A replay's job file names no size: how far it writes is the trace's, which the api
    records with the step; a device smaller than that is refused before the fill."""
    job = "[global]\nfilename=/dev/loop7\n[trace-3]\nread_iolog=trace-3.iolog\n"
    step = {"name": "trace-3", "kind": "fio", "job_file": job, "params": {"trace_end_bytes": GiB}}
    assert furthest_byte(step) == GiB
    why = span_refusal([step], GiB - 4096, "/dev/loop7")
    assert why is not None and "step trace-3 would reach byte 1073741824" in why
    assert span_refusal([step], GiB, "/dev/loop7") is None
    assert furthest_byte({**step, "params": {}}) == 0
