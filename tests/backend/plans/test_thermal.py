from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from backend.plans.thermal import COOL_ROLE, HEAT_ROLE
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2


def test_defaults_heat_then_cool_twice_128k_qd32_time_based() -> None:
    _p, params, steps = compile_plan("thermal", {}, TB2)
    assert (params["rw"], params["bs"], params["iodepth"], params["cycles"]) == (
        "write", "128k", 32, 2
    )  # fmt: skip
    assert [s.name for s in steps] == ["heat-1", "cool-1", "heat-2", "cool-2"]
    assert [s.params["role"] for s in steps] == [HEAT_ROLE, COOL_ROLE] * 2
    heat, cool = steps[0], steps[1]
    opts = job(heat)
    assert (opts["rw"], opts["bs"], opts["iodepth"], opts["offset"]) == ("write", "128k", "32", "0")
    assert opts["time_based"] == "1" and opts["runtime"] == "600"
    assert opts["refill_buffers"] == "1"
    assert size(heat) == TB2.capacity_bytes // MiB * MiB
    assert "until_c" not in heat.params and heat.params["phase"] == 1
    assert cool.kind == "idle" and cool.job_file is None
    assert cool.params["seconds"] == 600 and cool.params["sample_temperature"] is True
    assert "within_c" not in cool.params and steps[3].params["phase"] == 2


def test_until_a_temperature_and_until_cool_are_passed_to_the_worker() -> None:
    _p, _params, steps = compile_plan(
        "thermal",
        {"rw": "read", "span": "256m", "heat_s": 30, "until_c": 70, "cool_s": 90,
         "cool_within_c": 3, "cycles": 3},
        SMALL,
    )  # fmt: skip
    assert len(steps) == 6
    heat, cool = steps[0], steps[1]
    assert heat.params["until_c"] == 70 and "70 °C" in heat.params["label"]
    assert job(heat)["rw"] == "read" and "refill_buffers" not in job(heat)
    assert size(heat) == 256 * MiB and heat.estimate_s == 30
    assert cool.params["within_c"] == 3 and cool.params["seconds"] == 90
    assert "within 3 °C" in cool.params["label"]
    assert "notes" in heat.params  # a read plan still asks for the serial: said


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"rw": "randwrite"}, "params.rw", "rw"),
        ({"bs": "1000"}, "params.bs", "multiple of 512"),
        ({"heat_s": 2}, "params.heat_s", "greater than or equal to 5"),
        ({"cycles": 0}, "params.cycles", "cycles"),
        ({"until_c": 5}, "params.until_c", "until_c"),
        ({"cool_within_c": 0}, "params.cool_within_c", "cool_within_c"),
        ({"span": "2m", "bs": "4m"}, "params.bs", "larger than the span"),
    ],
)
def test_invalid_params_name_the_parameter(params: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan("thermal", params, SMALL)
    assert err.value.field == field, err.value
    assert words in str(err.value), err.value
