"""The full state's steps of plan full-drive: the drop from empty to full, from the two steps'
fio outputs (backend.analysis.fullstate)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.analysis.fullstate import drop
from backend.results.names import step_words
from backend.runs.models import Step

Metric = tuple[str, float, str]


def derive_full(
    session: Session, step: Step, final: dict[str, Any] | None
) -> tuple[list[Metric], dict[str, Any]]:
    """`state_drop_pct` of a full-state step against its empty-state pair, and the finding."""
    pair = step.params.get("pair")
    if final is None or not pair:
        return [], {}
    empty = session.scalars(
        select(Step).where(Step.run_id == step.run_id, Step.name == pair, Step.status == "done")
    ).first()
    if empty is None or not empty.output:
        return [], {}
    empty_final = None
    with contextlib.suppress(ValueError):
        empty_final = json.loads(empty.output)
    if not isinstance(empty_final, dict):
        return [], {}
    rw = str(step.params.get("rw", ""))
    direction = "read" if rw in ("read", "randread") else "write"
    fill = int(step.params.get("fill_percent") or 0)
    test = str(step.params.get("test") or pair)
    found = drop(test, direction, empty_final, final, fill, step_words(test))
    if found is None:
        return [], {}
    return [("state_drop_pct", found["drop_pct"], "%")], {"fullstate": found}
