from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import PLANS, compile_plan, validate_params
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

GiB = 1024**3


def test_fill_trim_refill_each_amount_then_trim_all_and_write() -> None:
    _p, params, steps = compile_plan("trim-performance", {}, TB2)
    assert params["amounts"] == ["10g", "20g", "100g"]
    assert [s.name for s in steps] == [
        "fill",
        "trim-10g",
        "refill-10g",
        "trim-20g",
        "refill-20g",
        "trim-100g",
        "refill-100g",
        "trim-all",
        "write-after-trim",
    ]
    by = {s.name: s for s in steps}
    for amount in (10, 20, 100):
        trim, refill = by[f"trim-{amount}g"], by[f"refill-{amount}g"]
        assert trim.kind == "trim" and trim.params["offset"] == 0
        assert trim.params["length"] == amount * GiB == size(refill)
        assert job(refill)["offset"] == "0" and refill.params["role"] == "fill"
    assert by["trim-all"].params["length"] is None  # whole drive: to the end of the target
    follow = by["write-after-trim"]
    opts = job(follow)
    assert follow.params["role"] == "trim-followup-write" and follow.params["log_window_ms"] == 100
    assert opts["time_based"] == "1" and opts["runtime"] == "60" and opts["log_avg_msec"] == "100"
    assert opts["rw"] == "write" and opts["refill_buffers"] == "1"
    assert "notes" not in steps[0].params


def test_amounts_larger_than_the_drive_are_skipped_with_a_note() -> None:
    plan = PLANS["trim-performance"]
    params = {"amounts": ["64m", "10g", "100g", "64m"], "followup_s": 2}
    _p, _params, steps = compile_plan("trim-performance", params, SMALL)
    assert [s.name for s in steps] == [
        "fill", "trim-64m", "refill-64m", "trim-all", "write-after-trim"]  # fmt: skip
    notes = steps[0].params["notes"]
    assert len(notes) == 2 and all("skipped: larger than the 1.0 GiB span" in n for n in notes)
    assert notes[0].startswith("TRIM of 10g")
    assert plan.notes(validate_params(plan, params), SMALL) == notes


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"amounts": ["ten"]}, "params.amounts.0"),
        ({"amounts": ["1000"]}, "params.amounts"),
        ({"followup_s": 0}, "params.followup_s"),
    ],
)
def test_bad_params_name_the_field(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("trim-performance", params, TB2)
    assert exc.value.field == field
