from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2


def test_purge_fill_then_2000_s_of_4k_random_writes() -> None:
    _p, params, steps = compile_plan("consistency", {}, TB2)
    assert params["op_percent"] == 0 and params["runtime_s"] == 2000
    assert [s.kind for s in steps] == ["purge", "fio", "fio"]
    fill, cons = steps[1], steps[2]
    f = job(fill)
    assert (f["rw"], f["bs"], f["iodepth"], f["refill_buffers"]) == ("write", "128k", "32", "1")
    assert fill.params["role"] == "fill"
    c = job(cons)
    assert (c["rw"], c["bs"], c["iodepth"]) == ("randwrite", "4k", "32")
    assert c["refill_buffers"] == c["norandommap"] == c["time_based"] == "1"
    assert c["randrepeat"] == "0" and c["runtime"] == "2000"
    assert cons.params["role"] == "consistency" and cons.params["log_window_ms"] == 1000
    assert c["log_avg_msec"] == c["iopsavgtime"] == c["bwavgtime"] == "1000"
    # 100%: the whole drive, rounded down to a whole MiB.
    assert size(fill) == size(cons) == TB2.capacity_bytes // MiB * MiB
    assert cons.params["span_bytes"] == size(cons)
    assert cons.estimate_s == 2000


def test_25_percent_over_provisioning_tests_75_percent_and_never_more() -> None:
    _p, _params, steps = compile_plan("consistency", {"op_percent": 25}, TB2)
    fill, cons = steps[1], steps[2]
    assert size(fill) == size(cons) == 1430511 * MiB
    assert size(cons) <= TB2.capacity_bytes * 0.75 < size(cons) + MiB
    assert job(cons)["offset"] == job(fill)["offset"] == "0"
    assert cons.params["op_percent"] == 25


def test_shortened_on_a_small_file() -> None:
    _p, _params, steps = compile_plan(
        "consistency", {"op_percent": 25, "runtime_s": 3, "log_window_ms": 200}, SMALL
    )
    assert size(steps[2]) == 768 * MiB and job(steps[2])["runtime"] == "3"
    assert job(steps[2])["log_avg_msec"] == "200"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"op_percent": 10}, "params.op_percent"),
        ({"runtime_s": 0}, "params.runtime_s"),
        ({"log_window_ms": 0}, "params.log_window_ms"),
        ({"span": "1m", "op_percent": 25}, "params.span"),
    ],
)
def test_bad_params_name_the_field(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("consistency", params, TB2)
    assert exc.value.field == field
