"""Comparisons across drives: one row per drive for each metric, ready for a sorted bar chart,
with run-to-run variation and warnings when results were measured under different conditions.

A metric is named `plan:step:metric`, e.g. `four-corners:randread-4k-qd3:read_mbps`. Three
queries answer any comparison, however many drives and metrics: the drives, their runs'
conditions (picked out of the runs' JSON by PostgreSQL, once per run), and the results.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import Text, cast, func, select
from sqlalchemy.orm import Session, joinedload

from backend.analysis.variation import variation
from backend.core.errors import InvalidParams
from backend.drives.models import DriveSample
from backend.drives.service import drive_label, under_embargo
from backend.results import compare_parts as parts
from backend.results.models import Result
from backend.runs.models import Run, Step

LOWER_IS_BETTER_UNITS = ("µs", "s")
LOWER_IS_BETTER_WORDS = ("lat_", "stall_", "dropoff", "stddev")


def metric_id(plan: str, step: str, metric: str) -> str:
    return f"{plan}:{step}:{metric}"


def lower_is_better(metric: str, unit: str) -> bool:
    name = metric.rsplit(":", 1)[-1]
    if name == "dropoff_s":
        return False  # later is better: the drive holds its fresh level longer
    return unit in LOWER_IS_BETTER_UNITS or any(w in name for w in LOWER_IS_BETTER_WORDS)


def _drives(
    session: Session, drive_ids: list[int], hide_embargoed: bool = False
) -> dict[int, DriveSample]:
    """The drives by id; with hide_embargoed (a viewer, a shared link), a drive under embargo
    is missing exactly as one that does not exist."""
    drives = session.scalars(
        select(DriveSample)
        .where(DriveSample.id.in_(drive_ids))
        .options(joinedload(DriveSample.model), joinedload(DriveSample.bench))
    )
    found = {d.id: d for d in drives if not (hide_embargoed and under_embargo(d.model))}
    missing = sorted(set(drive_ids) - set(found))
    if missing:
        raise InvalidParams(
            f"no drive with id {', '.join(map(str, missing))}: see GET /api/drives", field="drives"
        )
    return found


def _runs(session: Session, drive_ids: list[int], fingerprint: bool = False) -> list[Any]:
    """The drives' finished runs, with the parameters and environment entries their
    conditions are read from: picked out by PostgreSQL, as a run's environment (drive and
    host info, SMART before and after) can be tens of KB of JSON. With fingerprint, also
    each run's plan and a digest of everything _rows reads of its results (see
    _results_digest): what a cached comparison is keyed on."""
    env, params = Run.environment, Run.params
    query = select(
        Run.id,
        Run.drive_id,
        Run.finished_at,
        # As text (->>), turned into Python values here: decoding each JSON value with
        # json.loads cost more than the query (6,000 values for 10 drives).
        env["drive"]["firmware"].as_string().label("firmware"),
        env["host"]["fio_version"].as_string().label("fio_version"),
        env["host"]["hostname"].as_string().label("hostname"),
        env["resumes"].as_string().label("resumes"),
        params["prewrite"].as_string().label("prewrite"),
        params["ioengine"].as_string().label("ioengine"),
        params.has_key("op_percent").label("has_op_percent"),
        params["op_percent"].as_string().label("op_percent"),
    ).where(Run.drive_id.in_(drive_ids), Run.status == "done")
    if fingerprint:
        digest = _results_digest(drive_ids)
        query = (
            query.add_columns(Run.plan, digest.c.count, digest.c.digest)
            .outerjoin(digest, digest.c.run_id == Run.id)
            .order_by(Run.id)
        )
    return list(session.connection().execute(query))


def _results_digest(drive_ids: list[int]) -> Any:
    """Per finished run of the drives: how many results _rows reads and the XOR of a 64-bit
    hash of each one's step id, step name, metric, unit and value (as text, exact: -0 and
    NaN included). Any change to one of them (a result corrected, added or deleted, a step
    renamed) changes the digest or the count, but for a 2^-64 chance. Only those drives'
    results are hashed, not the whole table's."""
    each = func.hashtextextended(
        Step.name + ":" + Result.metric + ":" + Result.unit + ":" + cast(Result.value, Text),
        Result.step_id,
    )
    return (
        select(
            Result.run_id,
            func.count().label("count"),
            func.bit_xor(each).label("digest"),
        )
        .join(Step, Step.id == Result.step_id)
        .join(Run, Run.id == Result.run_id)
        .where(Run.drive_id.in_(drive_ids), Run.status == "done")
        .group_by(Result.run_id)
        .subquery()
    )


def _rows(session: Session, drive_ids: list[int]) -> Sequence[Any]:
    """Every result of those runs as (metric id, drive id, run id, value, unit), oldest run
    first. Plain columns only, fetched all at once: ~7,000 rows for 10 drives over the whole
    suite. Grouping them in SQL instead (an ordered array per metric and drive) took
    PostgreSQL three times as long as this query and the grouping in Python together."""
    query = (
        select(
            Run.plan + ":" + Step.name + ":" + Result.metric,
            Run.drive_id,
            Result.run_id,
            Result.value,
            Result.unit,
        )
        .join(Step, Step.id == Result.step_id)
        .join(Run, Run.id == Result.run_id)
        .where(Run.drive_id.in_(drive_ids), Run.status == "done")
        .order_by(Run.finished_at, Result.run_id)
    )
    # The driver's tuples: a Row object for each of them cost more than the fetch.
    result = session.connection().execute(query)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def _conditions(run: Any, drive: DriveSample) -> dict[str, Any]:
    """What changes the numbers, from a row of _runs (None where the JSON lacks it)."""
    prewrite = None if run.prewrite is None else run.prewrite == "true"
    op = run.op_percent
    return {
        # What the drive reported when the run started, else what was registered.
        "firmware": run.firmware or drive.firmware,
        "drive state before the test": None
        if prewrite is None
        else ("pre-written" if prewrite else "as found"),
        "fio version": run.fio_version,
        "ioengine": run.ioengine,
        "OP": (None if op in (None, "null") else int(float(op))) if run.has_op_percent else 0,
        "host": run.hostname,
        # a count of resumes, or a list of them: either way, none is 0, [] or absent
        "resumed": run.resumes not in (None, "0", "[]", "null", "false"),
    }


def _check(drive_ids: list[int], aggregate: str) -> None:
    if not drive_ids:
        raise InvalidParams("choose at least one drive: ?drives=1,2,3", field="drives")
    if aggregate not in ("latest", "mean"):
        raise InvalidParams("aggregate is latest or mean", field="aggregate")


def compare(
    session: Session,
    drive_ids: list[int],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str = "latest",
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    _check(drive_ids, aggregate)
    drives = _drives(session, drive_ids, hide_embargoed)
    runs = _runs(session, drive_ids)
    return _compare(session, drive_ids, drives, runs, metrics, under_review, aggregate)


# Answers of GET /api/compare, serialised, by everything they are computed from (see
# compare_json): the most recently used ones.
CACHE_SIZE = 32
_cache: OrderedDict[Hashable, bytes] = OrderedDict()
_cache_lock = threading.Lock()
_PLAIN = parts.PLAIN
# Each drive's part of those answers (compare_parts), by everything it is computed from: the
# most recently used ones (about 200 KB each for a drive with the whole suite run three
# times: 128 of them hold about as much as 32 whole answers for 10 drives).
PART_CACHE_SIZE = 128
_parts: OrderedDict[Hashable, parts.Part] = OrderedDict()
_parts_lock = threading.Lock()


def compare_json(
    session: Session,
    drive_ids: list[int],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str = "latest",
    *,
    hide_embargoed: bool = False,
) -> bytes:
    """compare() as JSON, from caches of whole answers and of each drive's part of them.

    A drive's part is keyed by everything it is computed from: the database, what the answer
    shows of the drive (label, flags, the embargo as of now) and its firmware, and each of
    its finished runs' conditions, finish time, plan and a digest of its results with their
    step names (see _runs). A run that finishes, is resumed or deleted, a result corrected, a
    step renamed, a drive renamed or embargoed: each changes the drive's key, so a part is
    never stale. A whole answer is keyed by the request and its drives' keys with their
    model names (the warnings name them). Looking up either costs the drives' and runs'
    queries (the digest is summed by PostgreSQL); an answer not cached whole fetches the
    results of the drives whose part is not cached, computes their parts, and assembles the
    answer from the parts: the rows of each metric sorted, the warnings worked out from the
    runs' conditions, the rows' JSON joined."""
    _check(drive_ids, aggregate)
    drives = _drives(session, drive_ids, hide_embargoed)
    runs = _runs(session, drive_ids, fingerprint=True)
    url = session.connection().engine.url.render_as_string()
    runs_of: dict[int, list[Any]] = {drive_id: [] for drive_id in drives}
    for run in runs:
        runs_of[run.drive_id].append(run)
    # What a row shows of its drive (label, simulated, embargoed as of now).
    shown = {
        d.id: (drive_label(d), d.model.simulated, under_embargo(d.model)) for d in drives.values()
    }
    keys = {
        d.id: (url, d.id, *shown[d.id], d.firmware, tuple(tuple(run) for run in runs_of[d.id]))
        for d in drives.values()
    }
    key = (
        url,
        tuple(drive_ids),
        None if not metrics else frozenset(metrics),
        under_review,
        aggregate,
        tuple((keys[drive_id], drives[drive_id].model.model) for drive_id in sorted(drives)),
    )
    with _cache_lock:
        body = _cache.get(key)
        if body is not None:
            _cache.move_to_end(key)
            return body
    found, settled = _drive_parts(session, drives, runs_of, shown, keys)
    body = _assemble(drives, found, metrics, under_review, aggregate)
    if settled:
        with _cache_lock:
            _cache[key] = body
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return body


def _drive_parts(
    session: Session,
    drives: dict[int, DriveSample],
    runs_of: dict[int, list[Any]],
    shown: dict[int, tuple[str, bool, bool]],
    keys: Mapping[int, Hashable],
) -> tuple[dict[int, parts.Part], bool]:
    """Each drive's part, from the cache or computed from its results, and whether the
    results were those the keys hold (else nothing computed from them is cached)."""
    found: dict[int, parts.Part] = {}
    with _parts_lock:
        for drive_id, key in keys.items():
            part = _parts.get(key)
            if part is not None:
                _parts.move_to_end(key)
                found[drive_id] = part
    todo = [drive_id for drive_id in keys if drive_id not in found]
    if not todo:
        return found, True
    rows = _rows(session, todo)
    # The results come from a later statement than the runs in the keys: a run that finished
    # meanwhile is left out, and the parts are kept only if every run has as many results as
    # its key counted. (The app changes no result of a finished run; one changed by hand in
    # the milliseconds between the two statements, and later changed back, would go unseen.)
    expected = {run.id: run.count or 0 for drive_id in todo for run in runs_of[drive_id]}
    counted = Counter(map(itemgetter(2), rows))
    settled = counted.keys() <= expected.keys() and all(
        counted[run_id] == n for run_id, n in expected.items()
    )
    if not counted.keys() <= expected.keys():
        rows = [row for row in rows if row[2] in expected]
    grouped = parts.group(rows, todo)
    computed = {}
    for drive_id in todo:
        d = drives[drive_id]
        head = parts.head(drive_id, *shown[drive_id])
        runs = [(run.id, run.finished_at, _conditions(run, d)) for run in runs_of[drive_id]]
        found[drive_id] = computed[drive_id] = parts.build(drive_id, head, runs, grouped[drive_id])
    if settled:
        with _parts_lock:
            for drive_id, part in computed.items():
                _parts[keys[drive_id]] = part
            while len(_parts) > PART_CACHE_SIZE:
                _parts.popitem(last=False)
    return found, settled


def _assemble(
    drives: dict[int, DriveSample],
    found: dict[int, parts.Part],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str,
) -> bytes:
    """The answer compare() gives, as JSON, from the drives' parts."""
    wanted = set(metrics) if metrics else None
    latest = aggregate == "latest"
    met: dict[str, list[parts.Entry]] = {}
    heads: dict[int, bytes] = {}  # the row up to its value
    conditions: dict[int, tuple[tuple[str, Any], ...]] = {}
    for drive_id, part in found.items():
        heads[drive_id] = (
            part.head + (b"true" if drive_id == under_review else b"false") + b',"value":'
        )
        conditions.update(part.conditions)
        for mid, entry in part.metrics.items():
            if wanted is not None and mid not in wanted:
                continue
            entries = met.get(mid)
            if entries is None:
                met[mid] = [entry]
            else:
                entries.append(entry)
    warned: dict[frozenset[tuple[int, tuple[int, ...]]], bytes] = {}
    out = []
    for mid in sorted(met):
        entries = met[mid]
        # The drives in the order compare() meets them, the unit of the latest result.
        entries.sort(key=itemgetter(parts.FIRST))
        unit = max(entries, key=itemgetter(parts.LAST))[parts.UNIT]
        lower = lower_is_better(mid, unit)
        # Best first, as compare() sorts its rows (a stable sort: ties keep the drives' order).
        if latest:
            ranked = sorted(entries, key=_latest_value, reverse=not lower)
            rows_json = [
                heads[e[parts.DRIVE]] + e[parts.LATEST_JSON] + e[parts.REST] for e in ranked
            ]
        else:
            ranked = sorted(entries, key=_mean_value, reverse=not lower)
            rows_json = [heads[e[parts.DRIVE]] + e[parts.MEAN_JSON] + e[parts.REST] for e in ranked]
        key = frozenset((e[parts.DRIVE], e[parts.RUN_IDS]) for e in entries)
        warnings = warned.get(key)
        if warnings is None:
            runs_of = {e[parts.DRIVE]: e[parts.RUN_IDS] for e in entries}
            warnings = warned[key] = parts.json_of(_warnings(runs_of, conditions, drives))
        out.append(
            b"".join(
                (
                    b'{"metric":',
                    parts.json_str(mid),
                    b',"unit":',
                    parts.json_str(unit),
                    b',"lower_is_better":',
                    b"true" if lower else b"false",
                    b',"rows":[',
                    b",".join(rows_json),
                    b'],"warnings":',
                    warnings,
                    b"}",
                )
            )
        )
    missing = sorted(wanted - set(met)) if wanted else []
    return b"".join(
        (
            b'{"aggregate":',
            parts.json_str(aggregate),
            b',"metrics":[',
            b",".join(out),
            b'],"missing":',
            parts.json_of(missing),
            b"}",
        )
    )


def _latest_value(entry: parts.Entry) -> float:
    return float(entry[parts.LATEST])


def _mean_value(entry: parts.Entry) -> float:
    # None (no finite value) fails here as it does in compare()
    return float(entry[parts.MEAN])  # type: ignore[arg-type]


def _compare(
    session: Session,
    drive_ids: list[int],
    drives: dict[int, DriveSample],
    runs: list[Any],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str,
) -> dict[str, Any]:
    wanted = set(metrics) if metrics else None
    # Per run once, not per result: its conditions (as the items warnings compare) and what
    # a row states about its latest run.
    conditions: dict[int, tuple[tuple[str, Any], ...]] = {}
    provenance: dict[int, tuple[Any, Any, Any]] = {}
    for run in runs:
        cond = _conditions(run, drives[run.drive_id])
        conditions[run.id] = tuple(cond.items())
        provenance[run.id] = (cond["firmware"], cond["fio version"], run.finished_at)
    # metric -> drive -> (values, run ids), oldest run first; drives in the order first met
    groups: dict[str, dict[int, tuple[list[float], list[int]]]] = {}
    units: dict[str, str] = {}
    for mid, drive_id, run_id, value, unit in _rows(session, drive_ids):
        per_drive = groups.get(mid)
        if per_drive is None:
            if wanted is not None and mid not in wanted:
                continue
            per_drive = groups[mid] = {}
        found = per_drive.get(drive_id)
        if found is None:
            per_drive[drive_id] = ([value], [run_id])
        else:
            found[0].append(value)
            found[1].append(run_id)
        units[mid] = unit  # the latest result's
    # Per drive once, not per row: how the drive is labelled and flagged.
    shown = {
        d.id: (drive_label(d), d.model.simulated, under_embargo(d.model)) for d in drives.values()
    }
    # Metrics measured in the same runs (every metric of a step, of a plan) have the same
    # conditions, hence the same warnings: worked out once per set of runs.
    warned: dict[frozenset[tuple[int, tuple[int, ...]]], list[str]] = {}
    out = []
    for mid in sorted(groups):
        per_drive = groups[mid]
        rows: list[dict[str, Any]] = []
        for drive_id, (numbers, run_ids) in per_drive.items():
            label, simulated, embargoed = shown[drive_id]
            stats = variation(numbers)
            firmware, fio_version, finished_at = provenance[run_ids[-1]]
            rows.append(
                {
                    "drive_id": drive_id,
                    "label": label,
                    "simulated": simulated,
                    "embargoed": embargoed,
                    "under_review": drive_id == under_review,
                    "value": numbers[-1] if aggregate == "latest" else stats["mean"],
                    "runs": stats,
                    "firmware": firmware,
                    "fio_version": fio_version,
                    "finished_at": finished_at,
                }
            )
        unit = units[mid]
        lower = lower_is_better(mid, unit)
        rows.sort(key=lambda r: float(r["value"]), reverse=not lower)
        # A drive's run ids come oldest first, so the same runs make the same key.
        key = frozenset((d, tuple(runs)) for d, (_v, runs) in per_drive.items())
        if key not in warned:
            warned[key] = _warnings(
                {drive_id: run_ids for drive_id, (_v, run_ids) in per_drive.items()},
                conditions,
                drives,
            )
        out.append(
            {
                "metric": mid,
                "unit": unit,
                "lower_is_better": lower,
                "rows": rows,
                "warnings": list(warned[key]),
            }
        )
    missing = sorted(wanted - set(groups)) if wanted else []
    return {"aggregate": aggregate, "metrics": out, "missing": missing}


def _warnings(
    runs_of: Mapping[int, Sequence[int]],
    conditions: dict[int, tuple[tuple[str, Any], ...]],
    drives: dict[int, DriveSample],
) -> list[str]:
    """Conditions that change the numbers and differ between the compared results: those of
    the runs (by drive, in the order the drives were met) that a metric's rows come from."""
    seen: dict[str, dict[Any, set[str]]] = defaultdict(lambda: defaultdict(set))
    firmware: dict[str, set[Any]] = defaultdict(set)
    for drive_id, run_ids in runs_of.items():
        name = drives[drive_id].model.model
        # A drive's runs mostly share their conditions: each distinct set of conditions is
        # looked at once.
        for cond_items in {conditions[r] for r in run_ids}:
            for key, value in cond_items:
                if key == "firmware":
                    firmware[name].add(value)
                else:
                    seen[key][value].add(name)
    warnings = []
    # Different products have different firmware by nature; the same product (one drive's
    # runs, or two samples of a model) measured on different firmware is worth a warning.
    for name, versions in sorted(firmware.items()):
        if len(versions) > 1:
            listed = ", ".join(sorted(str(v) for v in versions))
            warnings.append(f"{name} was measured with different firmware: {listed}")
    for key, by_value in seen.items():
        if len(by_value) < 2:
            continue
        if key == "resumed":
            names = ", ".join(sorted(by_value[True]))
            warnings.append(f"some runs were resumed after an interruption: {names}")
            continue
        parts = "; ".join(f"{v} ({', '.join(sorted(names))})" for v, names in by_value.items())
        warnings.append(f"measured with different {key}: {parts}")
    sims = {drives[d].model.simulated for d in runs_of}
    if len(sims) == 2:
        warnings.append("simulated drives are compared with real ones")
    return warnings


def pair(session: Session, a: int, b: int, *, hide_embargoed: bool = False) -> dict[str, Any]:
    """Every metric both drives have, side by side, with the difference in percent."""
    result = compare(session, [a, b], None, None, hide_embargoed=hide_embargoed)
    rows = []
    for m in result["metrics"]:
        by = {r["drive_id"]: r for r in m["rows"]}
        if a not in by or b not in by:
            continue
        va, vb = by[a]["value"], by[b]["value"]
        rows.append(
            {
                "metric": m["metric"],
                "unit": m["unit"],
                "lower_is_better": m["lower_is_better"],
                "a": va,
                "b": vb,
                "diff_pct": None if va == 0 else (vb - va) / abs(va) * 100,
                "warnings": m["warnings"],
            }
        )
    drives = _drives(session, [a, b], hide_embargoed)
    return {
        "a": {"drive_id": a, "label": drive_label(drives[a])},
        "b": {"drive_id": b, "label": drive_label(drives[b])},
        "metrics": rows,
    }


def per_dollar(
    session: Session,
    drive_ids: list[int],
    metric: str,
    currency: str,
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """A metric per unit of price (e.g. MB/s per dollar): each drive's value divided by its
    model's lowest current price. Drives whose model has no price (simulated drives never do)
    are listed apart, not guessed."""
    from backend.prices.service import lowest_current_prices

    result = compare(session, drive_ids, [metric], None, hide_embargoed=hide_embargoed)
    if not result["metrics"]:
        raise InvalidParams(f"no drive among {drive_ids} has a result for {metric}", field="metric")
    drives = _drives(session, drive_ids, hide_embargoed)
    prices = lowest_current_prices(session, currency, {d.model_id for d in drives.values()})
    m = result["metrics"][0]
    rows, unpriced = [], []
    for row in m["rows"]:
        price = prices.get(drives[row["drive_id"]].model_id)
        if price is None:
            unpriced.append(row["label"])
            continue
        value = row["value"] if not m["lower_is_better"] else 1 / row["value"]
        rows.append(
            {
                **row,
                "price": float(price.price),
                "currency": currency,
                "price_source": price.source,
                "price_date": price.observed_on.isoformat(),
                "per_unit_price": value / float(price.price),
            }
        )
    rows.sort(key=lambda r: float(r["per_unit_price"]), reverse=True)
    unit = (
        f"{m['unit']} per {currency}"
        if not m["lower_is_better"]
        else f"1/{m['unit']} per {currency}"
    )
    return {"metric": metric, "unit": unit, "rows": rows, "unpriced": unpriced}
