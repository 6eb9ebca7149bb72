from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from backend.analysis.trace import replay_metrics, size_breakdown

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REPLAY = FIXTURES / "fio-3.33" / "trace-replay.json"
TRACE = FIXTURES / "traces" / "mixed-v3.iolog"
# fio's final JSON of the run that recorded the trace (tests/fixtures/traces/README.md).
TRACE_READ_BYTES = 4550656
TRACE_WRITE_BYTES = 3457024


@pytest.fixture
def final() -> dict:
    return json.loads(REPLAY.read_text())


def test_replay_metrics_of_a_recorded_replay(final: dict) -> None:
    job = final["jobs"][0]
    read, write = job["read"], job["write"]
    # The QD1 replay moved exactly the trace's bytes.
    assert (read["io_bytes"], write["io_bytes"]) == (TRACE_READ_BYTES, TRACE_WRITE_BYTES)
    m = replay_metrics(final)
    runtime_s = max(read["runtime"], write["runtime"]) / 1000.0
    assert m["mbps"] == pytest.approx((read["io_bytes"] + write["io_bytes"]) / runtime_s / 1e6)
    # The same figures as fio's own per-direction bandwidth (bw_bytes, B/s).
    assert m["read_mbps"] * 1e6 == pytest.approx(read["bw_bytes"], abs=1.0)
    assert m["write_mbps"] * 1e6 == pytest.approx(write["bw_bytes"], abs=1.0)
    assert m["read_mbps"] + m["write_mbps"] == pytest.approx(m["mbps"])
    assert m["read_share_pct"] == pytest.approx(4550656 / (4550656 + 3457024) * 100)
    assert m["read_ios_share_pct"] == pytest.approx(237 / 400 * 100)
    assert m["elapsed_s"] == job["job_runtime"] / 1000.0
    assert "disk_util" not in final and m["busy_s"] is None  # fio lists no device for a file


def test_busy_time_is_util_times_elapsed(final: dict) -> None:
    with_util = copy.deepcopy(final)
    with_util["disk_util"] = [
        {"name": "dm-0", "util": 40.0},
        {"name": "nvme0n1", "util": 80.0},
    ]
    with_util["jobs"][0]["job_runtime"] = 2500
    m = replay_metrics(with_util)
    assert m["elapsed_s"] == 2.5
    assert m["busy_s"] == pytest.approx(0.8 * 2.5)  # the busiest device
    del with_util["jobs"][0]["job_runtime"]
    with_util["jobs"][0]["elapsed"] = 3
    assert replay_metrics(with_util)["busy_s"] == pytest.approx(0.8 * 3)


def test_replay_metrics_without_io() -> None:
    m = replay_metrics({"jobs": [{"read": {"io_bytes": 0}, "write": {}}]})
    assert m["mbps"] is None and m["read_share_pct"] is None and m["busy_s"] is None


def test_size_breakdown_of_the_recorded_trace() -> None:
    rows = size_breakdown(TRACE.read_text())
    sizes = [r["bytes"] for r in rows]
    assert sizes == sorted(sizes)
    assert sum(r["reads"] + r["writes"] for r in rows) == 400
    by_size = {r["bytes"]: r for r in rows}
    # bssplit=4k/70:64k/30. The other sizes are 64 KiB I/Os that fio shortened where they ran
    # into blocks its random map had already done: multiples of 4 KiB below 64 KiB.
    assert (by_size[4096]["reads"], by_size[4096]["writes"]) == (166, 112)
    assert (by_size[65536]["reads"], by_size[65536]["writes"]) == (48, 38)
    assert all(s % 4096 == 0 and 4096 <= s <= 65536 for s in sizes)
    assert by_size[4096]["share_pct"] == pytest.approx(278 / 400 * 100)
    assert sum(r["share_pct"] for r in rows) == pytest.approx(100.0)
    # The breakdown accounts for every byte fio reported for the recorded run.
    assert sum(r["bytes"] * r["reads"] for r in rows) == TRACE_READ_BYTES
    assert sum(r["bytes"] * r["writes"] for r in rows) == TRACE_WRITE_BYTES


def test_size_breakdown_of_a_v2_iolog() -> None:
    text = "\n".join(
        [
            "fio version 2 iolog",
            "/dev/sdb add",
            "/dev/sdb open",
            "/dev/sdb write 0 4096",
            "/dev/sdb write 4096 131072",
            "/dev/sdb read 0 4096",
            "/dev/sdb trim 0 1048576",
            "/dev/sdb close",
        ]
    )
    assert size_breakdown(text) == [
        {"bytes": 4096, "reads": 1, "writes": 1, "share_pct": pytest.approx(200 / 3)},
        {"bytes": 131072, "reads": 0, "writes": 1, "share_pct": pytest.approx(100 / 3)},
    ]


def test_size_breakdown_refuses_what_is_not_an_iolog() -> None:
    with pytest.raises(ValueError, match="not a fio iolog"):
        size_breakdown("hello\n")
    # Read as fio reads it: "four" is no number, so the line is skipped, not counted.
    assert size_breakdown("fio version 3 iolog\n10 /dev/sdb read 0 four\n") == []
    assert size_breakdown("fio version 3 iolog\n") == []
    # A carriage return separates fields for fio: this is a write of 4096 bytes at 2 GiB.
    crafted = "fio version 2 iolog\nx add\nx open\nx write\r2147483648 4096\nx close\n"
    assert size_breakdown(crafted) == [{"bytes": 4096, "reads": 0, "writes": 1, "share_pct": 100.0}]
