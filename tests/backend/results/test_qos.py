"""Latency QoS of stored steps on a real PostgreSQL: the histogram stored once per step and
direction, the figures the same whether read from the stored histogram or, for a step that
finished before histograms were kept, from its stored fio output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.analysis import latency
from backend.benches.models import Bench
from backend.core.db import utcnow
from backend.core.errors import InvalidParams, NotFound
from backend.results import qos
from backend.results.models import StepLatency
from backend.runs.models import Run, Step
from tests.backend.results.test_compare import add_drive
from worker.fio.stream import samples_from_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33"


def final_of(name: str) -> dict:
    _samples, docs = samples_from_text((FIXTURES / name).read_text())
    return docs[-1].data


def add_run(s: Session) -> tuple[Run, list[Step]]:
    bench = Bench(name=f"qos-bench-{utcnow().timestamp()}", host_info={})
    s.add(bench)
    s.flush()
    drive = add_drive(s, bench, int(utcnow().timestamp() * 1000) % 10**9)
    run = Run(plan="four-corners", drive_id=drive.id, params={}, status="done",
              environment={}, finished_at=utcnow())  # fmt: skip
    s.add(run)
    s.flush()
    steps = []
    for i, name in enumerate(("randread-4k-qd3.json", "seqwrite-128k-qd1.json")):
        step = Step(run_id=run.id, idx=i, kind="fio", name=name.removesuffix(".json"),
                    params={"label": name}, status="done",
                    output=json.dumps(final_of(name)))  # fmt: skip
        s.add(step)
        steps.append(step)
    s.flush()
    return run, steps


def test_stored_or_read_from_the_output_the_figures_agree(session: Session) -> None:
    run, steps = add_run(session)
    before = qos.run_qos(session, run.id)
    assert [s["step_id"] for s in before["steps"]] == [s.id for s in steps]
    for entry, step in zip(before["steps"], steps, strict=True):
        expected = latency.step_qos(json.loads(step.output or ""))
        assert entry["directions"] == expected
    # Nothing was stored by reading.
    count = select(func.count()).select_from(StepLatency).where(StepLatency.run_id == run.id)
    assert session.scalar(count) == 0
    for step in steps:
        qos.store_latency(session, run.id, step.id, json.loads(step.output or ""))
        qos.store_latency(session, run.id, step.id, json.loads(step.output or ""))  # resent
    session.flush()
    assert session.scalar(count) == 2  # one direction each
    assert qos.run_qos(session, run.id) == before
    dist = qos.step_latency(session, run.id, steps[0].id)
    read = dist["directions"]["read"]
    assert sum(y for _x, y in read["histogram"]) == pytest.approx(100.0)
    assert read["qos"] == before["steps"][0]["directions"]["read"]
    assert qos.latency_csv(dist).startswith("direction,curve,latency_us,value\n")
    with pytest.raises(InvalidParams, match="per_decade"):
        qos.step_latency(session, run.id, steps[0].id, per_decade=1)


def test_a_step_without_fio_output_has_no_histogram(session: Session) -> None:
    run, steps = add_run(session)
    purge = Step(run_id=run.id, idx=2, kind="purge", name="purge", params={}, status="done")
    session.add(purge)
    session.flush()
    with pytest.raises(NotFound, match="no latency histogram"):
        qos.step_latency(session, run.id, purge.id)
    assert purge.id not in {s["step_id"] for s in qos.run_qos(session, run.id)["steps"]}
