from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from backend.results.compare import metric_id
from backend.results.names import names
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2
TESTS = ["randread-4k-qd3", "randwrite-4k-qd3", "seqread-128k-qd1", "seqwrite-128k-qd1"]


def test_purge_prewrite_empty_tests_fill_then_the_same_tests_full() -> None:
    _p, params, steps = compile_plan("full-drive", {}, TB2)
    assert (params["empty_percent"], params["fill_percent"], params["random_qd"]) == (10, 80, 3)
    assert (params["runtime_s"], params["seq_runtime_s"]) == (180, 60)
    assert [s.name for s in steps] == [
        "purge",
        "empty-prewrite",
        *(f"empty-{t}" for t in TESTS),
        "fill",
        *(f"full80-{t}" for t in TESTS),
    ]
    by = {s.name: s for s in steps}
    whole = TB2.capacity_bytes // MiB * MiB
    empty, fill = whole * 10 // 100 // MiB * MiB, whole * 80 // 100 // MiB * MiB
    pre = job(by["empty-prewrite"])
    assert (pre["rw"], pre["bs"], pre["iodepth"], pre["offset"]) == ("write", "128k", "32", "0")
    assert size(by["empty-prewrite"]) == empty and pre["refill_buffers"] == "1"
    f = job(by["fill"])
    assert (f["rw"], f["bs"], f["iodepth"], f["offset"]) == ("write", "128k", "32", "0")
    assert size(by["fill"]) == fill and f["refill_buffers"] == "1"
    assert by["fill"].params["role"] == "fill"
    for state, span in (("empty", empty), ("full80", fill)):
        for t in TESTS:
            s = by[f"{state}-{t}"]
            o = job(s)
            assert size(s) == span and o["offset"] == "0" and o["time_based"] == "1"
            assert o["runtime"] == ("180" if t.startswith("rand") else "60")
            assert o["bs"] == ("4k" if "4k" in t else "128k")
            assert o["iodepth"] == ("3" if "4k" in t else "1")
            if "write" in t:
                assert o["refill_buffers"] == "1"
            assert s.params["role"] == (
                "full-drive-empty" if state == "empty" else "full-drive-full"
            )
        assert by[f"full80-{TESTS[1]}"].params["pair"] == f"empty-{TESTS[1]}"
    # The estimate: the time-based tests' runtimes and the sized writes at 500 MB/s.
    tests = sum(s.estimate_s for s in steps if s.name.startswith(("empty-r", "empty-s", "full80")))
    assert tests == 2 * (2 * 180 + 2 * 60)
    assert by["fill"].estimate_s == pytest.approx(fill / 500e6)


def test_the_states_are_other_metrics_than_each_other_and_than_four_corners() -> None:
    _p, _params, four = compile_plan("four-corners", {"patterns": ["incompressible"]}, TB2)
    _p, _params, full = compile_plan("full-drive", {}, TB2)
    plain = {metric_id("four-corners", s.name, "write_mbps") for s in four}
    ids = {metric_id("full-drive", s.name, "write_mbps") for s in full}
    assert not plain & ids
    empty = {i for i in ids if ":empty-" in i}
    full80 = {i for i in ids if ":full80-" in i}
    assert (len(empty), len(full80)) == (5, 4) and not empty & full80  # empty: its pre-write
    assert names("full-drive:full80-randwrite-4k-qd3:write_mbps")["title"] == (
        "4K random write QD3, 80% full: MB/s"
    )
    assert names("full-drive:empty-seqread-128k-qd1:read_mbps")["test"] == (
        "128K sequential read QD1, empty"
    )
    # Another filled share is another metric again.
    _p, _params, other = compile_plan("full-drive", {"fill_percent": 70}, TB2)
    assert "full70-seqwrite-128k-qd1" in {s.name for s in other}


def test_a_fixed_empty_span_and_bad_shares_are_refused_in_words() -> None:
    _p, _params, steps = compile_plan("full-drive", {"empty_span": "64m"}, SMALL)
    assert size(next(s for s in steps if s.name == "empty-randread-4k-qd3")) == 64 * MiB
    with pytest.raises(InvalidParams, match="must be smaller than the filled 30%") as exc:
        compile_plan("full-drive", {"empty_percent": 40, "fill_percent": 30}, SMALL)
    assert exc.value.field == "params.empty_percent"
    with pytest.raises(InvalidParams, match="must be smaller than the filled 80%") as exc:
        compile_plan("full-drive", {"empty_span": "900m"}, SMALL)
    assert exc.value.field == "params.empty_span"
    with pytest.raises(InvalidParams, match="fill_percent"):
        compile_plan("full-drive", {"fill_percent": 120}, SMALL)
