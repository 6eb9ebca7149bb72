from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from backend.analysis.stalls import find_stalls
from worker.fio.logs import parse_window_log

WINDOW_MS = 100


def periodic_hitching(seed: int = 0) -> np.ndarray:
    """120 s of 100 ms windows around 500 MB/s (+-20%), with a 3-window stall every 20 s starting
    at 10 s: windows 100-102, 300-302, ..., 1100-1102. One stalled window of each stall is not 0
    but 5% of the median (a window that completed a few I/Os)."""
    rng = np.random.default_rng(seed)
    v = 500e6 * rng.uniform(0.8, 1.2, 1200)
    for start in range(100, 1200, 200):
        v[start : start + 3] = [0.0, 0.05 * 500e6, 0.0]
    return v


def test_a_stall_every_20_s() -> None:
    result = find_stalls(periodic_hitching(), WINDOW_MS)
    assert result["count"] == 6
    assert [s["start_s"] for s in result["stalls"]] == [10.0, 30.0, 50.0, 70.0, 90.0, 110.0]
    assert all(s["duration_s"] == 0.3 for s in result["stalls"])
    assert result["longest_s"] == 0.3
    assert result["total_s"] == 1.8
    assert result["period_s"] == pytest.approx(20.0, abs=0.1)
    assert result["period_regular"] is True
    assert result["median"] == pytest.approx(500e6, rel=0.02)
    assert result["threshold"] == pytest.approx(0.1 * result["median"])


def test_threshold_semantics() -> None:
    v = [100.0] * 20
    v[5] = 5.0  # 5% of the median: stalled
    v[10] = 20.0  # 20%: slow, not stalled
    v[15] = 10.0  # exactly 10%: not below the threshold
    result = find_stalls(v, WINDOW_MS)
    assert result["median"] == 100.0 and result["threshold"] == 10.0
    assert result["stalls"] == [{"start_s": 0.5, "duration_s": 0.1}]
    assert find_stalls(v, WINDOW_MS, rel_threshold=0.25)["count"] == 3


def test_the_median_ignores_zero_windows_and_missing_ones_are_zero() -> None:
    # Half the windows are 0: the median of all windows would be 0 (no threshold at all); of
    # the non-zero ones it is 100.
    v = [100.0, 0.0] * 10 + [None, float("nan"), 5.0]
    result = find_stalls(v, 1000)
    assert result["median"] == 100.0
    # Nine single zeros, then the tenth zero (at 19 s), None, NaN and 5 in a row: one stall.
    assert result["count"] == 10
    assert result["stalls"][-1] == {"start_s": 19.0, "duration_s": 4.0}
    assert result["longest_s"] == 4.0 and result["total_s"] == 13.0


def test_irregular_stalls_have_a_period_but_no_cadence() -> None:
    v = np.full(600, 100.0)
    for start in (50, 100, 400, 420):  # gaps of 5, 30 and 2 s
        v[start] = 0.0
    result = find_stalls(v, WINDOW_MS)
    assert result["period_s"] == pytest.approx(5.0)  # the median gap
    assert result["period_regular"] is False


def test_edges_few_stalls_and_a_dead_series() -> None:
    v = [0.0, 0.0, 100.0, 100.0, 100.0, 0.0]
    result = find_stalls(v, WINDOW_MS)
    assert result["stalls"] == [
        {"start_s": 0.0, "duration_s": 0.2},
        {"start_s": 0.5, "duration_s": 0.1},
    ]
    assert result["period_s"] == 0.5
    assert result["period_regular"] is False  # one gap shows no cadence
    one = find_stalls([100.0, 0.0, 100.0], WINDOW_MS)
    assert one["count"] == 1 and one["period_s"] is None and one["period_regular"] is False
    none = find_stalls([100.0] * 10, WINDOW_MS)
    assert none["count"] == 0 and none["longest_s"] == 0.0 and none["total_s"] == 0.0
    dead = find_stalls([0.0] * 10, WINDOW_MS)
    assert dead["median"] == 0.0
    assert dead["stalls"] == [{"start_s": 0.0, "duration_s": 1.0}]
    with pytest.raises(ValueError):
        find_stalls([1.0], 0)


def _o_direct_works(directory: Path) -> bool:
    probe = directory / "o-direct-probe"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o600)
    except OSError:
        return False
    os.close(fd)
    probe.unlink()
    return True


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_real_fio_job_with_injected_pauses(tmp_path: Path) -> None:
    if not _o_direct_works(tmp_path):
        pytest.skip(f"{tmp_path} does not support O_DIRECT (tmpfs?): fio's direct=1 would fail")
    bs = 128 * 1024  # bs=128k
    rate = 20 * 1024 * 1024  # rate=20m: fio's m is MiB (kb_base=1024), 160 blocks a second
    think_us = 500_000
    think_blocks = 320
    runtime_s = 8
    # fio's rate limiter counts the pause against the rate (rate_ignore_thinktime=0, the
    # default) and catches up right after it, so the pauses come every think_blocks blocks of
    # the rate: 320 x 128 KiB at 20 MiB/s = every 2.0 s, at 2, 4 and 6 s in an 8 s run (a
    # pause at 8 s would be past the end). The windows around a 500 ms pause that still
    # complete part of their I/O are slow but above 10% of the median, so a stall lasts the
    # pause give or take a window.
    period_s = think_blocks * bs / rate
    think_s = think_us / 1e6
    expected = sum(1 for k in range(1, 100) if k * period_s + think_s <= runtime_s)
    target = tmp_path / "hitch.img"
    with target.open("wb") as f:
        f.truncate(256 * 1024 * 1024)  # sparse
    cmd = [
        "fio",
        "--name=hitch",
        f"--filename={target}",
        "--rw=write",
        "--bs=128k",
        "--iodepth=4",
        "--ioengine=libaio",
        "--direct=1",
        "--size=256m",
        "--time_based",
        f"--runtime={runtime_s}",
        "--write_bw_log=hitch",
        f"--log_avg_msec={WINDOW_MS}",
        f"--bwavgtime={WINDOW_MS}",
        f"--iopsavgtime={WINDOW_MS}",
        f"--thinktime={think_us}",
        f"--thinktime_blocks={think_blocks}",
        "--rate=20m",
        "--rate_ignore_thinktime=0",
    ]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "hitch_bw.1.log").read_text()
    series = parse_window_log(text, WINDOW_MS, scale=1024)
    result = find_stalls(series["write"], WINDOW_MS)
    assert expected == 3
    assert result["median"] == pytest.approx(rate, rel=0.10)  # the rate between pauses
    # The injected pauses are the stalls at least half a pause long. A loaded host (CI running
    # other jobs) adds stray short stalls, as many as it likes: real, but not what this test
    # injects, so they are not counted.
    windows = think_s * 1000 / WINDOW_MS
    injected = [x for x in result["stalls"] if x["duration_s"] >= think_s / 2]
    assert abs(len(injected) - expected) <= 1, result
    for stall in injected:
        n = stall["duration_s"] * 1000 / WINDOW_MS
        assert math.floor(windows) - 2 <= round(n) <= math.ceil(windows) + 1, result
    starts = [x["start_s"] for x in injected]
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert gaps and all(g == pytest.approx(period_s, rel=0.10) for g in gaps), result
    if len(result["stalls"]) == len(injected):
        assert result["period_s"] == pytest.approx(period_s, rel=0.10), result
