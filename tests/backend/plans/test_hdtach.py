from __future__ import annotations

from backend.plans.catalog import PLANS, compile_plan, validate_params
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2


def test_full_span_write_then_read_128k_qd1_with_100ms_logs() -> None:
    _p, params, steps = compile_plan("hdtach", {}, TB2)
    assert params["log_window_ms"] == 100
    write, read = steps
    assert [s.params["role"] for s in steps] == ["hdtach-write", "hdtach-read"]
    for s, rw in ((write, "write"), (read, "read")):
        opts = job(s)
        assert (opts["rw"], opts["bs"], opts["iodepth"], opts["offset"]) == (rw, "128k", "1", "0")
        assert "time_based" not in opts  # one pass: position comes from cumulative bytes
        assert s.params["span_bytes"] == size(s) == TB2.capacity_bytes // MiB * MiB
        assert opts["log_avg_msec"] == opts["bwavgtime"] == opts["iopsavgtime"] == "100"
        assert opts["write_bw_log"] == s.name
    assert job(write)["refill_buffers"] == "1" and "refill_buffers" not in job(read)
    # 2 TB at 14 GB/s still gives over 200 windows of 100 ms: no resolution note.
    assert "notes" not in write.params


def test_a_small_span_notes_the_coarser_resolution() -> None:
    plan = PLANS["hdtach"]
    _p, _params, steps = compile_plan("hdtach", {"span": "256m"}, SMALL)
    assert size(steps[0]) == 256 * MiB
    (note,) = steps[0].params["notes"]
    assert "fewer than 200 windows of 100 ms" in note and "0.5%" in note
    assert plan.notes(validate_params(plan, {"span": "256m"}), SMALL) == [note]
