"""Each drive's part of a comparison (GET /api/compare): computed once for each state of the
drive and its finished runs, so that an answer that is not cached as a whole recomputes only
the drives that changed (see compare.compare_json).

A part holds, for each metric the drive has a result for: its run ids (oldest run first),
where its oldest and latest results come in the order compare() reads results in (by the
runs' finish, then run id), the unit of its latest result, the run-to-run variation, and its
row of the answer as JSON but for `under_review`; and each run's conditions. Warnings are not
in it: they depend on the drives compared together.

The JSON is written value by value with the serialiser compare_json used for whole answers
(pydantic's), and joined: compact JSON of a dict is its items' JSON joined by commas in
braces, so an answer assembled from parts is byte for byte the one dump_json gives for
compare()'s dict (tests check it). A part's values and dates are serialised in one list,
split at its commas (none has one), its variations in another, split where one dict ends
(they hold numbers only); strings are remembered, as metric ids and units repeat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, Final, NamedTuple

from pydantic import TypeAdapter

from backend.analysis.variation import variation

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


def json_of(value: Any) -> bytes:
    return _ANY.dump_json(value)


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
RUN_IDS: Final = 3  # oldest first
LATEST: Final = 4  # the value shown with aggregate=latest
MEAN: Final = 5  # and with aggregate=mean
LATEST_JSON: Final = 6
MEAN_JSON: Final = 7
REST: Final = 8  # the row's JSON after its value: ,"runs":{...},"firmware":...}
DRIVE: Final = 9  # the drive's id
Entry = tuple[Order, Order, str, tuple[int, ...], float, float | None, bytes, bytes, bytes, int]


class Part(NamedTuple):
    head: bytes  # the row up to its under_review flag: {"drive_id":...,"under_review":
    metrics: dict[str, Entry]
    conditions: dict[int, tuple[tuple[str, Any], ...]]  # by run id, as items


def head(drive_id: int, label: str, simulated: bool, embargoed: bool) -> bytes:
    row = PLAIN.dump_json(
        {
            "drive_id": drive_id,
            "label": label,
            "simulated": simulated,
            "embargoed": embargoed,
            "under_review": False,
        }
    )
    assert row.endswith(b'"under_review":false}'), row
    return row[: -len(b"false}")]


# A drive's results by metric: the values and run ids, oldest first; the unit of the latest.
Groups = tuple[dict[str, tuple[list[float], list[int]]], dict[str, str]]


def group(rows: Iterable[Sequence[Any]], drive_ids: Iterable[int]) -> dict[int, Groups]:
    """The drives' results as compare._rows gives them, (metric id, drive id, run id, value,
    unit) ordered by the runs' finish, by drive and metric."""
    out: dict[int, Groups] = {drive_id: ({}, {}) for drive_id in drive_ids}
    for mid, drive_id, run_id, value, unit in rows:
        groups, units = out[drive_id]
        found = groups.get(mid)
        if found is None:
            groups[mid] = ([value], [run_id])
        else:
            found[0].append(value)
            found[1].append(run_id)
        units[mid] = unit  # the latest result's
    return out


def build(
    drive_id: int,
    row_head: bytes,
    runs: Sequence[tuple[int, datetime | None, dict[str, Any]]],
    grouped: Groups,
) -> Part:
    """A drive's part from its finished runs (id, finish, conditions as compare._conditions
    gives them) and its results grouped by metric."""
    finished = _tokens([finished_at for _id, finished_at, _c in runs])
    orders: dict[int, Order] = {}
    # What a row says of its latest run: the firmware and fio version it was measured with
    # and when it finished.
    provenance: dict[int, bytes] = {}
    for (run_id, finished_at, cond), when in zip(runs, finished, strict=True):
        orders[run_id] = order(run_id, finished_at)
        provenance[run_id] = b"".join(
            (
                b',"firmware":',
                _json_text(cond["firmware"]),
                b',"fio_version":',
                _json_text(cond["fio version"]),
                b',"finished_at":',
                when,
                b"}",
            )
        )
    groups, units = grouped
    stats = [variation(values) for values, _run_ids in groups.values()]
    # The variations as JSON, each a dict of numbers: "},{" is where one ends.
    stats_json = json_of(stats)[2:-2].split(b"},{") if stats else []
    assert len(stats_json) == len(stats)
    # The values a row can show: the latest and the mean.
    shown = _tokens(
        [
            v
            for (values, _r), s in zip(groups.values(), stats, strict=True)
            for v in (values[-1], s["mean"])
        ]
    )
    metrics: dict[str, Entry] = {}
    for i, ((mid, (values, run_ids)), s) in enumerate(zip(groups.items(), stats, strict=True)):
        metrics[mid] = (
            orders[run_ids[0]],
            orders[run_ids[-1]],
            units[mid],
            tuple(run_ids),
            values[-1],
            s["mean"],
            shown[2 * i],
            shown[2 * i + 1],
            b',"runs":{' + stats_json[i] + b"}" + provenance[run_ids[-1]],
            drive_id,
        )
    return Part(row_head, metrics, {run_id: tuple(c.items()) for run_id, _f, c in runs})
