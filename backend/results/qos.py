"""Latency QoS of stored steps: the figures of every fio step from its stored histogram
(backend.analysis.latency), histogram and exceedance curves, a queue-depth sweep's curves and
figures. The same across drives, for Compare: backend.results.qos_compare."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from backend.analysis import latency as lat
from backend.analysis.qd_sweep import sweep_figures
from backend.core.errors import InvalidParams, NotFound
from backend.results.models import Result, StepLatency
from backend.runs.models import Step
from backend.runs.service import get_run, run_step

Metric = tuple[str, float, str]
SWEEP_ROLE = "qd-sweep"
SWEEP_SUMMARY_ROLE = "qd-sweep-summary"
RATE_METRICS = ("read_iops", "write_iops", "read_mbps", "write_mbps")


def store_latency(session: Session, run_id: int, step_id: int, final: dict[str, Any]) -> None:
    """Keep a finished fio step's histogram per direction (once: a resent report adds none)."""
    if session.scalar(select(StepLatency.step_id).where(StepLatency.step_id == step_id)):
        return
    session.add_all(_rows_of(run_id, step_id, final))


def _qos(row: StepLatency, bins: dict[int, int]) -> dict[str, Any]:
    return lat.qos_from_bins(bins, int(row.ios), row.mean_us, row.min_us, row.max_us)


def _all_io(rows: Sequence[StepLatency], bins: dict[str, dict[int, int]]) -> dict[str, Any]:
    """Read and write together: the histograms added, fio's counts and means weighted."""
    n = sum(int(r.ios) for r in rows)
    return lat.qos_from_bins(
        lat.merge_bins(bins.values()),
        n,
        sum(r.mean_us * int(r.ios) for r in rows) / n,
        min(r.min_us for r in rows),
        max(r.max_us for r in rows),
    )


def _latency_rows(session: Session, step_ids: list[int]) -> dict[int, list[StepLatency]]:
    """The stored histograms of the steps; for fio steps that finished before histograms
    were kept, read from their stored fio output (not stored: a GET changes nothing)."""
    out: dict[int, list[StepLatency]] = defaultdict(list)
    if not step_ids:
        return out
    for row in session.scalars(
        select(StepLatency)
        .where(StepLatency.step_id.in_(step_ids))
        .order_by(StepLatency.step_id, StepLatency.direction)
    ):
        out[row.step_id].append(row)
    older = [i for i in step_ids if i not in out]
    if older:
        for step_id, run_id, output in session.execute(
            select(Step.id, Step.run_id, Step.output).where(
                Step.id.in_(older),
                Step.kind == "fio",
                Step.status == "done",
                Step.output.is_not(None),
            )
        ):
            try:
                final = json.loads(output or "")
            except ValueError:
                continue
            out[step_id] = _rows_of(run_id, step_id, final)
    return out


def _rows_of(run_id: int, step_id: int, final: dict[str, Any]) -> list[StepLatency]:
    rows = []
    for d in lat.DIRECTIONS:
        q = lat.direction_qos(final, d)
        bins = lat.direction_bins(final, d)
        if q is None or not bins:
            continue
        rows.append(
            StepLatency(
                step_id=step_id,
                direction=d,
                run_id=run_id,
                ios=q["ios"],
                mean_us=q["mean_us"],
                min_us=q["min_us"],
                max_us=q["max_us"],
                bins=lat.pack_bins(bins),
            )
        )
    return rows


def _rates(session: Session, step_ids: list[int]) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = defaultdict(dict)
    if step_ids:
        for step_id, metric, value in session.execute(
            select(Result.step_id, Result.metric, Result.value).where(
                Result.step_id.in_(step_ids), Result.metric.in_(RATE_METRICS)
            )
        ):
            if step_id is not None:
                out[step_id][metric] = value
    return out


def _step_entry(step: Step, rows: list[StepLatency], rates: dict[str, float]) -> dict[str, Any]:
    bins = {r.direction: lat.unpack_bins(r.bins) for r in rows}
    p = step.params
    entry: dict[str, Any] = {
        "step_id": step.id,
        "idx": step.idx,
        "name": step.name,
        "label": str(p.get("label") or step.name),
        "role": p.get("role"),
        "workload": p.get("workload"),
        "iodepth": p.get("iodepth"),
        "numjobs": p.get("numjobs", 1),
        "iops": rates.get("read_iops", 0.0) + rates.get("write_iops", 0.0),
        "mbps": rates.get("read_mbps", 0.0) + rates.get("write_mbps", 0.0),
        "directions": {r.direction: _qos(r, bins[r.direction]) for r in rows},
    }
    entry["all"] = (
        _all_io(rows, bins) if len(rows) > 1 else next(iter(entry["directions"].values()))
    )
    return entry


def sweep_points(steps: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A qd-sweep's points by workload, shallowest first: QD (per job and in total), IOPS,
    MB/s and the percentiles of all its I/O."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in steps:
        if s["role"] != SWEEP_ROLE or not s.get("workload"):
            continue
        pct = s["all"]["percentiles"]
        qd = int(s["iodepth"] or 1)
        out[str(s["workload"])].append(
            {
                "step_id": s["step_id"],
                "qd": qd,
                "total_qd": qd * int(s["numjobs"] or 1),
                "iops": s["iops"],
                "mbps": s["mbps"],
                "mean_us": s["all"]["mean_us"],
                "p50_us": pct["p50"],
                "p99_us": pct["p99"],
                "p99_9_us": pct["p99.9"],
                "p99_99_us": pct["p99.99"],
                "max_us": s["all"]["max_us"],
            }
        )
    return {w: sorted(v, key=lambda p: p["qd"]) for w, v in out.items()}


def run_qos(session: Session, run_id: int, *, hide_embargoed: bool = False) -> dict[str, Any]:
    """Every fio step's QoS figures per direction; for a qd-sweep run also its curves and
    figures per workload."""
    run = get_run(session, run_id, hide_embargoed=hide_embargoed)
    ids = [s.id for s in run.steps]
    rows = _latency_rows(session, ids)
    rates = _rates(session, ids)
    steps = [_step_entry(s, rows[s.id], rates.get(s.id, {})) for s in run.steps if rows.get(s.id)]
    out: dict[str, Any] = {
        "run_id": run.id,
        "plan": run.plan,
        "percentiles": [label for label, _ in lat.PERCENTILES],
        "steps": steps,
        "sweep": None,
    }
    if run.plan == "qd-sweep":
        target = float(run.params.get("latency_target_us") or 1000.0)
        out["sweep"] = {
            "latency_target_us": target,
            "workloads": [
                {"workload": w, "points": pts, "figures": sweep_figures(pts, target)}
                for w, pts in sweep_points(steps).items()
            ],
        }
    return out


def step_latency(
    session: Session,
    run_id: int,
    step_id: int,
    per_decade: int = 20,
    *,
    hide_embargoed: bool = False,
) -> dict[str, Any]:
    """One step's distribution per direction (and of all its I/O): QoS figures, a histogram
    on log-spaced bins and the exceedance curve."""
    if not 2 <= per_decade <= 100:
        raise InvalidParams("per_decade is 2 to 100 bins per decade", field="per_decade")
    get_run(session, run_id, with_steps=False, hide_embargoed=hide_embargoed)
    step = run_step(session, run_id, step_id)
    rows = _latency_rows(session, [step.id]).get(step.id, [])
    if not rows:
        raise NotFound(
            f"step {step.id} of run {run_id} has no latency histogram: only fio steps that "
            "finished keep one",
            field="step_id",
        )
    return {"step_id": step.id, "name": step.name, **_distributions(rows, per_decade)}


def _distributions(rows: list[StepLatency], per_decade: int = 20) -> dict[str, Any]:
    bins = {r.direction: lat.unpack_bins(r.bins) for r in rows}
    out = {
        r.direction: {
            "qos": _qos(r, bins[r.direction]),
            "histogram": lat.histogram_points(bins[r.direction], per_decade),
            "exceedance": lat.exceedance_points(bins[r.direction]),
        }
        for r in rows
    }
    if len(rows) > 1:
        merged = lat.merge_bins(bins.values())
        out["all"] = {
            "qos": _all_io(rows, bins),
            "histogram": lat.histogram_points(merged, per_decade),
            "exceedance": lat.exceedance_points(merged),
        }
    return {"per_decade": per_decade, "directions": out}


def latency_csv(data: dict[str, Any]) -> str:
    """A step's histogram and exceedance curve as CSV rows: direction, kind, x, y."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["direction", "curve", "latency_us", "value"])
    for d, dist in data["directions"].items():
        for x, y in dist["histogram"]:
            w.writerow([d, "histogram_pct", f"{x:.6g}", f"{y:.6g}"])
        for x, y in dist["exceedance"]:
            w.writerow([d, "exceedance", f"{x:.6g}", f"{y:.6g}"])
    return buf.getvalue()


# --- derived when a sweep's workload is done ---------------------------------------------


def derive_sweep(session: Session, step: Step) -> tuple[list[Metric], dict[str, Any]]:
    """The figures of one workload of a qd-sweep, on its summary step: from the run's
    finished sweep steps of that workload (fio's IOPS, the p99 of their histograms)."""
    workload = step.params.get("workload")
    target = float(step.params.get("latency_target_us") or 1000.0)
    siblings = list(
        session.scalars(
            select(Step)
            .options(load_only(Step.id, Step.idx, Step.name, Step.params, Step.status))
            .where(Step.run_id == step.run_id, Step.status == "done")
            .order_by(Step.idx)
        )
    )
    mine = [
        s
        for s in siblings
        if s.params.get("role") == SWEEP_ROLE and s.params.get("workload") == workload
    ]
    ids = [s.id for s in mine]
    rows = _latency_rows(session, ids)
    rates = _rates(session, ids)
    entries = [_step_entry(s, rows[s.id], rates.get(s.id, {})) for s in mine if rows.get(s.id)]
    points = sweep_points(entries).get(str(workload), [])
    if not points:
        return [], {}
    fig = sweep_figures(points, target)
    metrics: list[Metric] = [
        ("peak_iops", fig["peak_iops"], "IOPS"),
        ("peak_qd", float(fig["peak_qd"]), "QD"),
        ("qd_95pct_peak", float(fig["qd_at_share_of_peak"]), "QD"),
    ]
    if fig["iops_under_target"] is not None:
        metrics.append(("iops_p99_under_target", fig["iops_under_target"], "IOPS"))
    if fig["low_qd_iops"] is not None:
        metrics.append(("low_qd_iops", fig["low_qd_iops"], "IOPS"))
    return metrics, {"qd_sweep": {"workload": workload, "figures": fig, "points": points}}
