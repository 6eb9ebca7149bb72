from __future__ import annotations

from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job, size


def test_purge_fill_torture_write_pass_trim_write_pass() -> None:
    _p, params, steps = compile_plan("trim-validation", {}, TB2)
    assert params["torture_minutes"] == 60
    assert [s.kind for s in steps] == ["purge", "fio", "fio", "fio", "trim", "fio"]
    assert [s.params.get("role") for s in steps] == [
        None, "fill", "torture", "hdtach-write", None, "hdtach-write"]  # fmt: skip
    torture, before, trim, after = steps[2], steps[3], steps[4], steps[5]
    assert job(torture)["runtime"] == "3600"
    # Write passes, never read passes: reads of trimmed blocks need not touch NAND.
    assert all(s.params.get("role") != "hdtach-read" for s in steps)
    for s in (before, after):
        assert (job(s)["rw"], job(s)["bs"], job(s)["iodepth"]) == ("write", "128k", "1")
        assert size(s) == s.params["span_bytes"] and s.params["log_window_ms"] == 100
    assert (before.params["condition"], after.params["condition"]) == (
        "after torture",
        "after TRIM",
    )
    assert trim.params["offset"] == 0 and trim.params["length"] is None


def test_shortened_span_trims_exactly_the_span() -> None:
    _p, _params, steps = compile_plan(
        "trim-validation", {"span": "128m", "torture_runtime_s": 2}, SMALL
    )
    assert steps[4].params["length"] == 128 * 1024**2 == size(steps[3])
    assert job(steps[2])["runtime"] == "2"
