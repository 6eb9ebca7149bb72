"""Properties every plan's compiled steps must have, checked on every plan."""

from __future__ import annotations

import json
from typing import Any

import pytest

from backend.core.errors import InvalidParams
from backend.plans import fio_check
from backend.plans.base import DriveContext, StepSpec, job_files_as_run, parse_size
from backend.plans.catalog import PLANS, compile_plan
from backend.plans.common import FIO_RANDSEED_MAX
from tests.backend.plans.jobfiles import SMALL, TB2, TB2_4KN, sections

KEYS = [
    "four-corners",
    "transfer-size",
    "consistency",
    "torture",
    "hdtach",
    "performance-over-time",
    "trim-validation",
    "trim-performance",
    "write-hitching",
    "trace-replay",
    "pts-steady-state",
    "pts-iops",
    "pts-throughput",
    "pts-latency",
    "pts-wsat",
    "pts-hir",
    "pts-xsr",
    "pts-dirth",
    "pts-ecw",
    "pts-cbw",
    "qd-sweep",
    "cdm-style",
    "as-ssd-style",
    "thermal",
    "slc-cache",
    "qd1-bursts",
    "mixed",
    "file-copy",
    "full-drive",
]
# The least each plan needs: trace-replay has no default workload (a trace or a profile).
MINIMAL: dict[str, dict[str, Any]] = {"trace-replay": {"profile": "heavy"}}
# Shortened params: every plan runs in seconds on a 1 GiB sparse file.
SHORT: dict[str, dict[str, Any]] = {
    "four-corners": {"span": "64m", "runtime_s": 2, "seq_runtime_s": 2},
    "cdm-style": {"span": "32m", "passes": 2, "measure_s": 1, "interval_s": 1},
    "as-ssd-style": {"span": "32m", "measure_s": 1, "access_s": 1},
    "thermal": {"span": "64m", "heat_s": 5, "cool_s": 1, "cycles": 2},
    "transfer-size": {"span": "16m", "runtime_s": 2},
    "consistency": {"span": "256m", "runtime_s": 3},
    "torture": {"span": "256m", "runtime_s": 3},
    "hdtach": {"span": "256m", "log_window_ms": 5},
    "slc-cache": {"span": "256m", "recovery_idle_s": [1, 2], "recovery_span": "64m"},
    "qd1-bursts": {
        "span": "64m",
        "random_bursts": 2,
        "random_burst_size": "4m",
        "seq_bursts": 1,
        "seq_burst_size": "8m",
        "idle_s": 1,
    },
    "mixed": {"span": "64m", "write_shares": [0, 50, 100], "step_runtime_s": 1, "idle_s": 1},
    "file-copy": {"file_size": "8m", "copy_size": "64m", "delete_size": "32m"},
    "full-drive": {"runtime_s": 2, "seq_runtime_s": 2},
    "performance-over-time": {"span": "128m", "torture_runtime_s": 2, "idle_s": 1},
    "trim-validation": {"span": "128m", "torture_runtime_s": 2},
    "trim-performance": {"span": "256m", "amounts": ["16m", "64m"], "followup_s": 2},
    "write-hitching": {"span": "256m", "runtime_s": 2},
    "trace-replay": {"profile": "light", "span": "128m", "runtime_s": 2},
    "pts-steady-state": {"span": "64m", "round_s": 1, "max_rounds": 5, "measurement_s": 2},
    "pts-iops": {
        "span": "64m",
        "block_sizes": ["4k", "64k"],
        "mixes": ["100/0", "0/100"],
        "element_s": 1,
        "max_rounds": 5,
        "precondition_loops": 1,
    },
    "pts-throughput": {"span": "64m", "block_sizes": ["1m"], "element_s": 1, "max_rounds": 5},
    "pts-latency": {
        "span": "64m",
        "block_sizes": ["4k"],
        "mixes": ["100/0", "0/100"],
        "element_s": 1,
        "max_rounds": 5,
    },
    "pts-wsat": {"span": "32m", "round_s": 1, "max_s": 20},
    "pts-dirth": {
        "span": "64m",
        "thread_counts": [2, 1],
        "queue_depths": [4, 1],
        "element_s": 1,
        "max_rounds": 5,
        "pc_max_rounds": 5,
        "prewrite_s": 1,
        "point_s": 1,
    },
    "pts-ecw": {
        "span": "64m",
        "thread_counts": [1],
        "queue_depths": [4, 1],
        "element_s": 1,
        "max_rounds": 5,
        "pc_max_rounds": 5,
        "prewrite_s": 0,
        "point_s": 1,
    },
    "pts-cbw": {"span": "64m", "element_s": 1, "max_rounds": 5, "precondition_loops": 1},
    "pts-hir": {
        "span": "64m",
        "element_s": 1,
        "max_rounds": 5,
        "waits_s": [1, 2],
        "cycles": 2,
        "write_s": 1,
        "baseline_s": 2,
    },
    "pts-xsr": {"span": "64m", "seq1_s": 5, "rand_s": 5, "seq2_s": 5},
    "qd-sweep": {
        "span": "64m",
        "runtime_s": 1,
        "queue_depths": [1, 4],
        "precondition_loops": 1,
        "precondition_random_s": 1,
    },
}
KINDS = {"fio", "fio-rounds", "fio-points", "purge", "trim", "idle", "write-cache", "file-copy"}
LOG_OPTS = ("log_avg_msec", "bwavgtime", "iopsavgtime")


def check_steps(steps: list[StepSpec], drive: DriveContext, ioengine: str = "libaio") -> None:
    assert steps
    names = [s.name for s in steps]
    assert len(names) == len(set(names)), f"step names repeat: {names}"
    for s in steps:
        assert s.kind in KINDS, s.kind
        assert s.params["label"], s.name
        assert s.estimate_s > 0, s.name
        json.dumps(s.params)  # stored as JSON
        if s.kind in ("fio", "fio-rounds", "fio-points"):
            g = sections(s.job_file or "")["global"]
            assert g["filename"] == drive.target_path
            assert g["direct"] == "1" and g["ioengine"] == ioengine and g["numjobs"] == "1"
            assert g["randseed"].isdigit() and g["allow_mounted_write"] == "0"
            jobs = [v for k, v in sections(s.job_file or "").items() if k != "global"]
            opts = jobs[0]
            window = s.params.get("log_window_ms")
            if window is not None:
                assert opts["write_bw_log"] == opts["write_iops_log"] == s.name
                assert all(opts[o] == str(window) for o in LOG_OPTS), opts
            else:
                assert not {"write_bw_log", "write_iops_log", "log_avg_msec"} & set(opts)
            if "size" in opts:
                end = int(opts.get("offset", "0")) + parse_size(opts["size"])
                assert end <= drive.capacity_bytes, s.name
            if opts.get("time_based") == "1" and s.kind == "fio":
                assert s.estimate_s == float(opts["runtime"]), s.name
            for each in jobs:
                if "write" in each.get("rw", "") or each.get("rw") == "randrw":
                    assert each["refill_buffers"] == "1", f"{s.name}: writes without a pattern"
                if "size" in each:
                    threads = int(each.get("numjobs", "1"))
                    step = parse_size(each.get("offset_increment", "0"))
                    end = (
                        int(each.get("offset", "0"))
                        + step * (threads - 1)
                        + parse_size(each["size"])
                    )
                    assert end <= drive.capacity_bytes, s.name
        elif s.kind == "file-copy":
            # Files on the filesystem the worker makes: never the device's name.
            for _name, text in job_files_as_run(s.name, s.kind, s.params, s.job_file or ""):
                g = sections(text)["global"]
                assert "filename" not in g and g["directory"] == "/dev/drivelab-fs"
                assert g["direct"] == "1" and g["ioengine"] == ioengine
                assert g["randseed"].isdigit()
                for each in sections(text).values():
                    if "write" in each.get("rw", ""):
                        assert each["refill_buffers"] == "1", f"{s.name}: writes without a pattern"
        else:
            assert s.job_file is None
        if s.kind == "trim":
            assert s.params["offset"] >= 0
            length = s.params["length"]
            assert length is None or 0 < s.params["offset"] + length <= drive.capacity_bytes
        if s.kind == "idle":
            assert s.params["seconds"] == s.estimate_s > 0
        if s.kind == "fio-rounds":
            p = s.params
            assert p["metric"] in (
                "write_iops", "read_iops", "write_mbps", "read_mbps", "write_lat_mean_us",
                "iops",  # both directions: a DIRTH/ECW point and the composite workload
            )  # fmt: skip
            assert (p["window"], p["excursion_pct"], p["slope_pct"]) == (5, 20, 10)
            assert p["max_rounds"] >= p["window"] or p.get("stop_at_steady") is False
            assert all(j["time_based"] == "1" for j in jobs)
            assert sum(int(j["runtime"]) for j in jobs) == p["round_s"]
            if len(jobs) > 1:
                assert all(j["stonewall"] == "1" for j in jobs), s.name


def test_catalog_lists_every_plan_four_corners_first() -> None:
    assert list(PLANS) == KEYS
    assert all(p.destructive for p in PLANS.values())


@pytest.mark.parametrize("key", KEYS)
def test_schema_serialises_and_describes_every_field(key: str) -> None:
    schema = PLANS[key].params_schema()
    json.dumps(schema)
    assert schema["additionalProperties"] is False
    for name, prop in schema["properties"].items():
        assert prop.get("description"), f"{key}: parameter {name} has no description"


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("drive", [TB2, TB2_4KN], ids=["512e", "4Kn"])
def test_defaults_compile_on_a_2tb_drive(key: str, drive: DriveContext) -> None:
    plan, params, steps = compile_plan(key, MINIMAL.get(key, {}), drive)
    check_steps(steps, drive)
    assert plan.Params.model_validate(params)  # the stored params validate again
    assert isinstance(plan.notes(plan.Params.model_validate(params), drive), list)


@pytest.mark.parametrize("key", KEYS)
def test_shortened_params_run_in_seconds_on_1gib(key: str) -> None:
    _plan, _params, steps = compile_plan(key, {**SHORT[key], "ioengine": "io_uring"}, SMALL)
    check_steps(steps, SMALL, ioengine="io_uring")
    assert sum(s.estimate_s for s in steps) < 120, [(s.name, s.estimate_s) for s in steps]


@pytest.mark.parametrize("key", KEYS)
def test_unknown_params_and_too_large_span_are_refused(key: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan(key, {**MINIMAL.get(key, {}), "typo": 1}, TB2)
    assert exc.value.field == "params.typo"
    if "span" in PLANS[key].Params.model_fields:
        with pytest.raises(InvalidParams) as exc:
            compile_plan(key, {**MINIMAL.get(key, {}), "span": "4t"}, TB2)
        assert exc.value.field == "span" and "larger than the drive" in exc.value.message


@pytest.mark.parametrize("key", [k for k in KEYS if k != "four-corners"])
def test_randseed_and_ioengine_are_recorded(key: str) -> None:
    params = {**SHORT[key], "randseed": 7, "ioengine": "io_uring"}
    _p, stored, steps = compile_plan(key, params, SMALL)
    assert stored["randseed"] == 7
    fio = [s for s in steps if s.job_file]
    assert fio and all(sections(s.job_file or "")["global"]["ioengine"] == "io_uring" for s in fio)
    assert sections(fio[0].job_file or "")["global"]["randseed"] == "7"


@pytest.mark.parametrize("key", KEYS)
def test_the_largest_randseed_accepted_is_one_fio_takes_in_every_round(key: str) -> None:
    """Steady-state loops add their round's index to the seed: at the schema's maximum, the
    job files fio is given, the last round's included, all parse (real fio). A seed past
    fio's 2^63 - 1 had been queued, and refused by fio at round 2, after the purge."""
    highest = PLANS[key].params_schema()["properties"]["randseed"]["maximum"]
    for params in (SHORT[key], {**SHORT[key], "max_s": 604800}):
        if key != "pts-wsat" and "max_s" in params:
            continue
        _p, _stored, steps = compile_plan(key, {**params, "randseed": highest}, SMALL)
        files = [
            pair
            for s in steps
            if s.job_file
            for pair in job_files_as_run(s.name, s.kind, s.params, s.job_file)
        ]
        rounds = [s for s in steps if s.kind == "fio-rounds" and s.params.get("randseed_per_round")]
        # A file copy's step runs three job files: the sources and two copies.
        copies = [s for s in steps if s.kind == "file-copy"]
        assert len(files) == len([s for s in steps if s.job_file]) + len(rounds) + 2 * len(copies)
        assert fio_check.rejected(files) is None
    with pytest.raises(InvalidParams) as exc:
        compile_plan(key, {**SHORT[key], "randseed": highest + 1}, SMALL)
    assert "randseed" in exc.value.message


def test_fio_refuses_a_seed_past_2_63() -> None:
    """The limit the schema leaves room under (fio 3.33)."""
    job = "[global]\nfilename=/dev/null\nsize=1m\nrandseed={}\n[r]\nrw=randread\n"
    assert fio_check.rejected([("a", job.format(FIO_RANDSEED_MAX))]) is None
    found = fio_check.rejected([("a", job.format(FIO_RANDSEED_MAX + 1))])
    assert found is not None and "randseed" in found.message


@pytest.mark.parametrize("span", ["1x", "8 g", "-1g"], ids=["1x", "space", "negative"])
def test_a_size_that_is_not_one_is_said_in_words(span: str) -> None:
    """As the Queue form says it: no regular expression in the message (CLI, api)."""
    from backend.plans.catalog import get_plan, validate_params

    with pytest.raises(InvalidParams) as exc:
        validate_params(get_plan("four-corners"), {"span": span})
    assert exc.value.field == "params.span"
    words = f"span: {span!r} is not a size: use a whole number with k, m, g or t"
    assert words in exc.value.message
    assert "^" not in exc.value.message and "pattern" not in exc.value.message
