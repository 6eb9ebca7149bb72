"""The conditions of a result and the names of a metric: pure functions, known answers."""

from __future__ import annotations

from backend.results import conditions as cond
from backend.results.names import is_performance, lower_is_better, names


def test_a_steps_conditions_come_from_its_job() -> None:
    four_corners = {"rw": "randwrite", "bs": "4k", "iodepth": "32", "size": "8g",
                    "runtime": "180", "time_based": "true",
                    "buffer_compress_percentage": "50"}  # fmt: skip
    assert cond.step_conditions(four_corners, "pre-written") == {
        "span": "8 GiB",
        "block size": "4K",
        "queue depth": "QD32",
        "runtime": "180 s",
        "data pattern": "compressible 50%",
        "drive state before": "pre-written",
    }
    transfer = {"rw": "read", "bs": "512", "iodepth": "4", "size": "2g", "runtime": "30"}
    got = cond.step_conditions(transfer, "as found")
    assert got["block size"] == "512B" and got["runtime"] == "up to 30 s"
    assert got["data pattern"] is None  # reads have none
    consistency = {"rw": "randwrite", "bs": "4k", "span_bytes": str(768 * 1024**2)}
    assert cond.step_conditions(consistency, "x")["data pattern"] == "incompressible"
    assert cond.step_conditions(consistency, "x")["span"] == "768 MiB"
    assert cond.binary_size(1536 * 1024**2) == "1.5 GiB"


def test_the_drive_state_before_each_step() -> None:
    steps = [
        ("purge", "purge", None, True),
        ("fio", "fill", "fill", True),
        ("fio", "torture", "torture", True),
        ("fio", "hdtach-write-after-torture", "hdtach-write", True),
        ("trim", "trim", None, False),  # not done: changes nothing
        ("fio", "after", "hdtach-write", True),
    ]
    assert cond.state_before(steps) == [
        "as found",
        "purged",
        "purged, filled",
        "purged, filled, tortured",
        "purged, filled, tortured",
        "purged, filled, tortured",
    ]
    assert cond.state_before([("fio", "prewrite", None, True), ("fio", "x", None, True)]) == [
        "as found",
        "pre-written",
    ]


def test_variants_name_another_test() -> None:
    assert cond.variant({"op_percent": "25"}, "consistency-4k-qd32") == "@op25"
    assert cond.variant({"op_percent": "0"}, "consistency-4k-qd32") == ""
    assert cond.variant({"pattern": "compressible"}, "write-4k") == "@compressible"
    assert cond.variant({"pattern": "incompressible"}, "write-4k") == ""
    # four corners names its patterns in its steps already
    assert cond.variant({"pattern": "compressible"}, "randwrite-4k-qd3-compressible") == ""


def items(**kw: str | None) -> cond.Items:
    base = dict.fromkeys(cond.KEYS, "x")
    base.update({k.replace("_", " "): v for k, v in kw.items()})
    return tuple((k, base[k]) for k in cond.KEYS)


def test_warnings_name_each_value_and_drive() -> None:
    rows = [
        ("A", items(span="32 MiB", drive="simulated")),
        ("B", items(span="1 GiB", drive="real")),
        ("C", items(span="32 MiB", drive="simulated")),
    ]
    notes = [("A", "h1", False), ("B", "h1", True), ("C", "h2", False)]
    warnings = cond.warnings(rows, notes)
    assert "measured with different span: 32 MiB (A, C); 1 GiB (B)" in warnings
    assert "simulated drives are compared with real ones" in warnings
    assert "measured on different hosts: h1 (A, B); h2 (C)" in warnings
    assert "some runs were resumed after an interruption: B" in warnings
    assert cond.warnings(rows[:1], notes[:1]) == []


def test_the_rows_set_apart() -> None:
    a, b = items(span="1 GiB"), items(span="32 MiB", block_size="8K")
    ref = cond.reference([(1, b), (2, a), (3, a)], None)
    assert ref == {"span": "1 GiB", "block size": "x"}
    assert cond.apart(b, ref) == "span 32 MiB, not 1 GiB; block size 8K, not x"
    assert cond.apart(a, ref) is None
    assert cond.reference([(1, b), (2, a), (3, a)], 1)["span"] == "32 MiB"
    shared, differing = cond.common([a, b])
    assert differing == ["span", "block size"] and "span" not in shared


def test_metric_names_are_words_and_unique() -> None:
    got = names("four-corners:randwrite-4k-qd32-compressible:write_iops")
    assert got == {
        "plan": "Four corners",
        "test": "4K random write QD32, compressible",
        "measure": "IOPS",
        "title": "4K random write QD32, compressible: IOPS",
    }
    assert names("consistency:consistency-4k-qd32@op25:iops_mean_last400")["title"] == (
        "4K random write QD32, 25% OP: mean IOPS, last 400 s"
    )
    assert names("transfer-size:write-512@compressible:write_mbps")["test"] == (
        "512 B sequential write, compressible data"
    )
    assert names("performance-over-time:hdtach-write-after-trim:hdtach_write_avg_mbps") == {
        "plan": "Performance over time",
        "test": "full-span write pass after TRIM",
        "measure": "average write MB/s",
        "title": "full-span write pass after TRIM: average write MB/s",
    }
    assert names("four-corners:randread-4k-qd3:read_lat_p99_us")["title"] == (
        "4K random read QD3: 99th percentile latency"
    )
    assert names("trace-replay:profile-heavy:read_mbps")["title"] == (
        "heavy desktop profile: read MB/s"
    )
    # A qd-sweep's mix is named by its read share.
    assert names("qd-sweep:mix70-4k-qd8:read_lat_p99_9_us")["test"] == (
        "4K random 70/30 read/write QD8"
    )
    assert names("qd-sweep:mix50-4k-qd1-4jobs:write_iops")["test"].startswith(
        "4K random 50/50 read/write QD1"
    )
    ids = [
        f"four-corners:randwrite-4k-qd3-{p}:write_{m}"
        for p in ("incompressible", "compressible")
        for m in ("iops", "mbps")
    ]
    assert len({names(i)["title"] for i in ids}) == 4


def test_only_performance_is_better_or_worse() -> None:
    assert is_performance("four-corners:randread-4k-qd3:read_iops")
    assert not is_performance("four-corners:randread-4k-qd3:read_runtime_s")
    assert not is_performance("four-corners:randread-4k-qd3:read_bytes")
    assert not is_performance("hdtach:hdtach-write:hdtach_coverage_pct")
    assert is_performance("write-hitching:hitch-seq-128k-qd32:stall_longest_s")
    assert lower_is_better("write-hitching:hitch-seq-128k-qd32:stall_longest_s", "s")
    assert not lower_is_better("consistency:consistency-4k-qd32:dropoff_s", "s")
    # Stalls every 20 s are better than every 6 s.
    assert not lower_is_better("write-hitching:hitch-seq-128k-qd32:stall_period_s", "s")
    # Where and how often a pass steps down describe it; its levels rank it.
    for d in ("read", "write"):
        for name in ("step_downs", "first_step_down_pct", "first_step_down_gb"):
            assert not is_performance(f"hdtach:hdtach-{d}:hdtach_{d}_{name}")
        assert is_performance(f"hdtach:hdtach-{d}:hdtach_{d}_after_step_down_mbps")
        assert not lower_is_better(f"hdtach:hdtach-{d}:hdtach_{d}_after_step_down_mbps", "MB/s")


def test_hdtach_passes_name_their_metrics_in_words() -> None:
    """Every metric an HD Tach pass stores (backend.results.service._hdtach) has words, the
    read and the write pass each their own."""
    for d in ("read", "write"):
        titles = {
            m: names(f"hdtach:hdtach-{d}:hdtach_{d}_{m}")["title"]
            for m in ("avg_mbps", "step_downs", "first_step_down_pct", "first_step_down_gb",
                      "before_step_down_mbps", "after_step_down_mbps")
        }  # fmt: skip
        assert titles == {
            "avg_mbps": f"full-span {d} pass: average {d} MB/s",
            "step_downs": f"full-span {d} pass: step-downs",
            "first_step_down_pct": f"full-span {d} pass: position of the first step-down",
            "first_step_down_gb": f"full-span {d} pass: GB into the pass at the first step-down",
            "before_step_down_mbps": f"full-span {d} pass: MB/s before the first step-down",
            "after_step_down_mbps": f"full-span {d} pass: MB/s after the first step-down",
        }
    assert names("consistency:consistency-4k-qd32:fob_iops")["measure"] == "fresh-out-of-box IOPS"
