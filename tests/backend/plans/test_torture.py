from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2


def test_fill_the_whole_drive_then_20_min_of_4k_qd32_random_writes() -> None:
    _p, params, steps = compile_plan("torture", {}, TB2)
    assert params["minutes"] == 20
    fill, torture = steps
    assert [s.params["role"] for s in steps] == ["fill", "torture"]
    assert size(fill) == size(torture) == TB2.capacity_bytes // MiB * MiB  # 100% of the LBAs
    f, t = job(fill), job(torture)
    assert (f["rw"], f["bs"], f["iodepth"]) == ("write", "128k", "32")
    assert (t["rw"], t["bs"], t["iodepth"], t["runtime"]) == ("randwrite", "4k", "32", "1200")
    assert t["time_based"] == t["norandommap"] == t["refill_buffers"] == "1"  # incompressible
    assert "buffer_compress_percentage" not in t
    assert torture.estimate_s == 1200 and torture.params["log_window_ms"] == 1000


def test_60_minutes_and_a_runtime_override() -> None:
    _p, _params, steps = compile_plan("torture", {"minutes": 60}, TB2)
    assert job(steps[1])["runtime"] == "3600"
    _p, _params, steps = compile_plan("torture", {"minutes": 60, "runtime_s": 4}, SMALL)
    assert job(steps[1])["runtime"] == "4" and size(steps[1]) == SMALL.capacity_bytes


@pytest.mark.parametrize(
    ("params", "field"),
    [({"minutes": 0}, "params.minutes"), ({"minutes": 121}, "params.minutes"),
     ({"runtime_s": 0}, "params.runtime_s")],
)  # fmt: skip
def test_bad_params_name_the_field(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("torture", params, TB2)
    assert exc.value.field == field
