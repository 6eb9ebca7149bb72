from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job, sections, size

MiB = 1024**2
GiB = 1024**3


def test_prefill_then_bursts_each_followed_by_its_idle() -> None:
    _p, params, steps = compile_plan("qd1-bursts", {}, TB2)
    assert (params["random_bursts"], params["seq_bursts"], params["idle_s"]) == (32, 8, 4)
    names = [s.name for s in steps]
    assert names[:3] == ["prefill", "prefill-idle", "rnd4k-q1-read-burst01"]
    # 32 + 32 + 8 + 8 bursts, each followed by an idle of idle_s; the last idle of a test
    # carries its figures under the test's name.
    bursts = [s for s in steps if s.params.get("role") == "burst"]
    assert len(bursts) == 80
    for b in bursts:
        after = steps[steps.index(b) + 1]
        assert after.kind == "idle" and after.params["seconds"] == 4
        assert after.params["test"] == b.params["test"]
    summaries = [s for s in steps if s.params.get("role") == "burst-summary"]
    assert [s.name for s in summaries] == [
        "rnd4k-q1-read",
        "rnd4k-q1-write",
        "seq128k-q1-read",
        "seq128k-q1-write",
    ]
    assert names[names.index("rnd4k-q1-read") - 1] == "rnd4k-q1-read-burst32"
    # The prefill writes the 16 GiB span, incompressible.
    pre = job(steps[0])
    assert (pre["rw"], pre["bs"], pre["offset"]) == ("write", "128k", "0")
    assert size(steps[0]) == 16 * GiB and pre["refill_buffers"] == "1"


def test_each_burst_is_qd1_and_ends_at_its_size_or_its_time() -> None:
    _p, _params, steps = compile_plan("qd1-bursts", {}, TB2)
    by = {s.name: s for s in steps}
    rr = job(by["rnd4k-q1-read-burst01"])
    assert (rr["rw"], rr["bs"], rr["iodepth"], rr["runtime"]) == ("randread", "4k", "1", "1")
    assert rr["size"] == "16g" and rr["io_size"] == "64m" and rr["norandommap"] == "1"
    assert "time_based" not in rr
    rw = job(by["rnd4k-q1-write-burst32"])
    assert rw["rw"] == "randwrite" and rw["refill_buffers"] == "1"
    # Bursts do not repeat each other's random offsets: each its own seed.
    bursts = [s for s in steps if s.params.get("role") == "burst"]
    seeds = {sections(s.job_file or "")["global"]["randseed"] for s in bursts}
    assert len(seeds) == len(bursts) == 80
    # Sequential bursts go one after the other through the span.
    offsets = [int(job(by[f"seq128k-q1-read-burst0{n}"])["offset"]) for n in range(1, 9)]
    assert offsets == [n * 128 * MiB for n in range(8)]
    sw = job(by["seq128k-q1-write-burst01"])
    assert (sw["rw"], sw["bs"], sw["iodepth"], sw["size"]) == ("write", "128k", "1", "128m")
    assert by["seq128k-q1-write-burst01"].estimate_s == 1.0


def test_a_small_drive_is_covered_whole_and_sequential_bursts_wrap() -> None:
    _p, _params, steps = compile_plan(
        "qd1-bursts", {"seq_bursts": 10, "seq_burst_size": "256m"}, SMALL
    )
    assert size(steps[0]) == GiB
    assert any("smaller than 16 GiB" in n for n in steps[0].params["notes"])
    by = {s.name: s for s in steps}
    offsets = [int(job(by[f"seq128k-q1-read-burst{n:02d}"])["offset"]) for n in range(1, 11)]
    assert offsets == [n % 4 * 256 * MiB for n in range(10)]


def test_tests_can_be_chosen_and_the_prefill_left_out() -> None:
    _p, _params, steps = compile_plan(
        "qd1-bursts", {"tests": ["seq128k-q1-write"], "seq_bursts": 2, "prefill": False}, TB2
    )
    assert [s.name for s in steps] == [
        "seq128k-q1-write-burst01",
        "seq128k-q1-write-idle01",
        "seq128k-q1-write-burst02",
        "seq128k-q1-write",
    ]


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"random_burst_size": "1500k"}, "params.random_burst_size", "whole number of MiB"),
        ({"span": "64m", "seq_burst_size": "128m"}, "params.seq_burst_size", "larger than"),
        ({"tests": ["rnd4k-q32-read"]}, "params.tests", "choose from"),
        ({"tests": ["rnd4k-q1-read", "rnd4k-q1-read"]}, "params.tests", "once"),
        ({"idle_s": 0}, "params.idle_s", "greater than or equal"),
    ],
)
def test_bad_params_are_refused_saying_what_to_fix(
    params: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("qd1-bursts", params, TB2)
    assert exc.value.field == field and words in exc.value.message, exc.value.message
