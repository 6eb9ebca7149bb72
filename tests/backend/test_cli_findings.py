"""`drivelab run --wait` prints each step's headline findings from GET /api/runs/{id}."""

from __future__ import annotations

from backend.cli import findings_lines


def test_findings_are_said_as_a_reviewer_quotes_them() -> None:
    run = {
        "steps": [
            {
                "label": "write pass",
                "results": [{"metric": "hdtach_write_avg_mbps", "value": 12.34}],
                "findings": {
                    "hdtach": {
                        "direction": "write",
                        "step_downs": [
                            {"at_pct": 31.25, "at_gb": 0.063, "from_mbps": 24.0, "to_mbps": 12.0}
                        ],
                        "levels": [],
                        "min_drop": 0.2,
                        "min_span_pct": 2.0,
                        "method": "",
                    }
                },
            },
            {
                "label": "read pass",
                "results": [],
                "findings": {
                    "hdtach": {
                        "direction": "read",
                        "step_downs": [],
                        "levels": [],
                        "min_drop": 0.2,
                        "min_span_pct": 2.0,
                        "method": "",
                    }
                },  # fmt: skip
            },
            {
                "label": "hitching",
                "results": [],
                "findings": {
                    "stalls": {
                        "source": "window log",
                        "count": 3,
                        "longest_s": 1.52,
                        "total_s": 4.5,
                        "period_s": 5.96,
                        "period_regular": True,
                        "min_stall_s": 0.3,
                        "short_count": 1,
                        "stalls": [
                            {"start_s": 6.01, "duration_s": 1.5},
                            {"start_s": 11.97, "duration_s": 1.52},
                            {"start_s": 17.93, "duration_s": 1.48},
                        ],
                    }
                },  # fmt: skip
            },
            {
                "label": "after TRIM",
                "results": [],
                "findings": {
                    "stalls": {
                        "source": "window log",
                        "count": 2,
                        "longest_s": 1.5,
                        "total_s": 2.9,
                        "period_s": 6.0,
                        "period_regular": False,
                        "min_stall_s": 0.3,
                        "short_count": 0,
                        "stalls": [
                            {"start_s": 0.0, "duration_s": 1.4},
                            {"start_s": 6.0, "duration_s": 1.5},
                        ],
                    }
                },  # fmt: skip
            },
            {
                "label": "random writes",
                "results": [
                    {"metric": "iops_mean_last400", "value": 800.4},
                    {"metric": "iops_stddev_last400", "value": 90.0},
                    {"metric": "iops_min_last400", "value": 610.0},
                ],
                "findings": {
                    "dropoff": {
                        "dropoff_s": 11.5,
                        "fob_iops": 3000.0,
                        "after_iops": 801.0,
                        "ratio": 0.5,
                        "min_time_s": 5.0,
                    }
                },  # fmt: skip
            },
            {
                "label": "rounds",
                "results": [
                    {"metric": "ss_steady", "value": 1.0},
                    {"metric": "ss_round", "value": 7.0},
                    {"metric": "ss_rounds", "value": 7.0},
                ],
            },
        ]
    }
    assert findings_lines(run) == [
        "write pass: 12.3 MB/s average; steps down 24.0 -> 12.0 MB/s at 31.2% (0.06 GB)",
        "read pass: no step-down (a drop of at least 20% between levels of at least 2% of the "
        "span)",
        "hitching: 3 stalls of at least 0.3 s: longest 1.52 s, total 4.50 s, one every 5.96 s "
        "(regular); at 6.01 s for 1.50 s, 11.97 s for 1.52 s, 17.93 s for 1.48 s; 1 shorter "
        "(from the window log)",
        # Two stalls: one gap, no cadence to call regular or not.
        "after TRIM: 2 stalls of at least 0.3 s: longest 1.50 s, total 2.90 s, one every 6.00 s; "
        "at 0.00 s for 1.40 s, 6.00 s for 1.50 s (from the window log)",
        "random writes: drop-off at 11.5 s: 3000 -> 801 IOPS",
        "random writes: last 400 s: 800 IOPS mean, 90 stddev, 610 minimum",
        "rounds: steady state reached at round 7 of 7",
    ]


def test_xsr_recovery_is_said_after_a_transition_only() -> None:
    run = {
        "steps": [
            {
                "label": "sequential 1024 KiB write",
                "results": [{"metric": "xsr_settled_mbps", "value": 39.85}],
            },
            {
                "label": "random 8 KiB write",
                "results": [
                    {"metric": "xsr_settled_mbps", "value": 4.92},
                    {"metric": "xsr_recovery_s", "value": 5.21},
                ],
            },
        ]
    }
    assert findings_lines(run) == [
        "sequential 1024 KiB write: settled at 39.9 MB/s",
        "random 8 KiB write: settled at 4.9 MB/s, 5.2 s after the transition (recovery time)",
    ]


def test_step_downs_say_whether_heat_explains_them() -> None:
    heat = {"heat": "thermal", "words": "throttled at 50 °C after 9 s, from 40 MB/s to 8 MB/s"}
    run = {
        "steps": [
            {
                "label": "write pass",
                "results": [],
                "findings": {
                    "hdtach": {
                        "direction": "write", "min_drop": 0.2, "min_span_pct": 2.0,
                        "step_downs": [{"at_pct": 65.0, "at_gb": 0.35, "from_mbps": 40.0,
                                        "to_mbps": 8.0, "heat": heat}],
                    },
                    "dropoff": {"dropoff_s": 11.5, "fob_iops": 3000.0, "after_iops": 801.0,
                                "heat": {"heat": "unknown",
                                         "words": "the drive reports no temperature"}},
                },
            }
        ]
    }  # fmt: skip
    assert findings_lines(run) == [
        "write pass: steps down 40.0 -> 8.0 MB/s at 65.0% (0.35 GB) (heat: throttled at 50 °C "
        "after 9 s, from 40 MB/s to 8 MB/s)",
        "write pass: drop-off at 11.5 s: 3000 -> 801 IOPS (heat unknown: the drive reports no "
        "temperature)",
    ]
def test_the_slc_cache_and_its_recovery_are_said_in_the_findings_words() -> None:
    slc = {
        "kind": "refill",
        "note": "0.0158 GB at 20 MB/s before the speed stepped down to 8 MB/s",
        "idle_measured_s": 4.37,
    }
    run = {
        "steps": [
            {"label": "fill", "results": [], "findings": {"slc": {"kind": "fill", "note": "x"}}},
            {"label": "refill after 3 s", "results": [], "findings": {"slc": slc}},
        ]
    }
    lines = findings_lines(run)
    assert any("cache: x" in line for line in lines), lines
    assert any(
        "recovered: 0.0158 GB at 20 MB/s before" in line and "(after 4.4 s idle, measured)" in line
        for line in lines
    ), lines


def test_a_burst_tests_figures_are_said_in_the_findings_words() -> None:
    found = {"note": "4K random read, QD1: 10,000 IOPS over 32 bursts (slowest 9,000, ...)"}
    run = {
        "steps": [
            {"label": "burst 1", "results": [], "findings": None},
            {"label": "4K random read, QD1", "results": [], "findings": {"bursts": found}},
        ]
    }
    lines = findings_lines(run)
    assert any("10,000 IOPS over 32 bursts" in line for line in lines), lines


def test_a_mixed_part_is_said_by_share_of_writes_then_in_its_own_words() -> None:
    from backend.analysis.mixed import summarize

    found = summarize(
        "random",
        [
            {"write_pct": 0, "read_mbps": 20.0},
            {"write_pct": 50, "read_mbps": 10.0, "write_mbps": 10.0},
            {"write_pct": 100, "write_mbps": 10.0},
        ],
    )
    run = {"steps": [{"label": "4K random", "results": [], "findings": {"mixed": found}}]}
    (line,) = findings_lines(run)
    assert "MB/s by share of writes: 0% 20.0, 50% 20.0, 100% 10.0" in line, line
    assert "lowest 10 MB/s at 100% writes" in line, line


def test_a_file_copy_is_said_in_its_words_with_each_standstill_timed() -> None:
    from backend.analysis.file_copy import copy_summary, findings

    def copy(still: list[tuple[float, float]]) -> dict:
        # 100 ms snapshots at 20 MB/s for 8 s, nothing moved in the `still` spans.
        t = [100 * (i + 1) for i in range(80)]
        moved = [
            0 if any(a <= i / 10 < a + d for a, d in still) else 2_000_000 for i in range(80)
        ]
        return copy_summary(t, [100] * 80, moved)

    first, repeated = copy([]), copy([(1.0, 1.5), (3.5, 1.5)])
    fc = {"first": first, "repeated": repeated, "words": findings(first, repeated, 32 * 2**20)}
    run = {"steps": [{"label": "file copy", "results": [], "findings": {"file_copy": fc}}]}
    lines = findings_lines(run)
    assert lines[0].startswith("file copy: the first copy did not stand still")
    assert "the repeated copy stood still twice for 3.0 s in all" in lines[0]
    assert "after 0.0336 GB were deleted" in lines[0]
    assert lines[1] == "file copy: repeated copy stood still at 1.0 s for 1.5 s, 3.5 s for 1.5 s"


def test_the_as_ssd_table_and_its_score_source_are_said() -> None:
    asssd = {
        "words": "Seq 50.00 / 30.00 MB/s · Acc.time 0.081 / 0.112 ms (read / write)",
        "score_source": "weights as published by Tom's Hardware (2011)",
    }
    run = {"steps": [{"label": "AS-SSD score", "results": [], "findings": {"asssd": asssd}}]}
    lines = findings_lines(run)
    assert any(
        "Seq 50.00 / 30.00 MB/s" in line and "score weights as published by Tom's" in line
        for line in lines
    ), lines


def test_demand_intensity_and_the_composite_workload_are_said() -> None:
    finding = "maximum 2000 IOPS at TC2/QD1 (TOC 2, ART 1.00 ms, within the 5 ms ceiling)"
    run = {
        "steps": [
            {
                "label": "DIRTH demand variation",
                "results": [{"metric": "dirth_max_iops", "value": 2000.0}],
                "findings": {"demand_intensity": {"finding": finding}},
            },
            {
                "label": "CBW rounds",
                "results": [
                    {"metric": "cbw_iops", "value": 1234.4},
                    {"metric": "cbw_mbps", "value": 9.87},
                    {"metric": "cbw_lat_mean_us", "value": 2500.0},
                    {"metric": "cbw_lat_max_us", "value": 31000.0},
                ],
                "findings": None,
            },
        ]
    }
    assert findings_lines(run) == [
        f"DIRTH demand variation: {finding}",
        "CBW rounds: composite workload: 1234 IOPS, 9.9 MB/s, ART 2.50 ms, MRT 31.00 ms",
    ]


def test_the_drop_from_empty_to_full_is_said_in_the_findings_words() -> None:
    said = "4K random write QD3 falls 39% from empty to 80% full: 16.4 MB/s ..."
    run = {
        "steps": [
            {"label": "4K random write QD3, 80% full", "results": [],
             "findings": {"fullstate": {"said": said, "note": "Measured right after"}}},
        ]
    }  # fmt: skip
    lines = findings_lines(run)
    assert any("falls 39% from empty to 80% full" in line for line in lines), lines
