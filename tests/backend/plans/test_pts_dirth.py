"""DIRTH, ECW and CBW (backend/plans/pts_dirth.py): the sweep, the composite workload, the
parameters fio would not take, and job files fio itself accepts."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from backend.core.errors import InvalidParams
from backend.plans.base import job_files_as_run, retarget_job_file, with_point
from backend.plans.catalog import compile_plan
from backend.plans.pts_dirth import COMPOSITE_BSSPLIT, POINTS_ROLE, parse_bssplit, parse_zones
from tests.backend.plans.jobfiles import TB2, TB2_4KN, sections


def elements(step) -> dict[str, dict[str, str]]:
    return {k: v for k, v in sections(step.job_file).items() if k != "global"}


def test_dirth_sweeps_49_tc_qd_points_from_the_largest_toc_after_a_prewrite() -> None:
    _p, params, steps = compile_plan("pts-dirth", {}, TB2)
    assert (params["block_size"], params["read_pct"], params["art_ceiling_ms"]) == ("8k", 65, 5.0)
    assert [s.kind for s in steps] == [
        "purge",
        "write-cache",
        "fio-rounds",
        "fio-rounds",
        "fio-points",
        "write-cache",
    ]
    pc, sweep = steps[2], steps[3]
    pre = elements(pc)["prewrite"]
    assert (pre["rw"], pre["bs"], pre["numjobs"], pre["iodepth"]) == ("randwrite", "8k", "32", "32")
    assert pc.params["track"] == {
        "element": "prewrite",
        "metric": "write_iops",
        "label": "preconditioning write IOPS",
        "unit": "IOPS",
    }
    jobs = elements(sweep)
    names = list(jobs)
    assert len(names) == 1 + 49 and names[0] == "prewrite"
    assert jobs["prewrite"]["runtime"] == "300" and jobs["prewrite"]["rw"] == "randwrite"
    assert names[1:4] == ["tc32-qd32", "tc32-qd16", "tc32-qd8"] and names[-1] == "tc1-qd1"
    p = jobs["tc6-qd4"]
    assert (p["rw"], p["rwmixread"], p["bs"], p["numjobs"], p["iodepth"]) == (
        "randrw",
        "65",
        "8k",
        "6",
        "4",
    )
    assert all(
        o["stonewall"] == "1" and o["runtime"] == "60" for n, o in jobs.items() if n != "prewrite"
    )
    assert sweep.params["track"]["element"] == "tc32-qd32" and sweep.params["metric"] == "iops"
    assert sweep.params["di"] is True and sweep.params["art_ceiling_us"] == 5000.0
    tocs = [e.get("toc") for e in sweep.params["elements"]]
    assert tocs[0] is None and tocs[1] == 1024 and tocs[-1] == 1
    assert sweep.params["round_s"] == 49 * 60 + 300
    assert sweep.estimate_s == 25 * (49 * 60 + 300)
    assert sweep.params["point_s"] == 600


def test_dirth_runs_the_three_iops_points_for_10_minutes_each_after_the_sweep() -> None:
    """The PTS's histograms come from a dedicated run at each point after the sweep: the step
    names the sweep whose points it runs, and its one job section is the stimulus at the
    sweep's largest TC x QD, which the worker sets to each point's and nothing else."""
    steps = compile_plan("pts-dirth", {"thread_counts": [4, 1], "queue_depths": [8, 2]}, TB2)[2]
    sweep, points = steps[3], steps[4]
    assert (points.kind, points.name, steps[5].name) == (
        "fio-points",
        "point-runs",
        "write-cache-restore",
    )
    assert points.params["role"] == POINTS_ROLE and points.params["sweep"] == sweep.name
    assert points.params["point_s"] == 600 and points.estimate_s == 3 * 600
    assert points.params["stimulus"] == sweep.params["stimulus"] == "random 8 KiB, 65/35 R/W"
    assert points.params["span_bytes"] == sweep.params["span_bytes"]
    jobs = elements(points)
    assert list(jobs) == ["tc4-qd8"]
    assert jobs["tc4-qd8"] == {**elements(sweep)["tc4-qd8"], "runtime": "600"}
    one = elements(replace(points, job_file=with_point(points.job_file or "", "tc1-qd2", 1, 2)))
    assert one == {"tc1-qd2": {**elements(sweep)["tc1-qd2"], "runtime": "600"}}
    assert (
        sections(with_point(points.job_file or "", "tc1-qd2", 1, 2))["global"]
        == (sections(points.job_file or "")["global"])
    )
    # The name is the api's: one that would end the section and add options is refused.
    with pytest.raises(ValueError, match="not a job name"):
        with_point(points.job_file or "", "x]\nfilename=/dev/sda\n[y", 1, 2)
    short = compile_plan("pts-ecw", {"point_s": 5}, TB2)[2][4]
    assert short.params["point_s"] == 5 and elements(short)["tc32-qd32"]["runtime"] == "5"


@pytest.mark.parametrize("point_s", [0, -1, 3601, 1.5])
def test_a_point_run_length_out_of_range_is_refused_saying_what_to_use(point_s: float) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan("pts-dirth", {"point_s": point_s}, TB2)
    assert err.value.field == "params.point_s"
    assert "point_s: " in err.value.message
    bound = (
        "greater than or equal to 1"
        if point_s < 1
        else "less than or equal to 3600"
        if point_s > 3600
        else "a valid integer"
    )
    assert bound in err.value.message, err.value.message


def test_dirth_lists_are_sorted_high_to_low_and_the_prewrite_can_be_left_out() -> None:
    params = {"thread_counts": [1, 4], "queue_depths": [2, 8, 1], "prewrite_s": 0, "read_pct": 0}
    sweep = compile_plan("pts-dirth", params, TB2)[2][3]
    assert list(elements(sweep)) == [f"tc{t}-qd{q}" for t in (4, 1) for q in (8, 2, 1)]
    assert elements(sweep)["tc4-qd8"]["rw"] == "randwrite"
    assert sweep.params["track"]["element"] == "tc4-qd8"


def test_ecw_and_cbw_run_the_composite_workload() -> None:
    sweep = compile_plan("pts-ecw", {}, TB2)[2][3]
    job = elements(sweep)["tc4-qd16"]
    assert job["bssplit"] == COMPOSITE_BSSPLIT and "bs" not in job
    assert job["random_distribution"] == "zoned:50/5:30/15:20/80"
    assert (job["rw"], job["rwmixread"]) == ("randrw", "40")
    steps = compile_plan("pts-cbw", {}, TB2)[2]
    assert [s.kind for s in steps] == ["purge", "write-cache", "fio", "fio-rounds", "write-cache"]
    cbw = elements(steps[3])["cbw"]
    assert (cbw["bssplit"], cbw["numjobs"], cbw["iodepth"]) == (COMPOSITE_BSSPLIT, "4", "32")
    assert steps[3].params["track"]["metric"] == "iops"
    shares = parse_bssplit(COMPOSITE_BSSPLIT)
    assert dict(shares)["4k"] == 67 and sum(p for _, p in shares) == 100
    assert parse_zones("50/5:30/15:20/80") == [(50, 5), (30, 15), (20, 80)]


@pytest.mark.parametrize(
    ("plan", "params", "field"),
    [
        ("pts-ecw", {"bssplit": "4k/50:8k/40"}, "params.bssplit"),
        ("pts-ecw", {"bssplit": "4k/x"}, "params.bssplit"),
        ("pts-cbw", {"zones": "50/5:50/5"}, "params.zones"),
        ("pts-cbw", {"zones": "60/10:30/90"}, "params.zones"),
        ("pts-dirth", {"thread_counts": [4, 4]}, "params.thread_counts"),
        ("pts-dirth", {"queue_depths": []}, "params.queue_depths"),
        ("pts-dirth", {"block_size": "3k"}, "params.block_size"),
        ("pts-dirth", {"art_ceiling_ms": 0}, "params.art_ceiling_ms"),
    ],
)
def test_parameters_fio_would_not_take_are_refused(plan: str, params: dict, field: str) -> None:
    with pytest.raises(InvalidParams) as err:
        compile_plan(plan, params, TB2)
    assert err.value.field == field


def test_sizes_below_a_4kn_drives_sector_are_folded_or_refused_with_the_reason() -> None:
    # The composite's 0.5 to 3.5 KiB (10% of its I/Os) go to 4 KiB on a 4Kn drive, said so.
    steps = compile_plan("pts-ecw", {}, TB2_4KN)[2]
    job = elements(steps[3])["tc1-qd1"]
    assert job["bssplit"] == "4k/77:8k/10:16k/7:32k/3:64k/3"
    assert "(10% of the I/Os) left out" in steps[0].params["notes"][0]
    assert "notes" not in compile_plan("pts-cbw", {}, TB2)[2][0].params
    with pytest.raises(InvalidParams, match="every size is below") as err:
        compile_plan("pts-cbw", {"bssplit": "512/50:1k/50"}, TB2_4KN)
    assert err.value.field == "params.bssplit"
    with pytest.raises(InvalidParams, match="4096-byte logical sector") as err:
        compile_plan("pts-dirth", {"block_size": "512"}, TB2_4KN)
    assert err.value.field == "params.block_size"


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_accepts_every_job_file(tmp_path: Path) -> None:
    target = tmp_path / "t.img"
    target.write_bytes(b"")
    files = []
    for key, params in (
        ("pts-dirth", {}),
        ("pts-dirth", {"read_pct": 100, "block_size": "512", "prewrite_s": 0}),
        ("pts-ecw", {"profile": "client"}),
        ("pts-cbw", {"threads": 64, "iodepth": 256}),
    ):
        for step in compile_plan(key, params, TB2)[2]:
            if not step.job_file:
                continue
            runs = job_files_as_run(step.name, step.kind, step.params, step.job_file)
            if step.kind == "fio-points":  # as the worker sets it to a point
                runs.append(("point", with_point(step.job_file, "tc1-qd1", 1, 1)))
            for _name, job in runs:
                path = tmp_path / f"{len(files):04d}.fio"
                path.write_text(retarget_job_file(job, str(target)))
                files.append(path.name)
    done = subprocess.run(
        ["fio", "--parse-only", *files], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_runs_the_composite_workloads_block_sizes_mix_and_access_ranges(
    tmp_path: Path,
) -> None:
    """The CBW round's job file as fio runs it, each I/O from fio's own I/O log: the JESD219
    block-size shares, 40/60 reads/writes, and 50/30/20% of the accesses in the first 5%, the
    next 15% and the remaining 80% of the range (within a few points: a 1-second sample)."""
    span = 64 * 2**20
    target = tmp_path / "t.img"
    with open(target, "wb") as f:
        f.truncate(span)
    steps = compile_plan(
        "pts-cbw", {"span": "64m", "element_s": 1, "threads": 1, "iodepth": 4}, TB2
    )[2]
    rounds = steps[3]
    (_name, job), *_ = job_files_as_run(rounds.name, rounds.kind, rounds.params, rounds.job_file)
    log = tmp_path / "io.log"
    path = tmp_path / "cbw.fio"
    path.write_text(retarget_job_file(job, str(target)) + f"write_iolog={log}\n")
    done = subprocess.run(
        ["fio", "--output-format=json", path.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ios = []
    for line in log.read_text().splitlines():
        # iolog v3: time (ms) file action offset length
        parts = line.split()
        if len(parts) == 5 and parts[2] in ("read", "write"):
            ios.append((parts[2], int(parts[3]), int(parts[4])))
    n = len(ios)
    assert n >= 1000, n
    sizes = {bs: p for bs, p in parse_bssplit(COMPOSITE_BSSPLIT)}
    for bs, pct in sizes.items():
        nbytes = int(bs[:-1]) * 1024 if bs.endswith("k") else int(bs)
        share = 100 * sum(1 for _d, _o, length in ios if length == nbytes) / n
        assert share == pytest.approx(pct, abs=4), (bs, share)
    reads = 100 * sum(1 for d, _o, _n in ios if d == "read") / n
    assert reads == pytest.approx(40, abs=4)
    zones = [0.0, 0.0, 0.0]
    for _d, offset, _n in ios:
        at = offset / span
        zones[0 if at < 0.05 else 1 if at < 0.20 else 2] += 100 / n
    print(f"{n} I/Os, reads {reads:.1f}%, zones {[round(z, 1) for z in zones]}")
    assert zones == pytest.approx([50, 30, 20], abs=4), zones
