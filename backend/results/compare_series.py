"""Chart series of a comparison: for each drive, the latest finished run of a plan and the
series of its charted steps, with the conditions and provenance an exported chart states.

One request per chart family, whatever the number of drives: the runs (one query), their
steps (one query) and, for time series, their samples (one query, plain rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from sqlalchemy import Integer, func, null, select
from sqlalchemy.dialects.postgresql import aggregate_order_by, distinct_on
from sqlalchemy.orm import Session, load_only

from backend.analysis.downsample import minmax_downsample
from backend.analysis.intervals import fold_short_tail_arrays
from backend.core.errors import InvalidParams
from backend.drives.service import drive_label
from backend.plans.base import parse_size
from backend.plans.mixed import STEP_ROLE as MIXED_STEP
from backend.plans.mixed import part_key, part_label
from backend.results import chart_digests
from backend.results import conditions as cond
from backend.results.compare import _drives
from backend.results.models import Result
from backend.results.series import log_points
from backend.results.service import STALL_ROLES
from backend.runs.models import SAMPLE_ROWS, PackedSamples, Run, Step

# plan -> the kind of chart its series feed
PLAN_KINDS = {
    "consistency": "time",
    "hdtach": "position",
    "trim-validation": "position",
    "write-hitching": "stalls",
    "trim-performance": "stalls",
    "transfer-size": "transfer",
    "thermal": "thermal",
    "mixed": "mixed",
}
# metric -> (unit, the sample column counted, factor): value = count / dt_ms x factor
TIME_METRICS: dict[str, tuple[str, str, float]] = {
    "write_iops": ("IOPS", "write_ios", 1000.0),
    "read_iops": ("IOPS", "read_ios", 1000.0),
    "write_mbps": ("MB/s", "write_bytes", 1e-3),
    "read_mbps": ("MB/s", "read_bytes", 1e-3),
}
DEFAULT_METRIC = {"time": "write_iops", "position": "mbps", "stalls": "mbps", "transfer": "mbps",
                  "thermal": "mbps", "mixed": "mbps"}  # fmt: skip
THERMAL_ROLES = ("thermal-heat", "thermal-cool")
MAX_POINTS = 20_000
# What a series and its conditions read of a step: not fio's output, stderr or job file.
SERIES_STEP_COLUMNS = (Step.id, Step.run_id, Step.kind, Step.name, Step.status, Step.params,
                       Step.started_at)  # fmt: skip


def charted(kind: str, role: str) -> bool:
    if kind == "time":
        return role in ("consistency", "torture")
    if kind == "position":
        return role.startswith("hdtach")
    if kind == "stalls":
        return role in STALL_ROLES
    if kind == "thermal":
        return role in THERMAL_ROLES
    if kind == "mixed":
        return role == MIXED_STEP
    return role in ("transfer-read", "transfer-write")


LatestRun = tuple[Run, str | None, str | None, str | None, bool]
# session.info key of the latest runs read once for every plan (see `latest_runs_once`).
_EVERY_PLAN = "drivelab.latest_runs_of_every_plan"


def _latest_query(drive_ids: list[int]) -> Any:
    env = Run.environment
    return (
        select(
            Run,
            env["drive"]["firmware"].as_string(),
            env["host"]["fio_version"].as_string(),
            env["host"]["hostname"].as_string(),
            env["resumes"].as_string(),
        )
        .options(
            load_only(Run.id, Run.drive_id, Run.plan, Run.params, Run.finished_at, raiseload=True)
        )
        .where(Run.drive_id.in_(drive_ids), Run.status == "done")
    )


def _op_of(run: Run) -> int:
    """A run's over-provisioning percent as PostgreSQL reads it below (absent: 0)."""
    value = (run.params or {}).get("op_percent")
    return int(value) if value not in (None, "") else 0


def _newest_first(run: Run) -> tuple[float, int]:
    """PostgreSQL's ORDER BY finished_at DESC, id DESC as a key (NULL sorts first there)."""
    at = run.finished_at
    return (at.timestamp() if at is not None else float("inf"), run.id)


def _found(row: Any) -> LatestRun:
    run, firmware, fio, host, resumes = row
    return run, firmware, fio, host, resumes not in (None, "0", "[]", "null", "false")


@contextmanager
def latest_runs_once(session: Session) -> Iterator[None]:
    """Within the block, `_latest_runs` reads each drive set's latest finished run of every
    plan and over-provisioning in one query and answers every plan from it: the answer of all
    charts (compare_charts) asks for ten plans of the same drives."""
    session.info[_EVERY_PLAN] = {}
    try:
        yield
    finally:
        session.info.pop(_EVERY_PLAN, None)


def _latest_of_every_plan(session: Session, drive_ids: list[int]) -> list[LatestRun]:
    op = func.coalesce(Run.params["op_percent"].astext.cast(Integer), 0)
    query = (
        _latest_query(drive_ids)
        .order_by(Run.drive_id, Run.plan, op, Run.finished_at.desc(), Run.id.desc())
        .ext(distinct_on(Run.drive_id, Run.plan, op))
    )
    return [_found(row) for row in session.execute(query)]


def _latest_runs(
    session: Session, drive_ids: list[int], plan: str, op_percent: int | None
) -> dict[int, LatestRun]:
    """Each drive's latest finished run of the plan (with that OP, when given), with the
    firmware, fio version and host its environment names: picked out by PostgreSQL, not
    loaded with the rest of the environment (tens of KB of JSON a run)."""
    memo = session.info.get(_EVERY_PLAN)
    if memo is not None:
        key = tuple(sorted(set(drive_ids)))
        every = memo.get(key)
        if every is None:
            every = memo[key] = _latest_of_every_plan(session, list(key))
        out: dict[int, LatestRun] = {}
        for found in every:  # per drive: each OP's latest; the latest of those when OP is free
            run = found[0]
            if run.plan != plan or (op_percent is not None and _op_of(run) != op_percent):
                continue
            had = out.get(run.drive_id)
            if had is None or _newest_first(run) > _newest_first(had[0]):
                out[run.drive_id] = found
        return out
    query = (
        _latest_query(drive_ids)
        .where(Run.plan == plan)
        .order_by(Run.drive_id, Run.finished_at.desc(), Run.id.desc())
        .ext(distinct_on(Run.drive_id))
    )
    if op_percent is not None:
        op = func.coalesce(Run.params["op_percent"].astext.cast(Integer), 0)
        query = query.where(op == op_percent)
    return {found[0].drive_id: found for found in map(_found, session.execute(query))}


def _pattern(run: Run, step_params: dict[str, Any]) -> str | None:
    """The data pattern of the run's writes: its parameter, else what the job file says."""
    if run.params.get("pattern"):
        return str(run.params["pattern"])
    if "buffer_compress_percentage" in step_params:
        return "compressible"
    if "write" in str(step_params.get("rw", "")):
        return "incompressible"
    return None


def _span(step_params: dict[str, Any]) -> int | None:
    if step_params.get("span_bytes"):
        return int(step_params["span_bytes"])
    try:
        return parse_size(str(step_params["size"])) if step_params.get("size") else None
    except ValueError:
        return None


def _conditions(
    run: Run,
    firmware: str | None,
    fio_version: str | None,
    steps: Sequence[Step],
    befores: dict[int, str],
    drive: Any,
) -> dict[str, Any]:
    """What an exported chart states about the run (of its first charted step), and the
    conditions a comparison compares (backend.results.conditions)."""
    main = steps[0].params if steps else {}
    op = run.params.get("op_percent", main.get("op_percent", 0))
    firmware = firmware or drive.firmware
    fields = {f: None if main.get(f) is None else str(main.get(f)) for f in cond.STEP_FIELDS}
    compared = {
        **cond.step_conditions(fields, befores.get(steps[0].id, "as found") if steps else ""),
        **cond.run_conditions(
            op_percent=op,
            has_op_percent=True,
            fio_version=fio_version,
            ioengine=run.params.get("ioengine"),
            firmware=firmware,
            simulated=drive.model.simulated,
        ),
    }
    return {
        "plan": run.plan,
        "iodepth": main.get("iodepth"),
        "span_bytes": _span(main),
        "pattern": _pattern(run, main),
        "op_percent": int(op or 0),
        "firmware": firmware,
        "fio_version": fio_version,
        "finished_at": run.finished_at,
        "compared": dict(cond.merged(compared, {})),
    }


def _downsampled(
    xs: list[float], ys: list[float], points: int
) -> tuple[list[tuple[float, float]], int, bool]:
    total = len(xs)
    if total > points:
        xs, ys = minmax_downsample(xs, ys, points)
    return list(zip(xs, ys, strict=True)), total, len(xs) < total


def _time_series(
    session: Session, steps: list[Step], metric: str, points: int
) -> dict[int, tuple[list[tuple[float, float]], int, bool]]:
    """The steps' samples as the metric per second of each interval: a finished step's are
    one packed row (three arrays of it are read, in one query for every step), computed with
    numpy in float64 (count / dt_ms x factor, the same arithmetic as the run page's series);
    a step whose samples are not packed (yet) is read through the view of every sample. The
    last interval, when short (fio's final summary), is folded into the one before, as every
    chart and metric of a step does (analysis.intervals)."""
    _unit, column, factor = TIME_METRICS[metric]
    ids = [s.id for s in steps]
    packed = PackedSamples.__table__.c
    found: dict[int, tuple[Any, Any, Any]] = {
        step_id: (t_ms, dt_ms, counts)
        for step_id, t_ms, dt_ms, counts in session.connection().execute(
            select(packed.step_id, packed.t_ms, packed.dt_ms, packed[column]).where(
                packed.step_id.in_(ids)
            )
        )
    }
    loose = [i for i in ids if i not in found]
    if loose:
        rows = SAMPLE_ROWS.c
        order = rows.t_ms.asc()
        found.update(
            (step_id, (t_ms, dt_ms, counts))
            for step_id, t_ms, dt_ms, counts in session.connection().execute(
                select(
                    rows.step_id,
                    func.array_agg(aggregate_order_by(rows.t_ms, order)),
                    func.array_agg(aggregate_order_by(rows.dt_ms, order)),
                    func.array_agg(aggregate_order_by(rows[column], order)),
                )
                .where(rows.step_id.in_(loose))
                .group_by(rows.step_id)
            )
        )
    out = {}
    for step_id in ids:
        t_ms, dt_ms, counts = found.get(step_id, ([], [], []))
        dt = np.asarray(dt_ms, dtype=np.float64)
        measured = dt > 0
        t, dt, (n,) = fold_short_tail_arrays(
            np.asarray(t_ms, dtype=np.float64)[measured],
            dt[measured],
            np.asarray(counts, dtype=np.float64)[measured],
        )
        out[step_id] = _downsampled((t / 1000).tolist(), (n / dt * factor).tolist(), points)
    return out


def _direction(step: Step) -> str:
    rw = str(step.params.get("rw", ""))
    return "read" if rw in ("read", "randread") else "write"


def _thermal_series(session: Session, steps: list[Step], points: int) -> list[dict[str, Any]]:
    """A thermal run's phases one after the other on one time line (seconds since the first
    phase started, each phase at its own start): two lines, the heat phases' MB/s (a cool
    phase moves nothing: 0) and the drive's temperature (°C, where it has a sensor). Samples
    as the run page has them: per interval, fio's short last one folded into the one before."""
    if not steps:
        return []
    rows = SAMPLE_ROWS.c
    order = rows.t_ms.asc()
    found = {
        step_id: cols
        for step_id, *cols in session.connection().execute(
            select(
                rows.step_id,
                func.array_agg(aggregate_order_by(rows.t_ms, order)),
                func.array_agg(aggregate_order_by(rows.dt_ms, order)),
                func.array_agg(aggregate_order_by(rows.read_bytes, order)),
                func.array_agg(aggregate_order_by(rows.write_bytes, order)),
                func.array_agg(aggregate_order_by(rows.temp_dc, order)),
            )
            .where(rows.step_id.in_([s.id for s in steps]))
            .group_by(rows.step_id)
        )
    }
    origin = min((s.started_at for s in steps if s.started_at is not None), default=None)
    t_mbps: list[float] = []
    mbps: list[float] = []
    t_temp: list[float] = []
    temp: list[float] = []
    for step in steps:
        if step.id not in found or step.started_at is None:
            continue
        t_ms, dt_ms, rb, wb, temp_dc = found[step.id]
        offset = (step.started_at - origin).total_seconds() if origin else 0.0
        heat = step.params.get("role") == "thermal-heat"
        moved = rb if _direction(step) == "read" else wb
        t, dt, (n,) = fold_short_tail_arrays(t_ms, dt_ms, moved)
        for x, d, b in zip(t.tolist(), dt.tolist(), n.tolist(), strict=True):
            if d > 0:
                t_mbps.append(offset + x / 1000)
                mbps.append(b / d / 1000 if heat else 0.0)
        for x, c in zip(t_ms, temp_dc, strict=True):
            if c is not None:
                t_temp.append(offset + x / 1000)
                temp.append(c / 10)
    first = steps[0]
    out = []
    for name, unit, xs, ys, label in (
        ("thermal-mbps", "MB/s", t_mbps, mbps, f"{_direction(first)} MB/s"),
        ("thermal-temp", "°C", t_temp, temp, "drive temperature"),
    ):
        if not xs:
            continue
        pts, total, down = _downsampled(xs, ys, points)
        out.append({"step_id": first.id, "step": name, "label": label, "role": name,
                    "stalls": None, "step_downs": None, "unit": unit, "x": "t_s",
                    "total_points": total, "downsampled": down, "points": pts})  # fmt: skip
    return out


def _drawn(
    session: Session, kind: str, steps: list[Step]
) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """What position and stall charts draw of the charted steps only, one query: the step's
    analysis (the HD Tach curve, step-downs, stalls) and, for stalls, only the bandwidth log
    and its window of the step's logs (the other logs of a step are as long, and decoding
    every step's logs cost more than drawing the chart)."""
    if kind not in ("position", "stalls") or not steps:
        return {}
    bw = Step.logs["bw"] if kind == "stalls" else null()
    window = Step.logs["window_ms"] if kind == "stalls" else null()
    return {
        step_id: (analysis or {}, {"bw": bw_log, "window_ms": window_ms} if bw_log else {})
        for step_id, analysis, bw_log, window_ms in session.execute(
            select(Step.id, Step.analysis, bw, window).where(Step.id.in_([s.id for s in steps]))
        )
    }


def _step_series(
    kind: str,
    step: Step,
    metric: str,
    points: int,
    timed: dict[int, tuple[list[tuple[float, float]], int, bool]],
    transfer: dict[int, dict[str, float]],
    drawn: dict[int, tuple[dict[str, Any], dict[str, Any]]],
) -> dict[str, Any] | None:
    # Every field of schemas.StepSeries, as the api serialises the dict as it is.
    base = {
        "step_id": step.id,
        "step": step.name,
        "label": str(step.params.get("label") or step.name),
        "role": step.params.get("role"),
        "stalls": None,
        "step_downs": None,
    }
    if kind == "time":
        pts, total, down = timed[step.id]
        return {**base, "unit": TIME_METRICS[metric][0], "x": "t_s", "total_points": total,
                "downsampled": down, "points": pts}  # fmt: skip
    if kind == "position":
        analysis, _logs = drawn[step.id]
        curve = analysis.get("hdtach")
        if not curve:
            return None
        pts, total, down = _downsampled(curve["position_pct"], curve["mbps"], points)
        step_downs = [
            {
                **{k: d[k] for k in ("at_pct", "at_gb", "from_mbps", "to_mbps")},
                "heat": (d.get("heat") or {}).get("heat"),
            }
            for d in analysis.get("step_downs") or []
        ]
        return {**base, "unit": "MB/s", "x": "position_pct", "total_points": total,
                "downsampled": down, "points": pts, "step_downs": step_downs}  # fmt: skip
    if kind == "stalls":
        analysis, logs = drawn[step.id]
        bw = logs.get("bw") or {}
        window = int(logs.get("window_ms") or bw.get("window_ms") or 0)
        got = log_points(logs, "bw", _direction(step))
        if not window or not got or not got[0]:
            return None
        # fio's bandwidth log is in bytes/s per window; MB/s is 10^6 bytes/s. Rows at their own
        # times, the time without a row drawn at 0 (analysis.stalls.window_log_points).
        xs, ys = got
        ys = [y * 1e-6 for y in ys]
        pts, total, down = _downsampled(xs, ys, points)
        stalls = [
            {"start_s": s["start_s"], "duration_s": s["duration_s"]}
            for s in (analysis.get("stalls") or {}).get("stalls") or []
        ]
        return {**base, "unit": "MB/s", "x": "t_s", "total_points": total, "downsampled": down,
                "points": pts, "stalls": stalls}  # fmt: skip
    if kind == "mixed":
        # fio's reads and writes together (backend.results.mixed), at the step's write share.
        value = transfer.get(step.id, {}).get("mixed_mbps")
        pct = step.params.get("write_pct")
        if value is None or pct is None:
            return None
        return {**base, "unit": "MB/s", "x": "write_pct", "total_points": 1,
                "downsampled": False, "points": [(float(pct), value)]}  # fmt: skip
    value = transfer.get(step.id, {}).get(f"{_direction(step)}_mbps")
    bs = step.params.get("bs_bytes")
    if value is None or bs is None:
        return None
    return {**base, "unit": "MB/s", "x": "bs_bytes", "total_points": 1, "downsampled": False,
            "points": [(float(bs), value)]}  # fmt: skip


def draw_steps(
    session: Session, kind: str, steps: list[Step], metric: str, points: int, *, raw: bool = False
) -> dict[int, Any]:
    """Each step's entry of a chart of `kind` (one of chart_digests.KINDS), None where it
    draws nothing: the kept entries (step_charts; with `raw` as their JSON text, RawJson), the
    others drawn from the step's samples, analysis or window log, and kept."""
    key = chart_digests.chart_key(metric, points)
    keep = chart_digests.kept_points(points)
    kept = chart_digests.read(session, [s.id for s in steps], key, raw=raw) if keep else {}
    todo = [s for s in steps if s.id not in kept]
    if not todo:
        return kept
    timed = _time_series(session, todo, metric, points) if kind == "time" else {}
    drawn = _drawn(session, kind, todo)
    made = {s.id: _step_series(kind, s, metric, points, timed, {}, drawn) for s in todo}
    if keep:
        chart_digests.store(session, made, key)
    return {**kept, **made}


def _merge_transfer(series: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A transfer-size sweep has one step per size and direction: one line per direction,
    MB/s against transfer size."""
    lines: dict[str, dict[str, Any]] = {}
    for s in series:
        role = str(s["role"])
        verb = role.removeprefix("transfer-")
        line = lines.setdefault(
            verb,
            {**s, "step": role, "label": f"sequential {verb}, QD4", "points": [],
             "total_points": 0},
        )  # fmt: skip
        line["points"] = line["points"] + s["points"]
        line["total_points"] += 1
    for line in lines.values():
        line["points"].sort()
    return [lines[v] for v in ("read", "write") if v in lines]


def _merge_mixed(series: list[dict[str, Any]], parts: dict[int, str]) -> list[dict[str, Any]]:
    """The mixed plan has one step per part and write share: one line per part (random,
    sequential), MB/s against the share of writes."""
    lines: dict[str, dict[str, Any]] = {}
    for s in series:
        part = parts[s["step_id"]]
        line = lines.setdefault(
            part,
            {**s, "step": part_key(part), "label": part_label(part), "points": [],
             "total_points": 0},
        )  # fmt: skip
        line["points"] = line["points"] + s["points"]
        line["total_points"] += 1
    for line in lines.values():
        line["points"].sort()
    return [lines[p] for p in ("random", "sequential") if p in lines]


def compare_series(
    session: Session,
    drive_ids: list[int],
    plan: str,
    metric: str | None,
    points: int,
    op_percent: int | None = None,
    *,
    hide_embargoed: bool = False,
    drives_found: dict[int, Any] | None = None,
    raw: bool = False,
) -> dict[str, Any]:
    """The chart series of `plan` for these drives (`drives_found`: the drives as compare._drives
    read them for this request, when the caller already has them). With `raw`, a kept step's
    entry is its JSON text (RawJson), for an answer written by compare_parts.json_of."""
    if not drive_ids:
        raise InvalidParams("choose at least one drive: ?drives=1,2,3", field="drives")
    kind = PLAN_KINDS.get(plan)
    if kind is None:
        raise InvalidParams(
            f"no chart series for plan {plan!r}: choose one of {', '.join(PLAN_KINDS)}",
            field="plan",
        )
    metric = metric or DEFAULT_METRIC[kind]
    if kind == "time" and metric not in TIME_METRICS:
        raise InvalidParams(
            f"unknown metric {metric!r}: choose one of {', '.join(TIME_METRICS)}", field="metric"
        )
    if not 4 <= points <= MAX_POINTS:
        raise InvalidParams(f"points is 4 to {MAX_POINTS}: about the chart's width", field="points")
    drives = (
        drives_found if drives_found is not None else _drives(session, drive_ids, hide_embargoed)
    )
    runs = _latest_runs(session, list(drives), plan, op_percent)
    steps_by_run: dict[int, list[Step]] = defaultdict(list)
    befores: dict[int, str] = {}
    if runs:
        every: dict[int, list[Step]] = defaultdict(list)
        for step in session.scalars(
            select(Step)
            .options(load_only(*SERIES_STEP_COLUMNS, raiseload=True))
            .where(Step.run_id.in_([found[0].id for found in runs.values()]))
            .order_by(Step.run_id, Step.idx)
        ):
            every[step.run_id].append(step)
            role = str(step.params.get("role") or "")
            if step.status == "done" and charted(kind, role):
                steps_by_run[step.run_id].append(step)
        for run_steps in every.values():
            states = cond.state_before(
                [(s.kind, s.name, s.params.get("role"), s.status == "done") for s in run_steps]
            )
            befores.update({s.id: b for s, b in zip(run_steps, states, strict=True)})
    all_steps = [s for steps in steps_by_run.values() for s in steps]
    kept = (
        draw_steps(session, kind, all_steps, metric, points, raw=raw)
        if kind in chart_digests.KINDS
        else {}
    )
    transfer: dict[int, dict[str, float]] = defaultdict(dict)
    if kind in ("transfer", "mixed") and all_steps:
        for step_id, name, value in session.execute(
            select(Result.step_id, Result.metric, Result.value).where(
                Result.step_id.in_([s.id for s in all_steps]),
                Result.metric.in_(("read_mbps", "write_mbps", "mixed_mbps")),
            )
        ):
            if step_id is not None:
                transfer[step_id][name] = value
    out: list[dict[str, Any]] = []
    missing = []
    notes: list[tuple[str, Any, bool]] = []
    for drive_id in dict.fromkeys(drive_ids):
        drive = drives[drive_id]
        label = drive_label(drive)
        found = runs.get(drive_id)
        if found is None:
            op = f" with {op_percent}% OP" if op_percent else ""
            missing.append(
                {
                    "drive_id": drive_id,
                    "label": label,
                    "short_name": drive.short_name,
                    "reason": f"no finished {plan} run{op}",
                }  # fmt: skip
            )
            continue
        run, firmware, fio_version, host, resumed = found
        steps = steps_by_run.get(run.id, [])
        series = (
            _thermal_series(session, steps, points)
            if kind == "thermal"
            else [
                s
                for step in steps
                if (
                    s := kept[step.id]
                    if kind in chart_digests.KINDS
                    else _step_series(kind, step, metric, points, {}, transfer, {})
                )
                is not None
            ]
        )
        if kind == "transfer":
            series = _merge_transfer(series)
        if kind == "mixed":
            series = _merge_mixed(series, {s.id: str(s.params.get("part")) for s in steps})
        out.append(
            {
                "drive_id": drive_id,
                "label": label,
                "short_name": drive.short_name,
                "simulated": drive.model.simulated,
                "run_id": run.id,
                "conditions": _conditions(run, firmware, fio_version, steps, befores, drive),
                "series": series,
            }
        )
        notes.append((drive.short_name or drive.model.model, host, resumed))
    warnings = cond.warnings(
        [
            (d["short_name"] or drives[d["drive_id"]].model.model,
             tuple(d["conditions"]["compared"].items()))
            for d in out
        ],
        notes,
    )  # fmt: skip
    return {"plan": plan, "metric": metric, "op_percent": op_percent, "drives": out,
            "missing": missing, "warnings": warnings}  # fmt: skip
