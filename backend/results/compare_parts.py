"""Each drive's part of a comparison (GET /api/compare) for one plan: computed once for each
state of the drive and its finished runs of the plan, so that an answer recomputes only the
parts whose runs changed (see compare.compare_json). A metric is one plan's: its id begins
with the plan.

A part holds, for each metric of the plan the drive has a result for: where its oldest and
latest results come in the order compare() reads results in (by the runs' finish, then run
id), the unit of its latest result, the conditions of its latest result
(backend.results.conditions) and its run's host notes, the run-to-run variation of the
results measured under those conditions, and its row of the answer as JSON but for
`under_review` and `set_apart`. Warnings and the rows set apart are not in it: they depend
on the drives compared together.

The JSON is written value by value with the serialiser compare() answers are checked with
(pydantic's), and joined: compact JSON of a dict is its items' JSON joined by commas in
braces, so an answer assembled from parts is byte for byte the one dump_json gives for
compare()'s dict (tests check it). A part's values and dates are serialised in one list,
split at its commas (none has one), its variations in another, split where one dict ends
(they hold numbers only); strings are remembered, as metric ids and units repeat.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, Final, NamedTuple, TypeVar

from pydantic import TypeAdapter

from backend.analysis.variation import variation
from backend.results.conditions import Items

PLAIN = TypeAdapter(dict[str, Any])
_ANY = TypeAdapter(Any)

# Where a run's results come in compare()'s order: ORDER BY finished_at, run id, an unfinished
# one (NULL) last.
Order = tuple[bool, datetime | None, int]


def order(run_id: int, finished_at: datetime | None) -> Order:
    return (finished_at is None, finished_at, run_id)


@lru_cache(maxsize=8192)
def json_str(text: str) -> bytes:
    """A string as JSON: metric ids, units and keys, the same in every part."""
    return _ANY.dump_json(text)


class RawJson:
    """JSON text that goes into an answer as it is, never decoded: a chart's kept points
    (chart_digests) are thousands of numbers whose decoding into lists, and the garbage
    collector's walks over those lists, cost more than the rest of the answer."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"RawJson({self.text[:40]!r}...)"


def json_of(value: Any) -> bytes:
    return _ANY.dump_json(value)


def json_with_raw(value: Any) -> bytes:
    """`value` as JSON, a RawJson in it written as its text (the answers that hold kept
    charts: json_of, on the hot paths, has no fallback to call)."""
    raws: list[bytes] = []
    nonce = secrets.token_hex(16)

    def fallback(obj: Any) -> str:
        if type(obj) is not RawJson:
            raise TypeError(f"cannot write {type(obj).__name__} as JSON")
        raws.append(obj.text.encode())
        return f"{nonce}:{len(raws) - 1}"

    out = _ANY.dump_json(value, fallback=fallback)
    if not raws:
        return out
    # Each RawJson was written as a string of a random token (that no other text of the answer
    # holds) and its index: its text goes in that string's place.
    token = re.compile(b'"' + nonce.encode() + rb":(\d+)\"")
    return token.sub(lambda m: raws[int(m[1])], out)


@lru_cache(maxsize=4096)
def conditions_json(items: Items) -> bytes:
    """A result's conditions as a JSON object: few distinct ones, met thousands of times."""
    return json_of(dict(items))


def _json_text(value: Any) -> bytes:
    return json_str(value) if type(value) is str else json_of(value)


def _tokens(values: list[Any]) -> list[bytes]:
    """The JSON of each number, date or None of a list, serialised at once: none of them
    has a comma."""
    tokens = json_of(values)[1:-1].split(b",") if values else []
    assert len(tokens) == len(values)
    return tokens


# A drive's row of one metric, as a plain tuple: the garbage collector stops tracking a tuple
# that holds only numbers, strings, bytes and such tuples, but tracks a NamedTuple for as long
# as it lives. Cached parts would add some 200 tracked entries each to every full collection
# (the api's own objects, frozen at start-up, are not walked; about 20,000 others are). Its
# items:
FIRST: Final = 0  # Order of its oldest result: the drives of a metric come in this order
LAST: Final = 1  # Order of its latest result: a metric shows the unit of its latest result
UNIT: Final = 2  # of its latest result
COND: Final = 3  # conditions of its latest result (Items)
NOTE: Final = 4  # (host of its latest run, whether a pooled run was resumed)
LATEST: Final = 5  # the value shown with aggregate=latest
MEAN: Final = 6  # and with aggregate=mean: of the runs measured under COND
LATEST_JSON: Final = 7
MEAN_JSON: Final = 8
REST: Final = 9  # the row's JSON after its value: ,"runs":{...},...,"conditions":{...}}
DRIVE: Final = 10  # the drive's id
KEPT: Final = 11  # the values of the runs measured under COND: what significance tests use
Entry = tuple[
    Order,
    Order,
    str,
    Items,
    tuple[Any, bool],
    float,
    float | None,
    bytes,
    bytes,
    bytes,
    int,
    tuple[float, ...],
]


class Part(NamedTuple):
    drive_id: int
    plan: str
    serial: int  # unique in the process: the answers' sections are keyed on their parts' serials
    head: bytes  # the row up to its under_review flag: {"drive_id":...,"under_review":
    metrics: dict[str, Entry]


def head(
    drive_id: int, label: str, short_name: str | None, simulated: bool, embargoed: bool
) -> bytes:
    row = PLAIN.dump_json(
        {
            "drive_id": drive_id,
            "label": label,
            "short_name": short_name,
            "simulated": simulated,
            "embargoed": embargoed,
            "under_review": False,
        }
    )
    assert row.endswith(b'"under_review":false}'), row
    return row[: -len(b"false}")]


class RunInfo(NamedTuple):
    """What a part needs of a finished run (see compare._run_info)."""

    finished_at: datetime | None
    firmware: str | None
    fio_version: str | None
    host: Any
    resumed: bool


K = TypeVar("K")

# A drive's results by metric: the values, run ids and step ids, oldest first; the unit of
# the latest.
Groups = tuple[dict[str, tuple[list[float], list[int], list[int]]], dict[str, str]]


def group(rows: Iterable[Sequence[Any]], group_of: Mapping[int, K]) -> dict[K, Groups]:
    """Results as compare._rows gives them, (metric id, drive id, run id, value, unit, step
    id) ordered by the runs' finish, by the group of their run (group_of: by run id) and
    metric."""
    out: dict[K, Groups] = {g: ({}, {}) for g in group_of.values()}
    for mid, _drive_id, run_id, value, unit, step_id in rows:
        groups, units = out[group_of[run_id]]
        found = groups.get(mid)
        if found is None:
            groups[mid] = ([value], [run_id], [step_id])
        else:
            found[0].append(value)
            found[1].append(run_id)
            found[2].append(step_id)
        units[mid] = unit  # the latest result's
    return out


def pooled(
    values: list[float], run_ids: list[int], step_ids: list[int], steps: Mapping[int, Items]
) -> tuple[Items, list[float], list[int]]:
    """(the latest result's conditions, the values and run ids of the results measured under
    the same conditions): the only ones run-to-run variation pools."""
    latest = steps[step_ids[-1]]
    if all(steps[s] is latest for s in step_ids):  # interned: the usual case, at once
        return latest, values, run_ids
    keep = [i for i, s in enumerate(step_ids) if steps[s] == latest]
    return latest, [values[i] for i in keep], [run_ids[i] for i in keep]


_serials = itertools.count(1)


def build(
    drive_id: int,
    plan: str,
    row_head: bytes,
    runs: Mapping[int, RunInfo],
    steps: Mapping[int, tuple[Items, str | None]],
    grouped: Groups,
) -> Part:
    """A drive's part of a plan's metrics from its finished runs of the plan, their steps'
    conditions and job file hashes, and their results grouped by metric."""
    run_ids_all = list(runs)
    finished = _tokens([runs[r].finished_at for r in run_ids_all])
    orders: dict[int, Order] = {}
    # What a row says of its latest run: the firmware and fio version it was measured with
    # and when it finished.
    provenance: dict[int, bytes] = {}
    for run_id, when in zip(run_ids_all, finished, strict=True):
        info = runs[run_id]
        orders[run_id] = order(run_id, info.finished_at)
        provenance[run_id] = b"".join(
            (
                b',"run_id":',
                str(run_id).encode(),
                b',"firmware":',
                _json_text(info.firmware),
                b',"fio_version":',
                _json_text(info.fio_version),
                b',"finished_at":',
                when,
            )
        )
    conds = {step_id: c for step_id, (c, _job) in steps.items()}
    groups, units = grouped
    pools = [
        pooled(values, run_ids, step_ids, conds) for values, run_ids, step_ids in groups.values()
    ]
    stats = [variation(values) for _c, values, _r in pools]
    # The variations as JSON, each a dict of numbers: "},{" is where one ends.
    stats_json = json_of(stats)[2:-2].split(b"},{") if stats else []
    assert len(stats_json) == len(stats)
    # The values a row can show: the latest and the mean.
    shown = _tokens(
        [
            v
            for (values, _r, _s), s in zip(groups.values(), stats, strict=True)
            for v in (values[-1], s["mean"])
        ]
    )
    metrics: dict[str, Entry] = {}
    for i, ((mid, (values, run_ids, step_ids)), (cond, kept_values, kept), s) in enumerate(
        zip(groups.items(), pools, stats, strict=True)
    ):
        latest_run = run_ids[-1]
        info = runs[latest_run]
        job = steps[step_ids[-1]][1]
        metrics[mid] = (
            orders[run_ids[0]],
            orders[latest_run],
            units[mid],
            cond,
            (info.host, any(runs[r].resumed for r in kept)),
            values[-1],
            s["mean"],
            shown[2 * i],
            shown[2 * i + 1],
            b"".join(
                (
                    b',"runs":{',
                    stats_json[i],
                    b'},"other_runs":',
                    str(len(values) - len(kept)).encode(),
                    provenance[latest_run],
                    b',"job_sha256":',
                    _json_text(job),
                    b',"conditions":',
                    conditions_json(cond),
                    b"}",
                )
            ),
            drive_id,
            tuple(kept_values),
        )
    return Part(drive_id, plan, next(_serials), row_head, metrics)
