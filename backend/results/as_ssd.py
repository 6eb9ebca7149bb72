"""The figures of the AS-SSD-style preset (backend.plans.as_ssd), gathered on its score step when
it ends: each test's figure is its own fio step's totals (MB/s, IOPS, mean latency); the score
step adds the read, write and total scores (backend.analysis.as_ssd) and the table in words."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis.as_ssd import SOURCE, scores
from backend.plans.as_ssd import TEST_ROLE, TESTS
from backend.results.models import Result
from backend.runs.models import Step

Metric = tuple[str, float, str]
WANTED = [f"{d}_{m}" for d in ("read", "write") for m in ("mbps", "iops", "lat_mean_us")]


def _mbps(v: float | None) -> str:
    return "–" if v is None else f"{v:,.2f}"


def _ms(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def table_words(rows: list[dict[str, Any]], found: dict[str, float | None]) -> str:
    """The table in one line: "Seq 50.12 / 30.05 MB/s · ... · Acc.time 0.081 / 0.112 ms ·
    score: read 62, write 41, total 130" (read / write)."""
    parts = []
    for r in rows:
        if r["key"] == "asssd-acc":
            parts.append(f"{r['label']} {_ms(r.get('read_ms'))} / {_ms(r.get('write_ms'))} ms")
        else:
            parts.append(
                f"{r['label']} {_mbps(r.get('read_mbps'))} / {_mbps(r.get('write_mbps'))} MB/s"
            )
    said = [f"{k} {v:.0f}" for k, v in found.items() if v is not None]
    if said:
        parts.append("score: " + ", ".join(said))
    return " · ".join(parts) + " (read / write)"


def derive_as_ssd(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """The score step's metrics (the scores) and findings (the whole table, the scores, their
    source), from the run's finished test steps."""
    tests = [
        s
        for s in session.scalars(
            select(Step)
            .options(load_only(Step.id, Step.name, Step.params))
            .where(Step.run_id == step.run_id, Step.status == "done")
        )
        if s.params.get("role") == TEST_ROLE
    ]
    by_id = {s.id: s.name for s in tests}
    values: dict[str, dict[str, float]] = {s.name: {} for s in tests}
    for step_id, metric, value in session.execute(
        select(Result.step_id, Result.metric, Result.value).where(
            Result.step_id.in_(list(by_id)), Result.metric.in_(WANTED)
        )
    ):
        if step_id is not None:
            values[by_id[step_id]][metric] = value
    rows: list[dict[str, Any]] = []
    mbps: dict[tuple[str, str], float] = {}
    for test in TESTS:
        row: dict[str, Any] = {"key": test.key, "label": test.label}
        for direction in ("read", "write"):
            got = values.get(f"{test.key}-{direction}", {})
            if f"{direction}_mbps" in got:
                row[f"{direction}_mbps"] = got[f"{direction}_mbps"]
                mbps[(test.key.removeprefix("asssd-"), direction)] = got[f"{direction}_mbps"]
            if f"{direction}_iops" in got:
                row[f"{direction}_iops"] = got[f"{direction}_iops"]
            if f"{direction}_lat_mean_us" in got:
                row[f"{direction}_ms"] = got[f"{direction}_lat_mean_us"] / 1000.0
        rows.append(row)
    if not mbps:
        return [], {}
    found = scores(mbps)
    metrics: list[Metric] = [
        (f"asssd_score_{name}", value, "points")
        for name, value in found.items()
        if value is not None
    ]
    analysis = {
        "asssd": {
            "tests": rows,
            "score_read": found["read"],
            "score_write": found["write"],
            "score_total": found["total"],
            "score_source": SOURCE,
            "words": table_words(rows, found),
        }
    }
    return metrics, analysis
