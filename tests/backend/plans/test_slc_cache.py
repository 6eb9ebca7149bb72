from __future__ import annotations

import pytest

from backend.core.errors import InvalidParams
from backend.plans.catalog import PLANS, compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job, size

MiB = 1024**2


def test_purge_fill_then_an_idle_and_a_refill_per_gap() -> None:
    _p, params, steps = compile_plan("slc-cache", {}, TB2)
    assert params["recovery_idle_s"] == [10, 15, 20, 25]
    assert [s.name for s in steps] == [
        "purge",
        "slc-fill",
        "slc-idle-10s",
        "slc-refill-after-10s",
        "slc-idle-15s",
        "slc-refill-after-15s",
        "slc-idle-20s",
        "slc-refill-after-20s",
        "slc-idle-25s",
        "slc-refill-after-25s",
    ]
    fill = steps[1]
    span = TB2.capacity_bytes // MiB * MiB
    opts = job(fill)
    assert (opts["rw"], opts["bs"], opts["iodepth"], opts["offset"]) == ("write", "128k", "32", "0")
    assert opts["refill_buffers"] == "1" and size(fill) == span
    assert fill.params["role"] == "slc-fill" and fill.params["status_interval_ms"] == 100
    assert fill.params["span_bytes"] == span
    for idle_s in (10, 15, 20, 25):
        idle = next(s for s in steps if s.name == f"slc-idle-{idle_s}s")
        assert idle.kind == "idle" and idle.params["seconds"] == idle_s
        refill = next(s for s in steps if s.name == f"slc-refill-after-{idle_s}s")
        r = job(refill)
        assert (r["rw"], r["bs"], r["iodepth"], r["offset"]) == ("write", "128k", "32", "0")
        assert size(refill) == refill.params["span_bytes"] == span // 4 // MiB * MiB
        assert refill.params["role"] == "slc-refill" and refill.params["idle_s"] == idle_s
        assert refill.params["status_interval_ms"] == 100
    # The resolution is said up front: 2% of the fill and of a refill.
    assert any("2% of the fill" in n for n in steps[0].params["notes"])
    # Estimated like every size-based job: the fill's bytes at 500 MB/s.
    assert fill.estimate_s == pytest.approx(span / 500e6)


def test_recovery_span_and_idles_are_configurable_and_the_fill_alone_is_a_run() -> None:
    _p, _params, steps = compile_plan(
        "slc-cache",
        {"span": "256m", "recovery_idle_s": [2, 4, 6], "recovery_span": "48m", "purge": False},
        SMALL,
    )
    assert [s.name for s in steps][:2] == ["slc-fill", "slc-idle-2s"]
    assert all(size(s) == 48 * MiB for s in steps if s.params.get("role") == "slc-refill")
    assert any("no purge" in n for n in steps[0].params["notes"])
    _p, _params, steps = compile_plan("slc-cache", {"recovery_idle_s": []}, SMALL)
    assert [s.name for s in steps] == ["purge", "slc-fill"]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"recovery_idle_s": [0]}, "idle gaps are 1 to 3600 s"),
        ({"recovery_idle_s": [10, 10]}, "each idle gap once"),
        ({"recovery_span": "2g"}, "larger than the span"),
        ({"recovery_span": "1500k"}, "whole number of MiB"),
        ({"recovery_span": "lots"}, "is not a size"),
        ({"span": "2g"}, "larger than the drive"),
    ],
)
def test_bad_parameters_are_refused_in_words(params: dict, words: str) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan("slc-cache", params, SMALL)
    assert words in str(err.value)


def test_catalog_names_the_plan() -> None:
    assert PLANS["slc-cache"].destructive
    from backend.results.names import names, step_words

    assert step_words("slc-refill-after-15s") == "cache refill after 15 s idle"
    assert names("slc-cache:slc-fill:slc_cache_gb")["plan"] == "SLC cache and its recovery"


def test_a_fio_job_window_is_read_from_its_final_json() -> None:
    from backend.results.service import _fio_window_s

    final = {"timestamp_ms": 1_000_500, "jobs": [{"job_runtime": 2500}, {"job_runtime": 3000}]}
    assert _fio_window_s(final) == (997.5, 1000.5)
    assert _fio_window_s(None) is None
    assert _fio_window_s({"jobs": []}) is None
