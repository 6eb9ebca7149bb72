"""Every step-down a finished step's analysis finds says whether heat explains it
(backend.results.heat), on a real PostgreSQL: the HD Tach pass's step-downs (position -> time
through the samples' cumulative bytes), the consistency drop-off and any findings' step-downs
that carry at_s; the Run page's findings carry it (schemas)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.results import heat
from backend.results.service import derive
from backend.runs.models import Run, Sample, Step
from backend.runs.service import findings
from tests.backend.results.test_compare import add_drive

MB = 1_000_000
NVME = {"thresholds": {"wctemp_c": 70.0, "cctemp_c": 80.0, "mxtmt_c": None, "hctma": False}}


def _run_step(s: Session, params: dict[str, Any], environment: dict[str, Any], logs=None) -> Step:
    bench = Bench(name=f"heat-{id(params)}", host_info={})
    s.add(bench)
    s.flush()
    drive = add_drive(s, bench, 300 + len(params))
    run = Run(plan="hdtach", drive_id=drive.id, params={}, status="running",
              environment={"drive": {"thermal": environment}})  # fmt: skip
    s.add(run)
    s.flush()
    step = Step(run_id=run.id, idx=0, kind="fio", name="x", params=params, status="done",
                logs=logs)  # fmt: skip
    s.add(step)
    s.flush()
    return step


def _samples(s: Session, step: Step, rows: list[tuple[int, int, int, int | None]]) -> None:
    """(dt_ms, write bytes, write I/Os, temp_dc) per sample."""
    t = 0
    for dt, nbytes, ios, temp in rows:
        t += dt
        s.add(Sample(run_id=step.run_id, step_id=step.id, t_ms=t, dt_ms=dt, read_bytes=0,
                     write_bytes=nbytes, read_ios=0, write_ios=ios, temp_dc=temp))  # fmt: skip
    s.flush()


def test_an_hdtach_step_down_at_a_threshold_is_thermal_at_its_time(session: Session) -> None:
    span = 1000 * MB
    step = _run_step(session, {"role": "hdtach-write", "rw": "write", "span_bytes": span}, NVME)
    # 1 s samples: 40 s at 20 MB/s heating 1 °C/s from 35 °C to 75 °C (WCTEMP 70 at 35 s),
    # then the drive throttles at 40 s: 5 MB/s, cooling.
    rows = [(1000, 20 * MB, 160, 350 + 10 * i) for i in range(1, 41)]
    rows += [(1000, 5 * MB, 40, 750 - 5 * i) for i in range(1, 41)]
    _samples(session, step, rows)
    _metrics, analysis = derive(session, step, None)
    (sd,) = analysis["step_downs"]
    assert abs(sd["at_s"] - 40.0) < 0.5, sd
    h = sd["heat"]
    assert h["heat"] == "thermal" and h["basis"] == "threshold", h
    assert h["threshold"] == {"name": "WCTEMP", "c": 70.0}
    assert h["words"].startswith(
        "throttled at 75 °C after 40 s, from 20 MB/s to 5 MB/s (WCTEMP 70 °C)"
    )
    out = findings(analysis)
    assert out is not None and out.hdtach is not None
    assert out.hdtach.step_downs[0].heat is not None
    assert out.hdtach.step_downs[0].heat.heat == "thermal"


def test_a_cache_step_down_on_a_cool_drive_is_not_thermal(session: Session) -> None:
    span = 1000 * MB
    step = _run_step(session, {"role": "hdtach-write", "rw": "write", "span_bytes": span}, NVME)
    rows = [(1000, 20 * MB, 160, 380 + (i % 3)) for i in range(1, 21)]
    rows += [(1000, 5 * MB, 40, 390 + (i % 2)) for i in range(1, 61)]
    _samples(session, step, rows)
    _metrics, analysis = derive(session, step, None)
    (sd,) = analysis["step_downs"]
    assert abs(sd["at_s"] - 20.0) < 0.5
    assert sd["heat"]["heat"] == "not thermal", sd["heat"]
    assert "below WCTEMP 70 °C" in sd["heat"]["words"]


def test_a_dropoff_on_a_drive_without_a_sensor_is_unknown(session: Session) -> None:
    step = _run_step(session, {"role": "consistency", "rw": "randwrite"}, {"thresholds": None})
    rows = [(1000, 0, 5000, None) for _ in range(30)] + [(1000, 0, 1000, None) for _ in range(30)]
    _samples(session, step, rows)
    _metrics, analysis = derive(session, step, None)
    drop = analysis["dropoff"]
    assert abs(drop["dropoff_s"] - 30.0) < 0.5
    assert drop["heat"]["heat"] == "unknown"
    assert drop["heat"]["words"] == "the drive reports no temperature"
    out = findings(analysis)
    assert out is not None and out.dropoff is not None and out.dropoff.heat is not None


def test_findings_step_downs_with_at_s_get_heat_from_the_counters(session: Session) -> None:
    counters = {
        "t_ms": [i * 5000 for i in range(12)],
        "thm_temp1_trans_count": [4] * 6 + [5] * 6,  # rose between 25 s and 30 s
        "warning_temp_time": [0] * 12,
    }
    step = _run_step(
        session, {"role": "thermal-soak"}, NVME, logs={"thermal": {"counters": counters}}
    )
    _samples(session, step, [(1000, 10 * MB, 80, 600) for _ in range(60)])
    analysis: dict[str, Any] = {
        "thermal": {"step_downs": [{"at_s": 27.0, "from_mbps": 3000.0, "to_mbps": 1200.0},
                                   {"at_s": 50.0, "from_mbps": 1200.0, "to_mbps": 600.0}]},
    }  # fmt: skip
    heat.attach(session, step, analysis)
    first, second = analysis["thermal"]["step_downs"]
    assert first["heat"]["heat"] == "thermal" and first["heat"]["basis"] == "counters"
    assert first["heat"]["counters"][0]["name"] == "thm_temp1_trans_count"
    assert first["heat"]["words"].startswith("throttled at 60 °C after 27 s, from 3.0 GB/s")
    # 60 °C is 10 °C below WCTEMP and no counter rose around 50 s.
    assert second["heat"]["heat"] == "not thermal", second["heat"]


def test_time_at_bytes_follows_the_samples_through_a_stall() -> None:
    at = heat.time_at_bytes([1000, 2000, 3000, 4000], [1000] * 4, [10, 0, 10, 10])
    assert at(0) == 0.0 and at(5) == 0.5 and at(10) == 1.0
    # The stall (1-2 s) moved nothing: 15 bytes is half way through the third second.
    assert at(15) == 2.5 and at(30) == 4.0


def test_a_failed_attribution_keeps_the_step_downs_and_says_why(session: Session) -> None:
    bad = {"thermal": {"counters": {"t_ms": ["not a number"], "warning_temp_time": [0]}}}
    step = _run_step(session, {"role": "consistency", "rw": "randwrite"}, NVME, logs=bad)
    rows = [(1000, 0, 5000, 400) for _ in range(30)] + [(1000, 0, 1000, 400) for _ in range(30)]
    _samples(session, step, rows)
    metrics, analysis = derive(session, step, None)
    assert analysis["dropoff"]["dropoff_s"] is not None and "heat" not in analysis["dropoff"]
    assert analysis["heat_error"].startswith("ValueError")
    assert any(m[0] == "dropoff_s" for m in metrics)


def test_compare_marks_carry_whether_heat_explains_the_step_down(session: Session) -> None:
    from backend.results.compare_series import compare_series  # noqa: PLC0415

    step = _run_step(
        session, {"role": "hdtach-write", "rw": "write", "span_bytes": 1000 * MB}, NVME
    )
    rows = [(1000, 20 * MB, 160, 380) for _ in range(20)]
    rows += [(1000, 5 * MB, 40, 390) for _ in range(60)]
    _samples(session, step, rows)
    _metrics, step.analysis = derive(session, step, None)
    run = session.get(Run, step.run_id)
    assert run is not None
    run.status = "done"
    session.flush()
    out = compare_series(session, [run.drive_id], "hdtach", None, 650)
    (series,) = [s for s in out["drives"][0]["series"] if s["role"] == "hdtach-write"]
    assert [d["heat"] for d in series["step_downs"]] == ["not thermal"]


def test_the_lower_level_ends_where_the_next_begins_or_with_the_step() -> None:
    levels = [{"start_s": 0.0, "end_s": 9.0}, {"start_s": 9.0, "end_s": 15.8},
              {"start_s": 15.8, "end_s": 19.0}]  # fmt: skip
    assert heat._level_end(levels, 9.02) == 15.8
    assert heat._level_end(levels, 15.8) is None  # the last level: stayed down to the end
    assert heat._level_end(None, 9.0) is None


def test_derive_reads_a_steps_samples_once(session: Session) -> None:
    """The analysis and the heat attribution share one read of the step's samples, and the
    samples are read afresh by the next derive (nothing is kept past it)."""
    from sqlalchemy import event

    span = 1000 * MB
    step = _run_step(session, {"role": "hdtach-write", "rw": "write", "span_bytes": span}, NVME)
    rows = [(1000, 20 * MB, 160, 380) for _ in range(20)]
    rows += [(1000, 5 * MB, 40, 390) for _ in range(60)]
    _samples(session, step, rows)
    reads: list[str] = []

    def count(_conn, _cursor, statement: str, *_args: object) -> None:
        if "sample_rows" in statement:
            reads.append(statement)

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        _metrics, analysis = derive(session, step, None)
        assert analysis["step_downs"] and analysis["step_downs"][0]["heat"]["heat"]
        assert len(reads) == 1, reads
        derive(session, step, None)
        assert len(reads) == 2, reads
    finally:
        event.remove(engine, "before_cursor_execute", count)
