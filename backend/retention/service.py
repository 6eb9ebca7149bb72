"""Retention: compacting the per-second samples and window logs of old runs.

A lab keeps every run, and most of its database is samples and window logs of runs nobody
charts at full resolution any more. Compacting a run keeps, of each step's samples, the rows
that draw its charts: for every charted value (MB/s and IOPS per direction, mean, p99 and max
latency), the lowest and the highest row of each of `points // 2` buckets, the way the charts
downsample (backend.analysis.downsample), plus the first row and the last two (a short last
interval is folded into the one before). Each kept row is an interval fio measured, unchanged.
A window log becomes its chart points (gaps drawn at 0 included), min/max downsampled to
`points` per direction.

Results (Result rows, step analysis, latency histograms, PTS rounds) and fio's own JSON output
are never touched: they were derived when each step ended and stay exactly as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from backend.analysis.downsample import minmax_downsample
from backend.analysis.intervals import fold_short_tail
from backend.audit.service import record
from backend.core.db import utcnow
from backend.core.errors import InvalidParams
from backend.results.series import log_points
from backend.retention.models import DEFAULT_POINTS, RetentionPolicy
from backend.runs.models import RUN_FINAL, SAMPLE_COLUMNS, SAMPLE_ROWS, Run, Step
from backend.users.models import User

MIN_POINTS = 4
MAX_POINTS = 100_000
MAX_DAYS = 36_500
# value columns whose min/max per bucket are kept: a rate (count / dt_ms) or a value as stored
RATE_COLUMNS = ("read_bytes", "write_bytes", "read_ios", "write_ios")
VALUE_COLUMNS = (
    "read_lat_mean_us",
    "write_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_p99_us",
    "read_lat_max_us",
    "write_lat_max_us",
    "temp_dc",  # the hottest and coolest second of each bucket
)


def get_policy(session: Session) -> RetentionPolicy:
    policy = session.get(RetentionPolicy, 1)
    if policy is None:
        policy = RetentionPolicy(id=1, days=None, points=DEFAULT_POINTS)
        session.add(policy)
        session.flush()
    return policy


def _check(days: int | None, points: int) -> None:
    if days is not None and days < 1:
        raise InvalidParams(
            f"days must be at least 1 (got {days}); leave it empty to keep everything",
            field="days",
        )
    if days is not None and days > MAX_DAYS:
        raise InvalidParams(f"days is at most {MAX_DAYS} (got {days})", field="days")
    if points > MAX_POINTS:
        raise InvalidParams(f"points is at most {MAX_POINTS} (got {points})", field="points")
    if points < MIN_POINTS:
        raise InvalidParams(
            f"points must be at least {MIN_POINTS} (got {points}): charts draw about 650",
            field="points",
        )


def set_policy(session: Session, admin: User, days: int | None, points: int) -> RetentionPolicy:
    _check(days, points)
    policy = get_policy(session)
    before = {"days": policy.days, "points": policy.points}
    policy.days, policy.points = days, points
    policy.updated_at, policy.updated_by = utcnow(), admin.name
    record(
        session,
        "retention.changed",
        admin,
        subject="retention policy",
        details={"before": before, "after": {"days": days, "points": points}},
    )
    return policy


def _eligible(session: Session, cutoff: datetime) -> list[int]:
    return list(
        session.scalars(
            select(Run.id)
            .where(
                Run.status.in_(RUN_FINAL),
                Run.finished_at.is_not(None),
                Run.finished_at < cutoff,
                Run.compacted_at.is_(None),
            )
            .order_by(Run.id)
        )
    )


def eligible_runs(session: Session, days: int) -> int:
    return len(_eligible(session, utcnow() - timedelta(days=days)))


def kept_sample_rows(rows: list[Any], points: int) -> list[int]:
    """Indices (into rows, oldest first) of the samples a compacted step keeps."""
    n = len(rows)
    if n <= points:
        return list(range(n))
    keep = {0, n - 2, n - 1}
    # The extremes are those of the series the charts draw: a short last interval (fio's final
    # summary) is folded into the one before for rates and left out for latencies. Picked from
    # the raw rows instead, that short interval's rate would take its bucket's min or max slot
    # and the chart's true extreme of that bucket would be dropped.
    folded = _folds(rows, list(range(n)))
    index = list(range(n - 1 if folded else n))
    nan = float("nan")
    for column in (*RATE_COLUMNS, *VALUE_COLUMNS):
        if column in RATE_COLUMNS:
            ys = [getattr(r, column) / r.dt_ms if r.dt_ms > 0 else nan for r in rows]
            if folded:
                tail = rows[n - 2 :]
                dt = sum(r.dt_ms for r in tail)
                ys[n - 2 :] = [sum(getattr(r, column) for r in tail) / dt if dt > 0 else nan]
        else:
            ys = [nan if getattr(r, column) is None else getattr(r, column) for r in rows]
            ys = ys[: len(index)]
        if not any(y for y in ys if y == y):
            continue  # a direction the step did not use, or latency a worker did not report
        xs, _ = minmax_downsample(index, ys, points)
        keep.update(int(x) for x in xs)
    return _same_fold(rows, keep)


def _folds(rows: list[Any], kept: list[int]) -> bool:
    t, _dt, _ = fold_short_tail([rows[i].t_ms for i in kept], [rows[i].dt_ms for i in kept])
    return len(t) < len(kept)


def _same_fold(rows: list[Any], keep: set[int]) -> list[int]:
    """`keep`, with rows of a typical length added until the kept rows fold their last interval
    into the one before exactly when all the rows do (analysis.intervals.fold_short_tail
    compares the last interval with the median one: the extremes kept can move the median)."""
    everything = _folds(rows, list(range(len(rows))))
    kept = sorted(keep)
    if _folds(rows, kept) == everything:
        return kept
    median = float(np.median([r.dt_ms for r in rows[:-1]]))
    typical = sorted(
        (i for i in range(1, len(rows) - 2) if i not in keep),
        key=lambda i: abs(rows[i].dt_ms - median),
    )
    step = 1
    while typical and _folds(rows, kept) != everything:
        keep.update(typical[:step])
        typical = typical[step:]
        kept = sorted(keep)
        step *= 2
    return kept


def compact_logs(logs: dict[str, Any], points: int) -> tuple[dict[str, Any], int, int]:
    """(compacted logs, rows before, points after): each window log (bw, iops) as its chart
    points per direction, min/max downsampled to `points`. Other keys (purge, TRIM and
    steady-state records) are kept as they are."""
    out = dict(logs)
    before = after = 0
    for kind in ("bw", "iops"):
        log = logs.get(kind)
        if not isinstance(log, dict) or "compacted" in log or not log.get("t_ms"):
            continue
        packed: dict[str, Any] = {}
        for direction in ("read", "write"):
            if direction not in log:
                continue
            got = log_points(logs, kind, direction)
            if got is None:
                continue
            xs, ys = got
            if len(xs) > points:
                xs, ys = minmax_downsample(xs, ys, points)
            packed[direction] = {"t_s": xs, "v": ys}
            after += len(xs)
        before += len(log["t_ms"])
        window = int(logs.get("window_ms") or log.get("window_ms") or 0)
        out[kind] = {"window_ms": window, "rows": len(log["t_ms"]), "compacted": packed}
    return out, before, after


@dataclass
class Compaction:
    days: int
    points: int
    runs: list[int] = field(default_factory=list)
    steps: int = 0
    samples_before: int = 0
    samples_after: int = 0
    log_rows_before: int = 0
    log_points_after: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "days": self.days,
            "points": self.points,
            "runs": self.runs,
            "steps": self.steps,
            "samples_before": self.samples_before,
            "samples_after": self.samples_after,
            "log_rows_before": self.log_rows_before,
            "log_points_after": self.log_points_after,
        }


def _compact_step(session: Session, step: Step, points: int, out: Compaction) -> None:
    c = SAMPLE_ROWS.c
    columns = [c[name] for name in SAMPLE_COLUMNS if name not in ("run_id", "step_id")]
    rows = list(session.execute(select(*columns).where(c.step_id == step.id).order_by(c.t_ms)))
    kept = kept_sample_rows(rows, points)
    out.samples_before += len(rows)
    out.samples_after += len(kept)
    if len(kept) < len(rows):
        # The step's samples packed again with only the kept ones (migration 0013).
        session.execute(
            text("SELECT pack_step_samples(:step, :kept)"),
            {"step": step.id, "kept": [rows[i].t_ms for i in kept]},
        )
    if step.logs:
        logs, before, after = compact_logs(step.logs, points)
        if before:
            step.logs = logs
            out.log_rows_before += before
            out.log_points_after += after
    out.steps += 1


def compact(
    session: Session,
    actor: User | str,
    *,
    days: int | None = None,
    points: int | None = None,
    limit: int | None = None,
) -> Compaction:
    """Compact the runs that finished more than `days` ago (default: the policy's) and were not
    compacted yet; record it in the audit log when any was."""
    policy = get_policy(session)
    days = days if days is not None else policy.days
    points = points if points is not None else policy.points
    if days is None:
        raise InvalidParams(
            "no retention period is set: set one (PUT /api/admin/retention) or pass days",
            field="days",
        )
    _check(days, points)
    out = Compaction(days=days, points=points)
    run_ids = _eligible(session, utcnow() - timedelta(days=days))
    if limit is not None:
        run_ids = run_ids[:limit]
    for run_id in run_ids:
        # Locked, so that a resume or a second compaction of the same run waits for this one.
        session.execute(select(Run.id).where(Run.id == run_id).with_for_update())
        for step in session.scalars(select(Step).where(Step.run_id == run_id).order_by(Step.idx)):
            _compact_step(session, step, points, out)
        session.execute(update(Run).where(Run.id == run_id).values(compacted_at=utcnow()))
        out.runs.append(run_id)
    if out.runs:
        record(
            session,
            "retention.compacted",
            actor,
            subject=f"{len(out.runs)} runs finished more than {days} days ago",
            details={**out.as_dict(), "runs": len(out.runs), "run_ids": out.runs[:1000]},
        )
    return out
