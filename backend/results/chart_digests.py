"""Chart digests (the table step_charts, migration 0022): the points a comparison's chart
draws of each finished step, kept so that opening a comparison reads one small row per step and
chart instead of the step's samples or window log.

A chart's entry for a step depends only on the step (its samples, analysis, logs, parameters,
name) and on the chart (`key`: the metric and the number of points asked for), never on the
other drives compared: compare_series draws the steps it finds no row for and stores what it
drew, and compare_charts.make_for_run draws a finished run's first-open charts at its finish.
Triggers forget a step's rows when anything they were drawn from changes. The rows hold the
entry exactly as drawn (a test compares them with a fresh drawing), so an answer is the same
with or without them: the api sends a kept entry's text as it is (RawJson), and it is the
JSON the api writes for the entry drawn afresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import ARRAY, Integer, Text, bindparam, text
from sqlalchemy.orm import Session

from backend.results.compare_parts import RawJson, json_of

# The chart kinds (compare_series.PLAN_KINDS) whose entry is drawn from the step alone: a
# transfer-size or mixed entry is one result (corrections change it), a thermal chart is drawn
# from the whole run.
KINDS = ("time", "position", "stalls")
# The numbers of points the pages' charts ask for (frontend: hdtach-chart 400, the default 650,
# stall-timeline 1000, consistency-scatter 2000): only those are kept, so that a client asking
# for every other number of points draws them without filling the table.
KEPT_POINTS = frozenset((400, 650, 1000, 2000))

_READ = text("SELECT step_id, series FROM step_charts WHERE key = :key AND step_id = ANY(:ids)")
_READ = _READ.bindparams(bindparam("ids", type_=ARRAY(Integer)))
_STORE = text(
    "INSERT INTO step_charts (step_id, key, series) "
    "SELECT unnest(:ids), :key, unnest(:series) ON CONFLICT DO NOTHING"
).bindparams(bindparam("ids", type_=ARRAY(Integer)), bindparam("series", type_=ARRAY(Text)))


def chart_key(metric: str, points: int) -> str:
    return f"{metric}:{points}"


def read(
    session: Session, step_ids: Iterable[int], key: str, *, raw: bool = False
) -> dict[int, Any]:
    """The kept entries of these steps for the chart `key`: step id -> entry, or None where
    the step draws nothing; a step without a row is not in the answer. With `raw`, each entry
    is its JSON text (RawJson) for an answer to send as it is."""
    ids = list(step_ids)
    if not ids:
        return {}
    rows = session.connection().execute(_READ, {"key": key, "ids": ids}).all()
    if raw:
        return {step_id: None if series is None else RawJson(series) for step_id, series in rows}
    kept: dict[int, Any] = {}
    for step_id, series in rows:
        entry = None if series is None else json.loads(series)
        if entry is not None:  # pairs as drawn (JSON has only lists)
            entry["points"] = [tuple(p) for p in entry["points"]]
        kept[step_id] = entry
    return kept


def kept_points(points: int) -> bool:
    return points in KEPT_POINTS


def store(session: Session, drawn: Mapping[int, dict[str, Any] | None], key: str) -> None:
    """Keep what was drawn (a row another request kept first stays: the same drawing)."""
    if drawn:
        session.connection().execute(
            _STORE,
            {
                "ids": list(drawn),
                "key": key,
                "series": [None if e is None else json_of(e).decode() for e in drawn.values()],
            },
        )
