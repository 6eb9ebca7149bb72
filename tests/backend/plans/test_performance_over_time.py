from __future__ import annotations

from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, job

PASSES = ["after purge", "after torture", "after idle", "after TRIM"]


def test_passes_new_tortured_idled_and_trimmed_in_order() -> None:
    _p, params, steps = compile_plan("performance-over-time", {}, TB2)
    assert params["torture_minutes"] == 20 and params["idle_s"] == 1800
    assert [s.name for s in steps] == [
        "purge",
        "hdtach-write-after-purge",
        "hdtach-read-after-purge",
        "torture",
        "hdtach-write-after-torture",
        "hdtach-read-after-torture",
        "idle",
        "hdtach-write-after-idle",
        "hdtach-read-after-idle",
        "trim",
        "hdtach-write-after-trim",
        "hdtach-read-after-trim",
    ]
    passes = [s for s in steps if s.params.get("role", "").startswith("hdtach-")]
    assert [s.params["condition"] for s in passes[::2]] == PASSES
    assert all(s.params["condition"] in s.params["label"] for s in passes)
    assert all(job(s)["bs"] == "128k" and job(s)["iodepth"] == "1" for s in passes)
    by = {s.name: s for s in steps}
    assert job(by["torture"])["runtime"] == "1200" and by["torture"].params["role"] == "torture"
    assert by["idle"].params["seconds"] == 1800 and by["idle"].estimate_s == 1800
    # The whole drive: TRIM to the end of the target.
    assert by["trim"].params == {"label": "TRIM the whole span", "offset": 0, "length": None}


def test_shortened_and_retortured() -> None:
    _p, _params, steps = compile_plan(
        "performance-over-time",
        {"span": "128m", "torture_runtime_s": 2, "idle_s": 1, "retorture": True},
        SMALL,
    )
    names = [s.name for s in steps]
    assert names.index("torture-before-idle") == names.index("idle") - 1
    assert names.index("torture-before-trim") == names.index("trim") - 1
    assert names.index("hdtach-read-after-idle") < names.index("torture-before-trim")
    by = {s.name: s for s in steps}
    assert by["trim"].params["length"] == 128 * 1024**2
    assert job(by["torture-before-trim"])["runtime"] == "2"
