"""The queue-depth sweep's figures on curves with a known answer."""

from __future__ import annotations

from backend.analysis.qd_sweep import sweep_figures


def test_the_knee_and_the_latency_target() -> None:
    # IOPS saturate at QD16; p99 crosses 1 ms between QD8 and QD16.
    points = [
        {"qd": 1, "iops": 10_000.0, "p99_us": 120.0},
        {"qd": 2, "iops": 19_000.0, "p99_us": 150.0},
        {"qd": 4, "iops": 36_000.0, "p99_us": 300.0},
        {"qd": 8, "iops": 60_000.0, "p99_us": 700.0},
        {"qd": 16, "iops": 96_000.0, "p99_us": 1_400.0},
        {"qd": 32, "iops": 100_000.0, "p99_us": 2_900.0},
        {"qd": 64, "iops": 99_000.0, "p99_us": 6_000.0},
    ]
    fig = sweep_figures(list(reversed(points)), target_us=1_000.0)
    assert fig["peak_iops"] == 100_000.0 and fig["peak_qd"] == 32
    # 96,000 >= 95% of 100,000: QD16 is the lowest reaching it.
    assert fig["qd_at_share_of_peak"] == 16
    assert fig["iops_under_target"] == 60_000.0 and fig["qd_under_target"] == 8
    assert fig["next_over_target"] == {"qd": 16, "iops": 96_000.0, "p99_us": 1_400.0}
    # The low-QD score: the mean of QD1, 2 and 4.
    assert fig["low_qd_iops"] == (10_000.0 + 19_000.0 + 36_000.0) / 3


def test_no_point_under_the_target_and_unknown_p99() -> None:
    points = [{"qd": 1, "iops": 10.0, "p99_us": None}, {"qd": 8, "iops": 10.0, "p99_us": 9e5}]
    fig = sweep_figures(points, target_us=1_000.0)
    assert fig["iops_under_target"] is None and fig["next_over_target"] is None
    assert fig["qd_at_share_of_peak"] == 1
    # QD2 and 4 were not swept: no low-QD score rather than one of QD1 alone.
    assert fig["low_qd_iops"] is None
    assert sweep_figures([], 1_000.0) == {"points": 0}
