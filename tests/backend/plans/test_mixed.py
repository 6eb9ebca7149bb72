from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import compile_plan
from backend.plans.mixed import WRITE_SHARES
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2
GiB = 1024**3


def test_prewrite_then_each_share_of_each_part_with_idle_after_it() -> None:
    _p, params, steps = compile_plan("mixed", {}, TB2)
    assert params["write_shares"] == list(range(0, 101, 10)) == list(WRITE_SHARES)
    assert params["parts"] == ["random", "sequential"]
    pre = steps[0]
    assert pre.name == "mixed-prewrite" and pre.params["role"] == "mixed-prewrite"
    opts = job(pre)
    assert (opts["rw"], opts["bs"], opts["iodepth"], opts["refill_buffers"]) == (
        "write", "128k", "32", "1"
    )  # fmt: skip
    assert size(pre) == 64 * GiB
    fio = [s for s in steps if s.params.get("role") == "mixed-step"]
    assert [s.name for s in fio[:3]] == [
        "mixed-random-4k-qd4-w0",
        "mixed-random-4k-qd4-w10",
        "mixed-random-4k-qd4-w20",
    ]
    assert len(fio) == 22
    for step in fio:
        o = job(step)
        pct = step.params["write_pct"]
        random = step.params["part"] == "random"
        assert (o["bs"], o["iodepth"]) == (("4k", "4") if random else ("128k", "1"))
        assert size(step) == 64 * GiB and o["offset"] == "0"
        # Whichever limit first: 60 s or 32 GiB, not time-based (that would ignore io_size).
        assert o["runtime"] == "60" and o["io_size"] == "32g" and "time_based" not in o
        prefix = "rand" if random else ""
        if pct == 0:
            assert o["rw"] == f"{prefix}read" and "rwmixwrite" not in o
            assert "refill_buffers" not in o
        elif pct == 100:
            assert o["rw"] == f"{prefix}write" and "rwmixwrite" not in o
        else:
            assert o["rw"] == f"{prefix}rw" and o["rwmixwrite"] == str(pct)
        if pct:
            assert o["refill_buffers"] == "1"  # incompressible
        assert step.estimate_s == 60.0
    # An idle step after every share, as long as the time limit: the last of a part carries
    # the part's figures.
    idles = [s for s in steps if s.kind == "idle"]
    assert len(idles) == 22 and all(s.params["seconds"] == 60 for s in idles)
    summaries = [s for s in steps if s.params.get("role") == "mixed-summary"]
    assert [(s.name, s.params["part"]) for s in summaries] == [
        ("mixed-random-4k-qd4", "random"),
        ("mixed-sequential-128k-qd1", "sequential"),
    ]
    assert steps[steps.index(summaries[0]) - 1].name == "mixed-random-4k-qd4-w100"
    assert any("50% duty cycle" in n for n in steps[0].params["notes"])


def test_span_is_capped_to_the_drive_and_the_limits_are_params() -> None:
    _p, _params, steps = compile_plan(
        "mixed",
        {
            "parts": ["sequential"],
            "write_shares": [100, 0, 50],
            "step_runtime_s": 3,
            "step_io_size": "8m",
            "idle_s": 2,
        },
        SMALL,
    )
    assert any("smaller than 64 GiB" in n for n in steps[0].params["notes"])
    fio = [s for s in steps if s.params.get("role") == "mixed-step"]
    assert [s.params["write_pct"] for s in fio] == [0, 50, 100]  # in increasing order
    assert all(size(s) == 1024 * MiB and job(s)["io_size"] == "8m" for s in fio)
    assert all(s.params["seconds"] == 2 for s in steps if s.kind == "idle")
    # 8 MiB at the assumed 500 MB/s is shorter than the 3 s limit.
    assert fio[0].estimate_s == pytest.approx(1.0)
    _p, _params, steps = compile_plan("mixed", {"prewrite": False, "parts": ["random"]}, SMALL)
    assert steps[0].name == "mixed-random-4k-qd4-w0"
    assert any("no pre-write" in n for n in steps[0].params["notes"])


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"write_shares": [0, 110]}, "write_shares", "0 to 100"),
        ({"write_shares": [10, 10]}, "write_shares", "once"),
        ({"write_shares": []}, "write_shares", "at least 1"),
        ({"parts": ["random", "random"]}, "parts", "once"),
        ({"span": "64x"}, "span", "not a size"),
        ({"span": "4t"}, "span", "larger than the drive"),
        ({"step_io_size": "512k"}, "step_io_size", "below 1 MiB"),
        ({"step_runtime_s": 0}, "step_runtime_s", "greater than or equal to 1"),
    ],
)
def test_bad_params_say_what_to_fix(params: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan("mixed", params, TB2)
    assert field in str(err.value) and words in str(err.value)


def test_steps_and_figures_are_named_in_words() -> None:
    from backend.results.names import is_performance, lower_is_better, names, step_words

    assert step_words("mixed-random-4k-qd4-w30") == "4K random mixed QD4, 70/30 read/write"
    assert step_words("mixed-sequential-128k-qd1-w100") == (
        "128K sequential mixed QD1, 0/100 read/write"
    )
    assert step_words("mixed-sequential-128k-qd1") == "128K sequential mixed QD1, all write shares"
    assert step_words("mixed-random-4k-qd4-w30-idle") == (
        "4K random mixed QD4, 70/30 read/write, idle after it"
    )
    # A mixed step keeps the direction of its read and write parts.
    got = names("mixed:mixed-random-4k-qd4-w30:write_mbps")
    assert (got["plan"], got["measure"]) == ("Mixed random and sequential", "write MB/s")
    avg = names("mixed:mixed-random-4k-qd4:mixed_avg_mbps")
    assert avg["title"] == (
        "4K random mixed QD4, all write shares: average MB/s over the write shares"
    )
    assert not lower_is_better("mixed:mixed-random-4k-qd4:mixed_avg_mbps", "MB/s")
    # Where the curve has its minimum is its shape, not a speed.
    assert not is_performance("mixed:mixed-random-4k-qd4:mixed_min_write_pct")
    assert is_performance("mixed:mixed-random-4k-qd4:mixed_min_mbps")
