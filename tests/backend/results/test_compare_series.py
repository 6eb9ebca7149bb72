"""Chart series of a comparison on a real PostgreSQL: each drive's latest run of a plan, its
charted steps' series downsampled, in a fixed number of queries whatever the drive count."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import delete, event, func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.core.errors import InvalidParams
from backend.drives.models import DriveSample
from backend.pts.compare import compare_pts
from backend.results.compare_charts import (
    FIRST_SERIES,
    compare_charts,
    first_latency_step,
    make_for_run,
)
from backend.results.compare_parts import RawJson, json_of, json_with_raw
from backend.results.compare_series import compare_series
from backend.results.models import Result, StepChart
from backend.results.qos_compare import compare_sweeps
from backend.results.schemas import CompareCharts, CompareSeries
from backend.runs.models import PackedSamples, Run, Sample, Step
from tests.backend.results.test_compare import add_drive

SECONDS = 3000


def add_run(
    s: Session, drive: DriveSample, plan: str, params: dict[str, Any], age_s: int = 0
) -> Run:
    run = Run(
        plan=plan,
        drive_id=drive.id,
        params=params,
        status="done",
        environment={"host": {"fio_version": "fio-3.36"}, "drive": {"firmware": "FW1"}},
        finished_at=utcnow() - timedelta(seconds=age_s),
    )
    s.add(run)
    s.flush()
    return run


def add_step(
    s: Session,
    run: Run,
    idx: int,
    name: str,
    params: dict[str, Any],
    status: str = "done",
    **kw: Any,
) -> Step:
    step = Step(run_id=run.id, idx=idx, kind="fio", name=name, params=params, status=status, **kw)
    s.add(step)
    s.flush()
    return step


def consistency(
    s: Session, drive: DriveSample, op: int, base_ios: int, age_s: int = 0, *, pack: bool = True
) -> Step:
    """A consistency run whose step's samples are stored while it runs and packed when it
    ends, as the worker api stores them; pack=False: left as rows of `samples` (a step
    finished by hand in SQL, say), which charts read through the view of every sample."""
    run = add_run(s, drive, "consistency", {"op_percent": op} if op else {}, age_s)
    add_step(s, run, 0, "purge", {"role": "purge"})
    step = add_step(
        s,
        run,
        1,
        "consistency-4k-qd32",
        {"role": "consistency", "rw": "randwrite", "iodepth": 32, "span_bytes": 2**30,
         "refill_buffers": True, "op_percent": op, "label": "4K random write QD32"},
        status="running" if pack else "done",
    )  # fmt: skip
    rows = [
        {
            "run_id": run.id,
            "step_id": step.id,
            "t_ms": (i + 1) * 1000,
            "dt_ms": 1000 if i % 100 else 500,  # a short interval now and then
            "read_bytes": 0,
            "write_bytes": (base_ios + i) * 4096,
            "read_ios": 0,
            "write_ios": base_ios + i if i != 1700 else 0,  # one stall to zero
        }
        for i in range(SECONDS)
    ]
    s.execute(insert(Sample), rows)
    if pack:
        step.status = "done"
        s.flush()
    return step


@pytest.fixture(scope="module")
def lab(engine: Engine) -> dict[str, Any]:
    with session_factory(engine)() as s:
        bench = Bench(name="series-bench", host_info={})
        s.add(bench)
        s.flush()
        a, b, c, loose = (add_drive(s, bench, 100 + n) for n in range(4))
        consistency(s, loose, 0, 20000, pack=False)
        consistency(s, a, 0, 9000, age_s=500)  # older: not the one charted
        latest = consistency(s, a, 0, 20000)
        consistency(s, a, 25, 30000)
        consistency(s, b, 0, 10000)
        hd = add_run(s, a, "hdtach", {})
        add_step(
            s, hd, 0, "hdtach-write", {"role": "hdtach-write", "rw": "write", "iodepth": 1},
            analysis={"hdtach": {"position_pct": [0.5 * i for i in range(200)],
                                 "mbps": [500.0 if i < 100 else 200.0 for i in range(200)]}},
        )  # fmt: skip
        hitch = add_run(s, b, "write-hitching", {})
        add_step(
            s, hitch, 0, "hitch-seq", {"role": "hitch-seq", "rw": "write", "iodepth": 32},
            # fio's rows at their own times: none from 100 to 400 ms (a stall).
            logs={"window_ms": 100,
                  "bw": {"t_ms": [100, 400, 500], "write": [300e6, 310e6, 305e6]}},
            analysis={"stalls": {"stalls": [{"start_s": 0.1, "duration_s": 0.2}]}},
        )  # fmt: skip
        ts = add_run(s, c, "transfer-size", {"pattern": "compressible"})
        for i, bs in enumerate((1 << 20, 4096)):
            for j, verb in enumerate(("write", "read")):
                step = add_step(
                    s, ts, i * 2 + j, f"{verb}-{bs}",
                    {"role": f"transfer-{verb}", "rw": verb, "bs_bytes": bs, "iodepth": 4},
                )  # fmt: skip
                s.add(Result(run_id=ts.id, step_id=step.id, metric=f"{verb}_mbps",
                             value=bs / 4096 + j, unit="MB/s"))  # fmt: skip
        s.commit()
        return {"a": a.id, "b": b.id, "c": c.id, "loose": loose.id, "latest_step": latest.id}


def _series(engine: Engine, drives: list[int], plan: str, **kw: Any) -> dict[str, Any]:
    with session_factory(engine)() as s:
        out = compare_series(s, drives, plan, kw.pop("metric", None), kw.pop("points", 650), **kw)
        s.commit()  # as the api's request does: what it drew is kept (step_charts)
    # The api serialises the dict as it is: the response model accepts it, and gives the same
    # JSON as the dict does.
    modelled = CompareSeries.model_validate(out).model_dump(mode="json")
    assert json.loads(json_of(out)) == modelled
    return out


def test_consistency_latest_run_per_drive_downsampled(engine: Engine, lab: dict) -> None:
    statements: list[str] = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        out = _series(engine, [lab["b"], lab["a"], lab["c"]], "consistency", op_percent=0)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    # drives, runs, steps, kept charts, samples: never a query per drive
    assert len([q for q in statements if q.lstrip().upper().startswith("SELECT")]) == 5
    assert [d["drive_id"] for d in out["drives"]] == [lab["b"], lab["a"]]  # order asked for
    assert out["missing"] == [
        {
            "drive_id": lab["c"],
            "label": out["missing"][0]["label"],
            "short_name": None,
            "reason": "no finished consistency run",
        }  # fmt: skip
    ]
    compared = out["drives"][1]["conditions"]["compared"]
    assert compared["queue depth"] == "QD32" and compared["OP"] == "0%"
    assert compared["drive"] == "simulated" and compared["firmware"] == "FW1"
    assert out["warnings"] == []  # both drives' runs measured alike
    a = out["drives"][1]
    assert a["conditions"]["iodepth"] == 32 and a["conditions"]["op_percent"] == 0
    assert a["conditions"]["pattern"] == "incompressible"
    assert (a["conditions"]["firmware"], a["conditions"]["fio_version"]) == ("FW1", "fio-3.36")
    (line,) = a["series"]
    assert line["step_id"] == lab["latest_step"]
    assert line["total_points"] == SECONDS and line["downsampled"]
    assert len(line["points"]) <= 650
    values = dict(line["points"])
    # IOPS per interval = ios / dt: the 500 ms intervals count double; min and max survive
    # the downsampling: the stall at 0 and the last doubled interval.
    assert values[1701.0] == 0.0
    assert max(values.values()) == pytest.approx((20000 + 2900) * 2)
    assert values[2901.0] == pytest.approx((20000 + 2900) * 2)


def test_packed_and_unpacked_samples_draw_the_same_series(engine: Engine, lab: dict) -> None:
    """A finished step's samples are one packed row; samples left as rows (finished by hand)
    are read through the view of every sample: the same series either way."""
    with session_factory(engine)() as s:
        packed = s.scalar(select(func.count()).where(PackedSamples.step_id == lab["latest_step"]))
        loose = s.scalar(
            select(func.count())
            .select_from(Sample)
            .where(
                Sample.step_id.in_(select(Step.id).join(Run).where(Run.drive_id == lab["loose"]))
            )
        )
    assert (packed, loose) == (1, SECONDS)
    for points in (650, 10000):
        out = _series(engine, [lab["a"], lab["loose"]], "consistency", op_percent=0,
                      points=points)  # fmt: skip
        a, unpacked = (d["series"][0]["points"] for d in out["drives"])
        assert a == unpacked and len(a) == min(points, SECONDS)


def test_a_short_last_interval_is_folded_into_the_one_before(engine: Engine) -> None:
    """fio's final summary (30 ms here) is one interval with the one before, weighted by its
    real length, as on the run page's charts: no cliff at the end of the line."""
    with session_factory(engine)() as s:
        bench = Bench(name="series-tail", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 200)
        run = add_run(s, drive, "consistency", {})
        step = add_step(s, run, 0, "c", {"role": "consistency", "rw": "randwrite"},
                        status="running")  # fmt: skip
        dts = [1000] * 10 + [30]
        ios = [5000] * 10 + [40]
        t = 0
        for dt, n in zip(dts, ios, strict=True):
            t += dt
            s.add(Sample(run_id=run.id, step_id=step.id, t_ms=t, dt_ms=dt, read_bytes=0,
                         write_bytes=n * 4096, read_ios=0, write_ios=n))  # fmt: skip
        s.flush()
        step.status = "done"
        s.commit()
        out = compare_series(s, [drive.id], "consistency", None, 650)
    pts = out["drives"][0]["series"][0]["points"]
    assert len(pts) == 10 and pts[:9] == [(float(i), 5000.0) for i in range(1, 10)]
    assert pts[-1] == (10.03, pytest.approx((5000 + 40) / 1.03))


def test_op_percent_picks_the_overprovisioned_run(engine: Engine, lab: dict) -> None:
    out = _series(engine, [lab["a"], lab["b"]], "consistency", op_percent=25, points=10000)
    assert [d["drive_id"] for d in out["drives"]] == [lab["a"]]
    assert out["drives"][0]["conditions"]["op_percent"] == 25
    line = out["drives"][0]["series"][0]
    assert not line["downsampled"] and len(line["points"]) == SECONDS
    assert line["points"][:2] == [(1.0, 60000.0), (2.0, 30001.0)]
    assert out["missing"][0]["reason"] == "no finished consistency run with 25% OP"


def test_position_stalls_and_transfer(engine: Engine, lab: dict) -> None:
    hd = _series(engine, [lab["a"]], "hdtach", points=50)["drives"][0]["series"][0]
    assert hd["x"] == "position_pct" and hd["total_points"] == 200 and len(hd["points"]) <= 50
    assert {v for _x, v in hd["points"]} == {500.0, 200.0}
    assert hd["step_downs"] == []

    st = _series(engine, [lab["b"]], "write-hitching")["drives"][0]["series"][0]
    # The time without a row at 0, from the row before the gap to the last window's start.
    assert st["points"] == [(0.1, 300.0), (0.1, 0.0), (0.3, 0.0), (0.4, 310.0), (0.5, 305.0)]
    assert st["stalls"] == [{"start_s": 0.1, "duration_s": 0.2}]

    ts = _series(engine, [lab["c"]], "transfer-size")["drives"][0]
    assert ts["conditions"]["pattern"] == "compressible"
    read, write = ts["series"]
    assert (read["label"], write["label"]) == ("sequential read, QD4", "sequential write, QD4")
    assert read["points"] == [(4096.0, 2.0), (1048576.0, 257.0)]  # sorted by size
    assert write["points"] == [(4096.0, 1.0), (1048576.0, 256.0)]


def test_refuses_unknown_plan_metric_and_points(engine: Engine, lab: dict) -> None:
    with pytest.raises(InvalidParams, match="no chart series for plan"):
        _series(engine, [lab["a"]], "four-corners")
    with pytest.raises(InvalidParams, match="unknown metric"):
        _series(engine, [lab["a"]], "consistency", metric="nope")
    with pytest.raises(InvalidParams, match="points"):
        _series(engine, [lab["a"]], "consistency", points=2)


def test_charts_answer_holds_each_charts_own_answer(engine: Engine, lab: dict) -> None:
    """GET /api/compare/charts: every chart's first-open data in one answer, each part exactly
    what the chart's own endpoint answers for the same drives."""
    drives = [lab["a"], lab["b"], lab["c"]]
    with session_factory(engine)() as s:
        out = compare_charts(s, drives, lab["b"], hide_embargoed=False)
        own = [compare_series(s, drives, p, m, n, op) for p, m, n, op in FIRST_SERIES]
        sweeps = compare_sweeps(s, drives, lab["b"])
        pts = compare_pts(s, drives, lab["b"], hide_embargoed=False)
    # The api serialises the dict as it is: the response model accepts it as the same JSON.
    assert json.loads(json_of(out)) == CompareCharts.model_validate(out).model_dump(mode="json")
    assert out["drives"] == drives and out["under_review"] == lab["b"]
    asked = [(x["plan"], x["metric"], x["points"], x["op_percent"]) for x in out["series"]]
    assert asked == list(FIRST_SERIES)
    assert [x["answer"] for x in out["series"]] == own
    drawn = {x["plan"] + str(x["op_percent"]): [d["drive_id"] for d in x["answer"]["drives"]]
             for x in out["series"]}  # fmt: skip
    assert drawn == {
        "hdtachNone": [lab["a"]],
        "consistency0": [lab["a"], lab["b"]],
        "consistency25": [lab["a"]],
        "transfer-sizeNone": [lab["c"]],
        "write-hitchingNone": [lab["b"]],
        "trim-performanceNone": [],
    }
    # No drive has a latency histogram: both plans' tests listed (none), nothing measured.
    assert out["latency_steps"] == [
        {"plan": "qd-sweep", "steps": []},
        {"plan": "four-corners", "steps": []},
    ]
    assert out["latency"] is None
    assert out["qd_sweep"] == sweeps and out["pts"] == pts
    assert out["prices"]["currency"] == "USD"


def _selects(engine: Engine, call: Any) -> tuple[Any, list[str]]:
    statements: list[str] = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        out = call()
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    return out, statements


def test_a_kept_chart_answers_as_drawn_without_reading_samples(engine: Engine) -> None:
    """The first comparison draws a step and keeps it (step_charts); the next reads the kept
    entry, not the samples, and answers the same; a change of what it was drawn from (the
    step's analysis) forgets it."""
    with session_factory(engine)() as s:
        bench = Bench(name="series-kept", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 300)
        consistency(s, drive, 0, 15000)
        hd = add_run(s, drive, "hdtach", {})
        curve = {"position_pct": [1.0 * i for i in range(100)], "mbps": [400.0] * 100}
        hd_step = add_step(s, hd, 0, "hdtach-read", {"role": "hdtach-read", "rw": "read"},
                           analysis={"hdtach": curve})  # fmt: skip
        s.commit()
        hd_id = hd_step.id

    first, drew = _selects(engine, lambda: _series(engine, [drive.id], "consistency"))
    again, read = _selects(engine, lambda: _series(engine, [drive.id], "consistency"))
    assert again == first and len(first["drives"][0]["series"][0]["points"]) <= 650
    assert any("packed_samples" in q for q in drew)
    assert not any("packed_samples" in q or "sample_rows" in q for q in read)
    assert any("INSERT INTO step_charts" in q for q in drew)
    assert not any("INSERT" in q for q in read)
    # Another number of points is another chart: drawn, not the kept one cut down; one no
    # page asks for is drawn and not kept.
    wide, drew_wide = _selects(
        engine, lambda: _series(engine, [drive.id], "consistency", points=10000)
    )
    assert len(wide["drives"][0]["series"][0]["points"]) == SECONDS
    assert not any("step_charts" in q for q in drew_wide)

    assert _series(engine, [drive.id], "hdtach")["drives"][0]["series"][0]["points"][0] == (
        0.0, 400.0)  # fmt: skip
    with session_factory(engine)() as s:
        step = s.get(Step, hd_id)
        assert step is not None
        step.analysis = {"hdtach": {**curve, "mbps": [350.0] * 100}}
        s.commit()
        assert s.scalar(select(func.count()).where(StepChart.step_id == hd_id)) == 0
    redrawn = _series(engine, [drive.id], "hdtach")["drives"][0]["series"][0]
    assert {v for _x, v in redrawn["points"]} == {350.0}


def test_the_api_sends_a_kept_chart_as_its_text_and_the_same_bytes(engine: Engine) -> None:
    """The api's answers (raw) send a kept entry's JSON text as it is, not decoded: the bytes
    are those of the entry drawn afresh, for every chart kind that is kept, null included."""
    with session_factory(engine)() as s:
        bench = Bench(name="series-raw", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 302)
        consistency(s, drive, 0, 9000)
        hd = add_run(s, drive, "hdtach", {})
        curve = {"position_pct": [0.5 * i for i in range(200)],
                 "mbps": [400.0 - i for i in range(200)]}  # fmt: skip
        add_step(s, hd, 0, "hdtach-read", {"role": "hdtach-read", "rw": "read"},
                 analysis={"hdtach": curve})  # fmt: skip
        bare = add_step(s, hd, 1, "hdtach-write", {"role": "hdtach-write", "rw": "write"})
        s.commit()
        bare_id = bare.id
    for plan, points in (("consistency", 2000), ("consistency", 650), ("hdtach", 400)):
        fresh = _series(engine, [drive.id], plan, points=points)  # drawn, and kept
        with session_factory(engine)() as s:
            raw = compare_series(s, [drive.id], plan, None, points, raw=True)
        entries = raw["drives"][0]["series"]
        assert entries and all(isinstance(e, RawJson) for e in entries), entries
        assert json_with_raw(raw) == json_of(fresh)
        assert json.loads(json_with_raw(raw)) == json.loads(json_of(fresh))
    with session_factory(engine)() as s:
        kept = s.scalars(select(StepChart.series).where(StepChart.step_id == bare_id)).all()
    assert kept == [None]  # the write pass without a curve: kept as drawing nothing


def test_a_finished_run_keeps_its_first_open_charts(engine: Engine) -> None:
    """make_for_run (called when a run finishes done) keeps what the Compare page's first
    open draws of it: exactly the entries a comparison draws."""
    with session_factory(engine)() as s:
        bench = Bench(name="series-finish", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 301)
        step = consistency(s, drive, 0, 12000)
        s.commit()
        assert make_for_run(s, step.run_id) == 1
        s.commit()
        kept = s.scalars(select(StepChart.key).where(StepChart.step_id == step.id)).all()
        assert kept == ["write_iops:2000"]
        assert make_for_run(s, step.run_id) == 1  # kept: read, not drawn again
    _out, read = _selects(engine, lambda: _series(engine, [drive.id], "consistency", points=2000))
    assert not any("packed_samples" in q for q in read)
    with session_factory(engine)() as s:
        s.execute(delete(StepChart).where(StepChart.step_id == step.id))
        s.commit()
    assert _series(engine, [drive.id], "consistency", points=2000) == _out


def test_first_latency_step_skips_passes_that_do_not_measure() -> None:
    assert first_latency_step(["prewrite", "fill-1", "randread-4k-qd1"]) == "randread-4k-qd1"
    assert first_latency_step(["precondition"]) == "precondition"
    assert first_latency_step([]) is None


def test_mixed_draws_each_part_against_the_share_of_writes(engine: Engine) -> None:
    """Plan mixed: one line per part (random, sequential), each step's stored total MB/s
    (mixed_mbps) at its share of writes, sorted by share; unfinished steps are left out."""
    with session_factory(engine)() as s:
        bench = Bench(name="mixed-series-bench", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 190)
        run = add_run(s, drive, "mixed", {})
        idx = 0
        for part, key in (("sequential", "mixed-sequential-128k-qd1"),
                          ("random", "mixed-random-4k-qd4")):  # fmt: skip
            for pct, status in ((100, "done"), (0, "done"), (50, "done"), (75, "failed")):
                step = add_step(
                    s, run, idx, f"{key}-w{pct}",
                    {"role": "mixed-step", "part": part, "write_pct": pct, "iodepth": 4},
                    status=status,
                )  # fmt: skip
                idx += 1
                s.add(Result(run_id=run.id, step_id=step.id, metric="mixed_mbps",
                             value=1000.0 - pct + (part == "random"), unit="MB/s"))  # fmt: skip
        s.commit()
        drive_id = drive.id
    (d,) = _series(engine, [drive_id], "mixed")["drives"]
    random, sequential = d["series"]
    assert (random["step"], random["label"]) == ("mixed-random-4k-qd4", "4K random mixed QD4")
    assert sequential["step"] == "mixed-sequential-128k-qd1"
    assert random["x"] == "write_pct" and random["unit"] == "MB/s"
    assert random["points"] == [(0.0, 1001.0), (50.0, 951.0), (100.0, 901.0)]
    assert sequential["points"] == [(0.0, 1000.0), (50.0, 950.0), (100.0, 900.0)]
    assert random["total_points"] == 3


def test_charts_answer_reads_every_plans_latest_runs_once(engine: Engine, lab: dict) -> None:
    """The answer of all charts asks ten plans of the same drives: their latest runs come from
    one query (each OP's latest of each plan), and each chart's part equals its own endpoint's
    (the test above); outside that answer a chart reads its plan's runs alone."""
    drives = [lab["a"], lab["b"], lab["c"]]
    latest_query = "DISTINCT ON (runs.drive_id"

    with session_factory(engine)() as s:
        _out, statements = _selects(
            engine, lambda: compare_charts(s, drives, lab["b"], hide_embargoed=False)
        )
        _own, alone = _selects(
            engine, lambda: compare_series(s, drives, "consistency", None, 650, 25)
        )
    every_plan = [q for q in statements if latest_query in q]
    assert len(every_plan) == 1, every_plan
    assert every_plan[0].startswith(f"SELECT {latest_query}, runs.plan, ")
    alone_plan = [q for q in alone if latest_query in q]
    assert len(alone_plan) == 1 and "runs.plan = " in alone_plan[0]
