"""Compare lists a QD1 burst test's figures (its summary step), not each burst's own."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from backend.benches.models import Bench
from backend.core.db import session_factory, utcnow
from backend.results.compare import compare
from backend.results.models import Result
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive


def test_compare_lists_the_tests_mean_not_every_burst(engine: Engine) -> None:
    with session_factory(engine)() as s:
        bench = Bench(name="bench-bursts", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 77)
        run = Run(
            plan="qd1-bursts",
            drive_id=drive.id,
            params={"ioengine": "libaio"},
            status="done",
            environment={"host": {"fio_version": "fio-3.33"}},
            finished_at=utcnow(),
        )
        s.add(run)
        s.flush()
        for idx, (name, role, value) in enumerate(
            [
                ("rnd4k-q1-read-burst01", "burst", 9000.0),
                ("rnd4k-q1-read-burst02", "burst", 11000.0),
                ("rnd4k-q1-read", "burst-summary", 10000.0),
            ]
        ):
            step = Step(
                run_id=run.id, idx=idx, kind="fio", name=name, params={"role": role},
                status="done",
            )  # fmt: skip
            s.add(step)
            s.flush()
            s.add(Result(run_id=run.id, step_id=step.id, metric="read_iops", value=value,
                         unit="IOPS"))  # fmt: skip
        s.commit()
        found = compare(s, [drive.id], None, None)
    ids = [m["metric"] for m in found["metrics"]]
    assert ids == ["qd1-bursts:rnd4k-q1-read:read_iops"], ids
    assert found["metrics"][0]["rows"][0]["value"] == 10000.0


def test_the_report_says_the_burst_figures_in_words(engine: Engine) -> None:
    from backend.results import article as art
    from backend.results import compare as cmp
    from backend.results.schemas import Article
    from tests.backend.results.test_article import add_run, add_step

    cmp._cache.clear()
    cmp._parts.clear()
    found = {
        "test": "rnd4k-q1-read",
        "label": "4K random read, QD1",
        "iops_mean": 12_345.0,
        "mbps_mean": 50.6,
        "iops_spread_pct": 3.2,
    }
    with session_factory(engine)() as s:
        bench = Bench(name="bench-bursts-article", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 78)
        run = add_run(s, drive.id, "qd1-bursts")
        step = add_step(s, run, 0, "rnd4k-q1-read", {"bursts": found})
        s.add(Result(run_id=run.id, step_id=step.id, metric="read_iops", value=12_345.0,
                     unit="IOPS"))  # fmt: skip
        s.commit()
        out = art.article(s, [drive.id], under_review=None)
    Article.model_validate(out)  # the api's answer takes the topic
    words = {f["topic"]: f["text"] for f in out["findings"][0]["findings"]}
    assert words["bursts"].startswith("QD1 bursts: 4K random read 12.3K IOPS")


def test_a_tests_figures_come_from_its_bursts_own_results_and_clocks(engine: Engine) -> None:
    """derive_bursts on a stored run: the bursts of its test only (not the other test's),
    their mean, and the idle before each from fio's clock (the end of the fio run before it,
    the prefill's for the first)."""
    import json

    from backend.results.bursts import derive_bursts

    def final(end_ms: int, runtime_ms: int) -> str:
        return json.dumps({"timestamp_ms": end_ms, "jobs": [{"job_runtime": runtime_ms}]})

    t0 = 1_800_000_000_000
    plan = [
        # name, kind, role, test, output, read_iops
        ("prefill", "fio", "bursts-prefill", None, final(t0, 5000), None),
        ("prefill-idle", "idle", None, None, None, None),
        ("rnd4k-q1-read-burst01", "fio", "burst", "rnd4k-q1-read", final(t0 + 4800, 800), 9000.0),
        ("rnd4k-q1-read-idle01", "idle", None, "rnd4k-q1-read", None, None),
        ("rnd4k-q1-read-burst02", "fio", "burst", "rnd4k-q1-read", final(t0 + 10000, 500), 11000.0),
        ("rnd4k-q1-read", "idle", "burst-summary", "rnd4k-q1-read", None, None),
        ("rnd4k-q1-write-burst01", "fio", "burst", "rnd4k-q1-write", final(t0 + 15000, 900), 1.0),
    ]
    with session_factory(engine)() as s:
        bench = Bench(name="bench-bursts-derive", host_info={})
        s.add(bench)
        s.flush()
        drive = add_drive(s, bench, 79)
        run = Run(plan="qd1-bursts", drive_id=drive.id, params={}, status="done",
                  environment={}, finished_at=utcnow())  # fmt: skip
        s.add(run)
        s.flush()
        steps = {}
        for idx, (name, kind, role, test, output, iops) in enumerate(plan):
            params: dict[str, object] = {"role": role, "test": test, "seconds": 4}
            if role == "burst":
                params["burst"] = int(name[-2:])
            if role == "burst-summary":
                params["burst_label"] = "4K random read, QD1"
            step = Step(run_id=run.id, idx=idx, kind=kind, name=name, params=params,
                        status="done", output=output)  # fmt: skip
            s.add(step)
            s.flush()
            steps[name] = step
            if iops is not None:
                for metric, value in (("read_iops", iops), ("read_mbps", iops * 4096 / 1e6)):
                    s.add(Result(run_id=run.id, step_id=step.id, metric=metric, value=value,
                                 unit="x"))  # fmt: skip
        s.flush()
        metrics, analysis = derive_bursts(s, steps["rnd4k-q1-read"])
        s.rollback()
    by = {m: v for m, v, _unit in metrics}
    assert by["read_iops"] == 10000.0 and by["read_iops_min"] == 9000.0
    assert by["bursts"] == 2.0
    rows = analysis["bursts"]["rows"]
    assert [r["burst"] for r in rows] == [1, 2]
    # Burst 1 began at t0 + 4.0 s, 4.0 s after the prefill ended; burst 2 at t0 + 9.5 s, 4.7 s
    # after burst 1 ended.
    assert rows[0]["idle_before_s"] == pytest.approx(4.0)
    assert rows[1]["idle_before_s"] == pytest.approx(4.7)
    assert by["burst_idle_min_s"] == pytest.approx(4.0)
    assert "10,000 IOPS over 2 bursts" in analysis["bursts"]["note"]
