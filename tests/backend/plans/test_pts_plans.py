"""The six SNIA PTS plans: the specification's parameters, the profiles, and job files fio takes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from backend.core.errors import InvalidParams
from backend.plans.base import job_files_as_run, retarget_job_file
from backend.plans.catalog import compile_plan
from backend.plans.common import RANDSEED_MAX
from tests.backend.plans.jobfiles import SMALL, TB2, TB2_4KN, by_name, global_opts, sections

PTS = ["pts-iops", "pts-throughput", "pts-latency", "pts-wsat", "pts-hir", "pts-xsr"]
MiB = 1024**2


def elements(step) -> dict[str, dict[str, str]]:
    return {k: v for k, v in sections(step.job_file).items() if k != "global"}


def test_iops_rounds_run_56_elements_in_the_specifications_order() -> None:
    _p, params, steps = compile_plan("pts-iops", {}, TB2)
    assert params["profile"] == "enterprise" and params["element_s"] == 60
    assert [s.kind for s in steps] == ["purge", "write-cache", "fio", "fio-rounds", "write-cache"]
    cache, pre, rounds, restore = steps[1], steps[2], steps[3], steps[4]
    assert cache.params["enabled"] is False and restore.params["restore"] is True
    p = sections(pre.job_file)["precondition"]
    assert (p["rw"], p["bs"], p["loops"], p["size"]) == ("write", "128k", "2", "1907348m")
    jobs = elements(rounds)
    assert len(jobs) == 56
    names = list(jobs)
    # Mixes outer (100/0 first), block sizes inner from 1024 KiB down to 0.5 KiB.
    assert names[:8] == [
        f"r100w0-{b}" for b in ("1m", "128k", "64k", "32k", "16k", "8k", "4k", "512")
    ]
    assert names[-1] == "r0w100-512" and names[8] == "r95w5-1m"
    mixed = jobs["r65w35-4k"]
    assert (mixed["rw"], mixed["rwmixread"], mixed["bs"]) == ("randrw", "65", "4k")
    assert jobs["r100w0-4k"]["rw"] == "randread" and jobs["r0w100-4k"]["rw"] == "randwrite"
    for opts in jobs.values():
        assert opts["stonewall"] == "1" and opts["numjobs"] == "4" and opts["iodepth"] == "32"
        assert opts["runtime"] == "60" and opts["size"] == "1907348m" and opts["offset"] == "0"
    assert rounds.params["track"]["element"] == "r0w100-4k"
    assert rounds.params["track"]["metric"] == "write_iops"
    assert rounds.params["round_s"] == 56 * 60
    assert rounds.estimate_s == 25 * 56 * 60
    assert [e["name"] for e in rounds.params["elements"]] == names


def test_the_client_profile_keeps_the_write_cache_and_tests_75_percent() -> None:
    _p, params, steps = compile_plan("pts-iops", {"profile": "client"}, TB2)
    cache, pre, rounds = steps[1], steps[2], steps[3]
    assert cache.params["enabled"] is True
    span = pre.params["span_bytes"]
    active = span * 75 // 100 // MiB * MiB
    assert rounds.params["span_bytes"] == active and rounds.params["active_range_pct"] == 75
    opts = elements(rounds)["r0w100-4k"]
    assert (opts["numjobs"], opts["iodepth"]) == ("2", "16")
    assert opts["size"] == f"{active // MiB}m"
    # Preconditioning covers the whole tested capacity, not only the ActiveRange.
    assert sections(pre.job_file)["precondition"]["size"] == f"{span // MiB}m"
    custom = compile_plan(
        "pts-iops", {"profile": "client", "active_range_pct": 50, "threads": 8, "iodepth": 4}, TB2
    )[2][3]
    assert custom.params["active_range_pct"] == 50
    assert elements(custom)["r0w100-4k"]["numjobs"] == "8"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"mixes": ["100/0"]}, "params.mixes"),
        ({"block_sizes": ["8k"]}, "params.block_sizes"),
        ({"mixes": ["0/100", "0/100"]}, "params.mixes"),
        ({"mixes": ["70/30"]}, "params.mixes.0"),
        ({"block_sizes": ["3k", "4k"]}, "params.block_sizes.0"),
        ({"threads": 0}, "params.threads"),
        ({"iodepth": 257}, "params.iodepth"),
        ({"element_s": 0}, "params.element_s"),
        ({"max_rounds": 26}, "params.max_rounds"),
        ({"active_range_pct": 0}, "params.active_range_pct"),
        ({"profile": "datacenter"}, "params.profile"),
        ({"sponsor": "lab\nname"}, "params.sponsor"),
    ],
)
def test_iops_parameters_fio_would_not_take_are_refused(params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("pts-iops", params, TB2)
    assert exc.value.field == field, exc.value.message


def test_half_kib_blocks_are_left_out_on_a_4kn_drive_and_said_so() -> None:
    _p, _params, steps = compile_plan("pts-iops", {}, TB2_4KN)
    names = list(elements(steps[3]))
    assert len(names) == 49 and not any(n.endswith("-512") for n in names)
    assert any("0.5 KiB left out" in n for n in steps[0].params["notes"])


def test_throughput_runs_each_block_size_as_a_test_of_its_own() -> None:
    _p, _params, steps = compile_plan("pts-throughput", {}, TB2)
    assert [s.name for s in steps] == [
        "purge-1m", "write-cache", "precondition-1m", "rounds-1m",
        "purge-128k", "precondition-128k", "rounds-128k", "write-cache-restore",
    ]  # fmt: skip
    rounds = by_name(steps)["rounds-1m"]
    jobs = elements(rounds)
    assert list(jobs) == ["seq-read-1m", "seq-write-1m"]
    read, write = jobs["seq-read-1m"], jobs["seq-write-1m"]
    assert (read["rw"], write["rw"], write["bs"]) == ("read", "write", "1m")
    # Four threads, each streaming over its own quarter of the range.
    assert write["numjobs"] == "4" and write["offset_increment"] == write["size"]
    assert rounds.params["track"] == {
        "element": "seq-write-1m",
        "metric": "write_mbps",
        "label": "1024 KiB sequential write MB/s",
        "unit": "MB/s",
    }
    one = compile_plan("pts-throughput", {"block_sizes": ["128k"], "threads": 1}, TB2)[2]
    assert "offset_increment" not in elements(by_name(one)["rounds-128k"])["seq-write-128k"]


def test_latency_is_one_thread_at_qd1_and_tracks_the_write_response_time() -> None:
    _p, params, steps = compile_plan("pts-latency", {"profile": "client"}, TB2)
    assert "threads" not in params and "iodepth" not in params
    rounds = steps[3]
    jobs = elements(rounds)
    assert list(jobs) == [
        f"r{m}-{b}" for m in ("100w0", "65w35", "0w100") for b in ("8k", "4k", "512")
    ]
    assert all(j["numjobs"] == "1" and j["iodepth"] == "1" for j in jobs.values())
    assert rounds.params["track"]["metric"] == "write_lat_mean_us"
    assert rounds.params["track"]["element"] == "r0w100-4k"


def test_wsat_starts_from_purged_and_stops_at_4x_the_capacity() -> None:
    _p, _params, steps = compile_plan("pts-wsat", {}, TB2)
    assert [s.kind for s in steps] == ["purge", "write-cache", "fio-rounds", "write-cache"]
    rounds = steps[2]
    span = rounds.params["capacity_bytes"]
    assert rounds.params["stop_write_bytes"] == 4 * span
    assert rounds.params["max_s"] == 86400 and rounds.params["max_rounds"] == 1440
    assert rounds.params["stop_at_steady"] is True and rounds.params["role"] == "pts-wsat"
    job = elements(rounds)["r0w100-4k"]
    assert (job["rw"], job["bs"], job["runtime"]) == ("randwrite", "4k", "60")
    short = compile_plan("pts-wsat", {"span": "32m", "round_s": 1, "max_s": 20}, SMALL)[2][2]
    assert short.params["max_rounds"] == 20 and short.params["stop_write_bytes"] == 128 * MiB
    # A multiple that rounds to no byte stops after the first round: 0 would mean no limit.
    tiny = compile_plan("pts-wsat", {"span": "32m", "capacity_multiple": 1e-300}, SMALL)[2][2]
    assert tiny.params["stop_write_bytes"] == 1


def test_hir_sets_follow_the_baseline_each_with_its_return_to_baseline() -> None:
    _p, params, steps = compile_plan("pts-hir", {}, TB2)
    assert params["waits_s"] == [5, 10, 15, 25, 50] and params["cycles"] == 360
    names = [s.name for s in steps]
    assert names[:4] == ["purge", "write-cache", "precondition", "rounds"]
    sets = [n for n in names if n.startswith("wait-")]
    assert sets == ["wait-5s", "wait-10s", "wait-15s", "wait-25s", "wait-50s"]
    for wait in (5, 10, 15, 25, 50):
        i = names.index(f"wait-{wait}s")
        cycles, baseline = steps[i], steps[i + 1]
        assert cycles.params["wait_s"] == wait and cycles.params["max_rounds"] == 360
        assert cycles.params["stop_at_steady"] is False
        assert sections(cycles.job_file)["r0w100-4k"]["runtime"] == "5"
        assert cycles.estimate_s == 360 * (5 + wait)
        assert baseline.name == f"baseline-after-{wait}s"
        assert sections(baseline.job_file)[baseline.name]["runtime"] == "1800"
    assert names[-1] == "write-cache-restore"
    with pytest.raises(InvalidParams) as exc:
        compile_plan("pts-hir", {"waits_s": [0]}, TB2)
    assert exc.value.field == "params.waits_s.0"


def test_xsr_is_sequential_random_sequential_at_tc1_qd32_without_preconditioning() -> None:
    _p, _params, steps = compile_plan("pts-xsr", {}, TB2)
    assert [s.name for s in steps] == [
        "purge", "write-cache", "xsr-seq-1", "xsr-rand", "xsr-seq-2", "write-cache-restore"
    ]  # fmt: skip
    want = [("write", "1m", "28800"), ("randwrite", "8k", "21600"), ("write", "1m", "28800")]
    for step, (rw, bs, runtime) in zip(steps[2:5], want, strict=True):
        opts = sections(step.job_file)[step.name]
        assert (opts["rw"], opts["bs"], opts["runtime"]) == (rw, bs, runtime)
        assert (opts["numjobs"], opts["iodepth"]) == ("1", "32")


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_accepts_every_job_file_at_the_parameters_limits(tmp_path: Path) -> None:
    """Every parameter that reaches a job file, at its defaults and at its limits, as fio
    itself parses it."""
    target = tmp_path / "t.img"
    target.write_bytes(b"")
    variants = [
        {},
        {"profile": "client"},
        {"threads": 64, "iodepth": 256, "element_s": 600, "active_range_pct": 1},
        {"threads": 1, "iodepth": 1, "element_s": 1, "randseed": RANDSEED_MAX},
    ]
    files = []
    for key in PTS:
        fields = compile_plan(key, {}, TB2)[0].Params.model_fields
        for variant in variants:
            params = {k: v for k, v in variant.items() if k in fields}
            if key == "pts-wsat" and "element_s" in variant:
                params["round_s"] = variant["element_s"]
            _p, _stored, steps = compile_plan(key, params, TB2)
            for step in steps:
                if not step.job_file:
                    continue
                # The last round's too: each round's seed is one more than the last's.
                for _name, job in job_files_as_run(
                    step.name, step.kind, step.params, step.job_file
                ):
                    path = tmp_path / f"{len(files):04d}.fio"
                    path.write_text(retarget_job_file(job, str(target)))
                    files.append(path.name)
    done = subprocess.run(
        ["fio", "--parse-only", *files], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_sponsor_and_seed_are_recorded() -> None:
    _p, params, steps = compile_plan("pts-wsat", {"sponsor": "Lab 7", "randseed": 9}, TB2)
    assert params["sponsor"] == "Lab 7"
    assert global_opts(steps[2])["randseed"] == "9"
