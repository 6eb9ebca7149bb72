from __future__ import annotations

from typing import Any

import pytest

from backend.analysis.fio_results import step_metrics
from backend.analysis.fullstate import drop


def final(direction: str, io_bytes: int, runtime_ms: int) -> dict[str, Any]:
    """fio's final JSON as far as the totals go: one job, one direction."""
    d = {"io_bytes": io_bytes, "total_ios": io_bytes // 4096, "runtime": runtime_ms}
    return {"jobs": [{direction: d}]}


def test_the_drop_is_fios_own_totals_of_both_steps() -> None:
    empty, full = final("write", 64_000_000, 2000), final("write", 20_000_000, 2000)
    f = drop("randwrite-4k-qd3", "write", empty, full, 80, "4K random write QD3")
    assert f is not None
    # The same MB/s the two steps report as results.
    by = {m: v for m, v, _u in step_metrics(empty)}
    assert f["empty_mbps"] == pytest.approx(by["write_mbps"]) == pytest.approx(32.0)
    assert f["full_mbps"] == pytest.approx(10.0)
    assert f["drop_pct"] == pytest.approx(68.75)
    assert f["said"].startswith("4K random write QD3 falls 69% from empty to 80% full: 32.0 MB/s")
    assert "idle" in f["note"]


def test_a_rise_and_about_the_same_are_said_as_such() -> None:
    rise = drop(
        "seqread-128k-qd1",
        "read",
        final("read", 10**8, 1000),
        final("read", 12 * 10**7, 1000),
        80,
        "128K sequential read QD1",
    )
    assert rise is not None and rise["drop_pct"] == pytest.approx(-20.0)
    assert rise["said"].startswith("128K sequential read QD1 rises 20% from empty to 80% full")
    same = drop(
        "seqread-128k-qd1",
        "read",
        final("read", 10**8, 1000),
        final("read", 98 * 10**6, 1000),
        70,
        "128K sequential read QD1",
    )
    assert same is not None
    assert same["said"].startswith(
        "128K sequential read QD1 is about the same empty and 70% full (+2%)"
    )


def test_no_finding_without_data_in_both_states() -> None:
    assert (
        drop("seqwrite-128k-qd1", "write", final("write", 0, 1000), final("write", 10, 1000), 80)
        is None
    )
    assert drop("seqwrite-128k-qd1", "write", final("write", 10**6, 1000), {"jobs": []}, 80) is None
