"""Stalls from real timestamps: window logs with gaps, status snapshots, recorded fio runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from backend.analysis.stalls import (
    confirm_with_samples,
    find_stalls,
    sample_intervals,
    stalls_in_samples,
    stalls_in_window_log,
    window_log_intervals,
    window_log_points,
)
from worker.fio.logs import parse_window_log
from worker.fio.stream import samples_from_text

WINDOW_MS = 100
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33"


def rows_with_pauses(
    seconds: float, pauses: list[tuple[float, float]], *, seed: int = 0, stretch: bool = False
) -> tuple[list[int], list[float]]:
    """Window-log rows as fio writes them for a write at ~500 MB/s (+-20%): a row when a window
    closes, 100 ms apart (100-209 ms with `stretch`, a busy host), none while paused; the row
    that ends a pause covers its last window."""
    rng = np.random.default_rng(seed)
    t, rows, values = 0.0, [], []
    while t < seconds * 1000:
        step = rng.uniform(100, 209) if stretch else 100.0
        t += step
        paused = [p for p in pauses if p[0] * 1000 < t <= (p[0] + p[1]) * 1000]
        if paused:
            t = (paused[0][0] + paused[0][1]) * 1000
            continue
        rows.append(round(t))
        values.append(500e6 * rng.uniform(0.8, 1.2))
    return rows, values


def test_gaps_between_rows_are_stalls_of_their_length() -> None:
    pauses = [(10.0 + 20 * k, 1.5) for k in range(6)]
    t, v = rows_with_pauses(125, pauses)
    result = stalls_in_window_log(t, v, WINDOW_MS)
    assert result["count"] == 6
    for found, (start, length) in zip(result["stalls"], pauses, strict=True):
        assert found["start_s"] == pytest.approx(start, abs=0.15)
        assert found["duration_s"] == pytest.approx(length, abs=0.2)
    assert result["period_s"] == pytest.approx(20.0, rel=0.05)
    assert result["period_regular"] is True
    assert result["longest_s"] == max(s["duration_s"] for s in result["stalls"])
    assert result["total_s"] == pytest.approx(sum(s["duration_s"] for s in result["stalls"]))
    assert result["median"] == pytest.approx(500e6, rel=0.05)


def test_windows_that_stretch_on_a_busy_host_are_not_stalls() -> None:
    """fio's windows last 100-209 ms on a busy host: a grid of 100 ms would see gaps in them."""
    t, v = rows_with_pauses(60, [(30.0, 1.5)], stretch=True, seed=3)
    result = stalls_in_window_log(t, v, WINDOW_MS)
    assert result["count"] == 1
    assert result["stalls"][0]["duration_s"] == pytest.approx(1.5, abs=0.25)


def test_threshold_semantics() -> None:
    edges = np.arange(0, 2.1, 0.1)
    v = np.full(20, 100.0)
    v[5] = 5.0  # 5% of the median: stalled
    v[10] = 20.0  # 20%: slow, not stalled
    v[15] = 10.0  # exactly 10%: stalled (0 MB/s or below 10%, within rounding)
    result = find_stalls(edges[:-1], edges[1:], v, min_stall_s=0.05)
    assert result["median"] == 100.0 and result["threshold"] == 10.0
    assert [s["start_s"] for s in result["stalls"]] == [0.5, 1.5]
    assert result["stalls"][0]["duration_s"] == pytest.approx(0.095)
    assert find_stalls(edges[:-1], edges[1:], v, rel_threshold=0.25, min_stall_s=0.05)["count"] == 3
    # By default a stall lasts 0.3 s: single windows are counted apart.
    default = find_stalls(edges[:-1], edges[1:], v)
    assert default["count"] == 0 and default["short_count"] == 2


def test_a_stall_across_one_second_snapshots_adds_up() -> None:
    """A 1.5 s stall from 10.3 s shows in 1 s snapshots as two slow seconds (30% and 20%): neither
    is below 10% of the median, but their idle times add up to the stall."""
    rates = np.full(30, 100.0)
    rates[10], rates[11] = 30.0, 20.0
    t_ms = np.arange(1, 31) * 1000
    result = stalls_in_samples(t_ms, np.full(30, 1000), rates)
    assert result["count"] == 1
    assert result["stalls"][0] == {"start_s": pytest.approx(10.3), "duration_s": pytest.approx(1.5)}
    start, end, rate = sample_intervals(t_ms, np.full(30, 1000), rates)
    assert start[0] == 0.0 and end[-1] == 30.0 and rate[10] == 30.0


def test_irregular_stalls_have_a_period_but_no_cadence() -> None:
    t, v = rows_with_pauses(60, [(5.0, 0.5), (10.0, 0.5), (40.0, 0.5), (42.0, 0.5)])
    result = stalls_in_window_log(t, v, WINDOW_MS)
    assert result["count"] == 4
    assert result["period_s"] == pytest.approx(5.0, abs=0.2)  # the median gap
    assert result["period_regular"] is False


def test_edges_few_stalls_and_a_dead_series() -> None:
    one = stalls_in_window_log(*rows_with_pauses(10, [(5.0, 1.0)]), WINDOW_MS)
    assert one["count"] == 1 and one["period_s"] is None and one["period_regular"] is False
    none = stalls_in_window_log(*rows_with_pauses(10, []), WINDOW_MS)
    assert none["count"] == 0 and none["longest_s"] == 0.0 and none["total_s"] == 0.0
    dead = find_stalls([0.0, 1.0], [1.0, 2.0], [0.0, 0.0])
    assert dead["median"] == 0.0
    assert dead["stalls"] == [{"start_s": 0.0, "duration_s": 2.0}]
    # A job that ends stalled: time after the last row, to the job's end, is a stall.
    t, v = rows_with_pauses(10, [])
    ended = stalls_in_window_log(t, v, WINDOW_MS, end_ms=12000)
    assert ended["count"] == 1 and ended["stalls"][0]["duration_s"] == pytest.approx(2.0, abs=0.1)
    # A stall that ends 0.2 s before the job does: the one row after it, close to the end, is
    # what shows that it ended; it is kept, and the stall ends there, not at the job's end.
    t, v = rows_with_pauses(19.7, [(18.6, 1.0)])
    assert t[-1] == 19700 and t[-2] == 18600
    late = stalls_in_window_log(t, v, WINDOW_MS, end_ms=19900)
    assert late["count"] == 1, late
    assert late["stalls"][0]["start_s"] == pytest.approx(18.6, abs=0.11)
    assert late["stalls"][0]["duration_s"] == pytest.approx(1.0, abs=0.11)
    with pytest.raises(ValueError):
        window_log_intervals([1], [1.0], 0)


def test_recorded_fio_run_with_three_stalls_gives_three_from_both_sources() -> None:
    """fio 3.33 on a simulated drive that stalls for 1.5 s every 6 s (tests/fixtures/fio-3.33/
    README.md): the stalls began 6.00, 12.00 and 18.00 s into the job."""
    text = (FIXTURES / "sim-hitching-3-stalls.json").read_text()
    samples, docs = samples_from_text(text)
    runtime = max(int(j["job_runtime"]) for j in docs[-1].data["jobs"])
    log = parse_window_log(
        (FIXTURES / "logs" / "simhitch_bw.1.log").read_text(), WINDOW_MS, scale=1024
    )
    from_log = stalls_in_window_log(log["t_ms"], log["write"], WINDOW_MS, end_ms=runtime)
    snapshots = ([s.t_ms for s in samples], [s.dt_ms for s in samples],
                 [s.write_bytes for s in samples])  # fmt: skip
    from_snapshots = stalls_in_samples(*snapshots)
    # As a step's findings are made (backend.results.service): the window log's stalls that
    # the status snapshots confirm.
    confirmed = confirm_with_samples(from_log, sample_intervals(*snapshots))
    assert confirmed["unconfirmed"] == 0
    for found in (from_log, from_snapshots, confirmed):
        assert found["count"] == 3, found
        assert found["period_s"] == pytest.approx(6.0, rel=0.05), found
        assert found["period_regular"] is True
        for stall, start in zip(found["stalls"], (6.0, 12.0, 18.0), strict=True):
            assert stall["start_s"] == pytest.approx(start, abs=0.3), found
            assert stall["duration_s"] == pytest.approx(1.5, abs=0.2), found
    assert json.loads(docs[-1].text)["fio version"] == "fio-3.33"


@pytest.fixture
def in_memory(tmp_path: Path) -> Iterator[Path]:
    """A directory in tmpfs (/dev/shm) where there is one, else tmp_path: fio's writes then go
    to memory, so the only pauses are the ones the test injects (and the host's), not the
    writeback stalls of the disk under tmp_path while other tests write to it."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="drivelab-test-", dir=shm))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_real_fio_job_with_injected_pauses(tmp_path: Path, in_memory: Path) -> None:
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
    target = in_memory / "hitch.img"
    with target.open("wb") as f:
        f.truncate(256 * 1024 * 1024)  # sparse
    cmd = [
        "fio",
        "--name=hitch",
        f"--filename={target}",
        "--rw=write",
        "--bs=128k",
        "--ioengine=psync",
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
    result = stalls_in_window_log(series["t_ms"], series["write"], WINDOW_MS)
    assert expected == 3
    assert result["median"] == pytest.approx(rate, rel=0.10)  # the rate between pauses
    # The injected pauses are the stalls at least half a pause long. A loaded host (CI running
    # other jobs) adds stray short stalls, as many as it likes: real, but not what this test
    # injects, so they are not counted.
    injected = [x for x in result["stalls"] if x["duration_s"] >= think_s / 2]
    assert abs(len(injected) - expected) <= 1, result
    for stall in injected:
        assert stall["duration_s"] == pytest.approx(think_s, abs=0.2), result
    starts = [x["start_s"] for x in injected]
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert gaps and all(g == pytest.approx(period_s, rel=0.10) for g in gaps), result
    if len(result["stalls"]) == len(injected):
        assert result["period_s"] == pytest.approx(period_s, rel=0.10), result


def _intervals_row_by_row(t_ms, values, window_ms, end_ms=None):  # type: ignore[no-untyped-def]
    """window_log_intervals' rule written out one row at a time: the reference that the
    vectorised function must match exactly."""
    t = np.asarray(t_ms, dtype=float)
    v = np.asarray(values, dtype=float)
    v = np.where(np.isfinite(v), v, 0.0)
    order = np.argsort(t, kind="stable")
    t, v = t[order], v[order]
    if (
        end_ms is not None
        and t.size > 1
        and end_ms - t[-1] <= 2.5 * window_ms
        and t[-1] - t[-2] <= 2.5 * window_ms
    ):
        t, v = t[:-1], v[:-1]
    moving = v[v > 0]
    median = float(np.median(moving)) if moving.size else 0.0
    out: list[tuple[float, float, float]] = []
    prev = 0.0
    for ti, vi in zip(t, v, strict=True):
        gap = ti - prev
        if gap <= 0:
            continue
        covered = gap
        if gap > 2.5 * window_ms:
            share = max(0.0, 0.5 - vi / median) if median > 0 else 0.5
            covered = window_ms + (gap - window_ms) * share
            out.append((prev, ti - covered, 0.0))
        out.append((ti - covered, ti, vi))
        prev = ti
    if end_ms is not None and end_ms - prev > 5 * window_ms:
        out.append((prev, end_ms, 0.0))
    return [(a / 1000, b / 1000, r) for a, b, r in out]


@pytest.mark.parametrize("seed", range(40))
def test_window_log_intervals_match_the_row_by_row_rule(seed: int) -> None:
    """Random logs with duplicate times, gaps short and long, rows at 0 and a few out of
    order, with and without the job's end: the same intervals as the rule row by row."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    steps = rng.choice([0, 100, 120, 209, 300, 1600], size=n, p=[0.03, 0.6, 0.2, 0.1, 0.04, 0.03])
    t = np.cumsum(steps).astype(float)
    if n > 3:
        i = int(rng.integers(0, n - 1))
        t[[i, i + 1]] = t[[i + 1, i]]  # two rows out of order
    v = rng.choice([0.0, 5e6, 3e8, 3.1e8, 2.9e8], size=n, p=[0.05, 0.05, 0.3, 0.3, 0.3])
    end = None if seed % 2 else (float(t.max()) if n else 0.0) + float(rng.choice([50, 300, 900]))
    got = window_log_intervals(t, v, WINDOW_MS, end_ms=end)
    want = _intervals_row_by_row(t, v, WINDOW_MS, end)
    assert list(zip(*(a.tolist() for a in got), strict=True)) == want
    xs, ys = window_log_points(t, v, WINDOW_MS)
    drawn: list[tuple[float, float]] = []
    for s, e, r in _intervals_row_by_row(t, v, WINDOW_MS):
        drawn += [(s, 0.0), (e, 0.0)] if r == 0 and e - s > 0 else [(e, r)]
    assert list(zip(xs, ys, strict=True)) == drawn
