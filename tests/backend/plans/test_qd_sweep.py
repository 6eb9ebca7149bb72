"""The qd-sweep plan: preconditioning, one step per workload and queue depth, a summary."""

from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job


def test_default_sweep_after_preconditioning() -> None:
    _plan, params, steps = compile_plan("qd-sweep", {}, TB2)
    names = [s.name for s in steps]
    assert names[:3] == ["purge", "precondition", "precondition-random"]
    assert params["queue_depths"] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert params["workloads"] == ["randread", "randwrite", "mix"]
    assert params["mix_read_pct"] == 70
    for w in ("randread", "randwrite", "mix70"):
        points = [s for s in steps if s.params.get("workload") == w]
        assert [s.name for s in points] == [f"{w}-4k-qd{q}" for q in params["queue_depths"]] + [
            f"{w}-4k-sweep"
        ]
        # A 5 s cool-off before every depth but the first, as the reviews idle between them.
        named = [s.name for s in steps]
        for q in params["queue_depths"][1:]:
            rest = steps[named.index(f"{w}-4k-qd{q}") - 1]
            assert (rest.name, rest.kind, rest.params["seconds"]) == (
                f"{w}-cool-off-qd{q}",
                "idle",
                5,
            )
        assert f"{w}-cool-off-qd1" not in named
        summary = points[-1]
        assert summary.kind == "idle" and summary.params["role"] == "qd-sweep-summary"
        assert summary.params["latency_target_us"] == 1000.0
        for s, qd in zip(points[:-1], params["queue_depths"], strict=True):
            opts = job(s)
            assert opts["bs"] == "4k" and opts["iodepth"] == str(qd) and opts["numjobs"] == "1"
            assert opts["time_based"] == "1" and opts["runtime"] == "60"
            assert s.params["role"] == "qd-sweep"
    mix = job(next(s for s in steps if s.name == "mix70-4k-qd8"))
    assert mix["rw"] == "randrw" and mix["rwmixread"] == "70" and mix["refill_buffers"] == "1"
    assert job(next(s for s in steps if s.name == "randread-4k-qd8"))["rw"] == "randread"


def test_parameters() -> None:
    _plan, params, steps = compile_plan(
        "qd-sweep",
        {"workloads": ["mix70"], "queue_depths": [32, 1], "numjobs": 4, "precondition": False,
         "latency_target_us": 500, "idle_s": 0},
        SMALL,
    )  # fmt: skip
    assert params["queue_depths"] == [1, 32]
    assert [s.name for s in steps] == [
        "mix70-4k-qd1-4jobs",
        "mix70-4k-qd32-4jobs",
        "mix70-4k-sweep",
    ]
    assert job(steps[1])["numjobs"] == "4"
    assert "(128 outstanding)" in steps[1].params["label"]
    assert steps[-1].params["latency_target_us"] == 500
    # `mix70`, the name runs queued before the mix's read share was a parameter, is the mix.
    assert params["workloads"] == ["mix"] and params["mix_read_pct"] == 70


def test_the_mix_is_a_parameter_named_by_its_read_share() -> None:
    _plan, params, steps = compile_plan(
        "qd-sweep",
        {"workloads": ["mix", "randread"], "mix_read_pct": 50, "queue_depths": [1, 8],
         "precondition": False, "idle_s": 0},
        SMALL,
    )  # fmt: skip
    assert [s.name for s in steps] == [
        "mix50-4k-qd1", "mix50-4k-qd8", "mix50-4k-sweep",
        "randread-4k-qd1", "randread-4k-qd8", "randread-4k-sweep",
    ]  # fmt: skip
    mix = job(steps[1])
    assert mix["rw"] == "randrw" and mix["rwmixread"] == "50"
    assert steps[1].params["workload"] == "mix50" and steps[2].params["workload"] == "mix50"
    assert steps[1].params["label"] == "4K random 50/50 read/write QD8"
    assert job(steps[4])["rw"] == "randread" and "rwmixread" not in job(steps[4])


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"queue_depths": [0]}, "queue_depths"),
        ({"queue_depths": [4, 4]}, "queue_depths"),
        ({"queue_depths": []}, "queue_depths"),
        ({"workloads": ["seqread"]}, "workloads"),
        ({"workloads": ["randread", "randread"]}, "workloads"),
        ({"mix_read_pct": 100}, "mix_read_pct"),
        ({"mix_read_pct": 0}, "mix_read_pct"),
        ({"numjobs": 0}, "numjobs"),
        ({"latency_target_us": 0}, "latency_target_us"),
    ],
)
def test_bad_parameters_say_what_to_fix(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan("qd-sweep", params, SMALL)
    assert err.value.field.startswith(f"params.{field}")
