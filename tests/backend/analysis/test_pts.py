"""SNIA PTS figures against fio's own totals (a recorded round) and series with known answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.analysis import latency, pts

ROUND = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33" / "pts-round.json"


@pytest.fixture(scope="module")
def final() -> dict:
    return json.loads(ROUND.read_text())


def test_each_element_adds_up_its_threads_as_fio_counts_them(final: dict) -> None:
    summary = pts.round_summary(final)
    assert list(summary) == ["r100w0-4k", "r65w35-4k", "r0w100-64k"]
    for name, element in summary.items():
        jobs = [j for j in final["jobs"] if j["jobname"] == name]
        assert len(jobs) == 2
        for d in ("read", "write"):
            ios = sum(j[d]["total_ios"] for j in jobs)
            if ios == 0:
                assert f"{d}_iops" not in element
                continue
            # fio's per-thread IOPS add up to the element's (both threads ran 1001 ms).
            assert element[f"{d}_iops"] == pytest.approx(sum(j[d]["iops"] for j in jobs))
            assert element[f"{d}_bytes"] == sum(j[d]["io_bytes"] for j in jobs)
            assert element[f"{d}_lat_max_us"] == max(j[d]["clat_ns"]["max"] for j in jobs) / 1e3
            mean = sum(j[d]["clat_ns"]["mean"] * j[d]["clat_ns"]["N"] for j in jobs) / sum(
                j[d]["clat_ns"]["N"] for j in jobs
            )
            assert element[f"{d}_lat_mean_us"] == pytest.approx(mean / 1e3)
        assert element["iops"] == pytest.approx(
            element.get("read_iops", 0) + element.get("write_iops", 0)
        )
    mixed = summary["r65w35-4k"]
    assert mixed["read_iops"] / mixed["iops"] == pytest.approx(0.65, abs=0.02)
    assert (
        pts.tracked_value(summary, "r0w100-64k", "write_iops")
        == summary["r0w100-64k"]["write_iops"]
    )
    assert pts.tracked_value(summary, "absent", "write_iops") == 0.0


def test_the_window_averages_rounds_and_keeps_the_largest_maximum() -> None:
    rounds = [
        {"a": {"iops": 100.0, "lat_max_us": 50.0, "write_bytes": 10.0}},
        {"a": {"iops": 110.0, "lat_max_us": 900.0, "write_bytes": 10.0}},
        {"a": {"iops": 120.0, "lat_max_us": 70.0, "write_bytes": 10.0}},
    ]
    table = pts.window_table(rounds)
    assert table["a"] == {"iops": 110.0, "lat_max_us": 900.0, "write_bytes": 30.0, "rounds": 3.0}
    assert pts.cumulative_written(rounds) == [10.0, 20.0, 30.0]


def test_percentiles_need_enough_ios_and_match_fio(final: dict) -> None:
    for job in final["jobs"]:
        d = "read" if job["read"]["total_ios"] else "write"
        clat = job[d]["clat_ns"]
        bins = {int(k): v for k, v in clat["bins"].items()}
        # fio's own p99 and p99.9 of this thread, from the same histogram.
        assert latency.bins_percentile(bins, 99.0) == clat["percentile"]["99.000000"]
        assert latency.bins_percentile(bins, 99.9) == clat["percentile"]["99.900000"]
        # About 10-30k I/Os: too few for the five nines.
        assert latency.bins_percentile(bins, 99.999) is None
    assert latency.bins_percentile({1000: 99_999, 5000: 1}, 99.999) == 1000.0
    assert latency.bins_percentile({1000: 99_998, 5000: 2}, 99.999) == 5000.0
    assert latency.bins_percentile({}, 50.0) is None


def test_element_bins_merge_the_threads(final: dict) -> None:
    bins = pts.element_bins(final, "r65w35-4k", "write")
    assert sum(bins.values()) == sum(
        j["write"]["total_ios"] for j in final["jobs"] if j["jobname"] == "r65w35-4k"
    )
    merged = latency.merge_bins([bins, bins])
    assert sum(merged.values()) == 2 * sum(bins.values())
    points = latency.histogram_points(bins)
    assert sum(p[1] for p in points) == pytest.approx(100.0)
    edges = [p[0] for p in points]
    assert edges == sorted(edges)


def test_histogram_points_keep_the_shape() -> None:
    # Half the I/Os at 10 µs, half at 1 ms: two peaks of 50% two decades apart.
    points = latency.histogram_points({10_000: 500, 1_000_000: 500}, per_decade=10)
    assert len(points) == 21
    assert points[0][1] == 50.0 and points[-1][1] == 50.0
    assert all(p[1] == 0.0 for p in points[1:-1])


def test_convergence_gives_the_verdict_on_the_current_window() -> None:
    early = pts.convergence([1000.0, 800.0, 700.0])
    assert early["current"] == {"window": None, "steady": False, "needs": 2}
    falling = [1000.0, 800.0, 700.0, 600.0, 500.0]
    report = pts.convergence(falling)
    assert report["current"]["window"] == [1, 5] and report["current"]["steady"] is False
    settled = [*falling, 400.0, 402.0, 398.0, 401.0, 399.0]
    report = pts.convergence(settled)
    assert report["steady"] and report["round"] == 10
    assert report["current"]["window"] == [6, 10] and report["current"]["steady"]


def test_round_iops_weighs_elements_by_their_time() -> None:
    summary = {
        "a": {"ios": 1000.0, "runtime_s": 1.0},
        "b": {"ios": 3000.0, "runtime_s": 1.0},
    }
    assert pts.round_iops(summary) == 2000.0
    assert pts.round_iops({}) == 0.0
