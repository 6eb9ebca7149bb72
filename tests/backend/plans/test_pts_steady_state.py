from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, global_opts, job, size


def test_purge_precondition_rounds_measurement() -> None:
    _p, params, steps = compile_plan("pts-steady-state", {}, TB2)
    assert params["workload"] == "iops-4k-randwrite" and params["round_s"] == 60
    assert [s.kind for s in steps] == ["purge", "fio", "fio-rounds", "fio"]
    pre, rounds, measure = steps[1], steps[2], steps[3]
    p = job(pre)
    # Workload-independent preconditioning: 2x the tested span, 128K sequential.
    assert (p["rw"], p["bs"], p["loops"]) == ("write", "128k", "2")
    assert size(pre) == pre.params["span_bytes"] and pre.params["role"] == "precondition"
    assert pre.estimate_s == pytest.approx(2 * size(pre) / 500e6)
    r = job(rounds)
    assert (r["rw"], r["bs"], r["iodepth"]) == ("randwrite", "4k", "32")
    assert r["time_based"] == "1" and r["runtime"] == "60" and r["refill_buffers"] == "1"
    assert {k: rounds.params[k] for k in ("round_s", "max_rounds", "window", "metric")} == {
        "round_s": 60, "max_rounds": 25, "window": 5, "metric": "write_iops"}  # fmt: skip
    assert (rounds.params["excursion_pct"], rounds.params["slope_pct"]) == (20, 10)
    assert rounds.params["randseed_per_round"] is True
    assert rounds.estimate_s == 25 * 60
    m = job(measure)
    assert measure.params["role"] == "measurement"
    assert (m["rw"], m["bs"], m["runtime"]) == ("randwrite", "4k", "300")  # 5 rounds' worth
    # The measurement's offsets differ from every round's.
    assert int(global_opts(measure)["randseed"]) == int(global_opts(rounds)["randseed"]) + 25


@pytest.mark.parametrize(
    ("workload", "bs", "metric"),
    [("throughput-128k-seqwrite", "128k", "write_mbps"), ("throughput-1m-seqwrite", "1m",
      "write_mbps")],
)  # fmt: skip
def test_throughput_workloads(workload: str, bs: str, metric: str) -> None:
    _p, _params, steps = compile_plan("pts-steady-state", {"workload": workload}, TB2)
    assert job(steps[2])["rw"] == "write" and job(steps[2])["bs"] == bs
    assert "norandommap" not in job(steps[2])
    assert steps[2].params["metric"] == steps[3].params["metric"] == metric


def test_shortened() -> None:
    params = {"span": "64m", "round_s": 1, "max_rounds": 5, "measurement_s": 2}
    _p, _params, steps = compile_plan("pts-steady-state", params, SMALL)
    assert size(steps[1]) == size(steps[2]) == 64 * 1024**2
    assert job(steps[2])["runtime"] == "1" and job(steps[3])["runtime"] == "2"
    assert steps[2].estimate_s == 5


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"max_rounds": 4}, "params.max_rounds"),
        ({"max_rounds": 26}, "params.max_rounds"),
        ({"round_s": 0}, "params.round_s"),
        ({"workload": "iops-8k"}, "params.workload"),
    ],
)
def test_bad_params_name_the_field(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("pts-steady-state", params, TB2)
    assert exc.value.field == field
