"""PTS rounds in the database: each round's fio output kept once and verbatim, the window's
table derived from the stored rounds, and the report built from them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import redis
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from backend.analysis import pts
from backend.benches.models import Bench
from backend.core.db import session_factory
from backend.core.deps import AppState
from backend.core.errors import InvalidParams
from backend.core.settings import Settings
from backend.drives.models import DriveModel, DriveSample
from backend.pts import service
from backend.pts.derive import derive_rounds
from backend.pts.models import StepRound
from backend.pts.report import report
from backend.runs.models import Run, Step
from backend.runs.service import resume_run
from worker.celery_app import make_celery

ROUND = Path(__file__).resolve().parents[2] / "fixtures" / "fio-3.33" / "pts-round.json"
REDIS = "redis://127.0.0.1:6379/15"
TRACK = {"element": "r0w100-64k", "metric": "write_iops", "label": "64K write", "unit": "IOPS"}
ELEMENTS = [
    {"name": n, "label": n, "bs": bs, "bs_bytes": b, "mix": m, "read_pct": r, "access": "random"}
    for n, bs, b, m, r in (
        ("r100w0-4k", "4k", 4096, "100/0", 100),
        ("r65w35-4k", "4k", 4096, "65/35", 65),
        ("r0w100-64k", "64k", 65536, "0/100", 0),
    )
]


@pytest.fixture
def step(session: Session) -> Step:
    bench = Bench(name=f"pts-bench-{id(session)}", host_info={})
    session.add(bench)
    session.flush()
    model = DriveModel(vendor="drivelab", model="PTS test", capacity_bytes=10**12, simulated=True)
    session.add(model)
    session.flush()
    drive = DriveSample(
        model_id=model.id, bench_id=bench.id, serial="SIM-PTS", target_path="/x/p.img"
    )
    session.add(drive)
    session.flush()
    run = Run(plan="pts-iops", drive_id=drive.id, params={"sponsor": "lab"}, status="running")
    session.add(run)
    session.flush()
    step = Step(
        run_id=run.id,
        idx=0,
        kind="fio-rounds",
        name="rounds",
        status="running",
        params={
            "label": "IOPS rounds",
            "role": "pts-rounds",
            "test": "pts-iops",
            "track": TRACK,
            "elements": ELEMENTS,
            "window": 5,
            "excursion_pct": 20,
            "slope_pct": 10,
            "max_rounds": 25,
        },
    )
    session.add(step)
    session.flush()
    return step


def test_a_round_is_kept_once_and_verbatim(session: Session, step: Step) -> None:
    text = ROUND.read_text()
    run = session.get(Run, step.run_id)
    assert service.save_round(session, run, step, 1, text, 0, 3100) is True
    # Sent again (the worker's post was retried): nothing changes.
    assert service.save_round(session, run, step, 1, "{}", 5, 6) is False
    row = session.get(StepRound, (step.id, 1))
    assert gzip.decompress(row.output_gz).decode() == text
    assert len(row.output_gz) < len(text) / 3
    assert (row.t_start_ms, row.t_end_ms) == (0, 3100)
    for name, figures in pts.round_summary(json.loads(text)).items():
        assert row.summary[name] == pytest.approx(figures)
    assert service.round_output(session, run.id, step.id, 1) == text
    with pytest.raises(InvalidParams, match="not fio's JSON"):
        service.save_round(session, run, step, 2, "fio: no such file", 0, 1)
    with pytest.raises(InvalidParams, match="no jobs"):
        service.save_round(session, run, step, 2, "{}", 0, 1)


def test_the_window_table_and_metrics_come_from_the_stored_rounds(
    session: Session, step: Step
) -> None:
    final = json.loads(ROUND.read_text())
    run = session.get(Run, step.run_id)
    # Five rounds whose tracked element runs at 100%, 95%, 100%, 105%, 100% of the recorded
    # round's IOPS: steady in round 5, the window's average the recorded value.
    scales = [1.0, 0.95, 1.0, 1.05, 1.0]
    for k, scale in enumerate(scales, start=1):
        copy = json.loads(json.dumps(final))
        for job in copy["jobs"]:
            if job["jobname"] == "r0w100-64k":
                job["write"]["total_ios"] = round(job["write"]["total_ios"] * scale)
        service.save_round(session, run, step, k, json.dumps(copy), (k - 1) * 3000, k * 3000)
    metrics, analysis = derive_rounds(session, step)
    result = analysis["pts"]
    assert result["steady"] and result["window"] == [1, 5]
    base = pts.round_summary(final)["r0w100-64k"]["write_iops"]
    table = result["table"]
    assert table["r0w100-64k"]["write_iops"] == pytest.approx(base, rel=2e-4)
    assert table["r100w0-4k"]["iops"] == pytest.approx(
        pts.round_summary(final)["r100w0-4k"]["iops"]
    )
    names = {m[0] for m in metrics}
    assert names == {"iops_r100w0_4k", "iops_r65w35_4k", "iops_r0w100_64k"}
    step.analysis = analysis
    step.status = "done"
    session.flush()
    rep = report(session, run.id)
    section = rep["sections"][0]
    assert section["values"] == pytest.approx([base * s for s in scales], rel=2e-4)
    assert section["table"]["r0w100-64k"]["write_iops"] == pytest.approx(base, rel=2e-4)
    assert rep["header"]["sponsor"] == "lab"
    assert rep["header"]["convergence"] == "rounds: steady state reached in round 5 (window 1-5)"
    assert [r["round"] for r in section["rounds"]] == [1, 2, 3, 4, 5]
    stored = session.scalars(select(StepRound.round).where(StepRound.step_id == step.id)).all()
    assert sorted(stored) == [1, 2, 3, 4, 5]


def test_a_resumed_run_stores_its_redone_rounds_not_the_earlier_ones(
    session: Session, step: Step, engine: Engine
) -> None:
    """A run stopped in its rounds step after two rounds, then resumed: the step starts again
    at round 1, and that round is stored, not the one from before the stop taken for it."""
    run = session.get(Run, step.run_id)
    step.idx = 1
    session.add(Step(run_id=run.id, idx=0, kind="fio", name="precondition", status="done"))
    text = ROUND.read_text()
    for k in (1, 2):
        assert service.save_round(session, run, step, k, text, (k - 1) * 3000, k * 3000)
    run.status, step.status = "cancelled", "cancelled"
    session.flush()
    session.expire_all()
    state = AppState(
        settings=Settings(database_url=str(engine.url), redis_url=REDIS),
        engine=engine,
        sessions=session_factory(engine),
        redis=redis.Redis.from_url(REDIS),
        celery=make_celery(REDIS, {}),
    )
    resumed = resume_run(session, state, run.id)  # rolled back: nothing is sent
    assert resumed.status == "queued"
    assert service.round_rows(session, step.id) == []
    # The redone round 1 (a different output, at the resumed step's times) is the one kept.
    assert service.save_round(session, resumed, step, 1, text.replace(" ", "  ", 1), 0, 2900)
    assert [(r.round, r.t_end_ms) for r in service.round_rows(session, step.id)] == [(1, 2900)]
