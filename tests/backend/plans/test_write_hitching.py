from __future__ import annotations

from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job


def test_sustained_sequential_then_random_writes_with_100ms_logs() -> None:
    _p, params, steps = compile_plan("write-hitching", {}, TB2)
    assert params["minutes"] == 5
    seq, rand = steps
    assert (seq.params["role"], rand.params["role"]) == ("hitch-seq", "hitch-rand")
    s, r = job(seq), job(rand)
    assert (s["rw"], s["bs"], s["iodepth"]) == ("write", "128k", "32")
    assert (r["rw"], r["bs"], r["iodepth"]) == ("randwrite", "4k", "32")
    for opts, step in ((s, seq), (r, rand)):
        assert opts["time_based"] == "1" and opts["runtime"] == "300"
        assert opts["log_avg_msec"] == opts["bwavgtime"] == opts["iopsavgtime"] == "100"
        assert opts["write_bw_log"] == opts["write_iops_log"] == step.name
        assert step.params["log_window_ms"] == 100 and step.estimate_s == 300


def test_runtime_override() -> None:
    _p, _params, steps = compile_plan("write-hitching", {"runtime_s": 2, "minutes": 9}, SMALL)
    assert [job(s)["runtime"] for s in steps] == ["2", "2"]
