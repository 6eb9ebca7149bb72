"""A drive model's figures by firmware version on a real PostgreSQL: improvements and
regressions called only when significant, runs pooled across the model's drives."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.drives.models import DriveModel, DriveSample
from backend.results.firmware import history
from backend.results.models import Result
from backend.results.schemas import FirmwareHistory
from backend.runs.models import Run, Step

NOISE = (0.0, -0.4, 0.4, -0.2, 0.2)


def new_run(
    s: Session, drive: DriveSample, firmware: str | None, age: int, plan: str = "four-corners"
) -> Run:
    """A finished run of the drive `age` seconds ago that recorded `firmware` (None: the drive
    reported none)."""
    run = Run(
        plan=plan,
        drive_id=drive.id,
        params={"ioengine": "libaio"},
        status="done",
        environment={
            "drive": {"firmware": firmware},
            "host": {"fio_version": "fio-3.33", "hostname": "bench1"},
        },
        finished_at=utcnow() - timedelta(seconds=age),
    )
    s.add(run)
    s.flush()
    return run


def add_run(s: Session, drive: DriveSample, firmware: str, values: dict[str, float], age: int):
    run = new_run(s, drive, firmware, age)
    for i, (name, (metric, unit, value)) in enumerate(values.items()):
        step = Step(run_id=run.id, idx=i, kind="fio", name=name, params={}, status="done")
        s.add(step)
        s.flush()
        s.add(Result(run_id=run.id, step_id=step.id, metric=metric, value=value, unit=unit))


def test_a_firmware_update_is_judged_per_figure(session: Session) -> None:
    bench = Bench(name="bench-fw", host_info={})
    model = DriveModel(vendor="drivelab", model="FW model", capacity_bytes=10**12, simulated=True)
    session.add_all([bench, model])
    session.flush()
    drives = [
        DriveSample(model_id=model.id, bench_id=bench.id, serial=f"FW-{n}", target_path=f"/x/{n}")
        for n in range(2)
    ]
    session.add_all(drives)
    session.flush()
    age = 1000
    for fw, read, lat, write in (("1.00", 100, 40, 300), ("1.01", 106, 44, 300.3)):
        for i, e in enumerate(NOISE):
            age -= 10
            add_run(
                session,
                drives[i % 2],  # the model's two samples: pooled
                fw,
                {
                    "randread-4k-qd3": ("read_mbps", "MB/s", read + e),
                    "randwrite-4k-qd3": ("write_lat_p99_us", "µs", lat + e / 4),
                    "randwrite-4k-qd32": ("write_mbps", "MB/s", write + e),
                },
                age,
            )
    add_run(
        session,
        drives[0],
        "1.02",
        {"randread-4k-qd3": ("read_mbps", "MB/s", 130.0)},
        age - 10,
    )
    session.flush()
    out = FirmwareHistory.model_validate(history(session, model.id)).model_dump()
    assert [f["firmware"] for f in out["firmwares"]] == ["1.00", "1.01", "1.02"]
    assert [f["runs"] for f in out["firmwares"]] == [5, 5, 1]
    by = {m["metric"]: m for m in out["metrics"]}
    read = by["four-corners:randread-4k-qd3:read_mbps"]
    assert [f["firmware"] for f in read["by_firmware"]] == ["1.00", "1.01", "1.02"]
    assert read["by_firmware"][0]["runs"]["mean"] == pytest.approx(100)
    first, second = read["changes"]
    assert (first["from_firmware"], first["to_firmware"]) == ("1.00", "1.01")
    assert first["verdict"] == "improvement" and first["diff_pct"] == pytest.approx(6.0)
    assert first["low_pct"] < 6 < first["high_pct"]
    assert second["verdict"] == "1 run: significance unknown"  # 1.02 ran once
    lat = by["four-corners:randwrite-4k-qd3:write_lat_p99_us"]
    assert lat["changes"][0]["verdict"] == "regression"  # 40 -> 44 µs
    write = by["four-corners:randwrite-4k-qd32:write_mbps"]
    assert write["changes"][0]["verdict"] == "within noise"  # +0.1%
    assert "Benjamini-Hochberg" in out["method"]


def test_one_firmware_gives_no_changes(session: Session) -> None:
    bench = Bench(name="bench-fw1", host_info={})
    model = DriveModel(vendor="drivelab", model="FW one", capacity_bytes=10**12, simulated=True)
    session.add_all([bench, model])
    session.flush()
    drive = DriveSample(model_id=model.id, bench_id=bench.id, serial="FW1", target_path="/x/fw1")
    session.add(drive)
    session.flush()
    add_run(session, drive, "2.0", {"randread-4k-qd3": ("read_mbps", "MB/s", 10.0)}, 5)
    out = history(session, model.id)
    assert [f["firmware"] for f in out["firmwares"]] == ["2.0"] and out["metrics"] == []
