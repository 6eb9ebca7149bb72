"""Comparisons across drives: one row per drive for each metric, ready for a sorted bar chart,
with run-to-run variation and warnings when results were measured under different conditions.

A metric is named `plan:step:metric`, e.g. `four-corners:randread-4k-qd3:read_mbps`, with the
variant of its run where it has one (`consistency:consistency-4k-qd32@op25:...`, see
backend.results.conditions). Four queries answer any comparison, however many drives and
metrics: the drives, their runs' conditions (picked out of the runs' JSON by PostgreSQL, once
per run), their steps' conditions (from the steps' job options), and the results.
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from operator import attrgetter, itemgetter
from typing import Any

from sqlalchemy import ARRAY, Integer, any_, bindparam, func, select
from sqlalchemy.orm import Session, joinedload

from backend.analysis import significance
from backend.analysis.variation import variation
from backend.core.errors import InvalidParams, NotFound
from backend.drives.models import DriveSample
from backend.drives.service import drive_label, under_embargo
from backend.plans.bursts import BURST_ROLE
from backend.results import compare_parts as parts
from backend.results import conditions as cond
from backend.results import digests
from backend.results.models import Result
from backend.results.names import is_performance, lower_is_better
from backend.results.names import names as metric_names
from backend.runs.models import Run, Step


def metric_id(plan: str, step: str, metric: str) -> str:
    return f"{plan}:{step}:{metric}"


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
        raise NotFound(
            f"no drive with id {', '.join(map(str, missing))}: see GET /api/drives", field="drives"
        )
    return found


def _runs(session: Session, drive_ids: list[int], fingerprint: bool = False) -> list[Any]:
    """The drives' finished runs, with the parameters and environment entries their
    conditions are read from: picked out by PostgreSQL, as a run's environment (drive and
    host info, SMART before and after) can be tens of KB of JSON. With fingerprint, also
    the count and digest of each run's results and step names that triggers keep on the run
    (see Run.results_digest): what a cached comparison is keyed on."""
    env, params = Run.environment, Run.params
    query = select(
        Run.id,
        Run.drive_id,
        Run.plan,
        Run.finished_at,
        # As text (->>), turned into Python values here: decoding each JSON value with
        # json.loads cost more than the query (6,000 values for 10 drives).
        env["drive"]["firmware"].as_string().label("firmware"),
        env["registered_firmware"].as_string().label("registered_firmware"),
        env["host"]["fio_version"].as_string().label("fio_version"),
        env["host"]["hostname"].as_string().label("hostname"),
        env["resumes"].as_string().label("resumes"),
        params["ioengine"].as_string().label("ioengine"),
        params.has_key("op_percent").label("has_op_percent"),
        params["op_percent"].as_string().label("op_percent"),
        params["pattern"].as_string().label("pattern"),
    ).where(Run.drive_id.in_(drive_ids), Run.status == "done")
    if fingerprint:
        query = query.add_columns(
            Run.results_count.label("count"), Run.results_digest.label("digest")
        ).order_by(Run.id)
    return list(session.connection().execute(query))


def _ids(ids: Sequence[int]) -> Any:
    """Ids as one array parameter: an IN list of hundreds of parameters cost more to render
    than the query took."""
    return bindparam("ids", list(ids), type_=ARRAY(Integer))


def _steps(session: Session, run_ids: Sequence[int]) -> Sequence[Any]:
    """The steps of those runs in order, with the job options their conditions are read from
    and the sha256 of their job file: one query, plain rows."""
    fields = [Step.params[f].as_string() for f in cond.STEP_FIELDS]
    job_hash = func.encode(func.sha256(func.convert_to(Step.job_file, "UTF8")), "hex")
    query = (
        select(Step.id, Step.run_id, Step.kind, Step.name, Step.status, job_hash, *fields)
        .where(Step.run_id == any_(_ids(run_ids)))
        .order_by(Step.run_id, Step.idx)
    )
    result = session.connection().execute(query)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def _rows(session: Session, run_ids: Sequence[int]) -> Sequence[Any]:
    """Every result of those runs as (metric id, drive id, run id, value, unit, step id),
    oldest run first. Plain columns only, fetched all at once: ~7,000 rows for 10 drives
    over the whole suite. Grouping them in SQL instead (an ordered array per metric and
    drive) took PostgreSQL three times as long as this query and the grouping in Python
    together. The ids are without variants (see _with_variants)."""
    query = (
        select(
            Run.plan + ":" + Step.name + ":" + Result.metric,
            Run.drive_id,
            Result.run_id,
            Result.value,
            Result.unit,
            Result.step_id,
        )
        .join(Step, Step.id == Result.step_id)
        .join(Run, Run.id == Result.run_id)
        # The runs named for each table: else PostgreSQL reads every step and run of the
        # archive to join the few results (hash joins over sequential scans).
        .where(
            Result.run_id == any_(_ids(run_ids)),
            Step.run_id == any_(_ids(run_ids)),
            Run.id == any_(_ids(run_ids)),
            # A QD1 burst's own figures stay on its run (its test's step has their mean and
            # spread): 80 bursts would be some 800 metrics per drive here.
            func.coalesce(Step.params["role"].as_string(), "") != BURST_ROLE,
        )
        .order_by(Run.finished_at, Result.run_id)
    )
    # The driver's tuples: a Row object for each of them cost more than the fetch.
    result = session.connection().execute(query)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def _with_variants(rows: Sequence[Any], runs: Sequence[Any]) -> Sequence[Any]:
    """The rows with the variant of their run in their metric id (conditions.variant): an
    OP 25% consistency run's results are other metrics than an OP 0% run's."""
    varied = {
        run.id: {"op_percent": run.op_percent, "pattern": run.pattern}
        for run in runs
        if cond.variant({"op_percent": run.op_percent, "pattern": run.pattern}, "")
    }
    if not varied:
        return rows
    out = []
    for row in rows:
        params = varied.get(row[2])
        if params is None:
            out.append(row)
            continue
        head, _, name = row[0].rpartition(":")
        suffix = cond.variant(params, head.partition(":")[2])
        out.append((f"{head}{suffix}:{name}", *row[1:]) if suffix else row)
    return out


def _run_info(run: Any, drive: DriveSample) -> tuple[parts.RunInfo, dict[str, Any]]:
    """What a row states about a run (a row of _runs), and the run's own conditions."""
    # What the drive reported when the run started, else what was registered then (runs
    # before the api recorded it: what is registered now).
    firmware = run.firmware or run.registered_firmware or drive.firmware
    info = parts.RunInfo(
        finished_at=run.finished_at,
        firmware=firmware,
        fio_version=run.fio_version,
        host=run.hostname,
        # a count of resumes, or a list of them: either way, none is 0, [] or absent
        resumed=run.resumes not in (None, "0", "[]", "null", "false"),
    )
    return info, cond.run_conditions(
        op_percent=run.op_percent,
        has_op_percent=run.has_op_percent,
        fio_version=run.fio_version,
        ioengine=run.ioengine,
        firmware=firmware,
        simulated=drive.model.simulated,
    )


def _step_conditions(
    steps: Sequence[Any], run_conditions: Mapping[int, dict[str, Any]]
) -> dict[int, tuple[cond.Items, str | None]]:
    """Each step's conditions (its own and its run's, one tuple for equal ones) and job file
    hash, from the rows of _steps (of the runs in run_conditions)."""
    interned: dict[cond.Items, cond.Items] = {}
    out: dict[int, tuple[cond.Items, str | None]] = {}
    n = len(cond.STEP_FIELDS)
    by_run: dict[int, list[Any]] = defaultdict(list)
    for step in steps:
        by_run[step[1]].append(step)
    for run_id, rows in by_run.items():
        run_cond = run_conditions.get(run_id)
        if run_cond is None:
            continue  # finished after the runs were read
        befores = cond.state_before([(r[2], r[3], r[6], r[4] == "done") for r in rows])
        for row, before in zip(rows, befores, strict=True):
            fields = dict(zip(cond.STEP_FIELDS, row[6 : 6 + n], strict=True))
            items = cond.merged(cond.step_conditions(fields, before), run_cond)
            out[row[0]] = (interned.setdefault(items, items), row[5])
    return out


def _check(drive_ids: list[int], aggregate: str) -> None:
    if not drive_ids:
        raise InvalidParams("choose at least one drive: ?drives=1,2,3", field="drives")
    if aggregate not in ("latest", "mean"):
        raise InvalidParams("aggregate is latest or mean", field="aggregate")


def _shown(drives: Mapping[int, DriveSample]) -> dict[int, tuple[str, str | None, bool, bool]]:
    """What a row shows of its drive: label, short name, simulated, embargoed as of now."""
    return {
        key: (drive_label(d), d.short_name, d.model.simulated, under_embargo(d.model))
        for key, d in drives.items()
    }


def _names(drives: Mapping[int, DriveSample]) -> dict[int, str]:
    """How warnings name a drive: its short name, else its model's."""
    return {key: d.short_name or d.model.model for key, d in drives.items()}


def compare(
    session: Session,
    drive_ids: list[int],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str = "latest",
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """The comparison computed afresh, without the caches (compare_json uses them)."""
    _check(drive_ids, aggregate)
    drives = _drives(session, drive_ids, hide_embargoed)
    runs = _runs(session, drive_ids)
    return _compare(session, drive_ids, drives, runs, metrics, under_review, aggregate)


# Each plan's section of the answers of GET /api/compare (the JSON of its metrics), by the
# request and the parts it is assembled from (see compare_json): the most recently used ones
# (about 300 KB for 10 drives with the whole suite run three times, of about 2.9 MB for all
# nine plans).
CACHE_SIZE = 256
_cache: OrderedDict[Hashable, list[tuple[str, bytes]]] = OrderedDict()
_cache_lock = threading.Lock()
_PLAIN = parts.PLAIN
# Each drive's part of those answers for one plan (compare_parts), by everything it is
# computed from: the most recently used ones (about 200 KB for a drive with the whole suite
# run three times, over its nine plans).
PART_CACHE_SIZE = 1024
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
    rows: Sequence[str] | None = None,
) -> bytes:
    """compare() as JSON, from caches of each plan's section of it and of each drive's part
    of a plan.

    A metric is one plan's (its id begins with the plan), so a drive's rows of a plan's
    metrics are computed from its runs of that plan alone: a part. A part is keyed by
    everything it is computed from: the database, what the answer shows of the drive (label,
    short name, flags, the embargo as of now) and its firmware, and each of the drive's
    finished runs of the plan: their conditions, finish time, and the count and digest of
    their results and step names that triggers keep on each run (see _runs). A run that
    finishes, is resumed or deleted, a result corrected, added or deleted, a step renamed, a
    drive renamed or embargoed (by the app or in SQL): each changes a key, so a part is never
    stale. Looking parts up costs the drives' and runs' queries; the parts not cached are
    computed from their runs' steps and results, fetched by run. A plan's section (its
    metrics' JSON: the rows of each metric sorted and the ones measured unlike the others set
    apart, the warnings worked out from the rows' conditions) is keyed by the request and the
    parts it is assembled from, and the answer joins the sections: an answer after one run
    changed computes that run's part and its plan's section only.

    With `rows` (metric ids or fnmatch patterns of them): every metric is listed as compare()
    gives it, but only the metrics matching one of them carry their rows; the others' `rows`
    are empty (a page that draws a few metrics' bars and lists the others by name)."""
    _check(drive_ids, aggregate)
    drives = _drives(session, drive_ids, hide_embargoed)
    runs = _runs(session, drive_ids, fingerprint=True)
    url = session.connection().engine.url.render_as_string()
    runs_of: dict[tuple[int, str], list[Any]] = defaultdict(list)
    for run in runs:
        runs_of[run.drive_id, run.plan].append(run)
    shown = _shown(drives)
    keys = {
        (drive_id, plan): (
            url,
            drive_id,
            *shown[drive_id],
            drives[drive_id].firmware,
            tuple(tuple(run) for run in plan_runs),
        )
        for (drive_id, plan), plan_runs in runs_of.items()
    }
    found, settled = _plan_parts(session, drives, runs_of, shown, keys)
    body = _assemble(_names(drives), found, metrics, under_review, aggregate, keep=settled)
    return body if rows is None else only_rows_of(body, rows)


ROWS_AT = b',"rows":['
ROWS_END = b'],"warnings":['


def only_rows_of(body: bytes, patterns: Sequence[str]) -> bytes:
    """A comparison's JSON whose metrics not matching any of `patterns` (ids or fnmatch
    patterns) have no rows. Cut from the bytes: in a metric's JSON its rows are the list
    after the first `,"rows":[` and before the last `],"warnings":[` (keys and strings cannot
    hold an unescaped quote), so nothing is parsed."""
    data_at = body.index(b'"metrics":[') + len(b'"metrics":[')
    end = body.rindex(b'],"missing":')
    head, tail = body[:data_at], body[end:]
    out: list[bytes] = []
    for mid, js in _metric_json(body[data_at:end]):
        if not any(fnmatchcase(mid, p) for p in patterns):
            js = js[: js.index(ROWS_AT) + len(ROWS_AT)] + js[js.rindex(ROWS_END) :]
        out.append(js)
    return head + b",".join(out) + tail


def _metric_json(metrics: bytes) -> Iterable[tuple[str, bytes]]:
    """Each metric's id and JSON in the metrics list of a comparison's JSON: each begins
    with `{"metric":`, which no string can hold unescaped."""
    marker = b'{"metric":'
    starts = []
    at = metrics.find(marker)
    while at >= 0:
        starts.append(at)
        at = metrics.find(marker, at + 1)
    for i, start in enumerate(starts):
        js = metrics[start : starts[i + 1] - 1 if i + 1 < len(starts) else len(metrics)]
        mid_end = js.index(b'"', len(marker) + 1)
        yield json.loads(js[len(marker) : mid_end + 1]), js


def _plan_parts(
    session: Session,
    drives: dict[int, DriveSample],
    runs_of: Mapping[tuple[int, str], list[Any]],
    shown: dict[int, tuple[str, str | None, bool, bool]],
    keys: Mapping[tuple[int, str], Hashable],
) -> tuple[list[parts.Part], bool]:
    """Each drive's part for each of its plans, from the cache or computed from the results
    of its runs of that plan, and whether the results were those the keys hold (else nothing
    computed from them is cached)."""
    found: list[parts.Part] = []
    todo: list[tuple[int, str]] = []
    with _parts_lock:
        for group, key in keys.items():
            part = _parts.get(key)
            if part is None:
                todo.append(group)
            else:
                _parts.move_to_end(key)
                found.append(part)
    if not todo:
        return found, True
    todo_runs = [run for group in todo for run in runs_of[group]]
    # Each run's digest (backend.results.digests) where it was made from the results the
    # key holds; the steps and results of any other run are read as they are now.
    steps, rows, stale = digests.read(session, todo_runs)
    if stale:
        stale_ids = [run.id for run in stale]
        steps = [*steps, *_steps(session, stale_ids)]
        read_now = _rows(session, stale_ids)
        rows = digests.merge_rows(todo_runs, rows, read_now)
        # The results come from a later statement than the runs in the keys: the parts are
        # kept only if every run has as many results as its key counted. (A result changed
        # by hand in the milliseconds between the two statements, and later changed back,
        # would go unseen.) A digest is used only with the key's count and digest.
        counted = Counter(map(itemgetter(2), read_now))
        settled = all(counted[run.id] == run.count for run in stale)
    else:
        settled = True
    grouped = parts.group(
        _with_variants(rows, todo_runs), {run.id: (run.drive_id, run.plan) for run in todo_runs}
    )
    info: dict[int, parts.RunInfo] = {}
    run_cond: dict[int, dict[str, Any]] = {}
    for run in todo_runs:
        info[run.id], run_cond[run.id] = _run_info(run, drives[run.drive_id])
    step_cond = _step_conditions(steps, run_cond)
    heads = {drive_id: parts.head(drive_id, *shown[drive_id]) for drive_id, _plan in todo}
    computed = {}
    for group in todo:
        drive_id = group[0]
        mine = {run.id: info[run.id] for run in runs_of[group]}
        part = parts.build(drive_id, group[1], heads[drive_id], mine, step_cond, grouped[group])
        found.append(part)
        computed[keys[group]] = part
    if settled:
        with _parts_lock:
            _parts.update(computed)
            while len(_parts) > PART_CACHE_SIZE:
                _parts.popitem(last=False)
    return found, settled


def _ranked(
    order: list[Any], conds: list[cond.Items], drive_ids: list[int], under_review: int | None
) -> list[tuple[Any, str | None]]:
    """The rows (best first) with why each is set apart, the ones set apart last."""
    if len({cond.sets_apart(c) for c in conds}) == 1:
        return [(row, None) for row in order]  # measured alike: none is set apart
    ref = cond.reference(list(zip(drive_ids, conds, strict=True)), under_review)
    reasons = [cond.apart(c, ref) for c in conds]
    kept = [(row, None) for row, why in zip(order, reasons, strict=True) if why is None]
    return kept + [(row, why) for row, why in zip(order, reasons, strict=True) if why]


def _metric_head(mid: str, unit: str, lower: bool) -> dict[str, Any]:
    return {
        "metric": mid,
        "names": metric_names(mid),
        "unit": unit,
        "lower_is_better": lower,
        "performance": is_performance(mid),
    }


def _metric_conditions(
    entries: Sequence[tuple[int, cond.Items, tuple[Any, bool]]], names: Mapping[int, str]
) -> dict[str, Any]:
    """A metric's shared and differing conditions and its warnings, from its rows' drives,
    conditions and host notes."""
    shared, differing = cond.common(c for _d, c, _n in entries)
    warnings = cond.warnings(
        [(names[d], c) for d, c, _n in entries],
        [(names[d], host, resumed) for d, _c, (host, resumed) in entries],
    )
    return {"conditions": shared, "differing": differing, "warnings": warnings}


def _assemble(
    names: Mapping[int, str],
    found: list[parts.Part],
    metrics: list[str] | None,
    under_review: int | None,
    aggregate: str,
    *,
    keep: bool,
) -> bytes:
    """The answer compare() gives, as JSON, from the parts: each plan's section from the
    cache or computed (and kept if `keep`), the metrics of all in order."""
    wanted = frozenset(metrics) if metrics else None
    by_plan: dict[str, list[parts.Part]] = defaultdict(list)
    for part in found:
        by_plan[part.plan].append(part)
    out: list[tuple[str, bytes]] = []
    for plan, plan_parts in by_plan.items():
        plan_parts.sort(key=attrgetter("drive_id"))
        # The drive under review matters to a section only if it has a part in it.
        review = under_review if any(p.drive_id == under_review for p in plan_parts) else None
        key = (
            plan,
            wanted,
            review,
            aggregate,
            tuple((p.serial, names[p.drive_id]) for p in plan_parts),
        )
        with _cache_lock:
            section = _cache.get(key)
            if section is not None:
                _cache.move_to_end(key)
        if section is None:
            section = _section(names, plan_parts, wanted, review, aggregate)
            if keep:
                with _cache_lock:
                    _cache[key] = section
                    while len(_cache) > CACHE_SIZE:
                        _cache.popitem(last=False)
        out += section
    # A plan's metric ids share its prefix: sorting them all orders the sections too.
    out.sort(key=itemgetter(0))
    missing = sorted(wanted - {mid for mid, _json in out}) if wanted else []
    return b"".join(
        (
            b'{"aggregate":',
            parts.json_str(aggregate),
            b',"metrics":[',
            b",".join(json for _mid, json in out),
            b'],"missing":',
            parts.json_of(missing),
            b"}",
        )
    )


def _section(
    names: Mapping[int, str],
    found: list[parts.Part],
    wanted: frozenset[str] | None,
    under_review: int | None,
    aggregate: str,
) -> list[tuple[str, bytes]]:
    """Each metric of the parts (of one plan) with its JSON, as compare() gives it."""
    latest = aggregate == "latest"
    met: dict[str, list[parts.Entry]] = {}
    heads: dict[int, bytes] = {}  # the row up to its set_apart
    for part in found:
        heads[part.drive_id] = part.head + (b"true" if part.drive_id == under_review else b"false")
        for mid, entry in part.metrics.items():
            if wanted is not None and mid not in wanted:
                continue
            entries = met.get(mid)
            if entries is None:
                met[mid] = [entry]
            else:
                entries.append(entry)
    described: dict[frozenset[tuple[int, cond.Items, tuple[Any, bool]]], tuple[bytes, bytes]] = {}
    value_at = parts.LATEST_JSON if latest else parts.MEAN_JSON
    shaped = []
    family: Family = []
    for mid, entries in met.items():
        # The drives in the order compare() meets them, the unit of the latest result.
        entries.sort(key=itemgetter(parts.FIRST))
        unit = max(entries, key=itemgetter(parts.LAST))[parts.UNIT]
        lower = lower_is_better(mid, unit)
        # Best first, as compare() sorts its rows (a stable sort: ties keep the drives' order).
        ranked = sorted(entries, key=_latest_value if latest else _mean_value, reverse=not lower)
        rows = _ranked(
            ranked, [e[parts.COND] for e in ranked], [e[parts.DRIVE] for e in ranked], under_review
        )
        review = next(
            (e for e, why in rows if why is None and e[parts.DRIVE] == under_review), None
        )
        if review is not None:
            higher = _higher_is_better(mid, lower)
            family += [
                ((mid, e[parts.DRIVE]), review[parts.KEPT], e[parts.KEPT], higher)
                for e, why in rows
                if why is None and e is not review
            ]
        shaped.append((mid, entries, unit, lower, rows))
    versus = _versus(family) if family else {}
    out = []
    for mid, entries, unit, lower, rows in shaped:
        rows_json = []
        for e, why in rows:
            pitted = versus.get((mid, e[parts.DRIVE]))
            rest = e[parts.REST]
            rows_json.append(
                b"".join(
                    (
                        heads[e[parts.DRIVE]],
                        b',"set_apart":',
                        _json_text(why),
                        b',"value":',
                        e[value_at],
                        rest[:-1],
                        b',"versus_review":',
                        b"null" if pitted is None else parts.json_of(pitted),
                        b"}",
                    )
                )
            )
        key = frozenset((e[parts.DRIVE], e[parts.COND], e[parts.NOTE]) for e in entries)
        about = described.get(key)
        if about is None:
            found_about = _metric_conditions(
                [(e[parts.DRIVE], e[parts.COND], e[parts.NOTE]) for e in entries], names
            )
            about = described[key] = (
                b',"conditions":'
                + parts.json_of(found_about["conditions"])
                + b',"differing":'
                + parts.json_of(found_about["differing"])
                + b',"rows":[',
                b'],"warnings":' + parts.json_of(found_about["warnings"]) + b"}",
            )
        head = parts.PLAIN.dump_json(_metric_head(mid, unit, lower))[:-1]
        out.append((mid, head + about[0] + b",".join(rows_json) + about[1]))
    return out


def _json_text(value: str | None) -> bytes:
    return b"null" if value is None else parts.json_str(value)


Family = list[tuple[Hashable, Sequence[float], Sequence[float], bool | None]]


def _versus(family: Family) -> dict[Hashable, dict[str, Any]]:
    """The drive under review against each other drive of each metric of one plan (the
    `versus_review` of their rows), from (key, the review's values, the drive's values, higher
    is better or None); the practical test's p adjusted over the whole family at once."""
    tests = [significance.welch(mine, theirs) for _k, mine, theirs, _h in family]
    qs = significance.adjust([t["p_practical"] if t else None for t in tests])
    out: dict[Hashable, dict[str, Any]] = {}
    for (key, mine, theirs, higher), test, q in zip(family, tests, qs, strict=True):
        out[key] = {
            "review_runs": sum(map(math.isfinite, mine)),
            "runs": sum(map(math.isfinite, theirs)),
            "diff_pct": test["diff_pct"] if test else None,
            "low_pct": test["low_pct"] if test else None,
            "high_pct": test["high_pct"] if test else None,
            "p": test["p"] if test else None,
            "q": q,
            "verdict": significance.verdict(test, q, higher),
        }
    return out


def _higher_is_better(mid: str, lower: bool) -> bool | None:
    """Only performance figures are called better or worse (not purge seconds, bytes moved)."""
    return (not lower) if is_performance(mid) else None


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
    names: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The comparison of the runs (rows of _runs), each counted to the drive its `drive_id`
    names: a key of `drives`. The article's firmware columns (backend.results.article) are
    one drive's runs given the id of their firmware's column; `names` then says how warnings
    name each column (else _names)."""
    wanted = set(metrics) if metrics else None
    column = {run.id: run.drive_id for run in runs}
    info: dict[int, parts.RunInfo] = {}
    run_cond: dict[int, dict[str, Any]] = {}
    for run in runs:
        info[run.id], run_cond[run.id] = _run_info(run, drives[run.drive_id])
    # A metric is one plan's (its id begins with the plan): only those plans' runs are read.
    plans = None if wanted is None else {m.partition(":")[0] for m in wanted}
    run_ids = [run.id for run in runs if plans is None or run.plan in plans]
    step_cond = _step_conditions(_steps(session, run_ids), run_cond)
    conds = {step_id: c for step_id, (c, _job) in step_cond.items()}
    # metric -> drive -> (values, run ids, step ids), oldest run first; drives in the order
    # first met
    groups: dict[str, dict[int, tuple[list[float], list[int], list[int]]]] = {}
    units: dict[str, str] = {}
    for mid, _drive_id, run_id, value, unit, step_id in _with_variants(
        _rows(session, run_ids), runs
    ):
        drive_id = column[run_id]
        per_drive = groups.get(mid)
        if per_drive is None:
            if wanted is not None and mid not in wanted:
                continue
            per_drive = groups[mid] = {}
        found = per_drive.get(drive_id)
        if found is None:
            per_drive[drive_id] = ([value], [run_id], [step_id])
        else:
            found[0].append(value)
            found[1].append(run_id)
            found[2].append(step_id)
        units[mid] = unit  # the latest result's
    shown = _shown(drives)
    names = _names(drives) if names is None else names
    out = []
    kept: dict[tuple[str, int], list[float]] = {}
    for mid in sorted(groups):
        per_drive = groups[mid]
        rows: list[dict[str, Any]] = []
        entries = []
        for drive_id, (numbers, run_ids, step_ids) in per_drive.items():
            label, short_name, simulated, embargoed = shown[drive_id]
            latest_cond, kept_values, kept_runs = parts.pooled(numbers, run_ids, step_ids, conds)
            stats = variation(kept_values)
            kept[mid, drive_id] = kept_values
            run = info[run_ids[-1]]
            entries.append(
                (drive_id, latest_cond, (run.host, any(info[r].resumed for r in kept_runs)))
            )
            rows.append(
                {
                    "drive_id": drive_id,
                    "label": label,
                    "short_name": short_name,
                    "simulated": simulated,
                    "embargoed": embargoed,
                    "under_review": drive_id == under_review,
                    "set_apart": None,
                    "value": numbers[-1] if aggregate == "latest" else stats["mean"],
                    "runs": stats,
                    "other_runs": len(numbers) - len(kept_values),
                    "run_id": run_ids[-1],
                    "firmware": run.firmware,
                    "fio_version": run.fio_version,
                    "finished_at": run.finished_at,
                    "job_sha256": step_cond[step_ids[-1]][1],
                    "conditions": dict(latest_cond),
                }
            )
        unit = units[mid]
        lower = lower_is_better(mid, unit)
        rows.sort(key=lambda r: float(r["value"]), reverse=not lower)
        by_drive = {d: c for d, c, _n in entries}
        ranked = []
        for row, why in _ranked(
            rows,
            [by_drive[r["drive_id"]] for r in rows],
            [r["drive_id"] for r in rows],
            under_review,
        ):
            row["set_apart"] = why
            ranked.append(row)
        about = _metric_conditions(entries, names)
        out.append(
            {
                **_metric_head(mid, unit, lower),
                "conditions": about["conditions"],
                "differing": about["differing"],
                "rows": ranked,
                "warnings": about["warnings"],
            }
        )
    # The drive under review against the others, each plan's metrics one family.
    families: dict[str, Family] = defaultdict(list)
    for metric in out:
        rows = [r for r in metric["rows"] if r["set_apart"] is None]
        review = next((r for r in rows if r["under_review"]), None)
        if review is None:
            continue
        higher = _higher_is_better(metric["metric"], metric["lower_is_better"])
        mine = kept[metric["metric"], review["drive_id"]]
        families[metric["metric"].partition(":")[0]] += [
            ((metric["metric"], r["drive_id"]), mine, kept[metric["metric"], r["drive_id"]], higher)
            for r in rows
            if r is not review
        ]
    versus = {k: v for family in families.values() for k, v in _versus(family).items()}
    for metric in out:
        for row in metric["rows"]:
            row["versus_review"] = versus.get((metric["metric"], row["drive_id"]))
    missing = sorted(wanted - set(groups)) if wanted else []
    return {"aggregate": aggregate, "metrics": out, "missing": missing}


def pair(session: Session, a: int, b: int, *, hide_embargoed: bool = False) -> dict[str, Any]:
    """Every metric both drives have, side by side, with the difference in percent and the
    conditions they were measured under where these differ; measured over another span or
    block size, the two are not ranked (`set_apart` says why). `versus` says whether B differs
    from A beyond their run-to-run noise (B as the drive under review)."""
    result = compare(session, [a, b], None, b, hide_embargoed=hide_embargoed)
    rows = []
    for m in result["metrics"]:
        by = {r["drive_id"]: r for r in m["rows"]}
        if a not in by or b not in by:
            continue
        ra, rb = by[a], by[b]
        va, vb = ra["value"], rb["value"]
        ca, cb = ra["conditions"], rb["conditions"]
        apart = [
            f"{key} {ca.get(key) or 'unknown'} vs {cb.get(key) or 'unknown'}"
            for key in cond.SETS_APART
            if key in m["differing"]
        ]
        rows.append(
            {
                "metric": m["metric"],
                "names": m["names"],
                "unit": m["unit"],
                "lower_is_better": m["lower_is_better"],
                "performance": m["performance"],
                "a": va,
                "b": vb,
                "diff_pct": None if va == 0 else (vb - va) / abs(va) * 100,
                "conditions": m["conditions"],
                "differing": {
                    key: (ra["conditions"].get(key), rb["conditions"].get(key))
                    for key in m["differing"]
                },
                "set_apart": "; ".join(apart) or None,
                "versus": None if apart else ra["versus_review"],
                "warnings": m["warnings"],
            }
        )
    drives = _drives(session, [a, b], hide_embargoed)

    def side(drive_id: int) -> dict[str, Any]:
        d = drives[drive_id]
        return {
            "drive_id": drive_id,
            "label": drive_label(d),
            "short_name": d.short_name,
            "simulated": d.model.simulated,
        }

    return {"a": side(a), "b": side(b), "metrics": rows}


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

    # From the caches of GET /api/compare (the same answer, as JSON): the Compare page asks
    # for both at once, and the comparison of one metric afresh cost as much as all of them
    # cached.
    result = json.loads(
        compare_json(session, drive_ids, [metric], None, hide_embargoed=hide_embargoed)
    )
    if not result["metrics"]:
        raise NotFound(f"no drive among {drive_ids} has a result for {metric}", field="metric")
    drives = _drives(session, drive_ids, hide_embargoed)
    prices = lowest_current_prices(session, currency, {d.model_id for d in drives.values()})
    m = result["metrics"][0]
    if m["lower_is_better"]:
        # Lower is better: value per dollar is 1 / value per dollar, which a 0 (no stall, no
        # time) cannot give.
        zero = [row["label"] for row in m["rows"] if not row["value"] > 0]
        if zero:
            raise InvalidParams(
                f"{metric} is better when lower, and {', '.join(zero)} scored 0: performance "
                "per dollar divides by the value; choose a metric where higher is better",
                field="metric",
            )
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
