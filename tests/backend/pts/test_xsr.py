"""Cross-stimulus recovery in the database: each stimulus's recovery time derived from its stored
per-second samples when it ends, and the report's and Compare's figures read from them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.drives.models import DriveModel, DriveSample
from backend.pts.compare import compare_pts
from backend.pts.report import report
from backend.results.models import Result
from backend.results.service import derive
from backend.runs.models import Run, Sample, Step
from tests.backend.analysis.test_xsr import stimulus

MB = 1e6
# (step name, role, levels [(from s, MB/s)], seconds): the known answer of each stimulus.
STIMULI = (
    ("xsr-seq-1", "xsr-1", [(0.0, 40.0)], 20.0),
    ("xsr-rand", "xsr-2", [(0.0, 20.5), (6.4, 4.9)], 30.0),
    ("xsr-seq-2", "xsr-3", [(0.0, 12.0), (8.7, 38.0)], 30.5),
)


def _run(session: Session) -> tuple[Run, list[Step]]:
    bench = Bench(name=f"xsr-bench-{id(session)}", host_info={})
    session.add(bench)
    session.flush()
    model = DriveModel(vendor="drivelab", model="XSR test", capacity_bytes=10**12, simulated=True)
    session.add(model)
    session.flush()
    drive = DriveSample(model_id=model.id, bench_id=bench.id, serial="SIM-XSR", target_path="/x")
    session.add(drive)
    session.flush()
    t0 = datetime(2026, 11, 24, 7, 0, tzinfo=UTC)
    run = Run(
        plan="pts-xsr",
        drive_id=drive.id,
        params={"profile": "enterprise"},
        status="done",
        started_at=t0,
        finished_at=t0 + timedelta(seconds=90),
    )
    session.add(run)
    session.flush()
    start = 0.0
    steps = []
    for idx, (name, role, levels, seconds) in enumerate(STIMULI):
        step = Step(
            run_id=run.id,
            idx=idx + 2,
            kind="fio",
            name=name,
            status="running",
            started_at=t0 + timedelta(seconds=start),
            params={"label": f"{name}, TC1 QD32", "role": role, "runtime": int(seconds)},
        )
        session.add(step)
        session.flush()
        steps.append(step)
        dt, written = stimulus(levels, seconds, seed=idx)
        t_ms = np.cumsum(dt) * 1000
        for t, d, b in zip(t_ms, dt * 1000, written, strict=True):
            session.add(
                Sample(
                    run_id=run.id,
                    step_id=step.id,
                    t_ms=int(round(t)),
                    dt_ms=int(round(d)),
                    read_bytes=0,
                    write_bytes=int(b),
                    read_ios=0,
                    write_ios=int(b // 8192),
                    write_lat_mean_us=100.0 + idx,
                    write_lat_max_us=900.0 + idx,
                )
            )
        for metric, value, unit in (
            ("write_mbps", written.sum() / seconds / MB, "MB/s"),
            ("write_lat_mean_us", 100.0 + idx, "µs"),
            ("write_lat_max_us", 2000.0 + idx, "µs"),
        ):
            session.add(
                Result(run_id=run.id, step_id=step.id, metric=metric, value=value, unit=unit)
            )
        session.flush()
        start += seconds + 1.0
    return run, steps


def test_each_transition_has_the_recovery_time_of_its_samples(session: Session) -> None:
    run, steps = _run(session)
    for step in steps:
        metrics, step.analysis = derive(session, step, None)
        step.status = "done"
        got = {m[0]: m[1] for m in metrics}
        role = step.params["role"]
        settled = {"xsr-1": 40.0, "xsr-2": 4.9, "xsr-3": 38.0}[role]
        assert got["xsr_settled_mbps"] == pytest.approx(settled, rel=0.05)
        if role == "xsr-1":
            assert "xsr_recovery_s" not in got  # the first stimulus follows no transition
        else:
            assert got["xsr_recovery_s"] == pytest.approx(
                {"xsr-2": 6.4, "xsr-3": 8.7}[role], abs=0.2
            )
    session.flush()
    xsr = report(session, run.id)["xsr"]
    rand, seq2 = xsr["stimuli"][1], xsr["stimuli"][2]
    assert rand["recovery_s"] == pytest.approx(6.4, abs=0.2)
    assert [round(lv["mbps"]) for lv in rand["levels"]] == [20, 5]
    assert rand["lat_max_us"] == 2001.0
    assert rand["lat_max_series"] and all(v == 901.0 for _t, v in rand["lat_max_series"])
    assert seq2["start_s"] == pytest.approx(52.0)
    [first, second] = xsr["transitions"]
    assert (first["from"], first["to"]) == ("xsr-seq-1", "xsr-rand")
    assert first["recovery_s"] == rand["recovery_s"] and first["at_s"] == 21.0
    assert first["ratio"] == pytest.approx(4.9 / 40.0, rel=0.08)
    assert second["recovery_s"] == pytest.approx(8.7, abs=0.2)
    values = compare_pts(session, [run.drive_id], None, hide_embargoed=False)["tests"][0]
    assert values["plan"] == "pts-xsr"
    figures = values["drives"][0]["values"]
    assert figures["xsr-seq-2"]["recovery_s"] == seq2["recovery_s"]
    assert figures["xsr-seq-1"]["recovery_s"] is None
    assert figures["xsr-rand"]["lat_max_us"] == 2001.0


def test_a_stimulus_that_ended_before_levels_were_kept_gets_them_in_the_report(
    session: Session,
) -> None:
    run, steps = _run(session)
    for step in steps:
        step.status = "done"  # finished, no analysis stored
    session.flush()
    rand = report(session, run.id)["xsr"]["stimuli"][1]
    assert rand["recovery_s"] == pytest.approx(6.4, abs=0.2)
