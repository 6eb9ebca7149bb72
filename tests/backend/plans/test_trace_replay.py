from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from backend.core.errors import InvalidParams
from backend.plans import fio_check
from backend.plans.base import retarget_job_file
from backend.plans.catalog import compile_plan
from tests.backend.plans.jobfiles import SMALL, TB2, TB2_4KN, job


def test_an_uploaded_trace_is_replayed_against_the_target() -> None:
    _p, _params, steps = compile_plan("trace-replay", {"trace_id": 12}, TB2)
    fill, replay = steps
    assert fill.params["role"] == "fill"
    opts = job(replay)
    assert opts["read_iolog"] == "trace-12.iolog"
    assert opts["replay_redirect"] == TB2.target_path
    assert opts["replay_no_stall"] == "1" and opts["replay_align"] == "4096"
    assert "size" not in opts and "time_based" not in opts and "runtime" not in opts
    assert replay.params["trace_id"] == 12 and replay.params["trace_file"] == "trace-12.iolog"
    assert replay.params["role"] == "trace-replay"


def test_heavy_and_light_profiles() -> None:
    _p, _params, steps = compile_plan("trace-replay", {"profile": "heavy"}, TB2)
    heavy = job(steps[1])
    assert heavy["rw"] == "randrw" and heavy["rwmixread"] == "46" and heavy["iodepth"] == "8"
    reads, writes = heavy["bssplit"].split(",")
    assert reads.startswith("4k/") and writes.startswith("4k/") and "128k/" in writes
    assert heavy["time_based"] == "1" and heavy["runtime"] == "600"
    assert heavy["norandommap"] == "1" and "percentage_random" in heavy
    _p, _params, steps = compile_plan("trace-replay", {"profile": "light", "prefill": False}, TB2)
    (light_step,) = steps
    light = job(light_step)
    assert light["rwmixread"] == "66" and light["iodepth"] == "2"
    assert int(light["percentage_random"]) > int(heavy["percentage_random"])


def test_custom_profile() -> None:
    params = {
        "profile": "custom",
        "rwmixread": 70,
        "bssplit": "4k/80:64k/20,4k/50:128k/50",
        "percentage_random": 90,
        "iodepth": 4,
        "runtime_s": 2,
        "span": "128m",
    }
    _p, _params, steps = compile_plan("trace-replay", params, SMALL)
    opts = job(steps[1])
    assert opts["bssplit"] == "4k/80:64k/20,4k/50:128k/50" and opts["rwmixread"] == "70"
    assert opts["percentage_random"] == "90" and opts["iodepth"] == "4"
    assert opts["runtime"] == "2" and opts["size"] == "128m"


CUSTOM = {"profile": "custom", "rwmixread": 50, "percentage_random": 50, "iodepth": 4}


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({}, "params.profile", "exactly one of trace_id"),
        ({"trace_id": 3, "profile": "heavy"}, "params.trace_id", "exactly one of trace_id"),
        ({"profile": "custom"}, "params.rwmixread", "needs rwmixread, bssplit"),
        ({"profile": "heavy", "rwmixread": 50}, "params.rwmixread", "custom only"),
        ({"trace_id": 3, "bssplit": "4k/100"}, "params.bssplit", "custom only"),
        ({**CUSTOM, "bssplit": "4k/50:8k/40"}, "params.bssplit", "add up to 90"),
        ({**CUSTOM, "bssplit": "4k/100,4k/60"}, "params.bssplit", "add up to 60"),
        ({**CUSTOM, "bssplit": "4k 100"}, "params.bssplit", "bssplit"),
        ({"profile": "medium"}, "params.profile", "profile"),
        ({"trace_id": 0}, "params.trace_id", "trace_id"),
    ],
)
def test_bad_params_name_the_field(params: dict, field: str, words: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("trace-replay", params, TB2)
    assert exc.value.field == field and words in exc.value.message


def test_bssplit_below_the_logical_sector_is_refused() -> None:
    with pytest.raises(InvalidParams, match="4096 B logical sector") as exc:
        compile_plan("trace-replay", {**CUSTOM, "bssplit": "512/50:4k/50"}, TB2_4KN)
    assert exc.value.field == "params.bssplit"


@pytest.mark.parametrize(
    ("bssplit", "words"),
    [
        ("256m/100", "larger than 128 mib"),
        ("４k/100", "does not have the expected form (custom profile: fio bssplit"),
        ("99999999999999999999k/100", "does not have the expected form (custom profile"),
    ],
)
def test_bssplit_entries_fio_rejects_are_refused(bssplit: str, words: str) -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("trace-replay", {**CUSTOM, "bssplit": bssplit}, TB2)
    assert "bssplit" in str(exc.value.field) and words in exc.value.message.lower()


def test_randseed_is_kept_to_fios_range() -> None:
    with pytest.raises(InvalidParams) as exc:
        compile_plan("trace-replay", {"profile": "light", "randseed": 2**64}, TB2)
    assert "randseed" in str(exc.value.field)


def test_a_block_larger_than_the_span_is_refused_and_the_largest_that_fits_runs(
    tmp_path: Path,
) -> None:
    """fio checks the job's size against its smallest block when the job starts, not when it
    parses it: 8m blocks over a 1 MiB span had been queued, filled and then refused by fio."""
    with pytest.raises(InvalidParams) as exc:
        compile_plan("trace-replay", {**CUSTOM, "bssplit": "4k/50:8m/50", "span": "1m"}, SMALL)
    assert exc.value.field == "params.bssplit"
    assert "8.0 MiB is larger than the span (1.0 MiB)" in exc.value.message
    params = {**CUSTOM, "bssplit": "4k/50:1m/50", "span": "1m", "runtime_s": 1, "prefill": False}
    _p, _params, (step,) = compile_plan("trace-replay", params, SMALL)
    target = tmp_path / "drive.img"
    with open(target, "wb") as f:
        f.truncate(1 << 20)
    (tmp_path / "j.fio").write_text(retarget_job_file(step.job_file or "", str(target)))
    done = subprocess.run(
        ["fio", "--output-format=terse", "j.fio"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "8m" not in (step.job_file or "")
    # ...while fio itself refuses the larger block only when it runs.
    job = (tmp_path / "j.fio").read_text().replace("4k/50:1m/50", "8m/100")
    (tmp_path / "j.fio").write_text(job)
    assert fio_check.rejected([("profile-custom", job)]) is None
    done = subprocess.run(
        ["fio", "--output-format=terse", "j.fio"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode != 0 and "size too small" in done.stderr, done.stderr
