"""The mixed plan's figures derived when its steps end (backend.results.mixed) on a real
PostgreSQL: a step's total from fio's read and write totals, a part's curve and average from
the results its steps stored, other parts' and unfinished steps left out."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.results.mixed import derive_mixed, derive_mixed_step
from backend.results.models import Result
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive


def final(read_bytes: int, write_bytes: int, runtime_ms: int = 2000) -> dict[str, Any]:
    """fio's final JSON of one job, as much of it as the totals need."""
    def part(nbytes: int) -> dict[str, Any]:
        return {"io_bytes": nbytes, "total_ios": nbytes // 4096, "runtime": runtime_ms}

    return {"jobs": [{"read": part(read_bytes), "write": part(write_bytes)}]}


def test_a_step_adds_fios_read_and_write_totals(session: Session) -> None:
    step = Step(name="mixed-random-4k-qd4-w30", params={"part": "random"})
    metrics, analysis = derive_mixed_step(step, final(70_000_000, 30_000_000))
    got = {m: (v, u) for m, v, u in metrics}
    assert got["mixed_mbps"] == (pytest.approx(50.0), "MB/s")  # 100 MB over 2 s
    ios = 70_000_000 // 4096 + 30_000_000 // 4096
    assert got["mixed_iops"] == (pytest.approx(ios / 2), "IOPS")
    assert analysis == {}
    # The sequential part has no IOPS figure; a step without fio's output has nothing.
    seq = Step(name="mixed-sequential-128k-qd1-w0", params={"part": "sequential"})
    assert [m for m, _v, _u in derive_mixed_step(seq, final(10_000_000, 0))[0]] == ["mixed_mbps"]
    assert derive_mixed_step(seq, None) == ([], {})


def test_a_part_is_its_finished_steps_stored_results(session: Session) -> None:
    bench = Bench(name="mixed-derive-bench", host_info={})
    session.add(bench)
    session.flush()
    drive = add_drive(session, bench, 880)
    run = Run(plan="mixed", drive_id=drive.id, params={}, status="running")
    session.add(run)
    session.flush()
    rows = [  # part, write %, status, read MB/s, write MB/s
        ("random", 0, "done", 400.0, None),
        ("random", 50, "done", 150.0, 150.0),
        ("random", 100, "done", None, 200.0),
        ("random", 70, "failed", 90.0, 210.0),
        ("sequential", 0, "done", 3000.0, None),
    ]
    for idx, (part, pct, status, read, write) in enumerate(rows):
        step = Step(run_id=run.id, idx=idx, kind="fio", name=f"{part}-w{pct}", status=status,
                    params={"role": "mixed-step", "part": part, "write_pct": pct})  # fmt: skip
        session.add(step)
        session.flush()
        for metric, value in (("read_mbps", read), ("write_mbps", write)):
            if value is not None:
                session.add(Result(run_id=run.id, step_id=step.id, metric=metric, value=value,
                                   unit="MB/s"))  # fmt: skip
                iops = metric.replace("mbps", "iops")
                session.add(Result(run_id=run.id, step_id=step.id, metric=iops,
                                   value=value * 1e6 / 4096, unit="IOPS"))  # fmt: skip
    summary = Step(run_id=run.id, idx=len(rows), kind="idle", name="mixed-random-4k-qd4",
                   status="running",
                   params={"role": "mixed-summary", "part": "random"})  # fmt: skip
    session.add(summary)
    session.flush()
    metrics, analysis = derive_mixed(session, summary)
    got = {m: v for m, v, _u in metrics}
    found = analysis["mixed"]
    assert [p["write_pct"] for p in found["points"]] == [0, 50, 100]  # done, random only
    assert [p["mbps"] for p in found["points"]] == [400.0, 300.0, 200.0]
    assert got["mixed_avg_mbps"] == pytest.approx(300.0)
    assert got["mixed_avg_iops"] == pytest.approx(300.0 * 1e6 / 4096)
    assert (got["mixed_min_mbps"], got["mixed_min_write_pct"]) == (200.0, 100.0)
    assert got["mixed_max_mbps"] == 400.0
    assert "lowest 200 MB/s at 100% writes" in found["note"]
    # A part none of whose steps finished has no figures.
    empty = Step(run_id=run.id, idx=99, kind="idle", name="x", status="running",
                 params={"role": "mixed-summary", "part": "nothing"})  # fmt: skip
    assert derive_mixed(session, empty) == ([], {})
