from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import PLANS, compile_plan, validate_params
from tests.backend.plans.jobfiles import SMALL, TB2, TB2_4KN, job, size

SIZES = ["512", "1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m",
         "4m", "8m"]  # fmt: skip


def test_every_size_is_written_then_read_with_methods_options() -> None:
    _p, params, steps = compile_plan("transfer-size", {}, TB2)
    assert params["span"] == "2g" and params["sizes"] == SIZES
    assert [s.name for s in steps] == [f"{rw}-{bs}" for bs in SIZES for rw in ("write", "read")]
    for s in steps:
        opts = job(s)
        rw = s.name.split("-")[0]
        assert opts["rw"] == rw and opts["bs"] == s.name.split("-")[1]
        assert opts["iodepth"] == "4" and opts["size"] == "2g" and opts["offset"] == "0"
        assert "time_based" not in opts and "runtime" not in opts
        assert s.params["role"] == f"transfer-{rw}"
        assert ("refill_buffers" in opts) == (rw == "write")
    assert "notes" not in steps[0].params
    assert PLANS["transfer-size"].notes(validate_params(PLANS["transfer-size"], {}), TB2) == []


def test_sizes_below_a_4096_sector_are_skipped_with_a_note() -> None:
    plan = PLANS["transfer-size"]
    _p, _params, steps = compile_plan("transfer-size", {}, TB2_4KN)
    assert steps[0].name == "write-4k"
    assert [s.name for s in steps][::2] == [f"write-{bs}" for bs in SIZES[3:]]
    notes = [
        "512 B skipped: below the drive's 4096 B logical sector",
        "1 KiB skipped: below the drive's 4096 B logical sector",
        "2 KiB skipped: below the drive's 4096 B logical sector",
    ]
    assert steps[0].params["notes"] == notes
    assert all("notes" not in s.params for s in steps[1:])
    assert plan.notes(validate_params(plan, {}), TB2_4KN) == notes


def test_chosen_sizes_shortened_span_and_runtime_cap() -> None:
    _p, _params, steps = compile_plan(
        "transfer-size",
        {"sizes": ["8m", "4k"], "span": "20m", "runtime_s": 3, "pattern": "compressible"},
        SMALL,
    )
    assert [s.name for s in steps] == ["write-4k", "read-4k", "write-8m", "read-8m"]
    # The size is a whole number of blocks: 20 MiB holds two 8 MiB transfers.
    assert size(steps[0]) == 20 * 1024**2 and size(steps[2]) == 16 * 1024**2
    w = job(steps[0])
    assert w["runtime"] == "3" and "time_based" not in w
    assert w["buffer_compress_percentage"] == "50"
    assert steps[0].estimate_s <= 3


@pytest.mark.parametrize(
    ("params", "drive", "field"),
    [
        ({"sizes": ["512", "2k"]}, TB2_4KN, "params.sizes"),
        ({"sizes": ["3k"]}, TB2, "params.sizes.0"),
        ({"sizes": []}, TB2, "params.sizes"),
        ({"span": "4m"}, SMALL, "params.span"),
        ({"span": "2g"}, SMALL, "span"),
        ({"runtime_s": 0}, TB2, "params.runtime_s"),
    ],
)
def test_bad_params_name_the_field(params: dict, drive, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("transfer-size", params, drive)
    assert exc.value.field == field
