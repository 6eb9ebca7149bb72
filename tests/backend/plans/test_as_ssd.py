from __future__ import annotations

from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, TB2_4KN, job, size

GiB = 1024**3
ORDER = ["asssd-seq", "asssd-4k", "asssd-4k-64thrd", "asssd-acc"]


def test_the_test_file_first_then_the_window_row_by_row_read_then_write_then_the_score() -> None:
    _p, params, steps = compile_plan("as-ssd-style", {}, TB2)
    assert (params["span"], params["measure_s"], params["access_s"]) == ("1g", 10, 5)
    assert [s.name for s in steps] == [
        "prepare",
        *(f"{t}-{d}" for t in ORDER for d in ("read", "write")),
        "asssd-score",
    ]
    prep = job(steps[0])
    assert (prep["rw"], prep["bs"], prep["iodepth"], prep["offset"]) == ("write", "16m", "1", "0")
    assert prep["refill_buffers"] == "1" and size(steps[0]) == GiB
    score = steps[-1]
    assert score.kind == "idle" and score.params["role"] == "asssd-score"


def test_each_test_is_as_as_ssd_runs_it() -> None:
    _p, _params, steps = compile_plan("as-ssd-style", {}, TB2)
    by = {s.name: job(s) for s in steps if s.job_file}
    for d in ("read", "write"):
        seq = by[f"asssd-seq-{d}"]
        # The whole test file in 16 MiB blocks, one at a time: size-based, not time-based.
        assert (seq["rw"], seq["bs"], seq["iodepth"], seq["size"]) == (d, "16m", "1", "1g")
        assert "time_based" not in seq
        k4 = by[f"asssd-4k-{d}"]
        assert (k4["rw"], k4["bs"], k4["iodepth"], k4["runtime"]) == (f"rand{d}", "4k", "1", "10")
        assert "numjobs" not in k4 and k4["norandommap"] == "1" and k4["randrepeat"] == "0"
        t64 = by[f"asssd-4k-64thrd-{d}"]
        assert (t64["rw"], t64["bs"], t64["iodepth"], t64["numjobs"]) == (
            f"rand{d}",
            "4k",
            "1",
            "64",
        )
        assert t64["group_reporting"] == "1"
        acc = by[f"asssd-acc-{d}"]
        assert (acc["rw"], acc["bs"], acc["iodepth"], acc["runtime"]) == (
            f"rand{d}",
            "512",
            "1",
            "5",
        )
        if d == "write":
            for opts in (seq, k4, t64, acc):
                assert opts["refill_buffers"] == "1"
    # Read access time over the whole drive (full stroke), write access time over the file.
    assert int(by["asssd-acc-read"]["size"]) == TB2.capacity_bytes // 512 * 512
    assert by["asssd-acc-write"]["size"] == "1g"


def test_a_4kn_drive_gets_one_logical_sector_for_the_access_time_and_says_so() -> None:
    _p, _params, steps = compile_plan("as-ssd-style", {}, TB2_4KN)
    acc = next(s for s in steps if s.name == "asssd-acc-read")
    assert job(acc)["bs"] == "4096"
    assert "logical sector" in acc.params["notes"][0]


def test_a_short_run_is_seconds_long() -> None:
    _p, _params, steps = compile_plan(
        "as-ssd-style", {"span": "32m", "measure_s": 1, "access_s": 1}, SMALL
    )
    assert sum(s.estimate_s for s in steps) < 15


def test_the_tests_and_scores_are_named_as_as_ssd_names_them() -> None:
    from backend.results.names import names, step_words

    assert step_words("asssd-4k-64thrd-read") == "AS-SSD 4K-64Thrd read"
    assert step_words("asssd-acc-write") == "AS-SSD Acc.time write"
    got = names("as-ssd-style:asssd-score:asssd_score_total")
    assert (got["plan"], got["test"], got["measure"]) == (
        "AS-SSD-style",
        "AS-SSD score",
        "AS-SSD total score",
    )


def test_a_group_reported_job_window_is_one_threads_runtime() -> None:
    """fio sums a group-reported job's job_runtime over its threads: the step's window (heat
    attribution, stalls) is the runtime of one."""
    from backend.results.service import _fio_window_s

    job = {"job_runtime": 64 * 2000, "job options": {"numjobs": "64", "group_reporting": "1"}}
    assert _fio_window_s({"timestamp_ms": 1_000_500, "jobs": [job]}) == (998.5, 1000.5)
